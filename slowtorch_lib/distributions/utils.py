"""Helpers the distributions share: broadcasting, probabilities and logits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import tensor
from slowtorch_lib._ranges import arange
from slowtorch_lib._strides import broadcast_shapes
from slowtorch_lib._tensor import Size, Tensor
from slowtorch_lib.autograd.grad_mode import enable_grad
from slowtorch_lib.nn.functional.activation import softmax
from slowtorch_lib.ops.joining import stack

__all__ = [
    "broadcast_all",
    "cholesky_lower",
    "clamp_probs",
    "enumerate_values",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "solve_lower",
    "solve_lower_matrix",
    "sum_rightmost",
]

T = TypeVar("T")
R = TypeVar("R")


def is_number(value: Any) -> bool:
    """Whether ``value`` is a Python number (a bool is not a parameter)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Tensors of one shape from tensors and numbers, as PyTorch's.

    A number becomes a tensor of the dtype of the first tensor given (of
    the default dtype if there is none); then all are expanded to the
    shape they broadcast to (a tensor of that shape already is returned
    itself, as ``torch.broadcast_tensors`` returns it).

    Raises:
        ValueError: If a value is neither a tensor nor a number.
    """
    if not all(isinstance(v, Tensor) or is_number(v) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, "
            "torch.Tensor or objects implementing __torch_function__."
        )
    first = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = dtypes.get_default_dtype() if first is None else first.dtype
    tensors = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in values]
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t if t.shape == shape else t.expand(shape) for t in tensors)


def enumerate_values(count: int, batch_shape: Size, dtype: Any, expand: bool) -> Tensor:
    """The values ``0 .. count-1`` along dimension 0, one column per batch item.

    This is ``enumerate_support`` of a discrete distribution whose support
    is ``0 .. count-1``. With ``expand`` false the batch dimensions are of
    size 1, to broadcast against the batch.
    """
    values = arange(count, dtype=dtype).view((-1,) + (1,) * len(batch_shape))
    return values.expand((-1,) + tuple(batch_shape)) if expand else values


def sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """``value`` summed over its last ``dim`` dimensions (none if ``dim`` is 0).

    A batch of per-dimension log-densities becomes one log-density per
    event, as ``Independent`` reads its last batch dimensions as one event.
    """
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def cholesky_lower(matrix: Tensor) -> Tensor:
    """The lower-triangular ``L`` with ``L @ L.mT == matrix``, for each matrix.

    Row by row: ``L[i, j] = (A[i, j] - sum_k L[i, k] L[j, k]) / L[j, j]`` below
    the diagonal and ``L[i, i] = sqrt(A[i, i] - sum_k L[i, k]**2)`` on it (``k``
    runs below ``j``). Written in tensor operations, so gradients reach
    ``matrix``. A matrix that is not positive definite has a diagonal entry
    that is NaN or not above 0.

    The factor is that of the symmetric part ``(A + A.mT) / 2`` (the same
    matrix, for a symmetric ``A``), so that the gradient is symmetric, as
    PyTorch's ``linalg.cholesky`` gives it.
    """
    matrix = (matrix + matrix.mT) / 2
    n = matrix.size(-1)
    zero = matrix[..., 0, 0] * 0
    rows: list[list[Tensor]] = []
    for i in range(n):
        row: list[Tensor] = []
        for j in range(i + 1):
            above = row if j == i else rows[j]
            rest = matrix[..., i, j]
            for k in range(j):
                rest = rest - row[k] * above[k]
            row.append(rest.sqrt() if i == j else rest / above[j])
        rows.append(row + [zero] * (n - i - 1))
    return stack([stack(row, -1) for row in rows], -2)


def solve_lower(tril: Tensor, vector: Tensor) -> Tensor:
    """The ``x`` with ``tril @ x == vector``, by forward substitution.

    ``x[i] = (vector[i] - sum_{j<i} tril[i, j] x[j]) / tril[i, i]``; the
    batch dimensions of the two broadcast.
    """
    solution: list[Tensor] = []
    for i in range(vector.size(-1)):
        rest = vector[..., i]
        for j in range(i):
            rest = rest - tril[..., i, j] * solution[j]
        solution.append(rest / tril[..., i, i])
    return stack(solution, -1)


def solve_lower_matrix(tril: Tensor, matrix: Tensor) -> Tensor:
    """The ``X`` with ``tril @ X == matrix``: one forward substitution a column."""
    return solve_lower(tril.unsqueeze(-3), matrix.mT).mT


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from log-odds (binary) or unnormalised log-probabilities."""
    if is_binary:
        return logits.sigmoid()
    return softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities kept within ``[eps, 1 - eps]`` of their dtype."""
    eps = dtypes.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds (binary) or log-probabilities from probabilities."""
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (-clamped).log1p()
    return clamped.log()


class lazy_property(Generic[T, R]):
    """A property computed on first use, then kept as an instance attribute.

    ``Bernoulli(probs=p).logits`` is computed from ``probs`` the first time it
    is read (with gradients recorded even under ``no_grad``), as PyTorch does.
    """

    def __init__(self, wrapped: Callable[[T], R]) -> None:
        self.wrapped = wrapped
        self.__name__ = wrapped.__name__
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance: T | None, owner: Any = None) -> Any:
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.__name__, value)
        return value
