"""A checkpoint that runs code when a full unpickler loads it (chapter 3).

It is harmless: the code it names is ``print``. The chapter builds it to
show what ``weights_only`` refuses, and ``record_torch_load.py`` builds the
same one to record what PyTorch says about it.
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path


class Greeting:
    """An object that asks to be unpickled by calling ``print``."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("This line was printed by the file being loaded.",))


HOSTILE_PICKLE = pickle.dumps({"weight": Greeting()}, protocol=2)


def hostile_checkpoint(original: Path, target: Path) -> Path:
    """A copy of the ``torch.save`` archive ``original`` whose pickle is hostile."""
    with zipfile.ZipFile(original) as source, zipfile.ZipFile(target, "w") as copy:
        for info in source.infolist():
            is_pickle = info.filename.endswith("/data.pkl")
            copy.writestr(info, HOSTILE_PICKLE if is_pickle else source.read(info))
    return target
