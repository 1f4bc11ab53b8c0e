"""A tutorial written before PyTorch 0.4, still run by learners today:
``Variable``, ``x.new(...)``, ``.data``, ``resize_``, ``torch.diag`` and a
hand-written gradient step."""

from __future__ import annotations

from typing import Any


def run(torch: Any) -> dict[str, Any]:
    Variable = torch.autograd.Variable

    torch.manual_seed(1)
    x = Variable(torch.randn(8, 3))
    true_w = x.new([[1.5], [-2.0], [0.5]])
    y = Variable(x.data.mm(true_w) + 0.1 * torch.randn(8, 1))
    w = Variable(torch.zeros(3, 1), requires_grad=True)
    scales = torch.diag(torch.tensor([1.0, 0.5, 0.25]))
    losses = []
    for _ in range(20):
        loss = (x.mm(scales).mm(w) - y).pow(2).mean()
        loss.backward()
        w.data -= 0.5 * w.grad.data
        w.grad.data.zero_()
        losses.append(loss.item())
    grid = x.data.clone().resize_(4, 6)
    return {
        "losses": losses[::5],
        "w": w.data.view(-1).tolist(),
        "is variable": isinstance(w, Variable),
        "grid": list(grid.shape),
        "diagonal": grid.diagonal().tolist(),
        "new zeros": list(x.new(2, 5).shape),
    }
