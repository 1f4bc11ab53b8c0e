"""Flat storage: the one buffer that a tensor and all of its views share."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from struct import error as PackError
from struct import pack
from typing import Any

from slowtorch_lib._dtype import Scalar, dtype

__all__ = ["Storage", "wrap_int64"]


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

    __slots__ = ("data", "dtype", "version")

    def __init__(self, values: Sequence[Scalar], d: dtype) -> None:
        self.data = _to_array(values, d.typecode)
        self.dtype = d
        self.version = 0

    def __len__(self) -> int:
        return len(self.data)


def wrap_int64(value: int) -> int:
    """``value`` wrapped into int64's range, as a C integer overflows.

    Only the low 64 bits are kept, read as a signed number: ``2**63``
    becomes ``-2**63``. PyTorch's integer arithmetic wraps around this way.
    """
    return (value + 2**63) % 2**64 - 2**63


def _to_array(values: Sequence[Scalar], typecode: str) -> array[Any]:
    """A new array of ``values``, converted to the storage type.

    ``array(typecode, values)`` converts one element at a time; packing all
    the values into bytes with :func:`struct.pack` and loading the bytes is
    about three times faster, so that is tried first. It refuses what
    ``array`` accepts (a float too large for float32 becomes ``inf`` in an
    ``array('f')``), and then the plain constructor does the work.
    """
    if isinstance(values, array):
        return array(typecode, values)
    data = array(typecode)
    try:
        data.frombytes(pack(f"{len(values)}{_PACK_CODES[typecode]}", *values))
    except (PackError, OverflowError, TypeError):
        try:
            data = array(typecode, values)  # type: ignore[arg-type]
        except OverflowError:  # int64 arithmetic went past 2**63: wrap around
            if typecode != "q":
                raise
            data = array(typecode, map(wrap_int64, values))  # type: ignore[arg-type]
    return data


# struct's code for each array typecode: same letters, but bool storage
# ('B', one byte) packs Python bools with '?'.
_PACK_CODES = {"f": "f", "d": "d", "q": "q", "B": "?"}
