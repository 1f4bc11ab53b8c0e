"""The autograd tutorial: a one-layer network, gradients, detaching, accumulation."""

from __future__ import annotations

import random
from typing import Any

from tests.programs import gauss


def run(torch: Any) -> dict[str, Any]:
    rng = random.Random(7)
    x = torch.ones(5)
    y = torch.zeros(3)
    w = gauss(torch, rng, (5, 3), 1.0).requires_grad_()
    b = gauss(torch, rng, (3,), 1.0).requires_grad_()
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    grad_fn_names = [type(z.grad_fn).__name__, type(loss.grad_fn).__name__]
    loss.backward()
    w_grad, b_grad = w.grad.tolist(), b.grad.tolist()

    z = torch.matmul(x, w) + b
    tracked = z.requires_grad
    with torch.no_grad():
        z = torch.matmul(x, w) + b
    untracked = z.requires_grad
    z_det = (torch.matmul(x, w) + b).detach()

    inp = torch.eye(4, 5, requires_grad=True)
    out = (inp + 1).pow(2).t()
    out.backward(torch.ones_like(out), retain_graph=True)
    first = inp.grad.tolist()
    out.backward(torch.ones_like(out), retain_graph=True)
    second = inp.grad.tolist()
    inp.grad.zero_()
    out.backward(torch.ones_like(out), retain_graph=True)
    call_after_zero = inp.grad.tolist()

    with torch.inference_mode():
        frozen = torch.matmul(x, w) + b
    return {
        "loss": loss.item(),
        "grad_fn_names": grad_fn_names,
        "w_grad": w_grad,
        "b_grad": b_grad,
        "tracked": [tracked, untracked, z_det.requires_grad],
        "first": first,
        "second": second,
        "after_zero": call_after_zero,
        "frozen": [frozen.requires_grad, frozen.is_inference()],
    }
