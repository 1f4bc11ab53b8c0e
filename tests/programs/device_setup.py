"""The set-up block at the top of many training scripts, then a short run.

Which device, whether several GPUs (``DataParallel``) or several processes
(``torch.distributed``) are in play, cuDNN flags for speed or determinism,
TF32 matmuls: on a CPU-only machine each question has PyTorch's answer, and
the script trains on the CPU.
"""

from __future__ import annotations

import random
from typing import Any

import tests.programs as shared


def run(torch: Any) -> dict[str, Any]:
    if torch.cuda.is_available():
        device = torch.device("cuda")
    elif torch.backends.mps.is_available():
        device = torch.device("mps")
    else:
        device = torch.device("cpu")
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    distributed = (
        torch.distributed.is_available() and torch.distributed.is_initialized()
    )
    rng = random.Random(2)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    model.append(torch.nn.Linear(4, 1))
    shared.fill_parameters(torch, model, rng)
    if torch.cuda.device_count() > 1:
        model = torch.nn.DataParallel(model)
    wrapped = torch.nn.DataParallel(model)  # as scripts that always wrap
    model = model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    x = shared.gauss(torch, rng, (20, 3), 1.0)
    y = x[:, :1] * 2 - x[:, 1:2]
    for _ in range(10):
        loss = torch.nn.functional.mse_loss(wrapped(x.to(device)), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    torch.backends.cuda.matmul.allow_tf32 = False
    return {
        "device": str(device),
        "accelerator": torch.accelerator.is_available(),
        "accelerators": torch.accelerator.device_count(),
        "distributed": distributed,
        "cudnn": torch.backends.cudnn.is_available(),
        "state_keys": list(wrapped.state_dict()),
        "loss": loss.item(),
    }
