"""Reductions: many elements in, one out, along some dimensions or all of them.

Every reduction groups the elements that meet in one output element
(:func:`slowtorch_lib._kernels.reduction_groups`) and folds each group with
a Python function (``math.fsum``, ``max``, ...). The backward spreads the
gradient of each output back over its group.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Union

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import cast_values, reduced_shape, reduction_groups
from slowtorch_lib._strides import normalize_dims, numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx

__all__ = ["sum", "mean", "sum_to_size"]

Dims = Union[int, Sequence[int], None]


def _sum_type(d: dtype) -> dtype:
    """Sums of bools and integers are int64, as in PyTorch."""
    return d if d.is_floating_point else dtypes.int64


def _expand_back(grad_output: Tensor, input_shape: tuple[int, ...],
                 dims: tuple[int, ...], keepdim: bool) -> Tensor:
    """The gradient of a reduction, spread back over the input's shape.

    Each input element contributed to exactly one output element; the
    gradient it receives is that output's gradient, so it is broadcast back:
    first the reduced dimensions are put back as size 1, then expanded.
    """
    if not keepdim:
        grad_output = grad_output.reshape(reduced_shape(input_shape, dims, True))
    return grad_output.expand(input_shape)


class Sum(Function):
    r"""The sum of all elements, or along ``dims``.

    .. math:: \frac{\partial}{\partial x_i} \sum_j x_j = 1

    so every element receives the gradient of the sum it went into.
    """

    grad_fn_name = "SumBackward1"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dims: tuple[int, ...], keepdim: bool,
                dtype: Optional[dtype] = None) -> Tensor:
        ctx.input_shape = x._shape
        ctx.dims, ctx.keepdim = dims, keepdim
        out_dtype = dtype or _sum_type(x.dtype)
        groups = reduction_groups(x, dims)
        if out_dtype.is_floating_point:
            if out_dtype is not x.dtype:
                groups = [cast_values(g, x.dtype, out_dtype) for g in groups]
            sums = [math.fsum(g) for g in groups]
        else:
            sums = [sum(g) for g in groups]
        return from_values(sums, reduced_shape(x._shape, dims, keepdim), out_dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return _expand_back(grad_output, ctx.input_shape, ctx.dims, ctx.keepdim)


class SumAll(Sum):
    """``x.sum()`` with no ``dim``: PyTorch's ``SumBackward0``."""

    grad_fn_name = "SumBackward0"


class Mean(Function):
    r"""The mean of all elements, or along ``dims``.

    .. math:: \frac{\partial}{\partial x_i} \frac{1}{n}\sum_j x_j = \frac{1}{n}
    """

    grad_fn_name = "MeanBackward1"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dims: tuple[int, ...], keepdim: bool) -> Tensor:
        ctx.input_shape = x._shape
        ctx.dims, ctx.keepdim = dims, keepdim
        count = numel(x._shape[d] for d in dims)
        ctx.count = count
        means = [math.fsum(g) / count if count else math.nan for g in reduction_groups(x, dims)]
        return from_values(means, reduced_shape(x._shape, dims, keepdim), x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        spread = _expand_back(grad_output, ctx.input_shape, ctx.dims, ctx.keepdim)
        return spread / ctx.count


class MeanAll(Mean):
    """``x.mean()`` with no ``dim``: PyTorch's ``MeanBackward0``."""

    grad_fn_name = "MeanBackward0"


def sum(input: Tensor, dim: Dims = None, keepdim: bool = False, *,
        dtype: Optional[dtype] = None) -> Tensor:
    """The sum of all elements, or along ``dim`` (an int or a tuple of ints)."""
    ndim = input.dim()
    if dim is None:
        return SumAll.apply(input, dims=tuple(range(ndim)), keepdim=False, dtype=dtype)
    return Sum.apply(input, dims=normalize_dims(dim, ndim), keepdim=keepdim, dtype=dtype)


def mean(input: Tensor, dim: Dims = None, keepdim: bool = False, *,
         dtype: Optional[dtype] = None) -> Tensor:
    """The mean of all elements, or along ``dim``.

    Raises:
        RuntimeError: For an integer or bool tensor, as in PyTorch.
    """
    if dtype is not None:
        input = input.to(dtype)
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a "
            f"floating point or complex dtype. Got: {input.type()[6:-6]}"
        )
    ndim = input.dim()
    if dim is None:
        return MeanAll.apply(input, dims=tuple(range(ndim)), keepdim=False)
    return Mean.apply(input, dims=normalize_dims(dim, ndim), keepdim=keepdim)


def sum_to_size(input: Tensor, shape: Sequence[int]) -> Tensor:
    """Sums ``input`` down to ``shape``: the reverse of broadcasting.

    Leading dimensions that ``shape`` lacks, and dimensions where ``shape``
    has size 1, are summed away.

    Raises:
        RuntimeError: If ``input`` could not have been broadcast from ``shape``.
    """
    shape = tuple(shape)
    if input._shape == shape:
        return input
    lead = input.dim() - len(shape)
    if lead < 0 or any(
        size != 1 and size != input._shape[lead + i] for i, size in enumerate(shape)
    ):
        raise RuntimeError(
            f"size {{{list(shape)}}} is not expandable to size {{{list(input._shape)}}}."
        )
    dims = tuple(range(lead)) + tuple(
        lead + i for i, size in enumerate(shape) if size == 1 and input._shape[lead + i] != 1
    )
    summed = sum(input, dims, keepdim=True) if dims else input
    return summed.reshape(shape)
