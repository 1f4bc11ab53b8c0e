"""Adaptive pooling: the windows chosen to give an output size.

Window ``i`` of ``out`` along a dimension of ``n`` covers ``floor(i * n /
out)`` up to ``ceil((i + 1) * n / out)`` (:func:`.pooling.adaptive_ranges`),
so the windows may overlap or differ in size by one. Each function builds
its windows as lists of flat positions in a channel and hands them to the
max or average pooling of :mod:`.pooling`; a 3-d window is a 2-d one
repeated over the depths it covers, and its flat position counts
``(d * H + h) * W + w``, as PyTorch's indices do.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import FunctionCtx
from slowtorch_lib.nn.functional.fold import Pair
from slowtorch_lib.nn.functional.pooling import (
    AvgPool2D,
    Cells,
    MaxPool2DWithIndices,
    adaptive_ranges,
    check_planes,
    refuse_dtype,
    window_cells,
)
from slowtorch_lib.ops.common import tensor_input

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
]

Triple = tuple[int, int, int]


class AdaptiveMaxPool2D(MaxPool2DWithIndices):
    """Max pooling over the windows :func:`adaptive_ranges` chooses."""


class AdaptiveMaxPool3D(MaxPool2DWithIndices):
    """The same over ``(D, H, W)`` volumes.

    The forward is max pooling's, over each volume laid out as one row of
    ``D * H * W`` elements, so the positions it finds are the volume's flat
    positions; the results take the output's shape.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, cells: Cells, out_size: tuple[int, ...]
    ) -> tuple[Tensor, Tensor]:
        batch = tuple(x.shape[:-3])
        rows = x.reshape(*batch, 1, x.shape[-3] * x.shape[-2] * x.shape[-1])
        values, indices = MaxPool2DWithIndices.forward(
            ctx, rows, cells=cells, out_size=(1, len(cells))
        )
        ctx.input_shape = x._shape
        shape = batch + out_size
        indices = from_values(indices._values(), shape, dtypes.int64)
        ctx.mark_non_differentiable(indices)
        return from_values(values._values(), shape, x.dtype), indices


class AdaptiveAvgPool2D(AvgPool2D):
    """Average pooling over the windows :func:`adaptive_ranges` chooses."""


class AdaptiveAvgPool3D(AvgPool2D):
    """The same over ``(D, H, W)`` planes (``out_size`` has three sizes)."""


# ----------------------------------------------------------------------
# The windows
# ----------------------------------------------------------------------


def _adaptive_size(input: Tensor, output_size: Any) -> Pair:
    """The output size, ``None`` standing for the input's size."""
    if isinstance(output_size, int) or output_size is None:
        output_size = (output_size, output_size)
    sizes = tuple(output_size)
    if len(sizes) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    h, w = input.shape[-2:]
    return (
        h if sizes[0] is None else int(sizes[0]),
        w if sizes[1] is None else int(sizes[1]),
    )


def _adaptive_cells(input: Tensor, size: Pair) -> Cells:
    h, w = input.shape[-2:]
    return window_cells(adaptive_ranges(h, size[0]), adaptive_ranges(w, size[1]), w)


def _check_volumes(name: str, input: Tensor, colon: str) -> None:
    """A 4-d or 5-d input, as PyTorch's 3-d adaptive pooling checks it."""
    if input.dim() not in (4, 5):
        raise RuntimeError(
            f"{name}(): Expected 4D or 5D tensor, but got{colon} {list(input.shape)}"
        )


def _check_not_empty(name: str, input: Tensor) -> None:
    """No empty dimension but the first."""
    for dim in range(1, input.dim()):
        if input.shape[dim] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(input.shape)} with "
                f"dimension {dim} being empty"
            )


def _volume_size(input: Tensor, sizes: list[Any]) -> Triple:
    """Three output sizes, ``None`` standing for the input's size."""
    spatial = input.shape[-3:]
    depth, height, width = (n if s is None else int(s) for n, s in zip(spatial, sizes))
    return depth, height, width


def _three(output_size: Any) -> list[Any]:
    return [output_size] * 3 if isinstance(output_size, int) else list(output_size)


def _volume_cells(input: Tensor, size: Triple) -> Cells:
    """The flat positions in one ``(D, H, W)`` volume of each window."""
    depth, height, width = input.shape[-3:]
    plane = window_cells(
        adaptive_ranges(height, size[1]), adaptive_ranges(width, size[2]), width
    )
    layer = height * width
    return [
        [d * layer + p for d in depths for p in cell]
        for depths in adaptive_ranges(depth, size[0])
        for cell in plane
    ]


# ----------------------------------------------------------------------
# The functions
# ----------------------------------------------------------------------


@tensor_input
def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling with the windows chosen to give ``output_size``."""
    check_planes("adaptive_avg_pool2d", input)
    refuse_dtype("adaptive_avg_pool2d", input, ())
    size = _adaptive_size(input, output_size)
    if size == (1, 1):  # PyTorch takes the mean (MeanBackward1)
        return input.mean((-1, -2), keepdim=True)
    cells = _adaptive_cells(input, size)
    divisors = [len(cell) for cell in cells]
    return AdaptiveAvgPool2D.apply(input, cells=cells, divisors=divisors, out_size=size)


@tensor_input
def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """:func:`adaptive_avg_pool2d` over the last three dimensions."""
    sizes = _three(output_size)
    if len(sizes) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if sizes == [1, 1, 1] and input.dim() >= 3:  # PyTorch takes the mean
        return input.mean((-1, -2, -3), keepdim=True)
    _check_volumes("adaptive_avg_pool3d", input, "")
    size = _volume_size(input, sizes)
    if min(size) < 0:
        depth, height, width = size  # PyTorch's spacing
        raise RuntimeError(
            "adaptive_avg_pool3d: elements of output_size must be greater than or "
            f"equal to 0 but received {{{depth}, {height},{width}}}"
        )
    _check_not_empty("adaptive_avg_pool3d", input)
    refuse_dtype("adaptive_avg_pool3d_cpu", input, ())
    cells = _volume_cells(input, size)
    divisors = [len(cell) for cell in cells]
    return AdaptiveAvgPool3D.apply(input, cells=cells, divisors=divisors, out_size=size)


@tensor_input
def adaptive_max_pool2d(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> Any:
    """Max pooling with the windows chosen to give ``output_size``."""
    check_planes("adaptive_max_pool2d", input)
    refuse_dtype("adaptive_max_pool2d", input, ())
    size = _adaptive_size(input, output_size)
    cells = _adaptive_cells(input, size)
    values, indices = AdaptiveMaxPool2D.apply(input, cells=cells, out_size=size)
    return (values, indices) if return_indices else values


@tensor_input
def adaptive_max_pool3d(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> Any:
    """Max pooling over the last three dimensions, ``(C, D, H, W)`` or
    ``(N, C, D, H, W)``, with the windows chosen to give ``output_size``
    (an int, or three sizes, ``None`` keeping the input's).

    With ``return_indices``, also each maximum's flat position in its
    ``D x H x W`` volume (int64). The gradient goes to the first maximum
    of each window (``AdaptiveMaxPool3DBackward0``).

    Raises:
        RuntimeError: For an input neither 4-d nor 5-d, an empty non-batch
            dimension, other than three sizes, or a negative size.
        NotImplementedError: For an input that is not floating point.
    """
    _check_volumes("adaptive_max_pool3d", input, ":")
    _check_not_empty("adaptive_max_pool3d", input)
    sizes = _three(output_size)
    if len(sizes) != 3:
        raise RuntimeError(
            "adaptive_max_pool3d(): internal error: output_size.size() must be 3"
        )
    size = _volume_size(input, sizes)
    if min(size) < 0:
        shape = [*input.shape[:-3], *size]
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(size)}: {shape}"
        )
    refuse_dtype("adaptive_max_pool3d_cpu", input, ())
    cells = _volume_cells(input, size)
    values, indices = AdaptiveMaxPool3D.apply(input, cells=cells, out_size=size)
    return (values, indices) if return_indices else values


@tensor_input
def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """:func:`adaptive_avg_pool2d` of ``(N, C, L)``, as rows of height 1."""
    size = output_size if isinstance(output_size, int) else tuple(output_size)[0]
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


@tensor_input
def adaptive_max_pool1d(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> Any:
    """:func:`adaptive_max_pool2d` of ``(N, C, L)``, as rows of height 1."""
    size = output_size if isinstance(output_size, int) else tuple(output_size)[0]
    values, indices = adaptive_max_pool2d(
        input.unsqueeze(-2), (1, size), return_indices=True
    )
    values, indices = values.squeeze(-2), indices.squeeze(-2)
    return (values, indices) if return_indices else values


def adaptive_max_pool1d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    """:func:`adaptive_max_pool1d` with its indices, whatever
    ``return_indices`` says (as in PyTorch)."""
    result: tuple[Tensor, Tensor] = adaptive_max_pool1d(input, output_size, True)
    return result


def adaptive_max_pool2d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    """:func:`adaptive_max_pool2d` with its indices, whatever
    ``return_indices`` says (as in PyTorch)."""
    result: tuple[Tensor, Tensor] = adaptive_max_pool2d(input, output_size, True)
    return result


def adaptive_max_pool3d_with_indices(
    input: Tensor, output_size: Any, return_indices: bool = False
) -> tuple[Tensor, Tensor]:
    """:func:`adaptive_max_pool3d` with its indices, whatever
    ``return_indices`` says (as in PyTorch)."""
    result: tuple[Tensor, Tensor] = adaptive_max_pool3d(input, output_size, True)
    return result
