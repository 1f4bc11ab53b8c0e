"""The categorical distribution with its classes written as one-hot vectors.

``OneHotCategorical(probs=[0.2, 0.8])`` draws the same classes as
``Categorical`` (from the same random numbers), each as a vector of zeros
with a 1 at the class. ``OneHotCategoricalStraightThrough`` adds ``rsample``:
the same vector in the forward pass, with the gradient of ``probs`` in the
backward pass (the straight-through estimator).
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib._creation import eye
from slowtorch_lib._tensor import Size, Tensor
from slowtorch_lib.distributions import constraints
from slowtorch_lib.distributions.categorical import Categorical
from slowtorch_lib.distributions.distribution import Distribution
from slowtorch_lib.nn.functional.layers import one_hot

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """``OneHotCategorical(probs=p)`` or ``OneHotCategorical(logits=l)``.

    A ``Categorical`` of the same parameters draws the classes; the event is
    the vector of the ``K`` classes.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        """The most likely class, one-hot."""
        probs = self.probs
        return one_hot(probs.argmax(dim=-1), probs.shape[-1]).to(probs)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """The categorical's classes, one-hot, in the dtype of ``probs``."""
        indices = self._categorical.sample(Size(sample_shape))
        return one_hot(indices, self._categorical._num_events).to(self.probs)

    def log_prob(self, value: Any) -> Tensor:
        """The log-probability of the class where ``value`` has its 1."""
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The ``K`` one-hot vectors along dimension 0."""
        n = self.event_shape[0]
        values = eye(n, dtype=self._param.dtype)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A ``OneHotCategorical`` with ``rsample`` by the straight-through estimator.

    ``rsample`` returns ``sample + (probs - probs.detach())``: the sample's
    numbers, with the gradient reaching ``probs`` as if the sample were them.
    """

    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        samples = self.sample(sample_shape)
        probs = self.probs
        return samples + (probs - probs.detach())
