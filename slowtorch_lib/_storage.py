"""Flat storage: the one buffer that a tensor and all of its views share."""

from __future__ import annotations

from array import array
from typing import Iterable

from slowtorch_lib._dtype import Number, dtype

__all__ = ["Storage"]


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

    def __init__(self, values: Iterable[Number], d: dtype) -> None:
        self.data = array(d.typecode, values)
        self.dtype = d
        self.version = 0

    def __len__(self) -> int:
        return len(self.data)
