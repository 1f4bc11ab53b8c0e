"""Fitting a correlated Gaussian by maximum likelihood: ``MultivariateNormal``.

The data are drawn from a ``MultivariateNormal`` given by its covariance
matrix; a model with a learnt mean and a learnt lower-triangular factor
(its diagonal kept positive by ``exp``) is fitted by Adam on the negative
log-likelihood. ``Independent(Normal)`` with the same diagonal is the
baseline the correlations beat; the fitted model's samples, entropy and
KL to the truth close the run. The seed is the same for both libraries.
"""

from __future__ import annotations

from typing import Any


def run(torch: Any) -> dict[str, Any]:
    D = torch.distributions
    torch.manual_seed(4)
    truth = D.MultivariateNormal(
        torch.tensor([1.0, -2.0, 0.5]),
        covariance_matrix=torch.tensor(
            [[2.0, 0.8, -0.3], [0.8, 1.0, 0.2], [-0.3, 0.2, 0.5]]
        ),
    )
    data = truth.sample((64,))
    loc = torch.zeros(3, requires_grad=True)
    log_diagonal = torch.zeros(3, requires_grad=True)
    below = torch.zeros(3, 3, requires_grad=True)
    optimizer = torch.optim.Adam([loc, log_diagonal, below], lr=0.05)
    losses = []
    for _ in range(60):
        scale_tril = below.tril(-1) + torch.diag_embed(log_diagonal.exp())
        model = D.MultivariateNormal(loc, scale_tril=scale_tril)
        loss = -model.log_prob(data).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    diagonal = D.Independent(D.Normal(loc, log_diagonal.exp()), 1)
    with torch.no_grad():
        scale_tril = below.tril(-1) + torch.diag_embed(log_diagonal.exp())
        model = D.MultivariateNormal(loc, scale_tril=scale_tril)
        return {
            "losses": losses,
            "loss_grad_fn": loss.grad_fn.name(),
            "diagonal_nll": -diagonal.log_prob(data).mean().item(),
            "entropy": model.entropy().item(),
            "kl_to_truth": D.kl_divergence(model, truth).item(),
            "covariance": model.covariance_matrix.tolist(),
            "samples": model.sample((2,)).tolist(),
            "shapes": [list(diagonal.batch_shape), list(diagonal.event_shape)],
        }
