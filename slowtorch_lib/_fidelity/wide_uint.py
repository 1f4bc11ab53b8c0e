"""How uint32 and uint64 are converted from floats.

PyTorch on x86 converts a float to uint32 or uint64 by its own rule
(:func:`float_to_wide_unsigned`), not through a 32-bit integer as for the
narrow types. The rule is registered for these two types in
:data:`slowtorch_lib._kernels.CAST_FAMILIES`; uint16 converts as int16 does.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import CAST_FAMILIES, cast_values, convert_values
from slowtorch_lib._storage import wrap_integer

__all__ = ["WIDE_UNSIGNED", "float_to_wide_unsigned"]


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
        if source in (dtypes.uint32, dtypes.uint64):
            return cast_values(values, dtypes.int64, target)
        if source.is_floating_point:
            bits = 8 * target.itemsize
            values = [float_to_wide_unsigned(v, bits) for v in values]
            source = dtypes.int64
        return convert_values(values, source, target)


WIDE_UNSIGNED = WideUnsigned()
CAST_FAMILIES[dtypes.uint32] = WIDE_UNSIGNED
CAST_FAMILIES[dtypes.uint64] = WIDE_UNSIGNED
