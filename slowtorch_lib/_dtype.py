"""Data types and the rules for mixing them.

A :class:`dtype` says how each element of a tensor is stored and what kind of
number it is. The engine computes with the ten that PyTorch's programs use:

=============  ===============  ==================================
dtype          storage code     Python type of an element
=============  ===============  ==================================
``float16``    ``array('f')``   ``float`` rounded to 11-bit mantissa
``bfloat16``   ``array('f')``   ``float`` rounded to 8-bit mantissa
``float32``    ``array('f')``   ``float`` rounded to 24-bit mantissa
``float64``    ``array('d')``   ``float``
``uint8``      ``array('B')``   ``int`` from 0 to 255
``int8``       ``array('b')``   ``int`` from -128 to 127
``int16``      ``array('h')``   ``int``, 16 bits
``int32``      ``array('i')``   ``int``, 32 bits
``int64``      ``array('q')``   ``int``, 64 bits
``bool``       ``array('B')``   ``bool`` (stored as 0 or 1)
=============  ===============  ==================================

Storing ``float32`` values in an ``array('f')`` is what makes them real
single-precision numbers: every value written is rounded to the nearest
float32, exactly as PyTorch rounds. Python has no array of 16-bit floats,
so ``float16`` and ``bfloat16`` live in an ``array('f')`` too (every one of
their values is a float32), and the storage rounds each value written to
the narrower format (:mod:`slowtorch_lib._storage`). An integer written
past its type's range wraps around, as a C integer does.

PyTorch names eleven more: the complex types, the five 8-bit floats and
uint16, uint32 and uint64. Each family is made, with its rules, in its
own module of :mod:`slowtorch_lib._fidelity` (``complex_types``,
``float8``, ``wide_uint``), which registers them here (:data:`DTYPES`,
:data:`PROMOTION_FAMILIES`) and in the storage and the kernels.

Type promotion follows :func:`torch.result_type`: a result has the highest
*category* (bool < integer < floating point < complex) among its operands,
and within that category dimensioned tensors outrank zero-dimensional
tensors, which outrank plain Python numbers.
"""

from __future__ import annotations

import builtins
import math
import sys
from typing import Any, Protocol

__all__ = [
    "bfloat16",
    "bool_",
    "can_cast",
    "double",
    "dtype",
    "float",
    "float16",
    "float32",
    "finfo",
    "float64",
    "get_default_dtype",
    "half",
    "iinfo",
    "int8",
    "int16",
    "int32",
    "int64",
    "int_",
    "long",
    "promote_types",
    "PROMOTION_FAMILIES",
    "set_default_dtype",
    "short",
    "uint8",
]

Scalar = int | float | bool

# Categories, from lowest to highest.
BOOL_CATEGORY = 0
INT_CATEGORY = 1
FLOAT_CATEGORY = 2
COMPLEX_CATEGORY = 3


#: Every dtype, by name: the ten below, and those the modules of
#: :mod:`slowtorch_lib._fidelity` make.
DTYPES: dict[str, dtype] = {}


class dtype:
    """One element type, such as ``float32``, with every fact the engine
    needs about it. This is the only table of dtype facts.

    Attributes:
        name: The short name, as in ``torch.float32``.
        typecode: The :mod:`array` typecode of the storage.
        itemsize: Bytes per element.
        category: 0 for bool, 1 for integers, 2 for floating point, 3 for
            complex.
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
        pack_code: The :mod:`struct` code of one element as stored
            (``'?'`` for bool, which shares ``array('B')`` with uint8).
        mantissa_bits: For a floating-point type, its bits of precision
            (11 for float16, 8 for bfloat16, 24 for float32, 53 for
            float64); 0 for the others.
        narrow: Whether the storage must round or wrap what it is given
            (the 16-bit and 8-bit floats, the integers narrower than int64,
            and uint64).
        float8: The layout of an 8-bit float
            (:class:`slowtorch_lib._fidelity.float8.Float8Format`); None for
            the other types.
        unpromotable: For the types PyTorch will not promote with any
            other, the words of its refusal (``'Float8 Types'``); empty
            for the others. These types have only a few kernels.
        is_complex: Whether elements are complex numbers.
        differentiable: Whether gradients flow through the type: the
            floating-point and complex types.
        is_signed: Whether the type holds negative numbers.
        eps: ``finfo(...).eps`` where it is not ``2 ** (1 - mantissa_bits)``
            (an 8-bit float's), else None.
        smallest_normal: ``finfo(...).smallest_normal`` where it is not found
            from ``max`` as in an IEEE format, else None.

    Every dtype made is kept in :data:`DTYPES` under its name.
    """

    __slots__ = (
        "c_name",
        "category",
        "differentiable",
        "cpp_type",
        "eps",
        "cpp_type_name",
        "float8",
        "is_complex",
        "is_floating_point",
        "is_signed",
        "itemsize",
        "legacy_type_name",
        "mantissa_bits",
        "max",
        "min",
        "name",
        "narrow",
        "pack_code",
        "smallest_normal",
        "typecode",
        "unpromotable",
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
        mantissa_bits: int = 0,
        float8: Any = None,
        unpromotable: str = "",
        eps: builtins.float | None = None,
        smallest_normal: builtins.float | None = None,
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
        self.pack_code = "?" if category == BOOL_CATEGORY else typecode
        self.mantissa_bits = mantissa_bits
        self.float8 = float8
        self.unpromotable = unpromotable
        self.is_complex = category == COMPLEX_CATEGORY
        self.differentiable = category >= FLOAT_CATEGORY
        self.is_signed = limits[0] < 0 or self.is_complex
        narrow_float = category == FLOAT_CATEGORY and itemsize <= 2
        narrow_integer = category == INT_CATEGORY and (itemsize < 8 or typecode == "Q")
        self.narrow = narrow_float or narrow_integer
        self.eps = eps
        self.smallest_normal = smallest_normal
        DTYPES[name] = self

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # pickle stores the name; loading gives back the one dtype object.
        return (_dtype_named, (self.name,))

    def to_python(self, value: Scalar) -> Scalar:
        """Converts a stored element to the Python number it stands for."""
        if self.is_complex:
            return builtins.complex(value)  # type: ignore[return-value]
        if self.category >= FLOAT_CATEGORY:
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
    mantissa_bits=24,
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
    mantissa_bits=53,
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
float16 = dtype(
    "float16",
    "f",
    2,
    FLOAT_CATEGORY,
    "Half",
    "c10::Half",
    "c10::Half",
    (-65504.0, 65504.0),
    mantissa_bits=11,
)
bfloat16 = dtype(
    "bfloat16",
    "f",
    2,
    FLOAT_CATEGORY,
    "BFloat16",
    "c10::BFloat16",
    "c10::BFloat16",
    (-3.3895313892515355e38, 3.3895313892515355e38),
    mantissa_bits=8,
)
int8 = dtype("int8", "b", 1, INT_CATEGORY, "Char", "int8_t", "signed char", (-128, 127))
int16 = dtype(
    "int16", "h", 2, INT_CATEGORY, "Short", "int16_t", "short int", (-32768, 32767)
)
int32 = dtype("int32", "i", 4, INT_CATEGORY, "Int", "int", "int", (-(2**31), 2**31 - 1))
uint8 = dtype(
    "uint8", "B", 1, INT_CATEGORY, "Byte", "uint8_t", "unsigned char", (0, 255)
)

# PyTorch's aliases.
float = float32
double = float64
half = float16
long = int64
int_ = int32
short = int16

# The ten dtypes the chapters teach.
ALL_DTYPES = (
    float16,
    bfloat16,
    float32,
    float64,
    uint8,
    int8,
    int16,
    int32,
    int64,
    bool_,
)


def _dtype_named(name: str) -> dtype:
    """The dtype called ``name`` (how pickle finds a dtype again)."""
    if name not in DTYPES:
        raise ValueError(f"no dtype named {name!r}")
    return DTYPES[name]


# The real type of each complex type's parts, and back: filled by the
# complex types' module (:mod:`slowtorch_lib._fidelity.complex_types`).
COMPLEX_PARTS: dict[dtype, dtype] = {}
COMPLEX_OF: dict[dtype, dtype] = {}


#: The Python types that torch takes where it takes a dtype:
#: ``zeros(2, dtype=float)`` holds float64 zeros.
PYTHON_TYPES: dict[type, dtype] = {
    builtins.bool: bool_,
    builtins.int: int64,
    builtins.float: float64,
}


def python_type_dtype(value: object) -> object:
    """The dtype that a Python type stands for (``float``: float64), else ``value``."""
    if isinstance(value, type) and value in PYTHON_TYPES:
        return PYTHON_TYPES[value]
    return value


def dtype_arg(value: object, function: str) -> dtype | None:
    """The dtype that a function's ``dtype`` argument names, or None if none.

    A Python type names its dtype as in torch: ``float`` is float64, ``int``
    int64, ``bool`` bool and ``complex`` complex128.

    Raises:
        TypeError: For anything else, as PyTorch does
            ("zeros(): argument 'dtype' must be torch.dtype, not str").
    """
    named = python_type_dtype(value)
    if named is None or isinstance(named, dtype):
        return named
    raise TypeError(
        f"{function}(): argument 'dtype' must be torch.dtype, "
        f"not {type(value).__name__}"
    )


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


class PromotionFamily(Protocol):
    """How a family of dtypes beyond the ten promotes."""

    def promote(self, a: dtype, b: dtype) -> dtype:
        """:func:`promote_types` of two different dtypes, one the family's."""

    def lifted(self, result: dtype, higher: dtype) -> dtype:
        """:func:`_lifted` for ``higher``, the family's."""


#: The promotion rules of each dtype beyond the ten, registered by its
#: family's module in :mod:`slowtorch_lib._fidelity`.
PROMOTION_FAMILIES: dict[dtype, PromotionFamily] = {}


def promote_types(a: dtype, b: dtype) -> dtype:
    """Returns the smallest dtype that holds values of both ``a`` and ``b``.

    >>> promote_types(int64, float32)
    torch.float32

    A dtype beyond the ten promotes by its family's rule: PyTorch refuses
    to mix a few types it has little arithmetic for, and a complex type
    takes parts wide enough for both.
    """
    if a is b:
        return a
    family = PROMOTION_FAMILIES.get(a) or PROMOTION_FAMILIES.get(b)
    if family is not None:
        return family.promote(a, b)
    if a.category != b.category:
        return a if a.category > b.category else b
    if a.itemsize != b.itemsize:  # the wider type holds both
        return a if a.itemsize > b.itemsize else b
    # Same width, different types: float16 and bfloat16 both fit float32;
    # uint8 and int8 both fit int16.
    return float32 if a.is_floating_point else int16


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
    if isinstance(value, complex):
        return COMPLEX_OF[_default_dtype]
    return _default_dtype


def scalar_category(value: Scalar) -> int:
    """The category (bool, integer or float) of a Python number."""
    if isinstance(value, bool):
        return BOOL_CATEGORY
    if isinstance(value, int):
        return INT_CATEGORY
    if isinstance(value, complex):
        return COMPLEX_CATEGORY
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
            result = _lifted(result, group_dtype)
    for value in scalars:
        category = scalar_category(value)
        if result is None or category > result.category:
            result = _lifted(result, scalar_dtype(value))
    assert result is not None, "result_dtype needs at least one operand"
    return result


def _lifted(result: dtype | None, higher: dtype) -> dtype:
    """The type an operand of a higher category but lower priority gives.

    For the ten dtypes that is ``higher``, found as :func:`promote_types`
    finds it (so that PyTorch's refusals apply); a family beyond the ten
    may say otherwise.
    """
    if result is None:
        return higher
    family = PROMOTION_FAMILIES.get(higher)
    if family is not None:
        return family.lifted(result, higher)
    return promote_types(result, higher)


class iinfo:
    """The range of an integer dtype: ``torch.iinfo(torch.int8).max`` is 127.

    Raises:
        TypeError: For a floating-point dtype or bool, as in PyTorch.
    """

    def __init__(self, type: dtype) -> None:
        type = python_type_dtype(type)  # type: ignore[assignment]
        if type is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if not isinstance(type, dtype) or type.category != INT_CATEGORY:
            raise TypeError(
                "torch.iinfo() requires an integer input type. "
                "Use torch.finfo to handle 'torch.iinfo'"
            )
        self.bits = 8 * type.itemsize
        self.min = builtins.int(type.min)
        self.max = builtins.int(type.max)
        self.dtype = type.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


class finfo:
    """The limits of a floating-point dtype (the default dtype if none).

    ``eps`` is the gap between 1 and the next number, ``tiny`` (also
    ``smallest_normal``) the smallest positive normal number, and
    ``resolution`` the power of ten of the decimal digits it keeps.

    Raises:
        TypeError: For an integer dtype or bool, as in PyTorch.
    """

    def __init__(self, type: dtype | None = None) -> None:
        given = _default_dtype if type is None else python_type_dtype(type)
        real = COMPLEX_PARTS.get(given, given) if isinstance(given, dtype) else None
        if real is None or not real.is_floating_point:
            raise TypeError(
                "torch.finfo() requires a floating point input type. "
                "Use torch.iinfo to handle 'torch.finfo'"
            )
        type = real
        precision = type.mantissa_bits
        self.bits = 8 * type.itemsize
        self.eps = type.eps or 2.0 ** (1 - precision)
        self.max = builtins.float(type.max)
        self.min = builtins.float(type.min)
        self.tiny = self.smallest_normal = _smallest_normal(type)
        digits = math.floor((precision - 1) * math.log10(2))
        self.resolution = 10.0**-digits
        self.dtype = type.name

    def __repr__(self) -> str:
        fields = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")
        shown = ", ".join(f"{name}={getattr(self, name):g}" for name in fields)
        return f"finfo({shown}, dtype={self.dtype})"


def _smallest_normal(d: dtype) -> builtins.float:
    """The smallest positive number of ``d`` with its full precision."""
    if d.smallest_normal is not None:
        return d.smallest_normal
    largest_exponent = math.frexp(d.max)[1] - 1
    return 2.0 ** (1 - largest_exponent)
