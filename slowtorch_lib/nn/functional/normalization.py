"""Normalization: ``layer_norm``, ``batch_norm`` and ``group_norm``.

Both subtract a mean and divide by a standard deviation, then scale and
shift by learned ``weight`` and ``bias``:

    y = (x - mean) / sqrt(var + eps) * weight + bias

``layer_norm`` takes the statistics over the last dimensions of each sample;
``batch_norm`` over the batch (and any dimension after the channels), one
mean per channel, and in training also updates running averages of them;
``group_norm`` over each sample's channels split into groups (and any
dimension after the channels), then scales and shifts per channel.

With ``x_hat = (x - mean) * rstd`` (``rstd = 1 / sqrt(var + eps)``) and
``g = grad_output * weight``, the gradient of the input is

    rstd * (g - mean(g) - x_hat * mean(g * x_hat))

with the means over the normalized dimensions. The backward recomputes the
statistics from ``x`` with tensor operations, so that it can be
differentiated again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from slowtorch_lib._strides import numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import not_implemented

__all__ = ["batch_norm", "group_norm", "layer_norm"]


def _normalized(x: Tensor, dims: tuple[int, ...], eps: float) -> tuple[Tensor, Tensor]:
    """``(x_hat, rstd)`` over ``dims``, in tensor operations (for backward)."""
    centered = x - x.mean(dims, keepdim=True)
    variance = (centered * centered).mean(dims, keepdim=True)
    rstd = (variance + eps).rsqrt()
    return centered * rstd, rstd


def _grad_input(
    grad_output: Tensor,
    x: Tensor,
    weight: Tensor | None,
    dims: tuple[int, ...],
    eps: float,
) -> Tensor:
    """The gradient of the input of a normalization over ``dims``."""
    x_hat, rstd = _normalized(x, dims, eps)
    g = grad_output if weight is None else grad_output * weight
    g_mean = g.mean(dims, keepdim=True)
    projection = (g * x_hat).mean(dims, keepdim=True)
    return rstd * (g - g_mean - x_hat * projection)


def _statistics(group: Sequence[float], eps: float) -> tuple[float, float]:
    """Mean and ``1 / sqrt(biased variance + eps)`` of one group of numbers."""
    mean = sum(group) / len(group)
    variance = sum((v - mean) ** 2 for v in group) / len(group)
    return mean, 1.0 / math.sqrt(variance + eps)


# ----------------------------------------------------------------------
# layer_norm
# ----------------------------------------------------------------------


class NativeLayerNorm(Function):
    """Normalizes each sample over its last ``len(normalized_shape)`` dimensions."""

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        weight: Tensor | None,
        bias: Tensor | None,
        *,
        normalized_shape: tuple[int, ...],
        eps: float,
    ) -> Tensor:
        if not x.dtype.is_floating_point:
            raise not_implemented("LayerNormKernelImpl", x.dtype)
        ctx.save_for_backward(x, weight)
        ctx.dims = tuple(range(x.dim() - len(normalized_shape), x.dim()))
        ctx.eps = eps
        size = numel(normalized_shape)
        values = x._values()
        scale = weight._values() if weight is not None else [1.0] * size
        shift = bias._values() if bias is not None else [0.0] * size
        out: list[float] = []
        for start in range(0, len(values), size or 1):
            group = values[start : start + size]
            mean, rstd = _statistics(group, eps)
            out.extend(
                [(v - mean) * rstd * w + b for v, w, b in zip(group, scale, shift)]
            )
        return from_values(out, x._shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any, Any]:
        x, weight = ctx.saved_tensors
        needs = ctx.needs_input_grad
        grad_x = grad_weight = grad_bias = None
        if needs[0]:
            grad_x = _grad_input(grad_output, x, weight, ctx.dims, ctx.eps)
        if needs[1]:  # the engine sums over the batch dimensions
            grad_weight = grad_output * _normalized(x, ctx.dims, ctx.eps)[0]
        if needs[2]:
            grad_bias = grad_output
        return grad_x, grad_weight, grad_bias


def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalizes over the last dimensions (``normalized_shape``), per sample.

    Raises:
        TypeError: If ``normalized_shape`` is not a sequence of ints.
        RuntimeError: If the input's last dimensions, ``weight`` or ``bias``
            do not have the normalized shape.
    """
    if isinstance(normalized_shape, int) or not isinstance(normalized_shape, Sequence):
        raise TypeError(
            "layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
            f"of ints, not {type(normalized_shape).__name__}"
        )
    shape = tuple(normalized_shape)
    if len(shape) > input.dim() or input._shape[input.dim() - len(shape) :] != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size"
            f"{list(input._shape)}"
        )
    for name, tensor in (("weight", weight), ("bias", bias)):
        if tensor is not None and tensor._shape != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got "
                f"{name} of shape {list(tensor._shape)} and normalized_shape = "
                f"{list(shape)}"
            )
    return NativeLayerNorm.apply(input, weight, bias, normalized_shape=shape, eps=eps)


# ----------------------------------------------------------------------
# batch_norm
# ----------------------------------------------------------------------


def _channel_groups(values: list[float], shape: tuple[int, ...]) -> list[list[float]]:
    """The elements of each channel (dimension 1), over batch and length."""
    channels = shape[1]
    inner = numel(shape[2:])
    groups: list[list[float]] = [[] for _ in range(channels)]
    for start in range(0, len(values), inner):
        groups[(start // inner) % channels].extend(values[start : start + inner])
    return groups


class NativeBatchNorm(Function):
    """Normalizes each channel (dimension 1) over the batch and length.

    In training the statistics are the batch's own (and the running
    averages are updated in place); in evaluation they are the running ones,
    and the operation is an affine map of ``x``.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        weight: Tensor | None,
        bias: Tensor | None,
        *,
        running_mean: Tensor | None,
        running_var: Tensor | None,
        training: bool,
        momentum: float,
        eps: float,
    ) -> Tensor:
        if not x.dtype.is_floating_point:
            raise not_implemented("batch_norm", x.dtype)
        shape = x._shape
        channels = shape[1]
        groups = _channel_groups(x._values(), shape)
        if training:
            stats = [_statistics(group, eps) for group in groups]
            if running_mean is not None and running_var is not None:
                _update_running(running_mean, running_var, groups, stats, momentum)
        else:
            assert running_mean is not None and running_var is not None
            stats = [
                (m, 1.0 / math.sqrt(v + eps))
                for m, v in zip(running_mean._values(), running_var._values())
            ]
        scale = weight._values() if weight is not None else [1.0] * channels
        shift = bias._values() if bias is not None else [0.0] * channels
        inner = numel(shape[2:])
        values = x._values()
        out: list[float] = []
        for start in range(0, len(values), inner or 1):
            c = (start // inner) % channels if inner else 0
            (mean, rstd), w, b = stats[c], scale[c], shift[c]
            out.extend(
                [(v - mean) * rstd * w + b for v in values[start : start + inner]]
            )
        ctx.save_for_backward(x, weight)
        ctx.training, ctx.eps = training, eps
        ctx.dims = (0, *range(2, x.dim()))
        broadcast_shape = [1] * x.dim()
        broadcast_shape[1] = channels
        ctx.stats_shape = tuple(broadcast_shape)
        ctx.stats = stats
        return from_values(out, shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any, Any]:
        x, weight = ctx.saved_tensors
        dims, shape, needs = ctx.dims, ctx.stats_shape, ctx.needs_input_grad
        w = weight.reshape(shape) if weight is not None else None
        if ctx.training:
            x_hat = _normalized(x, dims, ctx.eps)[0]
        else:
            mean = from_values([m for m, _ in ctx.stats], shape, x.dtype)
            rstd = from_values([r for _, r in ctx.stats], shape, x.dtype)
            x_hat = (x - mean) * rstd
        grad_x = grad_weight = grad_bias = None
        if needs[0]:
            if ctx.training:
                grad_x = _grad_input(grad_output, x, w, dims, ctx.eps)
            else:
                grad_x = grad_output * (rstd if w is None else rstd * w)
        if needs[1]:
            grad_weight = (grad_output * x_hat).sum(dims)
        if needs[2]:
            grad_bias = grad_output.sum(dims)
        return grad_x, grad_weight, grad_bias


def _update_running(
    running_mean: Tensor,
    running_var: Tensor,
    groups: list[list[float]],
    stats: list[tuple[float, float]],
    momentum: float,
) -> None:
    """``running = (1 - momentum) * running + momentum * batch``, in place.

    The running variance is updated with the *unbiased* batch variance
    (divided by ``n - 1``), as in PyTorch.
    """
    n = len(groups[0])
    means = [mean for mean, _ in stats]
    variances = [sum((v - m) ** 2 for v in g) / (n - 1) for g, m in zip(groups, means)]
    new_mean = [
        (1 - momentum) * r + momentum * m for r, m in zip(running_mean._values(), means)
    ]
    new_var = [
        (1 - momentum) * r + momentum * v
        for r, v in zip(running_var._values(), variances)
    ]
    running_mean._check_inplace()
    running_var._check_inplace()
    running_mean._write_values(new_mean)
    running_var._write_values(new_var)


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalizes each channel of ``(N, C)`` or ``(N, C, L)`` input.

    Args:
        input: The batch; channels are dimension 1.
        running_mean, running_var: Running statistics, ``(C,)``: used in
            evaluation, updated in place in training (when given).
        weight, bias: The affine parameters, ``(C,)``.
        training: Use the batch's statistics (True) or the running ones.
        momentum: The weight of the new batch in the running averages.
        eps: Added to the variance before the square root.

    Raises:
        ValueError: In training with one value per channel.
        RuntimeError: Without running statistics in evaluation, or with
            parameters of the wrong size.
    """
    channels = input._shape[1] if input.dim() > 1 else 0
    if training and numel(input._shape) // max(channels, 1) <= 1 and channels:
        raise ValueError(
            "Expected more than 1 value per channel when training, got input size "
            f"{input.shape}"
        )
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean must be defined in evaluation mode")
    for name, tensor in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if tensor is not None and tensor.numel() != channels:
            raise RuntimeError(
                f"{name} should contain {channels} elements not {tensor.numel()}"
            )
    if input.dim() < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
    return NativeBatchNorm.apply(
        input,
        weight,
        bias,
        running_mean=running_mean,
        running_var=running_var,
        training=training,
        momentum=momentum,
        eps=eps,
    )


# ----------------------------------------------------------------------
# group_norm
# ----------------------------------------------------------------------


def _per_channel(values: Tensor | None, channels: int, fill: float) -> list[float]:
    """A per-channel parameter's numbers (``fill`` for each when absent)."""
    return values._values() if values is not None else [fill] * channels


class NativeGroupNorm(Function):
    """Normalizes each sample's channel groups, then scales and shifts per
    channel.

    A sample's ``C`` channels (and everything after them) are cut into
    ``num_groups`` equal, contiguous groups; each is normalized alone. The
    backward views ``x`` as ``(N, num_groups, -1)`` and uses the gradient
    of a normalization over the last dimension.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        weight: Tensor | None,
        bias: Tensor | None,
        *,
        num_groups: int,
        eps: float,
    ) -> Tensor:
        if not x.dtype.is_floating_point:
            raise not_implemented("GroupNormKernelImpl", x.dtype)
        ctx.save_for_backward(x, weight)
        ctx.num_groups, ctx.eps = num_groups, eps
        channels = x._shape[1]
        inner = numel(x._shape[2:])
        scale = _per_channel(weight, channels, 1.0)
        shift = _per_channel(bias, channels, 0.0)
        values = x._values()
        size = channels // num_groups * inner
        out: list[float] = []
        for start in range(0, len(values), size or 1):
            mean, rstd = _statistics(values[start : start + size], eps)
            for offset in range(start, min(start + size, len(values))):
                c = (offset // inner) % channels
                out.append((values[offset] - mean) * rstd * scale[c] + shift[c])
        return from_values(out, x._shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any, Any]:
        x, weight = ctx.saved_tensors
        needs = ctx.needs_input_grad
        per_group = x._shape[1] // ctx.num_groups * numel(x._shape[2:])
        grouped = (x._shape[0], ctx.num_groups, per_group)
        channel_shape = (1, x._shape[1], *[1] * (x.dim() - 2))
        sum_dims = (0, *range(2, x.dim()))
        grad_x = grad_weight = grad_bias = None
        if needs[0]:
            g = (
                grad_output
                if weight is None
                else grad_output * weight.reshape(channel_shape)
            )
            grad_x = _grad_input(
                g.reshape(grouped), x.reshape(grouped), None, (2,), ctx.eps
            ).reshape(x._shape)
        if needs[1]:
            x_hat = _normalized(x.reshape(grouped), (2,), ctx.eps)[0]
            grad_weight = (grad_output * x_hat.reshape(x._shape)).sum(sum_dims)
        if needs[2]:
            grad_bias = grad_output.sum(sum_dims)
        return grad_x, grad_weight, grad_bias


def _check_group_norm(
    input: Tensor, num_groups: int, weight: Tensor | None, bias: Tensor | None
) -> None:
    """PyTorch's checks of ``group_norm``'s arguments, in its order."""
    if num_groups <= 0:
        raise RuntimeError(
            f"Expected num groups to be greater than 0, got {num_groups}"
        )
    channels = input._shape[1]
    if channels % num_groups != 0:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, "
            f"but got input of shape {list(input._shape)} and num_groups={num_groups}"
        )
    # PyTorch's message about the bias shows the weight's shape ([0] if none).
    weight_shape = list(weight._shape) if weight is not None else [0]
    for name, tensor in (("weight", weight), ("bias", bias)):
        if tensor is not None and (tensor.dim() != 1 or tensor.numel() != channels):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of "
                f"channels in input, but got {name} of shape {weight_shape} and "
                f"input of shape {list(input._shape)}"
            )


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalizes each of ``num_groups`` groups of channels, per sample.

    Args:
        input: ``(N, C, *)``; ``C`` must be divisible by ``num_groups``.
        num_groups: How many groups the channels are split into.
        weight, bias: Per-channel scale and shift, ``(C,)``.
        eps: Added to the variance before the square root.

    Raises:
        RuntimeError: For an input of fewer than 2 dimensions, a number of
            groups that is not positive or does not divide ``C``, or
            parameters that are not vectors of ``C`` numbers.
        ValueError: If each group would hold a single value.
        TypeError: If ``num_groups`` is not an int.
    """
    if input.dim() < 2:
        raise RuntimeError(
            "Expected at least 2 dimensions for input tensor but received "
            f"{input.dim()}"
        )
    per_group = input._shape[0] * input._shape[1] // num_groups
    if per_group * numel(input._shape[2:]) == 1:
        raise ValueError(
            "Expected more than 1 value per channel when training, got input size "
            f"{[per_group, num_groups, *input._shape[2:]]}"
        )
    if not isinstance(num_groups, int):
        raise TypeError(
            "group_norm(): argument 'num_groups' (position 2) must be int, not "
            f"{type(num_groups).__name__}"
        )
    _check_group_norm(input, num_groups, weight, bias)
    return NativeGroupNorm.apply(input, weight, bias, num_groups=num_groups, eps=eps)
