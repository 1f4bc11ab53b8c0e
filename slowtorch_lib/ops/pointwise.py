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

import math
import operator
from typing import Any

from slowtorch_lib import _dtype as dtypes
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
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx

__all__ = [
    "abs",
    "add",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
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


def _not_implemented(kernel: str, d: dtype) -> NotImplementedError:
    """PyTorch's error for a dtype that an operation has no loop for."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{d.c_name}\'')


# ----------------------------------------------------------------------
# Arithmetic
# ----------------------------------------------------------------------


class Add(Function):
    r"""``a + alpha * b``.

    .. math:: \frac{\partial}{\partial a} = 1, \qquad
              \frac{\partial}{\partial b} = \alpha
    """

    @staticmethod
    def forward(ctx: FunctionCtx, a: Operand, b: Operand, alpha: Any = 1) -> Tensor:
        ctx.alpha = alpha
        d = result_type(a, b)
        if alpha != 1:
            b = mul(b, alpha) if isinstance(b, Tensor) else b * alpha
        if d is dtypes.bool_:
            return binary(operator.or_, a, b, d)
        return binary(operator.add, a, b, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        alpha = ctx.alpha
        return grad_output, grad_output if alpha == 1 else grad_output * alpha


class Sub(Function):
    r"""``a - alpha * b``.

    .. math:: \frac{\partial}{\partial a} = 1, \qquad
              \frac{\partial}{\partial b} = -\alpha
    """

    @staticmethod
    def forward(ctx: FunctionCtx, a: Operand, b: Operand, alpha: Any = 1) -> Tensor:
        ctx.alpha = alpha
        _check_bool_subtraction(a, b)
        d = result_type(a, b)
        if alpha != 1:
            b = mul(b, alpha) if isinstance(b, Tensor) else b * alpha
        return binary(operator.sub, a, b, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        return grad_output, -grad_output if ctx.alpha == 1 else grad_output * -ctx.alpha


class Rsub(Function):
    r"""``other - alpha * x`` for a Python number ``other`` (``2 - x``).

    .. math:: \frac{\partial}{\partial x} = -\alpha
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

    .. math:: \frac{\partial}{\partial a} = \frac{1}{b}, \qquad
              \frac{\partial}{\partial b} = -\frac{a}{b^2}
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
            grad_b = -grad_output * a / (divisor * divisor)
        return grad_a, grad_b


class Neg(Function):
    r"""``-x``. :math:`\partial/\partial x = -1`."""

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
        return base**exponent
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
    if isinstance(base, Tensor) and not isinstance(exponent, Tensor) and d.is_floating_point:
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

    .. math:: \frac{\partial}{\partial x} = \text{exponent} \cdot x^{\text{exponent} - 1}
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
            return grad_output * 0
        return grad_output * exponent * x ** (exponent - 1)


class PowTensor(Function):
    r"""``base ** exponent`` for two tensors.

    .. math:: \frac{\partial}{\partial \text{base}} = e\,b^{e-1}, \qquad
              \frac{\partial}{\partial e} = b^{e} \ln b
    """

    grad_fn_name = "PowBackward1"

    @staticmethod
    def forward(ctx: FunctionCtx, base: Tensor, exponent: Tensor) -> Tensor:
        d = result_type(base, exponent)
        if d is dtypes.bool_:
            raise _not_implemented("pow", d)
        result = _power(base, exponent, d)
        ctx.save_for_backward(base, exponent, result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        base, exponent, result = ctx.saved_tensors
        grad_base = grad_exponent = None
        if ctx.needs_input_grad[0]:
            grad_base = grad_output * exponent * base ** (exponent - 1)
        if ctx.needs_input_grad[1]:
            # Where base == 0 and exponent >= 0 the gradient is taken as 0.
            log_base = where(base == 0, 0.0, log(base))
            grad_exponent = grad_output * result * log_base
        return grad_base, grad_exponent


class RPowScalar(Function):
    r"""``base ** x`` for a Python number ``base`` (``2 ** x``).

    .. math:: \frac{\partial}{\partial x} = \text{base}^{x} \ln(\text{base})
    """

    grad_fn_name = "PowBackward2"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, base: Any) -> Tensor:
        d = result_type(base, x)
        if d is dtypes.bool_:
            raise _not_implemented("pow", d)
        result = _power(base, x, d)
        ctx.save_for_backward(result)
        ctx.base = base
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        if ctx.base == 0:
            return grad_output * 0
        return grad_output * result * ieee_log(ctx.base)


class Abs(Function):
    r"""``|x|``. :math:`\partial/\partial x = \operatorname{sign}(x)` (0 at 0)."""

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
    r"""Natural logarithm. :math:`\partial/\partial x = 1/x`."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(math.log, x, _float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output / x


class Sqrt(Function):
    r"""Square root. :math:`\partial/\partial x = 1 / (2\sqrt{x})`."""

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
    r"""Sine. :math:`\partial/\partial x = \cos x`."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(math.sin, x, _float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * cos(x)


class Cos(Function):
    r"""Cosine. :math:`\partial/\partial x = -\sin x`."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(math.cos, x, _float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * -sin(x)


class Tanh(Function):
    r"""Hyperbolic tangent. :math:`\partial/\partial x = 1 - \tanh^2 x`."""

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

    .. math:: \frac{\partial}{\partial x} = \sigma(x)\,(1 - \sigma(x))
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
    r"""``max(x, 0)``. :math:`\partial/\partial x = 1` where ``x > 0``, else 0."""

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
        return grad_output * (result > 0)


class Reciprocal(Function):
    r"""``1 / x``. :math:`\partial/\partial x = -1/x^2`."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = binary(operator.truediv, 1.0, x, _float_type(x.dtype), careful=ieee_div)
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
    r"""``1 / sqrt(x)``. :math:`\partial/\partial x = -\tfrac12 x^{-3/2}`."""

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
    """``value``, or ``low`` if it is below it (``nan`` stays ``nan``)."""
    return max(value, low)


def _lower_to(high: Any, value: Any) -> Any:
    """``value``, or ``high`` if it is above it (``nan`` stays ``nan``)."""
    return min(value, high)


def _clamp_values(x: Tensor, low: Operand | None, high: Operand | None, d: dtype) -> Tensor:
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

    .. math:: \frac{\partial}{\partial x} = 1 \text{ where } \min \le x \le \max,
              \text{ else } 0
    """

    grad_fn_name = "ClampBackward1"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, min: Any = None, max: Any = None) -> Tensor:
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
        return _clamp_values(x, min, max, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        low, high = ctx.bounds
        return grad_output * _inside(x, low, high)


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
    def forward(ctx: FunctionCtx, x: Tensor, min: Tensor | None,
                max: Tensor | None) -> Tensor:
        ctx.save_for_backward(x, min, max)
        d = result_type(x, *(b for b in (min, max) if b is not None))
        return _clamp_values(x, min, max, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        x, low, high = ctx.saved_tensors
        grad_x = grad_output * _inside(x, low, high)
        grad_low = grad_high = None
        raised = x if low is None else maximum(x, low)
        if low is not None and ctx.needs_input_grad[1]:
            below = x < low
            if high is not None:
                below = below & (low <= high)
            grad_low = grad_output * below
        if high is not None and ctx.needs_input_grad[2]:
            grad_high = grad_output * (raised > high)
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
        return _split_gradient(grad_output, a > b, a == b)


class Minimum(Function):
    r"""Elementwise smaller of ``a`` and ``b``; the gradient as for maximum."""

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, b: Tensor) -> Tensor:
        ctx.save_for_backward(a, b)
        return binary(_nan_min, a, b, result_type(a, b))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        a, b = ctx.saved_tensors
        return _split_gradient(grad_output, a < b, a == b)


def _split_gradient(grad_output: Tensor, a_wins: Tensor, tie: Tensor) -> tuple[Tensor, Tensor]:
    share_a = where(tie, 0.5, a_wins.to(grad_output.dtype))
    share_b = where(tie, 0.5, (~a_wins).to(grad_output.dtype))
    return grad_output * share_a, grad_output * share_b


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
    def forward(ctx: FunctionCtx, x: Operand, other: Operand, *, condition: Tensor) -> Tensor:
        ctx.save_for_backward(condition)
        d = result_type(x, other)
        return _select(condition, x, other, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        (condition,) = ctx.saved_tensors
        grad_x = where(condition, grad_output, 0.0) if ctx.needs_input_grad[0] else None
        grad_other = where(condition, 0.0, grad_output) if ctx.needs_input_grad[1] else None
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
        ctx.save_for_backward(mask)
        result = _select(mask, value, x, x.dtype)
        if result._shape != x._shape:
            raise RuntimeError(
                f"The expanded size of the mask {list(result._shape)} must match the "
                f"tensor's size {list(x._shape)}"
            )
        return result

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

        return from_values([cast_scalar(value, x.dtype)] * x.numel(), x._shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output * 0


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
        values = cast_values(broadcast_values(source, shape), source.dtype, target.dtype)
        return from_values(values, shape, target.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        return grad_output * 0, grad_output


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


def div(input: Operand, other: Operand, *, rounding_mode: str | None = None) -> Tensor:
    """``input / other`` (true division), or rounded with ``rounding_mode``.

    ``rounding_mode='floor'`` rounds down, ``'trunc'`` toward zero; rounded
    division has no gradient.
    """
    if rounding_mode is None:
        return Div.apply(input, other)
    if rounding_mode == "floor":
        return floor_divide(input, other)
    if rounding_mode == "trunc":
        d = result_type(input, other)
        quotient = binary(ieee_div, input, other, _float_type(d))
        truncated = unary(lambda v: float(math.trunc(v)) if math.isfinite(v) else v, quotient)
        return truncated.to(d)
    raise RuntimeError(
        f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
        f"found '{rounding_mode}'"
    )


true_divide = div
divide = div


def _floor_div_scalar(a: Any, b: Any) -> Any:
    """``a // b`` rounding down; Python's ``//`` already matches PyTorch,
    except at a zero divisor."""
    try:
        return a // b
    except ZeroDivisionError:
        if isinstance(a, int) and isinstance(b, int):
            raise RuntimeError("ZeroDivisionError") from None  # noqa: TRY004  (as torch)
        return ieee_div(a, b)


def floor_divide(input: Operand, other: Operand) -> Tensor:
    """``input // other``, rounding down. Not differentiable.

    Raises:
        RuntimeError: For an integer division by zero (``ZeroDivisionError``).
        NotImplementedError: For two bools.
    """
    d = result_type(input, other)
    if d is dtypes.bool_:
        raise _not_implemented("div_floor_cpu", d)
    return binary(_floor_div_scalar, input, other, d)


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


def remainder(input: Operand, other: Operand) -> Tensor:
    """``input % other`` with the sign of ``other``, as Python's ``%``."""
    d = result_type(input, other)
    if d is dtypes.bool_:
        raise _not_implemented("remainder_cpu", d)
    return binary(_remainder_scalar, input, other, d)


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


def sign(input: Tensor) -> Tensor:
    """-1, 0 or 1 by the sign of each element. Not differentiable."""
    return unary(_sign_scalar, input)


def _sign_scalar(v: Any) -> Any:
    return v if math.isnan(v) else (v > 0) - (v < 0)


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
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
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
    """``input`` where ``condition`` is true, else ``other``, broadcasting all three."""
    if condition.dtype is not dtypes.bool_:
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with "
            f"dtype {condition.dtype.c_name}"
        )
    return Where.apply(input, other, condition=condition)


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``input`` with ``value`` wherever ``mask`` is true."""
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


def copy_into(target: Tensor, source: Tensor) -> Tensor:
    """``source`` broadcast to ``target``'s shape and dtype (for ``copy_``)."""
    return Copy.apply(target, source)


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


def logical_and(input: Operand, other: Operand) -> Tensor:
    """True where both are non-zero."""
    return binary(lambda a, b: bool(a) and bool(b), input, other, result_type(input, other), dtypes.bool_)


def logical_or(input: Operand, other: Operand) -> Tensor:
    """True where either is non-zero."""
    return binary(lambda a, b: bool(a) or bool(b), input, other, result_type(input, other), dtypes.bool_)


def logical_xor(input: Operand, other: Operand) -> Tensor:
    """True where exactly one is non-zero."""
    return binary(lambda a, b: bool(a) != bool(b), input, other, result_type(input, other), dtypes.bool_)


def _bitwise(kernel: str, function: Any, input: Operand, other: Operand) -> Tensor:
    """A bitwise operation: on the bits of integers, logical on bools."""
    d = result_type(input, other)
    if d.is_floating_point:
        raise _not_implemented(kernel, d)
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
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return bitwise_not(input)
