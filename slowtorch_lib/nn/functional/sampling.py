"""``interpolate`` (nearest, linear, bilinear, area) and ``dropout2d``.

Nearest-neighbour upsampling reads, for each output element, the input
element whose index is ``floor(i * in / out)`` along each dimension: a
gather by positions, whose backward adds each gradient back where it was
read (an element read by four outputs, for a factor of 2, gets the sum).

Linear (1-d) and bilinear (2-d) upsampling place output index ``i`` at the
input coordinate ``src = (i + 0.5) * in / out - 0.5`` (clamped at 0), or,
with ``align_corners=True``, ``src = i * (in - 1) / (out - 1)``, so that
the first and last elements of input and output line up. The output is the
mix of the two input elements around ``src``, weighted by how near each
is; in 2-d, of the four around it. That is a fixed linear map of the input,
so its backward is the transposed map: each output's gradient goes back to
the elements it mixed, with the same weights. ``area`` is
``adaptive_avg_pool``: each output is the mean of its window.

``dropout2d`` drops whole channels: one coin per ``(sample, channel)``,
shared by every element of the channel's map.
"""

from __future__ import annotations

import math
import warnings
from array import array
from typing import Any

from slowtorch_lib._creation import zeros
from slowtorch_lib._strides import numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import not_implemented
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.nn.functional.layers import dropout_mask
from slowtorch_lib.nn.functional.pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
)
from slowtorch_lib.ops.common import tensor_input
from slowtorch_lib.ops.gather_scatter import Index

__all__ = ["dropout2d", "interpolate"]

OTHER_MODES = ("bicubic", "trilinear", "nearest-exact")
LINEAR_MODES = {"linear": 3, "bilinear": 4}  # the input's number of dimensions

#: One term of a linear resampling: for each output element, the input
#: position it reads and the weight it gives it.
Taps = list[tuple[list[int], list[float]]]


class UpsampleNearest1d(Index):
    """Each output element is the input element nearest to it (``floor``).

    PyTorch's 1-d backward finds the positions by the 2-d kernel's rule
    (:func:`nearest_sources` with ``shortcuts``), which differs from its
    forward's when a scale factor gives ``out == size`` or ``2 * size``;
    ``grad_positions`` are those, so that the gradients are PyTorch's too.
    """

    grad_fn_name = "UpsampleNearest1DBackward0"

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        *,
        positions: list[int],
        shape: tuple[int, ...],
        grad_positions: list[int] | None = None,
    ) -> Tensor:
        out = Index.forward(ctx, x, positions=positions, shape=shape)
        ctx.positions = grad_positions if grad_positions is not None else positions
        return out


class UpsampleNearest2d(Index):
    grad_fn_name = "UpsampleNearest2DBackward0"


def _float32(value: float) -> float:
    """``value`` rounded to float32, as PyTorch's index arithmetic is."""
    return array("f", [value])[0]


def nearest_sources(
    size: int, out: int, scale: float | None, shortcuts: bool = True
) -> list[int]:
    """The input index each of ``out`` output indices reads (PyTorch's rule).

    The ratio is ``1 / scale`` if a scale factor was given, else
    ``size / out``; both are float32, as in PyTorch's kernel. PyTorch's
    2-d kernel (``shortcuts``) copies when ``out == size`` and takes every
    index twice when ``out == 2 * size``, whatever the scale; its 1-d
    kernel always uses the ratio.

    >>> nearest_sources(3, 6, None), nearest_sources(4, 3, None)
    ([0, 0, 1, 1, 2, 2], [0, 1, 2])
    >>> nearest_sources(3, 6, 2.3), nearest_sources(3, 6, 2.3, shortcuts=False)
    ([0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 1, 2])
    """
    if shortcuts and out == size:
        return list(range(out))
    if shortcuts and out == 2 * size:
        return [i >> 1 for i in range(out)]
    if scale is not None and scale > 0:
        ratio = _float32(1.0 / scale)
    else:
        ratio = _float32(_float32(size) / out)
    return [min(math.floor(_float32(i * ratio)), size - 1) for i in range(out)]


def linear_sources(
    size: int, out: int, align_corners: bool, scale: float | None, single: bool
) -> list[tuple[int, int, float]]:
    """For each output index: the two input indices around it and the weight
    of the second (the first gets ``1 -`` it), by PyTorch's rule.

    ``single`` rounds the arithmetic to float32, as PyTorch does for
    float32 input.

    >>> linear_sources(2, 4, True, None, False)[1]
    (0, 1, 0.3333333333333333)
    """
    rounded = _float32 if single else float
    if align_corners:
        ratio = rounded((size - 1) / (out - 1)) if out > 1 else 0.0
    elif scale is not None and scale > 0:
        ratio = rounded(1.0 / scale)
    else:
        ratio = rounded(rounded(size) / out)
    sources = []
    for i in range(out):
        if align_corners:
            src = rounded(ratio * i)
        else:
            src = max(rounded(rounded(ratio * (i + 0.5)) - 0.5), 0.0)
        low = min(math.floor(src), size - 1)
        weight = min(max(rounded(src - low), 0.0), 1.0)
        sources.append((low, low + (1 if low < size - 1 else 0), weight))
    return sources


class Resample(Function):
    """``out[o] = sum over taps of weight[o] * x[position[o]]``, per plane: a
    fixed linear map, whose backward is :class:`ResampleTranspose`."""

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, taps: Taps, shape: tuple[int, ...]
    ) -> Tensor:
        ctx.taps, ctx.input_shape = taps, x._shape
        values, size = x._values(), numel(x._shape[2:])
        plane = len(taps[0][0])
        out: list[float] = []
        for start in range(0, len(values), size or 1):
            sums = [0.0] * plane
            for positions, weights in taps:
                for o, (p, w) in enumerate(zip(positions, weights)):
                    sums[o] += w * values[start + p]
            out.extend(sums)
        return from_values(out, shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return ResampleTranspose.apply(
            grad_output, taps=ctx.taps, shape=ctx.input_shape
        )


class ResampleTranspose(Function):
    """The transpose of :class:`Resample`: each element of ``g`` is added,
    times each tap's weight, at the tap's input position."""

    @staticmethod
    def forward(
        ctx: FunctionCtx, g: Tensor, *, taps: Taps, shape: tuple[int, ...]
    ) -> Tensor:
        ctx.taps, ctx.g_shape = taps, g._shape
        values, size = g._values(), numel(g._shape[2:])
        plane = numel(shape[2:])
        out = [0.0] * numel(shape)
        for k, start in enumerate(range(0, len(values), size or 1)):
            base = k * plane
            for positions, weights in taps:
                for o, (p, w) in enumerate(zip(positions, weights)):
                    out[base + p] += w * values[start + o]
        return from_values(out, shape, g.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return Resample.apply(grad_output, taps=ctx.taps, shape=ctx.g_shape)


class UpsampleLinear1d(Resample):
    grad_fn_name = "UpsampleLinear1DBackward0"


class UpsampleBilinear2d(Resample):
    grad_fn_name = "UpsampleBilinear2DBackward0"


def _linear_taps(
    input: Tensor, sizes: list[int], scales: list[float | None], align_corners: bool
) -> Taps:
    """The taps of linear (one spatial dimension) or bilinear (two) upsampling."""
    single = input.dtype.itemsize <= 4
    per_dim = [
        linear_sources(n, out, align_corners, scale, single)
        for n, out, scale in zip(input.shape[2:], sizes, scales)
    ]
    if len(per_dim) == 1:
        (columns,) = per_dim
        return [
            ([low for low, _, _ in columns], [1 - w for _, _, w in columns]),
            ([high for _, high, _ in columns], [w for _, _, w in columns]),
        ]
    rows, columns = per_dim
    width = input.shape[3]
    taps: Taps = []
    for row_pick in (0, 1):
        for column_pick in (0, 1):
            positions, weights = [], []
            for row in rows:
                row_weight = row[2] if row_pick else 1 - row[2]
                for column in columns:
                    column_weight = column[2] if column_pick else 1 - column[2]
                    positions.append(row[row_pick] * width + column[column_pick])
                    weights.append(row_weight * column_weight)
            taps.append((positions, weights))
    return taps


def _check_linear(input: Tensor, mode: str, sizes: list[int]) -> None:
    """PyTorch's checks of linear and bilinear upsampling."""
    wanted = LINEAR_MODES[mode]
    if input.dim() != wanted:
        raise NotImplementedError(
            f"Got {input.dim()}D input, but {mode} mode needs {wanted}D input"
        )
    names = ("H", "W")[-len(sizes) :]
    inputs = ", ".join(f"{n}: {s}" for n, s in zip(names, input.shape[2:]))
    outputs = ", ".join(f"{n}: {s}" for n, s in zip(names, sizes))
    if min(*input.shape[2:], *sizes) <= 0:
        joint = " and " if len(sizes) == 1 else " "  # PyTorch's two messages
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input "
            f"({inputs}){joint}output ({outputs})"
        )
    if not input.dtype.is_floating_point:
        raise not_implemented("compute_indices_weights_linear", input.dtype)


def _linear_interpolate(
    input: Tensor,
    mode: str,
    sizes: list[int],
    scales: list[float | None],
    align_corners: bool,
) -> Tensor:
    """``interpolate`` in the modes ``linear`` and ``bilinear``."""
    _check_linear(input, mode, sizes)
    taps = _linear_taps(input, sizes, scales, align_corners)
    shape = tuple(input.shape[:2]) + tuple(sizes)
    function = UpsampleLinear1d if mode == "linear" else UpsampleBilinear2d
    return function.apply(input, taps=taps, shape=shape)


def _output_sizes(
    input: Tensor, size: Any, scale_factor: Any
) -> tuple[list[int], list[float | None]]:
    """The output sizes, and the scales the kernel uses (None: from sizes)."""
    dims = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        sizes = [size] * dims if isinstance(size, int) else [int(s) for s in size]
        if len(sizes) != dims:
            raise ValueError(
                "Input and output must have the same number of spatial dimensions, "
                f"but got input with spatial dimensions of {list(input.shape[2:])} "
                f"and output size of {sizes}. Please provide input tensor in (N, C, "
                "d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
            )
        return sizes, [None] * dims
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    scales = (
        [float(scale_factor)] * dims
        if isinstance(scale_factor, (int, float))
        else [float(s) for s in scale_factor]
    )
    sizes = [math.floor(n * s) for n, s in zip(input.shape[2:], scales)]
    return sizes, list(scales)


@tensor_input
def interpolate(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resizes ``(N, C, L)`` or ``(N, C, H, W)`` input.

    Args:
        size: The output size (a number or one per spatial dimension).
        scale_factor: Or the factor to multiply the sizes by (rounded down).
        mode: ``"nearest"``, ``"linear"`` (3-d input), ``"bilinear"`` (4-d)
            or ``"area"``.
        align_corners: For the linear modes: map the corner elements of
            input and output onto each other (default False).
        recompute_scale_factor: Compute the ratio from the sizes rather than
            from ``scale_factor``.

    Raises:
        NotImplementedError: For another mode, a linear mode on input of
            the wrong number of dimensions, or 3-d input (5-d tensors).
        ValueError: For both or neither of ``size`` and ``scale_factor``,
            or ``align_corners`` with ``nearest`` or ``area``.
        RuntimeError: For a linear mode and an empty input or output.
    """
    if mode in OTHER_MODES:
        raise NotImplementedError(
            f"interpolate: mode '{mode}' is not implemented in this engine (only "
            "'nearest', 'linear', 'bilinear' and 'area' are)."
        )
    if mode in ("nearest", "area"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating "
                "modes: linear | bilinear | bicubic | trilinear"
            )
    if antialias and mode != "bilinear" or antialias and input.dim() != 4:
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos "
            "modes and requires a 4-D tensor as input"
        )
    if antialias:
        raise NotImplementedError(
            "interpolate: antialias is not implemented in this engine."
        )
    if mode in LINEAR_MODES and input.dim() in (3, 4, 5):
        sizes, scales = _output_sizes(input, size, scale_factor)
        if recompute_scale_factor:
            scales = [None] * len(sizes)
        return _linear_interpolate(input, mode, sizes, scales, bool(align_corners))
    if mode not in ("nearest", "area") or input.dim() not in (3, 4, 5):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
            f"{input.dim()}D) for the modes: nearest | linear | bilinear | bicubic | "
            f"trilinear | lanczos | area | nearest-exact (got {mode})"
        )
    if input.dim() == 5:
        raise NotImplementedError(
            "interpolate: 3-d (5-D input) upsampling is not implemented in this "
            "engine (1-d and 2-d are)."
        )
    sizes, scales = _output_sizes(input, size, scale_factor)
    if mode == "area":
        if input.dim() == 3:
            return adaptive_avg_pool1d(input, sizes[0])
        return adaptive_avg_pool2d(input, sizes)
    if recompute_scale_factor:
        scales = [None] * len(sizes)
    plane_in = input.shape[2:]
    shortcuts = len(sizes) == 2
    sources = [
        nearest_sources(n, out, scale, shortcuts)
        for n, out, scale in zip(plane_in, sizes, scales)
    ]
    planes = input.shape[0] * input.shape[1]
    shape = tuple(input.shape[:2]) + tuple(sizes)
    if len(sources) == 1:
        width = plane_in[0]
        read_back = nearest_sources(width, sizes[0], scales[0], shortcuts=True)
        return UpsampleNearest1d.apply(
            input,
            positions=[k * width + p for k in range(planes) for p in sources[0]],
            shape=shape,
            grad_positions=[k * width + p for k in range(planes) for p in read_back],
        )
    width = plane_in[0] * plane_in[1]
    plane = [r * plane_in[1] + c for r in sources[0] for c in sources[1]]
    positions = [k * width + p for k in range(planes) for p in plane]
    return UpsampleNearest2d.apply(input, positions=positions, shape=shape)


@tensor_input
def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zeroes whole channels with probability ``p``; scales the rest by ``1/(1-p)``.

    ``(N, C, H, W)`` input draws one coin per sample and channel. As in
    PyTorch, a 3-d input is read as ``(N, C, L)`` (with a warning).

    Raises:
        ValueError: If ``p`` is not in [0, 1].
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.dim()}-D input to dropout2d, which is "
            "deprecated and will result in an error in a future release. To retain "
            "the behavior and silence this warning, please use dropout instead. Note "
            "that dropout2d exists to provide channel-wise dropout on inputs with 2 "
            "spatial dimensions, a channel dimension, and an optional batch "
            "dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.dim() == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that "
            "channel-wise 1D dropout behavior is desired - input is interpreted as "
            "shape (N, C, L), where C is the channel dim. This behavior will change "
            "in a future release to interpret the input as one without a batch "
            "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
            "dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    if not training or p == 0:
        return input
    coins = input.shape[:2] + (1,) * (input.dim() - 2)
    mask = dropout_mask(zeros(coins, dtype=input.dtype), p)
    if inplace:
        return input.mul_(mask)
    return input * mask
