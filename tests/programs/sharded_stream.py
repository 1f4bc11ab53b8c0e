"""An iterable data set read by several workers, each taking its own share.

The pattern of PyTorch's ``IterableDataset`` documentation: without
``get_worker_info()`` every worker would read the whole stream and each
sample would come back twice. Here each worker reads its shard, and a
linear model is fitted to the stream.
"""

from __future__ import annotations

import math
from typing import Any


def run(torch: Any) -> dict[str, Any]:
    data = torch.utils.data

    class Lines(data.IterableDataset):
        """Samples ``(x, 3x - 1)`` for ``x`` in ``start..end``, as from a file."""

        def __init__(self, start: int, end: int) -> None:
            self.start, self.end = start, end

        def __iter__(self) -> Any:
            info = data.get_worker_info()
            if info is None:
                first, last = self.start, self.end
            else:
                per_worker = math.ceil((self.end - self.start) / info.num_workers)
                first = self.start + info.id * per_worker
                last = min(first + per_worker, self.end)
            for i in range(first, last):
                x = i / 10
                yield torch.tensor([x]), torch.tensor([3 * x - 1])

    stream = Lines(0, 30)
    single = [x.view(-1).tolist() for x, _ in data.DataLoader(stream, batch_size=8)]
    loader = data.DataLoader(
        stream, batch_size=8, num_workers=2, persistent_workers=True
    )
    sharded = [x.view(-1).tolist() for x, _ in loader]
    model = torch.nn.Linear(1, 1)
    with torch.no_grad():
        model.weight.fill_(0.5)
        model.bias.fill_(0.0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for _epoch in range(6):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    seen = sorted(v for batch in sharded for v in batch)
    return {
        "single_process": single,
        "with_workers": sharded,
        "each_once": seen == sorted(v for batch in single for v in batch),
        "weight": model.weight.item(),
        "bias": model.bias.item(),
        "loss": loss.item(),
    }
