"""``unique`` and ``unique_consecutive``: the distinct values, or slices.

``unique`` sorts the elements (or, with ``dim``, the slices along ``dim``,
compared as sequences) and keeps one of each; ``unique_consecutive`` keeps
one of each run of equal neighbours, in order. Both can also return, for
each element, the position of its value in the result (``inverse``) and
how many times each value occurs (``counts``).

``nan`` is not equal to itself, so each ``nan`` is a value of its own, as
in PyTorch. The results have no derivative: a float input that requires
grad gives a result that does, and ``backward`` through it raises, as in
PyTorch.
"""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._strides import normalize_dim
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import tensor_input
from slowtorch_lib.ops.joining import stack
from slowtorch_lib.ops.splitting import unbind

__all__ = ["unique", "unique_consecutive"]


def _no_derivative(name: str) -> NotImplementedError:
    return NotImplementedError(f"the derivative for '{name}' is not implemented.")


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _distinct_sorted(values: list[Any]) -> tuple[list[Any], list[int], list[int]]:
    """Sorted distinct values, each element's place among them, the counts.

    ``nan`` sorts last and never equals another ``nan``.
    """
    order = sorted(range(len(values)), key=lambda i: (_is_nan(values[i]), values[i]))
    result: list[Any] = []
    counts: list[int] = []
    inverse = [0] * len(values)
    for i in order:
        value = values[i]
        if not result or _is_nan(value) or value != result[-1]:
            result.append(value)
            counts.append(0)
        inverse[i] = len(result) - 1
        counts[-1] += 1
    return result, inverse, counts


def _runs(keys: list[Any]) -> tuple[list[int], list[int], list[int]]:
    """Runs of equal neighbours: where each run starts, each element's run,
    and each run's length."""
    starts: list[int] = []
    inverse: list[int] = []
    for i, key in enumerate(keys):
        if not starts or _is_nan(key) or key != keys[i - 1]:
            starts.append(i)
        inverse.append(len(starts) - 1)
    counts = [b - a for a, b in zip(starts, starts[1:] + [len(keys)])]
    return starts, inverse, counts


def _long(values: list[int], shape: tuple[int, ...]) -> Tensor:
    return from_values(values, shape, dtypes.int64)


class Unique2(Function):
    """The distinct elements, sorted (``Unique2Backward0``, no derivative)."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        result, inverse, counts = _distinct_sorted(x._values())
        return (
            from_values(result, (len(result),), x.dtype),
            _long(inverse, x._shape),
            _long(counts, (len(counts),)),
        )

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Tensor) -> Any:
        raise _no_derivative("_unique2")


def _slices(x: Tensor, dim: int) -> list[Tensor]:
    """The slices of ``x`` along ``dim``, refusing PyTorch's empty cases."""
    if x.numel() == 0 and x._shape[dim] != 0:
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique "
            "cannot be applied"
        )
    return list(unbind(x, dim))


class UniqueDim(Function):
    """The distinct slices along ``dim``, sorted as sequences."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dim: int) -> tuple[Tensor, ...]:
        slices = _slices(x, dim)
        keys = [tuple(s._values()) for s in slices]
        order = sorted(range(len(keys)), key=lambda i: keys[i])
        _, runs, counts = _runs([keys[i] for i in order])
        kept = [order[i] for i, run in enumerate(runs) if i == 0 or run != runs[i - 1]]
        inverse = [0] * len(keys)
        for position, original in enumerate(order):
            inverse[original] = runs[position]
        values = stack([slices[i] for i in kept], dim) if kept else x
        return values, _long(inverse, (len(keys),)), _long(counts, (len(counts),))

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Tensor) -> Any:
        raise _no_derivative("unique_dim")


class UniqueConsecutive(Function):
    """One element (or slice along ``dim``) of each run of equal neighbours."""

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, dim: int | None
    ) -> tuple[Tensor, Tensor, Tensor]:
        if dim is None:
            values = x._values()
            starts, inverse, counts = _runs(values)
            kept = [values[i] for i in starts]
            return (
                from_values(kept, (len(kept),), x.dtype),
                _long(inverse, x._shape),
                _long(counts, (len(counts),)),
            )
        slices = _slices(x, dim)
        starts, inverse, counts = _runs([tuple(s._values()) for s in slices])
        result = stack([slices[i] for i in starts], dim) if starts else x
        return result, _long(inverse, (len(slices),)), _long(counts, (len(counts),))

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Tensor) -> Any:
        raise _no_derivative("unique_consecutive")


def _returned(
    result: tuple[Tensor, Tensor, Tensor], return_inverse: bool, return_counts: bool
) -> Any:
    """The result alone, or a tuple with the inverse and counts asked for."""
    values, inverse, counts = result
    if not return_inverse and not return_counts:
        return values
    chosen = [values]
    if return_inverse:
        chosen.append(inverse)
    if return_counts:
        chosen.append(counts)
    return tuple(chosen)


@tensor_input
def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """The distinct elements of ``input``, sorted (or distinct slices along ``dim``).

    Args:
        input: The tensor.
        sorted: Accepted; the CPU returns sorted values either way.
        return_inverse: Also return where each element went: an index into
            the result for each element (each slice, with ``dim``).
        return_counts: Also return how often each distinct value occurs.
        dim: Compare whole slices along this dimension instead.

    Raises:
        IndexError: For a ``dim`` out of range.
        RuntimeError: For an empty tensor whose ``dim`` is not the empty one.
    """
    if dim is None:
        result = Unique2.apply(input)
    else:
        dim = normalize_dim(dim, input.dim())
        result = UniqueDim.apply(input, dim=dim)
    return _returned(result, return_inverse, return_counts)


@tensor_input
def unique_consecutive(
    input: Tensor,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """One element of each run of equal neighbours (``[1, 1, 2, 1]`` gives
    ``[1, 2, 1]``), or one slice of each run along ``dim``."""
    if dim is not None:
        dim = normalize_dim(dim, input.dim())
    result = UniqueConsecutive.apply(input, dim=dim)
    return _returned(result, return_inverse, return_counts)
