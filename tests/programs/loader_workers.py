"""A training loop fed by DataLoader worker processes, as the tutorials set it up.

The device is chosen at the top with ``torch.accelerator``; the data set
builds each sample on demand (as one that reads files would), and two
persistent workers, seeded per worker by ``worker_init_fn``, prepare the
batches while the model trains.
"""

from __future__ import annotations

import random
from typing import Any

from tests.programs import fill_parameters


def seed_worker(worker_id: int) -> None:
    """The recipe of PyTorch's reproducibility notes."""
    import sys

    torch = sys.modules.get("torch") or sys.modules["slowtorch_lib"]
    info = torch.utils.data.get_worker_info()
    if info is None:  # the engine's workers run slowtorch_lib
        info = sys.modules["slowtorch_lib"].utils.data.get_worker_info()
    random.seed(info.seed % 2**32)


def run(torch: Any) -> dict[str, Any]:
    nn = torch.nn
    data = torch.utils.data
    device = (
        torch.accelerator.current_accelerator().type
        if torch.accelerator.is_available()
        else "cpu"
    )
    rng = random.Random(3)
    points = [[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(96)]

    class Rings(data.Dataset):
        """A point and whether it lies inside the unit circle's half radius."""

        def __len__(self) -> int:
            return len(points)

        def __getitem__(self, i: int) -> tuple[Any, Any]:
            x, y = points[i]
            inside = int(x * x + y * y < 0.5)
            return torch.tensor([x, y]), inside

    loader = data.DataLoader(
        Rings(),
        batch_size=16,
        num_workers=2,
        persistent_workers=True,
        prefetch_factor=2,
        worker_init_fn=seed_worker,
        pin_memory=False,
    )
    model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2)).to(device)
    fill_parameters(torch, model, rng)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _epoch in range(3):
        for features, labels in loader:
            features, labels = features.to(device), labels.to(device)
            loss = loss_fn(model(features), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    first_batch = next(iter(loader))
    return {
        "device": device,
        "batches": len(loader),
        "losses": losses,
        "first_labels": first_batch[1].tolist(),
        "label_dtype": str(first_batch[1].dtype),
    }
