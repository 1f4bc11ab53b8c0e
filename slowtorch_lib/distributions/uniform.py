"""The uniform distribution on the half-open interval ``[low, high)``."""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib._rng import rand
from slowtorch_lib._tensor import Size, Tensor
from slowtorch_lib.distributions import constraints
from slowtorch_lib.distributions.distribution import Distribution
from slowtorch_lib.distributions.utils import broadcast_all, is_number

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform numbers in ``[low, high)``: ``Uniform(low, high)``.

    ``rsample`` is ``low + u * (high - low)`` with ``u`` from ``rand``.
    """

    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None):
        self.low, self.high = broadcast_all(low, high)
        scalar = is_number(low) and is_number(high)
        batch_shape = Size() if scalar else self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        return {
            "low": constraints.less_than(self.high),
            "high": constraints.greater_than(self.low),
        }

    def expand(self, batch_shape: Any, _instance: Any = None) -> Uniform:
        return self._expand_parameters(Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return math.nan * self.high

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Any) -> Tensor:
        """``-log(high - low)`` inside the interval, ``-inf`` outside."""
        if self._validate_args:
            self._validate_sample(value)
        inside_low = self.low.le(value).type_as(self.low)
        inside_high = self.high.gt(value).type_as(self.low)
        return inside_low.mul(inside_high).log() - (self.high - self.low).log()

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value: Any) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        """``log(high - low)``."""
        return (self.high - self.low).log()
