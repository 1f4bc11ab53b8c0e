"""Records the epilogue's PyTorch run, for builds without PyTorch installed.

The epilogue runs the name generator on PyTorch when it can import torch,
and otherwise shows this record. Rerun it (with torch installed, from the
repository root) after changing ``names.py``::

    python book/epilogue_files/record_torch.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent)]

import torch  # noqa: E402

import slowtorch_lib  # noqa: E402
from course.datasets import load_names  # noqa: E402
from epilogue_files import names  # noqa: E402

OUTPUT = HERE / "torch_run.json"


def main() -> None:
    torch.set_num_threads(1)
    data = names.examples(load_names())
    batches = names.draw_batches(len(data[0]))
    weights = {
        k: torch.tensor(v) for k, v in names.initial_weights(slowtorch_lib).items()
    }
    model, losses, seconds = names.train(torch, weights, data, batches)
    record = {
        "torch_version": torch.__version__,
        "losses": losses,
        "seconds_per_step": seconds / len(batches),
        "names": names.generate(torch, model),
    }
    OUTPUT.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
