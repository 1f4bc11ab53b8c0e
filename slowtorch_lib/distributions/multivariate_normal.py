"""The multivariate normal distribution of mean ``loc`` and a covariance.

The covariance ``S`` is given as the matrix itself (``covariance_matrix``),
its inverse (``precision_matrix``) or its lower-triangular Cholesky factor
``L`` with ``S = L @ L.mT`` (``scale_tril``). Everything is computed from
``L``: a sample is ``loc + L @ eps`` with ``eps`` standard normal, and

    log p(x) = -(n log(2 pi) + |L^-1 (x - loc)|^2) / 2 - sum(log diag(L)).
"""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib._creation import empty, eye
from slowtorch_lib._strides import broadcast_shapes
from slowtorch_lib._tensor import Size, Tensor
from slowtorch_lib.distributions import constraints
from slowtorch_lib.distributions.distribution import Distribution
from slowtorch_lib.distributions.utils import (
    cholesky_lower,
    lazy_property,
    solve_lower,
    solve_lower_matrix,
)

__all__ = ["MultivariateNormal"]

_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


def _check_matrix(name: str, matrix: Tensor) -> None:
    """Raise ``ValueError`` unless ``matrix`` has two dimensions or more."""
    if matrix.dim() < 2:
        what = "scale_tril matrix" if name == "scale_tril" else name
        raise ValueError(
            f"{what} must be at least two-dimensional, "
            "with optional leading batch dimensions"
        )


def _precision_to_scale_tril(precision: Tensor) -> Tensor:
    """The Cholesky factor of the inverse of ``precision``.

    The factor of the matrix flipped in both dimensions, flipped back and
    transposed, is a lower-triangular ``U`` with ``U @ U.mT`` the inverse
    of the covariance; ``L`` is then ``U^-1``.
    """
    flipped = cholesky_lower(precision.flip((-2, -1)))
    inverse_factor = flipped.flip((-2, -1)).mT
    identity = eye(precision.shape[-1], dtype=precision.dtype)
    return solve_lower_matrix(inverse_factor, identity)


def half_log_det(scale_tril: Tensor) -> Tensor:
    """``log det(L)``, half the log-determinant of the covariance."""
    return scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def mahalanobis(scale_tril: Tensor, diff: Tensor) -> Tensor:
    """``diff^T S^-1 diff`` for ``S = L @ L.mT``: ``|L^-1 diff|^2``."""
    return solve_lower(scale_tril, diff).pow(2).sum(-1)


class MultivariateNormal(Distribution):
    """``MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None,
    scale_tril=None)``: exactly one of the three matrices.

    Raises:
        ValueError: If ``loc`` is a number, if not exactly one matrix is given,
            or if it has fewer than two dimensions.
    """

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc: Tensor,
        covariance_matrix: Tensor | None = None,
        precision_matrix: Tensor | None = None,
        scale_tril: Tensor | None = None,
        validate_args: bool | None = None,
    ):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {
            name: matrix
            for name, matrix in zip(
                _MATRICES,
                (covariance_matrix, precision_matrix, scale_tril),
                strict=True,
            )
            if matrix is not None
        }
        if len(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or "
                "scale_tril may be specified."
            )
        ((name, matrix),) = given.items()
        _check_matrix(name, matrix)
        batch_shape = Size(broadcast_shapes(matrix.shape[:-2], loc.shape[:-1]))
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = cholesky_lower(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        matrix_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(batch_shape + self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in _MATRICES:
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(matrix_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> Size:
        """``batch_shape + (n, n)``: the shape of the matrices."""
        return Size(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The lower-triangular ``L`` with ``L @ L.mT`` the covariance."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """``L @ L.mT``."""
        scale_tril = self._unbroadcasted_scale_tril
        return (scale_tril @ scale_tril.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The inverse of the covariance: ``L^-T @ L^-1``."""
        scale_tril = self._unbroadcasted_scale_tril
        identity = eye(scale_tril.shape[-1], dtype=scale_tril.dtype)
        inverse = solve_lower_matrix(scale_tril, identity)
        return (inverse.mT @ inverse).expand(self._matrix_shape())

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        """The covariance's diagonal: the squares of each row of ``L``, summed."""
        variance = self._unbroadcasted_scale_tril.pow(2).sum(-1)
        return variance.expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc + L @ eps``, ``eps`` drawn by ``normal_`` in the sample's shape."""
        shape = self._extended_shape(sample_shape)
        eps = empty(shape, dtype=self.loc.dtype).normal_()
        product = self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)
        return self.loc + product.squeeze(-1)

    def log_prob(self, value: Any) -> Tensor:
        """``-(n log(2 pi) + |L^-1 (value - loc)|^2) / 2 - log det(L)``."""
        if self._validate_args:
            self._validate_sample(value)
        scale_tril = self._unbroadcasted_scale_tril
        distance = mahalanobis(scale_tril, value - self.loc)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + distance) - half_log_det(scale_tril)

    def entropy(self) -> Tensor:
        """``n (1 + log(2 pi)) / 2 + log det(L)``."""
        n = self._event_shape[0]
        entropy = 0.5 * n * (1.0 + math.log(2 * math.pi)) + half_log_det(
            self._unbroadcasted_scale_tril
        )
        if len(self._batch_shape) == 0:
            return entropy
        return entropy.expand(self._batch_shape)
