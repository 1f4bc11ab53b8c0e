"""Whole-tensor comparisons: ``isclose``, ``allclose``, ``equal``, ``is_tensor``.

Floating-point results rarely agree to the last bit, so tests compare
within a tolerance: ``a`` is close to ``b`` if
``|a - b| <= atol + rtol * |b|`` (note: not symmetric in ``a`` and ``b``).
"""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._tensor import Tensor
from slowtorch_lib._tensor_kernels import binary
from slowtorch_lib.ops.pointwise import result_type

__all__ = ["allclose", "equal", "is_tensor", "isclose"]

_TYPE_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a tensor (a list of numbers is not)."""
    return isinstance(obj, Tensor)


def _closeness(rtol: float, atol: float, equal_nan: bool) -> Any:
    """The scalar test ``close(a, b)`` for these tolerances."""

    def close(a: Any, b: Any) -> bool:
        if a == b:  # equal numbers, and infinities of the same sign
            return True
        if a != a or b != b:
            return equal_nan and a != a and b != b
        if math.isinf(a) or math.isinf(b):
            return False
        return abs(a - b) <= atol + rtol * abs(b)

    return close


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
    if input.dtype is not other.dtype:
        mine, theirs = _TYPE_NAMES[input.dtype.name], _TYPE_NAMES[other.dtype.name]
        raise RuntimeError(f"{mine} did not match {theirs}")
    close = _closeness(rtol, atol, equal_nan)
    return binary(close, input, other, input.dtype, dtypes.bool_)


def allclose(
    input: Tensor,
    other: Tensor,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> bool:
    """Whether every element of ``input`` is close to ``other`` (see
    :func:`isclose`): a Python bool."""
    return all(isclose(input, other, rtol, atol, equal_nan)._values())


def equal(input: Tensor, other: Tensor) -> bool:
    """Whether both tensors have the same shape and the same values.

    Values are compared after promotion to a common dtype (``1.0`` equals
    ``1``); ``nan`` equals nothing, not even ``nan``.
    """
    if input._shape != other._shape:
        return False
    same = binary(lambda a, b: a == b, input, other, result_type(input, other))
    return all(same._values())
