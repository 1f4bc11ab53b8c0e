"""Records what real PyTorch prints when it loads the file chapter 3 saves.

The book is built without PyTorch, so the chapter shows this record. Rerun
it (with torch and safetensors installed, from the repository root) after
changing ``tiny.py`` or the file format::

    python book/ch03/record_torch_load.py
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent)]

import safetensors  # noqa: E402
import safetensors.torch  # noqa: E402
import torch  # noqa: E402

import slowtorch_lib  # noqa: E402
from ch03.tiny import tiny_model  # noqa: E402

OUTPUT = HERE / "torch_load.json"


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tiny.safetensors"
        slowtorch_lib.save(tiny_model().state_dict(), path)
        data = path.read_bytes()
        loaded = safetensors.torch.load_file(str(path))
    x = torch.tensor([[1.0, -1.0], [0.5, 2.0]])
    x = x * loaded["input_scale"]
    hidden = (x @ loaded["hidden_weight"].T + loaded["hidden_bias"]).tanh()
    record = {
        "torch_version": torch.__version__,
        "safetensors_version": safetensors.__version__,
        "file_sha256": hashlib.sha256(data).hexdigest(),
        "file_bytes": len(data),
        "printed": {name: repr(tensor) for name, tensor in loaded.items()},
        "output_for_x": repr(hidden @ loaded["out_weight"].T),
    }
    OUTPUT.write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
