"""Adam: momentum plus a per-element step size, with bias correction."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from slowtorch_lib._creation import tensor, zeros_like
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.optim.optimizer import Optimizer, ParamGroup, as_real

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam (Kingma and Ba, 2015).

    Keeps two running averages per element: of the gradient (``exp_avg``,
    a momentum) and of its square (``exp_avg_sq``). Both start at zero, so
    early on they are too small; dividing by ``1 - beta ** t`` corrects that.
    For each parameter with gradient ``g``, at step ``t = 1, 2, ...``::

        g = g + weight_decay * param          (decoupled: param *= 1 - lr * wd)
        exp_avg = beta1 * exp_avg + (1 - beta1) * g
        exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g
        (amsgrad: max_exp_avg_sq = max(max_exp_avg_sq, exp_avg_sq), used below)
        denom = sqrt(exp_avg_sq) / sqrt(1 - beta2 ** t) + eps
        param = param - lr / (1 - beta1 ** t) * exp_avg / denom

    A complex parameter is updated as two real numbers per element, as in
    PyTorch (see :func:`~slowtorch_lib.optim.optimizer.as_real`).

    Args:
        params: Tensors, or dicts of tensors and settings (parameter groups).
        lr: The learning rate.
        betas: How much of each running average to keep at each step.
        eps: Added to the denominator so it is never zero.
        weight_decay: Strength of the weight decay.
        amsgrad: Divide by the largest ``exp_avg_sq`` seen so far.
        foreach: Accepted for compatibility.
        maximize: Climb the objective instead of descending it.
        capturable: Accepted for compatibility.
        differentiable: Must be False (True raises NotImplementedError).
        fused: Accepted for compatibility.
        decoupled_weight_decay: Shrink the parameter directly instead of
            adding to the gradient (this is AdamW).

    Raises:
        ValueError: For a negative learning rate, epsilon or weight decay, or
            a beta outside ``[0, 1)``.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        _check_adam_settings(lr, betas, eps, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _update(
        self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup
    ) -> None:
        if not state:
            state["step"] = tensor(0.0)
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(param)
        param, grad = as_real(param, grad)
        if group["maximize"]:
            grad = -grad
        lr, (beta1, beta2) = group["lr"], group["betas"]
        state["step"] += 1
        step = state["step"].item()
        if group["weight_decay"] != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * group["weight_decay"])
            else:
                grad = grad.add(param, alpha=group["weight_decay"])
        exp_avg, exp_avg_sq = as_real(state["exp_avg"], state["exp_avg_sq"])
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        if group["amsgrad"]:
            (max_exp_avg_sq,) = as_real(state["max_exp_avg_sq"])
            max_exp_avg_sq.copy_(max_exp_avg_sq.maximum(exp_avg_sq))
            exp_avg_sq = max_exp_avg_sq
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        denom = (exp_avg_sq.sqrt() / bias_correction2**0.5).add_(group["eps"])
        param.addcdiv_(exp_avg, denom, value=-lr / bias_correction1)


def _check_adam_settings(
    lr: float, betas: tuple[float, float], eps: float, weight_decay: float
) -> None:
    """Adam's and AdamW's argument checks, with PyTorch's messages."""
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
