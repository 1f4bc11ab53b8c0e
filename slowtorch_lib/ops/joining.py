"""Joining tensors: ``cat`` along an existing dimension, ``stack`` along a new one.

The result has the promoted dtype of all inputs. Its backward hands each
input its own slice of the gradient.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import reduce
from typing import Any

from slowtorch_lib._dtype import dtype, promote_types
from slowtorch_lib._kernels import cast_values
from slowtorch_lib._strides import normalize_dim, numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import accepts_out

__all__ = ["cat", "concat", "concatenate", "stack"]


def _skipped(t: Tensor) -> bool:
    """A 1-d empty tensor, which ``cat`` ignores whatever the other shapes are."""
    return t._shape == (0,)


class Cat(Function):
    """Concatenation along ``dim``. Each input's gradient is its slice of the
    output's gradient."""

    @staticmethod
    def forward(ctx: FunctionCtx, *tensors: Tensor, dim: int) -> Tensor:
        d = reduce(promote_types, (t.dtype for t in tensors))
        joined = [t for t in tensors if not _skipped(t)]
        ctx.dim = dim
        ctx.sizes = [None if _skipped(t) else t._shape[dim] for t in tensors]
        if not joined:
            return from_values([], (0,), d)
        return _join(joined, dim, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, ...]:
        sizes = [size for size in ctx.sizes if size is not None]
        pieces = list(grad_output.split(sizes, ctx.dim)) if sizes else []
        grads: list[Tensor] = []
        for size in ctx.sizes:
            if size is None:
                grads.append(from_values([], (0,), grad_output.dtype))
            else:
                grads.append(pieces.pop(0))
        return tuple(grads)


def _join(tensors: Sequence[Tensor], dim: int, d: dtype) -> Tensor:
    """The values of ``tensors`` (same shape but along ``dim``) joined along ``dim``.

    In row-major order, each input contributes one contiguous run of values
    for every index of the dimensions before ``dim``.
    """
    outer = numel(tensors[0]._shape[:dim])
    runs = []
    for t in tensors:
        values = cast_values(t._values(), t.dtype, d)
        step = len(values) // outer if outer else 0
        runs.append([values[i * step : (i + 1) * step] for i in range(outer)])
    out: list[Any] = []
    for i in range(outer):
        for run in runs:
            out.extend(run[i])
    shape = list(tensors[0]._shape)
    shape[dim] = sum(t._shape[dim] for t in tensors)
    return from_values(out, tuple(shape), d)


class Stack(Function):
    """Stacking along a new dimension ``dim``; the gradient is unbound again."""

    @staticmethod
    def forward(ctx: FunctionCtx, *tensors: Tensor, dim: int) -> Tensor:
        ctx.dim = dim
        d = reduce(promote_types, (t.dtype for t in tensors))
        return _join([t.unsqueeze(dim) for t in tensors], dim, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, ...]:
        return grad_output.unbind(ctx.dim)


def _check_list(name: str, tensors: Any) -> list[Tensor]:
    """The tensors to join, refused as PyTorch refuses them: one tensor or no
    sequence at all, or an element that is no tensor."""
    if isinstance(tensors, (Tensor, str)) or not isinstance(tensors, Iterable):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
            f"not {type(tensors).__name__}"
        )
    listed = list(tensors)
    for position, element in enumerate(listed):
        if not isinstance(element, Tensor):
            raise TypeError(
                f"expected Tensor as element {position} in argument 0, but got "
                f"{type(element).__name__}"
            )
    return listed


@accepts_out
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Joins tensors along an existing dimension; the other sizes must match.

    1-d empty tensors are skipped (but still count for the dtype).

    Raises:
        TypeError: If given one tensor instead of a sequence.
        ValueError: If the sequence is empty.
        RuntimeError: For 0-d tensors, different numbers of dimensions, or
            sizes that differ outside ``dim``.
        IndexError: If ``dim`` is out of range.
    """
    tensors = _check_list("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for position, t in enumerate(tensors):
        if t.dim() == 0:
            raise RuntimeError(
                f"zero-dimensional tensor (at position {position}) cannot be "
                "concatenated"
            )
    joined = [(i, t) for i, t in enumerate(tensors) if not _skipped(t)]
    first: Tensor | None = joined[0][1] if joined else None
    # With every tensor skipped, PyTorch does not look at ``dim`` at all.
    dim = normalize_dim(dim, first.dim()) if first is not None else 0
    for position, t in joined[1:]:
        assert first is not None
        if t.dim() != first.dim():
            raise RuntimeError(
                "Tensors must have same number of dimensions: got "
                f"{first.dim()} and {t.dim()}"
            )
        for d in range(first.dim()):
            if d != dim and t._shape[d] != first._shape[d]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected "
                    f"size {first._shape[d]} but got size {t._shape[d]} for tensor "
                    f"number {position} in the list."
                )
    return Cat.apply(*tensors, dim=dim)


concat = cat
concatenate = cat


@accepts_out
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Joins tensors of one shape along a new dimension ``dim``.

    Raises:
        RuntimeError: If the sequence is empty or the shapes differ.
        IndexError: If ``dim`` is out of range.
    """
    tensors = _check_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    dim = normalize_dim(dim, first.dim() + 1)
    for position, t in enumerate(tensors[1:], start=1):
        if t._shape != first._shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got "
                f"{list(first._shape)} at entry 0 and {list(t._shape)} at entry "
                f"{position}"
            )
    return Stack.apply(*tensors, dim=dim)
