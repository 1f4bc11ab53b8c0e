"""Rearranging elements: ``flip``, ``roll``, ``repeat``, ``repeat_interleave``,
``tril`` and ``triu``.

Each output element is a copy of one input element (or a zero), so each
backward sends the gradient back to where the element came from: a flip
flips it back, a repeat sums the copies, a triangle keeps the same
triangle of the gradient.

The kernels build the list of storage positions to read, one dimension at
a time: the position of an element is the sum, over the dimensions, of its
coordinate times the stride.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from slowtorch_lib._dtype import int64
from slowtorch_lib._strides import normalize_dim, normalize_dims, numel, sizes_arg
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import check_loop
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import EXACT, accepts_out, tensor_input
from slowtorch_lib.ops.copying import clone
from slowtorch_lib.ops.gather_scatter import index_select
from slowtorch_lib.ops.views import expand, flatten, unsqueeze, view

__all__ = ["flip", "repeat_interleave", "roll", "tril", "triu"]


def _read(x: Tensor, steps: Sequence[list[int]]) -> list[Any]:
    """The elements of ``x`` at positions ``offset + sum(steps[d][c_d])``,
    for every coordinate tuple ``c`` in row-major order.

    ``steps[d][c]`` is how far dimension ``d``'s coordinate ``c`` moves in
    storage: ``c * stride`` for a plain read.
    """
    positions = [x._offset]
    for moves in steps:
        positions = [p + move for p in positions for move in moves]
    if not positions:
        return []
    if len(positions) == 1:
        return [x._storage.data[positions[0]]]
    return list(itemgetter(*positions)(x._storage.data))


class Flip(Function):
    """The elements in reverse order along ``dims``; the gradient is flipped
    back the same way."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dims: tuple[int, ...]) -> Tensor:
        ctx.dims = dims
        steps = []
        for d, (size, stride) in enumerate(zip(x._shape, x._stride)):
            coordinates = range(size - 1, -1, -1) if d in dims else range(size)
            steps.append([c * stride for c in coordinates])
        return from_values(_read(x, steps), x._shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return flip(grad_output, ctx.dims)


@tensor_input
def flip(input: Tensor, dims: int | Sequence[int]) -> Tensor:
    """A copy of ``input`` with the order of elements reversed along ``dims``.

    Raises:
        IndexError: If a dim is out of range.
        RuntimeError: If a dim is repeated.
    """
    check_loop("flip_cpu", input.dtype, elements=input.numel())
    return Flip.apply(input, dims=normalize_dims(dims, input.dim()))


class Roll(Function):
    """The elements shifted ``shifts[i]`` places along ``dims[i]``, those
    pushed off the end coming back at the start; the gradient is rolled
    back the other way. With no ``dims``, the elements are rolled in
    row-major order, as if the tensor were flat."""

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, shifts: tuple[int, ...], dims: tuple[int, ...]
    ) -> Tensor:
        ctx.shifts, ctx.dims = shifts, dims
        if not dims:
            values = _read(x, _plain_steps(x))
            cut = -shifts[0] % len(values) if values else 0
            return from_values(values[cut:] + values[:cut], x._shape, x.dtype)
        by_dim = dict.fromkeys(range(x.dim()), 0)
        for shift, d in zip(shifts, dims):
            by_dim[d] += shift
        steps = []
        for d, (size, stride) in enumerate(zip(x._shape, x._stride)):
            shift = by_dim[d]
            steps.append([((c - shift) % size) * stride for c in range(size)])
        return from_values(_read(x, steps), x._shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        back = tuple(-shift for shift in ctx.shifts)
        return Roll.apply(grad_output, shifts=back, dims=ctx.dims)


def _plain_steps(x: Tensor) -> list[list[int]]:
    """The steps of :func:`_read` that read ``x`` in row-major order."""
    return [
        [c * stride for c in range(size)] for size, stride in zip(x._shape, x._stride)
    ]


@tensor_input
def roll(
    input: Tensor,
    shifts: int | Sequence[int],
    dims: int | Sequence[int] | None = None,
) -> Tensor:
    """``input`` with its elements shifted cyclically along ``dims``.

    Without ``dims`` the elements roll in row-major order, as if flat.

    Raises:
        RuntimeError: If ``shifts`` and ``dims`` differ in length.
        IndexError: If a dim is out of range.
    """
    shift_list = [shifts] if isinstance(shifts, int) else list(shifts)
    dim_list = [] if dims is None else [dims] if isinstance(dims, int) else list(dims)
    if len(shift_list) != builtins.max(len(dim_list), 1):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shift_list)}, "
            f"dims:{len(dim_list)}"
        )
    dim_tuple = tuple(normalize_dim(d, input.dim()) for d in dim_list)
    return Roll.apply(input, shifts=tuple(shift_list), dims=dim_tuple)


class Repeat(Function):
    """``input`` tiled ``repeats[d]`` times along each dimension ``d``.

    Each input element has one copy per tile; its gradient is the sum of the
    gradients of its copies: ``grad_output`` reshaped to
    ``(r0, s0, r1, s1, ...)`` and summed over the ``r`` dimensions.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, repeats: tuple[int, ...]) -> Tensor:
        lead = len(repeats) - x.dim()
        sizes = (1,) * lead + x._shape
        strides = (0,) * lead + x._stride
        ctx.sizes, ctx.repeats, ctx.input_shape = sizes, repeats, x._shape
        steps = [
            [(c % size) * stride for c in range(size * times)]
            for size, stride, times in zip(sizes, strides, repeats)
        ]
        shape = tuple(size * times for size, times in zip(sizes, repeats))
        return from_values(_read(x, steps), shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        tiles: list[int] = []
        for times, size in zip(ctx.repeats, ctx.sizes):
            tiles += [times, size]
        tiled = grad_output.reshape(tiles)
        summed = tiled.sum(tuple(range(0, len(tiles), 2))) if tiles else tiled
        return summed.reshape(ctx.input_shape)


def repeat(input: Tensor, *sizes: Any) -> Tensor:
    """``input`` tiled: ``repeat(x, 2, 3)`` stacks 2 copies down and 3 across.

    ``sizes`` (numbers or one sequence) may be longer than ``input.dim()``:
    new leading dimensions of size 1 are added first.

    Raises:
        TypeError: If no size is given.
        RuntimeError: If there are fewer sizes than dimensions, or a size is
            negative.
    """
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    repeats = sizes_arg(sizes, "repeat", "repeats")
    if len(repeats) < input.dim():
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number "
            "of dimensions of tensor"
        )
    padded = (1,) * (len(repeats) - input.dim()) + input._shape
    shape = [size * times for size, times in zip(padded, repeats)]
    negative = [s for s in shape if s < 0]
    if negative:
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {negative[0]}: {shape}"
        )
    return Repeat.apply(input, repeats=repeats)


def repeat_interleave(
    input: Tensor,
    repeats: int | Tensor | None = None,
    dim: int | None = None,
    *,
    output_size: int | None = None,
) -> Tensor:
    """Each element (or slice along ``dim``) repeated in place:
    ``repeat_interleave([1, 2], 2)`` is ``[1, 1, 2, 2]``.

    With ``repeats`` an int, every slice is repeated that often, by
    ``unsqueeze``, ``expand`` and a copy; with a tensor of counts, slice
    ``i`` is repeated ``repeats[i]`` times, by ``index_select``. Without
    ``dim`` the input is flattened first. ``repeat_interleave(counts)``
    alone gives the indices ``[0] * counts[0] + [1] * counts[1] + ...``.

    Raises:
        RuntimeError: If a count is negative, or the counts do not match.
    """
    if repeats is None:
        return _indices_of_counts(input)
    if dim is None:
        input, dim = flatten(input), 0
    dim = normalize_dim(dim, input.dim())
    if isinstance(repeats, Tensor):
        _check_counts(repeats)
        if repeats.numel() != 1:
            if repeats.numel() != input._shape[dim]:
                raise RuntimeError(
                    "repeats must have the same size as input along dim, but got "
                    f"repeats.size(0) = {repeats.numel()} and "
                    f"input.size(0) = {input._shape[dim]}"
                )
            return index_select(input, dim, _indices_of_counts(repeats))
        repeats = int(repeats.item())
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = list(input._shape)
    expanded = shape[: dim + 1] + [repeats] + shape[dim + 1 :]
    copies = clone(expand(unsqueeze(input, dim + 1), expanded))
    shape[dim] *= repeats
    return view(copies, shape)


def _check_counts(counts: Tensor) -> None:
    """Refuses counts that are not integers in at most one dimension."""
    if counts.dtype.is_floating_point or counts.dtype.is_complex:
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{counts.dtype.c_name}'"
        )
    if counts.dim() > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")


def _indices_of_counts(counts: Tensor) -> Tensor:
    """``[0] * counts[0] + [1] * counts[1] + ...`` as an int64 tensor."""
    _check_counts(counts)
    if counts.dim() != 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    values = counts.tolist()
    if any(count < 0 for count in values):
        raise RuntimeError("repeats can not be negative")
    indices = [i for i, count in enumerate(values) for _ in builtins.range(count)]
    return from_values(indices, (len(indices),), int64)


def _triangle(x: Tensor, diagonal: int, lower: bool) -> Tensor:
    """``x`` with the elements outside a triangle of each matrix set to 0.

    Element ``(i, j)`` of a matrix is kept if ``j - i <= diagonal`` (lower
    triangle) or ``j - i >= diagonal`` (upper triangle).
    """
    rows, columns = x._shape[-2], x._shape[-1]
    if lower:
        keep = [j - i <= diagonal for i in range(rows) for j in range(columns)]
    else:
        keep = [j - i >= diagonal for i in range(rows) for j in range(columns)]
    keep *= numel(x._shape[:-2])
    zero = x.dtype.to_python(0)
    values = [v if k else zero for v, k in zip(x._values(), keep)]
    return from_values(values, x._shape, x.dtype)


class Tril(Function):
    """The lower triangle of each matrix (the last two dimensions); the
    gradient keeps the same triangle."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, diagonal: int) -> Tensor:
        ctx.diagonal = diagonal
        return _triangle(x, diagonal, lower=True)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return tril(grad_output, ctx.diagonal)


class Triu(Function):
    """The upper triangle of each matrix; the gradient keeps the same triangle."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, diagonal: int) -> Tensor:
        ctx.diagonal = diagonal
        return _triangle(x, diagonal, lower=False)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return triu(grad_output, ctx.diagonal)


def _check_matrix(name: str, input: Tensor) -> None:
    if input.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


@accepts_out(dtype_refusal=EXACT)
@tensor_input
def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of each matrix: element ``(i, j)`` is kept if
    ``j - i <= diagonal``, else 0 (``diagonal=0`` keeps the main diagonal).

    Raises:
        RuntimeError: If ``input`` has fewer than 2 dimensions.
    """
    _check_matrix("tril", input)
    check_loop("tril", input.dtype, elements=input.numel())
    return Tril.apply(input, diagonal=diagonal)


@accepts_out(dtype_refusal=EXACT)
@tensor_input
def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of each matrix: element ``(i, j)`` is kept if
    ``j - i >= diagonal``, else 0.

    Raises:
        RuntimeError: If ``input`` has fewer than 2 dimensions.
    """
    _check_matrix("triu", input)
    check_loop("triu", input.dtype, elements=input.numel())
    return Triu.apply(input, diagonal=diagonal)
