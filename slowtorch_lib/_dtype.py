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

PyTorch names more types, with fewer operations, and so does the engine.
``uint16``, ``uint32`` and ``uint64`` (``array('H')``, ``'I'``, ``'Q'``) and
the five 8-bit floats (``float8_e4m3fn``, ``float8_e5m2``,
``float8_e4m3fnuz``, ``float8_e5m2fnuz``, ``float8_e8m0fnu``, kept in an
``array('f')`` and rounded on every write) can be made, printed, copied and
converted; most arithmetic on them raises, and PyTorch refuses to promote
them with other types (:attr:`dtype.unpromotable`).

The complex types hold Python ``complex`` numbers, in a list rather than
an ``array`` (which has no complex typecode), each part rounded to the
part type: float32 for ``complex64``, float64 for ``complex128``, float16
for ``complex32`` (:class:`slowtorch_lib._storage.ComplexArray`).
``complex64`` and ``complex128`` have arithmetic, the functions ``exp``,
``log``, ``sqrt``, ``sin``... through :mod:`cmath`, sums and matrix
products; ``complex32``, as in PyTorch, only a few loops. Where PyTorch
has no complex loop (``<``, ``max``, ``floor``...) the engine raises its
error, from one table (:mod:`slowtorch_lib._tensor_kernels`).

Type promotion follows :func:`torch.result_type`: a result has the highest
*category* (bool < integer < floating point < complex) among its operands,
and within that category dimensioned tensors outrank zero-dimensional
tensors, which outrank plain Python numbers.
"""

from __future__ import annotations

import builtins
import math
import sys
from typing import Any, NamedTuple, Protocol

__all__ = [
    "bfloat16",
    "bool_",
    "can_cast",
    "cdouble",
    "cfloat",
    "chalf",
    "complex32",
    "complex64",
    "complex128",
    "double",
    "dtype",
    "float",
    "float16",
    "float32",
    "finfo",
    "float64",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
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
    "uint16",
    "uint32",
    "uint64",
]

Scalar = int | float | bool

# Categories, from lowest to highest.
BOOL_CATEGORY = 0
INT_CATEGORY = 1
FLOAT_CATEGORY = 2
COMPLEX_CATEGORY = 3


class Float8Format(NamedTuple):
    """How an 8-bit float spends its bits, and what its edges do.

    Attributes:
        exponent_bits: Bits of the exponent.
        mantissa_bits: Bits of the stored fraction (without the hidden 1).
        bias: What is subtracted from the stored exponent.
        finite_codes: How many codes, from 0 up, are finite positive
            numbers (the ones above are infinity or ``nan``).
        overflow: What a value past the largest becomes: ``"max"`` (it
            saturates), ``"inf"`` (IEEE's rule) or ``"nan"``.
        negative_zero: Whether ``-0.0`` exists (the ``fnuz`` types spend
            that code on their one ``nan``).
        eps: ``finfo(...).eps`` as PyTorch gives it.
    """

    exponent_bits: int
    mantissa_bits: int
    bias: int
    finite_codes: int
    overflow: str
    negative_zero: bool
    eps: builtins.float

    def value(self, code: int) -> builtins.float:
        """The number that positive code ``code`` stands for."""
        exponent = code >> self.mantissa_bits
        fraction = code & ((1 << self.mantissa_bits) - 1)
        if self.mantissa_bits == 0:  # float8_e8m0fnu: powers of two only
            return 2.0 ** (exponent - self.bias)
        scale = 2.0 ** (max(exponent, 1) - self.bias - self.mantissa_bits)
        hidden = 1 << self.mantissa_bits if exponent else 0
        return (hidden + fraction) * scale


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
        float8: The layout of an 8-bit float; None for the other types.
        unpromotable: For the types PyTorch will not promote with any
            other, the words of its refusal (``'Float8 Types'``); empty
            for the others. These types have only a few kernels.
        is_complex: Whether elements are complex numbers.
        differentiable: Whether gradients flow through the type: the
            floating-point and complex types.
        is_signed: Whether the type holds negative numbers.
    """

    __slots__ = (
        "c_name",
        "category",
        "differentiable",
        "cpp_type",
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
        float8: Float8Format | None = None,
        unpromotable: str = "",
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
UNSIGNED_WORDS = "uint16, uint32, uint64 types"
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

uint16 = dtype(
    "uint16",
    "H",
    2,
    INT_CATEGORY,
    "UInt16",
    "uint16_t",
    "short unsigned int",
    (0, 2**16 - 1),
    unpromotable=UNSIGNED_WORDS,
)
uint32 = dtype(
    "uint32",
    "I",
    4,
    INT_CATEGORY,
    "UInt32",
    "uint32_t",
    "unsigned int",
    (0, 2**32 - 1),
    unpromotable=UNSIGNED_WORDS,
)
uint64 = dtype(
    "uint64",
    "Q",
    8,
    INT_CATEGORY,
    "UInt64",
    "uint64_t",
    "long unsigned int",
    (0, 2**64 - 1),
    unpromotable=UNSIGNED_WORDS,
)


def _float8(name: str, c_name: str, layout: Float8Format) -> dtype:
    """An 8-bit float dtype, its range read from its layout."""
    largest = layout.value(layout.finite_codes - 1)
    smallest = layout.value(0) if layout.mantissa_bits == 0 else -largest
    return dtype(
        name,
        "f",
        1,
        FLOAT_CATEGORY,
        c_name,
        f"c10::{c_name}",
        f"c10::{c_name}",
        (smallest, largest),
        mantissa_bits=layout.mantissa_bits + 1,
        float8=layout,
        unpromotable="Float8 Types",
    )


float8_e4m3fn = _float8(
    "float8_e4m3fn", "Float8_e4m3fn", Float8Format(4, 3, 7, 127, "max", True, 0.125)
)
float8_e5m2 = _float8(
    "float8_e5m2", "Float8_e5m2", Float8Format(5, 2, 15, 124, "inf", True, 0.25)
)
float8_e4m3fnuz = _float8(
    "float8_e4m3fnuz",
    "Float8_e4m3fnuz",
    Float8Format(4, 3, 8, 128, "nan", False, 0.125),
)
float8_e5m2fnuz = _float8(
    "float8_e5m2fnuz",
    "Float8_e5m2fnuz",
    Float8Format(5, 2, 16, 128, "nan", False, 0.125),
)
float8_e8m0fnu = _float8(
    "float8_e8m0fnu",
    "Float8_e8m0fnu",
    Float8Format(8, 0, 127, 255, "nan", False, 1.0),
)


def _complex(name: str, c_name: str, itemsize: int, part: dtype) -> dtype:
    """A complex dtype whose real and imaginary parts are of dtype ``part``."""
    return dtype(
        name,
        part.typecode,
        itemsize,
        COMPLEX_CATEGORY,
        c_name,
        f"c10::complex<{part.cpp_type_name.removeprefix('c10::')}>",
        f"c10::complex<{part.cpp_type_name.removeprefix('c10::')}>",
        (part.min, part.max),
        mantissa_bits=part.mantissa_bits,
    )


complex32 = _complex("complex32", "ComplexHalf", 4, float16)
complex64 = _complex("complex64", "ComplexFloat", 8, float32)
complex128 = _complex("complex128", "ComplexDouble", 16, float64)

# The real type of each complex type's parts, and back.
COMPLEX_PARTS = {complex32: float16, complex64: float32, complex128: float64}
COMPLEX_OF = {part: whole for whole, part in COMPLEX_PARTS.items()}

# PyTorch's aliases.
float = float32
double = float64
half = float16
long = int64
int_ = int32
short = int16
chalf = complex32
cfloat = complex64
cdouble = complex128

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
# The types PyTorch names beyond those, with few kernels or none here.
LIMITED_DTYPES = (
    uint16,
    uint32,
    uint64,
    float8_e4m3fn,
    float8_e5m2,
    float8_e4m3fnuz,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    complex32,
    complex64,
    complex128,
)


def _dtype_named(name: str) -> dtype:
    """The dtype called ``name`` (how pickle finds a dtype again)."""
    for d in ALL_DTYPES + LIMITED_DTYPES:
        if d.name == name:
            return d
    raise ValueError(f"no dtype named {name!r}")


#: The Python types that torch takes where it takes a dtype:
#: ``zeros(2, dtype=float)`` holds float64 zeros.
PYTHON_TYPES: dict[type, dtype] = {
    builtins.bool: bool_,
    builtins.int: int64,
    builtins.float: float64,
    builtins.complex: complex128,
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
        type = _default_dtype if type is None else python_type_dtype(type)  # type: ignore[assignment]
        if isinstance(type, dtype):
            type = COMPLEX_PARTS.get(type, type)
        if not isinstance(type, dtype) or not type.is_floating_point:
            raise TypeError(
                "torch.finfo() requires a floating point input type. "
                "Use torch.iinfo to handle 'torch.finfo'"
            )
        precision = type.mantissa_bits
        self.bits = 8 * type.itemsize
        self.eps = type.float8.eps if type.float8 else 2.0 ** (1 - precision)
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
    if d.float8:
        layout = d.float8
        return layout.value(1 << layout.mantissa_bits if layout.mantissa_bits else 0)
    largest_exponent = math.frexp(d.max)[1] - 1
    return 2.0 ** (1 - largest_exponent)
