"""The fused operations that optimisers use: ``addcmul``, ``addcdiv``, ``lerp``.

Each computes in one pass what would otherwise take two or three ops,
``input + value * tensor1 * tensor2`` for ``addcmul``, as PyTorch's do.
They work on complex tensors too, so that the optimisers work on complex
parameters: their kernels are plain arithmetic, and the complex loops
they need are in
:data:`~slowtorch_lib._fidelity.complex_numbers.COMPLEX_LOOPS`.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import checked_fill
from slowtorch_lib._dtype import dtype
from slowtorch_lib._fidelity.complex_types import complex32
from slowtorch_lib._kernels import ieee_div
from slowtorch_lib._tensor import Tensor, TensorOrScalar
from slowtorch_lib._tensor_kernels import (
    broadcast_map,
)
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import (
    accepts_out,
    not_implemented,
    out_of_input_dtype,
    result_type,
    tensor_input,
)

__all__ = [
    "addcdiv",
    "addcmul",
    "lerp",
]


def _addcmul(a: Any, b: Any, c: Any, step: Any) -> Any:
    """``a + step * b * c``, for real and complex numbers alike."""
    return a + step * b * c


def _addcdiv(a: Any, b: Any, c: Any, step: Any) -> Any:
    """``a + step * b / c`` (in that order, as PyTorch), with IEEE results for
    a zero ``c`` (the complex loop is in
    :data:`~slowtorch_lib._fidelity.complex_numbers.COMPLEX_LOOPS`)."""
    return a + ieee_div(step * b, c)


def _check_value(value: Any, d: dtype) -> None:
    """``value`` must fit the result's dtype: no complex one for a real result."""
    checked_fill(value, d)


class Addcmul(Function):
    r"""``input + value * tensor1 * tensor2``.

    Derivatives: 1 for ``input``, ``value * tensor2`` for ``tensor1`` and
    ``value * tensor1`` for ``tensor2``.
    """

    holomorphic = True

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any
    ) -> Tensor:
        d = result_type(x, tensor1, tensor2)
        if d is dtypes.bool_:
            raise not_implemented("addcmul_cpu_out", d)
        _check_value(value, d)
        ctx.save_for_backward(tensor1, tensor2)
        ctx.value = value
        return broadcast_map(_addcmul, (x, tensor1, tensor2, value), d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        tensor1, tensor2 = ctx.saved_tensors
        value = ctx.value
        return (
            grad_output,
            grad_output * (tensor2 * value),
            grad_output * (tensor1 * value),
        )


@accepts_out
@tensor_input
def addcmul(
    input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1
) -> Tensor:
    """``input + value * tensor1 * tensor2``, broadcasting."""
    return Addcmul.apply(input, tensor1, tensor2, value=value)


class Addcdiv(Function):
    r"""``input + value * tensor1 / tensor2``.

    Derivatives: 1 for ``input``, ``value / tensor2`` for ``tensor1`` and
    ``-value * tensor1 / tensor2 ** 2`` for ``tensor2``.
    """

    holomorphic = True

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any
    ) -> Tensor:
        if not (tensor1.dtype.differentiable or tensor2.dtype.differentiable):
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a "
                "future  release addcdiv will perform a true division of tensor1 and "
                "tensor2. The historic addcdiv behavior can be implemented as "
                "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
                "for integer inputs and as (input + value * tensor1 / tensor2) for "
                "float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes."
            )
        d = result_type(x, tensor1, tensor2)
        _check_value(value, d)
        ctx.save_for_backward(tensor1, tensor2)
        ctx.value = value
        return broadcast_map(_addcdiv, (x, tensor1, tensor2, value), d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        tensor1, tensor2 = ctx.saved_tensors
        value = ctx.value
        grad_tensor1 = grad_output * (value / tensor2)
        grad_tensor2 = -grad_output * (value * tensor1 / (tensor2 * tensor2))
        return grad_output, grad_tensor1, grad_tensor2


@accepts_out
@tensor_input
def addcdiv(
    input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1
) -> Tensor:
    """``input + value * tensor1 / tensor2``, broadcasting.

    Raises:
        RuntimeError: If both ``tensor1`` and ``tensor2`` hold integers.
    """
    return Addcdiv.apply(input, tensor1, tensor2, value=value)


def _check_lerp(start: Tensor, end: Tensor, weight: TensorOrScalar) -> dtype:
    """Checks that ``lerp`` can compute; returns the result's dtype.

    ``lerp`` works on floating-point or complex tensors of one dtype (the
    8-bit floats and complex32 have no loop); the dtypes are checked first.
    A 0-d ``weight`` may have another dtype, and is promoted with the
    others, as in PyTorch.
    """
    d = start.dtype
    others = [("end", end)]
    if isinstance(weight, Tensor) and weight.dim():
        others.append(("weight", weight))
    for name, other in others:
        if other.dtype is not d:
            raise RuntimeError(
                f"expected dtype {d.cpp_type_name} for `{name}` but "
                f"got dtype {other.dtype.cpp_type_name}"
            )
    if not d.differentiable or d.unpromotable or d is complex32:
        kernel = "tensor" if isinstance(weight, Tensor) else "scalar"
        raise not_implemented(f"lerp_kernel_{kernel}", d)
    if not isinstance(weight, Tensor):
        _check_value(weight, d)
    return result_type(start, end, weight)


def _lerp_scalar(a: Any, b: Any, w: Any) -> Any:
    """``a + w * (b - a)``, computed from the nearer end as PyTorch does
    (for complex numbers, the nearer by ``|w|``)."""
    if abs(w) < 0.5:
        return a + w * (b - a)
    return b - (b - a) * (1 - w)


class LerpScalar(Function):
    r"""``start + weight * (end - start)`` for a Python-number ``weight``.

    Derivatives: ``1 - weight`` for ``start`` and ``weight`` for ``end``.
    """

    grad_fn_name = "LerpBackward0"
    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, start: Tensor, end: Tensor, *, weight: Any) -> Tensor:
        d = _check_lerp(start, end, weight)
        ctx.weight = weight
        return broadcast_map(_lerp_scalar, (start, end, weight), d)

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
    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, start: Tensor, end: Tensor, weight: Tensor) -> Tensor:
        d = _check_lerp(start, end, weight)
        ctx.save_for_backward(start, end, weight)
        return broadcast_map(_lerp_scalar, (start, end, weight), d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, ...]:
        start, end, weight = ctx.saved_tensors
        return (
            grad_output * (1 - weight),
            grad_output * weight,
            grad_output * (end - start),
        )


def _lerp_out(args: tuple[Any, ...], kwargs: dict[str, Any], out: Tensor) -> None:
    """With a tensor weight, ``out`` must be of the input's dtype, checked
    first."""
    weight = args[2] if len(args) > 2 else kwargs.get("weight")
    if isinstance(weight, Tensor) and args:
        out_of_input_dtype(args[0], out)


@accepts_out(check_first=_lerp_out)
@tensor_input
def lerp(input: Tensor, end: Tensor, weight: TensorOrScalar) -> Tensor:
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
