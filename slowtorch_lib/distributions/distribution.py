"""The base class of every distribution: shapes, sampling and validation.

A distribution holds a batch of independent distributions of one family:
``batch_shape`` says how many, ``event_shape`` the shape of one sample.
``sample(sample_shape)`` returns a tensor of shape
``sample_shape + batch_shape + event_shape``. ``rsample`` draws the same way
but as a differentiable function of the parameters (the
reparameterisation trick), so gradients flow through the sample.

With validation on (the default, as ``assert`` in Python), the parameters
are checked against ``arg_constraints`` when the distribution is built, and
a value against ``support`` before ``log_prob``, with PyTorch's messages.
"""

from __future__ import annotations

import warnings
from typing import Any

from slowtorch_lib._tensor import Size, Tensor
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.distributions import constraints
from slowtorch_lib.distributions.utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """Abstract base class for probability distributions.

    Args:
        batch_shape: The shape over which parameters are batched.
        event_shape: The shape of a single sample (without batching).
        validate_args: Whether to validate arguments (default: the class's
            setting, on unless Python runs with ``-O``).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn validation on or off for every distribution built afterwards."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(
        self,
        batch_shape: tuple[int, ...] = (),
        event_shape: tuple[int, ...] = (),
        validate_args: bool | None = None,
    ) -> None:
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self) -> None:
        """Raise ``ValueError`` if a parameter breaks its constraint."""
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(
                f"{self.__class__} does not define `arg_constraints`. "
                "Please set `arg_constraints = {}` or initialize the distribution "
                "with `validate_args=False` to turn off validation.",
                stacklevel=3,
            )
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            lazy = isinstance(getattr(type(self), param, None), lazy_property)
            if param not in self.__dict__ and lazy:
                continue
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {param} "
                    f"({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {self!r} "
                    f"to satisfy the constraint {constraint!r}, "
                    f"but found invalid values:\n{value}"
                )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """A distribution whose parameters are expanded to ``batch_shape``."""
        raise NotImplementedError

    def _expand_parameters(
        self, cls: type, batch_shape: Any, _instance: Any, names: tuple[str, ...]
    ) -> Any:
        """``expand`` of a ``cls`` whose parameters ``names`` each have the
        batch's shape (as ``Normal``'s ``loc`` and ``scale``)."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
        for name in names:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def batch_shape(self) -> Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """Each parameter's name and the constraint it must satisfy."""
        raise NotImplementedError

    @property
    def support(self) -> Any:
        """The constraint every sample satisfies."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The standard deviation: the square root of the variance."""
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """A sample of shape ``sample_shape + batch_shape + event_shape``."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """A sample through which gradients reach the parameters."""
        raise NotImplementedError

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse of the cumulative distribution function."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value of a discrete distribution, along dimension 0."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy, one number per distribution of the batch."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """The exponential of the entropy."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape: Any = ()) -> Size:
        """``sample_shape + batch_shape + event_shape``."""
        return Size(tuple(sample_shape) + self._batch_shape + self._event_shape)

    def _validate_sample(self, value: Any) -> None:
        """Raise ``ValueError`` unless ``value`` fits the shapes and the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        size = value.size()
        start = len(size) - len(self._event_shape)
        if size[start:] != self._event_shape:
            raise ValueError(
                "The right-most size of value must match event_shape: "
                f"{size} vs {self._event_shape}."
            )
        expected = Size(self._batch_shape + self._event_shape)
        for i, j in zip(reversed(size), reversed(expected), strict=False):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{size} vs {expected}."
                )
        support = self.support
        if not bool(support.check(value).all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{value}"
            )

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        """A blank instance for ``expand`` to fill in."""
        if _instance is None and type(self).__init__ != cls.__init__:  # type: ignore[misc]
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that "
                "defines a custom __init__ method must also define a custom "
                ".expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = []
        for name in names:
            value = self.__dict__[name]
            args.append(f"{name}: {value if value.numel() == 1 else value.size()}")
        return f"{type(self).__name__}({', '.join(args)})"
