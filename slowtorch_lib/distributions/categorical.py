"""The categorical distribution over the classes ``0 .. K-1``."""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import full
from slowtorch_lib._rng import multinomial
from slowtorch_lib._strides import broadcast_shapes
from slowtorch_lib._tensor import Size, Tensor
from slowtorch_lib.distributions import constraints
from slowtorch_lib.distributions.bernoulli import _one_of
from slowtorch_lib.distributions.distribution import Distribution
from slowtorch_lib.distributions.utils import (
    enumerate_values,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["Categorical"]


class Categorical(Distribution):
    """``Categorical(probs=p)`` or ``Categorical(logits=l)``, along the last dim.

    ``probs`` is normalised to sum to 1 and ``logits`` to log-sum-exp to 0;
    the dimensions before the last are the batch.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ):
        _one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.size()[-1]
        shape = self._param.size()
        batch_shape = shape[:-1] if len(shape) > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Categorical:
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = Size(batch_shape)
        param_shape = Size(batch_shape + (self._num_events,))
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        """The log-probabilities, with probabilities clamped away from 0."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        """The probabilities: the softmax of the logits."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        """Undefined for classes: NaN."""
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Tensor:
        """Undefined for classes: NaN."""
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Classes drawn with replacement by ``multinomial``, one row per batch."""
        sample_shape = Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The classes ``0 .. K-1`` (int64) along dimension 0."""
        count = self._num_events
        return enumerate_values(count, self._batch_shape, dtypes.int64, expand)

    def log_prob(self, value: Any) -> Tensor:
        """The log-probability of each class in ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        shape = broadcast_shapes(value.shape, self.logits.shape)
        value = value.expand(shape)[..., :1]
        return self.logits.expand(shape).gather(-1, value).squeeze(-1)

    def entropy(self) -> Tensor:
        """``-sum(p log p)`` over the classes (a class of probability 0 adds 0)."""
        min_real = dtypes.finfo(self.logits.dtype).min
        logits = self.logits.clamp(min=min_real)
        return -(logits * self.probs).sum(-1)
