"""Flat storage: the one buffer that a tensor and all of its views share.

The storage is where a value becomes an element of its dtype: an
``array('f')`` rounds to float32, and :func:`stored_array` also rounds to
float16 or bfloat16 and wraps integers into a narrow type's range. A dtype
family beyond the ten the chapters teach (complex numbers, the 8-bit
floats) stores its elements its own way: its module in
:mod:`slowtorch_lib._fidelity` registers its rules in
:data:`STORAGE_FAMILIES`.
"""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Sequence
from struct import error as PackError
from struct import pack, unpack
from typing import Any, Protocol

from slowtorch_lib._dtype import Scalar, dtype

__all__ = [
    "STORAGE_FAMILIES",
    "Storage",
    "StorageFamily",
    "array_from_bytes",
    "array_to_bytes",
    "stored_array",
    "swapped",
    "to_array",
    "wrap_int64",
    "wrap_integer",
]


class Storage:
    """A flat, typed buffer of numbers plus a version counter.

    A tensor never owns its numbers directly: it owns a *view* of a
    ``Storage`` (a shape, strides and an offset). Several tensors may share
    one storage; writing through any of them changes what all of them see.

    Attributes:
        data: The numbers, as an :class:`array.array` whose typecode comes
            from the dtype. Writing a float into an ``array('f')`` rounds it
            to float32, which is how float32 tensors hold float32 values.
        dtype: The element type.
        version: Counts in-place writes. Autograd compares it with the value
            it saw when it saved a tensor, to notice a tensor changed under it.
        companion: Another storage over the same cells, made once by the
            dtype's family (the real and imaginary parts of a complex
            storage), or None.
    """

    __slots__ = ("companion", "data", "dtype", "version")

    def __init__(self, values: Sequence[Scalar], d: dtype) -> None:
        self.data = stored_array(values, d)
        self.dtype = d
        self.version = 0
        self.companion: Storage | None = None

    def __len__(self) -> int:
        return len(self.data)


class StorageFamily(Protocol):
    """How a family of dtypes beyond the ten stores its elements."""

    def stored(self, values: Sequence[Any], d: dtype) -> Any:
        """A new sequence of ``values`` as elements of ``d``."""

    def to_bytes(self, data: Any, d: dtype, byteorder: str) -> bytes:
        """Elements of ``d`` as the bytes a file holds."""

    def from_bytes(self, raw: bytes, d: dtype, byteorder: str) -> Any:
        """The elements of ``d`` in ``raw``, as :meth:`to_bytes` wrote."""


#: The storage rules of each dtype beyond the ten, registered by its
#: family's module in :mod:`slowtorch_lib._fidelity`.
STORAGE_FAMILIES: dict[dtype, StorageFamily] = {}


def wrap_int64(value: int) -> int:
    """``value`` wrapped into int64's range, as a C integer overflows.

    Only the low 64 bits are kept, read as a signed number: ``2**63``
    becomes ``-2**63``. PyTorch's integer arithmetic wraps around this way.
    """
    return (value + 2**63) % 2**64 - 2**63


def wrap_integer(value: int, d: dtype) -> int:
    """``value`` wrapped into the range of integer dtype ``d``.

    The low ``8 * d.itemsize`` bits are kept: ``300`` is ``44`` as an int8
    and as a uint8, ``-1`` is ``255`` as a uint8.
    """
    span = 2 ** (8 * d.itemsize)
    return (value - int(d.min)) % span + int(d.min)


def stored_array(values: Sequence[Scalar], d: dtype) -> array[Any]:
    """A new array of ``values`` as elements of dtype ``d``.

    float16 and bfloat16 values are first rounded to float32 (as PyTorch
    computes them in float32), then to the narrow format; integers of a
    narrow type wrap around.
    """
    family = STORAGE_FAMILIES.get(d)
    if family is not None:
        return family.stored(values, d)  # type: ignore[no-any-return]
    data = to_array(values, d)
    if d.mantissa_bits == 11:
        return _rounded_to_float16(data)
    if d.mantissa_bits == 8:
        return _rounded_to_bfloat16(data)
    return data


def _rounded_to_float16(data: array[Any]) -> array[Any]:
    """float32 values rounded to the nearest float16 (ties to even).

    :mod:`struct`'s ``'e'`` code is IEEE half precision, subnormals
    included. It refuses a value too large for float16, which PyTorch
    stores as an infinity.
    """
    count = len(data)
    try:
        return array("f", unpack(f"{count}e", pack(f"{count}e", *data)))
    except OverflowError:
        return array("f", map(_one_float16, data))


def _one_float16(value: float) -> float:
    try:
        return float(unpack("e", pack("e", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def _rounded_to_bfloat16(data: array[Any]) -> array[Any]:
    """float32 values rounded to the nearest bfloat16 (ties to even).

    A bfloat16 is the upper 16 bits of a float32. Adding ``0x7FFF`` plus
    the lowest kept bit to the 32-bit pattern and clearing the lower 16
    bits rounds to nearest, ties to even, overflowing to infinity. A
    ``nan`` stays a ``nan``.
    """
    bits = array("I", data.tobytes())
    for i, b in enumerate(bits):
        if b & 0x7FFFFFFF > 0x7F800000:  # nan
            bits[i] = 0x7FC00000
        else:
            bits[i] = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return array("f", bits.tobytes())


def to_array(values: Sequence[Scalar], d: dtype) -> array[Any]:
    """A new array of ``values``, converted to the storage type.

    ``array(typecode, values)`` converts one element at a time; packing all
    the values into bytes with :func:`struct.pack` and loading the bytes is
    about three times faster, so that is tried first. It refuses what
    ``array`` accepts (a float too large for float32 becomes ``inf`` in an
    ``array('f')``), and then the plain constructor does the work.
    """
    typecode = d.typecode
    if isinstance(values, array):
        try:
            return array(typecode, values)
        except OverflowError:  # into a narrower integer type: wrap below
            values = values.tolist()
    data = array(typecode)
    try:
        data.frombytes(pack(f"{len(values)}{d.pack_code}", *values))
    except (PackError, OverflowError, TypeError):
        try:
            data = array(typecode, values)  # type: ignore[arg-type]
        except OverflowError:  # integer arithmetic went past the range: wrap
            if d.is_floating_point:
                raise
            wrapped = (wrap_integer(int(v), d) for v in values)
            data = array(typecode, wrapped)
    return data


def array_to_bytes(data: array[Any], d: dtype, byteorder: str) -> bytes:
    """Elements of dtype ``d`` as the bytes a file holds, ``itemsize`` each.

    ``byteorder`` is ``"little"`` or ``"big"``. float16 is IEEE half
    precision; a bfloat16 is the upper half of its float32's bits.
    """
    family = STORAGE_FAMILIES.get(d)
    if family is not None:
        return family.to_bytes(data, d, byteorder)
    order = "<" if byteorder == "little" else ">"
    if d.mantissa_bits == 11:
        return pack(f"{order}{len(data)}e", *data)
    if d.mantissa_bits == 8:
        upper = array("H", (b >> 16 for b in array("I", data.tobytes())))
        return swapped(upper, byteorder).tobytes()
    return swapped(array(d.typecode, data), byteorder).tobytes()


def array_from_bytes(raw: bytes, d: dtype, byteorder: str) -> array[Any]:
    """The elements of dtype ``d`` in ``raw``, as :func:`array_to_bytes` wrote."""
    family = STORAGE_FAMILIES.get(d)
    if family is not None:
        return family.from_bytes(raw, d, byteorder)  # type: ignore[no-any-return]
    order = "<" if byteorder == "little" else ">"
    if d.mantissa_bits == 11:
        return array("f", unpack(f"{order}{len(raw) // 2}e", raw))
    if d.mantissa_bits == 8:
        upper = swapped(array("H", raw), byteorder)
        return array("f", array("I", (h << 16 for h in upper)).tobytes())
    return swapped(array(d.typecode, raw), byteorder)


def swapped(data: array[Any], byteorder: str) -> array[Any]:
    """``data`` (native order) changed in place to ``byteorder``, and back."""
    if byteorder != sys.byteorder:
        data.byteswap()
    return data
