"""Lion: the sign of an interpolated momentum, found by program search."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from slowtorch_lib._creation import zeros_like
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.optim.optimizer import Optimizer, ParamGroup

__all__ = ["Lion"]


class Lion(Optimizer):
    """Lion ("EvoLved Sign Momentum"). PyTorch has no Lion: this follows the
    update rule published in Chen et al., 2023, "Symbolic Discovery of
    Optimization Algorithms" (Algorithm 2 there).

    Every element moves by exactly ``lr`` (up or down), in the direction of
    the sign of a mix of the momentum and the new gradient ``g``::

        update = sign(beta1 * exp_avg + (1 - beta1) * g)
        param = param - lr * (update + weight_decay * param)
        exp_avg = beta2 * exp_avg + (1 - beta2) * g

    Because every step has the same size, Lion wants a learning rate 3-10
    times smaller than AdamW's (the paper's advice), and a larger weight decay.

    Args:
        params: Tensors, or dicts of tensors and settings (parameter groups).
        lr: The learning rate (the size of every element's step).
        betas: ``beta1`` mixes the momentum into the update; ``beta2`` is how
            much of the momentum to keep.
        weight_decay: Decoupled weight decay, as in AdamW.
        maximize: Climb the objective instead of descending it.

    Raises:
        ValueError: For a negative learning rate or weight decay, or a beta
            outside ``[0, 1)``.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-4,
        betas: tuple[float, float] = (0.9, 0.99),
        weight_decay: float = 0.0,
        *,
        maximize: bool = False,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        for index, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {index}: {beta}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "betas": betas,
            "weight_decay": weight_decay,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def _update(
        self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup
    ) -> None:
        if not state:
            state["exp_avg"] = zeros_like(param)
        if group["maximize"]:
            grad = -grad
        lr, (beta1, beta2) = group["lr"], group["betas"]
        exp_avg = state["exp_avg"]
        update = exp_avg.lerp(grad, 1 - beta1).sign_()
        param.mul_(1 - lr * group["weight_decay"])
        param.add_(update, alpha=-lr)
        exp_avg.lerp_(grad, 1 - beta2)
