"""Indexing: ``x[...]`` and ``x[...] = value``.

Basic indexing (integers, slices, ``None``, ``...``) is a chain of views:
each integer is a :func:`select`, each slice a :func:`slice_dim`, each
``None`` an :func:`unsqueeze`, so the result shares storage with ``x`` and
its ``grad_fn`` names the last view taken, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib._tensor import Tensor
from slowtorch_lib.ops import views

__all__ = ["getitem", "setitem"]


def _expand_ellipsis(index: tuple[Any, ...], ndim: int) -> tuple[Any, ...]:
    """Replaces ``...`` by as many full slices as the dimensions it stands for."""
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    if sum(1 for i in index if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if used > ndim:
        raise IndexError(
            f"too many indices for tensor of dimension {ndim}"
        )
    result: list[Any] = []
    for item in index:
        if item is Ellipsis:
            result.extend([slice(None)] * (ndim - used))
        else:
            result.append(item)
    return tuple(result)


def getitem(tensor: Tensor, index: Any) -> Tensor:
    """``tensor[index]`` for basic indices: ints, slices, None and Ellipsis."""
    if not isinstance(index, tuple):
        index = (index,)
    index = _expand_ellipsis(index, tensor.dim())
    result = tensor
    dim = 0
    for item in index:
        if item is None:
            result = views.unsqueeze(result, dim)
            dim += 1
        elif isinstance(item, slice):
            step = 1 if item.step is None else item.step
            result = views.slice_dim(result, dim, item.start, item.stop, step)
            dim += 1
        elif isinstance(item, int):
            result = views.select(result, dim, item)
        else:
            raise IndexError(f"unsupported index type {type(item).__name__}")
    if result is tensor:
        result = views.as_view(tensor, tensor._shape, tensor._stride, tensor._offset)
    return result


def setitem(tensor: Tensor, index: Any, value: Any) -> None:
    """``tensor[index] = value``: writes through the view ``tensor[index]``."""
    target = getitem(tensor, index)
    if isinstance(value, Tensor):
        target.copy_(value)
    else:
        target.fill_(value)
