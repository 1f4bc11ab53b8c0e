"""Order statistics: ``median`` and ``kthvalue``, the element of a given rank.

Each reduces as the reductions of :mod:`slowtorch_lib.ops.reduction` do:
the elements that meet in one output form a group, and the group's element
of rank ``k`` is found by selection (quickselect), without sorting the whole
group. With ``dim`` they also return where that element was; the backward
sends the gradient to that one place, as ``max(dim=...)`` does, whose
nodes they share.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._strides import normalize_dims
from slowtorch_lib._tensor import Tensor
from slowtorch_lib._tensor_kernels import check_loop, not_implemented
from slowtorch_lib.ops.common import tensor_input
from slowtorch_lib.ops.reduction import (
    MaxAll,
    MaxDim,
    _check_int_dim,
    _check_not_empty,
    _dims,
    _has_nan,
)
from slowtorch_lib.ops.return_types import KthvalueResult, MedianResult

__all__ = ["kthvalue", "median"]


def _lower_median(group: Sequence[Any]) -> Any:
    """The lower of the two middle elements (the middle one for an odd
    count); nan if there is a nan, or no element."""
    if not group or _has_nan(group):
        return math.nan
    return sorted(group)[(len(group) - 1) // 2]


def _lower_median_at(group: Sequence[Any]) -> tuple[Any, int]:
    """:func:`_lower_median` and its index: the first nan if there is one,
    else the element at the middle place when the elements are sorted by
    value, equal values by index (as PyTorch picks it)."""
    if _has_nan(group):
        first = next(i for i, v in enumerate(group) if v != v)
        return group[first], first
    order = sorted(range(len(group)), key=group.__getitem__)  # stable
    middle = order[(len(group) - 1) // 2]
    return group[middle], middle


def _larger(a: Any, b: Any) -> bool:
    """``a > b`` where nan is larger than any number."""
    return (a != a and b == b) or a > b


def _select(group: Sequence[Any], k: int) -> tuple[Any, int]:
    """The element that would be at place ``k`` if ``group`` were sorted
    (nan last), and its index, found as PyTorch's ``kthvalue`` finds it.

    Quickselect: the first, middle and last elements of the part still
    searched are ordered, the middle one of the three becomes the pivot,
    and the part is split into the elements below it and those above;
    only the side holding place ``k`` is searched again. Which of several
    equal elements ends at ``k`` (so which index is returned) depends on
    these steps, which is why they are PyTorch's.
    """
    values, places = list(group), list(range(len(group)))

    def swap(i: int, j: int) -> None:
        values[i], values[j] = values[j], values[i]
        places[i], places[j] = places[j], places[i]

    low, high = 0, len(values) - 1
    while high > low:
        if high == low + 1:
            if _larger(values[low], values[high]):
                swap(low, high)
            break
        swap(low + (high - low) // 2, low + 1)  # the middle, next to low
        for i, j in ((low + 1, high), (low, high), (low + 1, low)):
            if _larger(values[i], values[j]):
                swap(i, j)
        pivot, i, j = values[low], low + 1, high
        while True:
            i += 1
            while _larger(pivot, values[i]):
                i += 1
            j -= 1
            while _larger(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)  # the pivot to its sorted place
        if j <= k:
            low = i
        if j >= k:
            high = j - 1
    return values[k], places[k]


class MedianAll(MaxAll):
    """``x.median()``: the lower median of all elements. The gradient is
    shared among the elements equal to it, as :class:`MaxAll`'s."""

    grad_fn_name = "MedianBackward0"


class MedianDim(MaxDim):
    """``x.median(dim)``: the gradient goes to the index, as :class:`MaxDim`'s."""

    grad_fn_name = "MedianBackward1"


class Kthvalue(MaxDim):
    """``x.kthvalue(k, dim)``: the gradient as :class:`MaxDim`'s."""


def _check_order_input(name: str, input: Tensor, dim: Any, loop: str) -> int:
    """The checks of ``median`` and ``kthvalue`` along ``dim``, in PyTorch's
    order; returns ``dim`` made non-negative."""
    _check_int_dim(name, dim)
    wrapped = normalize_dims(dim, input.dim())[0]
    _check_not_empty(name, input, dim)
    if input.dtype is dtypes.bool_ or input.dtype.is_complex:
        raise not_implemented(loop, input.dtype)
    check_loop(loop, input.dtype, ("unsigned",), input.numel())
    return wrapped


@tensor_input
def median(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median: of every element (a 0-d tensor), or along ``dim``,
    a ``(values, indices)`` pair.

    Of an even number of elements, the lower of the two in the middle (no
    mean is taken, so the value is an element). A nan makes the median nan;
    along ``dim`` its index is that of the first nan.

    Raises:
        IndexError: If ``dim`` is out of range, or has size 0.
        NotImplementedError: For bool and complex tensors, as PyTorch.
    """
    if dim is None:
        if keepdim:
            raise TypeError('median() missing 1 required positional arguments: "dim"')
        d = input.dtype
        if d is dtypes.bool_ or d.is_complex or d.unpromotable:
            raise not_implemented("median_cpu", d)
        everything = tuple(range(input.dim()))
        return MedianAll.apply(
            input, dims=everything, keepdim=False, fold=_lower_median
        )
    _check_order_input("median", input, dim, "median_out")
    values, indices = MedianDim.apply(
        input, dims=_dims(dim, input.dim()), keepdim=keepdim, pick=_lower_median_at
    )
    return MedianResult(values, indices)


@tensor_input
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """The ``k``-th smallest element along ``dim`` (``k`` counts from 1) and
    its index, as a ``(values, indices)`` pair; nan counts as the largest.

    Raises:
        TypeError: If ``k`` is not an int.
        IndexError: If ``dim`` is out of range, or has size 0.
        RuntimeError: If ``k`` is not between 1 and the size of ``dim``.
    """
    if not isinstance(k, int):
        raise TypeError(
            f"kthvalue(): argument 'k' (position 1) must be int, not {type(k).__name__}"
        )
    wrapped = _check_order_input("kthvalue", input, dim, "kthvalue_cpu")
    size = input._shape[wrapped] if input._shape else 1
    if not 1 <= k <= size:
        raise RuntimeError(
            f"kthvalue(): selected number k out of range for dimension {wrapped}"
        )
    values, indices = Kthvalue.apply(
        input,
        dims=_dims(dim, input.dim()),
        keepdim=keepdim,
        pick=lambda group: _select(group, k - 1),
    )
    return KthvalueResult(values, indices)
