"""A tiny variational autoencoder: ``Normal.rsample``, ``kl_divergence``, ``Bernoulli``.

The encoder gives a mean and a log-variance; the code is drawn with the
reparameterisation trick (``rsample``), so the loss's gradient reaches the
encoder; the decoder's logits score the binary input with
``Bernoulli.log_prob``. The seed is the same for both libraries, and so are
the draws.
"""

from __future__ import annotations

import random
from typing import Any


def run(torch: Any) -> dict[str, Any]:
    D = torch.distributions
    Bernoulli, Normal, kl_divergence = D.Bernoulli, D.Normal, D.kl_divergence

    rng = random.Random(5)
    data = torch.tensor(
        [[float(rng.random() < 0.3) for _ in range(12)] for _ in range(8)]
    )
    torch.manual_seed(3)
    encoder = torch.nn.Linear(12, 4)
    decoder = torch.nn.Linear(2, 12)
    optimizer = torch.optim.SGD([*encoder.parameters(), *decoder.parameters()], lr=0.2)
    prior = Normal(torch.zeros(2), torch.ones(2))
    losses = []
    for _ in range(25):
        mu, log_var = encoder(data).chunk(2, dim=-1)
        posterior = Normal(mu, (0.5 * log_var).exp())
        z = posterior.rsample()
        reconstruction = Bernoulli(logits=decoder(z)).log_prob(data).sum(-1)
        kl = kl_divergence(posterior, prior).sum(-1)
        loss = (kl - reconstruction).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    samples = Bernoulli(logits=decoder(prior.sample((3,)))).sample()
    return {
        "losses": losses,
        "z_grad_fn": z.grad_fn.name(),
        "samples": samples.tolist(),
        "encoder_grad_norm": encoder.weight.grad.norm().item(),
    }
