"""Sorting: ``sort``, ``argsort`` and ``topk`` along one dimension.

Each works on *rows*: the runs of elements along ``dim``, one per position
of the other dimensions. :func:`rows_along` lists them (as if ``dim`` were
moved last) and :func:`from_rows` puts results back in place.

The gradient of a sort goes back to where each value came from: the
gradient of the input is ``grad_output`` scattered by the indices.
"""

from __future__ import annotations

from itertools import chain
from math import isnan
from operator import itemgetter
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._strides import (
    contiguous_strides,
    normalize_dim,
    numel,
    position_list,
)
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import check_loop, check_real
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import tensor_input
from slowtorch_lib.ops.gather_scatter import scatter
from slowtorch_lib.ops.return_types import SortResult, TopkResult

__all__ = ["argsort", "sort", "topk"]


def _gather(data: Any, positions: list[int]) -> list[Any]:
    """``[data[p] for p in positions]``, in one C-level call."""
    if len(positions) == 1:
        return [data[positions[0]]]
    return list(itemgetter(*positions)(data)) if positions else []


def rows_along(x: Tensor, dim: int) -> list[list[Any]]:
    """The elements of ``x`` as rows along ``dim``, in row-major order of the
    other dimensions (a 0-d tensor is one row of one element).

    >>> rows_along(tensor([[1, 2], [3, 4]]), 0)
    [[1, 3], [2, 4]]
    """
    if not x._shape:
        return [[x.item()]]
    length = x._shape[dim]
    if length == 0:
        return [[] for _ in range(numel(x._shape[:dim] + x._shape[dim + 1 :]))]
    if dim == x.dim() - 1:  # rows are runs of the row-major values
        values = x._values()
    else:
        order = [d for d in range(x.dim()) if d != dim] + [dim]
        positions = position_list(
            [x._shape[d] for d in order], [x._stride[d] for d in order], x._offset
        )
        values = _gather(x._storage.data, positions)
    return [values[i : i + length] for i in range(0, len(values), length)]


def from_rows(
    rows: list[list[Any]], shape: tuple[int, ...], dim: int, d: dtype
) -> Tensor:
    """The tensor of ``shape`` whose rows along ``dim`` are ``rows``: the
    inverse of :func:`rows_along`."""
    values = list(chain.from_iterable(rows))
    if not shape or dim == len(shape) - 1:
        return from_values(values, shape, d)
    order = [k for k in range(len(shape)) if k != dim] + [dim]
    moved_strides = contiguous_strides([shape[k] for k in order])
    strides = [0] * len(shape)
    for place, k in enumerate(order):
        strides[k] = moved_strides[place]
    return from_values(_gather(values, position_list(shape, strides, 0)), shape, d)


def _sorted_order(row: list[Any], descending: bool, floating: bool) -> list[int]:
    """The positions of ``row`` in sorted order; equal values keep their order.

    ``nan`` counts as larger than every number, as in PyTorch: last in
    ascending order, first in descending order.
    """
    places = range(len(row))
    if not floating or not any(map(isnan, row)):
        return sorted(places, key=row.__getitem__, reverse=descending)
    numbers = [i for i in places if row[i] == row[i]]
    nans = [i for i in places if row[i] != row[i]]
    order = sorted(numbers, key=row.__getitem__, reverse=descending)
    return nans + order if descending else order + nans


def _sort_rows(
    x: Tensor, dim: int, descending: bool, k: int | None = None
) -> tuple[Tensor, Tensor]:
    """The (first ``k``) sorted values along ``dim`` and their indices."""
    floating = x.dtype.is_floating_point
    value_rows, index_rows = [], []
    for row in rows_along(x, dim):
        order = _sorted_order(row, descending, floating)[:k]
        index_rows.append(order)
        value_rows.append(_gather(row, order))
    shape = x._shape
    if k is not None and shape:
        shape = shape[:dim] + (k,) + shape[dim + 1 :]
    return (
        from_rows(value_rows, shape, dim, x.dtype),
        from_rows(index_rows, shape, dim, dtypes.int64),
    )


class Sort(Function):
    """Sorted values and their indices along ``dim``.

    Each value's gradient goes back to the place it came from: ``grad_output``
    scattered into zeros by the indices.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, dim: int, descending: bool, k: int | None = None
    ) -> tuple[Tensor, Tensor]:
        values, indices = _sort_rows(x, dim, descending, k)
        ctx.save_for_backward(indices)
        ctx.dim, ctx.input_shape = dim, x._shape
        return values, indices

    @staticmethod
    def backward(ctx: FunctionCtx, grad_values: Tensor, grad_indices: Any) -> Tensor:
        (indices,) = ctx.saved_tensors
        shape = ctx.input_shape
        zeros = from_values([0.0] * numel(shape), shape, grad_values.dtype)
        return scatter(zeros, ctx.dim, indices, grad_values)


class SortStable(Sort):
    """``sort`` called with ``stable=``: PyTorch names it ``SortBackward1``."""

    grad_fn_name = "SortBackward1"


class Topk(Sort):
    """The ``k`` largest (or smallest) values along ``dim``; the gradient as
    for :class:`Sort`."""


@tensor_input
def sort(
    input: Tensor,
    dim: int = -1,
    descending: bool = False,
    *,
    stable: bool | None = None,
) -> SortResult:
    """The elements along ``dim`` in ascending (or descending) order, and the
    index each one came from.

    Equal elements keep their order (the sort is always stable here;
    PyTorch's is only guaranteed stable with ``stable=True``). ``nan`` sorts
    as the largest value.

    Returns:
        A named tuple ``(values, indices)``.

    Raises:
        IndexError: If ``dim`` is out of range.
    """
    dim = normalize_dim(dim, input.dim())
    check_real("sort", input.dtype)
    check_loop("sorting_kernel_method_name", input.dtype, ("unsigned",))
    function = Sort if stable is None else SortStable
    values, indices = function.apply(input, dim=dim, descending=descending)
    return SortResult(values, indices)


@tensor_input
def argsort(
    input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False
) -> Tensor:
    """The indices that sort ``input`` along ``dim`` (``sort(...).indices``)."""
    dim = normalize_dim(dim, input.dim())
    return _sort_rows(input, dim, descending)[1]


@tensor_input
def topk(
    input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
) -> TopkResult:
    """The ``k`` largest elements along ``dim`` (smallest with
    ``largest=False``), in sorted order, and their indices.

    Raises:
        IndexError: If ``dim`` is out of range.
        TypeError: If ``k`` is not an int.
        RuntimeError: If ``k`` is negative or larger than the size of ``dim``,
            or for a bool tensor.
    """
    if not isinstance(k, int):
        raise TypeError(
            f"topk(): argument 'k' (position 1) must be int, not {type(k).__name__}"
        )
    dim = normalize_dim(dim, input.dim())
    size = input._shape[dim] if input._shape else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    check_real("topk", input.dtype)
    check_loop("topk_cpu", input.dtype)
    if input.dtype is dtypes.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    # A 0-d tensor keeps its one element, even for k=0 (as PyTorch does).
    kept = k if input._shape else None
    values, indices = Topk.apply(input, dim=dim, descending=largest, k=kept)
    return TopkResult(values, indices)
