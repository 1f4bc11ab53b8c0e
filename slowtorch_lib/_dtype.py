"""Data types and the rules for mixing them.

A :class:`dtype` says how each element of a tensor is stored and what kind of
number it is. The engine keeps four, as in PyTorch:

=============  ===============  ==================================
dtype          storage code     Python type of an element
=============  ===============  ==================================
``float32``    ``array('f')``   ``float`` rounded to 24-bit mantissa
``float64``    ``array('d')``   ``float``
``int64``      ``array('q')``   ``int``
``bool``       ``array('B')``   ``bool`` (stored as 0 or 1)
=============  ===============  ==================================

Storing ``float32`` values in an ``array('f')`` is what makes them real
single-precision numbers: every value written is rounded to the nearest
float32, exactly as PyTorch rounds.

Type promotion follows :func:`torch.result_type`: a result has the highest
*category* (bool < integer < floating point) among its operands, and within
that category dimensioned tensors outrank zero-dimensional tensors, which
outrank plain Python numbers.
"""

from __future__ import annotations

import builtins
import sys
from typing import Any

__all__ = [
    "bool_",
    "can_cast",
    "double",
    "dtype",
    "float",
    "float32",
    "float64",
    "get_default_dtype",
    "int64",
    "long",
    "promote_types",
    "set_default_dtype",
]

Scalar = int | float | bool

# Categories, from lowest to highest.
BOOL_CATEGORY = 0
INT_CATEGORY = 1
FLOAT_CATEGORY = 2


class dtype:
    """One element type, such as ``float32``, with every fact the engine
    needs about it. This is the only table of dtype facts.

    Attributes:
        name: The short name, as in ``torch.float32``.
        typecode: The :mod:`array` typecode of the storage.
        itemsize: Bytes per element.
        category: 0 for bool, 1 for integers, 2 for floating point.
        is_floating_point: Whether elements are real numbers.
        c_name: PyTorch's name of the type in messages (``'Float'``,
            ``'Long'``), as in ``"exp" not implemented for 'Long'``.
        cpp_type: The C++ type of an element (``'int64_t'``), as in
            ``value cannot be converted to type int64_t without overflow``.
        cpp_type_name: How C++ spells that type when it prints it
            (``'long int'``), as in ``float != long int``.
        legacy_type_name: The old class name, ``'torch.FloatTensor'``, that
            ``tensor.type()`` returns.
        min: The smallest finite value an element can hold.
        max: The largest finite value an element can hold.
    """

    __slots__ = (
        "c_name",
        "category",
        "cpp_type",
        "cpp_type_name",
        "is_floating_point",
        "itemsize",
        "legacy_type_name",
        "max",
        "min",
        "name",
        "typecode",
    )

    def __init__(
        self,
        name: str,
        typecode: str,
        itemsize: int,
        category: int,
        c_name: str,
        cpp_type: str,
        cpp_type_name: str,
        limits: tuple[Scalar, Scalar],
    ) -> None:
        self.name = name
        self.typecode = typecode
        self.itemsize = itemsize
        self.category = category
        self.is_floating_point = category == FLOAT_CATEGORY
        self.c_name = c_name
        self.cpp_type = cpp_type
        self.cpp_type_name = cpp_type_name
        self.legacy_type_name = f"torch.{c_name}Tensor"
        self.min, self.max = limits

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # pickle stores the name; loading gives back the one dtype object.
        return (_dtype_named, (self.name,))

    def to_python(self, value: Scalar) -> Scalar:
        """Converts a stored element to the Python number it stands for."""
        if self.category == FLOAT_CATEGORY:
            return builtins.float(value)
        if self.category == INT_CATEGORY:
            return int(value)
        return bool(value)


FLOAT32_MAX = 3.4028234663852886e38
FLOAT64_MAX = sys.float_info.max

float32 = dtype(
    "float32",
    "f",
    4,
    FLOAT_CATEGORY,
    "Float",
    "float",
    "float",
    (-FLOAT32_MAX, FLOAT32_MAX),
)
float64 = dtype(
    "float64",
    "d",
    8,
    FLOAT_CATEGORY,
    "Double",
    "double",
    "double",
    (-FLOAT64_MAX, FLOAT64_MAX),
)
int64 = dtype(
    "int64",
    "q",
    8,
    INT_CATEGORY,
    "Long",
    "int64_t",
    "long int",
    (-(2**63), 2**63 - 1),
)
bool_ = dtype("bool", "B", 1, BOOL_CATEGORY, "Bool", "bool", "bool", (False, True))

# PyTorch's aliases.
float = float32
double = float64
long = int64

ALL_DTYPES = (float32, float64, int64, bool_)


def _dtype_named(name: str) -> dtype:
    """The dtype called ``name`` (how pickle finds a dtype again)."""
    for d in ALL_DTYPES:
        if d.name == name:
            return d
    raise ValueError(f"no dtype named {name!r}")


_default_dtype = float32


def get_default_dtype() -> dtype:
    """Returns the dtype of new floating-point tensors (``float32`` at start)."""
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    """Sets the dtype used for new floating-point tensors.

    Raises:
        TypeError: If ``d`` is not ``float32`` or ``float64``.
    """
    global _default_dtype
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(
            f"only floating-point types are supported as the default type, got {d!r}"
        )
    _default_dtype = d


def promote_types(a: dtype, b: dtype) -> dtype:
    """Returns the smallest dtype that holds values of both ``a`` and ``b``.

    >>> promote_types(int64, float32)
    torch.float32
    """
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    # Same category and different dtypes: only float32 / float64 is possible.
    return float64


def can_cast(from_: dtype, to: dtype) -> bool:
    """Whether values of ``from_`` may be stored in ``to`` by an in-place op.

    Casting may keep or raise the category (bool to integer to floating
    point), never lower it: ``can_cast(float32, int64)`` is False, since
    the fraction would be lost. Between the two float types either way is
    allowed.

    >>> can_cast(int64, float32)
    True
    """
    return from_.category <= to.category


def scalar_dtype(value: object) -> dtype:
    """The dtype a Python number takes when it stands alone as a tensor."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    return _default_dtype


def scalar_category(value: Scalar) -> int:
    """The category (bool, integer or float) of a Python number."""
    if isinstance(value, bool):
        return BOOL_CATEGORY
    if isinstance(value, int):
        return INT_CATEGORY
    return FLOAT_CATEGORY


def result_dtype(
    dimensioned: list[dtype], zero_dim: list[dtype], scalars: list[Scalar]
) -> dtype:
    """Applies PyTorch's promotion rule to the operands of one operation.

    Args:
        dimensioned: dtypes of the operands that are tensors with ``dim() > 0``.
        zero_dim: dtypes of the operands that are 0-d tensors.
        scalars: the operands that are plain Python numbers.

    Returns:
        The dtype of the result. A lower-priority group changes the result
        only when it brings a higher category: ``int64 tensor * 2.5`` is
        float (the default dtype), ``float32 tensor * float64 0-d tensor``
        stays ``float32``.
    """
    result: dtype | None = None
    for group in (dimensioned, zero_dim):
        group_dtype: dtype | None = None
        for d in group:
            group_dtype = d if group_dtype is None else promote_types(group_dtype, d)
        if group_dtype is None:
            continue
        if result is None or group_dtype.category > result.category:
            result = group_dtype
    for value in scalars:
        category = scalar_category(value)
        if result is None or category > result.category:
            result = scalar_dtype(value)
    assert result is not None, "result_dtype needs at least one operand"
    return result
