"""Adadelta: a step size that needs no learning rate to set its scale."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from slowtorch_lib._creation import tensor, zeros_like
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.optim.optimizer import Optimizer, ParamGroup, as_real

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (Zeiler, 2012): divides the step by a running root-mean-square
    of gradients, and multiplies it by a running root-mean-square of past
    steps, so that the step has the units of the parameter.

    For each parameter with gradient ``g``::

        g = g + weight_decay * param
        square_avg = rho * square_avg + (1 - rho) * g * g
        delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta * delta
        param = param - lr * delta

    Args:
        params: Tensors, or dicts of tensors and settings (parameter groups).
        lr: Scales ``delta`` (1.0, the default, is Zeiler's rule).
        rho: How much of the running averages to keep at each step.
        eps: Added inside both square roots.
        weight_decay: Strength of the L2 penalty added to the gradient.
        foreach: Accepted for compatibility.
        capturable: For CUDA graphs; on this CPU-only engine ``step`` refuses
            it, as PyTorch does on a machine without a GPU.
        maximize: Climb the objective instead of descending it.
        differentiable: Must be False (True raises NotImplementedError).

    Raises:
        ValueError: For a negative setting or ``rho`` outside [0, 1].
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(
        self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup
    ) -> None:
        if group["capturable"]:
            raise AssertionError(
                "If capturable=True, params and state_steps must be on supported "
                "devices: ['cuda', 'xpu', 'hpu', 'privateuseone']."
            )
        if not state:
            state["step"] = tensor(0.0)
            state["square_avg"] = zeros_like(param)
            state["acc_delta"] = zeros_like(param)
        state["step"] += 1
        if group["maximize"]:
            grad = grad.neg()
        rho, eps, decay = group["rho"], group["eps"], group["weight_decay"]
        if decay != 0:
            grad = grad.add(param, alpha=decay)
        param, grad = as_real(param, grad)
        square_avg, acc_delta = as_real(state["square_avg"], state["acc_delta"])
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        lr = group["lr"].item() if isinstance(group["lr"], Tensor) else group["lr"]
        param.add_(delta, alpha=-lr)
