"""Independent: some batch dimensions of a distribution read as one event.

``Independent(Normal(loc, scale), 1)`` with ``loc`` of shape ``(B, D)`` is
a batch of ``B`` distributions over vectors of ``D`` numbers: the same
samples, and ``log_prob`` and ``entropy`` summed over the last dimension
(the coordinates are independent, so their log-densities add up). A VAE's
decoder output read this way has one log-likelihood per image.
"""

from __future__ import annotations

import numbers
from typing import Any

from slowtorch_lib._tensor import Size, Tensor
from slowtorch_lib.distributions import constraints
from slowtorch_lib.distributions.distribution import Distribution
from slowtorch_lib.distributions.utils import sum_rightmost

__all__ = ["Independent"]


def _check_arguments(base_distribution: Any, reinterpreted_batch_ndims: Any) -> None:
    """Raise PyTorch's error for a base or a number of dimensions it refuses.

    Raises:
        AttributeError: If the base is not a distribution.
        TypeError: If the number of dimensions is not an integer.
        ValueError: If it is larger than the base's number of batch dimensions.
    """
    if not isinstance(base_distribution, Distribution):
        name = type(base_distribution).__name__
        raise AttributeError(f"'{name}' object has no attribute 'batch_shape'")
    ndims = reinterpreted_batch_ndims
    if not isinstance(ndims, numbers.Real):
        raise TypeError(
            f"'>' not supported between instances of '{type(ndims).__name__}' and 'int'"
        )
    base_ndims = len(base_distribution.batch_shape)
    if float(ndims) > base_ndims:
        raise ValueError(
            "Expected reinterpreted_batch_ndims <= "
            "len(base_distribution.batch_shape), actual "
            f"{ndims} vs {base_ndims}"
        )
    if not hasattr(ndims, "__index__"):
        raise TypeError(
            "slice indices must be integers or None or have an __index__ method"
        )


class Independent(Distribution):
    """``Independent(base_distribution, reinterpreted_batch_ndims)``.

    The last ``reinterpreted_batch_ndims`` dimensions of the base's batch
    become dimensions of the event: a base of batch shape ``(B, D)`` and
    event shape ``()`` read with 1 has batch shape ``(B,)`` and event shape
    ``(D,)``. Samples, moments and ``rsample`` are the base's.

    Raises:
        ValueError: If more dimensions are asked for than the base has in its
            batch.
    """

    arg_constraints: dict[str, constraints.Constraint] = {}

    def __init__(
        self,
        base_distribution: Distribution,
        reinterpreted_batch_ndims: int,
        validate_args: bool | None = None,
    ):
        _check_arguments(base_distribution, reinterpreted_batch_ndims)
        shape = base_distribution.batch_shape + base_distribution.event_shape
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        split = len(shape) - event_dim
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(shape[:split], shape[split:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Independent:
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = Size(batch_shape)
        reinterpreted = self.event_shape[: self.reinterpreted_batch_ndims]
        new.base_dist = self.base_dist.expand(batch_shape + reinterpreted)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """Whether the base has ``rsample``."""
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        """The base's, if no dimension is reinterpreted (else ``False``)."""
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:
        """The base's support, its last dimensions checked as one event."""
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self) -> Tensor:
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Any) -> Tensor:
        """The base's log-density, summed over the reinterpreted dimensions."""
        log_prob = self.base_dist.log_prob(value)
        return sum_rightmost(log_prob, self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        """The base's entropy, summed over the reinterpreted dimensions."""
        entropy = self.base_dist.entropy()
        return sum_rightmost(entropy, self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The base's values, if no dimension is reinterpreted.

        Raises:
            NotImplementedError: If some are: the values of an event would be
                every combination of the base's.
        """
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError(
                "Enumeration over cartesian product is not implemented"
            )
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        name = type(self).__name__
        return f"{name}({self.base_dist}, {self.reinterpreted_batch_ndims})"
