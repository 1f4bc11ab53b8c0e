"""Bitwise operations: on the bits of integers, logical on bools.

None has a derivative: PyTorch defines them for integers and bools only.
"""

from __future__ import annotations

import operator
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._storage import wrap_int64
from slowtorch_lib._tensor import Tensor, TensorOrScalar, invalid_arguments
from slowtorch_lib._tensor_kernels import (
    binary,
    unary,
)
from slowtorch_lib.ops.common import (
    SAME,
    accepts_out,
    check_some_tensor,
    no_loop,
    not_implemented,
    out_of_input_dtype,
    result_type,
    tensor_input,
)

__all__ = [
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
]


def _check_operands(kernel: str, input: Any, other: Any) -> None:
    """Refuses operands that are not tensors or Python numbers, or no tensor
    at all, as PyTorch's argument parser does."""
    name = kernel.removesuffix("_cpu")
    check_some_tensor(name, input, other)
    if not all(isinstance(x, (Tensor, bool, int, float)) for x in (input, other)):
        raise invalid_arguments(name, (input, other), {})


def _bitwise(
    kernel: str, function: Any, input: TensorOrScalar, other: TensorOrScalar
) -> Tensor:
    """A bitwise operation: on the bits of integers, logical on bools."""
    _check_operands(kernel, input, other)
    d = result_type(input, other)
    if d.is_floating_point:
        raise no_loop(kernel, d, input, other)
    return binary(function, input, other, d)


@accepts_out(cast_first=True, differentiable=False)
def bitwise_and(input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
    """``input & other``: bitwise AND of integers, logical AND of bools."""
    return _bitwise("bitwise_and_cpu", operator.and_, input, other)


@accepts_out(cast_first=True, differentiable=False)
def bitwise_or(input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
    """``input | other``: bitwise OR of integers, logical OR of bools."""
    return _bitwise("bitwise_or_cpu", operator.or_, input, other)


@accepts_out(cast_first=True, differentiable=False)
def bitwise_xor(input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
    """``input ^ other``: bitwise XOR of integers, logical XOR of bools."""
    return _bitwise("bitwise_xor_cpu", operator.xor, input, other)


def _shift(
    kernel: str, function: Any, input: TensorOrScalar, other: TensorOrScalar
) -> Tensor:
    """A shift of the bits of integers (bools and floats have no kernel)."""
    _check_operands(kernel, input, other)
    d = result_type(input, other)
    if d.category != dtypes.INT_CATEGORY:
        raise no_loop(kernel, d, input, other)
    return binary(function, input, other, d)  # the storage wraps to d


def _shift_left_scalar(a: int, b: int) -> int:
    """``a << b`` in int64: bits pushed past the top are lost, and a shift
    by a negative amount or by 64 or more gives 0, as in PyTorch."""
    return wrap_int64(a << b) if 0 <= b < 64 else 0


def _shift_right_scalar(a: int, b: int) -> int:
    """``a >> b`` in int64, keeping the sign: a shift by a negative amount or
    by 64 or more gives 0, or -1 for a negative ``a``."""
    return a >> (b if 0 <= b < 64 else 63)


@accepts_out(cast_first=True, differentiable=False)
def bitwise_left_shift(input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
    """``input << other``: the bits of integers moved left (times 2**other)."""
    return _shift("lshift_cpu", _shift_left_scalar, input, other)


@accepts_out(cast_first=True, differentiable=False)
def bitwise_right_shift(input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
    """``input >> other``: the bits of integers moved right, rounding down."""
    return _shift("rshift_cpu", _shift_right_scalar, input, other)


def _out_of_input(args: tuple[Any, ...], kwargs: dict[str, Any], out: Tensor) -> None:
    """``bitwise_not``'s ``out`` must be of the input's dtype, checked first."""
    if args:
        out_of_input_dtype(args[0], out)


@accepts_out(dtype_refusal=SAME, differentiable=False, check_first=_out_of_input)
@tensor_input
def bitwise_not(input: Tensor) -> Tensor:
    """Flips every bit of an integer (``~5 == -6``); logical NOT of a bool."""
    if input.dtype.is_floating_point:
        raise not_implemented("bitwise_not_cpu", input.dtype)
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
