"""Records PyTorch's speed on the matrix product timed in chapter 1.

The chapter does not time PyTorch itself (it may run where PyTorch is not
installed, in the browser too): it reads these numbers from
``torch_reference.json``. Rerun this script (with PyTorch installed) to
refresh them::

    python book/ch01/record_torch_reference.py
"""

from __future__ import annotations

import json
import os
import platform
from datetime import datetime, timezone
from pathlib import Path

import torch
from timing import seconds_per_call

SIZE = 64  # the chapter multiplies two SIZE x SIZE float32 matrices
OUTPUT = Path(__file__).with_name("torch_reference.json")


def main() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    a = torch.randn(SIZE, SIZE)
    b = torch.randn(SIZE, SIZE)
    record = {
        "recorded_on": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "threads": torch.get_num_threads(),
        "size": SIZE,
        "dtype": "float32",
        "matmul_seconds": seconds_per_call(lambda: a @ b, repeat=5),
    }
    OUTPUT.write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
