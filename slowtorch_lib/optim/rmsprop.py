"""RMSprop: divide the step by a running root-mean-square of gradients."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from slowtorch_lib._creation import tensor, zeros_like
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.optim.optimizer import Optimizer, ParamGroup, as_real

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop (Hinton's lecture notes, 2012): like Adagrad, but the sum of
    squared gradients becomes a running average that forgets old ones.

    For each parameter with gradient ``g``::

        g = g + weight_decay * param
        square_avg = alpha * square_avg + (1 - alpha) * g * g
        avg = sqrt(square_avg) + eps
        (centered: grad_avg = alpha * grad_avg + (1 - alpha) * g,
                   avg = sqrt(square_avg - grad_avg ** 2) + eps)
        buf = momentum * buf + g / avg;  param = param - lr * buf  (momentum)
        param = param - lr * g / avg                            (no momentum)

    Args:
        params: Tensors, or dicts of tensors and settings (parameter groups).
        lr: The learning rate.
        alpha: How much of the running average to keep at each step.
        eps: Added to the denominator so it is never zero.
        weight_decay: Strength of the L2 penalty added to the gradient.
        momentum: Momentum factor (0 for none).
        centered: Divide by an estimate of the gradient's variance instead
            of its mean square.
        capturable: Accepted for compatibility.
        foreach: Accepted for compatibility.
        maximize: Climb the objective instead of descending it.
        differentiable: Must be False (True raises NotImplementedError).

    Raises:
        ValueError: For a negative setting.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if alpha < 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _update(
        self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup
    ) -> None:
        if not state:
            state["step"] = tensor(0.0)
            state["square_avg"] = zeros_like(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = zeros_like(param)
        param, grad = as_real(param, grad)
        if group["maximize"]:
            grad = -grad
        state["step"] += 1
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        alpha = group["alpha"]
        (square_avg,) = as_real(state["square_avg"])
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            (grad_avg,) = as_real(state["grad_avg"])
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(group["eps"])
        if group["momentum"] > 0:
            (buf,) = as_real(state["momentum_buffer"])
            buf.mul_(group["momentum"]).addcdiv_(grad, avg)
            param.add_(buf, alpha=-group["lr"])
        else:
            param.addcdiv_(grad, avg, value=-group["lr"])
