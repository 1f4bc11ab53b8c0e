"""Records the epilogue's PyTorch run, for builds without PyTorch installed.

The epilogue runs the name generator on PyTorch when it can import torch,
and otherwise shows this record: the losses, the generated names, the time
per step, and the measurements of ``overhead.py``, with the machine and the
date. Rerun it (with torch installed) after changing ``names.py``::

    python book/epilogue_files/record_torch.py
"""

from __future__ import annotations

import json
import os
import platform
import random
import sys
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent)]

import torch  # noqa: E402
from ch01.timing import seconds_per_call  # noqa: E402

import slowtorch_lib  # noqa: E402
from course.datasets import load_names  # noqa: E402
from epilogue_files import names, overhead  # noqa: E402

OUTPUT = HERE / "torch_run.json"


def main() -> None:
    torch.set_num_threads(1)
    data = names.examples(load_names())
    batches = names.draw_batches(len(data[0]))
    weights = {
        k: torch.tensor(v) for k, v in names.initial_weights(slowtorch_lib).items()
    }
    # The same run three times (the same losses each time): the fastest is
    # the least disturbed by whatever else the machine was doing.
    runs = [names.train(torch, weights, data, batches) for _ in range(3)]
    model, losses, _ = runs[0]
    seconds = min(run[2] for run in runs)
    record = {
        "recorded_on": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "torch_version": torch.__version__,
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "threads": torch.get_num_threads(),
        "losses": losses,
        "seconds_per_step": seconds / len(batches),
        "sample_loss": names.sample_loss(torch, model, data),
        "names": names.generate(torch, model),
        **overhead.overhead_numbers(torch),
        "operations_per_step": overhead.operations_per_step(torch, names),
    }
    random.seed(0)
    square = [[random.gauss(0, 1) for _ in range(64)] for _ in range(64)]
    b = torch.tensor(square)
    record["matmul_64_seconds"] = seconds_per_call(lambda: b @ b)
    OUTPUT.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
