"""Records what real PyTorch does for chapter 5.

The chapter may run where PyTorch is not installed, so it shows this record:
PyTorch's run of the chapter's CNN (from the engine's initial weights, on
the same batches), and the facts its section "How PyTorch does it" states
(which kernel a CPU convolution runs, channels-last strides, the backward
node). Rerun it (with torch installed) after changing ``cnn.py``::

    python book/ch05/record_torch_cnn.py
"""

from __future__ import annotations

import json
import os
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent)]

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.profiler import profile  # noqa: E402

import slowtorch_lib  # noqa: E402
from ch05.cnn import EPOCHS, initial_state, make_cnn, run  # noqa: E402

OUTPUT = HERE / "torch_cnn.json"


def kernels(dtype: torch.dtype) -> list[str]:
    """The aten operators one CPU conv2d of ``dtype`` runs."""
    x = torch.ones(2, 3, 8, 8, dtype=dtype)
    w = torch.ones(4, 3, 3, 3, dtype=dtype)
    with profile() as prof:
        F.conv2d(x, w)
    return sorted({event.name for event in prof.events()})


def claims() -> dict[str, Any]:
    x = torch.ones(2, 3, 8, 8, requires_grad=True)
    w = torch.ones(4, 3, 3, 3, requires_grad=True)
    out = F.conv2d(x, w, torch.zeros(4, requires_grad=True))
    last = torch.zeros(2, 3, 8, 8).to(memory_format=torch.channels_last)
    return {
        "mkldnn_available": torch.backends.mkldnn.is_available(),
        "kernels_float32": kernels(torch.float32),
        "kernels_float64": kernels(torch.float64),
        "grad_fn": out.grad_fn.name(),
        "grad_fn_inputs": [
            None if f is None else f.name() for f, _ in out.grad_fn.next_functions
        ],
        "channels_last_stride": list(last.stride()),
        "channels_last_out": F.conv2d(last, w.detach()).is_contiguous(
            memory_format=torch.channels_last
        ),
    }


def main() -> None:
    torch.set_num_threads(1)
    _, initial = initial_state(slowtorch_lib)
    model = make_cnn(torch)
    model.load_state_dict({k: torch.tensor(v) for k, v in initial.items()})
    losses, accuracies, seconds = run(torch, model)
    record = {
        "torch_version": torch.__version__,
        "recorded_on": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "machine": f"{platform.system()} {platform.machine()}, 1 thread",
        "cpu_count": os.cpu_count(),
        "epochs": EPOCHS,
        "losses": losses,
        "accuracies": accuracies,
        "seconds": [round(s, 3) for s in seconds],
        "claims": claims(),
    }
    OUTPUT.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
