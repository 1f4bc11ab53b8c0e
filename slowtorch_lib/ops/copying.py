"""Copies, casts and fills: ``clone``, ``to``, ``fill_``, ``zero_``, ``copy_``.

A copy passes its gradient through unchanged; a cast's gradient is cast
back by the engine. Filled or overwritten elements get no gradient.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib._creation import checked_fill, zeros_like
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import (
    cast_scalar,
    cast_values,
)
from slowtorch_lib._strides import broadcast_shapes
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import (
    contiguous_copy,
    expanded_values,
)
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import tensor_input, wrapped_number

__all__ = [
    "clone",
]


class Clone(Function):
    """A copy with its own storage. The gradient passes through unchanged."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        return contiguous_copy(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output


@tensor_input
def clone(input: Tensor) -> Tensor:
    """A copy of ``input`` with its own storage."""
    return Clone.apply(input)


class ToCopy(Function):
    """A copy in another dtype. The gradient is cast back by the engine."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dtype: dtype) -> Tensor:
        return from_values(cast_values(x._values(), x.dtype, dtype), x._shape, dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output


def to_dtype(input: Tensor, dtype: dtype) -> Tensor:
    """A copy of ``input`` converted to ``dtype``."""
    return ToCopy.apply(input, dtype=dtype)


class Fill(Function):
    """Every element set to one value; no gradient flows to the old values."""

    grad_fn_name = "FillBackward2"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, value: Any) -> Tensor:
        checked_fill(value, x.dtype)
        return from_values([cast_scalar(value, x.dtype)] * x.numel(), x._shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return zeros_like(grad_output)


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
        return fill_with_tensor(input, value)
    return Fill.apply(input, value=value)


def zeroed(input: Tensor) -> Tensor:
    """A tensor like ``input`` of zeros (for ``zero_``)."""
    return Zero.apply(input, value=0)


class FillWithTensor(Function):
    """Every element set to the value of a 0-d tensor (``x[:] = 5``)."""

    grad_fn_name = "FillBackward3"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, value: Tensor) -> Tensor:
        filler = cast_scalar(value.item(), x.dtype)
        return from_values([filler] * x.numel(), x._shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        zeros = from_values(
            [0] * grad_output.numel(), grad_output._shape, grad_output.dtype
        )  # not grad * 0: inf * 0 is nan
        return zeros, grad_output.sum()


def fill_with_tensor(input: Tensor, value: Tensor) -> Tensor:
    """A tensor like ``input`` holding the value of the 0-d tensor ``value``."""
    return FillWithTensor.apply(input, value)


class Copy(Function):
    """``target.copy_(source)``: the target's old values get no gradient."""

    grad_fn_name = "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx: FunctionCtx, target: Tensor, source: Tensor) -> Tensor:
        shape = broadcast_shapes(target._shape, source._shape)
        if shape != target._shape:
            raise RuntimeError(
                f"output with shape {list(target._shape)} doesn't match the "
                f"broadcast shape {list(shape)}"
            )
        values = cast_values(expanded_values(source, shape), source.dtype, target.dtype)
        return from_values(values, shape, target.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        return zeros_like(grad_output), grad_output


def copy_into(target: Tensor, source: Tensor | int | float | bool) -> Tensor:
    """``source`` broadcast to ``target``'s shape and dtype (for ``copy_``).

    A Python number is accepted too, as a 0-d source.
    """
    return Copy.apply(target, wrapped_number(source))
