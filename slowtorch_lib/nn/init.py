"""Initialisation: filling a parameter with its first values, as PyTorch does.

Every function here changes its tensor in place, under ``no_grad`` (so it
works on parameters that require grad), and returns it::

    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5))

The interesting ones choose the spread of the random values from the
tensor's shape. A layer with ``fan_in`` inputs adds up ``fan_in`` products;
if each weight has variance ``v``, the sum has about ``fan_in * v`` times
the variance of one input. Choosing ``v = gain**2 / fan_in`` keeps the
variance of the signal the same from layer to layer (He et al., 2015), and
``v = 2 / (fan_in + fan_out)`` balances the forward and the backward pass
(Glorot and Bengio, 2010). The *gain* corrects for what the activation does
to the variance (see :func:`calculate_gain`).

A uniform distribution on ``[-bound, bound]`` has variance ``bound**2 / 3``,
which is why the uniform versions use ``bound = sqrt(3) * std``.
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist
from typing import Any

from slowtorch_lib._creation import eye
from slowtorch_lib._rng import Generator
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.grad_mode import no_grad

__all__ = [
    "calculate_gain",
    "constant_",
    "eye_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]

LINEAR_LAYERS = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The factor by which to scale the standard deviation for an activation.

    - linear layers, convolutions and sigmoid: 1
    - tanh: 5/3
    - relu: sqrt(2)
    - leaky_relu: sqrt(2 / (1 + negative_slope**2))
    - selu: 3/4

    ReLU zeroes half of its inputs, halving the variance; a gain of
    ``sqrt(2)`` doubles it back.

    Args:
        nonlinearity: The activation's name, as in the list above.
        param: For ``leaky_relu``, its negative slope (default 0.01).

    Raises:
        ValueError: For an unknown name or a slope that is not a number.
    """
    if nonlinearity in LINEAR_LAYERS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """How many inputs feed each output (fan in) and outputs each input feeds.

    A weight has shape ``(out_features, in_features)``, or for a convolution
    ``(out_channels, in_channels, *kernel)``: each kernel position counts.

    Raises:
        ValueError: For a tensor with fewer than 2 dimensions.
    """
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 "
            "dimensions"
        )
    receptive_field = math.prod(tensor.shape[2:])
    fan_in = tensor.shape[1] * receptive_field
    fan_out = tensor.shape[0] * receptive_field
    return fan_in, fan_out


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    """The fan in or the fan out, as ``mode`` asks.

    Raises:
        ValueError: If ``mode`` is neither ``"fan_in"`` nor ``"fan_out"``.
    """
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


# ----------------------------------------------------------------------
# Fixed values
# ----------------------------------------------------------------------


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fills ``tensor`` with ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fills ``tensor`` with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fills ``tensor`` with zeros."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fills a 2-D ``tensor`` with the identity matrix (ones on the diagonal).

    Raises:
        ValueError: If ``tensor`` is not 2-D.
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(eye(tensor.shape[0], tensor.shape[1]))


# ----------------------------------------------------------------------
# Random values with a given spread
# ----------------------------------------------------------------------


def uniform_(
    tensor: Tensor,
    a: float = 0.0,
    b: float = 1.0,
    generator: Generator | None = None,
) -> Tensor:
    """Fills ``tensor`` with numbers drawn uniformly from ``[a, b)``."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    generator: Generator | None = None,
) -> Tensor:
    """Fills ``tensor`` with numbers drawn from a normal distribution."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Generator | None = None,
) -> Tensor:
    """Fills ``tensor`` from a normal distribution cut to ``[a, b]``.

    Each value is a uniform number ``p`` between the normal's cumulative
    probabilities at ``a`` and ``b``, mapped back through the inverse of
    the cumulative distribution: values land in ``[a, b]`` with the normal's
    shape. (Drawing normals and clamping would pile values up at the ends.)
    """
    normal = NormalDist(mean, std)
    low, high = normal.cdf(a), normal.cdf(b)
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
            "distribution of values may be incorrect.",
            stacklevel=2,
        )
    with no_grad():
        tensor.uniform_(low, high, generator=generator)
        probabilities = tensor.reshape(-1).tolist()
        values = [_inverse_cdf(normal, p, a, b) for p in probabilities]
        return tensor.copy_(from_values(values, tuple(tensor.shape), tensor.dtype))


def _inverse_cdf(normal: NormalDist, p: float, a: float, b: float) -> float:
    """The value below which a fraction ``p`` of ``normal`` lies, kept in [a, b]."""
    p = min(max(p, 1e-12), 1 - 1e-12)  # the inverse is infinite at 0 and 1
    return min(max(normal.inv_cdf(p), a), b)


def xavier_uniform_(
    tensor: Tensor, gain: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Glorot initialisation, uniform on ``[-bound, bound]``.

    ``std = gain * sqrt(2 / (fan_in + fan_out))`` and
    ``bound = sqrt(3) * std``.

    Raises:
        ValueError: For a tensor with fewer than 2 dimensions.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    if fan_in + fan_out == 0:
        return tensor  # no elements to fill
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(
    tensor: Tensor, gain: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Glorot initialisation, normal:

    ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    Raises:
        ValueError: For a tensor with fewer than 2 dimensions.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    if fan_in + fan_out == 0:
        return tensor  # no elements to fill
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    """He initialisation's standard deviation: ``gain / sqrt(fan)``."""
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    return gain / math.sqrt(fan)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """He initialisation, uniform on ``[-bound, bound]``.

    ``bound = sqrt(3) * gain / sqrt(fan)``, where ``gain`` is
    ``calculate_gain(nonlinearity, a)`` and ``fan`` the fan in or fan out.
    ``nn.Linear`` calls it with ``a=sqrt(5)``, which works out to
    ``bound = 1 / sqrt(fan_in)``.

    Args:
        tensor: The tensor to fill (at least 2-D).
        a: The negative slope of the leaky ReLU that follows.
        mode: ``"fan_in"`` keeps the forward pass's variance, ``"fan_out"``
            the backward pass's.
        nonlinearity: The activation that follows (see :func:`calculate_gain`).
        generator: Where the random numbers come from.

    Raises:
        ValueError: For a tensor with fewer than 2 dimensions, a bad mode or
            an unknown nonlinearity.
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0.0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """He initialisation, normal with ``std = gain / sqrt(fan)``.

    The arguments are those of :func:`kaiming_uniform_`.
    """
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    return normal_(tensor, 0.0, std, generator)
