"""A character-level GPT on the course's names: heads split as views, a
causal mask made with ``tril`` and ``masked_fill(-inf)``, AdamW, sampling."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.programs import fill_parameters

NAMES_FILE = Path(__file__).resolve().parents[2] / "course" / "data" / "names.txt"


def read_names(count: int) -> list[str]:
    """The first ``count`` names of the course's data set."""
    return NAMES_FILE.read_text().split()[:count]


def run(torch: Any) -> dict[str, Any]:
    nn = torch.nn
    F = nn.functional
    rng = random.Random(2024)
    block_size, batch_size, n_embd, n_head, n_layer = 8, 32, 16, 2, 1
    steps, learning_rate = 5, 3e-3

    names = read_names(1000)
    stream = "." + ".".join(names) + "."
    alphabet = sorted(set(stream))
    to_index = {ch: i for i, ch in enumerate(alphabet)}
    vocab_size = len(alphabet)
    data = torch.tensor([to_index[ch] for ch in stream], dtype=torch.long)
    split = int(0.9 * len(data))
    train_data, val_data = data[:split], data[split:]

    def batch(part: Any) -> tuple[Any, Any]:
        starts = [rng.randrange(len(part) - block_size) for _ in range(batch_size)]
        x = torch.stack([part[s : s + block_size] for s in starts])
        y = torch.stack([part[s + 1 : s + block_size + 1] for s in starts])
        return x, y

    class SelfAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(n_embd, 3 * n_embd, bias=False)
            self.out = nn.Linear(n_embd, n_embd)
            self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))

        def forward(self, x: Any) -> Any:
            B, T, C = x.shape
            q, k, v = self.qkv(x).split(n_embd, dim=2)
            q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
            k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
            scores = q @ k.transpose(-2, -1) / (C // n_head) ** 0.5
            scores = scores.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
            weights = torch.softmax(scores, dim=-1)
            y = (weights @ v).transpose(1, 2).contiguous().view(B, T, C)
            return self.out(y)

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1 = nn.LayerNorm(n_embd)
            self.attn = SelfAttention()
            self.ln2 = nn.LayerNorm(n_embd)
            self.mlp = nn.Sequential(
                nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd)
            )

        def forward(self, x: Any) -> Any:
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tokens = nn.Embedding(vocab_size, n_embd)
            self.positions = nn.Embedding(block_size, n_embd)
            self.blocks = nn.Sequential(*[Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.head = nn.Linear(n_embd, vocab_size)

        def forward(self, idx: Any, targets: Any = None) -> tuple[Any, Any]:
            B, T = idx.shape
            x = self.tokens(idx) + self.positions(torch.arange(T))
            logits = self.head(self.ln_f(self.blocks(x)))
            if targets is None:
                return logits, None
            loss = F.cross_entropy(logits.view(B * T, -1), targets.view(B * T))
            return logits, loss

        @torch.no_grad()
        def generate(self, idx: Any, new_tokens: int) -> Any:
            for _ in range(new_tokens):
                logits, _ = self(idx[:, -block_size:])
                probs = F.softmax(logits[:, -1, :], dim=-1)
                idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
            return idx

    model = GPT()
    fill_parameters(torch, model, rng)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    losses = []
    for _ in range(steps):
        xb, yb = batch(train_data)
        _, loss = model(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        xv, yv = batch(val_data)
        val_loss = model(xv, yv)[1].item()
    sample = model.generate(torch.zeros((1, 1), dtype=torch.long), 12)
    return {
        "vocab_size": vocab_size,
        "n_params": sum(p.numel() for p in model.parameters()),
        "losses": losses,
        "val_loss": val_loss,
        "sample_shape": list(sample.shape),
        "sample_in_range": bool(((sample >= 0) & (sample < vocab_size)).all()),
    }
