"""Collating: turning a list of samples into one batch of tensors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import tensor
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.ops.joining import stack

__all__ = ["default_collate", "default_convert"]


def default_collate(batch: Sequence[Any]) -> Any:
    """Stacks a list of samples into a batch, keeping the samples' structure.

    - tensors are stacked along a new first dimension;
    - Python floats become a float64 tensor, ints an int64 tensor, bools a
      bool tensor (PyTorch's dtypes for Python numbers);
    - strings stay a list;
    - dicts are collated key by key, tuples and lists position by position
      (a tuple gives a list, as in PyTorch; a named tuple stays one).

    Raises:
        RuntimeError: If the sequences in the batch differ in length.
        TypeError: For a sample of any other type.
    """
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(list(batch), 0)
    if isinstance(first, bool):
        return tensor(list(batch), dtype=dtypes.bool_)
    if isinstance(first, int):
        return tensor(list(batch), dtype=dtypes.int64)
    if isinstance(first, float):
        return tensor(list(batch), dtype=dtypes.float64)
    if isinstance(first, (str, bytes)):
        return list(batch)
    if isinstance(first, Mapping):
        collated = {
            key: default_collate([sample[key] for sample in batch]) for key in first
        }
        return _same_type(first, collated)
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a named tuple
        return type(first)(*(default_collate(list(items)) for items in zip(*batch)))
    if isinstance(first, Sequence):
        if any(len(sample) != len(first) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(list(items)) for items in zip(*batch)]
        if isinstance(first, tuple):
            return columns
        return _same_type(first, columns)
    raise TypeError(
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
        f"or lists; found {type(first)}"
    )


def _same_type(example: Any, value: Any) -> Any:
    """``value`` in the container type of ``example`` when that type allows it."""
    try:
        return type(example)(value)
    except TypeError:
        return value


def default_convert(data: Any) -> Any:
    """What a DataLoader without batching (``batch_size=None``) gives: the
    sample as it is, except that tuples become lists, as in PyTorch (which
    also converts NumPy arrays here; there are none)."""
    if isinstance(data, Mapping):
        return _same_type(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a named tuple
        return type(data)(*(default_convert(item) for item in data))
    if isinstance(data, tuple):
        return [default_convert(item) for item in data]
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        return _same_type(data, [default_convert(item) for item in data])
    return data
