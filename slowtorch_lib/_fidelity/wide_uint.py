"""The wide unsigned integers: ``uint16``, ``uint32`` and ``uint64``.

They are stored in ``array('H')``, ``'I'`` and ``'Q'``, can be made,
printed, copied and converted; most arithmetic on them raises
(:mod:`.few_loops`), and PyTorch refuses to promote them with any type
but a real floating-point one (:mod:`.promotion`).

PyTorch on x86 converts a float to uint32 or uint64 by its own rule
(:func:`float_to_wide_unsigned`), not through a 32-bit integer as for the
narrow types. The rule is registered for these two types in
:data:`slowtorch_lib._kernels.CAST_FAMILIES`; uint16 converts as int16 does.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import CONVERT_FAMILIES
from slowtorch_lib._dtype import INT_CATEGORY, dtype
from slowtorch_lib._kernels import CAST_FAMILIES, cast_values, convert_values
from slowtorch_lib._storage import wrap_integer

__all__ = [
    "UNSIGNED_TYPES",
    "WIDE_UNSIGNED",
    "float_to_wide_unsigned",
    "uint16",
    "uint32",
    "uint64",
]

UNSIGNED_WORDS = "uint16, uint32, uint64 types"
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
UNSIGNED_TYPES = (uint16, uint32, uint64)


def float_to_wide_unsigned(value: float, bits: int) -> int:
    """A float truncated toward zero for uint32 (``bits`` 32) or uint64 (64).

    What PyTorch on x86 gives: a float from ``-2**(bits-1)`` up to
    ``2**bits`` keeps its low bits (``-1.0`` is the largest number); a
    larger one, ``inf`` included, is 0; ``nan``, ``-inf`` and anything
    lower are ``2**(bits-1)``.
    """
    if value != value or value < -(2.0 ** (bits - 1)):
        return 2 ** (bits - 1)
    if value >= 2.0**bits:
        return 0
    return int(value) % 2**bits


class WideUnsigned:
    """The conversion rules of uint32 and uint64 (see
    :class:`slowtorch_lib._kernels.CastFamily`)."""

    def cast_scalar(self, value: Any, d: dtype) -> Any:
        if isinstance(value, float):
            value = float_to_wide_unsigned(value, 8 * d.itemsize)
        return wrap_integer(int(value), d)

    def cast_values(self, values: list[Any], source: dtype, target: dtype) -> list[Any]:
        """Out of uint32 or uint64 the values are integers as any other;
        into one, a float converts by :func:`float_to_wide_unsigned`."""
        if source in (uint32, uint64):
            return cast_values(values, dtypes.int64, target)
        if source.is_floating_point:
            bits = 8 * target.itemsize
            values = [float_to_wide_unsigned(v, bits) for v in values]
            source = dtypes.int64
        return convert_values(values, source, target)


class Uint64Numbers:
    """How uint64 takes a Python number (see
    :class:`slowtorch_lib._creation.ConvertFamily`)."""

    def convert(self, value: Any, d: dtype) -> Any:
        """A Python number as a uint64 element of ``tensor(data)``, refused
        as PyTorch refuses it: no float at all, and no negative number
        (which the narrower types wrap around)."""
        if isinstance(value, float):
            raise TypeError("an integer is required")
        if value < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if value > uint64.max:
            raise OverflowError("int too big to convert")
        return int(value)

    def checked_fill(self, value: Any, d: dtype) -> Any:
        """An int from -2**63 wraps around; floats do not."""
        low = -(2**63) if isinstance(value, int) else 0
        if not low <= value < 2**64:
            raise RuntimeError(
                f"value cannot be converted to type {d.cpp_type} without overflow"
            )
        return int(value) % 2**64


WIDE_UNSIGNED = WideUnsigned()
CONVERT_FAMILIES[uint64] = Uint64Numbers()
CAST_FAMILIES[uint32] = WIDE_UNSIGNED
CAST_FAMILIES[uint64] = WIDE_UNSIGNED
