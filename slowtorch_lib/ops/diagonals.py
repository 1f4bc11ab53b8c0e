"""Diagonals: ``diagonal`` (a view), ``diag_embed`` and ``diag``.

The elements ``x[i, i + offset]`` of a matrix sit one row and one column
apart, so in the storage they are ``stride[0] + stride[1]`` apart: the
diagonal is a view with one stride, starting at the first element of the
offset diagonal. ``diag_embed`` goes the other way: it writes the last
dimension of its input onto the diagonal of a tensor of zeros, and the
gradient of each is the other applied to the gradient.
"""

from __future__ import annotations

from slowtorch_lib._creation import zeros
from slowtorch_lib._strides import normalize_dim
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.history import as_view
from slowtorch_lib.ops.common import tensor_input
from slowtorch_lib.ops.views import ViewScatter

__all__ = ["diag", "diag_embed", "diagonal"]

Layout = tuple[tuple[int, ...], tuple[int, ...], int]


def diagonal_layout(
    shape: tuple[int, ...], stride: tuple[int, ...], offset: int, dims: tuple[int, int]
) -> Layout:
    """The shape, strides and first position of a diagonal over ``dims``.

    The two dimensions go, and one of the diagonal's length comes last.

    >>> diagonal_layout((2, 3), (3, 1), 1, (0, 1))
    ((2,), (4,), 1)
    >>> diagonal_layout((2, 3), (3, 1), -1, (0, 1))
    ((1,), (4,), 3)
    """
    first, second = dims
    if offset >= 0:
        length = min(shape[first], shape[second] - offset)
        start = offset * stride[second]
    else:
        length = min(shape[first] + offset, shape[second])
        start = -offset * stride[first]
    length = max(length, 0)
    if length == 0:
        start = 0
    kept = [d for d in range(len(shape)) if d not in dims]
    new_shape = tuple(shape[d] for d in kept) + (length,)
    new_stride = tuple(stride[d] for d in kept) + (stride[first] + stride[second],)
    return new_shape, new_stride, start


def _dims(dim1: int, dim2: int, ndim: int) -> tuple[int, int]:
    """Both dimensions normalised; they must differ."""
    dims = normalize_dim(dim1, ndim), normalize_dim(dim2, ndim)
    if dims[0] == dims[1]:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return dims


class Diagonal(Function):
    """The diagonal of ``x`` over two of its dimensions, as a view."""

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, offset: int, dims: tuple[int, int]
    ) -> Tensor:
        ctx.input_shape, ctx.offset, ctx.dims = x._shape, offset, dims
        shape, stride, start = diagonal_layout(x._shape, x._stride, offset, dims)
        return as_view(x, shape, stride, x._offset + start)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        offset, dims = ctx.offset, ctx.dims
        return ViewScatter.apply(
            grad_output,
            input_shape=ctx.input_shape,
            make_view=lambda t: Diagonal.apply(t, offset=offset, dims=dims),
        )


class DiagonalCopy(Diagonal):
    """``diag`` of a matrix: the diagonal as a tensor of its own."""

    grad_fn_name = "DiagonalBackward0_copy"

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, offset: int, dims: tuple[int, int]
    ) -> Tensor:
        view = Diagonal.forward(ctx, x, offset=offset, dims=dims)
        return from_values(view._values(), view._shape, x.dtype)


class DiagEmbed(Function):
    """Zeros, with ``x``'s last dimension written onto a diagonal."""

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, offset: int, dims: tuple[int, int]
    ) -> Tensor:
        ctx.offset, ctx.dims = offset, dims
        side = (x._shape[-1] if x.dim() else 1) + abs(offset)
        shape = list(x._shape[:-1])
        for d in sorted(dims):
            shape.insert(d, side)
        result = zeros(shape, dtype=x.dtype)
        layout = diagonal_layout(result._shape, result._stride, offset, dims)
        as_view(result, *layout)._write_values(x._values())
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return Diagonal.apply(grad_output, offset=ctx.offset, dims=ctx.dims)


@tensor_input
def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal ``input[..., i, i + offset]`` over ``dim1`` and ``dim2``
    (a view; its length is the last dimension).

    Raises:
        IndexError: If a dimension is out of range.
        RuntimeError: If ``dim1`` and ``dim2`` are the same dimension.
    """
    dims = _dims(dim1, dim2, input.dim())
    return Diagonal.apply(input, offset=offset, dims=dims)


@tensor_input
def diag_embed(
    input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1
) -> Tensor:
    """A tensor whose diagonals over ``dim1`` and ``dim2`` hold ``input``'s
    last dimension, and zeros elsewhere.

    Raises:
        IndexError: If a dimension is out of range of the result.
        RuntimeError: If ``dim1`` and ``dim2`` are the same dimension.
    """
    dims = _dims(dim1, dim2, input.dim() + 1)
    return DiagEmbed.apply(input, offset=offset, dims=dims)


@tensor_input
def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A vector's square matrix with it on a diagonal, or a matrix's
    diagonal as a vector (a copy).

    Raises:
        RuntimeError: If ``input`` has neither 1 nor 2 dimensions.
    """
    if input.dim() == 1:
        return DiagEmbed.apply(input, offset=diagonal, dims=(0, 1))
    if input.dim() == 2:
        return DiagonalCopy.apply(input, offset=diagonal, dims=(0, 1))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")
