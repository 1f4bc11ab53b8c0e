"""Loss functions: how far a prediction is from its target, as one number.

Every loss takes ``reduction``: ``'none'`` keeps one loss per element (or
per sample), ``'sum'`` adds them up and ``'mean'`` averages them.

This module holds the regression losses and what every loss shares (the
reductions and their checks); the cross-entropies (``nll_loss``,
``cross_entropy``, ``binary_cross_entropy``...) are in
:mod:`slowtorch_lib.nn.functional.cross_entropy`. The losses PyTorch
computes in one kernel (``mse_loss``, ``huber_loss``...) are
:class:`Function` classes here too: one loop for the forward, and a backward
in tensor operations (so that it can be differentiated again). ``l1_loss``
is a composition, as in PyTorch.
"""

from __future__ import annotations

import math
import warnings
from operator import sub
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._strides import broadcast_shapes, numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import expanded_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.autocast import full_precision
from slowtorch_lib.ops.common import not_implemented, result_type
from slowtorch_lib.ops.selecting import clamp

__all__ = [
    "huber_loss",
    "l1_loss",
    "mse_loss",
    "smooth_l1_loss",
]

REDUCTIONS = ("none", "mean", "sum")


# ----------------------------------------------------------------------
# Shared checks and helpers
# ----------------------------------------------------------------------


def _reduction(reduction: str, size_average: Any = None, reduce: Any = None) -> str:
    """Checks ``reduction``; the old ``size_average``/``reduce`` flags win if set."""
    if size_average is not None or reduce is not None:
        warnings.warn(
            "size_average and reduce args will be deprecated, please use "
            "reduction='" + _legacy_reduction(size_average, reduce) + "' instead.",
            UserWarning,
            stacklevel=3,
        )
        return _legacy_reduction(size_average, reduce)
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _legacy_reduction(size_average: Any, reduce: Any) -> str:
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def _reduce(losses: list[float], reduction: str) -> tuple[list[float], bool]:
    """The summed or averaged losses (as one value), or all of them."""
    if reduction == "none":
        return losses, False
    total = sum(losses)
    if reduction == "mean":
        total = total / len(losses) if losses else math.nan
    return [total], True


def _scaled(ctx: FunctionCtx, grad_output: Tensor) -> Tensor | float:
    """``grad_output``, divided by the element count for ``'mean'``."""
    if ctx.reduction == "mean":
        return grad_output / ctx.count
    return grad_output


def _pointwise_loss_inputs(
    input: Tensor, target: Tensor, kernel: str
) -> tuple[tuple[int, ...], dtypes.dtype, list[Any], list[Any]]:
    """The broadcast shape, dtype and values of a pointwise loss's operands.

    PyTorch warns when the shapes differ (broadcasting a target is usually a
    bug), then broadcasts, or raises if the shapes do not fit.
    """
    if target._shape != input._shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input "
            f"size ({input.shape}). This will likely lead to incorrect results due "
            "to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=4,
        )
    shape = broadcast_shapes(input._shape, target._shape)
    d = result_type(input, target)
    if not d.is_floating_point:
        raise not_implemented(kernel, d)
    return shape, d, expanded_values(input, shape), expanded_values(target, shape)


def _finish(
    values: list[float], reduced: bool, shape: tuple[int, ...], d: dtypes.dtype
) -> Tensor:
    return from_values(values, () if reduced else shape, d)


# ----------------------------------------------------------------------
# Regression losses
# ----------------------------------------------------------------------


class MseLoss(Function):
    """Mean squared error: the losses are ``(input - target)^2``.

    Derivatives: 2 * (input - target) for the input, the negative of that
    for the target (divided by the element count for ``'mean'``).
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, input: Tensor, target: Tensor, *, reduction: str
    ) -> Tensor:
        shape, d, xs, ts = _pointwise_loss_inputs(input, target, "mse_cpu")
        ctx.save_for_backward(input, target)
        ctx.reduction, ctx.count = reduction, numel(shape)
        differences = list(map(sub, xs, ts))
        losses, reduced = _reduce([v * v for v in differences], reduction)
        return _finish(losses, reduced, shape, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        input, target = ctx.saved_tensors
        grad = 2 * (input - target) * _scaled(ctx, grad_output)
        return grad, -grad if ctx.needs_input_grad[1] else None


@full_precision
def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """The mean (or sum) of ``(input - target) ** 2``.

    With ``weight`` (one per element) each squared error is weighted, and
    ``'mean'`` divides by the sum of the weights, as in PyTorch.
    """
    reduction = _reduction(reduction, size_average, reduce)
    if weight is not None:
        _check_weight_size(weight, input)
        return _weighted(((input - target) ** 2) * weight, weight, reduction)
    return MseLoss.apply(input, target, reduction=reduction)


def _check_weight_size(weight: Tensor, input: Tensor) -> None:
    if weight._shape != input._shape:
        raise ValueError("Weights and input must have the same size.")


def _weighted(losses: Tensor, weight: Tensor, reduction: str) -> Tensor:
    """Weighted losses reduced: ``'mean'`` is the sum over the weights' sum."""
    if reduction == "mean":
        return losses.sum() / weight.sum()
    return _reduce_tensor(losses, reduction)


def _reduce_tensor(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    return losses


@full_precision
def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """The mean (or sum) of ``|input - target|``.

    Built from ``sub``, ``abs`` and ``mean`` or ``sum``, as PyTorch builds it.
    With ``weight``, ``'mean'`` divides by the sum of the weights.
    """
    reduction = _reduction(reduction, size_average, reduce)
    if target._shape != input._shape:
        _pointwise_loss_inputs(input, target, "abs_cpu")
    losses = (input - target).abs()
    if weight is not None:
        _check_weight_size(weight, input)
        return _weighted(losses * weight, weight, reduction)
    return _reduce_tensor(losses, reduction)


def _huber_scalar(difference: float, delta: float) -> float:
    size = abs(difference)
    if size < delta:
        return 0.5 * difference * difference
    return delta * (size - 0.5 * delta)


class HuberLoss(Function):
    """Squared error near 0, absolute error (times ``delta``) beyond ``delta``.

    The losses are ``d^2 / 2`` where ``|d| < delta``, else
    ``delta * (|d| - delta / 2)``, with ``d = input - target``.

    Derivative for the input: clamp(d, -delta, delta).
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, input: Tensor, target: Tensor, *, reduction: str, delta: float
    ) -> Tensor:
        shape, d, xs, ts = _pointwise_loss_inputs(input, target, "huber_cpu")
        ctx.save_for_backward(input, target)
        ctx.reduction, ctx.count, ctx.delta = reduction, numel(shape), delta
        losses = [_huber_scalar(x - t, delta) for x, t in zip(xs, ts)]
        values, reduced = _reduce(losses, reduction)
        return _finish(values, reduced, shape, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        input, target = ctx.saved_tensors
        slope = clamp(input - target, -ctx.delta, ctx.delta)
        grad = slope * _scaled(ctx, grad_output)
        return grad, -grad if ctx.needs_input_grad[1] else None


@full_precision
def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """Squared error for small differences, ``delta * |d|`` for large ones.

    Raises:
        RuntimeError: If ``delta`` is not positive.
    """
    reduction = _reduction(reduction)
    if not delta > 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        _check_weight_size(weight, input)
        losses = HuberLoss.apply(input, target, reduction="none", delta=delta)
        return _reduce_tensor(losses * weight, reduction)
    return HuberLoss.apply(input, target, reduction=reduction, delta=delta)


def _smooth_l1_scalar(difference: float, beta: float) -> float:
    size = abs(difference)
    if size < beta:
        return 0.5 * difference * difference / beta
    return size - 0.5 * beta


class SmoothL1Loss(Function):
    """Huber's loss divided by ``beta``: ``d^2 / (2 beta)`` near 0, else
    ``|d| - beta / 2``.

    Derivative for the input: clamp(d / beta, -1, 1).
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, input: Tensor, target: Tensor, *, reduction: str, beta: float
    ) -> Tensor:
        shape, d, xs, ts = _pointwise_loss_inputs(input, target, "smooth_l1_cpu")
        ctx.save_for_backward(input, target)
        ctx.reduction, ctx.count, ctx.beta = reduction, numel(shape), beta
        losses = [_smooth_l1_scalar(x - t, beta) for x, t in zip(xs, ts)]
        values, reduced = _reduce(losses, reduction)
        return _finish(values, reduced, shape, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        input, target = ctx.saved_tensors
        slope = clamp((input - target) / ctx.beta, -1.0, 1.0)
        grad = slope * _scaled(ctx, grad_output)
        return grad, -grad if ctx.needs_input_grad[1] else None


@full_precision
def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """Huber's loss scaled by ``1 / beta``; with ``beta=0`` it is ``l1_loss``.

    Raises:
        RuntimeError: If ``beta`` is negative.
    """
    reduction = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    return SmoothL1Loss.apply(input, target, reduction=reduction, beta=beta)
