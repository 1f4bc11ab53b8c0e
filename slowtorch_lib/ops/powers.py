"""Powers and roots: ``pow``, ``sqrt``, ``rsqrt``, ``square``, ``reciprocal``.

The same layout as :mod:`slowtorch_lib.ops.pointwise`, next door: each
:class:`Function` with its forward and its backward side by side, the
derivative in its docstring. ``pow`` comes in three forms, as in PyTorch:
a tensor to a number's power, a tensor to a tensor's power, and a number to
a tensor's power; integers are raised exactly, as PyTorch's integer loop
does.
"""

from __future__ import annotations

import builtins
import cmath
import math
import operator
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import checked_fill, zeros_like
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import ieee_div, ieee_log, ieee_pow, ieee_sqrt
from slowtorch_lib._tensor import Tensor, TensorOrScalar, from_values
from slowtorch_lib._tensor_kernels import binary, check_loop, contiguous_copy, unary
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import (
    accepts_out,
    check_some_tensor,
    float_type,
    no_loop,
    not_implemented,
    result_type,
    tensor_input,
)
from slowtorch_lib.ops.pointwise import log
from slowtorch_lib.ops.selecting import where

__all__ = [
    "pow",
    "reciprocal",
    "rsqrt",
    "sqrt",
    "square",
]


def _integer_power(base: int, exponent: int) -> int:
    """``base ** exponent`` kept an integer, as PyTorch's integer ``pow`` does.

    A negative exponent gives ``1 / base ** -exponent`` truncated: 0 unless
    ``base`` is 1 or -1.
    """
    if exponent >= 0:
        # Modular power: the low 64 bits at once, even for a huge exponent.
        return builtins.pow(base, exponent, 2**64)
    if base == 1:
        return 1
    if base == -1:
        return 1 if exponent % 2 == 0 else -1
    return 0


def _power(base: TensorOrScalar, exponent: TensorOrScalar, d: dtype) -> Tensor:
    """The values of ``base ** exponent`` in dtype ``d`` (no graph).

    ``x ** 0.5`` and ``x ** -0.5`` are square roots, as in PyTorch (so that
    ``(-inf) ** 0.5`` is ``nan``, where C's ``pow`` would say ``inf``).
    ``x ** 0`` and ``x ** 1`` need no loop in PyTorch (ones, a copy), so
    the types with few kernels have them too.
    """
    if isinstance(base, Tensor) and d.unpromotable and base.dtype is d:
        if not isinstance(exponent, Tensor) and exponent in (0, 1):
            ones = from_values([1] * base.numel(), base._shape, d)
            return ones if exponent == 0 else contiguous_copy(base)
    if (
        isinstance(base, Tensor)
        and not isinstance(exponent, Tensor)
        and d.differentiable
    ):
        check_loop("pow", d)
        if exponent == 0.5:
            return unary(ieee_sqrt, base, d)
        if exponent == -0.5:
            return unary(_rsqrt_scalar, base, d)
    if d.differentiable:
        return binary(math.pow, base, exponent, d, careful=ieee_pow)
    if d is dtypes.bool_:  # bool ** bool-number: computed as integers
        return binary(_integer_power, base, exponent, dtypes.int64, dtypes.bool_)
    return binary(_integer_power, base, exponent, d)


class PowScalar(Function):
    r"""``x ** exponent`` for a Python number ``exponent``.

    Derivative: d/dx = exponent * x**(exponent - 1).
    """

    grad_fn_name = "PowBackward0"
    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, exponent: Any) -> Tensor:
        ctx.save_for_backward(x)
        ctx.exponent = exponent
        d = result_type(x, exponent)
        if not d.differentiable and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if d.narrow:  # the exponent must fit a narrow result's dtype
            checked_fill(exponent, d)
        return _power(x, exponent, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        exponent = ctx.exponent
        if exponent == 0:
            return zeros_like(grad_output)
        return grad_output * (exponent * x ** (exponent - 1))


class PowTensor(Function):
    r"""``base ** exponent`` for two tensors.

    Derivatives, for base b and exponent e: d/db = e * b**(e - 1),
    d/de = b**e * log(b).
    """

    grad_fn_name = "PowBackward1"
    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, base: Tensor, exponent: Tensor) -> Tensor:
        d = result_type(base, exponent)
        if d is dtypes.bool_:
            raise no_loop("pow", d, base, exponent)
        result = _power(base, exponent, d)
        ctx.save_for_backward(base, exponent, result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        base, exponent, result = ctx.saved_tensors
        grad_base = grad_exponent = None
        if ctx.needs_input_grad[0]:
            slope = exponent * base ** (exponent - 1)
            # x ** 0 is the constant 1, even at x = 0 (where 0 * 0 ** -1 is nan).
            grad_base = grad_output * where(exponent == 0, 0.0, slope)
        if ctx.needs_input_grad[1]:
            # Where base == 0 and exponent >= 0 the gradient is taken as 0
            # (selected, not multiplied: result * log(0) is nan or inf).
            flat = (base == 0) & (exponent.real >= 0)
            slope = where(flat, 0.0, result * log(base))
            grad_exponent = grad_output * slope
        return grad_base, grad_exponent


class RPowScalar(Function):
    r"""``base ** x`` for a Python number ``base`` (``2 ** x``).

    Derivative: d/dx = base**x * log(base).
    """

    grad_fn_name = "PowBackward2"
    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, base: Any) -> Tensor:
        d = result_type(base, x)
        if d is dtypes.bool_:
            raise not_implemented("pow", d)
        result = _power(base, x, d)
        ctx.save_for_backward(x if base == 0 else None, result)
        ctx.base = base
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        x, result = ctx.saved_tensors
        if ctx.base == 0:  # 0 ** x is flat for x >= 0; below, log(0) = -inf
            return grad_output * where(x >= 0, 0.0, result * -math.inf)
        if isinstance(ctx.base, complex):
            return grad_output * (result * cmath.log(ctx.base))
        return grad_output * result * ieee_log(ctx.base)


@accepts_out
def pow(input: TensorOrScalar, exponent: TensorOrScalar) -> Tensor:
    """``input ** exponent``; either side may be a Python number."""
    check_some_tensor("pow", input, exponent)
    if isinstance(input, Tensor) and isinstance(exponent, Tensor):
        return PowTensor.apply(input, exponent)
    if isinstance(input, Tensor):
        return PowScalar.apply(input, exponent=exponent)
    return RPowScalar.apply(exponent, base=input)


class Sqrt(Function):
    """Square root. Derivative: 1 / (2 * sqrt(x))."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(math.sqrt, x, float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output / (result * 2)


@accepts_out
@tensor_input
def sqrt(input: Tensor) -> Tensor:
    """The square root."""
    return Sqrt.apply(input)


def _rsqrt_scalar(x: float) -> float:
    """``1 / sqrt(x)``: ``inf`` at 0, ``-inf`` at ``-0.0``, ``nan`` below 0."""
    return ieee_div(1.0, ieee_sqrt(x))


class Rsqrt(Function):
    """``1 / sqrt(x)``. Derivative: -0.5 * x**(-1.5)."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(_rsqrt_scalar, x, float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * (result * result * result) * -0.5


@accepts_out
@tensor_input
def rsqrt(input: Tensor) -> Tensor:
    """``1 / sqrt(input)``."""
    return Rsqrt.apply(input)


@accepts_out
@tensor_input
def square(input: Tensor) -> Tensor:
    """``input ** 2`` (recorded as ``PowBackward0``, as in PyTorch)."""
    return PowScalar.apply(input, exponent=2)


class Reciprocal(Function):
    """``1 / x``. Derivative: -1 / x**2."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        check_loop("reciprocal_cpu", float_type(x.dtype))
        result = binary(operator.truediv, 1.0, x, float_type(x.dtype), careful=ieee_div)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * (-(result * result))


@accepts_out
@tensor_input
def reciprocal(input: Tensor) -> Tensor:
    """``1 / input``."""
    return Reciprocal.apply(input)
