"""A next-character model on the course's names built from PyTorch's own
layers: ``nn.MultiheadAttention`` with a bool causal mask, then an
``nn.TransformerEncoder`` of pre-norm GELU layers with the float causal mask
of ``nn.Transformer.generate_square_subsequent_mask``."""

from __future__ import annotations

import random
from typing import Any

from tests.programs import fill_parameters
from tests.programs.names_gpt import read_names


def run(torch: Any) -> dict[str, Any]:
    nn = torch.nn
    rng = random.Random(7)
    block, batch_size, width, heads, steps = 8, 32, 16, 2, 4

    words = read_names(500)
    chars = ["."] + sorted(set("".join(words)))
    index = {c: i for i, c in enumerate(chars)}
    contexts, targets = [], []
    for word in words:
        context = [0] * block
        for ch in word + ".":
            contexts.append(context)
            targets.append(index[ch])
            context = context[1:] + [index[ch]]
    X = torch.tensor(contexts)
    Y = torch.tensor(targets)

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(len(chars), width)
            self.place = nn.Parameter(torch.zeros(block, width))
            self.attn = nn.MultiheadAttention(width, heads, batch_first=True)
            layer = nn.TransformerEncoderLayer(
                width,
                heads,
                dim_feedforward=2 * width,
                dropout=0.0,
                activation="gelu",
                batch_first=True,
                norm_first=True,
            )
            self.encoder = nn.TransformerEncoder(
                layer, num_layers=1, enable_nested_tensor=False
            )
            self.norm = nn.LayerNorm(width)
            self.out = nn.Linear(width, len(chars))
            self.register_buffer(
                "hidden", torch.triu(torch.ones(block, block, dtype=torch.bool), 1)
            )

        def forward(self, x: Any) -> tuple[Any, Any]:
            h = self.embed(x) + self.place
            attended, weights = self.attn(h, h, h, attn_mask=self.hidden)
            h = h + attended
            mask = nn.Transformer.generate_square_subsequent_mask(block)
            h = self.encoder(h, mask=mask, is_causal=True)
            return self.out(self.norm(h)), weights

    model = Model()
    fill_parameters(torch, model, rng)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    losses = []
    for _ in range(steps):
        rows = torch.tensor([rng.randrange(len(X)) for _ in range(batch_size)])
        logits, weights = model(X[rows])
        loss = nn.functional.cross_entropy(logits[:, -1, :], Y[rows])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {
        "losses": losses,
        "weights_shape": list(weights.shape),
        "first_row_weight": weights[0, 0, 0].item(),
        "state_dict_keys": sorted(model.state_dict()),
    }
