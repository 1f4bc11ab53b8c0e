"""Stochastic gradient descent, with momentum and Nesterov momentum."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from slowtorch_lib._tensor import Tensor
from slowtorch_lib.optim.optimizer import Optimizer, ParamGroup

__all__ = ["SGD"]


class SGD(Optimizer):
    """Gradient descent: ``param -= lr * grad``, optionally with momentum.

    For each parameter with gradient ``g`` (with ``maximize`` the gradient's
    sign is flipped, to climb instead of descend)::

        g = g + weight_decay * param             (an L2 penalty)
        buf = g                                  (first step)
        buf = momentum * buf + (1 - dampening) * g      (later steps)
        g = g + momentum * buf   if nesterov   else   buf
        param = param - lr * g

    Args:
        params: Tensors, or dicts of tensors and settings (parameter groups).
        lr: The learning rate.
        momentum: How much of the previous step to keep (0 for none).
        dampening: How much of the new gradient to leave out of the buffer.
        weight_decay: Strength of the L2 penalty added to the gradient.
        nesterov: Look ahead along the momentum (needs momentum > 0 and
            no dampening).
        maximize: Climb the objective instead of descending it.
        foreach: Accepted for compatibility; this engine has one loop.
        differentiable: Must be False (True raises NotImplementedError).
        fused: Accepted for compatibility; this engine has one loop.

    Raises:
        ValueError: For a negative learning rate, momentum or weight decay, or
            Nesterov without momentum or with dampening.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)

    def _update(
        self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup
    ) -> None:
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.clone()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            if group["nesterov"]:
                grad = grad.add(buf, alpha=momentum)
            else:
                grad = buf
        param.add_(grad, alpha=-group["lr"])
