"""``interpolate`` (nearest neighbour) and ``dropout2d``: whole windows and channels.

Nearest-neighbour upsampling reads, for each output element, the input
element whose index is ``floor(i * in / out)`` along each dimension: a
gather by positions, whose backward adds each gradient back where it was
read (an element read by four outputs, for a factor of 2, gets the sum).

``dropout2d`` drops whole channels: one coin per ``(sample, channel)``,
shared by every element of the channel's map.
"""

from __future__ import annotations

import math
import warnings
from array import array
from typing import Any

from slowtorch_lib._creation import zeros
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.nn.functional.layers import dropout_mask
from slowtorch_lib.ops.common import tensor_input
from slowtorch_lib.ops.gather_scatter import Index

__all__ = ["dropout2d", "interpolate"]

OTHER_MODES = ("linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")


class UpsampleNearest1d(Index):
    """Each output element is the input element nearest to it (``floor``)."""

    grad_fn_name = "UpsampleNearest1DBackward0"


class UpsampleNearest2d(Index):
    grad_fn_name = "UpsampleNearest2DBackward0"


def _float32(value: float) -> float:
    """``value`` rounded to float32, as PyTorch's index arithmetic is."""
    return array("f", [value])[0]


def nearest_sources(size: int, out: int, scale: float | None) -> list[int]:
    """The input index each of ``out`` output indices reads (PyTorch's rule).

    The ratio is ``1 / scale`` if a scale factor was given, else
    ``size / out``; both are float32, as in PyTorch's kernel.

    >>> nearest_sources(3, 6, None), nearest_sources(4, 3, None)
    ([0, 0, 1, 1, 2, 2], [0, 1, 2])
    """
    if out == size:
        return list(range(out))
    if out == 2 * size:
        return [i >> 1 for i in range(out)]
    if scale is not None and scale > 0:
        ratio = _float32(1.0 / scale)
    else:
        ratio = _float32(_float32(size) / out)
    return [min(math.floor(_float32(i * ratio)), size - 1) for i in range(out)]


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
    """Resizes ``(N, C, L)`` or ``(N, C, H, W)`` input by nearest neighbours.

    Args:
        size: The output size (a number or one per spatial dimension).
        scale_factor: Or the factor to multiply the sizes by (rounded down).
        mode: Only ``"nearest"`` is implemented here.
        recompute_scale_factor: Compute the ratio from the sizes rather than
            from ``scale_factor``.

    Raises:
        NotImplementedError: For another mode, or 3-d input (5-d tensors).
        ValueError: For both or neither of ``size`` and ``scale_factor``.
    """
    if mode in OTHER_MODES:
        raise NotImplementedError(
            f"interpolate: mode '{mode}' is not implemented in this engine (only "
            "'nearest' is)."
        )
    if mode != "nearest" or input.dim() not in (3, 4, 5):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
            f"{input.dim()}D) for the modes: nearest | linear | bilinear | bicubic | "
            f"trilinear | lanczos | area | nearest-exact (got {mode})"
        )
    if align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    if input.dim() == 5:
        raise NotImplementedError(
            "interpolate: 3-d (5-D input) upsampling is not implemented in this "
            "engine (1-d and 2-d are)."
        )
    sizes, scales = _output_sizes(input, size, scale_factor)
    if recompute_scale_factor:
        scales = [None] * len(sizes)
    plane_in = input.shape[2:]
    sources = [
        nearest_sources(n, out, scale) for n, out, scale in zip(plane_in, sizes, scales)
    ]
    if len(sources) == 1:
        plane = sources[0]
        width = plane_in[0]
        function: type[Index] = UpsampleNearest1d
    else:
        width = plane_in[0] * plane_in[1]
        plane = [r * plane_in[1] + c for r in sources[0] for c in sources[1]]
        function = UpsampleNearest2d
    planes = input.shape[0] * input.shape[1]
    positions = [k * width + p for k in range(planes) for p in plane]
    shape = tuple(input.shape[:2]) + tuple(sizes)
    return function.apply(input, positions=positions, shape=shape)


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
