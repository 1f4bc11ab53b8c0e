"""Pointwise arithmetic and functions: ``add``, ``mul``, ``div``, ``exp``...

Each output element depends on one element of each input. The other
elementwise operations live next door, by kind: powers and roots (``pow``,
``sqrt``, ``reciprocal``...) in ``powers``, comparisons and logic in
``comparison``, ``clamp``/``where`` in ``selecting``, rounding and rounded
division in ``rounding``, copies and fills in ``copying``, ``bitwise``, the
optimisers' fused operations in ``fused``, and the logarithms and
exponentials beyond ``log`` and ``exp`` (``log1p``, ``log2``...) in
``logarithms``.

Every differentiable operation is a :class:`Function` with its forward and
its backward side by side. A backward receives ``grad_output``, the gradient
of the loss with respect to the output, and returns the gradient with respect
to each input by the chain rule. Broadcasting is undone by the engine, so a
backward here may return a gradient of the broadcast shape.

Backward passes are written with tensor operations, so that with
``create_graph=True`` they are recorded too and can be differentiated again.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import zeros_like
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import ieee_div
from slowtorch_lib._tensor import Tensor, TensorOrScalar, from_values
from slowtorch_lib._tensor_kernels import (
    binary,
    check_loop,
    check_real,
    contiguous_copy,
    unary,
)
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import (
    SAME,
    accepts_out,
    check_alpha,
    check_inplace_result,
    float_type,
    is_bool,
    not_implemented,
    result_type,
    tensor_input,
)
from slowtorch_lib.ops.comparison import isfinite
from slowtorch_lib.ops.complex_parts import unit
from slowtorch_lib.ops.rounding import RoundedDiv
from slowtorch_lib.ops.selecting import where

__all__ = [
    "abs",
    "add",
    "div",
    "divide",
    "exp",
    "log",
    "mul",
    "multiply",
    "nan_to_num",
    "neg",
    "relu",
    "rsub",
    "sigmoid",
    "sign",
    "sub",
    "subtract",
    "tanh",
    "true_divide",
]


def check_bool_subtraction(a: TensorOrScalar, b: TensorOrScalar) -> None:
    """PyTorch refuses ``-`` with bools: it is ``^`` or ``~`` that is meant."""
    if is_bool(a) and is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if is_bool(a) or is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` "
            "operator instead."
        )


def _scaled(b: TensorOrScalar, alpha: Any, d: dtype) -> TensorOrScalar:
    """``alpha * b`` computed in the result's dtype ``d``, as PyTorch does
    (once it has found the loop of the sum)."""
    check_loop("add_stub", d)
    if isinstance(b, Tensor):
        return binary(operator.mul, b, alpha, d)
    return b * alpha


class Add(Function):
    r"""``a + alpha * b``.

    Derivatives: d/da = 1, d/db = alpha.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, a: TensorOrScalar, b: TensorOrScalar, alpha: Any = 1
    ) -> Tensor:
        ctx.alpha = alpha
        d = result_type(a, b)
        check_alpha(alpha, d)
        if alpha != 1:
            b = _scaled(b, alpha, d)
        if d is dtypes.bool_:
            return binary(operator.or_, a, b, d)
        return binary(operator.add, a, b, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        alpha = ctx.alpha
        return grad_output, grad_output if alpha == 1 else grad_output * alpha


@accepts_out
def add(input: TensorOrScalar, other: TensorOrScalar, *, alpha: Any = 1) -> Tensor:
    """``input + alpha * other``, broadcasting."""
    return Add.apply(input, other, alpha=alpha)


class Sub(Function):
    r"""``a - alpha * b``.

    Derivatives: d/da = 1, d/db = -alpha.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, a: TensorOrScalar, b: TensorOrScalar, alpha: Any = 1
    ) -> Tensor:
        ctx.alpha = alpha
        check_bool_subtraction(a, b)
        d = result_type(a, b)
        check_alpha(alpha, d)
        if alpha != 1:
            b = _scaled(b, alpha, d)
        return binary(operator.sub, a, b, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        return grad_output, -grad_output if ctx.alpha == 1 else grad_output * -ctx.alpha


@accepts_out
def sub(input: TensorOrScalar, other: TensorOrScalar, *, alpha: Any = 1) -> Tensor:
    """``input - alpha * other``, broadcasting."""
    return Sub.apply(input, other, alpha=alpha)


subtract = sub


class Rsub(Function):
    r"""``other - alpha * x`` for a Python number ``other`` (``2 - x``).

    Derivative: d/dx = -alpha.
    """

    grad_fn_name = "RsubBackward1"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, other: Any, alpha: Any = 1) -> Tensor:
        ctx.alpha = alpha
        check_bool_subtraction(other, x)
        d = result_type(x, other)
        scaled = x if alpha == 1 else mul(x, alpha)
        return binary(operator.sub, other, scaled, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return -grad_output if ctx.alpha == 1 else grad_output * -ctx.alpha


@tensor_input
def rsub(input: Tensor, other: TensorOrScalar, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input`` (what ``2 - x`` calls)."""
    if isinstance(other, Tensor):
        return Sub.apply(other, input, alpha=alpha)
    return Rsub.apply(input, other=other, alpha=alpha)


def save_factors(ctx: FunctionCtx, a: TensorOrScalar, b: TensorOrScalar) -> None:
    """Keeps what :func:`product_rule` needs of the factors ``a`` and ``b``.

    A factor's gradient needs the *other* factor, so a tensor is saved only if
    the other factor needs a gradient (as PyTorch does: a factor changed in
    place afterwards is then no error). A Python number is kept as it is.
    """
    needs_a, needs_b = ctx.needs_input_grad
    ctx.save_for_backward(
        a if isinstance(a, Tensor) and needs_b else None,
        b if isinstance(b, Tensor) and needs_a else None,
    )
    ctx.scalars = tuple(None if isinstance(v, Tensor) else v for v in (a, b))
    ctx.squares = a is b


def product_rule(
    gradient: Callable[[Tensor, TensorOrScalar], Tensor],
) -> Callable[[FunctionCtx, Tensor], tuple[Tensor | None, ...]]:
    """Makes a product's ``backward`` from the gradient of one factor.

    ``gradient(grad_output, other)`` gives the gradient of a factor from the
    other factor. The ``backward`` made from it calls it for each factor that
    needs a gradient (``None`` for the other), with the factors
    :func:`save_factors` kept; for ``x * x`` it calls it once and sends the
    result along both edges, where the engine adds the two up.
    """

    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        a, b = ctx.saved_tensors
        scalar_a, scalar_b = ctx.scalars
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = gradient(grad_output, b if b is not None else scalar_b)
        if ctx.needs_input_grad[1]:
            if ctx.squares and grad_a is not None:
                grad_b = grad_a
            else:
                grad_b = gradient(grad_output, a if a is not None else scalar_a)
        return grad_a, grad_b

    return backward


class Mul(Function):
    """``a * b``, elementwise: d/da = b and d/db = a.

    So the gradient of each factor is ``grad_output`` times the other one.
    """

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, a: TensorOrScalar, b: TensorOrScalar) -> Tensor:
        save_factors(ctx, a, b)
        d = result_type(a, b)
        if d is dtypes.bool_:
            return binary(operator.and_, a, b, d)
        return binary(operator.mul, a, b, d)

    @staticmethod
    @product_rule
    def backward(grad_output: Tensor, other: TensorOrScalar) -> Tensor:
        return grad_output * other


@accepts_out
def mul(input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
    """``input * other``, broadcasting."""
    return Mul.apply(input, other)


multiply = mul


class Div(Function):
    r"""``a / b`` (true division: integers give a float result).

    Derivatives: d/da = 1 / b, d/db = -a / b**2.
    """

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, a: TensorOrScalar, b: TensorOrScalar) -> Tensor:
        ctx.save_for_backward(
            a if isinstance(a, Tensor) and ctx.needs_input_grad[1] else None,
            b if isinstance(b, Tensor) else None,
        )
        ctx.scalar_b = b
        d = float_type(result_type(a, b))
        return binary(operator.truediv, a, b, d, careful=ieee_div)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        a, b = ctx.saved_tensors
        divisor = b if b is not None else ctx.scalar_b
        grad_a = grad_output / divisor if ctx.needs_input_grad[0] else None
        grad_b = None
        if ctx.needs_input_grad[1]:
            # (a / b) / b, not a / (b * b): b * b overflows for |b| > 1.8e19.
            grad_b = -grad_output * (a / divisor / divisor)
        return grad_a, grad_b


class DivWithMode(Div):
    """True division called with ``rounding_mode=None`` given.

    PyTorch records it as another overload of ``div`` (the one that takes a
    rounding mode), so its node is ``DivBackward2``, not ``DivBackward0``.
    """

    grad_fn_name = "DivBackward2"


# The default of ``rounding_mode``: not given (``None`` given is another overload).
NOT_GIVEN: Any = object()


@accepts_out
def div(
    input: TensorOrScalar,
    other: TensorOrScalar,
    *,
    rounding_mode: str | None = NOT_GIVEN,
) -> Tensor:
    """``input / other`` (true division), or rounded with ``rounding_mode``.

    ``rounding_mode='floor'`` rounds down, ``'trunc'`` toward zero; rounded
    division has no gradient. As in PyTorch, any ``rounding_mode`` given,
    even ``None``, records ``DivBackward2``; without it, ``DivBackward0``.
    """
    if rounding_mode is NOT_GIVEN:
        return Div.apply(input, other)
    if rounding_mode is None:
        return DivWithMode.apply(input, other)
    check_rounding_mode(rounding_mode)
    return RoundedDiv.apply(input, other, rounding_mode=rounding_mode)


def check_rounding_mode(rounding_mode: str | None) -> None:
    """Refuses a rounding mode of ``div`` other than None, floor and trunc."""
    if rounding_mode not in (None, "floor", "trunc"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
            f"found '{rounding_mode}'"
        )


def check_inplace_division(
    target: Tensor, other: TensorOrScalar, rounding_mode: str | None
) -> None:
    """The checks of ``target.div_(other)`` before its loop: the rounding
    mode, then the result's shape and dtype (a float unless rounded)."""
    check_rounding_mode(rounding_mode)
    d = result_type(target, other)
    check_inplace_result(target, other, d if rounding_mode else float_type(d))


@accepts_out
def true_divide(input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
    """``input / other``: :func:`div` without a rounding mode."""
    return Div.apply(input, other)


divide = div


class Neg(Function):
    """``-x``. Derivative: -1."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        if x.dtype is dtypes.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. "
                "If you are trying to invert a mask, use the `~` or "
                "`logical_not()` operator instead."
            )
        return unary(operator.neg, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return -grad_output


@accepts_out(dtype_refusal=SAME)
@tensor_input
def neg(input: Tensor) -> Tensor:
    """``-input``."""
    return Neg.apply(input)


class Abs(Function):
    """``|x|``. Derivative: sign(x) (0 at 0).

    A complex ``x`` gives its real modulus; the gradient flowing back is
    ``grad_output * x / |x|`` (0 at 0), PyTorch's ``sgn``.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        if x.dtype is dtypes.bool_:
            raise not_implemented("abs_cpu", x.dtype)
        ctx.save_for_backward(x)
        return unary(operator.abs, x, dtypes.COMPLEX_PARTS.get(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * unit(x)


@accepts_out(dtype_refusal=SAME)
@tensor_input
def abs(input: Tensor) -> Tensor:
    """``|input|``."""
    return Abs.apply(input)


class Sign(Function):
    """-1, 0 or 1 by the sign of each element (0 for ``nan``, as in PyTorch).

    A step function: its gradient is 0 everywhere.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        if x.dtype is dtypes.bool_:
            return contiguous_copy(x)
        return unary(_sign_scalar, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return zeros_like(grad_output)


def _sign_scalar(v: Any) -> Any:
    return (v > 0) - (v < 0)


@accepts_out(dtype_refusal=SAME)
@tensor_input
def sign(input: Tensor) -> Tensor:
    """-1, 0 or 1 by the sign of each element."""
    check_real("sign", input.dtype)
    return Sign.apply(input)


class Exp(Function):
    """``e ** x``. Its derivative is ``e ** x`` again: the output itself."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(math.exp, x, float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * result


@accepts_out
@tensor_input
def exp(input: Tensor) -> Tensor:
    """``e ** input``."""
    return Exp.apply(input)


class Log(Function):
    """Natural logarithm. Derivative: 1 / x."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(math.log, x, float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output / x


@accepts_out
@tensor_input
def log(input: Tensor) -> Tensor:
    """The natural logarithm."""
    return Log.apply(input)


class Tanh(Function):
    """Hyperbolic tangent. Derivative: 1 - tanh(x)**2."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(math.tanh, x, float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * (1 - result * result)


@accepts_out
@tensor_input
def tanh(input: Tensor) -> Tensor:
    """The hyperbolic tangent."""
    return Tanh.apply(input)


def _sigmoid_scalar(x: float) -> float:
    """``1 / (1 + e^-x)``, written so that neither branch overflows."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


class Sigmoid(Function):
    r"""``1 / (1 + e^{-x})``.

    Derivative: d/dx = sigmoid(x) * (1 - sigmoid(x)).
    """

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(_sigmoid_scalar, x, float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * (result * (1 - result))


@accepts_out
@tensor_input
def sigmoid(input: Tensor) -> Tensor:
    """The logistic function ``1 / (1 + e^-input)``."""
    return Sigmoid.apply(input)


def _relu_scalar(x: Any) -> Any:
    """``x`` if it is not below 0 (``-0.0`` and ``nan`` stay), else 0."""
    return 0 if x < 0 else x


class Relu(Function):
    """``max(x, 0)``. Derivative: 1 where ``x > 0``, else 0."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        if x.dtype is dtypes.bool_:
            raise RuntimeError("Boolean inputs not supported for relu")
        check_real("clamp", x.dtype)
        result = unary(_relu_scalar, x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return ThresholdBackward.apply(grad_output, result)


class ThresholdBackward(Function):
    """ReLU's backward: ``grad`` where ``result > 0``, else 0.

    Select, not multiply: ``0 * inf`` would be nan. A nan result passes the
    gradient. Its own backward selects the same way (``result`` gets none).
    """

    grad_fn_name = "ThresholdBackwardBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, grad: Tensor, result: Tensor) -> Tensor:
        ctx.save_for_backward(result)
        pairs = zip(grad._values(), result._values())
        kept = [0 if r <= 0 else g for g, r in pairs]
        return from_values(kept, result._shape, grad.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, None]:
        (result,) = ctx.saved_tensors
        return ThresholdBackward.apply(grad_output, result), None


@tensor_input
def relu(input: Tensor) -> Tensor:
    """``max(input, 0)``."""
    return Relu.apply(input)


def _finite(nan: float, high: float, low: float, value: float) -> float:
    """``value``, or ``nan``, ``high`` or ``low`` in place of nan, inf, -inf."""
    if value - value == 0:  # finite
        return value
    if value != value:
        return nan
    return high if value > 0 else low


class NanToNum(Function):
    """``nan``, ``inf`` and ``-inf`` replaced by finite numbers.

    The derivative is 1 where ``x`` is finite and 0 where it was replaced.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        *,
        nan: float,
        posinf: float | None,
        neginf: float | None,
    ) -> Tensor:
        ctx.save_for_backward(x)
        if not x.dtype.is_floating_point:
            return contiguous_copy(x)
        largest = x.dtype.max  # the largest finite value
        high = largest if posinf is None else posinf
        low = -largest if neginf is None else neginf
        return unary(functools.partial(_finite, nan, high, low), x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return where(isfinite(x), grad_output, 0.0)


# PyTorch's words for an ``out`` not of the input's dtype.
NAN_TO_NUM_REFUSAL = (
    "nan_to_num: dtype of out: {out.c_name} should be same as input: {d.c_name}"
)


@accepts_out(dtype_refusal=NAN_TO_NUM_REFUSAL)
@tensor_input
def nan_to_num(
    input: Tensor,
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
) -> Tensor:
    """``nan`` replaced by ``nan``, ``inf`` by ``posinf`` and ``-inf`` by
    ``neginf`` (by default the largest and smallest finite values of the
    dtype). Integers and bools are copied unchanged."""
    return NanToNum.apply(input, nan=nan, posinf=posinf, neginf=neginf)
