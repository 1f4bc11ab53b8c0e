"""Gradient clipping: keep one bad batch from throwing the parameters away."""

from __future__ import annotations

import math
from collections.abc import Iterable

from slowtorch_lib._creation import tensor
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _values_norm(values: list[float], norm_type: float) -> float:
    """The ``norm_type``-norm of a list of numbers: ``(sum |x|**p) ** (1/p)``,
    the largest ``|x|`` for ``inf``, the smallest for ``-inf``."""
    sizes = [abs(v) for v in values]
    if not sizes:
        return 0.0
    if norm_type == math.inf:
        return max(sizes)
    if norm_type == -math.inf:
        return min(sizes)
    if norm_type == 0:
        return float(sum(1 for size in sizes if size != 0))
    if any(math.isnan(size) for size in sizes):
        return math.nan
    if math.inf in sizes:
        return math.inf
    return math.fsum(size**norm_type for size in sizes) ** (1.0 / norm_type)


def _gradients(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scales all gradients down together so that their joint norm is at most
    ``max_norm``.

    The joint norm is the norm of all gradients' elements taken as one long
    vector. If it exceeds ``max_norm``, every gradient is multiplied by
    ``max_norm / (total_norm + 1e-6)``: the direction of the step is kept,
    only its length is limited.

    Args:
        parameters: A tensor or tensors whose ``.grad`` to clip (those without
            a gradient are skipped).
        max_norm: The largest norm allowed.
        norm_type: Which norm: 2 (the default), 1, any p, or ``inf``.
        error_if_nonfinite: Raise if the norm is ``nan`` or ``inf``.
        foreach: Accepted for compatibility.

    Returns:
        The total norm before clipping, as a 0-d tensor.

    Raises:
        RuntimeError: With ``error_if_nonfinite``, if the norm is not finite.
    """
    grads = _gradients(parameters)
    norm_type = float(norm_type)
    if not grads:
        return tensor(0.0)
    norms = [tensor(_values_norm(g._values(), norm_type)).item() for g in grads]
    total_norm = tensor(_values_norm(norms, norm_type))
    total = total_norm.item()
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    clip_coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    with no_grad():
        for grad in grads:
            grad.mul_(clip_coef)
    return total_norm


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor],
    clip_value: float,
    foreach: bool | None = None,
) -> None:
    """Clamps every gradient element into ``[-clip_value, clip_value]``.

    Unlike :func:`clip_grad_norm_` this can change the direction of the step.
    """
    clip_value = float(clip_value)
    tensors = [parameters] if isinstance(parameters, Tensor) else parameters
    with no_grad():
        for parameter in tensors:
            if parameter.grad is not None:
                parameter.grad.clamp_(min=-clip_value, max=clip_value)
