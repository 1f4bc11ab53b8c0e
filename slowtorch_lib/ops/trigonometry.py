"""Trigonometry: ``sin``, ``cos``, ``tan``, their inverses, the hyperbolic
functions, ``atan2`` and ``hypot``.

The same layout as ``pointwise``, next door: each :class:`Function` with its
forward and its backward side by side, the derivative in its docstring, and
the function that calls it right after it. Angles are in radians.
"""

from __future__ import annotations

import math

from slowtorch_lib._kernels import ieee_function
from slowtorch_lib._tensor import Tensor
from slowtorch_lib._tensor_kernels import binary, unary
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import (
    accepts_out,
    check_tensor,
    float_type,
    result_type,
    tensor_input,
)
from slowtorch_lib.ops.powers import rsqrt
from slowtorch_lib.ops.selecting import where

__all__ = [
    "acos",
    "arccos",
    "arcsin",
    "arctan",
    "arctan2",
    "asin",
    "atan",
    "atan2",
    "cos",
    "cosh",
    "hypot",
    "sin",
    "sinc",
    "sinh",
    "tan",
]


class Sin(Function):
    """Sine. Derivative: cos(x)."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(math.sin, x, float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * cos(x)


@accepts_out
@tensor_input
def sin(input: Tensor) -> Tensor:
    """The sine."""
    return Sin.apply(input)


class Cos(Function):
    """Cosine. Derivative: -sin(x)."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(math.cos, x, float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * (-sin(x))


@accepts_out
@tensor_input
def cos(input: Tensor) -> Tensor:
    """The cosine."""
    return Cos.apply(input)


class Tan(Function):
    """Tangent. Derivative: 1 + tan(x) ** 2."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        result = unary(ieee_function(math.tan), x, float_type(x.dtype))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * (result * result + 1)


@accepts_out
@tensor_input
def tan(input: Tensor) -> Tensor:
    """The tangent."""
    return Tan.apply(input)


class Sinh(Function):
    """Hyperbolic sine. Derivative: cosh(x)."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(ieee_function(math.sinh), x, float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * cosh(x)


@accepts_out
@tensor_input
def sinh(input: Tensor) -> Tensor:
    """The hyperbolic sine."""
    return Sinh.apply(input)


class Cosh(Function):
    """Hyperbolic cosine. Derivative: sinh(x)."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(ieee_function(math.cosh), x, float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * sinh(x)


@accepts_out
@tensor_input
def cosh(input: Tensor) -> Tensor:
    """The hyperbolic cosine."""
    return Cosh.apply(input)


class Asin(Function):
    """Inverse sine. Derivative: 1 / sqrt(1 - x ** 2)."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(ieee_function(math.asin), x, float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * rsqrt(1 - x * x)


@accepts_out
@tensor_input
def asin(input: Tensor) -> Tensor:
    """The inverse sine, in radians."""
    return Asin.apply(input)


class Acos(Function):
    """Inverse cosine. Derivative: -1 / sqrt(1 - x ** 2)."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(ieee_function(math.acos), x, float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * (-rsqrt(1 - x * x))


@accepts_out
@tensor_input
def acos(input: Tensor) -> Tensor:
    """The inverse cosine, in radians."""
    return Acos.apply(input)


class Atan(Function):
    """Inverse tangent. Derivative: 1 / (1 + x ** 2)."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(math.atan, x, float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return grad_output / (x * x + 1)


@accepts_out
@tensor_input
def atan(input: Tensor) -> Tensor:
    """The inverse tangent, in radians."""
    return Atan.apply(input)


class Atan2(Function):
    """The angle of the point ``(other, input)``: ``atan(input / other)`` by quadrant.

    Derivatives: d/dy = x / (x**2 + y**2), d/dx = -y / (x**2 + y**2).
    """

    @staticmethod
    def forward(ctx: FunctionCtx, y: Tensor, x: Tensor) -> Tensor:
        ctx.save_for_backward(y, x)
        return binary(math.atan2, y, x, float_type(result_type(y, x)))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        y, x = ctx.saved_tensors
        scale = grad_output / (x * x + y * y)
        return scale * x, scale * -y


@accepts_out
@tensor_input
def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle of each point ``(other, input)``, in radians, in ``[-pi, pi]``.

    Raises:
        TypeError: If ``other`` is a number rather than a tensor.
    """
    check_tensor("atan2", other)
    return Atan2.apply(input, other)


class Hypot(Function):
    """``sqrt(x ** 2 + y ** 2)``. Derivatives: x / hypot, y / hypot."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, y: Tensor) -> Tensor:
        d = result_type(x, y)
        if not d.is_floating_point:
            raise NotImplementedError(f"\"hypot_cpu\" not implemented for '{d.c_name}'")
        result = binary(math.hypot, x, y, d)
        need_x, need_y = ctx.needs_input_grad  # keeps only what a gradient uses
        ctx.save_for_backward(x if need_x else None, y if need_y else None, result)
        return result

    @staticmethod
    def backward(
        ctx: FunctionCtx, grad_output: Tensor
    ) -> tuple[Tensor | None, Tensor | None]:
        x, y, result = ctx.saved_tensors
        scale = grad_output / result
        return (
            None if x is None else scale * x,
            None if y is None else scale * y,
        )


@accepts_out
@tensor_input
def hypot(input: Tensor, other: Tensor) -> Tensor:
    """``sqrt(input ** 2 + other ** 2)``, elementwise.

    Raises:
        TypeError: If ``other`` is a number rather than a tensor.
        NotImplementedError: For integer inputs, as PyTorch.
    """
    check_tensor("hypot", other)
    return Hypot.apply(input, other)


def _sinc_scalar(x: float) -> float:
    """``sin(pi x) / (pi x)``, and 1 at 0."""
    if x == 0:
        return 1.0
    angle = math.pi * x
    return math.sin(angle) / angle


class Sinc(Function):
    """The normalised sinc, ``sin(pi x) / (pi x)``, 1 at 0.

    Derivative: ``(pi x cos(pi x) - sin(pi x)) / (pi x ** 2)``, 0 at 0.
    """

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return unary(ieee_function(_sinc_scalar), x, float_type(x.dtype))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        angle = x * math.pi
        slope = (angle * cos(angle) - sin(angle)) / (angle * x)
        return grad_output * where(x == 0, 0.0, slope)


@accepts_out
@tensor_input
def sinc(input: Tensor) -> Tensor:
    """The normalised sinc, ``sin(pi x) / (pi x)`` (1 at 0)."""
    return Sinc.apply(input)


arcsin = asin
arccos = acos
arctan = atan
arctan2 = atan2
