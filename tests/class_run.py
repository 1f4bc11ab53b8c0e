"""Runs a notebook's code cells as a student's kernel would, without Jupyter.

``python tests/class_run.py NOTEBOOK`` runs every code cell of the notebook in
one namespace, in the current folder, each cell registered with ``linecache``
under its own file name as IPython does (so that a check can read an answer's
source back), and prints one JSON object: for each code cell its id, what it
printed and the error it raised (a cell that raises does not stop the rest).
The class edition's tests run it with the edition's folder first on
``PYTHONPATH`` and the exercises' folder as the current folder.
"""

from __future__ import annotations

import contextlib
import io
import json
import linecache
import sys
from pathlib import Path
from typing import Any


def run(notebook: Path) -> list[dict[str, Any]]:
    cells = json.loads(notebook.read_text("utf-8"))["cells"]
    namespace: dict[str, Any] = {"__name__": "__main__"}
    done = []
    for number, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        name = f"<cell {number}>"
        linecache.cache[name] = (len(source), None, source.splitlines(True), name)
        printed = io.StringIO()
        error = None
        with contextlib.redirect_stdout(printed):
            try:
                exec(compile(source, name, "exec"), namespace)  # noqa: S102
            except Exception as raised:  # noqa: BLE001  (reported, as Jupyter would)
                error = f"{type(raised).__name__}: {raised}"
        done.append(
            {"id": cell.get("id"), "output": printed.getvalue(), "error": error}
        )
    return done


if __name__ == "__main__":
    sys.stdout.write(json.dumps(run(Path(sys.argv[1]))) + "\n")
