"""The normal (Gaussian) distribution of mean ``loc`` and deviation ``scale``."""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib._creation import empty
from slowtorch_lib._tensor import Size, Tensor
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.distributions import constraints
from slowtorch_lib.distributions.distribution import Distribution
from slowtorch_lib.distributions.utils import broadcast_all, is_number
from slowtorch_lib.ops.normal import normal

__all__ = ["Normal"]


class Normal(Distribution):
    """A normal distribution: ``Normal(loc, scale)``, numbers or tensors.

    ``rsample`` is ``loc + eps * scale`` with ``eps`` standard normal, so
    gradients reach ``loc`` (1) and ``scale`` (``eps``).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None):
        self.loc, self.scale = broadcast_all(loc, scale)
        scalar = is_number(loc) and is_number(scale)
        batch_shape = Size() if scalar else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Normal:
        return self._expand_parameters(Normal, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = empty(shape, dtype=self.loc.dtype).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> Tensor:
        """``-(value - loc)**2 / (2 scale**2) - log(scale) - log(sqrt(2 pi))``."""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        return (
            -((value - self.loc) ** 2) / (2 * var)
            - self.scale.log()
            - math.log(math.sqrt(2 * math.pi))
        )

    def entropy(self) -> Tensor:
        """``1/2 + log(2 pi)/2 + log(scale)``."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
