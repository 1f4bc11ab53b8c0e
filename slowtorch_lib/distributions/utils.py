"""Helpers the distributions share: broadcasting, probabilities and logits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import tensor
from slowtorch_lib._ranges import arange
from slowtorch_lib._strides import broadcast_shapes
from slowtorch_lib._tensor import Size, Tensor
from slowtorch_lib.autograd.grad_mode import enable_grad
from slowtorch_lib.nn.functional.activation import softmax

__all__ = [
    "broadcast_all",
    "clamp_probs",
    "enumerate_values",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "sum_rightmost",
]

T = TypeVar("T")
R = TypeVar("R")


def is_number(value: Any) -> bool:
    """Whether ``value`` is a Python number (a bool is not a parameter)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Tensors of one shape from tensors and numbers, as PyTorch's.

    A number becomes a tensor of the dtype of the first tensor given (of
    the default dtype if there is none); then all are expanded to the
    shape they broadcast to (a tensor of that shape already is returned
    itself, as ``torch.broadcast_tensors`` returns it).

    Raises:
        ValueError: If a value is neither a tensor nor a number.
    """
    if not all(isinstance(v, Tensor) or is_number(v) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, "
            "torch.Tensor or objects implementing __torch_function__."
        )
    first = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = dtypes.get_default_dtype() if first is None else first.dtype
    tensors = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in values]
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t if t.shape == shape else t.expand(shape) for t in tensors)


def enumerate_values(count: int, batch_shape: Size, dtype: Any, expand: bool) -> Tensor:
    """The values ``0 .. count-1`` along dimension 0, one column per batch item.

    This is ``enumerate_support`` of a discrete distribution whose support
    is ``0 .. count-1``. With ``expand`` false the batch dimensions are of
    size 1, to broadcast against the batch.
    """
    values = arange(count, dtype=dtype).view((-1,) + (1,) * len(batch_shape))
    return values.expand((-1,) + tuple(batch_shape)) if expand else values


def sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """``value`` summed over its last ``dim`` dimensions (none if ``dim`` is 0).

    A batch of per-dimension log-densities becomes one log-density per
    event, as ``Independent`` reads its last batch dimensions as one event.
    """
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from log-odds (binary) or unnormalised log-probabilities."""
    if is_binary:
        return logits.sigmoid()
    return softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities kept within ``[eps, 1 - eps]`` of their dtype."""
    eps = dtypes.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds (binary) or log-probabilities from probabilities."""
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (-clamped).log1p()
    return clamped.log()


class lazy_property(Generic[T, R]):
    """A property computed on first use, then kept as an instance attribute.

    ``Bernoulli(probs=p).logits`` is computed from ``probs`` the first time it
    is read (with gradients recorded even under ``no_grad``), as PyTorch does.
    """

    def __init__(self, wrapped: Callable[[T], R]) -> None:
        self.wrapped = wrapped
        self.__name__ = wrapped.__name__
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance: T | None, owner: Any = None) -> Any:
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.__name__, value)
        return value
