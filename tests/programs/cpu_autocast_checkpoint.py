"""Mixed precision on the CPU, then a checkpoint with NumPy arrays in it.

The forward pass runs under ``torch.autocast("cpu")``: the linear layers
compute in bfloat16, the loss in float32, and the float32 parameters get
float32 gradients. The program then saves its parameters with its loss
history as NumPy arrays (``torch.save``), loads them back with
``weights_only=False``, and records that the default weights-only load
refuses the file.
"""

from __future__ import annotations

import io
import pickle
import random
from typing import Any

from tests.programs import fill_parameters, gauss


def run(torch: Any) -> dict[str, Any]:
    import numpy as np

    rng = random.Random(29)
    x = gauss(torch, rng, (16, 6), 1.0)
    y = torch.tensor([i % 3 for i in range(16)])
    model = torch.nn.Sequential(
        torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3)
    )
    fill_parameters(torch, model, rng)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(4):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            logits = model(x)
            loss = torch.nn.functional.cross_entropy(logits, y)
            inside = torch.is_autocast_enabled("cpu")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    grad_dtypes = sorted({str(p.grad.dtype) for p in model.parameters()})

    buffer = io.BytesIO()
    checkpoint = {
        "model": model.state_dict(),
        "losses": np.array(losses, dtype=np.float32),
        "step": np.int64(len(losses)),
    }
    torch.save(checkpoint, buffer)
    loaded = torch.load(io.BytesIO(buffer.getvalue()), weights_only=False)
    try:
        torch.load(io.BytesIO(buffer.getvalue()))
        refusal = "loaded"
    except pickle.UnpicklingError as error:
        refusal = str(error).split(".")[0]
    return {
        "losses": losses,
        "logits_dtype": str(logits.dtype),
        "loss_dtype": str(loss.dtype),
        "autocast_inside": inside,
        "autocast_after": torch.is_autocast_enabled("cpu"),
        "grad_dtypes": grad_dtypes,
        "saved_losses": loaded["losses"].tolist(),
        "saved_losses_dtype": str(loaded["losses"].dtype),
        "step": int(loaded["step"]),
        "weight": loaded["model"]["2.weight"].view(-1).tolist(),
        "weights_only_load": refusal,
    }
