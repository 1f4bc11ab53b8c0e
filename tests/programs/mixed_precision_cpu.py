"""The automatic mixed precision recipe, run on a machine without a GPU.

Tutorials write it for CUDA: a ``GradScaler`` and ``autocast`` around the
forward pass. Without a GPU PyTorch disables both with a warning and the
loop trains in float32; the "cpu" scaler really scales the loss. The
program records the warnings' categories and trains with both scalers.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

from tests.programs import fill_parameters, gauss


def train(torch: Any, scaler: Any, use_amp: bool) -> tuple[list[float], Any]:
    rng = random.Random(11)
    x = gauss(torch, rng, (32, 4), 1.0)
    y = (x.sum(dim=1, keepdim=True) > 0).float()
    model = torch.nn.Sequential(
        torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)
    )
    fill_parameters(torch, model, rng)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.3)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    losses = []
    for _ in range(8):
        with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
            output = model(x)
            loss = loss_fn(output, y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
    return losses, output.dtype


def run(torch: Any) -> dict[str, Any]:
    use_amp = True
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cuda_scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
        cuda_losses, dtype = train(torch, cuda_scaler, use_amp)
        old_style = torch.cuda.amp.GradScaler()
    cpu_scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=3)
    cpu_losses, _ = train(torch, cpu_scaler, use_amp=False)
    return {
        "warnings": sorted({w.category.__name__ for w in caught}),
        "cuda_scaler_enabled": cuda_scaler.is_enabled(),
        "old_style_enabled": old_style.is_enabled(),
        "cuda_losses": cuda_losses,
        "output_dtype": str(dtype),
        "cpu_losses": cpu_losses,
        "cpu_scale": cpu_scaler.get_scale(),
        "cpu_state": cpu_scaler.state_dict(),
    }
