"""The cross-entropies: the negative log-likelihood of classes
(``nll_loss``), ``cross_entropy`` on logits, and the binary cross-entropy on
probabilities and on logits.

As in :mod:`slowtorch_lib.nn.functional.loss`, which holds the regression
losses and the reductions every loss shares: the losses PyTorch computes in
one kernel (``nll_loss``, ``binary_cross_entropy``...) are :class:`Function`
classes with one loop for the forward and a backward in tensor operations;
``cross_entropy`` is a composition, ``nll_loss(log_softmax(input))``.
"""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._kernels import ieee_div
from slowtorch_lib._strides import broadcast_shapes, numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import expanded_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.grad_mode import GRAD_MODE
from slowtorch_lib.nn.functional.activation import log_softmax
from slowtorch_lib.nn.functional.loss import (
    _finish,
    _reduce,
    _reduction,
    _scaled,
)
from slowtorch_lib.ops.autocast import full_precision
from slowtorch_lib.ops.common import check_tensor
from slowtorch_lib.ops.gather_scatter import index_add_into_zeros
from slowtorch_lib.ops.pointwise import Div, Mul, log, sigmoid
from slowtorch_lib.ops.selecting import clamp_min

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "nll_loss",
]


# ----------------------------------------------------------------------
# Negative log-likelihood and cross-entropy
# ----------------------------------------------------------------------


class NllLoss(Function):
    """Negative log-likelihood: picks ``-weight[t] * input[n, t]`` for each
    sample ``n`` with target class ``t``.

    ``input`` holds log-probabilities, ``(C,)``, ``(N, C)`` or
    ``(N, C, d1, ...)``; ``target`` the class of each sample. Samples whose
    target is ``ignore_index`` contribute nothing. ``'mean'`` divides by the
    sum of the weights of the counted samples.

    Gradient: -w[t_n] / (sum of the counted weights) at ``input[n, t_n]``
    (for ``'mean'``; -w[t_n] for ``'sum'``), and 0 for every other class:
    the backward scatters one value per sample.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        input: Tensor,
        target: Tensor,
        *,
        weight: Tensor | None,
        reduction: str,
        ignore_index: int,
    ) -> Tensor:
        classes = input._shape[0] if input.dim() == 1 else input._shape[1]
        inner = numel(input._shape[2:])
        values = input._values()
        weights = weight._values() if weight is not None else [1.0] * classes
        positions, factors = [], []
        for sample, t in enumerate(target._values()):
            n, i = divmod(sample, inner)
            if t == ignore_index:
                positions.append((n * classes) * inner + i)
                factors.append(0.0)
                continue
            if not 0 <= t < classes:
                raise IndexError(f"Target {t} is out of bounds.")
            positions.append((n * classes + t) * inner + i)
            factors.append(weights[t])
        losses = [-w * values[p] for w, p in zip(factors, positions)]
        if reduction == "none":
            result = from_values(losses, target._shape, input.dtype)
        else:
            total = sum(losses)
            if reduction == "mean":
                total_weight = sum(factors)
                total = ieee_div(total, total_weight)
                factors = [ieee_div(w, total_weight) if w else 0.0 for w in factors]
            result = from_values([total], (), input.dtype)
        ctx.positions, ctx.input_shape = positions, input._shape
        ctx.factors = from_values([-w for w in factors], target._shape, input.dtype)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        per_sample = grad_output * ctx.factors
        grad = index_add_into_zeros(per_sample, ctx.positions, ctx.input_shape)
        return grad, None


class NllLoss2d(NllLoss):
    """:class:`NllLoss` for ``(N, C, H, W)`` inputs (``NllLoss2DBackward0``)."""

    grad_fn_name = "NllLoss2DBackward0"


def _check_nll(input: Tensor, target: Tensor, weight: Tensor | None) -> None:
    """PyTorch's checks on the shapes and dtypes of ``nll_loss``'s operands."""
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() > 1 and input._shape[0] != (target._shape or (None,))[0]:
        batch = target._shape[0] if target._shape else 1
        raise ValueError(
            f"Expected input batch_size ({input._shape[0]}) to match target "
            f"batch_size ({batch})."
        )
    if target.dtype is not dtypes.int64:
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {target.dtype.c_name}"
        )
    if input.dim() <= 2 and target.dim() > 1:
        raise RuntimeError(
            "0D or 1D target tensor expected, multi-target not supported"
        )
    if input.dim() == 1 and target.dim() == 1 and target.numel() != 1:
        raise ValueError(
            "For 1D input, 1D target must have size 1, but got target size: "
            f"{target.numel()}"
        )
    if input.dim() > 2:
        expected = (input._shape[0], *input._shape[2:])
        if target._shape != expected:
            raise RuntimeError(
                f"Expected target size {list(expected)}, got {list(target._shape)}"
            )
    classes = input._shape[0] if input.dim() == 1 else input._shape[1]
    _check_class_weights(weight, classes)


def _check_class_weights(weight: Tensor | None, classes: int) -> None:
    """PyTorch's check that a class weight has one value per class."""
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or "
            f"no classes but got weight tensor of shape: {list(weight._shape)}"
        )


def _refuse_grad(function: str, name: str, tensor: Tensor | None) -> None:
    """PyTorch's error for a differentiable argument it has no derivative for."""
    if tensor is not None and tensor.requires_grad and GRAD_MODE.enabled:
        raise RuntimeError(
            f"The function '{function}' is not differentiable with respect to "
            f"argument '{name}'. This input cannot have requires_grad True."
        )


@full_precision
def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """The negative log-likelihood loss of log-probabilities ``input``.

    Args:
        input: Log-probabilities: ``(C,)``, ``(N, C)`` or ``(N, C, d1, ...)``.
        target: Class indices (int64): ``()``, ``(N,)`` or ``(N, d1, ...)``.
        weight: A weight for each class (``(C,)``).
        ignore_index: A target value whose samples are left out.
        reduction: ``'mean'`` (weighted mean), ``'sum'`` or ``'none'``.

    Raises:
        ValueError, RuntimeError: For shapes or dtypes that do not fit.
        IndexError: For a target outside ``[0, C)``.
    """
    reduction = _reduction(reduction, size_average, reduce)
    _check_nll(input, target, weight)
    _refuse_grad("nll_loss_forward", "weight", weight)
    options = {"weight": weight, "reduction": reduction, "ignore_index": ignore_index}
    if input.dim() == 1 and target.dim() == 1:  # one sample, target of size 1
        target = target.reshape(())
    if input.dim() <= 2:
        return NllLoss.apply(input, target, **options)
    # PyTorch's kernel for more dimensions wants (N, C, H, W): other shapes are
    # viewed as that, and a 'none' result viewed back.
    n, c = input._shape[:2]
    if input.dim() == 4:
        return NllLoss2d.apply(input, target, **options)
    rest = input._shape[3:] if input.dim() > 3 else ()
    height = input._shape[2]
    width = numel(rest)
    losses = NllLoss2d.apply(
        input.reshape(n, c, height, width),
        target.reshape(n, height, width),
        **options,
    )
    return losses.view(target._shape) if reduction == "none" else losses


class DivByNumber(Div):
    """Division by a Python number inside a composite (``DivBackward1``)."""

    grad_fn_name = "DivBackward1"


class MulByNumber(Mul):
    """Multiplication by a Python number inside a composite (``MulBackward1``)."""

    grad_fn_name = "MulBackward1"


@full_precision
def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """The cross-entropy between ``softmax(input)`` and the target.

    ``input`` holds unnormalized scores (logits), ``(C,)``, ``(N, C)`` or
    ``(N, C, d1, ...)``. ``target`` is either class indices (int64, one per
    sample) or class probabilities (floats, the shape of ``input``).

    With class indices this is ``nll_loss(log_softmax(input, 1), target)``.
    ``label_smoothing`` mixes the target with the uniform distribution:
    ``(1 - eps) * nll + eps * mean over classes of -log p``.

    Raises:
        RuntimeError: For a bad ``label_smoothing``, or a target whose dtype
            does not fit its shape.
        ValueError, IndexError: As :func:`nll_loss`.
    """
    check_tensor("cross_entropy_loss", input, 1, "input")
    check_tensor("cross_entropy_loss", target, 2, "target")
    reduction = _reduction(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(
            f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}"
        )
    class_dim = 0 if input.dim() == 1 else 1
    if input._shape == target._shape:
        return _cross_entropy_probabilities(
            input, target, weight, ignore_index, reduction, label_smoothing, class_dim
        )
    log_p = log_softmax(input, class_dim)
    loss = nll_loss(
        log_p, target, weight, ignore_index=ignore_index, reduction=reduction
    )
    if label_smoothing == 0:
        return loss
    return _smoothed(
        loss, log_p, target, weight, ignore_index, reduction, label_smoothing, class_dim
    )


def _class_weights(weight: Tensor, log_p: Tensor, class_dim: int) -> Tensor:
    """``weight`` shaped to broadcast along the class dimension of ``log_p``."""
    shape = [1] * log_p.dim()
    shape[class_dim] = weight.numel()
    return weight.reshape(shape)


def _smoothed(
    nll: Tensor,
    log_p: Tensor,
    target: Tensor,
    weight: Tensor | None,
    ignore_index: int,
    reduction: str,
    label_smoothing: float,
    class_dim: int,
) -> Tensor:
    """``(1 - eps) * nll + (eps / C) * sum over classes of -weight * log p``."""
    classes = log_p._shape[class_dim]
    if weight is not None:
        smooth = -(log_p * _class_weights(weight, log_p, class_dim)).sum(class_dim)
    else:
        smooth = -log_p.sum(class_dim)
    ignored = target == ignore_index
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "sum":
        smooth = smooth.sum()
    elif reduction == "mean":
        kept = ~ignored
        if weight is not None:
            counted = [
                weight._values()[t]
                for t, k in zip(target._values(), kept._values())
                if k
            ]
            smooth = smooth.sum() / sum(counted)
        else:
            smooth = smooth.sum() / kept.sum()
    return MulByNumber.apply(nll, 1 - label_smoothing) + MulByNumber.apply(
        smooth, label_smoothing / classes
    )


def _cross_entropy_probabilities(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None,
    ignore_index: int,
    reduction: str,
    label_smoothing: float,
    class_dim: int,
) -> Tensor:
    """Cross-entropy against class probabilities: ``-sum(target * log p)``."""
    if not target.dtype.is_floating_point:
        raise RuntimeError(
            "Expected floating point type for target with class probabilities, "
            f"got {target.dtype.c_name}"
        )
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    classes = input._shape[class_dim]
    _check_class_weights(weight, classes)
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    log_p = log_softmax(input, class_dim)
    products = log_p * target
    if weight is not None:
        products = products * _class_weights(weight, log_p, class_dim)
    if reduction == "none":
        return -products.sum(class_dim)
    total = -products.sum()
    if reduction == "sum":
        return total
    return DivByNumber.apply(total, input.numel() // classes if classes else 0)


# ----------------------------------------------------------------------
# Binary cross-entropy
# ----------------------------------------------------------------------

LOG_FLOOR = -100.0  # PyTorch clamps log(p) from below, so log(0) counts as -100
BCE_EPSILON = 1e-12  # and keeps the gradient's denominator p (1 - p) above this


def _floored_log(p: float) -> float:
    return math.log(p) if p > 0 else LOG_FLOOR if p == 0 else math.nan


def _weights(weight: Tensor | None, shape: tuple[int, ...]) -> list[Any]:
    if weight is None:
        return [1.0] * numel(shape)
    return expanded_values(weight, shape)


class BinaryCrossEntropy(Function):
    """``-w (t log p + (1 - t) log(1 - p))`` for probabilities ``p``.

    Each log is clamped to at least -100, so ``p = 0`` gives a finite loss.

    Derivatives: w * (p - t) / (p * (1 - p)) for ``p`` (the denominator kept
    above 1e-12), and w * (log(1 - p) - log(p)) for ``t``.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        input: Tensor,
        target: Tensor,
        *,
        weight: Tensor | None,
        reduction: str,
    ) -> Tensor:
        ps, ts = input._values(), target._values()
        if not all(0 <= p <= 1 for p in ps):
            raise RuntimeError("all elements of input should be between 0 and 1")
        if not all(0 <= t <= 1 for t in ts):
            raise RuntimeError("all elements of target should be between 0 and 1")
        ctx.save_for_backward(input, target, weight)
        ctx.reduction, ctx.count = reduction, len(ps)
        losses = [
            -w * (t * _floored_log(p) + (1 - t) * _floored_log(1 - p))
            for p, t, w in zip(ps, ts, _weights(weight, input._shape))
        ]
        values, reduced = _reduce(losses, reduction)
        return _finish(values, reduced, input._shape, input.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        p, t, weight = ctx.saved_tensors
        grad = _scaled(ctx, grad_output)
        if weight is not None:
            grad = grad * weight
        grad_p = grad_t = None
        if ctx.needs_input_grad[0]:
            grad_p = grad * (p - t) / clamp_min((1 - p) * p, BCE_EPSILON)
        if ctx.needs_input_grad[1]:
            grad_t = grad * (
                clamp_min(log(1 - p), LOG_FLOOR) - clamp_min(log(p), LOG_FLOOR)
            )
        return grad_p, grad_t


@full_precision
def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross-entropy between probabilities ``input`` and ``target``.

    Raises:
        ValueError: If ``target`` and ``input`` differ in size.
        RuntimeError: If an input is outside [0, 1].
    """
    reduction = _reduction(reduction, size_average, reduce)
    if target._shape != input._shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input "
            f"size ({input.shape}) is deprecated. Please ensure they have the same "
            "size."
        )
    _refuse_grad("binary_cross_entropy", "weight", weight)
    if weight is not None:
        broadcast_shapes(weight._shape, input._shape)
    return BinaryCrossEntropy.apply(input, target, weight=weight, reduction=reduction)


def _log_sigmoid_neg(x: float) -> float:
    """``log(1 + e^-x)`` (softplus of ``-x``), with no overflow for any ``x``."""
    return math.log1p(math.exp(-abs(x))) + max(-x, 0.0)


class BinaryCrossEntropyWithLogits(Function):
    """Binary cross-entropy of ``sigmoid(x)``, computed from ``x`` directly.

    With ``l = 1 + (pos_weight - 1) t``, each loss is
    ``w ((1 - t) x + l log(1 + e^{-x}))``, and ``log(1 + e^{-x})`` is
    computed as ``log1p(e^{-|x|}) + max(-x, 0)``: finite for ``x = -1000``.

    Derivatives: w * ((1 - t) - l * sigmoid(-x)) for ``x`` (that is
    w * (sigmoid(x) - t) without ``pos_weight``), and
    w * (-x + (pos_weight - 1) * log(1 + e^{-x})) for ``t``.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        input: Tensor,
        target: Tensor,
        *,
        weight: Tensor | None,
        pos_weight: Tensor | None,
        reduction: str,
    ) -> Tensor:
        shape = input._shape
        xs, ts = input._values(), target._values()
        ws = _weights(weight, shape)
        if pos_weight is None:
            log_weights = [1.0] * len(xs)
        else:
            log_weights = [
                1 + (q - 1) * t for q, t in zip(expanded_values(pos_weight, shape), ts)
            ]
        losses = [
            w * ((1 - t) * x + lw * _log_sigmoid_neg(x))
            for x, t, w, lw in zip(xs, ts, ws, log_weights)
        ]
        ctx.save_for_backward(input, target, weight, pos_weight)
        ctx.reduction, ctx.count = reduction, len(xs)
        values, reduced = _reduce(losses, reduction)
        return _finish(values, reduced, shape, input.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        x, t, weight, pos_weight = ctx.saved_tensors
        grad = _scaled(ctx, grad_output)
        if weight is not None:
            grad = grad * weight
        grad_x = grad_t = None
        if ctx.needs_input_grad[0]:
            if pos_weight is None:
                grad_x = grad * (sigmoid(x) - t)
            else:
                log_weight = 1 + (pos_weight - 1) * t
                grad_x = grad * ((1 - t) - log_weight * sigmoid(-x))
        if ctx.needs_input_grad[1]:
            grad_t = grad * -x
            if pos_weight is not None:
                softplus = (1 + (-x.abs()).exp()).log() + (-x).relu()
                grad_t = grad_t + grad * (pos_weight - 1) * softplus
        return grad_x, grad_t


@full_precision
def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Binary cross-entropy of ``sigmoid(input)``, stable for any logits.

    Args:
        input: Logits.
        target: Probabilities of the positive class, shaped like ``input``.
        weight: A weight per element (broadcast to ``input``).
        pos_weight: A weight for the positive term, per class (broadcast
            along the last dimension): above 1 it counts positives more.

    Raises:
        ValueError: If ``target`` and ``input`` differ in size.
    """
    reduction = _reduction(reduction, size_average, reduce)
    if target._shape != input._shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size "
            f"({input.shape})"
        )
    _refuse_grad("binary_cross_entropy_with_logits", "weight", weight)
    _refuse_grad("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    for extra in (weight, pos_weight):
        if extra is not None:
            broadcast_shapes(extra._shape, input._shape)
    return BinaryCrossEntropyWithLogits.apply(
        input, target, weight=weight, pos_weight=pos_weight, reduction=reduction
    )
