"""The Laplace distribution of centre ``loc`` and scale ``scale``.

Its density ``exp(-|x - loc| / scale) / (2 scale)`` is two exponential
tails back to back: the noise whose maximum-likelihood fit is the median,
as the normal's is the mean.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import empty
from slowtorch_lib._tensor import Size, Tensor
from slowtorch_lib.distributions import constraints
from slowtorch_lib.distributions.distribution import Distribution
from slowtorch_lib.distributions.utils import broadcast_all, is_number

__all__ = ["Laplace"]


class Laplace(Distribution):
    """A Laplace distribution: ``Laplace(loc, scale)``, numbers or tensors.

    ``rsample`` inverts the distribution function at ``u`` drawn uniformly in
    ``(eps - 1, 1)``: ``loc - scale * sign(u) * log1p(-|u|)``.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None):
        self.loc, self.scale = broadcast_all(loc, scale)
        scalar = is_number(loc) and is_number(scale)
        batch_shape = Size() if scalar else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Laplace:
        return self._expand_parameters(
            Laplace, batch_shape, _instance, ("loc", "scale")
        )

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return (2**0.5) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = dtypes.finfo(self.loc.dtype).eps
        u = empty(shape, dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Any) -> Tensor:
        """``-log(2 scale) - |value - loc| / scale``."""
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Any) -> Tensor:
        """``1/2 - sign(d) expm1(-|d| / scale) / 2`` with ``d = value - loc``."""
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        return 0.5 - 0.5 * diff.sign() * (-diff.abs() / self.scale).expm1()

    def icdf(self, value: Any) -> Tensor:
        """``loc - scale * sign(p - 1/2) * log1p(-2 |p - 1/2|)``."""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self) -> Tensor:
        """``1 + log(2 scale)``."""
        return 1 + (2 * self.scale).log()
