"""Fidelity: the dtypes PyTorch has beyond the ten the chapters teach.

The core of the engine (:mod:`slowtorch_lib._dtype`, ``_storage``,
``_kernels``, ``_tensor_kernels``) knows the ten dtypes that chapters 1 to
4 use. PyTorch names eleven more: the complex types, the five 8-bit floats
and uint16, uint32 and uint64. Each family brings its own rules here, in a
module of its own, and registers them once, when the package is imported,
in the tables the core looks in (such as
:data:`slowtorch_lib._tensor_kernels.FAMILIES`). No core module imports
these modules (``tests/test_layering.py`` checks it).

The loop modules (:mod:`.complex_numbers`, :mod:`.few_loops`,
:mod:`.loop_names`) key their tables by the ops' scalar functions, which
they import: they sit above the ops, so this package does not import them;
the package ``slowtorch_lib`` does, once the ops are loaded.

* :mod:`.complex_types`, :mod:`.float8`, :mod:`.wide_uint`: the dtypes;
* :mod:`.promotion`: what PyTorch refuses to promote, and complex promotion;
* :mod:`.complex_storage`: how complex numbers are stored and converted;
* :mod:`.complex_numbers`: the complex loops, through :mod:`cmath`;
* :mod:`.float8`: how the 8-bit floats round what they store;
* :mod:`.wide_uint`: how a float becomes a uint32 or a uint64;
* :mod:`.few_loops`: the few loops of the 8-bit floats and uint16 to
  uint64, and PyTorch's error for the others;
* :mod:`.loop_names`: PyTorch's names of its loops, for its errors.
"""

from __future__ import annotations

from slowtorch_lib._fidelity import (
    complex_storage,
    complex_types,
    float8,
    promotion,
    wide_uint,
)

__all__ = [
    "complex_types",
    "complex_storage",
    "float8",
    "promotion",
    "wide_uint",
]
