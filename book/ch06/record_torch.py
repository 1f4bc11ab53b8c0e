"""Records chapter 6's PyTorch run of the tiny GPT, for the page to read.

The page does not import torch: it shows this record beside the engine's
run (the losses, the validation loss, the names), with the machine and the
date, and the validation loss of a longer run that the page has no time
for. Rerun it (with torch installed) after changing ``gpt.py``::

    python book/ch06/record_torch.py
"""

from __future__ import annotations

import json
import os
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent)]

import torch  # noqa: E402

import slowtorch_lib  # noqa: E402
from ch06 import gpt  # noqa: E402
from course.datasets import load_names  # noqa: E402

OUTPUT = HERE / "torch_run.json"
LONG_STEPS = 2000


def main() -> None:
    torch.set_num_threads(1)
    train_stream, val_stream = gpt.streams(load_names())
    weights = {
        k: torch.tensor(v) for k, v in gpt.initial_weights(slowtorch_lib).items()
    }
    runs = [gpt.train(torch, weights, train_stream) for _ in range(3)]
    model, losses, _ = runs[0]
    seconds = min(run[2] for run in runs)
    longer, _, _ = gpt.train(torch, weights, train_stream, LONG_STEPS)
    record = {
        "recorded_on": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "torch_version": torch.__version__,
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "threads": torch.get_num_threads(),
        "steps": len(losses),
        "losses": losses,
        "seconds_per_step": seconds / len(losses),
        "validation_loss": gpt.validation_loss(torch, model, val_stream),
        "names": gpt.generate(torch, model),
        "long_steps": LONG_STEPS,
        "long_validation_loss": gpt.validation_loss(torch, longer, val_stream),
        "long_names": gpt.generate(torch, longer),
    }
    OUTPUT.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
