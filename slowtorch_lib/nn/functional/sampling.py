"""``interpolate`` in every mode, and ``dropout2d``.

``interpolate`` checks its arguments as PyTorch does, works out the output
sizes (``size``, or each input size times ``scale_factor``, rounded down)
and the ratio the kernels use, then hands over to the kernel of its mode:
a gather for ``nearest`` and ``nearest-exact``, a fixed linear map for
``linear``, ``bilinear``, ``trilinear`` and ``bicubic`` (both in
:mod:`~slowtorch_lib.nn.functional.interpolation`, which says where each
output reads), ``adaptive_avg_pool`` for ``area`` (each output is the mean
of its window).

``dropout2d`` drops whole channels: one coin per ``(sample, channel)``,
shared by every element of the channel's map.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from slowtorch_lib._creation import zeros
from slowtorch_lib._strides import numel
from slowtorch_lib._tensor import Tensor
from slowtorch_lib._tensor_kernels import not_implemented
from slowtorch_lib.nn.functional.adaptive_pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
)
from slowtorch_lib.nn.functional.interpolation import (
    UpsampleBicubic2d,
    UpsampleBilinear2d,
    UpsampleLinear1d,
    UpsampleNearest1d,
    UpsampleNearest2d,
    UpsampleNearest3d,
    UpsampleNearestExact1d,
    UpsampleNearestExact2d,
    UpsampleNearestExact3d,
    UpsampleTrilinear3d,
    cubic_sources,
    linear_sources,
    nearest_exact_sources,
    nearest_sources,
    plane_positions,
    separable_taps,
)
from slowtorch_lib.nn.functional.layers import dropout_mask
from slowtorch_lib.ops.common import tensor_input

__all__ = ["dropout2d", "interpolate"]

#: The interpolating modes, which take ``align_corners``, and the number of
#: dimensions of their input.
INTERPOLATING_MODES = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}
NEAREST = {
    "nearest": (UpsampleNearest1d, UpsampleNearest2d, UpsampleNearest3d),
    "nearest-exact": (
        UpsampleNearestExact1d,
        UpsampleNearestExact2d,
        UpsampleNearestExact3d,
    ),
}
RESAMPLES = {
    "linear": UpsampleLinear1d,
    "bilinear": UpsampleBilinear2d,
    "trilinear": UpsampleTrilinear3d,
    "bicubic": UpsampleBicubic2d,
}


def _check_sizes(input: Tensor, sizes: list[int]) -> None:
    """PyTorch's refusal of an empty input or output plane."""
    names = ("D", "H", "W")[-len(sizes) :]
    inputs = ", ".join(f"{n}: {s}" for n, s in zip(names, input.shape[2:]))
    outputs = ", ".join(f"{n}: {s}" for n, s in zip(names, sizes))
    if min(*input.shape[2:], *sizes) <= 0:
        joint = " and " if len(sizes) == 1 else " "  # PyTorch's two messages
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input "
            f"({inputs}){joint}output ({outputs})"
        )


def _resample(
    input: Tensor,
    mode: str,
    sizes: list[int],
    scales: list[float | None],
    align_corners: bool,
) -> Tensor:
    """``interpolate`` in the modes linear, bilinear, trilinear and bicubic."""
    _check_sizes(input, sizes)
    cubic = mode == "bicubic"
    if not input.dtype.is_floating_point:
        kernel = "cubic" if cubic else "linear"
        raise not_implemented(f"compute_indices_weights_{kernel}", input.dtype)
    single = input.dtype.itemsize <= 4
    rule = cubic_sources if cubic else linear_sources
    per_dim = [
        rule(n, out, align_corners, scale, single)
        for n, out, scale in zip(input.shape[2:], sizes, scales)
    ]
    plane_in = tuple(input.shape[2:])
    taps = separable_taps(per_dim, plane_in)
    grad_taps = None
    if cubic and list(plane_in) == sizes:  # PyTorch's backward then copies
        grad_taps = [(list(range(numel(plane_in))), [1.0] * numel(plane_in))]
    shape = tuple(input.shape[:2]) + tuple(sizes)
    return RESAMPLES[mode].apply(input, taps=taps, shape=shape, grad_taps=grad_taps)


def _nearest(
    input: Tensor, mode: str, sizes: list[int], scales: list[float | None]
) -> Tensor:
    """``interpolate`` in the modes nearest and nearest-exact: a gather."""
    _check_sizes(input, sizes)
    if not input.dtype.is_floating_point:
        kernel = "compute_indices_weights_nearest"
        if len(sizes) == 2:
            kernel = "upsample_nearest2d_channels_last"
        raise not_implemented(kernel, input.dtype)
    plane_in = tuple(input.shape[2:])
    dims = list(zip(plane_in, sizes, scales))
    if mode == "nearest-exact":
        sources = [nearest_exact_sources(*dim) for dim in dims]
        read_back = sources
    else:
        shortcuts = len(sizes) == 2  # only PyTorch's 2-d forward takes them
        sources = [nearest_sources(*dim, shortcuts) for dim in dims]
        read_back = [nearest_sources(*dim) for dim in dims]
    plane, back = (plane_positions(s, plane_in) for s in (sources, read_back))
    size = numel(plane_in)
    planes = range(input.shape[0] * input.shape[1])
    return NEAREST[mode][len(sizes) - 1].apply(
        input,
        positions=[k * size + p for k in planes for p in plane],
        shape=tuple(input.shape[:2]) + tuple(sizes),
        grad_positions=[k * size + p for k in planes for p in back],
    )


def _per_dimension(value: Any, dims: int) -> list[Any]:
    """``value`` once per spatial dimension (a number repeated, or a sequence)."""
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value] * dims


def _is_integer(value: Any) -> bool:
    """Whether a size is a whole number (an int, or an integer tensor)."""
    if isinstance(value, Tensor):
        return not value.dtype.is_floating_point
    return isinstance(value, int)


def _output_sizes(
    input: Tensor, size: Any, scale_factor: Any, recompute_scale_factor: Any
) -> tuple[list[int], list[float | None]]:
    """The output sizes, and the scales the kernel uses (None: from sizes)."""
    dims = input.dim() - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)) and len(size) != dims:
            raise ValueError(
                "Input and output must have the same number of spatial dimensions, "
                f"but got input with spatial dimensions of {spatial} and output "
                f"size of {size}. Please provide input tensor in (N, C, d1, d2, "
                "...,dK) format and output size in (o1, o2, ...,oK) format."
            )
        if isinstance(size, (list, tuple)) and not all(map(_is_integer, size)):
            raise TypeError(
                "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                "Tuple[int, int, int], but got size with types "
                f"{[type(s) for s in size]}"
            )
        if recompute_scale_factor:
            raise ValueError(
                "recompute_scale_factor is not meaningful with an explicit size."
            )
        return [int(s) for s in _per_dimension(size, dims)], [None] * dims
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)) and len(scale_factor) != dims:
        raise ValueError(
            "Input and scale_factor must have the same number of spatial "
            f"dimensions, but got input with spatial dimensions of {spatial} and "
            f"scale_factor of shape {scale_factor}. Please provide input tensor in "
            "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) "
            "format."
        )
    scales = [float(s) for s in _per_dimension(scale_factor, dims)]
    sizes = [math.floor(n * s) for n, s in zip(spatial, scales)]
    if recompute_scale_factor:
        return sizes, [None] * dims
    return sizes, list(scales)


def _check_mode(input: Tensor, mode: str, antialias: bool) -> None:
    """PyTorch's refusals of a mode for this input (before any computing)."""
    if antialias and not (
        mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4
    ):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos "
            "modes and requires a 4-D tensor as input"
        )
    wanted = INTERPOLATING_MODES.get(mode)
    known = mode in ("nearest", "nearest-exact", "area", "lanczos") or wanted
    only_4d = mode in ("bicubic", "lanczos") and input.dim() != 4
    if input.dim() not in (3, 4, 5) or not known or only_4d:
        raise NotImplementedError(
            "Input Error: Only 3D, 4D and 5D input Tensors supported (got "
            f"{input.dim()}D) for the modes: nearest | linear | bilinear | "
            f"bicubic | trilinear | lanczos | area | nearest-exact (got {mode})"
        )
    if wanted is not None and wanted != input.dim():
        raise NotImplementedError(
            f"Got {input.dim()}D input, but {mode} mode needs {wanted}D input"
        )


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
    """Resizes ``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)`` input.

    Args:
        size: The output size (a number or one per spatial dimension).
        scale_factor: Or the factor to multiply the sizes by (rounded down).
        mode: ``"nearest"``, ``"nearest-exact"``, ``"area"``,
            ``"linear"`` (3-d input), ``"bilinear"`` or
            ``"bicubic"`` (4-d), ``"trilinear"`` (5-d).
        align_corners: For the interpolating modes: map the corner elements
            of input and output onto each other (default False).
        recompute_scale_factor: Compute the ratio from the sizes rather than
            from ``scale_factor``.
        antialias: Not implemented here (PyTorch's for bilinear, bicubic).

    Raises:
        NotImplementedError: For a mode on input of the wrong number of
            dimensions, ``antialias=True`` (and so ``lanczos``).
        ValueError: For both or neither of ``size`` and ``scale_factor``,
            or ``align_corners`` with ``nearest``, ``nearest-exact`` or
            ``area``.
        RuntimeError: For an empty input or output.
    """
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating "
            "modes: linear | bilinear | bicubic | trilinear"
        )
    if mode == "area" and scale_factor is not None and size is None:
        recompute_scale_factor = True
    sizes, scales = _output_sizes(input, size, scale_factor, recompute_scale_factor)
    _check_mode(input, mode, antialias)
    if mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if antialias:
        raise NotImplementedError(
            f"interpolate: antialias=True ({mode}) is not implemented in this "
            "engine; antialias=False is."
        )
    if mode in NEAREST:
        return _nearest(input, mode, sizes, scales)
    if mode == "area":
        if input.dim() == 3:
            return adaptive_avg_pool1d(input, sizes[0])
        if input.dim() == 4:
            return adaptive_avg_pool2d(input, sizes)
        return adaptive_avg_pool3d(input, sizes)
    return _resample(input, mode, sizes, scales, bool(align_corners))


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
