"""``cdist`` and ``pdist``: the p-norm distances between rows.

``cdist(x1, x2, p)[..., i, j]`` is ``||x1[..., i, :] - x2[..., j, :]||_p``:

- ``p = 0`` counts the coordinates that differ,
- ``p = inf`` takes the largest absolute difference,
- any other ``p`` is ``(sum |d| ** p) ** (1 / p)``.

For ``p = 2`` on many rows (more than 25 in either input, unless
``compute_mode`` says otherwise) PyTorch uses the identity
``|a - b|^2 = |a|^2 - 2 a.b + |b|^2``, which turns the distances into a
matrix product: :class:`EuclideanDist`, whose node is
``EuclideanDistBackward0``. Every other case is :class:`Cdist`
(``CdistBackward0``). With ``d = a - b`` and ``r`` the distance, the
gradient of ``r`` with respect to ``a`` is

    p = 1: sign(d)       p = 2: d / r       p = inf: sign(d) * (|d| == r)
    other p: d * |d| ** (p - 2) / r ** (p - 1)

(zero where ``r`` is zero), and with respect to ``b`` its negative.
``pdist(x, p)`` is the upper triangle (``i < j``) of ``cdist(x, x, p)``.
"""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib._strides import broadcast_shapes, numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import not_implemented
from slowtorch_lib.autograd.function import Function, FunctionCtx

__all__ = ["cdist", "pdist"]

COMPUTE_MODES = {
    "use_mm_for_euclid_dist_if_necessary": 0,
    "use_mm_for_euclid_dist": 1,
    "donot_use_mm_for_euclid_dist": 2,
}


def _distance(a: list[float], b: list[float], p: float) -> float:
    """The ``p``-norm of ``a - b``."""
    differences = [abs(u - v) for u, v in zip(a, b)]
    if p == 0:
        return float(sum(d != 0 for d in differences))
    if p == math.inf:
        return max(differences, default=0.0)
    if p == 1:
        return sum(differences)
    if p == 2:
        return math.sqrt(sum(d * d for d in differences))
    return sum(d**p for d in differences) ** (1 / p)


def _rows(x: Tensor) -> list[list[float]]:
    """The rows (last dimension) of ``x``, as lists of numbers."""
    values, width = x._values(), x._shape[-1]
    count = numel(x._shape[:-1])
    return [values[i * width : (i + 1) * width] for i in range(count)]


def _distance_grad(grad: Tensor, diff: Tensor, dist: Tensor, p: float) -> Tensor:
    """``grad * d(dist)/d(a)`` for every pair, from ``diff = a - b``."""
    dist = dist.unsqueeze(-1)
    if p == 0:
        return diff * 0
    if p == 1:
        term = diff.sign()
    elif p == math.inf:
        term = diff.sign() * (diff.abs() == dist)
    elif p == 2:
        term = diff / dist
    else:
        term = diff * diff.abs() ** (p - 2) / dist ** (p - 1)
        if p < 1:
            term = term.masked_fill(diff == 0, 0.0)
    return (grad.unsqueeze(-1) * term).masked_fill(dist == 0, 0.0)


class Cdist(Function):
    """The distances between the rows of ``x1`` and ``x2`` (batched)."""

    @staticmethod
    def forward(
        ctx: FunctionCtx, x1: Tensor, x2: Tensor, *, p: float, batch: tuple[int, ...]
    ) -> Tensor:
        r1, r2, c = x1._shape[-2], x2._shape[-2], x1._shape[-1]
        left = _rows(x1.expand(*batch, r1, c).contiguous())
        right = _rows(x2.expand(*batch, r2, c).contiguous())
        out: list[float] = []
        for b in range(numel(batch)):
            for i in range(r1):
                row = left[b * r1 + i]
                out.extend(_distance(row, right[b * r2 + j], p) for j in range(r2))
        result = from_values(out, (*batch, r1, r2), x1.dtype)
        ctx.save_for_backward(x1, x2, result)
        ctx.p = p
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        x1, x2, result = ctx.saved_tensors
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)  # (..., r1, r2, c)
        pairs = _distance_grad(grad_output, diff, result, ctx.p)
        return pairs.sum(-2), -pairs.sum(-3)  # the engine sums over broadcasting


class EuclideanDist(Function):
    """Euclidean distances as ``sqrt(|a|^2 - 2 a.b + |b|^2)`` (clamped at 0).

    The backward is written with matrix products: with ``ratio = grad / r``
    (zero where ``r`` is zero), ``grad_a = a * sum_j ratio - ratio @ b``.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x1: Tensor, x2: Tensor) -> Tensor:
        r1, r2 = x1._shape[-2], x2._shape[-2]
        left, right = _rows(x1), _rows(x2)
        squares = [sum(v * v for v in row) for row in right]
        out: list[float] = []
        for b in range(numel(x1._shape[:-2])):
            for row in left[b * r1 : (b + 1) * r1]:
                norm = sum(v * v for v in row)
                for j in range(b * r2, (b + 1) * r2):
                    dot = sum(u * v for u, v in zip(row, right[j]))
                    out.append(math.sqrt(max(norm - 2 * dot + squares[j], 0.0)))
        result = from_values(out, (*x1._shape[:-1], r2), x1.dtype)
        ctx.save_for_backward(x1, x2, result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        x1, x2, result = ctx.saved_tensors
        ratio = (grad_output / result).masked_fill(result == 0, 0.0)
        grad_x1 = x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2)
        grad_x2 = x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1)
        return grad_x1, grad_x2


def _check_floating(x: Tensor, name: str, function: str) -> None:
    if not x.dtype.is_floating_point:
        raise RuntimeError(
            f"{function} only supports floating-point dtypes, {name} got: "
            f"{x.dtype.c_name}"
        )
    if x.dtype.itemsize < 4:
        raise not_implemented(function, x.dtype)


def cdist(
    x1: Tensor,
    x2: Tensor,
    p: float = 2.0,
    compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
) -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` and each of ``x2``.

    Args:
        x1: ``(*, R1, C)``.
        x2: ``(*, R2, C)``; the batch dimensions broadcast with ``x1``'s.
        p: The norm, ``0 <= p <= inf``.
        compute_mode: Whether ``p = 2`` goes through a matrix product:
            ``"use_mm_for_euclid_dist_if_necessary"`` (when either input
            has more than 25 rows), ``"use_mm_for_euclid_dist"`` (always) or
            ``"donot_use_mm_for_euclid_dist"`` (never).

    Returns:
        ``(*, R1, R2)``.

    Raises:
        ValueError: For an unknown ``compute_mode``.
        RuntimeError: For inputs of fewer than 2 dimensions, different
            numbers of columns, batch shapes that do not broadcast, integer
            inputs, different dtypes, or a negative ``p``.
    """
    if compute_mode not in COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dim() < 2:
            raise RuntimeError(
                f"cdist only supports at least 2D tensors, {name} got: {x.dim()}D"
            )
    if x1._shape[-1] != x2._shape[-1]:
        raise RuntimeError(
            "X1 and X2 must have the same number of columns. X1: "
            f"{x1._shape[-1]} X2: {x2._shape[-1]}"
        )
    r1, r2 = x1._shape[-2], x2._shape[-2]
    batch = broadcast_shapes(x1._shape[:-2], x2._shape[:-2])
    mode = COMPUTE_MODES[compute_mode]
    if p == 2 and r1 and r2 and (mode == 1 or (mode == 0 and max(r1, r2) > 25)):
        return _euclidean(x1, x2, batch)
    _check_floating(x1, "X1", "cdist")
    _check_floating(x2, "X2", "cdist")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(
            f"expected scalar type {x1.dtype.c_name} but found {x2.dtype.c_name}"
        )
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return Cdist.apply(x1, x2, p=float(p), batch=batch)


def _euclidean(x1: Tensor, x2: Tensor, batch: tuple[int, ...]) -> Tensor:
    """``cdist`` for ``p = 2`` through :class:`EuclideanDist`, as PyTorch."""
    r1, r2, c = x1._shape[-2], x2._shape[-2], x1._shape[-1]
    if batch:  # every batch dimension folded into one
        x1 = x1.expand(*batch, r1, c).contiguous().view(-1, r1, c)
        x2 = x2.expand(*batch, r2, c).contiguous().view(-1, r2, c)
    return EuclideanDist.apply(x1, x2).view(*batch, r1, r2)


class Pdist(Function):
    """The distances between the rows of ``x``, pairs ``i < j`` in order."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, p: float) -> Tensor:
        rows = _rows(x)
        out = [
            _distance(rows[i], rows[j], p)
            for i in range(len(rows))
            for j in range(i + 1, len(rows))
        ]
        result = from_values(out, (len(out),), x.dtype)
        ctx.save_for_backward(x, result)
        ctx.p = p
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        x, result = ctx.saved_tensors
        n = x._shape[0]
        grads, dists = grad_output._values(), result._values()
        full_grad, full_dist = [0.0] * (n * n), [0.0] * (n * n)
        k = 0
        for i in range(n):
            for j in range(i + 1, n):
                full_grad[i * n + j], full_dist[i * n + j] = grads[k], dists[k]
                k += 1
        diff = x.unsqueeze(-2) - x.unsqueeze(-3)
        pairs = _distance_grad(
            from_values(full_grad, (n, n), x.dtype),
            diff,
            from_values(full_dist, (n, n), x.dtype),
            ctx.p,
        )
        return pairs.sum(-2) - pairs.sum(-3)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The ``p``-norm distance between every two rows ``i < j`` of ``input``.

    Raises:
        RuntimeError: For an input that is not 2-d, not floating point, or a
            negative ``p``.
    """
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return Pdist.apply(input, p=float(p))
