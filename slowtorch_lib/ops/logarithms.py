"""Logarithms and exponentials beyond ``log`` and ``exp``: ``log1p``,
``log10``, ``log2``, ``exp2`` and ``expm1``.

The same layout as ``pointwise``, next door: each :class:`Function` with its
forward and its backward side by side, the derivative in its docstring, and
the function that calls it right after it. ``log1p`` and ``expm1`` compute
``log(1 + x)`` and ``e ** x - 1`` without losing the digits of a tiny ``x``.
"""

from __future__ import annotations

import math

from slowtorch_lib._kernels import ieee_function
from slowtorch_lib._tensor import Tensor
from slowtorch_lib._tensor_kernels import unary
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import accepts_out, float_type, tensor_input

__all__ = ["exp2", "expm1", "log10", "log1p", "log2"]


class Log1p(Function):
    """``log(1 + x)``, accurate for small ``x``. The derivative is ``1 / (1 + x)``."""

    grad_fn_name = "Log1PBackward0"
    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(_log1p_scalar, x, float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output / (x + 1)


def _log1p_scalar(value: float) -> float:
    """``math.log1p`` with IEEE results: ``-inf`` at -1, ``nan`` below it."""
    if value > -1:
        return math.log1p(value)
    return -math.inf if value == -1 else math.nan


@accepts_out
@tensor_input
def log1p(input: Tensor) -> Tensor:
    """``log(1 + input)``, accurate where ``input`` is tiny."""
    return Log1p.apply(input)


class Log10(Function):
    """Base-10 logarithm. Derivative: 1 / (x ln 10)."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(ieee_function(math.log10), x, float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output / (x * math.log(10))


@accepts_out
@tensor_input
def log10(input: Tensor) -> Tensor:
    """The base-10 logarithm."""
    return Log10.apply(input)


class Log2(Function):
    """Base-2 logarithm. Derivative: 1 / (x ln 2)."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(ieee_function(math.log2), x, float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output / (x * math.log(2))


@accepts_out
@tensor_input
def log2(input: Tensor) -> Tensor:
    """The base-2 logarithm."""
    return Log2.apply(input)


def _exp2_scalar(x: float) -> float:
    """``2 ** x``."""
    return math.pow(2.0, x)


class Exp2(Function):
    """``2 ** x``. Derivative: 2 ** x * ln 2."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(ieee_function(_exp2_scalar), x, float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * result * math.log(2)


@accepts_out
@tensor_input
def exp2(input: Tensor) -> Tensor:
    """``2 ** input``."""
    return Exp2.apply(input)


class Expm1(Function):
    """``e ** x - 1``, accurate for small ``x``. Derivative: e ** x."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(ieee_function(math.expm1), x, float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * (result + 1)


@accepts_out
@tensor_input
def expm1(input: Tensor) -> Tensor:
    """``e ** input - 1``, accurate where ``input`` is tiny."""
    return Expm1.apply(input)
