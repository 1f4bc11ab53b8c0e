"""Joining tensors: ``cat`` along an existing dimension, ``stack`` along a new one."""

from __future__ import annotations

from typing import Any, Sequence

from slowtorch_lib._strides import normalize_dim
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._kernels import cast_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.pointwise import result_type

__all__ = ["cat", "concat", "concatenate", "stack"]


class Cat(Function):
    """Concatenation along ``dim``. Each input's gradient is its slice of the
    output's gradient."""

    grad_fn_name = "CatBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, *tensors: Tensor, dim: int) -> Tensor:
        ctx.dim = dim
        ctx.sizes = [t._shape[dim] for t in tensors]
        d = result_type(*tensors)
        outer = 1
        for size in tensors[0]._shape[:dim]:
            outer *= size
        # Each input contributes one contiguous run per outer index.
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
        shape[dim] = sum(ctx.sizes)
        return from_values(out, tuple(shape), d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, ...]:
        return tuple(grad_output.split(ctx.sizes, ctx.dim))


class Stack(Function):
    """Stacking along a new dimension ``dim``; the gradient is unbound again."""

    grad_fn_name = "StackBackward0"

    @staticmethod
    def forward(ctx: FunctionCtx, *tensors: Tensor, dim: int) -> Tensor:
        ctx.dim = dim
        return Cat.forward(ctx, *(t.unsqueeze(dim) for t in tensors), dim=dim)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, ...]:
        return grad_output.unbind(ctx.dim)


def _check_inputs(name: str, tensors: Sequence[Tensor]) -> None:
    if isinstance(tensors, Tensor):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"
        )
    if not tensors:
        raise RuntimeError(f"{name}(): expected a non-empty list of Tensors")


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Joins tensors along an existing dimension; the others must match.

    Raises:
        RuntimeError: If the list is empty, the tensors have different numbers
            of dimensions, or sizes differ outside ``dim``.
    """
    _check_inputs("cat", tensors)
    tensors = list(tensors)
    first = tensors[0]
    if first.dim() == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    dim = normalize_dim(dim, first.dim())
    for position, t in enumerate(tensors[1:], start=1):
        if t.dim() != first.dim():
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {first.dim()} and {t.dim()}"
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


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Joins tensors of one shape along a new dimension ``dim``.

    Raises:
        RuntimeError: If the list is empty or the shapes differ.
    """
    _check_inputs("stack", tensors)
    tensors = list(tensors)
    first = tensors[0]
    for position, t in enumerate(tensors[1:], start=1):
        if t._shape != first._shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got "
                f"{list(first._shape)} at entry 0 and {list(t._shape)} at entry {position}"
            )
    dim = normalize_dim(dim, first.dim() + 1)
    return Stack.apply(*tensors, dim=dim)
