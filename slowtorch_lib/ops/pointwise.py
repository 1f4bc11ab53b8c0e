"""Pointwise operations: each output element depends on one element of each input.

Every differentiable operation is a :class:`Function` with its forward and
its backward side by side. A backward receives ``grad_output``, the gradient
of the loss with respect to the output, and returns the gradient with respect
to each input by the chain rule. Broadcasting is undone by the engine, so a
backward here may return a gradient of the broadcast shape.

Backward passes are written with tensor operations, so that with
``create_graph=True`` they are recorded too and can be differentiated again.
"""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import checked_fill
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import (
    binary,
    contiguous_copy,
    ieee_div,
    ieee_log,
    ieee_pow,
    ieee_sqrt,
    unary,
)
from slowtorch_lib._storage import wrap_int64
from slowtorch_lib._strides import broadcast_shapes
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.history import check_inplace

__all__ = [
    "abs",
    "add",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "clone",
    "cos",
    "div",
    "eq",
    "exp",
    "floor_divide",
    "ge",
    "gt",
    "isnan",
    "le",
    "log",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "lt",
    "masked_fill",
    "maximum",
    "minimum",
    "mul",
    "ne",
    "neg",
    "pow",
    "reciprocal",
    "relu",
    "remainder",
    "result_type",
    "rsqrt",
    "rsub",
    "sigmoid",
    "sign",
    "sin",
    "sqrt",
    "square",
    "sub",
    "tanh",
    "true_divide",
    "where",
]

Operand = Tensor | int | float | bool


def result_type(*operands: Operand) -> dtype:
    """The dtype of an operation on these operands, by PyTorch's promotion rules.

    >>> result_type(tensor([1, 2]), 2.5)
    torch.float32
    """
    dimensioned: list[dtype] = []
    zero_dim: list[dtype] = []
    scalars: list[Any] = []
    for operand in operands:
        if isinstance(operand, Tensor):
            (dimensioned if operand._shape else zero_dim).append(operand.dtype)
        else:
            scalars.append(operand)
    return dtypes.result_dtype(dimensioned, zero_dim, scalars)


def _float_type(d: dtype) -> dtype:
    """``d`` if it is floating point, else the default float dtype."""
    return d if d.is_floating_point else dtypes.get_default_dtype()


def _is_bool(operand: Operand) -> bool:
    if isinstance(operand, Tensor):
        return operand.dtype is dtypes.bool_
    return isinstance(operand, bool)


def _check_bool_subtraction(a: Operand, b: Operand) -> None:
    """PyTorch refuses ``-`` with bools: it is ``^`` or ``~`` that is meant."""
    if _is_bool(a) and _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` "
            "operator instead."
        )


def _check_alpha(alpha: Any, d: dtype) -> None:
    """``alpha`` must not be a float for an integer result, as in PyTorch."""
    if not d.is_floating_point and isinstance(alpha, float):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating "
            "point number."
        )
    if isinstance(alpha, bool) and d is not dtypes.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    checked_fill(alpha, d)  # alpha must fit the result's dtype


def _scaled(b: Operand, alpha: Any, d: dtype) -> Operand:
    """``alpha * b`` computed in the result's dtype ``d``, as PyTorch does."""
    if isinstance(b, Tensor):
        return binary(operator.mul, b, alpha, d)
    return b * alpha


def _no_loop(kernel: str, d: dtype, *operands: Operand) -> NotImplementedError:
    """:func:`_not_implemented`, once the operands are known to broadcast.

    PyTorch broadcasts before it looks for a loop, so a shape mismatch is
    the error a user sees first.
    """
    broadcast_shapes(*[t._shape for t in operands if isinstance(t, Tensor)])
    return _not_implemented(kernel, d)


def _zeros_like(tensor: Tensor) -> Tensor:
    """Zeros of ``tensor``'s shape and dtype: the gradient of a step function."""
    return from_values([0] * tensor.numel(), tensor._shape, tensor.dtype)


def _not_implemented(kernel: str, d: dtype) -> NotImplementedError:
    """PyTorch's error for a dtype that an operation has no loop for."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{d.c_name}'")


# ----------------------------------------------------------------------
# Arithmetic
# ----------------------------------------------------------------------


class Add(Function):
    r"""``a + alpha * b``.

    Derivatives: d/da = 1, d/db = alpha.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, a: Operand, b: Operand, alpha: Any = 1) -> Tensor:
        ctx.alpha = alpha
        d = result_type(a, b)
        _check_alpha(alpha, d)
        if alpha != 1:
            b = _scaled(b, alpha, d)
        if d is dtypes.bool_:
            return binary(operator.or_, a, b, d)
        return binary(operator.add, a, b, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        alpha = ctx.alpha
        return grad_output, grad_output if alpha == 1 else grad_output * alpha


class Sub(Function):
    r"""``a - alpha * b``.

    Derivatives: d/da = 1, d/db = -alpha.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, a: Operand, b: Operand, alpha: Any = 1) -> Tensor:
        ctx.alpha = alpha
        _check_bool_subtraction(a, b)
        d = result_type(a, b)
        _check_alpha(alpha, d)
        if alpha != 1:
            b = _scaled(b, alpha, d)
        return binary(operator.sub, a, b, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        return grad_output, -grad_output if ctx.alpha == 1 else grad_output * -ctx.alpha


class Rsub(Function):
    r"""``other - alpha * x`` for a Python number ``other`` (``2 - x``).

    Derivative: d/dx = -alpha.
    """

    grad_fn_name = "RsubBackward1"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, other: Any, alpha: Any = 1) -> Tensor:
        ctx.alpha = alpha
        _check_bool_subtraction(other, x)
        d = result_type(x, other)
        scaled = x if alpha == 1 else mul(x, alpha)
        return binary(operator.sub, other, scaled, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return -grad_output if ctx.alpha == 1 else grad_output * -ctx.alpha


class Mul(Function):
    """``a * b``, elementwise: d/da = b and d/db = a.

    So the gradient of ``a`` is ``grad_output * b``, and of ``b`` it is
    ``grad_output * a``.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, a: Operand, b: Operand) -> Tensor:
        ctx.save_for_backward(
            a if isinstance(a, Tensor) and ctx.needs_input_grad[1] else None,
            b if isinstance(b, Tensor) and ctx.needs_input_grad[0] else None,
        )
        # Python numbers are kept as they are; tensors only through saving.
        ctx.scalars = tuple(None if isinstance(v, Tensor) else v for v in (a, b))
        ctx.squares = a is b
        d = result_type(a, b)
        if d is dtypes.bool_:
            return binary(operator.and_, a, b, d)
        return binary(operator.mul, a, b, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        a, b = ctx.saved_tensors
        scalar_a, scalar_b = ctx.scalars
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = grad_output * (b if b is not None else scalar_b)
        if ctx.needs_input_grad[1]:
            if ctx.squares and grad_a is not None:
                grad_b = grad_a  # x * x: both gradients are grad_output * x
            else:
                grad_b = grad_output * (a if a is not None else scalar_a)
        return grad_a, grad_b


class Div(Function):
    r"""``a / b`` (true division: integers give a float result).

    Derivatives: d/da = 1 / b, d/db = -a / b**2.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, a: Operand, b: Operand) -> Tensor:
        ctx.save_for_backward(
            a if isinstance(a, Tensor) and ctx.needs_input_grad[1] else None,
            b if isinstance(b, Tensor) else None,
        )
        ctx.scalar_b = b
        d = _float_type(result_type(a, b))
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


def _power(base: Operand, exponent: Operand, d: dtype) -> Tensor:
    """The values of ``base ** exponent`` in dtype ``d`` (no graph).

    ``x ** 0.5`` and ``x ** -0.5`` are square roots, as in PyTorch (so that
    ``(-inf) ** 0.5`` is ``nan``, where C's ``pow`` would say ``inf``).
    """
    if (
        isinstance(base, Tensor)
        and not isinstance(exponent, Tensor)
        and d.is_floating_point
    ):
        if exponent == 0.5:
            return unary(ieee_sqrt, base, d)
        if exponent == -0.5:
            return unary(_rsqrt_scalar, base, d)
    if d.is_floating_point:
        return binary(math.pow, base, exponent, d, careful=ieee_pow)
    if d is dtypes.bool_:  # bool ** bool-number: computed as integers
        return binary(_integer_power, base, exponent, dtypes.int64, dtypes.bool_)
    return binary(_integer_power, base, exponent, d)


class PowScalar(Function):
    r"""``x ** exponent`` for a Python number ``exponent``.

    Derivative: d/dx = exponent * x**(exponent - 1).
    """

    grad_fn_name = "PowBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, exponent: Any) -> Tensor:
        ctx.save_for_backward(x)
        ctx.exponent = exponent
        d = result_type(x, exponent)
        if not d.is_floating_point and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return _power(x, exponent, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        exponent = ctx.exponent
        if exponent == 0:
            return _zeros_like(grad_output)
        return grad_output * exponent * x ** (exponent - 1)


class PowTensor(Function):
    r"""``base ** exponent`` for two tensors.

    Derivatives, for base b and exponent e: d/db = e * b**(e - 1),
    d/de = b**e * log(b).
    """

    grad_fn_name = "PowBackward1"

    @staticmethod
    def forward(ctx: FunctionCtx, base: Tensor, exponent: Tensor) -> Tensor:
        d = result_type(base, exponent)
        if d is dtypes.bool_:
            raise _no_loop("pow", d, base, exponent)
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
            flat = (base == 0) & (exponent >= 0)
            grad_exponent = grad_output * where(flat, 0.0, result * log(base))
        return grad_base, grad_exponent


class RPowScalar(Function):
    r"""``base ** x`` for a Python number ``base`` (``2 ** x``).

    Derivative: d/dx = base**x * log(base).
    """

    grad_fn_name = "PowBackward2"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, base: Any) -> Tensor:
        d = result_type(base, x)
        if d is dtypes.bool_:
            raise _not_implemented("pow", d)
        result = _power(base, x, d)
        ctx.save_for_backward(x if base == 0 else None, result)
        ctx.base = base
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        x, result = ctx.saved_tensors
        if ctx.base == 0:  # 0 ** x is flat for x >= 0; below, log(0) = -inf
            return grad_output * where(x >= 0, 0.0, result * -math.inf)
        return grad_output * result * ieee_log(ctx.base)


class Abs(Function):
    """``|x|``. Derivative: sign(x) (0 at 0)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        if x.dtype is dtypes.bool_:
            raise _not_implemented("abs_cpu", x.dtype)
        ctx.save_for_backward(x)
        return unary(operator.abs, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * sign(x)


class Exp(Function):
    """``e ** x``. Its derivative is ``e ** x`` again: the output itself."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(math.exp, x, _float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * result


class Log(Function):
    """Natural logarithm. Derivative: 1 / x."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(math.log, x, _float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output / x


class Sqrt(Function):
    """Square root. Derivative: 1 / (2 * sqrt(x))."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(math.sqrt, x, _float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output / (result * 2)


class Sin(Function):
    """Sine. Derivative: cos(x)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(math.sin, x, _float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * cos(x)


class Cos(Function):
    """Cosine. Derivative: -sin(x)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(math.cos, x, _float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * -sin(x)


class Tanh(Function):
    """Hyperbolic tangent. Derivative: 1 - tanh(x)**2."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(math.tanh, x, _float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * (1 - result * result)


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

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(_sigmoid_scalar, x, _float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * result * (1 - result)


def _relu_scalar(x: Any) -> Any:
    """``x`` if it is not below 0 (``-0.0`` and ``nan`` stay), else 0."""
    return x if x >= 0 or math.isnan(x) else 0


class Relu(Function):
    """``max(x, 0)``. Derivative: 1 where ``x > 0``, else 0."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        if x.dtype is dtypes.bool_:
            raise RuntimeError("Boolean inputs not supported for relu")
        result = unary(_relu_scalar, x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        # Select, not multiply: 0 * inf would be nan. A nan input passes.
        return where(result <= 0, 0.0, grad_output)


class Reciprocal(Function):
    """``1 / x``. Derivative: -1 / x**2."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = binary(
            operator.truediv, 1.0, x, _float_type(x.dtype), careful=ieee_div
        )
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * -(result * result)


def _rsqrt_scalar(x: float) -> float:
    """``1 / sqrt(x)``: ``inf`` at 0, ``-inf`` at ``-0.0``, ``nan`` below 0."""
    return ieee_div(1.0, ieee_sqrt(x))


class Rsqrt(Function):
    """``1 / sqrt(x)``. Derivative: -0.5 * x**(-1.5)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(_rsqrt_scalar, x, _float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * (result * result * result) * -0.5


# ----------------------------------------------------------------------
# Clamping, maximum, minimum, where
# ----------------------------------------------------------------------


def _raise_to(low: Any, value: Any) -> Any:
    """``value``, or ``low`` if it is below it (a ``nan`` on either side wins)."""
    return value if value >= low or value != value else low


def _lower_to(high: Any, value: Any) -> Any:
    """``value``, or ``high`` if it is above it (a ``nan`` on either side wins)."""
    return value if value <= high or value != value else high


def _clamp_values(
    x: Tensor, low: Operand | None, high: Operand | None, d: dtype
) -> Tensor:
    """The values of ``clamp`` (no graph): first raised to ``low``, then lowered
    to ``high``, so that ``high`` wins where ``low > high``, as in PyTorch."""
    result = x
    if low is not None:
        result = binary(_raise_to, low, result, d)
    if high is not None:
        result = binary(_lower_to, high, result, d)
    return result if result is not x else from_values(x._values(), x._shape, d)


class Clamp(Function):
    r"""Limits ``x`` to ``[min, max]`` (Python numbers; either may be None).

    Derivative: d/dx = 1 where min <= x <= max, else 0.
    """

    grad_fn_name = "ClampBackward1"

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, min: Any = None, max: Any = None
    ) -> Tensor:
        ctx.save_for_backward(x)
        ctx.bounds = (min, max)
        d = result_type(x, *(b for b in (min, max) if b is not None))
        if d is dtypes.bool_:
            kernel = "clamp_scalar_cpu"
            if max is None:
                kernel = "clamp_min_scalar_cpu"
            elif min is None:
                kernel = "clamp_max_scalar_cpu"
            raise _not_implemented(kernel, d)
        for bound in (min, max):
            if bound is not None:
                checked_fill(bound, d)
        return _clamp_values(x, min, max, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        low, high = ctx.bounds
        return where(_inside(x, low, high), grad_output, 0.0)


def _inside(x: Tensor, low: Operand | None, high: Operand | None) -> Tensor:
    """True where ``low <= x <= high`` (a missing bound is no limit)."""
    inside = ~isnan(x)
    if low is not None:
        inside = inside & (x >= low)
    if high is not None:
        inside = inside & (x <= high)
    return inside


class ClampMin(Clamp):
    """``clamp(x, min=min)`` as its own operation (``ClampMinBackward0``)."""


class ClampMax(Clamp):
    """``clamp(x, max=max)`` as its own operation (``ClampMaxBackward0``)."""


class ClampTensor(Function):
    r"""Limits ``x`` to ``[min, max]`` given as tensors (broadcasting).

    The gradient goes to ``x`` where it is inside the bounds, and to the
    bound that replaced it elsewhere.
    """

    grad_fn_name = "ClampBackward0"

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, min: Tensor | None, max: Tensor | None
    ) -> Tensor:
        ctx.save_for_backward(x, min, max)
        d = result_type(x, *(b for b in (min, max) if b is not None))
        return _clamp_values(x, min, max, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        x, low, high = ctx.saved_tensors
        grad_x = where(_inside(x, low, high), grad_output, 0.0)
        grad_low = grad_high = None
        raised = x if low is None else maximum(x, low)
        if low is not None and ctx.needs_input_grad[1]:
            below = x < low
            if high is not None:
                below = below & (low <= high)
            grad_low = where(below, grad_output, 0.0)
        if high is not None and ctx.needs_input_grad[2]:
            grad_high = where(raised > high, grad_output, 0.0)
        return grad_x, grad_low, grad_high


class Maximum(Function):
    r"""Elementwise larger of ``a`` and ``b``.

    The gradient goes to the larger input; where they are equal it is split
    in half between them.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return binary(_nan_max, a, b, result_type(a, b))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        return _split_gradient(grad_output, a, b, a < b, a > b)


class Minimum(Function):
    r"""Elementwise smaller of ``a`` and ``b``; the gradient as for maximum."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return binary(_nan_min, a, b, result_type(a, b))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        return _split_gradient(grad_output, a, b, a > b, a < b)


def _split_gradient(
    grad_output: Tensor, a: Tensor, b: Tensor, a_loses: Tensor, b_loses: Tensor
) -> tuple[Tensor, Tensor]:
    """The gradient of maximum or minimum: halved at ties, 0 for the loser.

    A comparison with ``nan`` is false both ways, so both inputs receive the
    whole gradient there, as in PyTorch.
    """
    shared = where(a == b, grad_output / 2, grad_output)
    return where(a_loses, 0.0, shared), where(b_loses, 0.0, shared)


def _nan_max(a: Any, b: Any) -> Any:
    if math.isnan(a):
        return a
    if math.isnan(b):
        return b
    return max(a, b)


def _nan_min(a: Any, b: Any) -> Any:
    if math.isnan(a):
        return a
    if math.isnan(b):
        return b
    return min(a, b)


class Where(Function):
    r"""``x`` where ``condition`` is true, else ``other``.

    The gradient goes to ``x`` where the condition holds and to ``other``
    where it does not.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Operand, other: Operand, *, condition: Tensor
    ) -> Tensor:
        ctx.save_for_backward(condition)
        d = result_type(x, other)
        for operand in (x, other):
            if not isinstance(operand, Tensor):
                checked_fill(operand, d)
        return _select(condition, x, other, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        (condition,) = ctx.saved_tensors
        grad_x = where(condition, grad_output, 0.0) if ctx.needs_input_grad[0] else None
        grad_other = (
            where(condition, 0.0, grad_output) if ctx.needs_input_grad[1] else None
        )
        return grad_x, grad_other


def _select(condition: Tensor, x: Operand, other: Operand, d: dtype) -> Tensor:
    """The values of ``where`` (no graph): three-way broadcasting."""
    from slowtorch_lib._kernels import broadcast_values, cast_scalar, cast_values
    from slowtorch_lib._strides import broadcast_shapes

    shapes = [t._shape for t in (condition, x, other) if isinstance(t, Tensor)]
    shape = broadcast_shapes(*shapes)

    def values(operand: Operand) -> list[Any]:
        if isinstance(operand, Tensor):
            return cast_values(broadcast_values(operand, shape), operand.dtype, d)
        return [cast_scalar(operand, d)] * len(mask)

    mask = broadcast_values(condition, shape)
    chosen = [a if m else b for m, a, b in zip(mask, values(x), values(other))]
    return from_values(chosen, shape, d)


# ----------------------------------------------------------------------
# Copies and casts
# ----------------------------------------------------------------------


class Clone(Function):
    """A copy with its own storage. The gradient passes through unchanged."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        return contiguous_copy(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output


class ToCopy(Function):
    """A copy in another dtype. The gradient is cast back by the engine."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dtype: dtype) -> Tensor:
        from slowtorch_lib._kernels import cast_values

        return from_values(cast_values(x._values(), x.dtype, dtype), x._shape, dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output


class MaskedFill(Function):
    """``x`` with ``value`` where ``mask`` is true; no gradient flows there."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, mask: Tensor, value: Any) -> Tensor:
        if mask.dtype is not dtypes.bool_:
            raise RuntimeError(
                f"masked_fill_ only supports boolean masks, but got mask with dtype "
                f"{mask.dtype.name}"
            )
        checked_fill(value, x.dtype)
        ctx.save_for_backward(mask)
        # The mask may broadcast ``x`` to a larger shape (out of place only).
        return _select(mask, value, x, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (mask,) = ctx.saved_tensors
        return where(mask, 0.0, grad_output)


class Fill(Function):
    """Every element set to one value; no gradient flows to the old values."""

    grad_fn_name = "FillBackward2"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, value: Any) -> Tensor:
        from slowtorch_lib._kernels import cast_scalar

        checked_fill(value, x.dtype)
        return from_values([cast_scalar(value, x.dtype)] * x.numel(), x._shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return _zeros_like(grad_output)


class Copy(Function):
    """``target.copy_(source)``: the target's old values get no gradient."""

    grad_fn_name = "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx: FunctionCtx, target: Tensor, source: Tensor) -> Tensor:
        from slowtorch_lib._kernels import broadcast_values, cast_values
        from slowtorch_lib._strides import broadcast_shapes

        shape = broadcast_shapes(target._shape, source._shape)
        if shape != target._shape:
            raise RuntimeError(
                f"output with shape {list(target._shape)} doesn't match the "
                f"broadcast shape {list(shape)}"
            )
        values = cast_values(
            broadcast_values(source, shape), source.dtype, target.dtype
        )
        return from_values(values, shape, target.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        return _zeros_like(grad_output), grad_output


# ----------------------------------------------------------------------
# Public functions
# ----------------------------------------------------------------------


def add(input: Operand, other: Operand, *, alpha: Any = 1) -> Tensor:
    """``input + alpha * other``, broadcasting."""
    return Add.apply(input, other, alpha=alpha)


def sub(input: Operand, other: Operand, *, alpha: Any = 1) -> Tensor:
    """``input - alpha * other``, broadcasting."""
    return Sub.apply(input, other, alpha=alpha)


subtract = sub


def rsub(input: Tensor, other: Operand, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input`` (what ``2 - x`` calls)."""
    if isinstance(other, Tensor):
        return Sub.apply(other, input, alpha=alpha)
    return Rsub.apply(input, other=other, alpha=alpha)


def mul(input: Operand, other: Operand) -> Tensor:
    """``input * other``, broadcasting."""
    return Mul.apply(input, other)


multiply = mul


class DivWithMode(Div):
    """True division called with ``rounding_mode=None`` given.

    PyTorch records it as another overload of ``div`` (the one that takes a
    rounding mode), so its node is ``DivBackward2``, not ``DivBackward0``.
    """

    grad_fn_name = "DivBackward2"


# The default of ``rounding_mode``: not given (``None`` given is another overload).
NOT_GIVEN: Any = object()


def div(
    input: Operand, other: Operand, *, rounding_mode: str | None = NOT_GIVEN
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
    if rounding_mode in ("floor", "trunc"):
        return RoundedDiv.apply(input, other, rounding_mode=rounding_mode)
    raise RuntimeError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
        f"found '{rounding_mode}'"
    )


def true_divide(input: Operand, other: Operand) -> Tensor:
    """``input / other``: :func:`div` without a rounding mode."""
    return Div.apply(input, other)


divide = div


def _trunc_scalar(v: float) -> float:
    """``v`` rounded toward zero, keeping its sign (``-0.5`` gives ``-0.0``)."""
    return math.copysign(math.trunc(v), v) if math.isfinite(v) else v


def _trunc_quotient(a: Operand, b: Operand) -> Tensor:
    """The values of ``a / b`` rounded toward zero, in the promoted dtype."""
    d = result_type(a, b)
    if d is dtypes.bool_:
        raise _no_loop("div_trunc_cpu", d, a, b)
    if not d.is_floating_point:
        return binary(_trunc_div_scalar, a, b, d)
    quotient = binary(ieee_div, a, b, d)
    return unary(_trunc_scalar, quotient)


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
        ctx: FunctionCtx, a: Operand, b: Operand, *, rounding_mode: str
    ) -> Tensor:
        if rounding_mode == "floor":
            return _floor_quotient(a, b)
        return _trunc_quotient(a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        zero = _zeros_like(grad_output)
        return zero, zero


def _floor_div_scalar(a: Any, b: Any) -> Any:
    """``a // b`` rounding down; Python's ``//`` already matches PyTorch,
    except at a zero divisor."""
    try:
        return a // b
    except ZeroDivisionError:
        if isinstance(a, int) and isinstance(b, int):
            raise RuntimeError("ZeroDivisionError") from None  # noqa: TRY004  (as torch)
        return ieee_div(a, b)


def _floor_quotient(input: Operand, other: Operand) -> Tensor:
    """The values of ``input // other`` (no graph)."""
    d = result_type(input, other)
    if d is dtypes.bool_:
        raise _no_loop("div_floor_cpu", d, input, other)
    return binary(_floor_div_scalar, input, other, d)


class NoDerivative(Function):
    """An operation PyTorch records but cannot differentiate.

    Its output requires grad, so that the graph stays honest, but calling
    backward through it raises, as in PyTorch (whose node is named
    ``NotImplemented``). ``aten_name`` names the operation in the message.
    """

    grad_fn_name = "torch::autograd::NotImplemented"
    aten_name = ""

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Any:
        name = ctx._function.aten_name  # type: ignore[attr-defined]
        raise RuntimeError(f"derivative for aten::{name} is not implemented")


class FloorDivide(NoDerivative):
    """``a // b`` rounding down: no derivative in PyTorch."""

    grad_fn_name = "torch::autograd::NotImplemented"
    aten_name = "floor_divide"

    @staticmethod
    def forward(ctx: FunctionCtx, a: Operand, b: Operand) -> Tensor:
        return _floor_quotient(a, b)


class FloorDivideInPlace(FloorDivide):
    """``a //= b``: backward's error names ``floor_divide_``, as PyTorch's."""

    grad_fn_name = "torch::autograd::NotImplemented"
    aten_name = "floor_divide_"


def floor_divide(input: Operand, other: Operand) -> Tensor:
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


def _remainder_values(a: Operand, b: Operand) -> Tensor:
    """The values of ``a % b`` (no graph)."""
    d = result_type(a, b)
    if d is dtypes.bool_:
        raise _no_loop("remainder_cpu", d, a, b)
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


def remainder(input: Operand, other: Operand) -> Tensor:
    """``input % other`` with the sign of ``other``, as Python's ``%``."""
    if not isinstance(other, Tensor):
        assert isinstance(input, Tensor)
        return RemainderScalar.apply(input, other=other)
    if not isinstance(input, Tensor):
        return RemainderOfScalar.apply(other, number=input)
    return Remainder.apply(input, other)


def pow(input: Operand, exponent: Operand) -> Tensor:
    """``input ** exponent``; either side may be a Python number."""
    if isinstance(input, Tensor) and isinstance(exponent, Tensor):
        return PowTensor.apply(input, exponent)
    if isinstance(input, Tensor):
        return PowScalar.apply(input, exponent=exponent)
    assert isinstance(exponent, Tensor)
    return RPowScalar.apply(exponent, base=input)


def neg(input: Tensor) -> Tensor:
    """``-input``."""
    return Neg.apply(input)


negative = neg


def abs(input: Tensor) -> Tensor:
    """``|input|``."""
    return Abs.apply(input)


class Sign(Function):
    """-1, 0 or 1 by the sign of each element (0 for ``nan``, as in PyTorch).

    A step function: its gradient is 0 everywhere.
    """

    grad_fn_name = "SignBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        if x.dtype is dtypes.bool_:
            return contiguous_copy(x)
        return unary(_sign_scalar, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return _zeros_like(grad_output)


def sign(input: Tensor) -> Tensor:
    """-1, 0 or 1 by the sign of each element."""
    return Sign.apply(input)


def _sign_scalar(v: Any) -> Any:
    return (v > 0) - (v < 0)


def isnan(input: Tensor) -> Tensor:
    """True where an element is ``nan`` (never, for integers and bools)."""
    return unary(math.isnan, input, dtypes.bool_)


def exp(input: Tensor) -> Tensor:
    """``e ** input``."""
    return Exp.apply(input)


def log(input: Tensor) -> Tensor:
    """The natural logarithm."""
    return Log.apply(input)


def sqrt(input: Tensor) -> Tensor:
    """The square root."""
    return Sqrt.apply(input)


def sin(input: Tensor) -> Tensor:
    """The sine."""
    return Sin.apply(input)


def cos(input: Tensor) -> Tensor:
    """The cosine."""
    return Cos.apply(input)


def tanh(input: Tensor) -> Tensor:
    """The hyperbolic tangent."""
    return Tanh.apply(input)


def sigmoid(input: Tensor) -> Tensor:
    """The logistic function ``1 / (1 + e^-input)``."""
    return Sigmoid.apply(input)


def relu(input: Tensor) -> Tensor:
    """``max(input, 0)``."""
    return Relu.apply(input)


def reciprocal(input: Tensor) -> Tensor:
    """``1 / input``."""
    return Reciprocal.apply(input)


def rsqrt(input: Tensor) -> Tensor:
    """``1 / sqrt(input)``."""
    return Rsqrt.apply(input)


def square(input: Tensor) -> Tensor:
    """``input ** 2`` (recorded as ``PowBackward0``, as in PyTorch)."""
    return PowScalar.apply(input, exponent=2)


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Limits every element to ``[min, max]``; the bounds may be numbers or tensors.

    Raises:
        RuntimeError: If both bounds are None.
    """
    if min is None and max is None:
        raise RuntimeError(
            "torch.clamp: At least one of 'min' or 'max' must not be None"
        )
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return ClampTensor.apply(input, _as_tensor(min), _as_tensor(max))
    return Clamp.apply(input, min=min, max=max)


def _as_tensor(value: Operand | None) -> Tensor | None:
    """A Python number as a 0-d tensor of its own dtype (None stays None)."""
    if value is None or isinstance(value, Tensor):
        return value
    return from_values([value], (), dtypes.scalar_dtype(value))


clip = clamp


def clamp_min(input: Tensor, min: Any) -> Tensor:
    """Limits every element to at least ``min``."""
    return ClampMin.apply(input, min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    """Limits every element to at most ``max``."""
    return ClampMax.apply(input, max=max)


def _check_tensor(name: str, other: Any) -> None:
    if not isinstance(other, Tensor):
        raise TypeError(
            f"{name}(): argument 'other' (position 2) must be Tensor, not "
            f"{type(other).__name__}"
        )


def maximum(input: Tensor, other: Tensor) -> Tensor:
    """The elementwise maximum of two tensors (nan wins)."""
    _check_tensor("maximum", other)
    return Maximum.apply(input, other)


def minimum(input: Tensor, other: Tensor) -> Tensor:
    """The elementwise minimum of two tensors (nan wins)."""
    _check_tensor("minimum", other)
    return Minimum.apply(input, other)


def where(condition: Tensor, input: Operand, other: Operand) -> Tensor:
    """``input`` where ``condition`` is true, else ``other``, broadcasting all three.

    Raises:
        TypeError: If ``condition`` is not a tensor.
        RuntimeError: If it is not a bool tensor, or a number does not fit
            the result's dtype.
    """
    if not isinstance(condition, Tensor):
        raise TypeError(
            f"where(): argument 'condition' (position 1) must be Tensor, not "
            f"{type(condition).__name__}"
        )
    if condition.dtype is not dtypes.bool_:
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with "
            f"dtype {condition.dtype.c_name}"
        )
    return Where.apply(input, other, condition=condition)


def check_mask(name: str, mask: Any) -> None:
    """Refuses a mask that is not a tensor (``x.masked_fill(True, 0)``).

    Raises:
        TypeError: As PyTorch's argument parser does.
    """
    if not isinstance(mask, Tensor):
        raise TypeError(
            f"{name}(): argument 'mask' (position 1) must be Tensor, not "
            f"{type(mask).__name__}"
        )


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``input`` with ``value`` wherever ``mask`` is true."""
    check_mask("masked_fill", mask)
    if isinstance(value, Tensor):
        value = value.item()
    return MaskedFill.apply(input, mask=mask, value=value)


class Zero(Fill):
    """Every element set to 0 (``zero_``); PyTorch's ``ZeroBackward0``."""


def filled(input: Tensor, value: Any) -> Tensor:
    """A tensor like ``input`` with every element ``value`` (for ``fill_``).

    ``value`` may be a number or a 0-d tensor, which then receives the
    gradient of every element.

    Raises:
        RuntimeError: If ``value`` is a tensor with dimensions.
    """
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.dim()} dimensions."
            )
        from slowtorch_lib.ops.indexing import fill_with_tensor

        return fill_with_tensor(input, value)
    return Fill.apply(input, value=value)


def zeroed(input: Tensor) -> Tensor:
    """A tensor like ``input`` of zeros (for ``zero_``)."""
    return Zero.apply(input, value=0)


def copy_into(target: Tensor, source: Tensor | int | float | bool) -> Tensor:
    """``source`` broadcast to ``target``'s shape and dtype (for ``copy_``).

    A Python number is accepted too, as a 0-d source.
    """
    return Copy.apply(target, _as_tensor(source))


def clone(input: Tensor) -> Tensor:
    """A copy of ``input`` with its own storage."""
    return Clone.apply(input)


def to_dtype(input: Tensor, dtype: dtype) -> Tensor:
    """A copy of ``input`` converted to ``dtype``."""
    return ToCopy.apply(input, dtype=dtype)


def _comparison(function: Any) -> Any:
    def compare(input: Operand, other: Operand) -> Tensor:
        return binary(function, input, other, result_type(input, other), dtypes.bool_)

    compare.__name__ = function.__name__
    compare.__doc__ = f"Elementwise ``{function.__name__}``, giving a bool tensor."
    return compare


eq = _comparison(operator.eq)
ne = _comparison(operator.ne)
lt = _comparison(operator.lt)
le = _comparison(operator.le)
gt = _comparison(operator.gt)
ge = _comparison(operator.ge)
greater = gt
less = lt


def logical_not(input: Tensor) -> Tensor:
    """True where ``input`` is zero (``~mask`` for a bool tensor)."""
    return unary(operator.not_, input, dtypes.bool_)


def logical_and(input: Tensor, other: Tensor) -> Tensor:
    """True where both are non-zero."""
    _check_tensor("logical_and", other)
    return binary(
        lambda a, b: bool(a) and bool(b),
        input,
        other,
        result_type(input, other),
        dtypes.bool_,
    )


def logical_or(input: Tensor, other: Tensor) -> Tensor:
    """True where either is non-zero."""
    _check_tensor("logical_or", other)
    return binary(
        lambda a, b: bool(a) or bool(b),
        input,
        other,
        result_type(input, other),
        dtypes.bool_,
    )


def logical_xor(input: Tensor, other: Tensor) -> Tensor:
    """True where exactly one is non-zero."""
    _check_tensor("logical_xor", other)
    return binary(
        lambda a, b: bool(a) != bool(b),
        input,
        other,
        result_type(input, other),
        dtypes.bool_,
    )


def check_inplace_result(target: Tensor, other: Operand) -> None:
    """Checks, before computing, that ``target op= other`` can be stored.

    PyTorch checks the result's shape and dtype before it looks for a loop,
    so an integer ``t &= 0.5`` is a casting error, not a missing kernel.
    Autograd's checks (:func:`check_inplace`) come before both.

    Raises:
        RuntimeError: If the result would not fit ``target``, or autograd
            refuses the change.
    """
    check_inplace(target, False, isinstance(other, Tensor) and other.requires_grad)
    if isinstance(other, Tensor):
        shape = broadcast_shapes(target._shape, other._shape)
        if shape != target._shape:
            raise RuntimeError(
                f"output with shape {list(target._shape)} doesn't match the "
                f"broadcast shape {list(shape)}"
            )
    d = result_type(target, other)
    if not dtypes.can_cast(d, target.dtype):
        raise RuntimeError(
            f"result type {d.c_name} can't be cast to the desired "
            f"output type {target.dtype.c_name}"
        )


def _bitwise(kernel: str, function: Any, input: Operand, other: Operand) -> Tensor:
    """A bitwise operation: on the bits of integers, logical on bools."""
    d = result_type(input, other)
    if d.is_floating_point:
        raise _no_loop(kernel, d, input, other)
    return binary(function, input, other, d)


def bitwise_and(input: Operand, other: Operand) -> Tensor:
    """``input & other``: bitwise AND of integers, logical AND of bools."""
    return _bitwise("bitwise_and_cpu", operator.and_, input, other)


def bitwise_or(input: Operand, other: Operand) -> Tensor:
    """``input | other``: bitwise OR of integers, logical OR of bools."""
    return _bitwise("bitwise_or_cpu", operator.or_, input, other)


def bitwise_xor(input: Operand, other: Operand) -> Tensor:
    """``input ^ other``: bitwise XOR of integers, logical XOR of bools."""
    return _bitwise("bitwise_xor_cpu", operator.xor, input, other)


def _shift(kernel: str, function: Any, input: Operand, other: Operand) -> Tensor:
    """A shift of the bits of integers (bools and floats have no kernel)."""
    d = result_type(input, other)
    if d is not dtypes.int64:
        raise _no_loop(kernel, d, input, other)
    return binary(function, input, other, d)


def _shift_left_scalar(a: int, b: int) -> int:
    """``a << b`` in int64: bits pushed past the top are lost, and a shift
    by a negative amount or by 64 or more gives 0, as in PyTorch."""
    return wrap_int64(a << b) if 0 <= b < 64 else 0


def _shift_right_scalar(a: int, b: int) -> int:
    """``a >> b`` in int64, keeping the sign: a shift by a negative amount or
    by 64 or more gives 0, or -1 for a negative ``a``."""
    return a >> (b if 0 <= b < 64 else 63)


def bitwise_left_shift(input: Operand, other: Operand) -> Tensor:
    """``input << other``: the bits of integers moved left (times 2**other)."""
    return _shift("lshift_cpu", _shift_left_scalar, input, other)


def bitwise_right_shift(input: Operand, other: Operand) -> Tensor:
    """``input >> other``: the bits of integers moved right, rounding down."""
    return _shift("rshift_cpu", _shift_right_scalar, input, other)


def bitwise_not(input: Tensor) -> Tensor:
    """Flips every bit of an integer (``~5 == -6``); logical NOT of a bool."""
    if input.dtype.is_floating_point:
        raise _not_implemented("bitwise_not_cpu", input.dtype)
    if input.dtype is dtypes.bool_:
        return unary(operator.not_, input)
    return unary(operator.invert, input)


def invert(input: Tensor) -> Tensor:
    """The ``~`` operator: :func:`bitwise_not`, refused for floats."""
    if input.dtype.is_floating_point:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type "
            "tensors"
        )
    return bitwise_not(input)


# ----------------------------------------------------------------------
# Rounding, special values and log1p (added for issue 6: missing API)
# ----------------------------------------------------------------------

import builtins as _builtins  # noqa: E402  (``round`` and ``abs`` are ops here)
from itertools import compress, repeat  # noqa: E402

from slowtorch_lib._kernels import cast_scalar, cast_values  # noqa: E402

__all__ += [
    "ceil",
    "divide",
    "fix",
    "floor",
    "isfinite",
    "isinf",
    "log1p",
    "multiply",
    "nan_to_num",
    "round",
    "subtract",
    "trunc",
]

# The largest finite value of each floating dtype (nan_to_num's defaults).
_LARGEST = {"float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}


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

    grad_fn_name = "FloorBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        return _round_values("floor", math.floor, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return _zeros_like(grad_output)


class Ceil(Floor):
    """Rounds up. The derivative is 0."""

    grad_fn_name = "CeilBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        return _round_values("ceil", math.ceil, x)


class Trunc(Floor):
    """Rounds toward zero. The derivative is 0."""

    grad_fn_name = "TruncBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        return _round_values("trunc", math.trunc, x)


class Round(Floor):
    """Rounds to the nearest integer, halves to even. The derivative is 0."""

    grad_fn_name = "RoundBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        return _round_values("round", _builtins.round, x)


class RoundDecimals(Function):
    """Rounds to ``decimals`` decimal places. The derivative is 0."""

    grad_fn_name = "RoundBackward1"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, decimals: int) -> Tensor:
        if not x.dtype.is_floating_point:
            raise _not_implemented("round_cpu", x.dtype)
        return _round_decimals(x, decimals)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return _zeros_like(grad_output)


def _round_values(name: str, function: Any, x: Tensor) -> Tensor:
    """Rounds every element; integers are already whole and are copied."""
    if x.dtype is dtypes.bool_:
        raise _not_implemented(f"{name}_vml_cpu", x.dtype)
    if not x.dtype.is_floating_point:
        return contiguous_copy(x)
    return from_values(_whole(function, x._values()), x._shape, x.dtype)


def _round_decimals(x: Tensor, decimals: int) -> Tensor:
    """``round(x * 10**d) / 10**d``, or ``round(x / 10**-d) * 10**-d`` for d < 0.

    Each step is rounded to ``x``'s dtype, as PyTorch computes it in that
    dtype: for float32, ``10**d`` and the product are float32 numbers (so
    ``10**39`` is already ``inf``, and every result ``nan``).
    """
    power = _builtins.abs(decimals)
    ten_power = 10.0**power if power <= 308 else math.inf
    scale = repeat(cast_scalar(ten_power, x.dtype))  # inf beyond float32's range
    into, back = (operator.mul, operator.truediv)
    if decimals < 0:
        into, back = back, into
    scaled = cast_values(list(map(into, x._values(), scale)), dtypes.float64, x.dtype)
    whole = _whole(_builtins.round, scaled)
    return from_values(list(map(back, whole, scale)), x._shape, x.dtype)


class Log1p(Function):
    """``log(1 + x)``, accurate for small ``x``. The derivative is ``1 / (1 + x)``."""

    grad_fn_name = "Log1PBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(_log1p_scalar, x, _float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output / (x + 1)


def _log1p_scalar(value: float) -> float:
    """``math.log1p`` with IEEE results: ``-inf`` at -1, ``nan`` below it."""
    if value > -1:
        return math.log1p(value)
    return -math.inf if value == -1 else math.nan


class NanToNum(Function):
    """``nan``, ``inf`` and ``-inf`` replaced by finite numbers.

    The derivative is 1 where ``x`` is finite and 0 where it was replaced.
    """

    grad_fn_name = "NanToNumBackward0"

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
        largest = _LARGEST[x.dtype.name]
        high = largest if posinf is None else posinf
        low = -largest if neginf is None else neginf

        def replace(value: float) -> float:
            if value - value == 0:  # finite
                return value
            if value != value:
                return nan
            return high if value > 0 else low

        return unary(replace, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return where(isfinite(x), grad_output, 0.0)


def floor(input: Tensor) -> Tensor:
    """The largest integer not above each element (integers are kept)."""
    return Floor.apply(input)


def ceil(input: Tensor) -> Tensor:
    """The smallest integer not below each element."""
    return Ceil.apply(input)


def trunc(input: Tensor) -> Tensor:
    """Each element rounded toward zero (its integer part)."""
    return Trunc.apply(input)


fix = trunc


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


def isinf(input: Tensor) -> Tensor:
    """True where an element is ``inf`` or ``-inf``."""
    return unary(math.isinf, input, dtypes.bool_)


def isfinite(input: Tensor) -> Tensor:
    """True where an element is neither infinite nor ``nan``."""
    return unary(math.isfinite, input, dtypes.bool_)


def log1p(input: Tensor) -> Tensor:
    """``log(1 + input)``, accurate where ``input`` is tiny."""
    return Log1p.apply(input)


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


# Fused operations that optimisers use: addcmul, addcdiv, lerp
# (appended block, issue 9)
# ----------------------------------------------------------------------


def _three_way(function: Any, a: Tensor, b: Tensor, c: Operand, d: dtype) -> Tensor:
    """Applies ``function(x, y, z)`` to matching elements, broadcasting.

    ``c`` may be a Python number (a scalar ``weight`` of ``lerp``).
    """
    from itertools import repeat

    from slowtorch_lib._kernels import broadcast_values, cast_scalar, cast_values
    from slowtorch_lib._strides import broadcast_shapes

    tensors = [t for t in (a, b, c) if isinstance(t, Tensor)]
    shape = broadcast_shapes(*(t._shape for t in tensors))
    columns: list[Any] = []
    for operand in (a, b, c):
        if isinstance(operand, Tensor):
            values = broadcast_values(operand, shape)
            columns.append(cast_values(values, operand.dtype, d))
        else:
            columns.append(repeat(cast_scalar(operand, d)))
    return from_values(list(map(function, *columns)), shape, d)


class Addcmul(Function):
    r"""``input + value * tensor1 * tensor2``.

    Derivatives: 1 for ``input``, ``value * tensor2`` for ``tensor1`` and
    ``value * tensor1`` for ``tensor2``.
    """

    grad_fn_name = "AddcmulBackward0"

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any
    ) -> Tensor:
        ctx.save_for_backward(tensor1, tensor2)
        ctx.value = value
        d = result_type(x, tensor1, tensor2)
        step = cast_scalar_for(value, d)
        return _three_way(lambda a, b, c: a + step * b * c, x, tensor1, tensor2, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        tensor1, tensor2 = ctx.saved_tensors
        value = ctx.value
        return grad_output, grad_output * tensor2 * value, grad_output * tensor1 * value


class Addcdiv(Function):
    r"""``input + value * tensor1 / tensor2``.

    Derivatives: 1 for ``input``, ``value / tensor2`` for ``tensor1`` and
    ``-value * tensor1 / tensor2 ** 2`` for ``tensor2``.
    """

    grad_fn_name = "AddcdivBackward0"

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any
    ) -> Tensor:
        from slowtorch_lib._kernels import ieee_div

        if not (tensor1.dtype.is_floating_point or tensor2.dtype.is_floating_point):
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a "
                "future  release addcdiv will perform a true division of tensor1 and "
                "tensor2. The historic addcdiv behavior can be implemented as "
                "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
                "for integer inputs and as (input + value * tensor1 / tensor2) for "
                "float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes."
            )
        ctx.save_for_backward(tensor1, tensor2)
        ctx.value = value
        d = result_type(x, tensor1, tensor2)
        step = cast_scalar_for(value, d)

        def kernel(a: float, b: float, c: float) -> float:
            return a + step * ieee_div(b, c)

        return _three_way(kernel, x, tensor1, tensor2, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        tensor1, tensor2 = ctx.saved_tensors
        value = ctx.value
        grad_tensor1 = grad_output * value / tensor2
        grad_tensor2 = -grad_output * value * tensor1 / (tensor2 * tensor2)
        return grad_output, grad_tensor1, grad_tensor2


def cast_scalar_for(value: Any, d: dtype) -> Any:
    """``value`` as the computation in dtype ``d`` sees it."""
    from slowtorch_lib._kernels import cast_scalar

    return cast_scalar(value, d) if d.is_floating_point else value


def _check_lerp(start: Tensor, end: Tensor, weight: Operand) -> None:
    """``lerp`` works on floating-point tensors of one dtype only."""
    if not start.dtype.is_floating_point:
        kernel = (
            "lerp_kernel_tensor"
            if isinstance(weight, Tensor)
            else ("lerp_kernel_scalar")
        )
        raise _not_implemented(kernel, start.dtype)
    others = [("end", end)]
    if isinstance(weight, Tensor):
        others.append(("weight", weight))
    for name, other in others:
        if other.dtype is not start.dtype:
            raise RuntimeError(
                f"expected dtype {start.dtype.cpp_type_name} for `{name}` but "
                f"got dtype {other.dtype.cpp_type_name}"
            )


def _lerp_scalar(a: float, b: float, w: float) -> float:
    """``a + w * (b - a)``, computed from the nearer end as PyTorch does."""
    if -0.5 < w < 0.5:
        return a + w * (b - a)
    return b - (b - a) * (1 - w)


class LerpScalar(Function):
    r"""``start + weight * (end - start)`` for a Python-number ``weight``.

    Derivatives: ``1 - weight`` for ``start`` and ``weight`` for ``end``.
    """

    grad_fn_name = "LerpBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, start: Tensor, end: Tensor, *, weight: Any) -> Tensor:
        _check_lerp(start, end, weight)
        ctx.weight = weight
        return _three_way(_lerp_scalar, start, end, weight, start.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        weight = ctx.weight
        return grad_output * (1 - weight), grad_output * weight


class LerpTensor(Function):
    r"""``start + weight * (end - start)`` for a tensor ``weight``.

    Derivatives: ``1 - weight`` for ``start``, ``weight`` for ``end`` and
    ``end - start`` for ``weight``.
    """

    grad_fn_name = "LerpBackward1"

    @staticmethod
    def forward(ctx: FunctionCtx, start: Tensor, end: Tensor, weight: Tensor) -> Tensor:
        _check_lerp(start, end, weight)
        ctx.save_for_backward(start, end, weight)
        return _three_way(_lerp_scalar, start, end, weight, start.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, ...]:
        start, end, weight = ctx.saved_tensors
        return (
            grad_output * (1 - weight),
            grad_output * weight,
            grad_output * (end - start),
        )


def addcmul(
    input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1
) -> Tensor:
    """``input + value * tensor1 * tensor2``, broadcasting."""
    return Addcmul.apply(input, tensor1, tensor2, value=value)


def addcdiv(
    input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1
) -> Tensor:
    """``input + value * tensor1 / tensor2``, broadcasting.

    Raises:
        RuntimeError: If both ``tensor1`` and ``tensor2`` hold integers.
    """
    return Addcdiv.apply(input, tensor1, tensor2, value=value)


def lerp(input: Tensor, end: Tensor, weight: Operand) -> Tensor:
    """Linear interpolation: ``input + weight * (end - input)``.

    ``weight`` is a Python number or a tensor. Used by Adam to keep a running
    average: ``exp_avg.lerp_(grad, 1 - beta1)``.

    Raises:
        NotImplementedError: For integer tensors.
        RuntimeError: If ``end`` (or a tensor ``weight``) has another dtype.
    """
    if isinstance(weight, Tensor):
        return LerpTensor.apply(input, end, weight)
    return LerpScalar.apply(input, end, weight=weight)


__all__ += ["addcdiv", "addcmul", "lerp"]
