"""Probability distributions, as ``torch.distributions``.

``Normal``, ``Uniform``, ``Laplace``, ``Bernoulli``, ``Categorical``,
``OneHotCategorical`` and ``MultivariateNormal`` with ``sample``,
``rsample`` (where the family has one), ``log_prob``, ``entropy``, their
moments and ``expand``; ``Independent`` to read batch dimensions as one
event; ``kl_divergence`` for normal, multivariate normal, Laplace,
categorical, one-hot categorical and independent pairs. Samples equal
PyTorch's after the same ``manual_seed``: each family draws with the same
sampler PyTorch's does (a multivariate normal's and a Laplace's within a rounding:
the matrix product adds in another order, and ``log1p`` rounds otherwise).
"""

from slowtorch_lib.distributions import constraints
from slowtorch_lib.distributions.bernoulli import Bernoulli
from slowtorch_lib.distributions.categorical import Categorical
from slowtorch_lib.distributions.distribution import Distribution
from slowtorch_lib.distributions.independent import Independent
from slowtorch_lib.distributions.kl import kl_divergence, register_kl
from slowtorch_lib.distributions.laplace import Laplace
from slowtorch_lib.distributions.multivariate_normal import MultivariateNormal
from slowtorch_lib.distributions.normal import Normal
from slowtorch_lib.distributions.one_hot_categorical import (
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
)
from slowtorch_lib.distributions.uniform import Uniform

__all__ = [
    "Bernoulli",
    "Categorical",
    "Distribution",
    "Independent",
    "Laplace",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]
