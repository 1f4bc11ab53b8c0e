"""The same bigram model as a one-layer network trained by gradient descent."""

from __future__ import annotations

import random
from typing import Any

from tests.programs import NAMES, gauss


def run(torch: Any) -> dict[str, Any]:
    F = torch.nn.functional
    chars = sorted(set("".join(NAMES)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    n = len(stoi)

    xs, ys = [], []
    for w in NAMES:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            xs.append(stoi[ch1])
            ys.append(stoi[ch2])
    xs = torch.tensor(xs)
    ys = torch.tensor(ys)
    num = xs.nelement()

    W = gauss(torch, random.Random(2147483647), (n, n), 1.0).requires_grad_()
    losses = []
    for _ in range(15):
        xenc = F.one_hot(xs, num_classes=n).float()
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W**2).mean()
        losses.append(loss.item())
        W.grad = None
        loss.backward()
        W.data += -10 * W.grad

    picked = probs[range(num), ys]
    return {"losses": losses, "first_probs": picked[:5].tolist()}
