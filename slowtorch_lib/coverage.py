"""Which of PyTorch's public names the engine has: ``python -m slowtorch_lib.coverage``.

Before a program stops at a missing name, this says what is there. For
``torch``, ``torch.nn``, ``torch.nn.functional``, ``torch.optim``,
``torch.utils.data``, the methods of ``Tensor`` and ``torch.distributions``,
it lists the public names of PyTorch that the engine has and lacks, with
counts.

PyTorch's names come from PyTorch itself when it is installed, otherwise
from ``torch_names.json`` beside this file, which ``--record`` writes (run
it with PyTorch installed to bring the list up to date). Only the standard
library is used; PyTorch is imported only if present.

Usage::

    python -m slowtorch_lib.coverage             # counts, and what is missing
    python -m slowtorch_lib.coverage --have      # also what is there
    python -m slowtorch_lib.coverage torch.nn    # one namespace only
    python -m slowtorch_lib.coverage --record    # save PyTorch's names
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import textwrap
from pathlib import Path
from typing import Any

__all__ = ["coverage", "main", "torch_names"]

RECORD = Path(__file__).with_name("torch_names.json")
NAMESPACES = (
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.optim",
    "torch.utils.data",
    "torch.Tensor",
    "torch.distributions",
)


def public_names(obj: Any) -> list[str]:
    """A module's ``__all__`` (or its names without a leading ``_``)."""
    names = getattr(obj, "__all__", None)
    if names is None or isinstance(obj, type):
        names = dir(obj)
    return sorted({name for name in names if not name.startswith("_")})


def _resolve(path: str, root: str) -> Any:
    """``torch.nn`` (or, with root ``slowtorch_lib``, the engine's ``nn``)."""
    parts = path.split(".")
    obj: Any = importlib.import_module(root)
    for part in parts[1:]:
        obj = getattr(obj, part)
    return obj


def torch_names() -> tuple[dict[str, list[str]], str]:
    """PyTorch's public names per namespace, and where they came from."""
    if importlib.util.find_spec("torch") is not None:
        torch = importlib.import_module("torch")  # only if installed
        names = {path: public_names(_resolve(path, "torch")) for path in NAMESPACES}
        return names, f"PyTorch {torch.__version__} (installed)"
    recorded = json.loads(RECORD.read_text())
    return recorded["names"], f"PyTorch {recorded['version']} (recorded list)"


def coverage(names: dict[str, list[str]]) -> dict[str, tuple[list[str], list[str]]]:
    """For each namespace, the names the engine has and those it lacks."""
    result = {}
    for path, wanted in names.items():
        engine = _resolve(path, "slowtorch_lib")
        have = [name for name in wanted if hasattr(engine, name)]
        lack = [name for name in wanted if not hasattr(engine, name)]
        result[path] = (have, lack)
    return result


def _record() -> None:
    torch = importlib.import_module("torch")  # recording needs it installed

    names = {path: public_names(_resolve(path, "torch")) for path in NAMESPACES}
    text = json.dumps({"version": torch.__version__, "names": names}, indent=1)
    RECORD.write_text(text + "\n")
    print(f"recorded {sum(map(len, names.values()))} names into {RECORD.name}")


def main(argv: list[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m slowtorch_lib.coverage")
    parser.add_argument("namespaces", nargs="*", choices=[[], *NAMESPACES])
    parser.add_argument("--have", action="store_true", help="list what is there")
    parser.add_argument("--record", action="store_true", help="save torch's names")
    args = parser.parse_args(argv)
    if args.record:
        _record()
        return
    names, source = torch_names()
    print(f"PyTorch's public names, from {source}, that slowtorch_lib has:\n")
    chosen = args.namespaces or list(NAMESPACES)
    found = coverage({path: names[path] for path in chosen})
    for path, (have, lack) in found.items():
        total = len(have) + len(lack)
        share = 100 * len(have) / total if total else 100.0
        print(f"{path:22} {len(have):5} of {total:5}  ({share:5.1f}%)")
    for path, (have, lack) in found.items():
        for title, listed in (("has", have if args.have else []), ("lacks", lack)):
            if listed:
                print(f"\n{path} {title} ({len(listed)}):")
                print(
                    textwrap.fill(
                        ", ".join(listed),
                        88,
                        initial_indent="  ",
                        subsequent_indent="  ",
                    )
                )


if __name__ == "__main__":
    main()
