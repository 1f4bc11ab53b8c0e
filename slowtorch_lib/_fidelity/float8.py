"""The five 8-bit floats, and how they are stored and converted.

``float8_e4m3fn``, ``float8_e5m2``, ``float8_e4m3fnuz``, ``float8_e5m2fnuz``
and ``float8_e8m0fnu`` can be made, printed, copied and converted; most
arithmetic on them raises (:mod:`.few_loops`), and PyTorch promotes them
with no other type (:mod:`.promotion`).

An 8-bit float is kept in an ``array('f')``, like float16, and every value
written is rounded to the nearest number of its format
(:class:`Float8Format`), with the format's own rule
past its largest number. These rules are registered for the 8-bit floats
in :data:`slowtorch_lib._storage.STORAGE_FAMILIES` and
:data:`slowtorch_lib._kernels.CAST_FAMILIES`.
"""

from __future__ import annotations

import functools
import math
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any, NamedTuple

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import FLOAT_CATEGORY, dtype
from slowtorch_lib._fidelity.wide_uint import uint32
from slowtorch_lib._kernels import CAST_FAMILIES, cast_values, convert_values
from slowtorch_lib._printing import MEASURED
from slowtorch_lib._storage import STORAGE_FAMILIES, swapped, to_array

__all__ = [
    "FLOAT8",
    "FLOAT8_TYPES",
    "Float8Format",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float8_numbers",
]


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
    eps: float

    def value(self, code: int) -> float:
        """The number that positive code ``code`` stands for."""
        exponent = code >> self.mantissa_bits
        fraction = code & ((1 << self.mantissa_bits) - 1)
        if self.mantissa_bits == 0:  # float8_e8m0fnu: powers of two only
            return 2.0 ** (exponent - self.bias)
        scale = 2.0 ** (max(exponent, 1) - self.bias - self.mantissa_bits)
        hidden = 1 << self.mantissa_bits if exponent else 0
        return (hidden + fraction) * scale


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
        eps=layout.eps,
        smallest_normal=layout.value(
            1 << layout.mantissa_bits if layout.mantissa_bits else 0
        ),
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

FLOAT8_TYPES = (
    float8_e4m3fn,
    float8_e5m2,
    float8_e4m3fnuz,
    float8_e5m2fnuz,
    float8_e8m0fnu,
)


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


def _float8_to_integer(value: float, source: dtype, target: dtype) -> float:
    """An 8-bit float's value as PyTorch's conversion to an integer sees it:
    the ``fnuz`` types' ``nan`` is 0 there, and so is anything not finite
    on its way to uint32. Other values go on to the float's conversion."""
    if value != value and source.float8 and not source.float8.negative_zero:
        return 0.0
    if target is uint32 and not math.isfinite(value):
        return 0.0
    return value


class Float8:
    """The storage and conversion rules of the 8-bit floats (see
    :class:`slowtorch_lib._storage.StorageFamily`)."""

    def stored(self, values: Sequence[Any], d: dtype) -> Any:
        assert d.float8 is not None
        return _rounded_to_float8(to_array(values, d), d.float8)

    def to_bytes(self, data: Any, d: dtype, byteorder: str) -> bytes:
        return swapped(array(d.typecode, data), byteorder).tobytes()

    def from_bytes(self, raw: bytes, d: dtype, byteorder: str) -> Any:
        return swapped(array(d.typecode, raw), byteorder)

    def cast_scalar(self, value: Any, d: dtype) -> Any:
        """An 8-bit float computes in float32."""
        return array("f", (value,))[0]

    def cast_values(self, values: list[Any], source: dtype, target: dtype) -> list[Any]:
        """Out of an 8-bit float, its values are float32 values (but for
        how an integer sees them); into one, the storage rounds."""
        if not source.float8:
            return convert_values(values, source, target)
        if target.category == dtypes.INT_CATEGORY:
            values = [_float8_to_integer(v, source, target) for v in values]
            return cast_values(values, dtypes.float64, target)
        return cast_values(values, dtypes.float32, target)


def e8m0_measured(value: float) -> bool:
    """Whether printing measures a ``float8_e8m0fnu`` value
    (:func:`slowtorch_lib._printing.nonzero_finite` for the others).

    That type has no zero and stores 0 as its smallest number, 2**-127,
    which counts as zero; and PyTorch finds its ``nan`` finite.
    """
    return value != 2.0**-127


FLOAT8 = Float8()
MEASURED[float8_e8m0fnu] = e8m0_measured
for _type in FLOAT8_TYPES:
    STORAGE_FAMILIES[_type] = FLOAT8
    CAST_FAMILIES[_type] = FLOAT8
