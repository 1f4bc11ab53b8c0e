"""Data kept in NumPy (a memory-mapped file), batches picked with NumPy
indices, a checkpoint with NumPy arrays loaded with ``weights_only=False``.

As in programs that prepare their data with NumPy before they train: the
features live in a ``numpy.memmap`` on disk, ``torch.from_numpy`` turns
them into tensors, and each batch is chosen with a NumPy index array.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any

from tests.programs import fill_parameters


def run(torch: Any) -> dict[str, Any]:
    import random

    import numpy as np

    rng = random.Random(5)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "features.dat"
        features = np.memmap(path, dtype="float32", mode="w+", shape=(40, 3))
        features[:] = [[rng.uniform(-1, 1) for _ in range(3)] for _ in range(40)]
        targets = features @ np.array([1.5, -2.0, 0.5], dtype="float32") + 0.25
        x = torch.from_numpy(features)
        y = torch.from_numpy(np.ascontiguousarray(targets)).unsqueeze(1)
        del features

    model = torch.nn.Linear(3, 1)
    fill_parameters(torch, model, rng)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    order = np.arange(40)
    losses = []
    for epoch in range(15):
        np.random.default_rng(epoch).shuffle(order)
        for start in range(0, 40, 10):
            batch = order[start : start + 10]
            loss = torch.nn.functional.mse_loss(model(x[batch]), y[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        losses.append(loss.item())
    big = x[np.abs(x.numpy()[:, 0]) > 0.9]

    # What torch.save writes for a checkpoint with NumPy arrays (written by
    # torch itself when it is installed), read back with the full unpickler.
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    state = torch.load(io.BytesIO(buffer.getvalue()), weights_only=False)
    return {
        "losses": losses,
        "rows_with_big_first_feature": big.shape[0],
        "weight": state["weight"].view(-1).tolist(),
        "bias": state["bias"].item(),
        "state_keys": list(state),
    }
