"""Counting values into bins: ``histc``, ``histogram`` and ``bincount``.

A value ``v`` in ``[low, high]`` falls in bin ``(v - low) * bins / (high -
low)``, rounded down; ``high`` itself falls in the last bin, and values
outside the range are not counted. With explicit edges, a value falls in
the bin whose edges surround it. Counting is not differentiable: the
results have no ``grad_fn``, as in PyTorch.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from typing import Any

from slowtorch_lib._dtype import float32, float64, int64
from slowtorch_lib._ranges import linspace_points
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.ops.common import tensor_input
from slowtorch_lib.ops.return_types import HistogramResult

__all__ = ["bincount", "histc", "histogram"]


def _check_float(input: Tensor, kernel: str) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{input.dtype.c_name}'"
        )


def _range(values: Sequence[float], low: float, high: float) -> tuple[float, float]:
    """The range to bin: ``[low, high]``, or the data's own if both are 0,
    widened by 1 on each side if it is a single point."""
    if low == high == 0 and values:
        has_nan = any(v != v for v in values)
        low, high = (math.nan, math.nan) if has_nan else (min(values), max(values))
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low}, {high}] is not finite")
    if low > high:
        raise RuntimeError("torch.histc: max must be larger than min")
    if low == high:
        low, high = low - 1, high + 1
    return float(low), float(high)


def _counts(
    values: Sequence[float], weights: Sequence[float], edges: Sequence[float]
) -> list[float]:
    """The total weight of the values in each bin between ``edges``."""
    counts = [0.0] * (len(edges) - 1)
    for value, weight in zip(values, weights):
        if not edges[0] <= value <= edges[-1]:
            continue
        index = min(bisect.bisect_right(edges, value) - 1, len(counts) - 1)
        counts[index] += weight
    return counts


def _even_counts(
    values: Sequence[float], bins: int, low: float, high: float
) -> list[float]:
    """Counts in ``bins`` equal bins over ``[low, high]``."""
    counts = [0.0] * bins
    for value in values:
        if low <= value <= high:
            counts[min(int((value - low) * bins / (high - low)), bins - 1)] += 1
    return counts


def _check_bins(bins: int) -> None:
    if bins <= 0:
        raise RuntimeError(
            f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0"
        )


@tensor_input
def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """Counts of ``input``'s values in ``bins`` equal bins over ``[min, max]``
    (the data's own range when both are 0), in ``input``'s dtype.

    Raises:
        NotImplementedError: For an integer or bool input.
        RuntimeError: For ``bins`` below 1, ``min > max``, or a range that
            is not finite.
    """
    _check_float(input, "histogram_cpu")
    _check_bins(bins)
    values = input.contiguous()._values()
    low, high = _range(values, min, max)
    return from_values(_even_counts(values, bins, low, high), (bins,), input.dtype)


@tensor_input
def histogram(
    input: Tensor,
    bins: int | Tensor = 100,
    *,
    range: tuple[float, float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> HistogramResult:
    """The counts of ``input``'s values in bins, and the bins' edges.

    ``bins`` is a number of equal bins (over ``range``, or the data's own
    range) or a 1-d tensor of increasing edges. ``weight`` gives each value
    a weight other than 1; ``density`` divides by the total weight times
    each bin's width, so that the histogram integrates to 1.

    Raises:
        NotImplementedError: For an integer or bool input.
        RuntimeError: For ``bins`` below 1, or a range that is not finite.
    """
    _check_float(input, "histogramdd")
    values = input.contiguous()._values()
    if isinstance(bins, Tensor):
        edges = [float(e) for e in bins.tolist()]
    else:
        _check_bins(bins)
        low, high = _range(values, *(range or (0.0, 0.0)))
        edges = linspace_points(low, high, bins + 1, input.dtype)
    weights: Any = (
        [1.0] * len(values) if weight is None else weight.reshape(-1).tolist()
    )
    counts = _counts(values, weights, edges)
    if density:
        total = math.fsum(counts)
        counts = [
            c / (total * (right - left)) if total else math.nan
            for c, left, right in zip(counts, edges, edges[1:])
        ]
    return HistogramResult(
        from_values(counts, (len(counts),), input.dtype),
        from_values(edges, (len(edges),), input.dtype),
    )


@tensor_input
def bincount(
    input: Tensor, weights: Tensor | None = None, minlength: int = 0
) -> Tensor:
    """How often each of ``0, 1, 2, ...`` occurs in a 1-d tensor of
    non-negative integers, or, with ``weights``, the sum of the weights at
    the positions where it occurs. The result has at least ``minlength``
    bins and one past the largest value.

    Raises:
        NotImplementedError: For floating-point or bool input.
        RuntimeError: For input that is not 1-d and non-negative, a
            negative ``minlength``, or weights of another length.
    """
    d = input.dtype
    if d.is_floating_point or d.is_complex or d.name == "bool":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{d.c_name}'")
    values = input.tolist() if input.dim() == 1 else [-1]
    if any(value < 0 for value in values):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    amounts: list[Any] = [1] * len(values)
    result_dtype = int64
    if weights is not None:
        if weights.dim() != 1 or weights.numel() != len(values):
            raise RuntimeError(
                "weights should be 1-d and have the same length as input"
            )
        amounts = weights.tolist()
        result_dtype = float32 if weights.dtype is float32 else float64
    totals: list[Any] = [0] * max(minlength, max(values, default=-1) + 1)
    for value, amount in zip(values, amounts):
        totals[value] += amount
    return from_values(totals, (len(totals),), result_dtype)
