"""Reductions: many elements in, one out, along some dimensions or all of them.

Every reduction groups the elements that meet in one output element
(:func:`slowtorch_lib._kernels.reduction_groups`) and folds each group with
a Python function (``sum``, ``max``, ...). The backward spreads the
gradient of each output back over its group.

Here are the sums and means, the largest and smallest elements, and the
logical reductions (``all``, ``any``). Products (``prod``) are in
:mod:`slowtorch_lib.ops.products`, the element of a given rank (``median``,
``kthvalue``) in :mod:`slowtorch_lib.ops.order_statistics`; both use the
helpers defined here.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import (
    cast_values,
    reduced_shape,
)
from slowtorch_lib._strides import normalize_dims, numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import (
    check_loop,
    check_real,
    reduction_groups,
)
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.grad_mode import GRAD_MODE
from slowtorch_lib.ops.common import (
    EXACT,
    accepts_out,
    refuse_complex_grad,
    tensor_input,
)
from slowtorch_lib.ops.comparison import isnan
from slowtorch_lib.ops.return_types import (
    MaxResult,
    MinResult,
)
from slowtorch_lib.ops.selecting import maximum, minimum, where

__all__ = [
    "all",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "logsumexp",
    "max",
    "mean",
    "min",
    "sum",
]

Dims = int | Sequence[int] | None


def _sum_type(d: dtype) -> dtype:
    """Sums of bools and integers are int64, as in PyTorch."""
    return d if d.differentiable else dtypes.int64


def _dims(dim: Dims, ndim: int) -> tuple[int, ...]:
    """The dimensions a reduction runs over, checked and made non-negative.

    ``None`` and ``()`` mean every dimension. A 0-d tensor accepts ``dim``
    0 or -1, and has no dimension to reduce.
    """
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    dims = normalize_dims(dim, ndim)
    return dims if ndim else ()


def _expand_back(
    grad_output: Tensor,
    input_shape: tuple[int, ...],
    dims: tuple[int, ...],
    keepdim: bool,
) -> Tensor:
    """The gradient of a reduction, spread back over the input's shape.

    Each input element contributed to exactly one output element; the
    gradient it receives is that output's gradient, so it is broadcast back:
    first the reduced dimensions are put back as size 1, then expanded.
    """
    if not keepdim:
        grad_output = grad_output.reshape(reduced_shape(input_shape, dims, True))
    return grad_output.expand(input_shape)


class Sum(Function):
    """The sum of all elements, or along ``dims``.

    The derivative of a sum with respect to each of its terms is 1, so every
    element receives the gradient of the sum it went into.
    """

    grad_fn_name = "SumBackward1"

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        *,
        dims: tuple[int, ...],
        keepdim: bool,
        dtype: dtype | None = None,
    ) -> Tensor:
        ctx.input_shape = x._shape
        ctx.dims, ctx.keepdim = dims, keepdim
        out_dtype = dtype or _sum_type(x.dtype)
        groups = reduction_groups(x, dims)
        if out_dtype is not x.dtype:
            groups = [cast_values(list(g), x.dtype, out_dtype) for g in groups]
        sums = [builtins.sum(g) for g in groups]
        return from_values(sums, reduced_shape(x._shape, dims, keepdim), out_dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return _expand_back(grad_output, ctx.input_shape, ctx.dims, ctx.keepdim)


class SumAll(Sum):
    """``x.sum()`` with no ``dim``: PyTorch's ``SumBackward0``."""

    grad_fn_name = "SumBackward0"


class Mean(Function):
    r"""The mean of all elements, or along ``dims``.

    Derivative: d(mean)/dx_i = 1 / n, for each of the n elements.
    """

    grad_fn_name = "MeanBackward1"

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, dims: tuple[int, ...], keepdim: bool
    ) -> Tensor:
        ctx.input_shape = x._shape
        ctx.dims, ctx.keepdim = dims, keepdim
        count = numel([x._shape[d] for d in dims])
        ctx.count = count
        groups = reduction_groups(x, dims)
        # The mean of nothing is 0 / 0: nan, or nan+nanj for complex numbers.
        nothing = complex(math.nan, math.nan) if x.dtype.is_complex else math.nan
        means = [builtins.sum(g) / count if count else nothing for g in groups]
        return from_values(means, reduced_shape(x._shape, dims, keepdim), x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        spread = _expand_back(grad_output, ctx.input_shape, ctx.dims, ctx.keepdim)
        return spread / ctx.count


class MeanAll(Mean):
    """``x.mean()`` with no ``dim``: PyTorch's ``MeanBackward0``."""

    grad_fn_name = "MeanBackward0"


def _check_differentiable_dtype(input: Tensor, dtype: dtype | None) -> None:
    """A reduction recorded for autograd cannot produce integers or bools."""
    recorded = input.requires_grad and GRAD_MODE.enabled
    if recorded and dtype is not None and not dtype.is_floating_point:
        raise RuntimeError(f"Autograd not support dtype: {dtype.c_name}")


@accepts_out(sets_dtype=True, needs_dim="tuple of ints dim")
@tensor_input
def sum(
    input: Tensor,
    dim: Dims = None,
    keepdim: bool = False,
    *,
    dtype: dtype | None = None,
) -> Tensor:
    """The sum of all elements, or along ``dim`` (an int or a tuple of ints)."""
    dtype = dtypes.dtype_arg(dtype, "sum")
    _check_differentiable_dtype(input, dtype)
    ndim = input.dim()
    dims = tuple(range(ndim)) if dim is None else _dims(dim, ndim)
    check_loop("sum_cpu", dtype or input.dtype, ("unsigned",), input.numel())
    if dim is None:
        return SumAll.apply(input, dims=dims, keepdim=False, dtype=dtype)
    return Sum.apply(input, dims=dims, keepdim=keepdim, dtype=dtype)


@accepts_out
@tensor_input
def mean(
    input: Tensor,
    dim: Dims = None,
    keepdim: bool = False,
    *,
    dtype: dtype | None = None,
) -> Tensor:
    """The mean of all elements, or along ``dim``.

    Raises:
        RuntimeError: For an integer or bool tensor, as in PyTorch.
    """
    dtype = dtypes.dtype_arg(dtype, "mean")
    if dtype is not None and not dtype.differentiable:
        raise RuntimeError(
            "mean(): could not infer output dtype. Optional dtype must be either "
            f"a floating point or complex dtype. Got: {dtype.c_name}"
        )
    if dtype is not None:
        input = input.to(dtype)
    kernel = "sum_cpu" if input.numel() else "div_cpu_reduced_float"
    check_loop(kernel, input.dtype, ("unsigned",))
    if not input.dtype.differentiable:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a "
            f"floating point or complex dtype. Got: {input.type()[6:-6]}"
        )
    ndim = input.dim()
    if dim is None:
        return MeanAll.apply(input, dims=tuple(range(ndim)), keepdim=False)
    return Mean.apply(input, dims=_dims(dim, ndim), keepdim=keepdim)


def _logsumexp_group(group: Sequence[float]) -> float:
    """``log(sum(exp(v)))``, with the largest value taken out first so that
    no ``exp`` overflows."""
    if not group:
        return -math.inf
    if _has_nan(group):
        return math.nan
    top = builtins.max(group)
    if math.isinf(top):
        return top
    return top + math.log(math.fsum(math.exp(v - top) for v in group))


class Logsumexp(Function):
    """``log(sum(exp(x)))`` along ``dims``: a smooth maximum.

    Derivative: d/dx_i = exp(x_i) / sum(exp(x)) = exp(x_i - result), the
    softmax of ``x``.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, dims: tuple[int, ...], keepdim: bool
    ) -> Tensor:
        ctx.input_shape, ctx.dims, ctx.keepdim = x._shape, dims, keepdim
        results = [_logsumexp_group(g) for g in reduction_groups(x, dims)]
        result = from_values(results, reduced_shape(x._shape, dims, keepdim), x.dtype)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        x, result = ctx.saved_tensors
        spread = _expand_back(grad_output, ctx.input_shape, ctx.dims, ctx.keepdim)
        back = _expand_back(result, ctx.input_shape, ctx.dims, ctx.keepdim)
        return spread * (x - back).exp()


@accepts_out
@tensor_input
def logsumexp(input: Tensor, dim: Dims, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(input)))`` along ``dim``, computed without overflow.

    Integer and bool input is summed as float (the default dtype).
    """
    if not input.dtype.is_floating_point:
        input = input.to(dtypes.get_default_dtype())
    return Logsumexp.apply(input, dims=_dims(dim, input.dim()), keepdim=keepdim)


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
    if lead < 0 or builtins.any(
        size != 1 and size != input._shape[lead + i] for i, size in enumerate(shape)
    ):
        raise RuntimeError(
            f"size {{{list(shape)}}} is not expandable to size "
            f"{{{list(input._shape)}}}."
        )
    dims = tuple(range(lead)) + tuple(
        lead + i
        for i, size in enumerate(shape)
        if size == 1 and input._shape[lead + i] != 1
    )
    summed = sum(input, dims, keepdim=True) if dims else input
    return summed.reshape(shape)


# ----------------------------------------------------------------------
# Largest and smallest elements
# ----------------------------------------------------------------------


def _has_nan(group: Sequence[Any]) -> bool:
    return builtins.any(map(math.isnan, group))


def _largest(group: Sequence[Any]) -> Any:
    """``max`` that returns nan if the group has one, as PyTorch does."""
    if isinstance(group[0], float) and _has_nan(group):
        return math.nan
    return builtins.max(group)


def _smallest(group: Sequence[Any]) -> Any:
    """``min`` that returns nan if the group has one, as PyTorch does."""
    if isinstance(group[0], float) and _has_nan(group):
        return math.nan
    return builtins.min(group)


def _index_of(group: Sequence[Any], value: Any) -> int:
    """Where ``value`` (the max or min) first occurs; nan finds the first nan."""
    if math.isnan(value):
        return next(i for i, v in enumerate(group) if math.isnan(v))
    return group.index(value)


def _check_not_empty(name: str, x: Tensor, dim: Dims) -> None:
    """Max-like reductions have no value for an empty group: refuse them.

    Raises:
        RuntimeError: If ``x`` is empty and no ``dim`` is given.
        IndexError: If a dimension to reduce has size 0 (named as given).
    """
    if x.numel() != 0:
        return
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        if name in ("argmax", "argmin"):
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for "
                "input.numel() == 0."
            )
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    for d in (dim,) if isinstance(dim, int) else dim:
        (wrapped,) = normalize_dims(d, x.dim())
        if x.dim() and x._shape[wrapped] == 0:
            # amax and amin name the dim as given; max, argmax... as wrapped.
            shown = d if name in ("amax", "amin") else wrapped
            raise IndexError(
                f"{name}(): Expected reduction dim {shown} to have non-zero size."
            )


def _check_int_dim(name: str, dim: Any) -> None:
    """``max``, ``argmax``, ``prod``... reduce one dimension: ``dim`` is an int."""
    if dim is not None and not isinstance(dim, int):
        raise TypeError(
            f"{name}(): argument 'dim' (position 1) must be int, not "
            f"{type(dim).__name__}"
        )


def _spread_among_ties(
    grad_output: Tensor, x: Tensor, result: Tensor, dims: tuple[int, ...], keepdim: bool
) -> Tensor:
    """The gradient of max/min over ``dims``, shared evenly by tied elements."""
    result_back = _expand_back(result, x._shape, dims, keepdim)
    grad_back = _expand_back(grad_output, x._shape, dims, keepdim)
    winners = (x == result_back) | (isnan(x) & isnan(result_back))
    count = sum(winners, dims, keepdim=True)
    return where(winners, grad_back / count, 0.0)


class Amax(Function):
    """The largest element along ``dims`` (all of them by default).

    The gradient goes to the element that is the maximum; if several tie,
    it is split evenly between them.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, dims: tuple[int, ...], keepdim: bool, fold: Any
    ) -> Tensor:
        values = [fold(g) for g in reduction_groups(x, dims)]
        result = from_values(values, reduced_shape(x._shape, dims, keepdim), x.dtype)
        ctx.dims, ctx.keepdim = dims, keepdim
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        x, result = ctx.saved_tensors
        # As PyTorch: where the maximum is nan no element equals it, the count
        # is 0 and the whole group's gradient is nan.
        result_back = _expand_back(result, x._shape, ctx.dims, ctx.keepdim)
        grad_back = _expand_back(grad_output, x._shape, ctx.dims, ctx.keepdim)
        winners = x == result_back
        count = sum(winners, ctx.dims, keepdim=True)
        return grad_back / count * winners


class Amin(Amax):
    """The smallest element along ``dims``: the gradient as for :class:`Amax`."""


class MaxAll(Amax):
    """``x.max()`` with no ``dim``: PyTorch's ``MaxBackward1``.

    Unlike ``amax``, a nan maximum sends the gradient to the nan elements.
    """

    grad_fn_name = "MaxBackward1"

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        x, result = ctx.saved_tensors
        return _spread_among_ties(grad_output, x, result, ctx.dims, ctx.keepdim)


class MinAll(MaxAll):
    """``x.min()`` with no ``dim``: PyTorch's ``MinBackward1``."""

    grad_fn_name = "MinBackward1"


def _largest_at(group: Sequence[Any]) -> tuple[Any, int]:
    """The largest element and where it first occurs."""
    value = _largest(group)
    return value, _index_of(group, value)


def _smallest_at(group: Sequence[Any]) -> tuple[Any, int]:
    """The smallest element and where it first occurs."""
    value = _smallest(group)
    return value, _index_of(group, value)


class MaxDim(Function):
    """``x.max(dim)``: the largest element along ``dim`` and its index.

    ``pick`` maps the elements along ``dim`` to the chosen one and its
    index. The gradient goes to the one element the index points at (the
    first of any ties), unlike :class:`MaxAll`, which shares it among ties.
    """

    grad_fn_name = "MaxBackward0"

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, dims: tuple[int, ...], keepdim: bool, pick: Any
    ) -> tuple[Tensor, Tensor]:
        picked = [pick(g) for g in reduction_groups(x, dims)]
        values = [value for value, _ in picked]
        indices = [index for _, index in picked]
        shape = reduced_shape(x._shape, dims, keepdim)
        ctx.dims, ctx.keepdim, ctx.input_shape = dims, keepdim, x._shape
        index_tensor = from_values(indices, shape, dtypes.int64)
        ctx.save_for_backward(index_tensor)
        return from_values(values, shape, x.dtype), index_tensor

    @staticmethod
    def backward(ctx: FunctionCtx, grad_values: Tensor, grad_indices: Any) -> Tensor:
        (indices,) = ctx.saved_tensors
        return _scatter_to_index(
            grad_values, indices, ctx.input_shape, ctx.dims, ctx.keepdim
        )


class MinDim(MaxDim):
    """``x.min(dim)``: the gradient as for :class:`MaxDim`."""

    grad_fn_name = "MinBackward0"


def _scatter_to_index(
    grad: Tensor,
    indices: Tensor,
    shape: tuple[int, ...],
    dims: tuple[int, ...],
    keepdim: bool,
) -> Tensor:
    """A gradient of ``shape`` that is ``grad`` at ``indices`` along the dim, else 0."""
    if not dims:
        return grad
    (dim,) = dims
    grad = _expand_back(grad, shape, dims, keepdim)
    indices = _expand_back(indices, shape, dims, keepdim)
    trailing = (1,) * (len(shape) - dim - 1)
    positions = from_values(range(shape[dim]), (shape[dim],) + trailing, dtypes.int64)
    return where(positions == indices, grad, 0.0)


def _extreme(name: str, input: Tensor, dim: Any, keepdim: bool) -> Any:
    """Shared body of :func:`max` and :func:`min`."""
    is_max = name == "max"
    if isinstance(dim, Tensor):  # max(a, b) is maximum(a, b)
        return maximum(input, dim) if is_max else minimum(input, dim)
    _check_int_dim(name, dim)
    _check_not_empty(name, input, dim)
    if dim is not None:
        check_real(name, input.dtype)
    kernel = f"{name}_all" if dim is None else f"{name}_cpu"
    # Along a dim of a 0-d tensor there is nothing to reduce: no loop.
    elements = input.numel() if dim is None or input.dim() else 0
    check_loop(kernel, input.dtype, elements=elements)
    fold = _largest if is_max else _smallest
    if dim is None:
        whole = MaxAll if is_max else MinAll
        return whole.apply(
            input, dims=tuple(range(input.dim())), keepdim=False, fold=fold
        )
    along = MaxDim if is_max else MinDim
    pick = _largest_at if is_max else _smallest_at
    values, indices = along.apply(
        input, dims=_dims(dim, input.dim()), keepdim=keepdim, pick=pick
    )
    return MaxResult(values, indices) if is_max else MinResult(values, indices)


@tensor_input
def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The largest element; with ``dim``, a ``(values, indices)`` pair.

    ``max(a, b)`` with a tensor ``b`` is :func:`maximum`.
    """
    return _extreme("max", input, dim, keepdim)


@tensor_input
def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The smallest element; with ``dim``, a ``(values, indices)`` pair."""
    return _extreme("min", input, dim, keepdim)


# PyTorch's words for an ``out`` of amax or amin not of the input's dtype.
AMAX_REFUSAL = (
    "Expected the dtype for input and out to match, but got {d.c_name} for "
    "input's dtype and {out.c_name} for out's dtype."
)


@accepts_out(dtype_refusal=AMAX_REFUSAL)
@tensor_input
def amax(input: Tensor, dim: Dims = (), keepdim: bool = False) -> Tensor:
    """The largest elements along ``dim`` (every dimension by default)."""
    _check_not_empty("amax", input, dim)
    check_loop("max_values_cpu", input.dtype, elements=input.numel())
    refuse_complex_grad("amax", input)
    dims = _dims(dim, input.dim())
    return Amax.apply(input, dims=dims, keepdim=keepdim, fold=_largest)


@accepts_out(dtype_refusal=AMAX_REFUSAL)
@tensor_input
def amin(input: Tensor, dim: Dims = (), keepdim: bool = False) -> Tensor:
    """The smallest elements along ``dim`` (every dimension by default)."""
    _check_not_empty("amin", input, dim)
    check_loop("min_values_cpu", input.dtype, elements=input.numel())
    refuse_complex_grad("amin", input)
    dims = _dims(dim, input.dim())
    return Amin.apply(input, dims=dims, keepdim=keepdim, fold=_smallest)


def _arg_extreme(name: str, input: Tensor, dim: int | None, keepdim: bool) -> Tensor:
    fold = _largest if name == "argmax" else _smallest
    _check_int_dim(name, dim)
    if input.dtype is dtypes.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    check_real(name, input.dtype)
    _check_not_empty(name, input, dim)
    # An empty input, or one element along ``dim``, needs no loop.
    single = dim is not None and input.dim() > 0 and input.size(dim) == 1
    check_loop(f"{name}_cpu", input.dtype, elements=0 if single else input.numel())
    if dim is None:
        values = input._values()
        index = _index_of(values, fold(values))
        shape = (1,) * input.dim() if keepdim else ()
        return from_values([index], shape, dtypes.int64)
    dims = _dims(dim, input.dim())
    groups = reduction_groups(input, dims)
    indices = [_index_of(g, fold(g)) for g in groups]
    return from_values(
        indices, reduced_shape(input._shape, dims, keepdim), dtypes.int64
    )


@accepts_out(dtype_refusal=EXACT)
@tensor_input
def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the largest element (of the flattened tensor if no ``dim``)."""
    return _arg_extreme("argmax", input, dim, keepdim)


@accepts_out(dtype_refusal=EXACT)
@tensor_input
def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the smallest element (of the flattened tensor if no ``dim``)."""
    return _arg_extreme("argmin", input, dim, keepdim)


# ----------------------------------------------------------------------
# Logical reductions
# ----------------------------------------------------------------------
@tensor_input
def all(input: Tensor, dim: Dims = None, keepdim: bool = False) -> Tensor:
    """True where every element along ``dim`` is non-zero. Not differentiable."""
    dims = _dims(dim, input.dim())
    values = [builtins.all(g) for g in reduction_groups(input, dims)]
    shape = reduced_shape(input._shape, dims, keepdim)
    return from_values(values, shape, _logical_type(input.dtype))


@tensor_input
def any(input: Tensor, dim: Dims = None, keepdim: bool = False) -> Tensor:
    """True where some element along ``dim`` is non-zero. Not differentiable."""
    dims = _dims(dim, input.dim())
    values = [builtins.any(g) for g in reduction_groups(input, dims)]
    shape = reduced_shape(input._shape, dims, keepdim)
    return from_values(values, shape, _logical_type(input.dtype))


def _logical_type(d: dtype) -> dtype:
    """bool, except for uint8, which ``all`` and ``any`` keep (as PyTorch
    does, from the days before it had a bool dtype)."""
    return dtypes.uint8 if d is dtypes.uint8 else dtypes.bool_
