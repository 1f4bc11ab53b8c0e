"""Scans: running results along a dimension, such as the running sum.

``cumsum(x, dim)[..., i, ...]`` is the sum of the elements ``0..i`` along
``dim``. Each input element ``j`` takes part in every output ``i >= j``, so
its gradient is the sum of ``grad_output[i]`` for ``i >= j``: a running sum
taken from the other end (flip, cumsum, flip back).
"""

from __future__ import annotations

import operator
from itertools import accumulate

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import cast_values
from slowtorch_lib._ranges import arange
from slowtorch_lib._strides import normalize_dim
from slowtorch_lib._tensor import Tensor
from slowtorch_lib._tensor_kernels import check_loop, not_implemented
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import accepts_out, tensor_input
from slowtorch_lib.ops.gather_scatter import wrap_int64
from slowtorch_lib.ops.rearrange import flip
from slowtorch_lib.ops.selecting import where
from slowtorch_lib.ops.sorting import from_rows, rows_along

__all__ = ["cumprod", "cumsum"]


class Cumsum(Function):
    """The running sum along ``dim``.

    The gradient of element ``j`` is the sum of ``grad_output[i]`` over
    ``i >= j``: ``grad_output`` flipped, summed running, flipped back.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dim: int, dtype: dtype) -> Tensor:
        ctx.dim = dim
        rows = rows_along(x, dim)
        if dtype is not x.dtype:
            rows = [cast_values(row, x.dtype, dtype) for row in rows]
        # Floats are summed in double precision, then stored in ``dtype``.
        running = [list(accumulate(row)) for row in rows]
        if dtype is dtypes.int64:
            running = [wrap_int64(row) for row in running]
        return from_rows(running, x._shape, dim, dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        dim = ctx.dim
        return flip(cumsum(flip(grad_output, (dim,)), dim), (dim,))


def _running(
    input: Tensor, dim: int, dtype: dtype | None, kernel: str
) -> tuple[int, dtype]:
    """What a running sum or product checks and chooses: the loop ``kernel``
    exists for the input's dtype, ``dim`` is in range, and the result's dtype
    (int64 for bools and integers, unless ``dtype`` says otherwise)."""
    elements = input.numel() if input.dim() else 0  # a 0-d input needs no loop
    check_loop(kernel, input.dtype, ("unsigned",), elements)
    dim = normalize_dim(dim, input.dim())
    if dtype is None:
        dtype = input.dtype if input.dtype.differentiable else dtypes.int64
    if dtype is dtypes.bool_:  # no running loop makes bools
        raise not_implemented(kernel, dtype)
    return dim, dtype


@accepts_out(sets_dtype=True)
@tensor_input
def cumsum(input: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
    """The running sum along ``dim``: ``[a, a + b, a + b + c, ...]``.

    Bools and integers are summed as int64, unless ``dtype`` says otherwise.

    Raises:
        IndexError: If ``dim`` is out of range.
    """
    dtype = dtypes.dtype_arg(dtype, "cumsum")
    dim, dtype = _running(input, dim, dtype, "cumsum_out_cpu")
    return Cumsum.apply(input, dim=dim, dtype=dtype)


class Cumprod(Function):
    """The running product along ``dim``.

    Element ``j`` takes part in every output ``i >= j``, and the derivative
    of output ``i`` with respect to it is the product of the other elements
    up to ``i``. Written without dividing by ``x[j]`` (which may be 0): for
    each ``j`` a copy of ``x`` with a 1 at ``j`` is cumulatively multiplied,
    and its outputs ``i >= j`` are summed against ``grad_output``. This
    costs ``n * n`` per line, fine for the lengths a course meets.
    """

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dim: int, dtype: dtype) -> Tensor:
        ctx.dim = dim
        rows = rows_along(x, dim)
        if dtype is not x.dtype:
            rows = [cast_values(row, x.dtype, dtype) for row in rows]
        running = [list(accumulate(row, operator.mul)) for row in rows]
        if dtype is dtypes.int64:
            running = [wrap_int64(row) for row in running]
        result = from_rows(running, x._shape, dim, dtype)
        # PyTorch saves the output too (its formula uses it), so changing
        # the output in place makes backward refuse, as there.
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        x, _ = ctx.saved_tensors
        if x.dim() == 0:
            return grad_output
        last = x.transpose(ctx.dim, -1)
        n = last.shape[-1]
        positions = arange(n)
        one_at = positions.unsqueeze(1) == positions  # [j][k]: k is j
        upper = positions.unsqueeze(1) <= positions  # [j][i]: i >= j
        copies = last.unsqueeze(-2).expand(*last.shape[:-1], n, n)
        products = cumprod(where(one_at, 1.0, copies), -1)
        grad = grad_output.transpose(ctx.dim, -1).unsqueeze(-2)
        summed = where(upper, products * grad, 0.0).sum(-1)
        return summed.transpose(ctx.dim, -1)


@accepts_out(sets_dtype=True)
@tensor_input
def cumprod(input: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
    """The running product along ``dim``: ``[a, a * b, a * b * c, ...]``.

    Bools and integers are multiplied as int64, unless ``dtype`` says
    otherwise.

    Raises:
        IndexError: If ``dim`` is out of range.
    """
    dtype = dtypes.dtype_arg(dtype, "cumprod")
    dim, dtype = _running(input, dim, dtype, "cumprod_out_cpu")
    return Cumprod.apply(input, dim=dim, dtype=dtype)
