"""How complex numbers are stored, converted and written to files.

Python's ``array`` has no complex typecode, so a complex tensor's storage
is a :class:`ComplexArray`: a list of Python ``complex`` numbers whose
parts are rounded to the part type (float32 for ``complex64``) on every
write, as a float32 storage rounds. ``view_as_real(z)``, ``z.real`` and
``z.imag`` read the same numbers as parts (:class:`PartsView`). In a file,
each element is its two parts, real then imaginary. These rules are
registered for the three complex types in
:data:`slowtorch_lib._storage.STORAGE_FAMILIES` and
:data:`slowtorch_lib._kernels.CAST_FAMILIES`.
"""

from __future__ import annotations

import warnings
from array import array
from collections.abc import Sequence
from typing import Any

from slowtorch_lib._dtype import COMPLEX_PARTS, dtype
from slowtorch_lib._fidelity.complex_types import COMPLEX_TYPES
from slowtorch_lib._kernels import CAST_FAMILIES, cast_values
from slowtorch_lib._storage import (
    STORAGE_FAMILIES,
    Storage,
    array_from_bytes,
    array_to_bytes,
    stored_array,
)

__all__ = [
    "ComplexArray",
    "ComplexParts",
    "PartsView",
    "complex_values",
    "parts_of",
]


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
        self.companion = None

    @property  # type: ignore[override]
    def version(self) -> int:
        return self.whole.version

    @version.setter
    def version(self, value: int) -> None:
        self.whole.version = value


def parts_of(storage: Storage) -> PartsView:
    """The complex ``storage`` seen as its real and imaginary parts (made
    once, so that every real view of it shares one storage)."""
    if storage.companion is None:
        storage.companion = PartsView(storage)
    return storage.companion  # type: ignore[return-value]


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


class ComplexStorage:
    """The storage and conversion rules of the complex types (see
    :class:`slowtorch_lib._storage.StorageFamily`)."""

    def stored(self, values: Sequence[Any], d: dtype) -> Any:
        return ComplexArray(values, d)

    def to_bytes(self, data: Any, d: dtype, byteorder: str) -> bytes:
        """The parts, real then imaginary, of each element."""
        parts = [part for v in data for part in (v.real, v.imag)]
        part = COMPLEX_PARTS[d]
        return array_to_bytes(array(part.typecode, parts), part, byteorder)

    def from_bytes(self, raw: bytes, d: dtype, byteorder: str) -> Any:
        parts = array_from_bytes(raw, COMPLEX_PARTS[d], byteorder)
        return ComplexArray(map(complex, parts[::2], parts[1::2]), d)

    def cast_scalar(self, value: Any, d: dtype) -> Any:
        return complex_values([value], d)[0]

    def cast_values(self, values: list[Any], source: dtype, target: dtype) -> list[Any]:
        """Into a complex type each part is rounded; out of one PyTorch keeps
        the real part, with a warning."""
        if target.is_complex:
            return complex_values(values, target)
        assert source.is_complex
        warnings.warn(
            "Casting complex values to real discards the imaginary part",
            UserWarning,
            stacklevel=3,
        )
        return cast_values([v.real for v in values], COMPLEX_PARTS[source], target)


COMPLEX_STORAGE = ComplexStorage()
for _type in COMPLEX_TYPES:
    STORAGE_FAMILIES[_type] = COMPLEX_STORAGE
    CAST_FAMILIES[_type] = COMPLEX_STORAGE
