"""Choosing between values: ``clamp``, ``maximum``, ``minimum``, ``where``.

Each output element is one of the input elements (or a bound), so the
gradient flows to whichever input was chosen, and nowhere else.
"""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import checked_fill
from slowtorch_lib._dtype import dtype
from slowtorch_lib._fidelity.float8 import float8_e8m0fnu
from slowtorch_lib._strides import broadcast_shapes
from slowtorch_lib._tensor import Tensor, TensorOrScalar, from_values
from slowtorch_lib._tensor_kernels import (
    binary,
    broadcast_map,
    check_loop,
    check_real,
)
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import (
    SAME,
    accepts_out,
    check_inplace_shape,
    check_tensor,
    not_implemented,
    result_type,
    tensor_input,
    wrapped_number,
)
from slowtorch_lib.ops.comparison import isnan

__all__ = [
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "masked_fill",
    "maximum",
    "minimum",
    "where",
]


def _raise_to(low: Any, value: Any) -> Any:
    """``value``, or ``low`` if it is below it (a ``nan`` on either side wins)."""
    return value if value >= low or value != value else low


def _lower_to(high: Any, value: Any) -> Any:
    """``value``, or ``high`` if it is above it (a ``nan`` on either side wins)."""
    return value if value <= high or value != value else high


def _clamp_values(
    x: Tensor, low: TensorOrScalar | None, high: TensorOrScalar | None, d: dtype
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
        if any(b is not None and b != b for b in (min, max)):
            # A nan bound: PyTorch fills the result with nan, with no loop.
            return from_values([math.nan] * x.numel(), x._shape, d)
        if d is dtypes.bool_ or d.unpromotable:
            kernel = "clamp_scalar_cpu"
            if max is None:
                kernel = "clamp_min_scalar_cpu"
            elif min is None:
                kernel = "clamp_max_scalar_cpu"
            raise not_implemented(kernel, d)
        for bound in (min, max):
            if bound is not None:
                checked_fill(bound, d)
        return _clamp_values(x, min, max, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        low, high = ctx.bounds
        return where(_inside(x, low, high), grad_output, 0.0)


def _inside(
    x: Tensor, low: TensorOrScalar | None, high: TensorOrScalar | None
) -> Tensor:
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
        both = min is not None and max is not None
        if d.unpromotable or (both and d is dtypes.bool_):
            # One bound is maximum or minimum in PyTorch, with its loop's name.
            kernel = "clamp" if both else "maximum" if max is None else "minimum"
            raise not_implemented(f"{kernel}_cpu", d)
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


@accepts_out(dtype_refusal=SAME)
@tensor_input
def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Limits every element to ``[min, max]``; the bounds may be numbers or tensors.

    Raises:
        RuntimeError: If both bounds are None.
    """
    if min is None and max is None:
        raise RuntimeError(
            "torch.clamp: At least one of 'min' or 'max' must not be None"
        )
    check_real("clamp", input.dtype)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return ClampTensor.apply(input, wrapped_number(min), wrapped_number(max))
    return Clamp.apply(input, min=min, max=max)


clip = clamp


def check_clamp_inplace(target: Tensor, low: Any, high: Any) -> None:
    """``clamp_``'s checks before the write's: autograd's, then PyTorch
    refuses a complex tensor before it looks at how it is laid out, and a
    result ``target`` cannot hold before it converts the bounds."""
    target._check_inplace(overlap_ok=True)
    check_real("clamp", target.dtype)
    d = result_type(target, *(b for b in (low, high) if b is not None))
    if not dtypes.can_cast(d, target.dtype):
        raise RuntimeError(
            f"result type {d.c_name} can't be cast to the desired output type "
            f"{target.dtype.cpp_type_name}"
        )


@tensor_input
def clamp_min(input: Tensor, min: Any) -> Tensor:
    """Limits every element to at least ``min``."""
    check_real("clamp", input.dtype)
    return ClampMin.apply(input, min=min)


@tensor_input
def clamp_max(input: Tensor, max: Any) -> Tensor:
    """Limits every element to at most ``max``."""
    check_real("clamp", input.dtype)
    return ClampMax.apply(input, max=max)


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


@accepts_out
@tensor_input
def maximum(input: Tensor, other: Tensor) -> Tensor:
    """The elementwise maximum of two tensors (nan wins)."""
    check_tensor("maximum", other)
    check_real("maximum", result_type(input, other))
    return Maximum.apply(input, other)


@accepts_out
@tensor_input
def minimum(input: Tensor, other: Tensor) -> Tensor:
    """The elementwise minimum of two tensors (nan wins)."""
    check_tensor("minimum", other)
    check_real("minimum", result_type(input, other))
    return Minimum.apply(input, other)


class Where(Function):
    r"""``x`` where ``condition`` is true, else ``other``.

    The gradient goes to ``x`` where the condition holds and to ``other``
    where it does not.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: TensorOrScalar, other: TensorOrScalar, *, condition: Tensor
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


def _select(
    condition: Tensor, x: TensorOrScalar, other: TensorOrScalar, d: dtype
) -> Tensor:
    """The values of ``where`` (no graph): three-way broadcasting.

    float8_e8m0fnu has no zero, so the condition could not keep its truth
    in it: that type is chosen in float32, which holds all its numbers.
    """
    compute = dtypes.float32 if d is float8_e8m0fnu else d
    return broadcast_map(_choose, (condition, x, other), compute, d)


def _choose(condition: Any, x: Any, other: Any) -> Any:
    """``x`` where ``condition`` holds, else ``other``."""
    return x if condition else other


# PyTorch's words for an ``out`` not of the result's dtype.
WHERE_REFUSAL = "Expected out type to be {d.c_name} but got {out.c_name}"


@accepts_out(dtype_refusal=WHERE_REFUSAL)
def where(condition: Tensor, input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
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


def _check_bool_mask(mask: Tensor) -> None:
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{mask.dtype.cpp_type_name}"
        )


def _fill_value(value: Any) -> Any:
    """The number a ``masked_fill`` value stands for: a tensor must be 0-d."""
    if not isinstance(value, Tensor):
        return value
    if value.dim():
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got "
            f"tensor with {value.dim()} dimension(s)."
        )
    return value.item()


class MaskedFill(Function):
    """``x`` with ``value`` where ``mask`` is true; no gradient flows there.

    PyTorch broadcasts, then checks the mask's dtype, then looks for its
    loop, and converts ``value`` last.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, mask: Tensor, value: Any) -> Tensor:
        broadcast_shapes(mask._shape, x._shape)
        _check_bool_mask(mask)
        check_loop("masked_fill", x.dtype)
        checked_fill(value, x.dtype)
        ctx.save_for_backward(mask)
        # The mask may broadcast ``x`` to a larger shape (out of place only).
        return _select(mask, value, x, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (mask,) = ctx.saved_tensors
        return where(mask, 0.0, grad_output)


@tensor_input
def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``input`` with ``value`` wherever ``mask`` is true."""
    check_mask("masked_fill", mask)
    return MaskedFill.apply(input, mask=mask, value=_fill_value(value))


def check_masked_fill_inplace(target: Tensor, mask: Any, value: Any) -> None:
    """The checks of ``target.masked_fill_(mask, value)`` before its loop:
    autograd's, then the mask must be a bool tensor that broadcasts to
    ``target``."""
    check_mask("masked_fill_", mask)
    target._check_inplace(overlap_ok=True)
    _fill_value(value)
    _check_bool_mask(mask)
    check_inplace_shape(target, mask)
