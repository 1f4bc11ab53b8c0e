"""Constraints: the set a parameter or a sample must lie in, as PyTorch's.

A constraint's ``check(value)`` returns a bool tensor saying, for each
event, whether it lies in the set. A distribution checks its parameters
against ``arg_constraints`` when it is built, and a value against its
``support`` before ``log_prob``, if validation is on. Each prints as
PyTorch's does (``GreaterThan(lower_bound=0.0)``), since the messages of
those checks quote it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from slowtorch_lib._dtype import bool_
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.distributions.utils import cholesky_lower

__all__ = [
    "Constraint",
    "boolean",
    "dependent",
    "dependent_property",
    "greater_than",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "one_hot",
    "positive",
    "positive_definite",
    "real",
    "real_vector",
    "simplex",
    "square",
    "symmetric",
    "unit_interval",
]


class Constraint:
    """A region a value must lie in; ``event_dim`` dimensions form one event."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Any) -> Any:
        """A bool tensor: whether each event of ``value`` lies in the region."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """The set depends on other parameters: it cannot be checked alone."""

    def __init__(
        self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented
    ):
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return bool(self._is_discrete)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return int(self._event_dim)

    def __call__(
        self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented
    ) -> _Dependent:
        """``dependent(is_discrete=True, event_dim=1)``: the same, with those set."""
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value: Any) -> Any:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` depends on other parameters (and is not checked)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property on an instance (``Uniform(0, 1).support``), dependent on the class."""

    def __init__(
        self,
        fn: Callable[..., Any] | None = None,
        *,
        is_discrete: Any = NotImplemented,
        event_dim: Any = NotImplemented,
    ) -> None:
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn: Callable[..., Any]) -> _DependentProperty:  # type: ignore[override]
        """Decorate ``fn``, keeping the static attributes given."""
        return _DependentProperty(
            fn, is_discrete=self._is_discrete, event_dim=self._event_dim
        )


def dependent_property(
    fn: Callable[..., Any] | None = None,
    *,
    is_discrete: Any = NotImplemented,
    event_dim: Any = NotImplemented,
) -> _DependentProperty:
    """Decorate a ``support`` computed from the parameters."""
    return _DependentProperty(fn, is_discrete=is_discrete, event_dim=event_dim)


class _IndependentConstraint(Constraint):
    """A constraint whose last ``reinterpreted_batch_ndims`` dims form one event."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Any) -> Any:
        result = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if result.dim() < n:
            raise ValueError(
                f"Expected value.dim() >= {self.event_dim} but got {value.dim()}"
            )
        result = result.reshape(tuple(result.shape[: result.dim() - n]) + (-1,))
        return result.all(-1)

    def __repr__(self) -> str:
        name = type(self).__name__[1:]
        return f"{name}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Boolean(Constraint):
    """The two values 0 and 1."""

    is_discrete = True

    def check(self, value: Any) -> Any:
        return (value == 0) | (value == 1)


class _IntegerInterval(Constraint):
    """The integers from ``lower_bound`` to ``upper_bound``, both included."""

    is_discrete = True

    def __init__(self, lower_bound: Any, upper_bound: Any):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        whole = value % 1 == 0
        return whole & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        bounds = f"lower_bound={self.lower_bound}, upper_bound={self.upper_bound}"
        return f"{type(self).__name__[1:]}({bounds})"


class _Real(Constraint):
    """The extended real line: every value but NaN."""

    def check(self, value: Any) -> Any:
        return value == value


class _GreaterThan(Constraint):
    """The half line above ``lower_bound``, the bound excluded."""

    def __init__(self, lower_bound: Any):
        self.lower_bound = lower_bound

    def check(self, value: Any) -> Any:
        return self.lower_bound < value

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    """The half line below ``upper_bound``, the bound excluded."""

    def __init__(self, upper_bound: Any):
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    """The closed interval from ``lower_bound`` to ``upper_bound``."""

    def __init__(self, lower_bound: Any, upper_bound: Any):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Any) -> Any:
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        bounds = f"lower_bound={self.lower_bound}, upper_bound={self.upper_bound}"
        return f"{type(self).__name__[1:]}({bounds})"


class _Simplex(Constraint):
    """Vectors of non-negative numbers summing to 1 (within 1e-6)."""

    event_dim = 1

    def check(self, value: Any) -> Any:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _OneHot(Constraint):
    """Vectors of zeros with a single 1."""

    is_discrete = True
    event_dim = 1

    def check(self, value: Any) -> Any:
        boolean = (value == 0) | (value == 1)
        return boolean.all(-1) & value.sum(-1).eq(1)


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices whose diagonal is above 0."""

    event_dim = 2

    def check(self, value: Any) -> Any:
        triangular = (value.tril() == value).flatten(-2).all(-1)
        return triangular & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _Square(Constraint):
    """Matrices with as many rows as columns."""

    event_dim = 2

    def check(self, value: Any) -> Any:
        square = value.shape[-2] == value.shape[-1]
        return value.new_full(value.shape[:-2], square, dtype=bool_)


class _Symmetric(_Square):
    """Square matrices equal to their transpose (within ``1e-6``)."""

    def check(self, value: Any) -> Any:
        square = super().check(value)
        if not bool(square.all()):
            return square
        return value.isclose(value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with a Cholesky factor: ``x^T A x > 0`` for all ``x``."""

    def check(self, value: Any) -> Any:
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        with no_grad():
            factor = cholesky_lower(value)
        return (factor.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


dependent = _Dependent()
independent = _IndependentConstraint
boolean = _Boolean()
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
greater_than = _GreaterThan
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
simplex = _Simplex()
one_hot = _OneHot()
lower_cholesky = _LowerCholesky()
square = _Square()
symmetric = _Symmetric()
positive_definite = _PositiveDefinite()
