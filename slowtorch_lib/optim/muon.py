"""Muon: momentum, orthogonalised by Newton-Schulz, for matrix parameters."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from slowtorch_lib._creation import zeros_like
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.optim.optimizer import Optimizer, ParamGroup

__all__ = ["Muon"]

ADJUST_LR_FNS = ("original", "match_rms_adamw")


class Muon(Optimizer):
    """Muon (Keller Jordan, 2024), as ``torch.optim.Muon`` in PyTorch 2.13.

    Muon is for the 2-d weights of hidden layers (biases and embeddings are
    left to an optimiser such as AdamW). It keeps a momentum ``buf`` of the
    gradient ``g``, then replaces the update matrix by the nearest matrix
    whose singular values are all about 1 (an "orthogonalised" one), so that
    every direction of the weight matrix learns at a similar speed::

        buf = momentum * buf + (1 - momentum) * g
        update = (1 - momentum) * g + momentum * buf   if nesterov   else   buf
        update = newton_schulz(update)
        param = param * (1 - lr * weight_decay)
        param = param - adjusted_lr * update

    ``adjust_lr_fn="original"`` (the default) scales the learning rate by
    ``sqrt(max(1, rows / cols))``; ``"match_rms_adamw"`` by
    ``0.2 * sqrt(max(rows, cols))``, so that AdamW's settings carry over.

    PyTorch runs the Newton-Schulz iteration in bfloat16; this engine runs
    it in the parameter's dtype, so the two agree to about bfloat16's
    precision (two or three digits) rather than exactly.

    Args:
        params: 2-d tensors, or dicts of them and settings (parameter groups).
        lr: The learning rate.
        weight_decay: Decoupled weight decay, as in AdamW.
        momentum: How much of the momentum buffer to keep.
        nesterov: Look ahead along the momentum.
        ns_coefficients: The coefficients ``(a, b, c)`` of the iteration.
        eps: Keeps the first normalisation from dividing by zero.
        ns_steps: How many Newton-Schulz iterations to run.
        adjust_lr_fn: ``"original"``, ``"match_rms_adamw"`` or None
            (``"original"``).

    Raises:
        ValueError: For a negative learning rate, weight decay or momentum,
            an unknown ``adjust_lr_fn``, or a parameter that is not 2-d.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (3.4445, -4.775, 2.0315),
        eps: float = 1e-7,
        ns_steps: int = 5,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if momentum < 0.0:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ADJUST_LR_FNS:
            raise ValueError(
                f"Adjust learning rate function {adjust_lr_fn} is not supported"
            )
        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                if param.dim() != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a "
                        f"parameter with size: {param.size()}"
                    )

    def _update(
        self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup
    ) -> None:
        if not state:
            state["momentum_buffer"] = zeros_like(grad)
        momentum, lr = group["momentum"], group["lr"]
        buf = state["momentum_buffer"]
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if group["nesterov"] else buf
        update = newton_schulz(
            update, group["ns_coefficients"], group["ns_steps"], group["eps"]
        )
        param.mul_(1 - lr * group["weight_decay"])
        adjusted_lr = adjust_lr(lr, group["adjust_lr_fn"], param.shape)
        param.add_(update, alpha=-adjusted_lr)


def newton_schulz(
    matrix: Tensor, coefficients: tuple[float, float, float], steps: int, eps: float
) -> Tensor:
    """Pushes every singular value of ``matrix`` towards 1, keeping its vectors.

    After scaling the matrix so that its largest singular value is at most 1,
    each step applies the odd polynomial ``a x + b x**3 + c x**5`` to every
    singular value ``x`` at once: ``X = a X + (b A + c A A) X`` with
    ``A = X X^T``. The default coefficients make small singular values grow
    fast, at the price of landing near 1 rather than on it.

    Args:
        matrix: A 2-d tensor.
        coefficients: ``(a, b, c)``.
        steps: The number of iterations.
        eps: The smallest norm divided by.

    Returns:
        A new matrix of the same shape.
    """
    a, b, c = coefficients
    tall = matrix.size(0) > matrix.size(1)
    x = matrix.t() if tall else matrix  # work with the wide side: A is smaller
    x = x / (x * x).sum().sqrt().clamp_min(eps)
    for _ in range(steps):
        gram = x @ x.t()
        x = a * x + (b * gram + c * (gram @ gram)) @ x
    return x.t() if tall else x


def adjust_lr(lr: float, adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    """The learning rate Muon uses for a matrix of this shape.

    Raises:
        ValueError: For an unknown ``adjust_lr_fn``.
    """
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
