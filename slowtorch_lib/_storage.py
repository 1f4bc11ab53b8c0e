"""Flat storage: the one buffer that a tensor and all of its views share.

The storage is where a value becomes an element of its dtype: an
``array('f')`` rounds to float32, and :func:`stored_array` also rounds to
float16, bfloat16 or an 8-bit float and wraps integers into a narrow
type's range. Python's ``array`` has no complex typecode, so a complex
tensor's storage is a :class:`ComplexArray`: a list of Python ``complex``
numbers whose parts are rounded to the part type (float32 for
``complex64``) on every write, as a float32 storage rounds.
"""

from __future__ import annotations

import functools
import math
import sys
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from struct import error as PackError
from struct import pack, unpack
from typing import Any

from slowtorch_lib._dtype import COMPLEX_PARTS, Float8Format, Scalar, dtype

__all__ = [
    "ComplexArray",
    "ComplexParts",
    "PartsView",
    "Storage",
    "array_from_bytes",
    "array_to_bytes",
    "stored_array",
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
    """

    __slots__ = ("_parts", "data", "dtype", "version")

    def __init__(self, values: Sequence[Scalar], d: dtype) -> None:
        self.data = stored_array(values, d)
        self.dtype = d
        self.version = 0
        self._parts: PartsView | None = None

    def __len__(self) -> int:
        return len(self.data)

    def parts(self) -> PartsView:
        """This complex storage seen as its real and imaginary parts (made
        once, so that every real view of it shares one storage)."""
        if self._parts is None:
            self._parts = PartsView(self)
        return self._parts


class PartsView(Storage):
    """The storage of the real views of a complex tensor: ``view_as_real(z)``,
    ``z.real`` and ``z.imag``.

    Cell ``2k`` is the real part of cell ``k`` of the complex storage, cell
    ``2k + 1`` its imaginary part, as in PyTorch's memory, where a complex
    number is two floats side by side. Reading and writing go through to
    the complex storage (:class:`ComplexParts`), and the version counter is
    the complex storage's own: a change through either side is seen, and
    counted, by both.
    """

    __slots__ = ("whole",)

    def __init__(self, whole: Storage) -> None:
        self.whole = whole
        self.dtype = COMPLEX_PARTS[whole.dtype]
        cells: Any = whole.data  # a ComplexArray
        self.data = ComplexParts(cells, self.dtype)  # type: ignore[assignment]
        self._parts = None

    @property  # type: ignore[override]
    def version(self) -> int:
        return self.whole.version

    @version.setter
    def version(self, value: int) -> None:
        self.whole.version = value


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
    if d.is_complex:
        return ComplexArray(values, d)  # type: ignore[return-value]
    data = _to_array(values, d)
    if d.float8:
        return _rounded_to_float8(data, d.float8)
    if d.mantissa_bits == 11:
        return _rounded_to_float16(data)
    if d.mantissa_bits == 8:
        return _rounded_to_bfloat16(data)
    return data


class ComplexArray(list[complex]):
    """The storage of a complex tensor: Python ``complex`` numbers in a list.

    It reads like an ``array``: ``tolist()`` and a slice give copies. Every
    value written is made complex and its real and imaginary parts are
    rounded as the part type's storage rounds them (:func:`complex_values`).
    """

    __slots__ = ("dtype",)

    def __init__(self, values: Any, d: dtype) -> None:
        super().__init__(complex_values(values, d))
        self.dtype = d

    @property
    def typecode(self) -> str:
        return self.dtype.typecode

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def tolist(self) -> list[complex]:
        return list(self)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return ComplexArray(super().__getitem__(index), self.dtype)
        return super().__getitem__(index)

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, slice):
            super().__setitem__(index, complex_values(value, self.dtype))
        else:
            super().__setitem__(index, complex_values([value], self.dtype)[0])


def complex_values(values: Any, d: dtype) -> list[complex]:
    """``values`` as complex numbers whose parts are elements of ``d``'s part
    type (float32 for ``complex64``: each part rounded to float32)."""
    numbers = [complex(v) for v in values]
    part = COMPLEX_PARTS[d]
    if not part.narrow and part.typecode == "d":
        return numbers
    reals = stored_array([v.real for v in numbers], part)
    imags = stored_array([v.imag for v in numbers], part)
    return list(map(complex, reals, imags))


class ComplexParts:
    """The parts of a :class:`ComplexArray`'s numbers, as one flat sequence.

    Item ``2k`` is ``cells[k].real`` and item ``2k + 1`` is
    ``cells[k].imag``. Writing an item writes the complex number with that
    part changed (rounded to the part type as the complex storage rounds).
    It reads like an ``array`` of the part type: a slice is a new one.
    """

    __slots__ = ("cells", "itemsize", "typecode")

    def __init__(self, cells: list[complex], part: dtype) -> None:
        self.cells = cells
        self.typecode = part.typecode
        self.itemsize = part.itemsize

    def __len__(self) -> int:
        return 2 * len(self.cells)

    def __iter__(self) -> Any:
        return iter(self.tolist())

    def tolist(self) -> list[float]:
        return [part for z in self.cells for part in (z.real, z.imag)]

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            chosen = range(*index.indices(len(self)))
            return array(self.typecode, [self[i] for i in chosen])
        number = self.cells[index >> 1]
        return number.imag if index & 1 else number.real

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, slice):
            for i, one in zip(range(*index.indices(len(self))), value):
                self[i] = one
            return
        number = self.cells[index >> 1]
        if index & 1:
            self.cells[index >> 1] = complex(number.real, value)
        else:
            self.cells[index >> 1] = complex(value, number.imag)


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


def _rounded_to_float8(data: array[Any], layout: Float8Format) -> array[Any]:
    """float32 values rounded to an 8-bit float, as PyTorch converts them.

    The nearest number of the format is found among its positive numbers
    (:func:`float8_numbers`); a tie goes to the even code, except in
    ``float8_e8m0fnu`` (see :func:`_one_e8m0`).
    """
    numbers = float8_numbers(layout)
    if layout.mantissa_bits == 0:
        return array("f", (_one_e8m0(v, numbers) for v in data))
    return array("f", (_one_float8(v, layout, numbers) for v in data))


@functools.cache
def float8_numbers(layout: Float8Format) -> tuple[float, ...]:
    """The finite numbers from 0 up of an 8-bit float, in code order."""
    return tuple(layout.value(code) for code in range(layout.finite_codes))


def _one_float8(value: float, layout: Float8Format, numbers: Sequence[float]) -> float:
    """One value rounded to nearest, ties to even, past the top as the
    format says (``float8_e4m3fn`` saturates, ``e5m2`` gives infinity, the
    ``fnuz`` types ``nan``)."""
    if value != value:
        return math.nan
    magnitude = abs(value)
    largest = numbers[-1]
    if magnitude > largest:
        half_step = (largest - numbers[-2]) / 2
        if layout.overflow == "max" or magnitude < largest + half_step:
            rounded = largest
        else:
            rounded = math.inf if layout.overflow == "inf" else math.nan
    else:
        rounded = _nearest(magnitude, numbers)
    if rounded == 0 and not layout.negative_zero:
        return 0.0
    return math.copysign(rounded, value)


def _nearest(magnitude: float, numbers: Sequence[float]) -> float:
    """The number nearest ``magnitude`` (ties to the even code)."""
    above = bisect_left(numbers, magnitude)
    if numbers[above] == magnitude:
        return magnitude
    low, high = numbers[above - 1], numbers[above]
    if magnitude - low != high - magnitude:
        return low if magnitude - low < high - magnitude else high
    return high if above % 2 == 0 else low


def _one_e8m0(value: float, numbers: Sequence[float]) -> float:
    """One value as a ``float8_e8m0fnu``: a power of two from 2**-127 to
    2**127, with no sign and no zero.

    The sign is dropped, anything up to the smallest power becomes it
    (and anything between it and the next, the next), a value halfway
    between two powers goes up, and ``inf``, ``nan`` and what rounds past
    2**127 become ``nan``.
    """
    magnitude = abs(value)
    if magnitude != magnitude or magnitude == math.inf:
        return math.nan
    if magnitude <= numbers[0]:
        return numbers[0]
    if magnitude < numbers[1]:  # a float32 subnormal: PyTorch rounds it up
        return numbers[1]
    fraction, exponent = math.frexp(magnitude)  # fraction in [0.5, 1)
    rounded = math.ldexp(1.0, exponent if fraction >= 0.75 else exponent - 1)
    return rounded if rounded <= numbers[-1] else math.nan


def _to_array(values: Sequence[Scalar], d: dtype) -> array[Any]:
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
    order = "<" if byteorder == "little" else ">"
    if d.is_complex:  # the parts, real then imaginary, of each element
        parts = [part for v in data for part in (v.real, v.imag)]
        part = COMPLEX_PARTS[d]
        return array_to_bytes(array(part.typecode, parts), part, byteorder)
    if d.mantissa_bits == 11:
        return pack(f"{order}{len(data)}e", *data)
    if d.mantissa_bits == 8:
        upper = array("H", (b >> 16 for b in array("I", data.tobytes())))
        return _swapped(upper, byteorder).tobytes()
    return _swapped(array(d.typecode, data), byteorder).tobytes()


def array_from_bytes(raw: bytes, d: dtype, byteorder: str) -> array[Any]:
    """The elements of dtype ``d`` in ``raw``, as :func:`array_to_bytes` wrote."""
    if d.is_complex:
        parts = array_from_bytes(raw, COMPLEX_PARTS[d], byteorder)
        pairs = map(complex, parts[::2], parts[1::2])
        return ComplexArray(pairs, d)  # type: ignore[return-value]
    order = "<" if byteorder == "little" else ">"
    if d.mantissa_bits == 11:
        return array("f", unpack(f"{order}{len(raw) // 2}e", raw))
    if d.mantissa_bits == 8:
        upper = _swapped(array("H", raw), byteorder)
        return array("f", array("I", (h << 16 for h in upper)).tobytes())
    return _swapped(array(d.typecode, raw), byteorder)


def _swapped(data: array[Any], byteorder: str) -> array[Any]:
    """``data`` (native order) changed in place to ``byteorder``, and back."""
    if byteorder != sys.byteorder:
        data.byteswap()
    return data
