"""The Bernoulli distribution: 1 with probability ``probs``, else 0."""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib._rng import bernoulli
from slowtorch_lib._tensor import Size, Tensor
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.distributions import constraints
from slowtorch_lib.distributions.distribution import Distribution
from slowtorch_lib.distributions.utils import (
    broadcast_all,
    enumerate_values,
    is_number,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from slowtorch_lib.nn.functional.cross_entropy import binary_cross_entropy_with_logits

__all__ = ["Bernoulli"]


def _one_of(probs: Any, logits: Any) -> None:
    """Raise ``ValueError`` unless exactly one of the two is given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class Bernoulli(Distribution):
    """``Bernoulli(probs=p)`` or ``Bernoulli(logits=log-odds)``, not both.

    The one not given is computed from the other when first read.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ):
        _one_of(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        scalar = is_number(probs if probs is not None else logits)
        batch_shape = Size() if scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def logits(self) -> Tensor:
        """The log-odds ``log(p) - log(1 - p)``, ``p`` clamped away from 0 and 1."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        """The probability of 1: ``sigmoid(logits)``."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        """Minus the binary cross-entropy of ``value`` against the logits."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        """The binary cross-entropy of ``probs`` against its own logits."""
        return binary_cross_entropy_with_logits(
            self.logits, self.probs, reduction="none"
        )

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """0 and 1, in the parameter's dtype, along dimension 0."""
        return enumerate_values(2, self._batch_shape, self._param.dtype, expand)
