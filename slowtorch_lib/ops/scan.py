"""Scans: running results along a dimension, such as the running sum.

``cumsum(x, dim)[..., i, ...]`` is the sum of the elements ``0..i`` along
``dim``. Each input element ``j`` takes part in every output ``i >= j``, so
its gradient is the sum of ``grad_output[i]`` for ``i >= j``: a running sum
taken from the other end (flip, cumsum, flip back).
"""

from __future__ import annotations

from itertools import accumulate

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import cast_values
from slowtorch_lib._strides import normalize_dim
from slowtorch_lib._tensor import Tensor
from slowtorch_lib._tensor_kernels import check_loop
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import accepts_out, tensor_input
from slowtorch_lib.ops.gather_scatter import wrap_int64
from slowtorch_lib.ops.rearrange import flip
from slowtorch_lib.ops.sorting import from_rows, rows_along

__all__ = ["cumsum"]


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


@accepts_out
@tensor_input
def cumsum(input: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
    """The running sum along ``dim``: ``[a, a + b, a + b + c, ...]``.

    Bools and integers are summed as int64, unless ``dtype`` says otherwise.

    Raises:
        IndexError: If ``dim`` is out of range.
    """
    check_loop("cumsum_out_cpu", input.dtype, ("unsigned",), input.numel())
    dim = normalize_dim(dim, input.dim())
    if dtype is None:
        dtype = input.dtype if input.dtype.is_floating_point else dtypes.int64
    return Cumsum.apply(input, dim=dim, dtype=dtype)
