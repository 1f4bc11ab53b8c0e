"""A character-level LSTM over names of different lengths, as a tutorial on
sequence models writes it: padded batches packed for the LSTM, gradient
clipping, Adadelta, then a few L-BFGS steps on a GRU cell's regression."""

from __future__ import annotations

import random
from typing import Any

from tests.programs import NAMES, fill_parameters, gauss


def run(torch: Any) -> dict[str, Any]:
    nn = torch.nn
    F = torch.nn.functional
    pack_padded_sequence = torch.nn.utils.rnn.pack_padded_sequence
    pad_packed_sequence = torch.nn.utils.rnn.pad_packed_sequence
    pad_sequence = torch.nn.utils.rnn.pad_sequence

    chars = ["."] + sorted(set("".join(NAMES)))
    stoi = {c: i for i, c in enumerate(chars)}

    class NameModel(nn.Module):
        """Predicts each next character of a name from the ones before."""

        def __init__(self, vocab: int, embed: int, hidden: int) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, embed)
            self.lstm = nn.LSTM(
                embed, hidden, num_layers=2, batch_first=True, dropout=0.0
            )
            self.head = nn.Linear(hidden, vocab)

        def forward(self, tokens: Any, lengths: list[int]) -> Any:
            packed = pack_padded_sequence(
                self.embed(tokens), lengths, batch_first=True, enforce_sorted=False
            )
            output, (h_n, c_n) = self.lstm(packed)
            padded, _ = pad_packed_sequence(output, batch_first=True)
            return self.head(padded), h_n

    names = NAMES[:6]
    inputs = [torch.tensor([stoi[c] for c in "." + name]) for name in names]
    targets = [torch.tensor([stoi[c] for c in name + "."]) for name in names]
    lengths = [len(name) + 1 for name in names]
    tokens = pad_sequence(inputs, batch_first=True)
    labels = pad_sequence(targets, batch_first=True, padding_value=-100)

    model = NameModel(len(chars), 6, 8)
    fill_parameters(torch, model, random.Random(7))
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    losses, norms = [], []
    for _ in range(4):
        logits, h_n = model(tokens, lengths)
        loss = F.cross_entropy(
            logits.reshape(-1, len(chars)), labels.reshape(-1), ignore_index=-100
        )
        optimizer.zero_grad()
        loss.backward()
        norms.append(nn.utils.clip_grad_norm_(model.parameters(), 1.0).item())
        optimizer.step()
        losses.append(loss.item())

    # A GRU cell fitted by L-BFGS to map three steps of inputs to a target.
    cell = nn.GRUCell(3, 4)
    fill_parameters(torch, cell, random.Random(3))
    xs = gauss(torch, random.Random(5), (3, 2, 3), 1.0)
    goal = gauss(torch, random.Random(6), (2, 4), 0.5).tanh()
    lbfgs = torch.optim.LBFGS(
        cell.parameters(), max_iter=5, history_size=4, line_search_fn="strong_wolfe"
    )

    def closure() -> Any:
        lbfgs.zero_grad()
        h = torch.zeros(2, 4)
        for x in xs:
            h = cell(x, h)
        error = ((h - goal) ** 2).mean()
        error.backward()
        return error

    fitted = [lbfgs.step(closure).item() for _ in range(3)]
    return {
        "losses": losses,
        "clipped_norms": norms,
        "padded_shape": list(tokens.shape),
        "final_state_shape": list(h_n.shape),
        "lbfgs_losses": fitted,
        "parameter_names": [n for n, _ in model.named_parameters()],
        "repr": repr(model.lstm),
    }
