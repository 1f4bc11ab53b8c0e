"""Adagrad: each parameter's step shrinks with the gradients it has seen."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from slowtorch_lib._creation import full_like, tensor
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.optim.optimizer import Optimizer, ParamGroup, as_real

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (Duchi et al., 2011): divides the step by the root of the sum
    of all squared gradients so far, element by element.

    For each parameter with gradient ``g``, at step ``t = 1, 2, ...``::

        g = g + weight_decay * param
        clr = lr / (1 + (t - 1) * lr_decay)
        sum = sum + g * g                      (starts at initial_accumulator_value)
        param = param - clr * g / (sqrt(sum) + eps)

    Args:
        params: Tensors, or dicts of tensors and settings (parameter groups).
        lr: The learning rate.
        lr_decay: How fast the learning rate decays with the step number.
        weight_decay: Strength of the L2 penalty added to the gradient.
        initial_accumulator_value: Where the sum of squares starts.
        eps: Added to the denominator so it is never zero.
        foreach: Accepted for compatibility.
        maximize: Climb the objective instead of descending it.
        differentiable: Must be False (True raises NotImplementedError).
        fused: Accepted for compatibility.

    Raises:
        ValueError: For a negative setting.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        limits = {
            "learning rate": lr,
            "lr_decay value": lr_decay,
            "weight_decay value": weight_decay,
            "initial_accumulator_value value": initial_accumulator_value,
            "epsilon value": eps,
        }
        for what, value in limits.items():
            if value < 0.0:
                raise ValueError(f"Invalid {what}: {value}")
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        # The state of every parameter is made now, not at the first step.
        every = [(p, group) for group in self.param_groups for p in group["params"]]
        for param, group in every:
            self._init_state(param, group)

    def _init_state(self, param: Tensor, group: ParamGroup) -> None:
        state = self.state[param]
        if not state:
            state["step"] = tensor(0.0)
            start = group["initial_accumulator_value"]
            if param.is_complex():  # each part starts there, as in PyTorch
                start = complex(start, start)
            state["sum"] = full_like(param, start)

    def _update(
        self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup
    ) -> None:
        if not state:
            self._init_state(param, group)
        if group["maximize"]:
            grad = -grad
        state["step"] += 1
        step = state["step"].item()
        if group["weight_decay"] != 0:
            grad = grad.add(param, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        param, grad, total = as_real(param, grad, state["sum"])
        total.addcmul_(grad, grad, value=1)
        std = total.sqrt().add_(group["eps"])
        param.addcdiv_(grad, std, value=-clr)
