"""REINFORCE on a five-armed bandit: a policy from ``torch.distributions``.

The policy's actions are drawn with ``Categorical.sample`` after
``manual_seed``, so both libraries draw the same actions and learn the same
policy; the loss is ``-log_prob(action) * advantage``.
"""

from __future__ import annotations

from typing import Any

PAYOFFS = [0.1, 0.5, 0.9, 0.3, 0.2]


def run(torch: Any) -> dict[str, Any]:
    Categorical = torch.distributions.Categorical

    torch.manual_seed(0)
    policy = torch.nn.Linear(1, len(PAYOFFS))
    optimizer = torch.optim.Adam(policy.parameters(), lr=0.1)
    state = torch.ones(16, 1)
    rewards_per_step = []
    for _ in range(30):
        dist = Categorical(logits=policy(state))
        actions = dist.sample()
        noise = torch.rand(16)
        rewards = (noise < torch.tensor(PAYOFFS)[actions]).float()
        advantage = rewards - rewards.mean()
        loss = (
            -(dist.log_prob(actions) * advantage).mean() - 0.01 * dist.entropy().mean()
        )
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        rewards_per_step.append(rewards.mean().item())
    final = Categorical(logits=policy(torch.ones(1, 1)))
    return {
        "first_actions": Categorical(logits=policy(state)).sample((3,)).tolist(),
        "rewards": rewards_per_step,
        "probs": final.probs.tolist(),
        "best_arm": final.probs.argmax().item(),
        "entropy": final.entropy().item(),
        "grad_fn": loss.grad_fn.name(),
    }
