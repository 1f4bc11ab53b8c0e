"""AdamW: Adam with weight decay taken out of the gradient."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from slowtorch_lib.optim.adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """AdamW (Loshchilov and Hutter, 2019): Adam with decoupled weight decay.

    Adam adds ``weight_decay * param`` to the gradient, so the decay is then
    divided by Adam's per-element scale like any gradient. AdamW instead
    shrinks the parameter directly, ``param *= 1 - lr * weight_decay``, before
    the Adam step. Otherwise it is :class:`Adam`.

    Args:
        params: Tensors, or dicts of tensors and settings (parameter groups).
        lr: The learning rate.
        betas: How much of each running average to keep at each step.
        eps: Added to the denominator so it is never zero.
        weight_decay: How much of the parameter to remove per unit of ``lr``.
        amsgrad: Divide by the largest ``exp_avg_sq`` seen so far.
        maximize: Climb the objective instead of descending it.
        foreach: Accepted for compatibility.
        capturable: Accepted for compatibility.
        differentiable: Must be False (True raises NotImplementedError).
        fused: Accepted for compatibility.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
