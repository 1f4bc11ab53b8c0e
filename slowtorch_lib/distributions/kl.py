"""The Kullback-Leibler divergence ``KL(p || q)`` between two distributions.

Each rule is registered for a pair of types with :func:`register_kl`;
:func:`kl_divergence` picks the rule of the pair it is given.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from slowtorch_lib._tensor import Tensor
from slowtorch_lib.distributions.categorical import Categorical
from slowtorch_lib.distributions.distribution import Distribution
from slowtorch_lib.distributions.independent import Independent
from slowtorch_lib.distributions.laplace import Laplace
from slowtorch_lib.distributions.multivariate_normal import (
    MultivariateNormal,
    half_log_det,
    mahalanobis,
)
from slowtorch_lib.distributions.normal import Normal
from slowtorch_lib.distributions.one_hot_categorical import OneHotCategorical
from slowtorch_lib.distributions.utils import solve_lower_matrix, sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

KLRule = Callable[[Any, Any], Tensor]
_KL_REGISTRY: dict[tuple[type, type], KLRule] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[KLRule], KLRule]:
    """Decorate the rule computing ``KL(p || q)`` for these two types."""

    def decorator(fun: KLRule) -> KLRule:
        _KL_REGISTRY[type_p, type_q] = fun
        return fun

    return decorator


def _find_rule(type_p: type, type_q: type) -> KLRule | None:
    """The rule registered for the nearest base classes of the two types."""
    for base_p in type_p.__mro__:
        for base_q in type_q.__mro__:
            if (base_p, base_q) in _KL_REGISTRY:
                return _KL_REGISTRY[base_p, base_q]
    return None


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q)``, one number per distribution of the batch.

    Raises:
        NotImplementedError: If no rule is registered for the two types.
    """
    fun = _find_rule(type(p), type(q))
    if fun is None:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} "
            f"and q type {q.__class__.__name__}"
        )
    return fun(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    """``(r + ((mu_p - mu_q) / s_q)**2 - 1 - log r) / 2`` with ``r = (s_p/s_q)**2``."""
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    """``-log r + |d| / b_q + r exp(-|d| / b_p) - 1``.

    ``r = b_p / b_q`` is the scales' ratio, ``d = mu_p - mu_q``.
    """
    scale_ratio = p.scale / q.scale
    loc_distance = (p.loc - q.loc).abs()
    shifted = scale_ratio * (-loc_distance / p.scale).exp()
    return -scale_ratio.log() + loc_distance / q.scale + shifted - 1


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    """``sum p (log p - log q)``: infinite where q is 0 and p is not."""
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = math.inf
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_one_hot_one_hot(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    """The divergence of the two categoricals drawing the classes."""
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    """The bases' divergence, summed over the reinterpreted dimensions.

    Raises:
        NotImplementedError: If the two read different numbers of dimensions
            as their event (with no message, as PyTorch's).
    """
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    """``log det Lq - log det Lp + (|Lq^-1 Lp|^2 + |Lq^-1 (mu_q - mu_p)|^2 - n) / 2``.

    ``|.|`` is the Frobenius norm: ``|Lq^-1 Lp|^2`` is the trace of
    ``Sq^-1 Sp``, ``|Lq^-1 d|^2`` the Mahalanobis distance of the means.

    Raises:
        ValueError: If the two have events of different shapes.
    """
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with"
            + " " * 26
            + "different event shapes cannot be computed"
        )
    p_tril, q_tril = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    log_ratio = half_log_det(q_tril) - half_log_det(p_tril)
    trace = solve_lower_matrix(q_tril, p_tril).pow(2).sum((-2, -1))
    distance = mahalanobis(q_tril, q.loc - p.loc)
    return log_ratio + 0.5 * (trace + distance - p.event_shape[0])
