"""Comparisons: elementwise (``eq``, ``lt``..., the logical operations,
``isnan``) giving bool tensors, and whole-tensor (``isclose``, ``allclose``,
``equal``).

Floating-point results rarely agree to the last bit, so tests compare
within a tolerance: ``a`` is close to ``b`` if
``|a - b| <= atol + rtol * |b|`` (note: not symmetric in ``a`` and ``b``).
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._tensor import Tensor, TensorOrScalar
from slowtorch_lib._tensor_kernels import binary, unary
from slowtorch_lib.ops.common import (
    accepts_out,
    check_some_tensor,
    check_tensor,
    result_type,
    tensor_input,
)

__all__ = [
    "allclose",
    "eq",
    "equal",
    "ge",
    "gt",
    "is_tensor",
    "isclose",
    "isfinite",
    "isinf",
    "isnan",
    "le",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "lt",
    "ne",
]


def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a tensor (a list of numbers is not)."""
    return isinstance(obj, Tensor)


def _close(rtol: float, atol: float, equal_nan: bool, a: Any, b: Any) -> bool:
    """The scalar test of :func:`isclose`: whether ``a`` is close to ``b``."""
    if a == b:  # equal numbers, and infinities of the same sign
        return True
    if a != a or b != b:
        return equal_nan and a != a and b != b
    if abs(a) == math.inf or abs(b) == math.inf:  # complex ones too
        return False
    return abs(a - b) <= atol + rtol * abs(b)


def _closeness(rtol: float, atol: float, equal_nan: bool) -> Any:
    """The scalar test ``close(a, b)`` for these tolerances."""
    return functools.partial(_close, rtol, atol, equal_nan)


@tensor_input
def isclose(
    input: Tensor,
    other: Tensor,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Tensor:
    """True where ``|input - other| <= atol + rtol * |other|``, elementwise.

    ``nan`` is close to nothing, unless ``equal_nan`` (then to ``nan``).

    Raises:
        RuntimeError: If the dtypes differ or the shapes do not broadcast.
    """
    check_tensor("isclose", other)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype.c_name} did not match {other.dtype.c_name}")
    close = _closeness(rtol, atol, equal_nan)
    return binary(close, input, other, input.dtype, dtypes.bool_)


@tensor_input
def allclose(
    input: Tensor,
    other: Tensor,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> bool:
    """Whether every element of ``input`` is close to ``other`` (see
    :func:`isclose`): a Python bool."""
    check_tensor("allclose", other)
    return all(isclose(input, other, rtol, atol, equal_nan)._values())


@tensor_input
def equal(input: Tensor, other: Tensor) -> bool:
    """Whether both tensors have the same shape and the same values.

    Values are compared after promotion to a common dtype (``1.0`` equals
    ``1``); ``nan`` equals nothing, not even ``nan``.
    """
    if input._shape != other._shape:
        return False
    d = result_type(input, other)
    same = binary(operator.eq, input, other, d, dtypes.bool_)
    return all(same._values())


def _comparison(function: Any) -> Any:
    def compare(input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
        check_some_tensor(function.__name__, input, other)
        return binary(function, input, other, result_type(input, other), dtypes.bool_)

    compare.__name__ = function.__name__
    compare.__doc__ = f"Elementwise ``{function.__name__}``, giving a bool tensor."
    return compare


eq = accepts_out(_comparison(operator.eq))


ne = accepts_out(_comparison(operator.ne))


lt = accepts_out(_comparison(operator.lt))


le = accepts_out(_comparison(operator.le))


gt = accepts_out(_comparison(operator.gt))


ge = accepts_out(_comparison(operator.ge))


def _both(a: Any, b: Any) -> bool:
    return bool(a) and bool(b)


def _either(a: Any, b: Any) -> bool:
    return bool(a) or bool(b)


def _exactly_one(a: Any, b: Any) -> bool:
    return bool(a) != bool(b)


@accepts_out
@tensor_input
def logical_not(input: Tensor) -> Tensor:
    """True where ``input`` is zero (``~mask`` for a bool tensor)."""
    return unary(operator.not_, input, dtypes.bool_)


@accepts_out
@tensor_input
def logical_and(input: Tensor, other: Tensor) -> Tensor:
    """True where both are non-zero."""
    check_tensor("logical_and", other)
    return binary(
        _both,
        input,
        other,
        result_type(input, other),
        dtypes.bool_,
    )


@accepts_out
@tensor_input
def logical_or(input: Tensor, other: Tensor) -> Tensor:
    """True where either is non-zero."""
    check_tensor("logical_or", other)
    return binary(
        _either,
        input,
        other,
        result_type(input, other),
        dtypes.bool_,
    )


@accepts_out
@tensor_input
def logical_xor(input: Tensor, other: Tensor) -> Tensor:
    """True where exactly one is non-zero."""
    check_tensor("logical_xor", other)
    return binary(
        _exactly_one,
        input,
        other,
        result_type(input, other),
        dtypes.bool_,
    )


@tensor_input
def isnan(input: Tensor) -> Tensor:
    """True where an element is ``nan`` (never, for integers and bools)."""
    return unary(math.isnan, input, dtypes.bool_)


@tensor_input
def isinf(input: Tensor) -> Tensor:
    """True where an element is ``inf`` or ``-inf``."""
    return unary(math.isinf, input, dtypes.bool_)


@tensor_input
def isfinite(input: Tensor) -> Tensor:
    """True where an element is neither infinite nor ``nan``."""
    return unary(math.isfinite, input, dtypes.bool_)
