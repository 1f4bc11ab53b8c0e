"""A character-level MLP language model: embeddings, a hidden layer, minibatches."""

from __future__ import annotations

import random
from typing import Any

from tests.programs import NAMES, gauss


def run(torch: Any) -> dict[str, Any]:
    F = torch.nn.functional
    chars = sorted(set("".join(NAMES)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    vocab_size = len(stoi)
    block_size = 3

    def build_dataset(words: list[str]) -> tuple[Any, Any]:
        X, Y = [], []
        for w in words:
            context = [0] * block_size
            for ch in w + ".":
                ix = stoi[ch]
                X.append(context)
                Y.append(ix)
                context = context[1:] + [ix]
        return torch.tensor(X), torch.tensor(Y)

    Xtr, Ytr = build_dataset(NAMES[:26])
    Xdev, Ydev = build_dataset(NAMES[26:])

    rng = random.Random(2147483647)
    C = gauss(torch, rng, (vocab_size, 4), 1.0)
    W1 = gauss(torch, rng, (block_size * 4, 32), 0.3)
    b1 = gauss(torch, rng, (32,), 0.01)
    W2 = gauss(torch, rng, (32, vocab_size), 0.1)
    b2 = torch.zeros(vocab_size)
    parameters = [C, W1, b1, W2, b2]
    for p in parameters:
        p.requires_grad = True
    n_parameters = sum(p.nelement() for p in parameters)

    lre = torch.linspace(-2, 0, 30)
    lrs = 10**lre

    lossi = []
    for i in range(30):
        ix = torch.tensor([rng.randrange(Xtr.shape[0]) for _ in range(16)])
        emb = C[Xtr[ix]]
        h = torch.tanh(emb.view(-1, block_size * 4) @ W1 + b1)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Ytr[ix])
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = lrs[i]
        for p in parameters:
            p.data += -lr * p.grad
        lossi.append(loss.log10().item())

    @torch.no_grad()
    def split_loss(X: Any, Y: Any) -> float:
        emb = C[X]
        h = torch.tanh(emb.view(emb.shape[0], -1) @ W1 + b1)
        return F.cross_entropy(h @ W2 + b2, Y).item()

    g = torch.Generator().manual_seed(2147483647 + 10)
    lengths = []
    for _ in range(3):
        context = [0] * block_size
        out = []
        while len(out) < 20:
            emb = C[torch.tensor([context])]
            h = torch.tanh(emb.view(1, -1) @ W1 + b1)
            probs = F.softmax(h @ W2 + b2, dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0:
                break
        lengths.append(len(out))
    return {
        "n_parameters": n_parameters,
        "log10_losses": lossi,
        "learning_rates": lrs[:5].tolist(),
        "train_loss": split_loss(Xtr, Ytr),
        "dev_loss": split_loss(Xdev, Ydev),
        "samples_in_range": all(1 <= n <= 20 for n in lengths),
    }
