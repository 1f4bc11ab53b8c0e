"""Gathering and scattering: reading and writing elements chosen by an index.

``gather`` reads, along one dimension, the element that an index tensor
names: for ``dim=1``, ``out[i][j] = x[i][index[i][j]]``. ``scatter`` is its
mirror image and writes there: ``out[i][index[i][j]] = src[i][j]``. Each is
the other's backward: the gradient of a gather is a scatter-add of the
gradient into zeros, and the gradient of a scatter's source is a gather.

``index_select``, ``masked_select`` and ``nonzero`` pick whole slices or
the elements where a mask is true.

The kernels work on flat lists of storage positions: the position of an
element is the dot product of its coordinates with the strides, so moving
along ``dim`` to the indexed element adds ``index * stride[dim]``.
"""

from __future__ import annotations

import operator
from itertools import compress, product, repeat
from operator import itemgetter
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._kernels import cast_scalar
from slowtorch_lib._strides import (
    broadcast_shapes,
    contiguous_strides,
    normalize_dim,
    numel,
    position_list,
)
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import check_loop, expanded_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import accepts_out, tensor_input

__all__ = [
    "gather",
    "index_add",
    "index_select",
    "masked_select",
    "nonzero",
    "scatter",
    "scatter_add",
]

Layout = tuple[tuple[int, ...], tuple[int, ...], int]


def _layout(tensor: Tensor) -> Layout:
    """Shape, strides and offset; a 0-d tensor counts as one element in 1-d.

    PyTorch's gather and scatter treat a 0-d tensor as a 1-d tensor of
    size 1, so ``tensor(5.).gather(0, tensor([0, 0]))`` is ``[5., 5.]``.
    """
    if not tensor._shape:
        return (1,), (0,), tensor._offset
    return tensor._shape, tensor._stride, tensor._offset


def _zeros(shape: tuple[int, ...], like: Tensor) -> Tensor:
    return from_values([0.0] * numel(shape), shape, like.dtype)


def wrap_int64(values: list[Any]) -> list[Any]:
    """Integers wrapped into int64's range, as C's arithmetic (and PyTorch) do:
    ``2**63`` becomes ``-2**63``. Python's integers never overflow by
    themselves, and the storage would refuse them."""
    if values and (max(values) > 2**63 - 1 or min(values) < -(2**63)):
        return [(v + 2**63) % 2**64 - 2**63 for v in values]
    return values


def _check_is_tensor(function: str, index: Any) -> None:
    """``index`` must be a tensor (PyTorch numbers the arguments of the
    function form, ``torch.gather(input, dim, index)``)."""
    if not isinstance(index, Tensor):
        raise TypeError(
            f"{function}(): argument 'index' (position 3) must be Tensor, not "
            f"{type(index).__name__}"
        )


def _check_index_dtype(name: str, index: Tensor) -> None:
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")


def _check_bounds(picks: list[int], dim: int, size: int) -> None:
    """Every index must name an element: ``0 <= i < size`` (no negatives)."""
    if picks and (min(picks) < 0 or max(picks) >= size):
        bad = next(p for p in picks if not 0 <= p < size)
        raise RuntimeError(
            f"index {bad} is out of bounds for dimension {dim} with size {size}"
        )


def _check_sizes(
    index_shape: tuple[int, ...],
    self_shape: tuple[int, ...],
    dim: int,
    src_shape: tuple[int, ...] | None = None,
) -> None:
    """The index may be smaller than ``self`` (except along ``dim``) and than
    ``src``, never larger: PyTorch's rule for gather and scatter."""
    fits_self = all(
        i <= s for d, (i, s) in enumerate(zip(index_shape, self_shape)) if d != dim
    )
    fits_src = src_shape is None or all(i <= s for i, s in zip(index_shape, src_shape))
    if fits_self and fits_src:
        return
    message = (
        f"Expected index {list(index_shape)} to be no larger than self "
        f"{list(self_shape)} apart from dimension {dim}"
    )
    if src_shape is not None:
        message += f" and to be no larger size than src {list(src_shape)}"
    raise RuntimeError(message)


def _indexed_positions(layout: Layout, index: Tensor, dim: int) -> list[int]:
    """The storage position, in the tensor of ``layout``, that each element of
    ``index`` points at: its own coordinates, except along ``dim``, where the
    index value is the coordinate.

    Raises:
        RuntimeError: If an index value is out of range.
    """
    shape, strides, offset = layout
    index_shape = _layout(index)[0]
    picks = index._values()
    _check_bounds(picks, dim, shape[dim])
    step = strides[dim]
    base_strides = list(strides)
    base_strides[dim] = 0
    bases = position_list(index_shape, base_strides, offset)
    return [base + pick * step for base, pick in zip(bases, picks)]


# ----------------------------------------------------------------------
# Reading by flat positions, and adding back into zeros
# ----------------------------------------------------------------------
# ``positions`` lists, for each element of a result, the row-major index of
# an element of the input. Gathering by positions and adding back into
# zeros by positions are each other's backward. Indexing (``x[i]``) and
# ``as_strided`` are built on these two.


class Index(Function):
    """``x[positions]`` on the row-major elements of ``x``: a copy.

    An element picked twice gets the sum of both gradients, which
    :func:`index_add_into_zeros` does.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, positions: list[int], shape: tuple[int, ...]
    ) -> Tensor:
        ctx.input_shape = x._shape
        ctx.positions = positions
        values = x._values()
        if len(positions) == 1:
            return from_values([values[positions[0]]], shape, x.dtype)
        picked = list(itemgetter(*positions)(values)) if positions else []
        return from_values(picked, shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return index_add_into_zeros(grad_output, ctx.positions, ctx.input_shape)


class IndexAddIntoZeros(Function):
    """Zeros of ``shape``, with element ``i`` of ``g`` added at ``positions[i]``."""

    grad_fn_name = "IndexPutBackward0"

    @staticmethod
    def forward(
        ctx: FunctionCtx, g: Tensor, *, positions: list[int], shape: tuple[int, ...]
    ) -> Tensor:
        ctx.g_shape = g._shape
        ctx.positions = positions
        out = [0] * numel(shape)
        for position, value in zip(positions, g._values()):
            out[position] += value
        return from_values(out, shape, g.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return index(grad_output, ctx.positions, ctx.g_shape)


def index(input: Tensor, positions: list[int], shape: tuple[int, ...]) -> Tensor:
    """The row-major elements of ``input`` at ``positions``, in ``shape``."""
    return Index.apply(input, positions=positions, shape=shape)


def index_add_into_zeros(
    g: Tensor, positions: list[int], shape: tuple[int, ...]
) -> Tensor:
    """Zeros of ``shape`` plus ``g``'s elements at ``positions`` (repeats add up)."""
    return IndexAddIntoZeros.apply(g, positions=positions, shape=shape)


# ----------------------------------------------------------------------
# gather
# ----------------------------------------------------------------------


class Gather(Function):
    """``out[i][j] = x[i][index[i][j]]`` (for ``dim=1``).

    The gradient goes back to the elements that were read: a scatter-add of
    ``grad_output`` into zeros, so an element read twice gets both.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dim: int, index: Tensor) -> Tensor:
        ctx.save_for_backward(index)
        ctx.dim, ctx.input_shape = dim, x._shape
        positions = _indexed_positions(_layout(x), index, dim)
        data = x._storage.data
        return from_values([data[p] for p in positions], index._shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (index,) = ctx.saved_tensors
        zeros = _zeros(ctx.input_shape, grad_output)
        return scatter_add(zeros, ctx.dim, index, grad_output)


def _check_same_ndim(index: Tensor, other: Tensor, name: str) -> None:
    if max(index.dim(), 1) != max(other.dim(), 1):
        raise RuntimeError(
            f"Index tensor must have the same number of dimensions as {name} tensor"
        )


@accepts_out
@tensor_input
def gather(
    input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False
) -> Tensor:
    """The elements of ``input`` that ``index`` names along ``dim``.

    The result has ``index``'s shape; for ``dim=1``,
    ``out[i][j] = input[i][index[i][j]]``.

    Raises:
        IndexError: If ``dim`` is out of range.
        RuntimeError: If ``index`` is not int64, has another number of
            dimensions, is larger than ``input`` apart from ``dim``, or holds
            an index out of range.
    """
    _check_is_tensor("gather", index)
    dim = normalize_dim(dim, input.dim())
    _check_index_dtype("gather", index)
    kernel = (
        "gather_expanded_index" if input.dtype.float8 else "scatter_gather_tensor_cpu"
    )
    check_loop(kernel, input.dtype, elements=index.numel())
    _check_same_ndim(index, input, "input")
    index_shape, input_shape = _layout(index)[0], _layout(input)[0]
    for d, (i, s) in enumerate(zip(index_shape, input_shape)):
        if d != dim and i > s:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index "
                f"{list(index_shape)} to be no larger than self {list(input_shape)} "
                f"apart from dimension {dim}"
            )
    return Gather.apply(input, dim=dim, index=index)


# ----------------------------------------------------------------------
# scatter and scatter_add
# ----------------------------------------------------------------------


def _scatter_values(
    x: Tensor, dim: int, index: Tensor, sources: Any, combine: Any = None
) -> Tensor:
    """A copy of ``x`` with ``sources`` written where ``index`` points.

    ``combine(old, new)`` (such as ``operator.add``) merges a written value
    with the one already there; without it the value is replaced.
    """
    values = x._values()
    shape = _layout(x)[0]
    targets = _indexed_positions((shape, contiguous_strides(shape), 0), index, dim)
    if combine is None:
        for target, value in zip(targets, sources):
            values[target] = value
    else:
        for target, value in zip(targets, sources):
            values[target] = combine(values[target], value)
        if x.dtype is dtypes.int64:
            values = wrap_int64(values)
    return from_values(values, x._shape, x.dtype)


def _source_values(src: Tensor, index: Tensor) -> list[Any]:
    """The elements of ``src`` at the coordinates of each element of ``index``
    (``src`` may be larger than ``index``)."""
    src_shape, src_strides, offset = _layout(src)
    positions = position_list(_layout(index)[0], src_strides, offset)
    data = src._storage.data
    return [data[p] for p in positions]


class Scatter(Function):
    """``out[i][index[i][j]] = src[i][j]`` (for ``dim=1``), else ``x``.

    The gradient of ``x`` is ``grad_output`` with the overwritten places set
    to 0; the gradient of ``src`` is ``grad_output`` gathered from where each
    element was written.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, src: Tensor, *, dim: int, index: Tensor
    ) -> Tensor:
        ctx.save_for_backward(index)
        ctx.dim = dim
        return _scatter_values(x, dim, index, _source_values(src, index))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        (index,) = ctx.saved_tensors
        grad_x = grad_src = None
        if ctx.needs_input_grad[0]:
            grad_x = scatter(grad_output, ctx.dim, index, 0.0)
        if ctx.needs_input_grad[1]:
            grad_src = gather(grad_output, ctx.dim, index)
        return grad_x, grad_src


class ScatterValue(Function):
    """``out[i][index[i][j]] = value`` (for ``dim=1``), else ``x``.

    The overwritten places get no gradient.
    """

    grad_fn_name = "ScatterBackward1"

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, dim: int, index: Tensor, value: Any
    ) -> Tensor:
        ctx.save_for_backward(index)
        ctx.dim = dim
        return _scatter_values(x, dim, index, repeat(cast_scalar(value, x.dtype)))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (index,) = ctx.saved_tensors
        return scatter(grad_output, ctx.dim, index, 0.0)


class ScatterAdd(Function):
    """``out[i][index[i][j]] += src[i][j]`` (for ``dim=1``), starting from ``x``.

    Every element of ``x`` passes through, so its gradient is
    ``grad_output``; ``src``'s is gathered, as for :class:`Scatter`.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, src: Tensor, *, dim: int, index: Tensor
    ) -> Tensor:
        ctx.save_for_backward(index)
        ctx.dim = dim
        sources = _source_values(src, index)
        return _scatter_values(x, dim, index, sources, operator.add)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        (index,) = ctx.saved_tensors
        grad_src = None
        if ctx.needs_input_grad[1]:
            grad_src = gather(grad_output, ctx.dim, index)
        return grad_output, grad_src


def _check_scatter(
    name: str, input: Tensor, dim: int, index: Tensor, src: Tensor | None
) -> int:
    """PyTorch's checks of ``scatter``'s arguments; returns ``dim`` normalized."""
    _check_is_tensor(name, index)
    dim = normalize_dim(dim, input.dim())
    _check_index_dtype("scatter", index)
    _check_same_ndim(index, input, "self")
    if src is not None:
        _check_same_ndim(index, src, "src")
        if src.dtype is not input.dtype:
            raise RuntimeError(
                "scatter(): Expected self.dtype to be equal to src.dtype"
            )
    _check_sizes(
        _layout(index)[0],
        _layout(input)[0],
        dim,
        None if src is None else _layout(src)[0],
    )
    return dim


@tensor_input
def scatter(
    input: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None
) -> Tensor:
    """A copy of ``input`` with ``src`` written where ``index`` points.

    For ``dim=1``: ``out[i][index[i][j]] = src[i][j]``. ``src`` may be a
    tensor (of ``input``'s dtype, at least as large as ``index``) or a
    number written everywhere ``index`` points. Where ``index`` repeats a
    place, one of the values written there wins.

    Raises:
        IndexError: If ``dim`` is out of range.
        RuntimeError: For a non-int64 index, mismatched dimensions or sizes,
            another dtype of ``src``, or an index out of range.
    """
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter(): expected a tensor src or a number value")
    if isinstance(src, Tensor):
        dim = _check_scatter("scatter", input, dim, index, src)
        return Scatter.apply(input, src, dim=dim, index=index)
    dim = _check_scatter("scatter", input, dim, index, None)
    return ScatterValue.apply(input, dim=dim, index=index, value=src)


@tensor_input
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """A copy of ``input`` with ``src`` added where ``index`` points.

    For ``dim=1``: ``out[i][index[i][j]] += src[i][j]``; repeated places
    add up.

    Raises:
        TypeError: If ``src`` is not a tensor.
        RuntimeError: As :func:`scatter`.
    """
    if not isinstance(src, Tensor):
        raise TypeError(
            "scatter_add(): argument 'src' (position 3) must be Tensor, not "
            f"{type(src).__name__}"
        )
    dim = _check_scatter("scatter_add", input, dim, index, src)
    return ScatterAdd.apply(input, src, dim=dim, index=index)


# ----------------------------------------------------------------------
# index_select, masked_select, nonzero
# ----------------------------------------------------------------------


class IndexSelect(Function):
    """Whole slices along ``dim``, in the order ``index`` gives.

    The gradient of each slice of the input is the sum of the gradients of
    the output slices that copied it (a scatter-add along ``dim``).
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dim: int, index: Tensor) -> Tensor:
        ctx.save_for_backward(index)
        ctx.dim, ctx.input_shape = dim, x._shape
        picks = index._values()
        if not x._shape:
            return from_values([x.item()] * len(picks), (), x.dtype)
        shape = list(x._shape)
        shape[dim] = len(picks)
        inner = numel(shape[dim + 1 :])
        step = x._stride[dim]
        base_strides = list(x._stride)
        base_strides[dim] = 0
        bases = position_list(shape, base_strides, x._offset)
        along = [pick * step for pick in picks for _ in range(inner)]
        along *= numel(shape[:dim])
        data = x._storage.data
        values = [data[base + move] for base, move in zip(bases, along)]
        return from_values(values, tuple(shape), x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (index,) = ctx.saved_tensors
        dim, shape = ctx.dim, ctx.input_shape
        if not shape:
            return grad_output
        index_shape = [1] * len(shape)
        index_shape[dim] = -1
        spread = index.reshape(index_shape).expand(grad_output.shape)
        return scatter_add(_zeros(shape, grad_output), dim, spread, grad_output)


# PyTorch's words for an ``out`` not of the input's dtype.
INDEX_SELECT_REFUSAL = "index_select(): self and result must have the same scalar type"


@accepts_out(dtype_refusal=INDEX_SELECT_REFUSAL)
@tensor_input
def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The slices of ``input`` along ``dim`` at the positions in ``index``
    (a 1-d int64 tensor): ``index_select(x, 0, tensor([2, 0]))`` is rows 2
    and 0.

    Raises:
        IndexError: If ``dim`` or an index is out of range, or ``index`` has
            more than one dimension.
        RuntimeError: If ``index`` is not int64.
    """
    _check_is_tensor("index_select", index)
    dim = normalize_dim(dim, input.dim())
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dtype is not dtypes.int64:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    picks = index._values()
    size = input._shape[dim] if input._shape else 1
    if not input._shape and len(picks) != 1:
        raise RuntimeError(
            "index_select(): Index to scalar can have only 1 value, got "
            f"{len(picks)} value(s)"
        )
    if picks and size == 0:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if picks and (min(picks) < 0 or max(picks) >= size):
        raise IndexError("index out of range in self")
    return IndexSelect.apply(input, dim=dim, index=index)


class MaskedSelect(Function):
    """The elements where ``mask`` is true, as a 1-d tensor.

    Each selected element gets its gradient back at its place; the others
    get 0.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, mask: Tensor) -> Tensor:
        shape = broadcast_shapes(mask._shape, x._shape)
        keep = expanded_values(mask, shape)
        selected = list(compress(expanded_values(x, shape), keep))
        places = list(compress(range(len(keep)), keep))
        ctx.save_for_backward(from_values(places, (len(places),), dtypes.int64))
        ctx.shape = shape
        return from_values(selected, (len(selected),), x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (places,) = ctx.saved_tensors
        flat = _zeros((numel(ctx.shape),), grad_output)
        return scatter(flat, 0, places, grad_output).reshape(ctx.shape)


@tensor_input
def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``input`` where the bool ``mask`` is true, in row-major
    order, as a 1-d tensor (``input`` and ``mask`` broadcast together).

    Raises:
        TypeError: If ``mask`` is not a tensor.
        RuntimeError: If ``mask`` is not bool or the shapes do not broadcast.
    """
    if not isinstance(mask, Tensor):
        raise TypeError(
            "masked_select(): argument 'mask' (position 1) must be Tensor, not "
            f"{type(mask).__name__}"
        )
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    return MaskedSelect.apply(input, mask=mask)


@tensor_input
def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """The coordinates of the non-zero elements (``nan`` counts as non-zero).

    Returns a ``(count, input.dim())`` int64 tensor, one row of coordinates
    per element in row-major order; with ``as_tuple=True``, one 1-d tensor
    per dimension instead (a 0-d input counts as 1-d), ready to index with:
    ``x[x.nonzero(as_tuple=True)]``.
    """
    check_loop("nonzero_count_cpu", input.dtype)
    values = input._values()
    hits = list(compress(range(len(values)), values))
    shape = input._shape or (1,)
    columns = []
    inner = 1
    for size in reversed(shape):
        columns.append([(place // inner) % size for place in hits])
        inner *= size
    columns.reverse()
    if as_tuple:
        return tuple(from_values(c, (len(hits),), dtypes.int64) for c in columns)
    if not input._shape:
        return from_values([], (len(hits), 0), dtypes.int64)
    rows = [value for row in zip(*columns) for value in row]
    return from_values(rows, (len(hits), len(shape)), dtypes.int64)


# ----------------------------------------------------------------------
# index_add
# ----------------------------------------------------------------------


class IndexAdd(Function):
    """``x`` with ``alpha * source`` added to the slices that ``index``
    names along ``dim`` (a slice named twice gets both).

    Derivatives: the gradient of ``x`` is ``grad_output`` itself; that of
    ``source`` is ``alpha`` times the slices of ``grad_output`` it was
    added to (an ``index_select``).
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        source: Tensor,
        *,
        dim: int,
        index: Tensor,
        alpha: Any,
    ) -> Tensor:
        ctx.save_for_backward(index)
        ctx.dim, ctx.alpha = dim, alpha
        values = x._values()
        shape = x._shape or (1,)
        strides = contiguous_strides(shape)
        picks = index._values()
        scale = cast_scalar(alpha, x.dtype)
        added = source._values()
        for flat, where in enumerate(product(*map(range, source._shape or (1,)))):
            position = sum(i * st for i, st in zip(where, strides))
            position += (picks[where[dim]] - where[dim]) * strides[dim]
            values[position] += scale * added[flat]
        return from_values(values, x._shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        (index,) = ctx.saved_tensors
        picked = index_select(grad_output, ctx.dim, index)
        return grad_output, picked if ctx.alpha == 1 else picked * ctx.alpha


@tensor_input
def index_add(
    input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1
) -> Tensor:
    """``input`` with ``alpha * source[..., i, ...]`` added to the slice
    ``index[i]`` along ``dim``, for each ``i``.

    Raises:
        IndexError: If ``dim`` is out of range or ``index`` is not 1-d.
        RuntimeError: If ``index`` is not int64 or int32, ``source`` has
            another dtype, or the shapes or indices do not fit.
    """
    dim = normalize_dim(dim, input.dim())
    _check_index_add(input, dim, index, source)
    return IndexAdd.apply(input, source, dim=dim, index=index, alpha=alpha)


def _check_index_add(input: Tensor, dim: int, index: Tensor, source: Tensor) -> None:
    """PyTorch's checks of ``index_add``, in its order and words."""
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(
            "index_add_(): Expected dtype int32/int64 for index but got: "
            f"{index.dtype.c_name}"
        )
    if index.dim() > 1:
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: "
            f"{index.dim()} with type: {index.dtype.c_name} and size: "
            f"{list(index._shape)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"index_add_(): self ({input.dtype.c_name}) and source "
            f"({source.dtype.c_name}) must have the same scalar type"
        )
    along = source._shape[dim] if source._shape else 1
    if index.numel() != along:
        raise RuntimeError(
            f"index_add_(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim): ({along}), for dim: {dim}"
        )
    others = [s for d, s in enumerate(input._shape) if d != dim]
    if others != [s for d, s in enumerate(source._shape) if d != dim]:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the "
            f"specified dimension. Got self.shape = {list(input._shape)} "
            f"source.shape = {list(source._shape)}"
        )
    size = input._shape[dim] if input._shape else 1
    for pick in index._values():
        if not 0 <= pick < size:
            raise RuntimeError(
                f"index {pick} is out of bounds for dimension {dim} with size {size}"
            )
