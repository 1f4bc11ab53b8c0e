"""Views that cut a tensor into pieces along a dimension: ``split``, ``chunk``,
``unbind``, and ``unfold``, whose windows may overlap.

Each piece shares the input's storage: its shape and offset pick out a part
of the dimension, so nothing is copied. A backward puts the pieces'
gradients back together: ``cat`` for ``split``, ``stack`` for ``unbind``,
and for the windows of ``unfold`` a sum where they overlap. The views that
keep the whole tensor (``view``, ``transpose``, ``select``...) live in
:mod:`slowtorch_lib.ops.views` and :mod:`slowtorch_lib.ops.reordering`.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib._strides import contiguous_strides, normalize_dim, position_list
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd import history
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.history import as_view
from slowtorch_lib.ops.common import tensor_input
from slowtorch_lib.ops.gather_scatter import index_add_into_zeros
from slowtorch_lib.ops.joining import cat, stack

__all__ = [
    "chunk",
    "split",
    "unbind",
]


class Split(Function):
    """Cuts ``dim`` into consecutive pieces; each piece is a view.

    The backward concatenates the pieces' gradients (zeros for a piece that
    was not used).
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, sizes: tuple[int, ...], dim: int
    ) -> tuple[Tensor, ...]:
        ctx.dim = dim
        pieces = []
        start = 0
        for size in sizes:
            shape = x._shape[:dim] + (size,) + x._shape[dim + 1 :]
            offset = x._offset + start * x._stride[dim]
            pieces.append(as_view(x, shape, x._stride, offset))
            start += size
        return history.mark_multi_output_views(ctx, tuple(pieces))

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Tensor) -> Tensor:
        return cat(list(grad_outputs), ctx.dim)


class SplitWithSizes(Split):
    """``split`` given a list of sizes."""


class Unbind(Function):
    """All the slices along ``dim``, each without that dimension."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dim: int) -> tuple[Tensor, ...]:
        ctx.dim = dim
        shape = x._shape[:dim] + x._shape[dim + 1 :]
        stride = x._stride[:dim] + x._stride[dim + 1 :]
        pieces = tuple(
            as_view(x, shape, stride, x._offset + i * x._stride[dim])
            for i in range(x._shape[dim])
        )
        return history.mark_multi_output_views(ctx, pieces)

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Tensor) -> Tensor:
        return stack(list(grad_outputs), ctx.dim)


@tensor_input
def split(
    input: Tensor, split_size_or_sections: Any, dim: int = 0
) -> tuple[Tensor, ...]:
    """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or of
    the listed sizes; each piece is a view."""
    if input.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = normalize_dim(dim, input.dim())
    length = input._shape[dim]
    if isinstance(split_size_or_sections, int):
        size = split_size_or_sections
        if size < 0:
            raise RuntimeError(
                f"split expects split_size be non-negative, but got split_size={size}"
            )
        if size == 0 and length:
            raise RuntimeError(
                "split_size can only be 0 if dimension size is 0, but got dimension "
                f"size of {length}"
            )
        starts = range(0, length, size) if size else range(0)
        sizes = tuple(min(size, length - start) for start in starts) or (0,)
        return Split.apply(input, sizes=sizes, dim=dim)
    sizes = tuple(split_size_or_sections)
    if any(size < 0 for size in sizes):
        raise RuntimeError(
            "split_with_sizes expects split_sizes have only non-negative entries, "
            f"but got split_sizes={list(sizes)}"
        )
    if sum(sizes) != length:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {length} (input "
            f"tensor's size at dimension {dim}), but got split_sizes={list(sizes)}"
        )
    return SplitWithSizes.apply(input, sizes=sizes, dim=dim)


@tensor_input
def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``chunks`` pieces of (nearly) equal size along ``dim``."""
    if chunks <= 0:
        raise RuntimeError(
            f"chunk expects `chunks` to be greater than 0, got: {chunks}"
        )
    if input.dim() == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    dim = normalize_dim(dim, input.dim())
    length = input._shape[dim]
    if length == 0:
        return split(input, [0] * chunks, dim)
    return split(input, -(-length // chunks), dim)


@tensor_input
def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices along ``dim``, as a tuple of views.

    Raises:
        IndexError: For a 0-d tensor, or if ``dim`` is out of range.
    """
    if input.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return Unbind.apply(input, dim=normalize_dim(dim, input.dim()))


class Unfold(Function):
    """Every window of ``size`` elements along ``dim``, ``step`` apart.

    ``dim`` becomes the number of windows and a new last dimension of
    ``size`` runs along each window: the stride of ``dim`` is multiplied by
    ``step``, and the new dimension has the old stride. Nothing is copied.
    The backward adds each window's gradient back to the elements it
    covers, so an element in several windows gets the sum.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, dim: int, size: int, step: int
    ) -> Tensor:
        ctx.input_shape = x._shape
        ctx.window = (dim, size, step)
        shape, stride = window_layout(x._shape, x._stride, dim, size, step)
        return as_view(x, shape, stride, x._offset)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        dim, size, step = ctx.window
        row_major = contiguous_strides(ctx.input_shape)
        shape, stride = window_layout(ctx.input_shape, row_major, dim, size, step)
        positions = position_list(shape, stride, 0)
        return index_add_into_zeros(grad_output, positions, ctx.input_shape)


def window_layout(
    shape: tuple[int, ...], stride: tuple[int, ...], dim: int, size: int, step: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The shape and strides of the windows of :class:`Unfold`.

    >>> window_layout((5,), (1,), dim=0, size=2, step=1)
    ((4, 2), (1, 1))
    """
    count = (shape[dim] - size) // step + 1 if shape else 1
    if not shape:
        return (size,), (1,)
    new_shape = shape[:dim] + (count,) + shape[dim + 1 :] + (size,)
    new_stride = stride[:dim] + (stride[dim] * step,) + stride[dim + 1 :]
    return new_shape, new_stride + (stride[dim],)


@tensor_input
def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``Tensor.unfold``: the windows of ``size`` along ``dimension`` (a view).

    Raises:
        RuntimeError: If a window is longer than the dimension or ``step``
            is not positive.
        IndexError: If ``dimension`` is out of range.
    """
    dim = normalize_dim(dimension, max(input.dim(), 1))
    length = input._shape[dim] if input.dim() else 1
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {dim} is {length} but size is {size}"
        )
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return Unfold.apply(input, dim=dim, size=size, step=step)
