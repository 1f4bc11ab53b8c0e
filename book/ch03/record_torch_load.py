"""Records what real PyTorch does with the files chapter 3 saves.

The chapter may run where PyTorch is not installed, so it shows this record.
The script builds the chapter's model with slowtorch_lib, saves its state
dict in PyTorch's format and in safetensors, loads both files with PyTorch
(``torch.load`` with its default, ``weights_only=True``, and
``safetensors.torch.load_file``), and tries to load the chapter's hostile
checkpoint. Rerun it (with torch and safetensors installed) after changing
``tiny.py``, ``hostile.py`` or a file format::

    python book/ch03/record_torch_load.py
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent)]

import safetensors  # noqa: E402
import safetensors.torch  # noqa: E402
import torch  # noqa: E402

import slowtorch_lib  # noqa: E402
from ch03.hostile import hostile_checkpoint  # noqa: E402
from ch03.tiny import tiny_model  # noqa: E402
from slowtorch_lib import safetensors as engine_safetensors  # noqa: E402

OUTPUT = HERE / "torch_load.json"


def file_record(data: bytes, loaded: dict) -> dict:
    return {
        "sha256": hashlib.sha256(data).hexdigest(),
        "printed": {name: repr(tensor) for name, tensor in loaded.items()},
    }


def refusal(path: Path) -> str:
    """The lines of torch.load's error that say what it refused, and why."""
    try:
        torch.load(path)
    except Exception as error:  # the record shows whatever torch raises
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(error))
        lines = [line.strip() for line in text.splitlines()]
        kept = [line for line in lines if line.startswith(("(1)", "WeightsUnpickler"))]
        return f"{type(error).__name__}: " + " ".join(kept)
    raise AssertionError("torch.load ran the hostile file")


def main() -> None:
    state = tiny_model().state_dict()
    with tempfile.TemporaryDirectory() as folder:
        pt, st = Path(folder) / "tiny.pt", Path(folder) / "tiny.safetensors"
        slowtorch_lib.save(state, pt)
        engine_safetensors.save_file(state, st)
        from_pt = torch.load(pt)
        from_st = safetensors.torch.load_file(str(st))
        hostile = hostile_checkpoint(pt, Path(folder) / "hostile.pt")
        files = {
            "torch.load": file_record(pt.read_bytes(), from_pt),
            "safetensors": file_record(st.read_bytes(), from_st),
        }
        hostile_error = refusal(hostile)
    x = torch.tensor([[1.0, -1.0], [0.5, 2.0]]) * from_pt["input_scale"]
    hidden = (x @ from_pt["hidden_weight"].T + from_pt["hidden_bias"]).tanh()
    record = {
        "recorded_on": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "torch_version": torch.__version__,
        "safetensors_version": safetensors.__version__,
        "files": files,
        "hostile_error": hostile_error,
        "output_for_x": repr(hidden @ from_pt["out_weight"].T),
    }
    OUTPUT.write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
