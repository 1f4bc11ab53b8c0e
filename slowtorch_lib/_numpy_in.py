"""NumPy arrays in: ``from_numpy``, and the values ``tensor(array)`` reads.

NumPy stays optional: it is never imported here. An array is recognised by
its type's module, and read through its own ``tolist()``; its dtype is kept
when the engine has one of that name. (A tensor goes the other way, as a
NumPy array sharing its memory, in :mod:`slowtorch_lib._tensor_python`.)
"""

from __future__ import annotations

import sys
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._tensor import Tensor, from_values

__all__ = ["from_numpy"]


def is_numpy(data: Any) -> bool:
    """Whether ``data`` is a NumPy array or NumPy number."""
    return type(data).__module__ == "numpy" and hasattr(data, "dtype")


def numpy_values(array: Any) -> tuple[list[Any], tuple[int, ...], dtype]:
    """The values (row-major), shape and dtype of a NumPy array or number.

    Raises:
        TypeError: For a NumPy dtype this engine does not have, as PyTorch
            for one it does not have.
    """
    by_name = {d.name: d for d in dtypes.ALL_DTYPES}
    d = by_name.get(array.dtype.name)
    if d is None:
        raise TypeError(
            "can't convert np.ndarray of type "
            f"numpy.{array.dtype.type.__name__}. The only supported types are: "
            f"{', '.join(by_name)}."
        )
    shape = tuple(array.shape)
    return list(array.reshape(-1).tolist()), shape, d


def from_numpy(array: Any) -> Tensor:
    """A tensor with the values, shape and dtype of a NumPy array.

    Any array that owns or maps its memory is accepted (a ``numpy.memmap``
    too). PyTorch's tensor shares the array's memory. Here the values are copied
    (an engine tensor keeps its numbers in a Python ``array``, which cannot
    point into NumPy's memory): writing to one afterwards does not change
    the other. ``Tensor.numpy()`` does share, the other way round.

    Raises:
        TypeError: If ``array`` is not a NumPy array, or of a dtype the
            engine does not have.
    """
    numpy = sys.modules.get("numpy")
    if numpy is None or not isinstance(array, numpy.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    values, shape, d = numpy_values(array)
    return from_values(values, shape, d)
