"""Views: new shapes and strides over the same storage, with no copying.

A view changes how the storage is read, never the storage itself. So a
view's forward is index arithmetic only, and writing through a view changes
the tensor it came from. The backward of a view puts the gradient back into
the shape of the input: a transpose transposes it back, an ``expand`` sums
it, a slice pads it with zeros. What autograd must do when a view is
written to in place lives in :mod:`slowtorch_lib.autograd.history`.

Here are the views that reshape, add or drop dimensions of size 1, expand,
slice, and read any geometry (``as_strided``). Those that reorder dimensions
(``transpose``, ``permute``) are in :mod:`slowtorch_lib.ops.reordering`, and
those that cut a tensor into pieces (``split``, ``unbind``, ``unfold``) in
:mod:`slowtorch_lib.ops.splitting`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from slowtorch_lib._strides import (
    contiguous_strides,
    expanded_layout,
    normalize_dim,
    normalize_dims,
    numel,
    position_list,
    sizes_arg,
)
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.history import as_view
from slowtorch_lib.ops.common import tensor_input
from slowtorch_lib.ops.copying import clone
from slowtorch_lib.ops.gather_scatter import index, index_add_into_zeros
from slowtorch_lib.ops.reduction import sum_to_size

__all__ = [
    "as_strided",
    "detach",
    "flatten",
    "narrow",
    "reshape",
    "select",
    "squeeze",
    "unflatten",
    "unsqueeze",
]


def detach(tensor: Tensor) -> Tensor:
    """The same storage and geometry, as a new leaf that does not require grad.

    It shares the numbers but not the history, so it is not a view for
    autograd (its ``_base`` is None) and may be changed in place freely.
    """
    return Tensor._make(tensor._storage, tensor._shape, tensor._stride, tensor._offset)


# ----------------------------------------------------------------------
# view and reshape
# ----------------------------------------------------------------------


def infer_shape(shape: Sequence[int], count: int) -> tuple[int, ...]:
    """Fills in a ``-1`` in ``shape`` so that it holds ``count`` elements.

    Raises:
        RuntimeError: If more than one ``-1`` is given, a size is below -1, or
            the shape cannot hold exactly ``count`` elements.
    """
    shape = tuple(int(s) for s in shape)
    unknown = [i for i, size in enumerate(shape) if size == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, size in enumerate(shape):
        if size < -1:
            raise RuntimeError(
                f"invalid shape dimension {size} at index {i} of shape {list(shape)}"
            )
    known = numel(tuple(s for s in shape if s != -1))
    if unknown:
        if known == 0:
            if count == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {list(shape)} "
                    "because the unspecified dimension size -1 can be any value and "
                    "is ambiguous"
                )
            raise RuntimeError(_invalid_shape(shape, count))
        if count % known:
            raise RuntimeError(_invalid_shape(shape, count))
        index = unknown[0]
        return shape[:index] + (count // known,) + shape[index + 1 :]
    if known != count:
        raise RuntimeError(_invalid_shape(shape, count))
    return shape


def _invalid_shape(shape: tuple[int, ...], count: int) -> str:
    return f"shape '{list(shape)}' is invalid for input of size {count}"


def view_strides(
    shape: Sequence[int], strides: Sequence[int], new_shape: Sequence[int]
) -> tuple[int, ...] | None:
    """Strides that read the same elements in ``new_shape``, or None if impossible.

    The old dimensions are grouped into *chunks*, innermost first: a chunk
    grows outwards while the next dimension's stride continues it (equals the
    chunk's element count times its innermost stride). Inside a chunk the
    elements are evenly spaced, so it can be cut into any new sizes with the
    same product. A transposed tensor's dimensions do not chain, so ``.view``
    cannot merge them and ``.reshape`` has to copy.

    New dimensions of size 1 take the stride "one past" the dimensions placed
    so far in their chunk; the results match PyTorch's strides exactly.
    """
    if numel(shape) == 0:
        if tuple(shape) == tuple(new_shape):
            return tuple(strides)
        return contiguous_strides(new_shape)
    if not shape:
        return (1,) * len(new_shape)
    # Each chunk: (number of elements, stride of its innermost dimension).
    chunks: list[tuple[int, int]] = []
    count, inner = 1, strides[-1]
    for d in reversed(range(len(shape))):
        count *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and strides[d - 1] != count * inner):
            chunks.append((count, inner))
            if d > 0:
                count, inner = 1, strides[d - 1]
    result = [0] * len(new_shape)
    d = len(new_shape) - 1
    for count, inner in chunks:
        placed = 1
        while d >= 0 and (placed < count or new_shape[d] == 1):
            result[d] = placed * inner
            placed *= new_shape[d]
            d -= 1
        if placed != count:
            return None
    if d != -1:
        return None
    return tuple(result)


class View(Function):
    """The same elements in another shape. The gradient is reshaped back."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, shape: tuple[int, ...]) -> Tensor:
        ctx.input_shape = x._shape
        strides = view_strides(x._shape, x._stride, shape)
        if strides is None:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at "
                "least one dimension spans across two contiguous subspaces). Use "
                ".reshape(...) instead."
            )
        return as_view(x, shape, strides, x._offset)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output.reshape(ctx.input_shape)


class ReshapeAlias(View):
    """The view ``reshape`` takes of a non-contiguous tensor it can still view."""


class UnsafeView(View):
    """The view ``reshape`` takes after copying a tensor that could not be viewed.

    Its input is a fresh copy that nothing else sees, so the result is not a
    view for autograd (no ``_base``), as in PyTorch: writing to it in place
    records the operation itself, not a ``CopySlices``.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, shape: tuple[int, ...]) -> Tensor:
        ctx.input_shape = x._shape
        return Tensor._make(x._storage, shape, contiguous_strides(shape), x._offset)


def view(input: Tensor, shape: Sequence[int]) -> Tensor:
    """``input`` read in another shape, sharing storage.

    Raises:
        RuntimeError: If the shape holds another number of elements, or the
            strides of ``input`` do not allow it (use :func:`reshape`).
    """
    return View.apply(input, shape=infer_shape(shape, input.numel()))


@tensor_input
def reshape(input: Tensor, shape: Sequence[int]) -> Tensor:
    """Like :func:`view`, but copies when a view is impossible."""
    shape = infer_shape(shape, input.numel())
    if input.is_contiguous():
        return View.apply(input, shape=shape)
    if view_strides(input._shape, input._stride, shape) is not None:
        return ReshapeAlias.apply(input, shape=shape)
    return UnsafeView.apply(contiguous(input), shape=shape)


def contiguous(input: Tensor) -> Tensor:
    """``input`` itself if it is row-major, else a row-major copy."""
    if input.is_contiguous():
        return input
    return clone(input)


@tensor_input
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merges dimensions ``start_dim`` to ``end_dim`` into one."""
    ndim = input.dim()
    if ndim == 0:
        return reshape(input, (1,))
    start = normalize_dim(start_dim, ndim)
    end = normalize_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError(
            "flatten() has invalid args: start_dim cannot come after end_dim"
        )
    if start == end:
        return input
    shape = input._shape
    merged = numel(shape[start : end + 1])
    return reshape(input, shape[:start] + (merged,) + shape[end + 1 :])


@tensor_input
def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Splits dimension ``dim`` into ``sizes`` (one of them may be -1), as a
    view: ``unflatten(x, 1, (2, 3))`` turns shape ``(4, 6)`` into ``(4, 2, 3)``.

    Raises:
        RuntimeError: If ``sizes`` is empty or does not multiply up to the
            size of ``dim``.
        IndexError: If ``dim`` is out of range.
    """
    split = sizes_arg((sizes,), "unflatten", "sizes")
    dim = normalize_dim(dim, input.dim())
    if not split:
        raise RuntimeError("unflatten: sizes must be non-empty")
    length = input._shape[dim] if input.dim() else 1
    known = numel([size for size in split if size != -1])
    fits = length % known == 0 if -1 in split and known else known == length
    if not fits:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(split)} don't multiply up to the "
            f"size of dim {dim} ({length}) in the input tensor"
        )
    return view(input, input._shape[:dim] + split + input._shape[dim + 1 :])


# ----------------------------------------------------------------------
# Adding and removing dimensions of size 1, expanding
# ----------------------------------------------------------------------


class Unsqueeze(Function):
    """Inserts a dimension of size 1 at ``dim``."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dim: int) -> Tensor:
        dim = normalize_dim(dim, x.dim() + 1)
        ctx.dim = dim
        inner = x._stride[dim] * x._shape[dim] if dim < x.dim() else 1
        shape = x._shape[:dim] + (1,) + x._shape[dim:]
        stride = x._stride[:dim] + (inner,) + x._stride[dim:]
        return as_view(x, shape, stride, x._offset)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output.squeeze(ctx.dim)


class Squeeze(Function):
    """Removes dimensions of size 1 (all of them, or those in ``dims``)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dims: tuple[int, ...]) -> Tensor:
        ctx.input_shape = x._shape
        keep = [i for i in range(x.dim()) if not (i in dims and x._shape[i] == 1)]
        shape = tuple(x._shape[i] for i in keep)
        stride = tuple(x._stride[i] for i in keep)
        return as_view(x, shape, stride, x._offset)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output.reshape(ctx.input_shape)


class SqueezeDim(Squeeze):
    """``squeeze(dim)`` for one dimension."""

    grad_fn_name = "SqueezeBackward1"


class SqueezeDims(Squeeze):
    """``squeeze(dims)`` for a tuple of dimensions."""

    grad_fn_name = "SqueezeBackward2"


class Expand(Function):
    """Stretches dimensions of size 1 (stride 0: one cell read many times).

    The backward sums the gradient over the stretched dimensions, because
    each input element was used once for every position it was copied to.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, shape: tuple[int, ...]) -> Tensor:
        ctx.input_shape = x._shape
        if len(shape) < x.dim():
            raise RuntimeError(
                f"expand({x.type()}{{{list(x._shape)}}}, size={list(shape)}): the "
                "number of sizes provided "
                f"({len(shape)}) must be greater or equal to the number of dimensions "
                f"in the tensor ({x.dim()})"
            )
        new_shape, new_stride = expanded_layout(x._shape, x._stride, shape)
        return as_view(x, new_shape, new_stride, x._offset)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return sum_to_size(grad_output, ctx.input_shape)


@tensor_input
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """``input`` with a new dimension of size 1 at ``dim`` (a view)."""
    return Unsqueeze.apply(input, dim=dim)


@tensor_input
def squeeze(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """``input`` without its dimensions of size 1 (or only those in ``dim``)."""
    ndim = input.dim()
    if dim is None:
        return Squeeze.apply(input, dims=tuple(range(ndim)))
    if isinstance(dim, int):
        return SqueezeDim.apply(input, dims=(normalize_dim(dim, ndim),))
    return SqueezeDims.apply(input, dims=normalize_dims(tuple(dim), ndim))


def expand(input: Tensor, shape: Sequence[int]) -> Tensor:
    """``input`` stretched along its dimensions of size 1 (a view, no copy)."""
    return Expand.apply(input, shape=tuple(shape))


# ----------------------------------------------------------------------
# Slicing: select, slice, narrow
# ----------------------------------------------------------------------


class ViewScatter(Function):
    """The backward of a slicing view: the gradient placed in a zero tensor.

    ``make_view`` repeats the forward view on the zero tensor, and the
    gradient is written through it. Its own backward just takes that view
    again, so double backward through slicing works.
    """

    grad_fn_name = "SliceBackwardBackward0"

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        grad: Tensor,
        *,
        input_shape: tuple[int, ...],
        make_view: Callable[[Tensor], Tensor],
    ) -> Tensor:
        ctx.make_view = make_view
        result = from_values([0] * numel(input_shape), input_shape, grad.dtype)
        make_view(result)._write_values(grad._values())
        result._storage.version = 0
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return ctx.make_view(grad_output)


class Select(Function):
    """Picks index ``index`` of dimension ``dim``, which disappears."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dim: int, index: int) -> Tensor:
        if x.dim() == 0:
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
        dim = normalize_dim(dim, x.dim())
        size = x._shape[dim]
        if not -size <= index < size:
            raise IndexError(
                f"index {index} is out of bounds for dimension {dim} with size {size}"
            )
        index %= size
        ctx.input_shape = x._shape
        ctx.dim, ctx.index = dim, index
        shape = x._shape[:dim] + x._shape[dim + 1 :]
        stride = x._stride[:dim] + x._stride[dim + 1 :]
        return as_view(x, shape, stride, x._offset + index * x._stride[dim])

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        dim, index = ctx.dim, ctx.index
        return ViewScatter.apply(
            grad_output,
            input_shape=ctx.input_shape,
            make_view=lambda t: select(t, dim, index),
        )


class Slice(Function):
    """Keeps indices ``start, start + step, ...`` below ``stop`` along ``dim``."""

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, dim: int, start: int, stop: int, step: int
    ) -> Tensor:
        ctx.input_shape = x._shape
        ctx.bounds = (dim, start, stop, step)
        length = max(0, (stop - start + step - 1) // step)
        shape = x._shape[:dim] + (length,) + x._shape[dim + 1 :]
        stride = x._stride[:dim] + (x._stride[dim] * step,) + x._stride[dim + 1 :]
        return as_view(x, shape, stride, x._offset + start * x._stride[dim])

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        dim, start, stop, step = ctx.bounds
        return ViewScatter.apply(
            grad_output,
            input_shape=ctx.input_shape,
            make_view=lambda t: Slice.apply(
                t, dim=dim, start=start, stop=stop, step=step
            ),
        )


@tensor_input
def select(input: Tensor, dim: int, index: int) -> Tensor:
    """``input`` at ``index`` along ``dim``; that dimension goes away (a view).

    Raises:
        IndexError: If ``dim`` or ``index`` is out of range.
    """
    if input.dim():
        size = input._shape[normalize_dim(dim, input.dim())]
        if not -size <= index < size:
            raise IndexError(
                f"select(): index {index} out of range for tensor of size "
                f"{list(input._shape)} at dimension {dim}"
            )
    return Select.apply(input, dim=dim, index=index)


def slice_dim(
    input: Tensor, dim: int, start: int | None, stop: int | None, step: int = 1
) -> Tensor:
    """``input[..., start:stop:step, ...]`` along ``dim`` (a view).

    Raises:
        ValueError: If ``step`` is not positive (PyTorch has no negative steps).
    """
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    if input.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    dim = normalize_dim(dim, input.dim())
    first, last, _ = slice(start, stop).indices(input._shape[dim])
    return Slice.apply(input, dim=dim, start=first, stop=max(first, last), step=step)


@tensor_input
def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``length`` elements of ``dim`` from ``start`` (a view)."""
    if input.dim() == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = normalize_dim(dim, input.dim())
    size = input._shape[dim]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], "
            f"but got {start})"
        )
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(
            f"start ({start}) + length ({length}) exceeds dimension size ({size})."
        )
    return Slice.apply(input, dim=dim, start=start, stop=start + length, step=1)


# ----------------------------------------------------------------------
# The whole tensor as a view: alias
# ----------------------------------------------------------------------


class Alias(Function):
    """The same geometry, as a new view (``x[...]``). The gradient passes through."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        return as_view(x, x._shape, x._stride, x._offset)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output


def alias(input: Tensor) -> Tensor:
    """A new view of all of ``input``."""
    return Alias.apply(input)


# ----------------------------------------------------------------------
# Any geometry: as_strided and unfold (windows, which may overlap)
# ----------------------------------------------------------------------


class AsStrided(Function):
    """Any geometry over the storage of ``x``: sizes, strides and an offset.

    The forward is chapter 1's index arithmetic and nothing else: element
    ``(i, j, ...)`` of the result is storage cell
    ``offset + i * stride[0] + j * stride[1] + ...``. Strides smaller than
    the window make windows that overlap, as a convolution's do.

    The backward adds each gradient element to the storage cell it was read
    from, so a cell read by several overlapping windows gets the sum of their
    gradients. Each element of ``x`` then takes the sum of its cell (shared
    evenly when ``x`` itself shows one cell several times, as PyTorch does).
    The same view is also the history a view gets when its base is changed
    in place (:mod:`slowtorch_lib.autograd.history`).
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        *,
        shape: tuple[int, ...],
        stride: tuple[int, ...],
        offset: int,
    ) -> Tensor:
        ctx.input_geometry = (x._shape, x._stride, x._offset)
        ctx.geometry = (shape, stride, offset)
        return as_view(x, shape, stride, offset)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        input_cells = position_list(*ctx.input_geometry)
        output_cells = position_list(*ctx.geometry)
        # Number the cells either geometry reads: 0, 1, 2, ...
        number = {cell: i for i, cell in enumerate(sorted(set(input_cells)))}
        outside = len(number)  # one slot for cells that x does not show
        slots = [number.get(cell, outside) for cell in output_cells]
        per_cell = index_add_into_zeros(grad_output, slots, (outside + 1,))
        picked = [number[cell] for cell in input_cells]
        grad_input = index(per_cell, picked, ctx.input_geometry[0])
        if len(number) == len(input_cells):  # no cell of x is shown twice
            return grad_input
        shown = Counter(input_cells)
        counts = [shown[cell] for cell in input_cells]
        return grad_input / from_values(counts, grad_input._shape, grad_input.dtype)


@tensor_input
def as_strided(
    input: Tensor,
    size: Sequence[int],
    stride: Sequence[int],
    storage_offset: int | None = None,
) -> Tensor:
    """A view of ``input``'s storage with exactly this geometry.

    Args:
        input: Whose storage is read.
        size: The shape of the view.
        stride: How many storage cells one step along each dimension skips.
        storage_offset: The cell of element ``(0, 0, ...)``; by default the
            offset of ``input``.

    Raises:
        RuntimeError: If ``size`` and ``stride`` differ in length, a stride
            or the offset is negative, or the view reads past the storage.
    """
    shape, strides = tuple(size), tuple(stride)
    offset = input._offset if storage_offset is None else storage_offset
    _check_geometry(input, shape, strides, offset)
    return AsStrided.apply(input, shape=shape, stride=strides, offset=offset)


def _check_geometry(
    input: Tensor, shape: tuple[int, ...], strides: tuple[int, ...], offset: int
) -> None:
    """PyTorch's refusals of a geometry for ``as_strided``."""
    if len(shape) != len(strides):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in strides):
        raise RuntimeError(
            "as_strided: Negative strides are not supported at the moment, got "
            f"strides: {list(strides)}"
        )
    if any(n < 0 for n in shape):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={list(shape)} and "
            f"strides={list(strides)}"
        )
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = 0 if 0 in shape else offset + 1
    needed += sum((n - 1) * s for n, s in zip(shape, strides)) if needed else 0
    cells = len(input._storage)
    if needed > cells:
        item = input.element_size()
        raise RuntimeError(
            f"setStorage: sizes {list(shape)}, strides {list(strides)}, storage "
            f"offset {offset}, and itemsize {item} requiring a storage size of "
            f"{needed * item} are out of bounds for storage of size {cells * item}"
        )
