"""Rounding: ``floor``, ``ceil``, ``trunc``, ``round``, and division that rounds.

``floor_divide`` and ``div(..., rounding_mode=...)`` round the quotient;
``remainder`` is what floor division leaves. Rounding has a zero
derivative almost everywhere, and PyTorch gives floor division none at all.
"""

from __future__ import annotations

import builtins
import math
import operator
from itertools import compress, repeat
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import zeros_like
from slowtorch_lib._kernels import (
    cast_scalar,
    cast_values,
    ieee_div,
)
from slowtorch_lib._tensor import Tensor, TensorOrScalar, from_values
from slowtorch_lib._tensor_kernels import (
    binary,
    check_real,
    contiguous_copy,
    unary,
)
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import (
    SAME,
    NoDerivative,
    accepts_out,
    check_some_tensor,
    no_loop,
    not_implemented,
    result_type,
    tensor_input,
)

__all__ = [
    "ceil",
    "fix",
    "floor",
    "floor_divide",
    "remainder",
    "round",
    "trunc",
]


def _whole(function: Any, values: list[float]) -> list[Any]:
    """``function`` (``math.floor``, ``round``...) applied to every value.

    ``math.floor`` returns an int and refuses ``inf`` and ``nan``, which are
    their own rounding; and an int loses the sign of a zero result, which
    PyTorch keeps (``ceil(-0.5)`` is ``-0.0``). A rounded value has the sign
    of its input, so each zero result takes the sign of its input.
    """
    try:
        result = list(map(function, values))
    except (OverflowError, ValueError):  # inf or nan among the values
        result = [function(v) if v - v == 0 else v for v in values]
    if 0 in result:
        for i in compress(range(len(result)), map(operator.not_, result)):
            result[i] = math.copysign(0.0, values[i])
    return result


class Floor(Function):
    """Rounds down. The derivative is 0 (the steps are flat)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        return _round_values("floor", math.floor, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return zeros_like(grad_output)


@accepts_out(dtype_refusal=SAME)
@tensor_input
def floor(input: Tensor) -> Tensor:
    """The largest integer not above each element (integers are kept)."""
    return Floor.apply(input)


class Ceil(Floor):
    """Rounds up. The derivative is 0."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        return _round_values("ceil", math.ceil, x)


@accepts_out(dtype_refusal=SAME)
@tensor_input
def ceil(input: Tensor) -> Tensor:
    """The smallest integer not below each element."""
    return Ceil.apply(input)


class Trunc(Floor):
    """Rounds toward zero. The derivative is 0."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        return _round_values("trunc", math.trunc, x)


@accepts_out(dtype_refusal=SAME)
@tensor_input
def trunc(input: Tensor) -> Tensor:
    """Each element rounded toward zero (its integer part)."""
    return Trunc.apply(input)


fix = trunc


class Round(Floor):
    """Rounds to the nearest integer, halves to even. The derivative is 0."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        return _round_values("round", builtins.round, x)


class RoundDecimals(Function):
    """Rounds to ``decimals`` decimal places. The derivative is 0."""

    grad_fn_name = "RoundBackward1"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, decimals: int) -> Tensor:
        if not x.dtype.is_floating_point:
            raise not_implemented("round_cpu", x.dtype)
        return _round_decimals(x, decimals)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return zeros_like(grad_output)


def _round_values(name: str, function: Any, x: Tensor) -> Tensor:
    """Rounds every element; integers are already whole and are copied."""
    if name != "round":
        check_real(name, x.dtype)
    if x.dtype is dtypes.bool_ or x.dtype.float8 or x.dtype.is_complex:
        raise not_implemented(f"{name}_vml_cpu", x.dtype)
    if not x.dtype.is_floating_point:
        return contiguous_copy(x)
    return from_values(_whole(function, x._values()), x._shape, x.dtype)


def _round_decimals(x: Tensor, decimals: int) -> Tensor:
    """``round(x * 10**d) / 10**d``, or ``round(x / 10**-d) * 10**-d`` for d < 0.

    Each step is rounded to ``x``'s dtype, as PyTorch computes it in that
    dtype: for float32, ``10**d`` and the product are float32 numbers (so
    ``10**39`` is already ``inf``, and every result ``nan``).
    """
    power = builtins.abs(decimals)
    ten_power = 10.0**power if power <= 308 else math.inf
    scale = repeat(cast_scalar(ten_power, x.dtype))  # inf beyond float32's range
    into, back = (operator.mul, operator.truediv)
    if decimals < 0:
        into, back = back, into
    scaled = cast_values(list(map(into, x._values(), scale)), dtypes.float64, x.dtype)
    whole = _whole(builtins.round, scaled)
    return from_values(list(map(back, whole, scale)), x._shape, x.dtype)


@accepts_out(dtype_refusal=SAME)
@tensor_input
def round(input: Tensor, *, decimals: int | None = None) -> Tensor:
    """Each element rounded to the nearest integer, halves to even
    (``round(2.5) == 2``), or to ``decimals`` decimal places.

    ``decimals`` may be negative: ``round(1234., decimals=-2) == 1200.``

    Raises:
        NotImplementedError: For bools, and for integers with ``decimals``.
    """
    if decimals is None:
        return Round.apply(input)
    return RoundDecimals.apply(input, decimals=decimals)


def _trunc_scalar(v: float) -> float:
    """``v`` rounded toward zero, keeping its sign (``-0.5`` gives ``-0.0``)."""
    return math.copysign(math.trunc(v), v) if math.isfinite(v) else v


def _trunc_quotient(a: TensorOrScalar, b: TensorOrScalar) -> Tensor:
    """The values of ``a / b`` rounded toward zero, in the promoted dtype."""
    d = result_type(a, b)
    if d is dtypes.bool_:
        raise no_loop("div_trunc_cpu", d, a, b)
    if not d.is_floating_point:
        return binary(_trunc_div_scalar, a, b, d)
    return unary(_trunc_scalar, binary(_quotient_to_trunc, a, b, d))


def _quotient_to_trunc(a: float, b: float) -> float:
    """``a / b`` (IEEE), the first loop of a division rounded toward zero:
    the same numbers as ``ieee_div``, but PyTorch's error for a type with
    no such loop names ``div_trunc_cpu``."""
    return ieee_div(a, b)


def _trunc_div_scalar(a: int, b: int) -> int:
    """Integer division rounding toward zero, as C does."""
    if b == 0:
        raise RuntimeError("ZeroDivisionError")
    quotient = builtins.abs(a) // builtins.abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


class RoundedDiv(Function):
    """``div`` with a ``rounding_mode``: a step function, its gradient is 0."""

    grad_fn_name = "DivBackward2"

    @staticmethod
    def forward(
        ctx: FunctionCtx, a: TensorOrScalar, b: TensorOrScalar, *, rounding_mode: str
    ) -> Tensor:
        # PyTorch's formulas take the divisor for either gradient, and the
        # dividend for the divisor's: it keeps them, so changing one in place
        # before backward is an error, although the gradient is 0.
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(
            a if need_b and isinstance(a, Tensor) else None,
            b if (need_a or need_b) and isinstance(b, Tensor) else None,
        )
        if rounding_mode == "floor":
            return _floor_quotient(a, b)
        return _trunc_quotient(a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        _ = ctx.saved_tensors  # raises if a kept input was changed in place
        zero = zeros_like(grad_output)
        return zero, zero


def _floor_div_scalar(a: Any, b: Any) -> Any:
    """``a // b`` rounding down; Python's ``//`` already matches PyTorch,
    except at a zero divisor."""
    try:
        return a // b
    except ZeroDivisionError:
        if isinstance(a, int) and isinstance(b, int):
            # RuntimeError, not ZeroDivisionError: as torch raises.
            raise RuntimeError("ZeroDivisionError") from None  # noqa: TRY004
        return ieee_div(a, b)


def _floor_quotient(input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
    """The values of ``input // other`` (no graph)."""
    d = result_type(input, other)
    if d is dtypes.bool_:
        raise no_loop("div_floor_cpu", d, input, other)
    return binary(_floor_div_scalar, input, other, d)


class FloorDivide(NoDerivative):
    """``a // b`` rounding down: no derivative in PyTorch."""

    grad_fn_name = "torch::autograd::NotImplemented"
    aten_name = "floor_divide"

    @staticmethod
    def forward(ctx: FunctionCtx, a: TensorOrScalar, b: TensorOrScalar) -> Tensor:
        return _floor_quotient(a, b)


class FloorDivideInPlace(FloorDivide):
    """``a //= b``: backward's error names ``floor_divide_``, as PyTorch's."""

    grad_fn_name = "torch::autograd::NotImplemented"
    aten_name = "floor_divide_"


@accepts_out(differentiable=False)
def floor_divide(input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
    """``input // other``, rounding down. Not differentiable.

    Raises:
        RuntimeError: For an integer division by zero (``ZeroDivisionError``),
            and in backward (PyTorch has no derivative for it).
        NotImplementedError: For two bools.
    """
    return FloorDivide.apply(input, other)


def _remainder_scalar(a: Any, b: Any) -> Any:
    """``a % b`` with the sign of ``b``.

    Integers use Python's ``%``. Floats start from ``math.fmod`` (the sign of
    ``a``) and add ``b`` once if the signs differ; a zero result keeps the
    sign of ``a``, and a zero divisor or infinite ``a`` gives ``nan``.
    """
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            raise RuntimeError("ZeroDivisionError")
        return a % b
    try:
        result = math.fmod(a, b)
    except ValueError:
        return math.nan
    if result != 0 and (b < 0) != (result < 0):
        result += b
    return result


def _remainder_values(a: TensorOrScalar, b: TensorOrScalar) -> Tensor:
    """The values of ``a % b`` (no graph)."""
    d = result_type(a, b)
    if d is dtypes.bool_:
        raise no_loop("remainder_cpu", d, a, b)
    return binary(_remainder_scalar, a, b, d)


class Remainder(Function):
    r"""``a % b`` for two tensors: ``a - b * floor(a / b)``.

    Derivatives: d/da = 1, d/db = -floor(a / b).
    """

    grad_fn_name = "RemainderBackward1"

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, b: Tensor) -> Tensor:
        if ctx.needs_input_grad[1]:  # only b's gradient reads a and b
            ctx.save_for_backward(a, b)
        return _remainder_values(a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        grad_b = None
        if ctx.needs_input_grad[1]:
            a, b = ctx.saved_tensors
            grad_b = -grad_output * _floor_quotient(a, b)
        return grad_output, grad_b


class RemainderScalar(Function):
    """``x % number``: the gradient passes through unchanged."""

    grad_fn_name = "RemainderBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, other: Any) -> Tensor:
        return _remainder_values(x, other)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output


class RemainderOfScalar(NoDerivative):
    """``number % x``: no derivative in PyTorch."""

    grad_fn_name = "torch::autograd::NotImplemented"
    aten_name = "remainder"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, number: Any) -> Tensor:
        return _remainder_values(number, x)


@accepts_out
def remainder(input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
    """``input % other`` with the sign of ``other``, as Python's ``%``."""
    check_some_tensor("remainder", input, other)
    if not isinstance(other, Tensor):
        return RemainderScalar.apply(input, other=other)
    if not isinstance(input, Tensor):
        return RemainderOfScalar.apply(other, number=input)
    return Remainder.apply(input, other)
