"""Index maths: shapes, strides and positions, as small pure functions.

A tensor of shape ``(d0, d1, ..., dn)`` keeps its elements in a flat storage.
Its *strides* ``(s0, s1, ..., sn)`` say how many storage cells to jump to move
by one along each dimension, and its *offset* where element ``(0, ..., 0)``
lives. The element at index ``(i0, ..., in)`` is at position::

    offset + i0 * s0 + i1 * s1 + ... + in * sn

Nothing here knows about tensors; everything here is plain tuples and ints.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import index, itemgetter
from typing import Any

__all__ = [
    "contiguous_strides",
    "index_to_position",
    "position_list",
    "strided_values",
    "broadcast_shapes",
    "expanded_layout",
    "normalize_dim",
    "normalize_dims",
    "numel",
]

Shape = tuple[int, ...]


def numel(shape: Sequence[int]) -> int:
    """The number of elements in a tensor of this shape (1 for ``()``)."""
    count = 1
    for size in shape:
        count *= size
    return count


def contiguous_strides(shape: Sequence[int]) -> Shape:
    """The strides of a row-major (C-order) tensor of this shape.

    The last dimension moves by one cell; each earlier dimension moves by the
    number of cells in everything after it.

    >>> contiguous_strides((2, 3, 4))
    (12, 4, 1)
    """
    strides = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def index_to_position(
    index: Sequence[int], strides: Sequence[int], offset: int = 0
) -> int:
    """The storage position of one element.

    >>> index_to_position((1, 2), strides=(3, 1))
    5
    """
    position = offset
    for i, stride in zip(index, strides):
        position += i * stride
    return position


def position_list(
    shape: Sequence[int], strides: Sequence[int], offset: int
) -> list[int]:
    """The storage positions of every element, in row-major order.

    Built one dimension at a time: start from the offset, and for each
    dimension replace every position ``p`` by ``p, p + s, p + 2s, ...``.

    >>> position_list((2, 2), strides=(1, 2), offset=0)
    [0, 2, 1, 3]
    """
    positions = [offset]
    for size, stride in zip(shape, strides):
        steps = [i * stride for i in range(size)]
        positions = [p + step for p in positions for step in steps]
    return positions


def strided_values(
    data: Sequence[Any], shape: Sequence[int], strides: Sequence[int], offset: int
) -> list[Any]:
    """The elements of a strided view of ``data``, in row-major order.

    The view's elements are ``data[p]`` for each position ``p`` of
    :func:`position_list`. ``itemgetter`` fetches all the positions in a
    single call, which is several times faster than a Python loop over
    them; a view that sees one cell everywhere (a broadcast scalar) is that
    value repeated. Rows of four or more elements are read as one slice
    each (``data[start : stop : step]``), which is faster still.

    >>> strided_values([10, 11, 12, 13, 14, 15], (3, 2), strides=(1, 3), offset=0)
    [10, 13, 11, 14, 12, 15]
    """
    if not any(strides):  # one cell seen everywhere (a broadcast scalar)
        return [data[offset]] * numel(shape)
    if shape and shape[-1] >= 4 and strides[-1] > 0:  # rows: one slice each
        size, step = shape[-1], strides[-1]
        values: list[Any] = []
        for start in position_list(shape[:-1], strides[:-1], offset):
            values += data[start : start + size * step : step]
        return values
    positions = position_list(shape, strides, offset)
    if len(positions) <= 1:  # itemgetter of one position returns no tuple
        return [data[p] for p in positions]
    return list(itemgetter(*positions)(data))


def broadcast_shapes(*shapes: Sequence[int]) -> Shape:
    """The shape that all the given shapes broadcast to.

    Shapes are aligned at their last dimension; a missing dimension or a
    dimension of size 1 stretches to match the others.

    >>> broadcast_shapes((3, 1), (4,))
    (3, 4)

    Raises:
        RuntimeError: If two sizes differ and neither is 1, with PyTorch's
            message (it counts dimensions of the broadcast shape).
    """
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        for i, size in enumerate(shape, start=ndim - len(shape)):
            if size == result[i] or size == 1:
                continue
            if result[i] != 1:
                raise RuntimeError(
                    f"The size of tensor a ({result[i]}) must match the size of "
                    f"tensor b ({size}) at non-singleton dimension {i}"
                )
            result[i] = size
    return tuple(result)


def expanded_layout(
    shape: Sequence[int], strides: Sequence[int], sizes: Sequence[int]
) -> tuple[Shape, Shape]:
    """The shape and strides of a tensor of ``shape`` and ``strides``
    broadcast to ``sizes``, as a view: a stretched dimension reads the same
    cell again, with stride 0. ``sizes`` may have more dimensions (new ones go
    first); a size of -1 keeps the size it faces.

    >>> expanded_layout((3, 1), (1, 1), (2, 3, 4))
    ((2, 3, 4), (0, 1, 0))

    Raises:
        RuntimeError: If a size differs from a dimension that is not 1, or a
            new leading dimension has a negative size (PyTorch's messages).
    """
    lead = len(sizes) - len(shape)
    new_shape: list[int] = []
    new_stride: list[int] = []
    # From the last dimension to the first, as PyTorch checks them.
    for i in reversed(range(len(sizes))):
        size = sizes[i]
        if i < lead:
            if size < 0:
                raise RuntimeError(
                    f"The expanded size of the tensor ({size}) isn't allowed in a "
                    "leading, non-existing dimension"
                )
            # A new dimension of size 1 takes the stride of a contiguous
            # layout, as in PyTorch; any other new dimension is stretched.
            stretched = size != 1 or not new_shape
            new_stride.insert(0, 0 if stretched else new_shape[0] * new_stride[0])
            new_shape.insert(0, size)
            continue
        old_size, old_stride = shape[i - lead], strides[i - lead]
        if size == -1:
            size = old_size
        if old_size == size:
            new_shape.insert(0, size)
            new_stride.insert(0, old_stride)
        elif old_size == 1:
            new_shape.insert(0, size)
            new_stride.insert(0, 0)
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({size}) must match the existing "
                f"size ({old_size}) at non-singleton dimension {i}.  Target sizes: "
                f"{list(sizes)}.  Tensor sizes: {list(shape)}"
            )
    return tuple(new_shape), tuple(new_stride)


def sizes_arg(args: tuple[Any, ...], function: str, argument: str) -> Shape:
    """The sizes (or dims) given to ``view``, ``permute``, ``repeat``...: as
    ``f(2, 3)`` or ``f((2, 3))``, as PyTorch accepts them.

    Raises:
        TypeError: If one is not an int, with PyTorch's message.
    """
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    elif len(args) == 1 and not hasattr(args[0], "__index__"):
        raise TypeError(
            f"{function}(): argument '{argument}' (position 1) must be tuple of "
            f"ints, not {type(args[0]).__name__}"
        )
    sizes = []
    for position, size in enumerate(args):
        try:
            sizes.append(index(size))
        except TypeError:
            raise TypeError(
                f"{function}(): argument '{argument}' (position 1) must be tuple of "
                f"ints, but found element of type {type(size).__name__} at pos "
                f"{position}"
            ) from None
    return tuple(sizes)


def normalize_dim(dim: int, ndim: int) -> int:
    """Turns a possibly negative ``dim`` into an index in ``range(ndim)``.

    A 0-d tensor accepts ``dim`` 0 and -1, as in PyTorch.

    Raises:
        TypeError: If ``dim`` is not an int.
        IndexError: If ``dim`` is out of range, with PyTorch's message.
    """
    if not isinstance(dim, int):
        try:
            dim = index(dim)
        except TypeError:
            raise TypeError(
                f"a dimension must be an int, not {type(dim).__name__}"
            ) from None
    wrapped = max(ndim, 1)
    if not -wrapped <= dim < wrapped:
        raise IndexError(
            f"Dimension out of range (expected to be in range of "
            f"[{-wrapped}, {wrapped - 1}], but got {dim})"
        )
    return dim % wrapped


def normalize_dims(dims: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Normalizes ``dim`` arguments of reductions: None means every dimension.

    Raises:
        IndexError: If a dim is out of range.
        RuntimeError: If a dim appears twice.
    """
    if dims is None:
        return tuple(range(ndim))
    # One dim: an int, or int-like (a 0-d integer tensor).
    listed = dims if isinstance(dims, (tuple, list)) else (dims,)
    result = tuple(normalize_dim(d, ndim) for d in listed)
    if len(set(result)) != len(result):
        for d in result:
            if result.count(d) > 1:
                raise RuntimeError(
                    f"dim {d} appears multiple times in the list of dims"
                )
    return result
