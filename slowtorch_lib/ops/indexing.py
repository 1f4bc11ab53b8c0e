"""Indexing: ``x[...]`` and ``x[...] = value``.

An index is read from left to right, one dimension at a time:

* *Basic* items give views, sharing storage with ``x``: an integer is a
  :func:`~slowtorch_lib.ops.views.select` (the dimension goes away), a slice
  a :func:`~slowtorch_lib.ops.views.slice_dim`, ``None`` an
  :func:`~slowtorch_lib.ops.views.unsqueeze` and ``...`` stands for as many
  ``:`` as needed. The ``grad_fn`` of the result is the last view taken.
* *Advanced* items (lists, integer tensors, bool masks) pick elements by
  position, so the result is a copy (:class:`Index`). The index tensors are
  broadcast together; their shape replaces the indexed dimensions where
  those were adjacent, or goes first if basic items separate them.

Assignment takes the same views and writes through them: a basic index
becomes an in-place ``copy_`` or ``fill_`` of a view, an advanced one an
in-place :class:`IndexPut`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import checked_fill, tensor
from slowtorch_lib._kernels import cast_scalar, cast_values
from slowtorch_lib._numpy_in import is_numpy
from slowtorch_lib._strides import (
    broadcast_shapes,
    contiguous_strides,
    numel,
    position_list,
)
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import check_loop, expanded_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops import copying, views
from slowtorch_lib.ops.gather_scatter import Index, index

# Indexing is reached through Tensor.__getitem__ and __setitem__; nothing here
# is a function of torch's own namespace.
__all__: list[str] = []


# ----------------------------------------------------------------------
# Writing by flat positions (reading is ``index`` in gather_scatter)
# ----------------------------------------------------------------------


class IndexPut(Function):
    """``x`` with ``values`` (broadcast to ``shape``) written at ``positions``.

    The overwritten elements of ``x`` get no gradient; ``values`` gets the
    gradient of the places it was written to.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        values: Tensor,
        *,
        positions: list[int],
        shape: tuple[int, ...],
    ) -> Tensor:
        ctx.positions, ctx.shape = positions, shape
        new = cast_values(expanded_values(values, shape), values.dtype, x.dtype)
        out = x._values()
        for position, value in zip(positions, new):
            out[position] = value
        return from_values(out, x._shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        grad_x = grad_values = None
        if ctx.needs_input_grad[0]:
            zero = from_values([0], (), grad_output.dtype)
            grad_x = index_put(grad_output, zero, ctx.positions, ctx.shape)
        if ctx.needs_input_grad[1]:
            grad_values = index(grad_output, ctx.positions, ctx.shape)
        return grad_x, grad_values


def index_put(
    input: Tensor, values: Tensor, positions: list[int], shape: tuple[int, ...]
) -> Tensor:
    """A copy of ``input`` with ``values`` written at ``positions``."""
    return IndexPut.apply(input, values, positions=positions, shape=shape)


# ----------------------------------------------------------------------
# Reading an index
# ----------------------------------------------------------------------


def _as_items(index: Any) -> tuple[Any, ...]:
    """The index as a tuple of items, one per ``[...]`` entry.

    A list that holds slices, ``None``, ``...``, lists or tensors is read as a
    tuple (``x[[0, [1]]]`` is ``x[0, [1]]``), as NumPy used to do. A ``range``
    is read as the list of its integers (``x[range(n), y]``). A NumPy array
    is read as the tensor of its values, a NumPy integer as an int.
    """
    if isinstance(index, range):
        return (list(index),)
    if is_numpy(index):
        return (_from_numpy_index(index),)
    if isinstance(index, tuple):
        return tuple(
            list(item)
            if isinstance(item, range)
            else _from_numpy_index(item)
            if is_numpy(item)
            else item
            for item in index
        )
    if isinstance(index, list) and len(index) < 32:
        for item in index:
            if isinstance(item, (Tensor, list, tuple, slice)) or item is None:
                return tuple(index)
            if item is Ellipsis:
                return tuple(index)
    return (index,)


def _from_numpy_index(item: Any) -> Any:
    """A NumPy index item as PyTorch reads it: a tensor, or an int."""
    if item.ndim == 0 and item.dtype.kind in "iu":
        return int(item)
    return tensor(item)


def _index_tensor(item: Any) -> Tensor | None:
    """A list or tensor item as an int64 or bool tensor; None for other items.

    Raises:
        IndexError: For a floating-point tensor.
    """
    if isinstance(item, list):
        result = tensor(item) if item else tensor([], dtype=dtypes.int64)
        if result.dtype.is_floating_point:
            result = result.long()
        return result
    if isinstance(item, Tensor):
        if item.dtype.is_floating_point:
            raise IndexError(
                "tensors used as indices must be long, int, byte or bool tensors"
            )
        return item
    return None


def _dims_used(item: Any) -> int:
    """How many dimensions of the indexed tensor an item consumes."""
    if item is None or item is Ellipsis or isinstance(item, bool):
        return 0
    if isinstance(item, Tensor) and item.dtype is dtypes.bool_:
        return item.dim()
    return 1


def _mask_to_indices(mask: Tensor) -> list[Tensor]:
    """The coordinates of the true elements of ``mask``, one tensor per dimension."""
    shape = mask._shape
    true_positions = [i for i, flag in enumerate(mask._values()) if flag]
    columns: list[list[int]] = [[] for _ in shape]
    strides = contiguous_strides(shape)
    for position in true_positions:
        for d, stride in enumerate(strides):
            coordinate, position = divmod(position, stride)
            columns[d].append(coordinate)
    n = len(true_positions)
    return [from_values(column, (n,), dtypes.int64) for column in columns]


def _basic(
    tensor: Tensor, items: tuple[Any, ...], skip_full: bool
) -> tuple[Tensor, list[tuple[int, Tensor]]]:
    """Applies the basic items as views; collects the advanced ones.

    Returns the view and a list of ``(dimension of the view, int64 index
    tensor)`` for the advanced items. With ``skip_full``, slices that cover
    a whole dimension take no view (as PyTorch does for every index but a
    lone slice), so ``x[:] = v`` writes to ``x`` itself. A ``True`` is a
    new dimension indexed by ``[0]``, a ``False`` one indexed by ``[]``.

    Raises:
        IndexError: For too many indices, bad index types and bad masks.
    """
    ndim = tensor.dim()
    used = sum(_dims_used(item) for item in items)
    if used > ndim:
        first = next(i for i in items if i is not None and i is not Ellipsis)
        if ndim == 0 and isinstance(first, int) and not isinstance(first, bool):
            return views.Select.apply(tensor, dim=0, index=first), []  # 0-dim message
        if ndim == 0 and isinstance(first, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result = tensor
    dim = 0  # the dimension of ``result`` the next item applies to
    consumed = 0  # items read so far (``...`` counts its width), for messages
    advanced: list[tuple[int, Tensor]] = []
    ellipsis_seen = False
    for item in items:
        if item is None:
            result = views.unsqueeze(result, dim)
            dim += 1
            consumed += 1
        elif item is Ellipsis:
            if not ellipsis_seen:
                dim += ndim - used
                consumed += ndim - used
            ellipsis_seen = True
        elif isinstance(item, bool) or (
            isinstance(item, Tensor) and item.dtype is dtypes.bool_ and item.dim() == 0
        ):
            result = views.unsqueeze(result, dim)
            chosen = [0] if bool(item) else []
            chosen_tensor = from_values(chosen, (len(chosen),), dtypes.int64)
            advanced.append((dim, chosen_tensor))
            dim += 1
            consumed += 1
        elif isinstance(item, int):
            result = _select_at(result, dim, item, consumed)
            consumed += 1
        elif isinstance(item, slice):
            result = _slice(result, dim, item, skip_full)
            dim += 1
            consumed += 1
        elif isinstance(item, Tensor) and item.dim() == 0:
            number = _index_tensor(item)  # refuses a floating-point tensor
            assert number is not None  # a tensor stays a tensor
            result = _select_at(result, dim, int(number.item()), consumed)
            consumed += 1
        else:
            if isinstance(item, (str, bytes)):  # PyTorch tries it as tensor data
                raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
            index_tensor = _index_tensor(item)
            if index_tensor is None:
                raise IndexError(
                    "only integers, slices (`:`), ellipsis (`...`), None and long or "
                    f"byte Variables are valid indices (got {type(item).__name__})"
                )
            advanced.append((dim, index_tensor))
            width = index_tensor.dim() if index_tensor.dtype is dtypes.bool_ else 1
            dim += width
            consumed += width
    return result, _masks_to_indices(result, advanced)


def _masks_to_indices(
    tensor: Tensor, advanced: list[tuple[int, Tensor]]
) -> list[tuple[int, Tensor]]:
    """Replaces each k-dimensional bool mask by k int64 index tensors.

    Raises:
        IndexError: If a mask's shape differs from the dimensions it covers.
    """
    result: list[tuple[int, Tensor]] = []
    for dim, index_tensor in advanced:
        if index_tensor.dtype is not dtypes.bool_:
            result.append((dim, index_tensor))
            continue
        _check_mask(index_tensor, tensor, dim)
        for offset, column in enumerate(_mask_to_indices(index_tensor)):
            result.append((dim + offset, column))
    return result


def _select_at(tensor: Tensor, dim: int, index: int, tensor_dim: int) -> Tensor:
    """``tensor[..., index]`` at ``dim``; errors name the indexed tensor's
    dimension ``tensor_dim``."""
    shape = tensor._shape
    if shape and not -shape[dim] <= index < shape[dim]:
        raise IndexError(
            f"index {index} is out of bounds for dimension {tensor_dim} "
            f"with size {shape[dim]}"
        )
    return views.Select.apply(tensor, dim=dim, index=index)


def _slice(tensor: Tensor, dim: int, item: slice, skip_full: bool) -> Tensor:
    """``tensor[..., item]`` at ``dim``; with ``skip_full``, a slice written
    to cover the whole dimension (``:``, ``0:``, ``:size``) returns
    ``tensor`` itself."""
    step = 1 if item.step is None else int(item.step)
    if skip_full and step == 1 and tensor.dim():
        start_at_zero = item.start is None or item.start == 0
        stop_at_end = item.stop is None or item.stop >= tensor._shape[dim]
        if start_at_zero and stop_at_end:
            return tensor
    return views.slice_dim(tensor, dim, item.start, item.stop, step)


def _check_mask(mask: Tensor, tensor: Tensor, dim: int) -> None:
    """A bool mask must have the shape of the dimensions it covers."""
    for i, size in enumerate(mask._shape):
        if tensor._shape[dim + i] != size:
            raise IndexError(
                f"The shape of the mask {list(mask._shape)} at index {i} does not "
                f"match the shape of the indexed tensor {list(tensor._shape)} at "
                f"index {dim + i}"
            )


def _layout(
    tensor: Tensor, advanced: list[tuple[int, Tensor]]
) -> tuple[tuple[int, ...], list[int], list[int]]:
    """The shape the advanced indices broadcast to, and the dimensions of
    ``tensor`` that come before and after it in the result.

    Raises:
        IndexError: If the index tensors do not broadcast together, or pick
            elements from a dimension of size 0.
    """
    shape = tensor._shape
    try:
        index_shape = broadcast_shapes(*(t._shape for _, t in advanced))
    except RuntimeError:
        shapes = ", ".join(str(list(t._shape)) for _, t in advanced)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with "
            f"shapes {shapes}"
        ) from None
    dims = [d for d, _ in advanced]
    if 0 in (shape[d] for d in dims) and 0 not in index_shape:
        raise IndexError("index is out of bounds for dimension with size 0")
    rest = [d for d in range(len(shape)) if d not in dims]
    if dims == list(range(dims[0], dims[-1] + 1)):  # adjacent: in place
        before = [d for d in rest if d < dims[0]]
        return index_shape, before, [d for d in rest if d > dims[-1]]
    return index_shape, [], rest


def _result_shape(
    tensor: Tensor, advanced: list[tuple[int, Tensor]]
) -> tuple[int, ...]:
    """The shape of ``tensor`` indexed by the advanced indices."""
    index_shape, before, after = _layout(tensor, advanced)
    shape = tensor._shape
    return (
        tuple(shape[d] for d in before) + index_shape + tuple(shape[d] for d in after)
    )


def _positions(
    tensor: Tensor, advanced: list[tuple[int, Tensor]]
) -> tuple[list[int], tuple[int, ...]]:
    """The row-major positions in ``tensor`` picked by the advanced indices,
    and the result's shape.

    Raises:
        IndexError: As :func:`_layout`, and if an index is out of range.
    """
    shape = tensor._shape
    index_shape, before, after = _layout(tensor, advanced)
    row_major = contiguous_strides(shape)
    rest = before + after
    # One flat offset per element of the broadcast index. When the result
    # has no elements, PyTorch reads no index, so none is checked either.
    offsets = [0] * numel(index_shape)
    empty_result = any(shape[d] == 0 for d in rest)
    for number, (dim, index_tensor) in enumerate([] if empty_result else advanced):
        size = shape[dim]
        for i, value in enumerate(expanded_values(index_tensor, index_shape)):
            if not -size <= value < size:
                # PyTorch counts the dimension among the indexed ones.
                raise IndexError(
                    f"index {value} is out of bounds for dimension {number} "
                    f"with size {size}"
                )
            offsets[i] += (value % size) * row_major[dim]
    before_offsets = _offsets(shape, row_major, before)
    after_offsets = _offsets(shape, row_major, after)
    positions = [
        b + o + a for b in before_offsets for o in offsets for a in after_offsets
    ]
    return positions, _result_shape(tensor, advanced)


def _offsets(
    shape: Sequence[int], row_major: Sequence[int], dims: list[int]
) -> list[int]:
    """Row-major offsets of every combination of indices along ``dims``."""
    return position_list([shape[d] for d in dims], [row_major[d] for d in dims], 0)


# ----------------------------------------------------------------------
# x[index]
# ----------------------------------------------------------------------


def getitem(tensor: Tensor, index: Any) -> Tensor:
    """``tensor[index]``: a view for basic indices, a copy for advanced ones.

    Raises:
        IndexError: For out-of-range or malformed indices, as PyTorch.
        ValueError: For a slice step that is not positive.
    """
    skip_full = not isinstance(index, slice)  # a lone slice is always a view
    view, advanced = _basic(tensor, _as_items(index), skip_full)
    if not advanced:
        return views.alias(tensor) if view is tensor else view
    positions, shape = _positions(view, advanced)
    return Index.apply(view, positions=positions, shape=shape)


# ----------------------------------------------------------------------
# x[index] = value
# ----------------------------------------------------------------------


def _scalar_tensor(value: Any, target: Tensor) -> Tensor:
    """A Python number as a 0-d tensor of ``target``'s dtype, as torch converts it.

    Raises:
        TypeError: For a value that is not a number.
        RuntimeError: If the number does not fit the dtype.
        ValueError: For an integer too large for int64.
    """
    if isinstance(value, complex) and target.dtype.is_complex:
        return from_values([value], (), target.dtype)
    if not isinstance(value, (bool, int, float)):
        raise TypeError(f"can't assign a {type(value).__name__} to a {target.type()}")
    d = target.dtype
    if d is dtypes.int64:
        if isinstance(value, float) and not -(2.0**63) <= value < 2.0**63:
            raise RuntimeError(
                "value cannot be converted to type int64_t without overflow"
            )
        if isinstance(value, int) and not -(2**63) <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")
    if d is dtypes.float32 and math.isfinite(value) and abs(value) > d.max:
        raise RuntimeError("value cannot be converted to type float without overflow")
    if d.narrow and not d.is_floating_point:
        checked_fill(value, d)  # the range checks of fill_
    return from_values([cast_scalar(value, d)], (), d)


def _strip_leading_ones(value: Tensor, always_view: bool = False) -> Tensor:
    """``value`` without its leading dimensions of size 1 (a view if any)."""
    shape = value._shape
    lead = 0
    while lead < len(shape) and shape[lead] == 1:
        lead += 1
    return views.view(value, shape[lead:]) if lead or always_view else value


def _lone_mask(items: tuple[Any, ...]) -> bool:
    """Whether the one advanced item among ``items`` is a bool mask (a bool
    tensor or a list of bools), the others being basic."""
    advanced = [
        item
        for item in items
        if isinstance(item, list) or (isinstance(item, Tensor) and item.dim() > 0)
    ]
    if len(advanced) != 1:
        return False
    mask = _index_tensor(advanced[0])
    return mask is not None and mask.dtype is dtypes.bool_


def setitem(tensor: Tensor, index: Any, value: Any) -> None:
    """``tensor[index] = value``, writing through views of ``tensor``.

    A Python number becomes a 0-d tensor of ``tensor``'s dtype. With basic
    indices only, ``value`` is broadcast into the view ``tensor[index]`` and
    cast to its dtype; with advanced indices, a tensor ``value`` must have
    ``tensor``'s dtype, as in PyTorch.

    Raises:
        IndexError, ValueError: For bad indices, as :func:`getitem`.
        RuntimeError: If ``value`` does not broadcast, or for in-place
            changes autograd forbids. ``tensor`` is then unchanged.
    """
    if not isinstance(value, Tensor):
        value = _scalar_tensor(value, tensor)
    if index is False:  # PyTorch assigns nothing and checks nothing
        return
    if index is True:
        _copy_to(views.unsqueeze(tensor, 0), value)
        return
    items = _as_items(index)
    skip_full = True
    target, advanced = _basic(tensor, items, skip_full)
    if not advanced:
        _copy_to(target, value)
        return
    target._check_inplace(overlap_ok=True)  # before the indices, as PyTorch
    if value.numel() == 1 and _lone_mask(items):
        # x[mask] = v is masked_fill with v's number: its loop, then v
        # range-checked and cast (copied if it is in x: it is read first).
        check_loop("masked_fill", target.dtype)
        checked_fill(value.item(), target.dtype)
        value = value.to(target.dtype)
        if value._storage is target._storage:
            value = value.clone()
    # PyTorch checks the value's shape, then its dtype, then the indices.
    shape = _result_shape(target, advanced)
    stripped = _strip_leading_ones(value)
    try:
        fits = broadcast_shapes(stripped._shape, shape) == shape
    except RuntimeError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(stripped._shape)} cannot be "
            f"broadcast to indexing result of shape {list(shape)}"
        )
    if value.dtype is not target.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{target.type()[6:-6]} for the destination and {value.type()[6:-6]} "
            "for the source."
        )
    check_loop("index_put", target.dtype, ("float8",))
    positions, shape = _positions(target, advanced)
    target._inplace(index_put, stripped, positions, shape, overlap_ok=True)


def _copy_to(target: Tensor, value: Tensor) -> None:
    """Writes ``value`` into all of ``target``: copy, fill, or broadcast copy."""
    if value._shape == target._shape:
        target.copy_(value)
    elif value.dim() == 0:
        target._inplace(copying.fill_with_tensor, value)
    else:
        stripped = _strip_leading_ones(value, always_view=True)
        if stripped._shape != target._shape:
            stripped = views.expand(stripped, target._shape)
        target.copy_(stripped)
