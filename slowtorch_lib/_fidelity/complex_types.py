"""The complex types: ``complex32``, ``complex64`` and ``complex128``.

Each holds Python ``complex`` numbers whose real and imaginary parts are
of a real type: float16 for ``complex32``, float32 for ``complex64``,
float64 for ``complex128`` (:data:`slowtorch_lib._dtype.COMPLEX_PARTS`,
filled here). ``complex64`` and ``complex128`` have arithmetic, the
functions ``exp``, ``log``, ``sqrt``, ``sin``... through :mod:`cmath`, sums
and matrix products; ``complex32``, as in PyTorch, only a few loops
(:mod:`.complex_numbers`). How they are stored is in
:mod:`.complex_storage`.
"""

from __future__ import annotations

import builtins

from slowtorch_lib._dtype import (
    COMPLEX_CATEGORY,
    COMPLEX_OF,
    COMPLEX_PARTS,
    PYTHON_TYPES,
    dtype,
    float16,
    float32,
    float64,
)

__all__ = [
    "COMPLEX_TYPES",
    "cdouble",
    "cfloat",
    "chalf",
    "complex32",
    "complex64",
    "complex128",
]

COMPLEX_PARTS_OF = {"complex32": float16, "complex64": float32, "complex128": float64}


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

# PyTorch's aliases.
chalf = complex32
cfloat = complex64
cdouble = complex128

COMPLEX_TYPES = (complex32, complex64, complex128)
for _whole in COMPLEX_TYPES:
    COMPLEX_PARTS[_whole] = COMPLEX_PARTS_OF[_whole.name]
    COMPLEX_OF[COMPLEX_PARTS[_whole]] = _whole
PYTHON_TYPES[builtins.complex] = complex128
