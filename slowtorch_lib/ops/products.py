"""Products of elements: ``prod``, of all elements or along dimensions.

The derivative of a product with respect to one factor is the product of the
*other* factors. Dividing the product by the factor gives it only when no
factor is zero, so :func:`_others_product` computes it without division. It
reduces as the sums of :mod:`slowtorch_lib.ops.reduction` do, with their
helpers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import reduced_shape
from slowtorch_lib._storage import stored_array
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import check_loop, reduction_groups
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.autocast import full_precision
from slowtorch_lib.ops.common import accepts_out, tensor_input
from slowtorch_lib.ops.reduction import (
    _check_differentiable_dtype,
    _check_int_dim,
    _dims,
    _expand_back,
    _sum_type,
)

__all__ = ["prod"]


def _others_product(x: Tensor, dims: tuple[int, ...]) -> Tensor:
    """For each element, the product of the *other* elements of its group.

    Dividing the product by the element fails where it is zero, so this
    multiplies the prefix and suffix products instead (no division).
    Computed without recording a graph.
    """
    groups = reduction_groups(x, dims)
    result_groups = []
    for group in groups:
        prefix = [1] * len(group)
        running: Any = 1
        for i, value in enumerate(group):
            prefix[i] = running
            running = running * value
        others = [0] * len(group)
        running = 1
        for i in range(len(group) - 1, -1, -1):
            others[i] = prefix[i] * running
            running = running * group[i]
        result_groups.append(others)
    # Put the values back in the input's order: groups are laid out with the
    # kept dimensions first and the reduced ones last.
    kept = [d for d in range(x.dim()) if d not in dims]
    order = kept + sorted(dims)
    permuted_shape = tuple(x._shape[d] for d in order)
    flat = [v for group in result_groups for v in group]
    permuted = from_values(flat, permuted_shape, x.dtype)
    inverse = [order.index(d) for d in range(x.dim())]
    return permuted.permute(inverse).contiguous() if x.dim() else permuted


def _product(group: Sequence[Any], d: dtype) -> Any:
    """The product of ``group``; for float16 and bfloat16, rounded to the
    dtype after every multiplication, as PyTorch multiplies them."""
    if not (d.is_floating_point and d.narrow):
        return math.prod(group)
    product = 1.0
    for value in group:
        product = stored_array([product * value], d)[0]
    return product


class Prod(Function):
    r"""The product along one dimension.

    Derivative: d(prod)/dx_i = the product of all the other elements.

    Where no element is zero this is ``result / x_i``. With zeros the
    product of the other elements is computed directly.
    """

    grad_fn_name = "ProdBackward1"
    holomorphic = True

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        *,
        dims: tuple[int, ...],
        keepdim: bool,
        dtype: dtype | None = None,
    ) -> Tensor:
        ctx.dims, ctx.keepdim = dims, keepdim
        out_dtype = dtype or _sum_type(x.dtype)
        products = [_product(g, x.dtype) for g in reduction_groups(x, dims)]
        if out_dtype is dtypes.bool_:
            products = [bool(p) for p in products]
        result = from_values(
            products, reduced_shape(x._shape, dims, keepdim), out_dtype
        )
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        x, result = ctx.saved_tensors
        if x.dim() == 0:  # the product of one number is that number
            return grad_output
        grad = _expand_back(grad_output, x._shape, ctx.dims, ctx.keepdim)
        if 0 not in x._values():
            spread = _expand_back(result, x._shape, ctx.dims, ctx.keepdim)
            return grad * (spread / x)
        return grad * _others_product(x.detach(), ctx.dims)


class ProdAll(Prod):
    """``x.prod()`` with no ``dim``: PyTorch's ``ProdBackward0``."""

    grad_fn_name = "ProdBackward0"


@full_precision
@accepts_out(sets_dtype=True, needs_dim="int dim")
@tensor_input
def prod(
    input: Tensor,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    dtype: dtype | None = None,
) -> Tensor:
    """The product of all elements, or along ``dim``."""
    dtype = dtypes.dtype_arg(dtype, "prod")
    _check_int_dim("prod", dim)
    check_loop("prod_out_cpu", input.dtype, ("unsigned",), input.numel())
    _check_differentiable_dtype(input, dtype)
    if dtype is not None:
        input = input.to(dtype)
    ndim = input.dim()
    if dim is None:
        return ProdAll.apply(input, dims=tuple(range(ndim)), keepdim=False, dtype=dtype)
    return Prod.apply(input, dims=_dims(dim, ndim), keepdim=keepdim, dtype=dtype)
