"""Views that reorder dimensions: ``transpose``, ``t``, ``permute``.

Reordering dimensions moves no number: it swaps entries of the shape and
of the strides, so that the same storage is read in another order. The
backward reorders the gradient back, with the inverse permutation. The
in-place forms (``transpose_``, ``t_``) change the tensor's own shape and
strides, as :mod:`slowtorch_lib.autograd.history` records.
"""

from __future__ import annotations

from collections.abc import Sequence

from slowtorch_lib._strides import normalize_dim
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd import history
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.history import as_view
from slowtorch_lib.ops.common import tensor_input

__all__ = [
    "permute",
    "swapaxes",
    "swapdims",
    "t",
    "transpose",
]


class Transpose(Function):
    """Swaps two dimensions by swapping their sizes and strides."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dim0: int, dim1: int) -> Tensor:
        ndim = x.dim()
        dim0, dim1 = normalize_dim(dim0, ndim), normalize_dim(dim1, ndim)
        ctx.dims = (dim0, dim1)
        shape, stride = list(x._shape), list(x._stride)
        if ndim:
            shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
            stride[dim0], stride[dim1] = stride[dim1], stride[dim0]
        return as_view(x, tuple(shape), tuple(stride), x._offset)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output.transpose(*ctx.dims)


class T(Function):
    """The transpose of a matrix (``x.t()``); 0-d and 1-d tensors are unchanged."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        _check_matrix(x, "t()")
        return as_view(x, x._shape[::-1], x._stride[::-1], x._offset)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output.t()


class Permute(Function):
    """Reorders the dimensions: output dimension ``i`` is input dimension
    ``dims[i]``."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dims: tuple[int, ...]) -> Tensor:
        ndim = x.dim()
        if len(dims) != ndim:
            raise RuntimeError(
                "permute(sparse_coo): number of dimensions in the tensor input "
                "does not match the length of the desired ordering of dimensions "
                f"i.e. input.dim() = {ndim} is not equal to len(dims) = {len(dims)}"
            )
        dims = tuple(normalize_dim(d, ndim) for d in dims)
        if len(set(dims)) != len(dims):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        ctx.dims = dims
        shape = tuple(x._shape[d] for d in dims)
        stride = tuple(x._stride[d] for d in dims)
        return as_view(x, shape, stride, x._offset)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        inverse = [0] * len(ctx.dims)
        for position, d in enumerate(ctx.dims):
            inverse[d] = position
        return permute(grad_output, inverse)


@tensor_input
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """``input`` with dimensions ``dim0`` and ``dim1`` swapped (a view)."""
    return Transpose.apply(input, dim0=dim0, dim1=dim1)


@tensor_input
def t(input: Tensor) -> Tensor:
    """The transpose of a matrix (a view)."""
    return T.apply(input)


@tensor_input
def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """NumPy's name for :func:`transpose`."""
    return Transpose.apply(input, dim0=axis0, dim1=axis1)


@tensor_input
def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Another name for :func:`transpose`."""
    return Transpose.apply(input, dim0=dim0, dim1=dim1)


class TransposeInPlace(Transpose):
    """``transpose_``: the swap, recorded for a tensor that changes itself."""

    grad_fn_name = "TransposeBackward1"


class TInPlace(T):
    """``t_``: the transpose of a matrix, in place."""

    grad_fn_name = "TBackward1"


def transpose_(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swaps two dimensions of ``input`` itself: its shape and strides change."""
    return history.change_view_in_place(input, TransposeInPlace, dim0=dim0, dim1=dim1)


def t_(input: Tensor) -> Tensor:
    """Transposes the matrix ``input`` itself: its shape and strides change."""
    _check_matrix(input, "t_()")  # before the in-place checks, as PyTorch
    return history.change_view_in_place(input, TInPlace)


def _check_matrix(x: Tensor, name: str) -> None:
    """PyTorch's refusal of ``name`` (``t()``, ``t_()``) beyond two dimensions."""
    if x.dim() > 2:
        raise RuntimeError(
            f"{name} expects a tensor with <= 2 dimensions, but self is {x.dim()}D"
        )


@tensor_input
def permute(input: Tensor, dims: Sequence[int]) -> Tensor:
    """``input`` with its dimensions reordered (a view)."""
    return Permute.apply(input, dims=tuple(dims))
