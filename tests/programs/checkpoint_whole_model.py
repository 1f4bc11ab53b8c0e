"""A small CNN with lazy layers, trained a few steps, saved whole with
``torch.save(model)`` and loaded back with ``weights_only=False`` (the
default refuses a whole model), as many older scripts checkpoint."""

from __future__ import annotations

import io
import pickle
from typing import Any


def run(torch: Any) -> dict[str, Any]:
    nn = torch.nn
    torch.manual_seed(0)
    images = torch.rand(12, 1, 6, 6)
    labels = (images.mean(dim=(1, 2, 3)) > 0.5).long()
    model = nn.Sequential(
        nn.LazyConv2d(4, 3, padding=1, bias=False),
        nn.LazyBatchNorm2d(),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.LazyLinear(2),
    )
    model(images[:2])
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(4):
        loss = nn.functional.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    buffer = io.BytesIO()
    torch.save(model, buffer)
    buffer.seek(0)
    try:
        torch.load(buffer)
        refused = False
    except pickle.UnpicklingError:
        refused = True
    buffer.seek(0)
    restored = torch.load(buffer, weights_only=False)
    model.eval()
    restored.eval()
    with torch.no_grad():
        same = torch.equal(model(images), restored(images))
    return {
        "losses": losses,
        "layers": [type(layer).__name__ for layer in restored],
        "refused by default": refused,
        "same outputs": same,
        "running mean": restored[1].running_mean.tolist(),
    }
