"""Statistics of a tensor's elements: variance, standard deviation, norms.

``var`` and ``std`` (with Bessel's ``correction``) and the vector norms
(``torch.norm``, ``torch.linalg.vector_norm``), each a :class:`Function`
with its forward and backward side by side. They reduce as the
reductions next door do (:mod:`slowtorch_lib.ops.reduction`), whose
helpers they share.
"""

from __future__ import annotations

import builtins
import math
from array import array
from collections.abc import Sequence
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import (
    ieee_div,
    ieee_pow,
    ieee_sqrt,
    reduced_shape,
)
from slowtorch_lib._strides import numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import (
    check_loop,
    not_implemented,
    reduction_groups,
)
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import (
    accepts_out,
    tensor_input,
)
from slowtorch_lib.ops.complex_parts import unit
from slowtorch_lib.ops.reduction import (
    Dims,
    _dims,
    _expand_back,
    mean,
    sum,
)
from slowtorch_lib.ops.selecting import where

__all__ = ["norm", "std", "var", "vector_norm"]


# ----------------------------------------------------------------------
# Variance and standard deviation
# ----------------------------------------------------------------------


def _variance(group: Sequence[Any], correction: Any) -> float:
    """``sum((x - mean)^2) / (n - correction)``, computed in double precision.

    With ``correction >= n`` there are no degrees of freedom left: PyTorch
    divides by 0 and answers ``inf`` (or ``nan`` if every element is equal).
    """
    count = len(group)
    if count == 0:
        return math.nan
    centre = builtins.sum(group) / count
    if isinstance(centre, complex):  # the squared distance is |v - centre|**2
        squares = builtins.sum([abs(v - centre) ** 2 for v in group])
    else:
        squares = builtins.sum([(v - centre) * (v - centre) for v in group])
    return ieee_div(squares, builtins.max(0, count - correction))


class Var(Function):
    r"""The variance along ``dims``, with ``correction`` (1: unbiased).

    Derivative: d(var)/dx_i = 2 * (x_i - mean) / (N - c), for N elements
    and correction c.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        *,
        dims: tuple[int, ...],
        keepdim: bool,
        correction: Any,
        whole: bool = False,
    ) -> Tensor:
        ctx.dims, ctx.keepdim, ctx.correction = dims, keepdim, correction
        ctx.whole = whole
        ctx.save_for_backward(x)
        values = [_variance(g, correction) for g in reduction_groups(x, dims)]
        shape = reduced_shape(x._shape, dims, keepdim)
        return from_values(values, shape, dtypes.COMPLEX_PARTS.get(x.dtype, x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return _variance_gradient(
            grad_output, x, ctx.dims, ctx.keepdim, ctx.correction, ctx.whole
        )


def _variance_gradient(
    grad_output: Tensor,
    x: Tensor,
    dims: tuple[int, ...],
    keepdim: bool,
    correction: Any,
    whole: bool,
) -> Tensor:
    """The gradient of the variance: ``grad * 2 (x - mean) / (N - c)``.

    Without degrees of freedom (``N - c <= 0``) PyTorch keeps this formula
    along a ``dim`` (``2 / 0`` is ``inf``; a negative ``N - c`` flips the
    sign), but for the ``whole`` tensor its slope is infinite with the sign
    of ``grad`` (``nan`` where ``x`` equals the mean). Both are copied here.
    """
    count = numel([x._shape[d] for d in dims])
    grad = _expand_back(grad_output, x._shape, dims, keepdim)
    centred = x - mean(x, dims, keepdim=True)
    if count - correction <= 0 and whole:
        return grad * centred.abs() * math.inf
    return grad * centred * ieee_div(2.0, count - correction)


class Std(Function):
    r"""The standard deviation: the square root of :class:`Var`.

    Derivative: d(std)/dx_i = (x_i - mean) / ((N - c) * std), for N
    elements and correction c.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        *,
        dims: tuple[int, ...],
        keepdim: bool,
        correction: Any,
        whole: bool = False,
    ) -> Tensor:
        ctx.dims, ctx.keepdim, ctx.correction = dims, keepdim, correction
        ctx.whole = whole
        groups = reduction_groups(x, dims)
        values = [ieee_sqrt(_variance(g, correction)) for g in groups]
        shape = reduced_shape(x._shape, dims, keepdim)
        d = dtypes.COMPLEX_PARTS.get(x.dtype, x.dtype)
        result = from_values(values, shape, d)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        x, result = ctx.saved_tensors
        # d std = d var / (2 std); where the spread is 0, PyTorch answers 0.
        grad_var = grad_output / (result * 2)
        grad = _variance_gradient(
            grad_var, x, ctx.dims, ctx.keepdim, ctx.correction, ctx.whole
        )
        zero_spread = _expand_back(result == 0, x._shape, ctx.dims, ctx.keepdim)
        return where(zero_spread, 0.0, grad)


def _correction(unbiased: bool | None, correction: Any) -> Any:
    if unbiased is not None and correction is not None:
        raise RuntimeError("Cannot pass both unbiased and correction")
    if correction is not None:
        return correction
    return 0 if unbiased is False else 1


def _check_float8(input: Tensor, dims: tuple[int, ...]) -> None:
    """Refuses an 8-bit float, which PyTorch has no loop for, in its words
    for a reduction to one number or to several."""
    if not (input.dtype.float8 and input.numel()):
        return
    reduced = math.prod(input._shape[d] for d in dims)
    if input.numel() // reduced != 1:
        raise not_implemented("std_cpu", input.dtype)
    raise RuntimeError(f"std_var_all: Unsupported dtype {input.dtype.c_name}")


def _check_floating(input: Tensor) -> None:
    if not input.dtype.differentiable:
        raise RuntimeError("std and var only support floating point and complex dtypes")


@accepts_out
@tensor_input
def var(
    input: Tensor,
    dim: Dims = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """The variance (by default unbiased: divided by ``N - 1``)."""
    if isinstance(dim, bool):  # var(x, False): the old positional ``unbiased``
        dim, unbiased = None, dim
    _check_floating(input)
    dims = _dims(dim, input.dim())
    _check_float8(input, dims)
    return Var.apply(
        input,
        dims=dims,
        keepdim=keepdim,
        correction=_correction(unbiased, correction),
        whole=dim is None,
    )


@accepts_out
@tensor_input
def std(
    input: Tensor,
    dim: Dims = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """The standard deviation (by default unbiased)."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    _check_floating(input)
    dims = _dims(dim, input.dim())
    _check_float8(input, dims)
    return Std.apply(
        input,
        dims=dims,
        keepdim=keepdim,
        correction=_correction(unbiased, correction),
        whole=dim is None,
    )


# ----------------------------------------------------------------------
# Vector norms
# ----------------------------------------------------------------------


def _norm_of(group: Sequence[float], ord: float, single: bool) -> float:
    """The ``ord``-norm of one group of numbers.

    With ``single``, each power is rounded to float32 as PyTorch computes
    it for float32 (and narrower) tensors: ``1e30 ** 2`` is ``inf`` there.
    """
    sizes = [abs(v) for v in group]
    if ord == math.inf:
        return builtins.max(sizes, default=0.0)
    if ord == -math.inf:
        return builtins.min(sizes, default=math.inf)
    if ord == 0:
        return float(builtins.sum(1 for v in sizes if v != 0))
    if len(sizes) == 1:  # nothing reduced: PyTorch gives |x|, no power taken
        return sizes[0]
    powers = [v * v if ord == 2 else ieee_pow(v, ord) for v in sizes]
    if single:
        powers = array("f", powers).tolist()
    if builtins.any(p != p for p in powers):  # a nan: the norm is nan
        return math.nan
    total = math.fsum(powers) if math.inf not in powers else math.inf
    return math.sqrt(total) if ord == 2 else ieee_pow(total, 1 / ord)


class LinalgVectorNorm(Function):
    r"""``(sum |x|**ord) ** (1/ord)`` along ``dims``; ``ord`` inf is the
    largest ``|x|``, -inf the smallest, 0 the count of nonzeros.

    Derivative: d/dx = sign(x) * |x|**(ord-1) / norm**(ord-1) (for ord 2,
    x / norm; for ord 1, sign(x)), 0 where the norm or x is 0. For inf and
    -inf the gradient goes to the elements whose ``|x|`` is the norm, split
    evenly; ord 0 has none.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, ord: float, dims: tuple[int, ...], keepdim: bool
    ) -> Tensor:
        d = dtypes.COMPLEX_PARTS.get(x.dtype, x.dtype)  # |z| is real
        single = d is not dtypes.float64
        values = [_norm_of(g, ord, single) for g in reduction_groups(x, dims)]
        result = from_values(values, reduced_shape(x._shape, dims, keepdim), d)
        ctx.ord, ctx.dims, ctx.keepdim = ord, dims, keepdim
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor | None:
        x, norm = ctx.saved_tensors
        ord, dims, keepdim = ctx.ord, ctx.dims, ctx.keepdim
        grad = _expand_back(grad_output, x._shape, dims, keepdim)
        norm = _expand_back(norm, x._shape, dims, keepdim)
        if ord == 0:  # a count: no gradient at all, as in PyTorch
            return None
        if ord in (math.inf, -math.inf):
            winners = x.abs() == norm
            count = sum(winners, dims, keepdim=True)
            return grad * unit(x) * winners / count
        if ord == 1:
            return grad * unit(x)
        if ord == 2:
            return where(norm == 0, 0.0, grad * x / norm)
        slope = unit(x) * x.abs() ** (ord - 1) / norm ** (ord - 1)
        return where((norm == 0) | (x == 0), 0.0, grad * slope)


@tensor_input
def vector_norm(
    x: Tensor,
    ord: float = 2,
    dim: Dims = None,
    keepdim: bool = False,
    *,
    dtype: dtype | None = None,
) -> Tensor:
    """The vector norm of ``x`` along ``dim`` (of all of it by default).

    Raises:
        RuntimeError: For an integer or bool tensor, as in PyTorch.
    """
    dtype = dtypes.dtype_arg(dtype, "vector_norm")
    if dtype is not None:
        x = x.to(dtype)
    if not x.dtype.differentiable:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as "
            f"input. Got {x.dtype.c_name}"
        )
    dims = _dims(dim, x.dim())
    # PyTorch looks for its loop only if something is reduced: a norm over
    # dimensions of size 1 is each element's own.
    reduced = numel([x._shape[d] for d in dims]) > 1
    check_loop("norm_cpu", x.dtype, elements=x.numel() if reduced else 0)
    check_loop("abs_cpu", x.dtype, ("float8",), x.numel())  # |x| without it
    return LinalgVectorNorm.apply(x, ord=ord, dims=dims, keepdim=keepdim)


@tensor_input
def norm(
    input: Tensor,
    p: float | str = "fro",
    dim: Dims = None,
    keepdim: bool = False,
    dtype: dtype | None = None,
) -> Tensor:
    """``torch.norm``: a vector norm (``p="fro"`` is the 2-norm).

    Raises:
        NotImplementedError: For the matrix norm ``p="nuc"``, which the
            engine does not have.
    """
    dtype = dtypes.dtype_arg(dtype, "norm")
    if p == "nuc":
        raise NotImplementedError("the engine has no nuclear norm (p='nuc')")
    ord = 2 if p == "fro" else p
    return vector_norm(input, ord, dim, keepdim, dtype=dtype)  # type: ignore[arg-type]
