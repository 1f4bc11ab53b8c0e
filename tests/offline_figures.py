"""Runs a book page's code cells with matplotlib unimportable, as in the
in-browser course offline, and writes the figures it draws to a JSON file.

    python -m tests.offline_figures book/01_tensors.md figures.json

The cells run in order in an IPython shell (so ``display``, the last value of a
cell and ``get_ipython()`` behave as in a notebook); ``import matplotlib``
fails, as it does in the browser without its servers. Every figure that
``book/svg_plots.py`` draws (as a cell's value, through ``display`` or inside a
widget) is written once with its alt text and its SVG. A cell that raises stops the
run with its error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BOOK = Path(__file__).resolve().parents[1] / "book"


def main(page: str, target: str) -> None:
    import jupytext  # type: ignore[import-untyped]
    from IPython.core.interactiveshell import InteractiveShell

    sys.modules["matplotlib"] = None  # type: ignore[assignment]
    sys.path.insert(0, str(BOOK))
    import svg_plots

    drawn: dict[int, tuple[svg_plots.Figure, str]] = {}
    draw = svg_plots.Figure.svg

    def recorded(figure: svg_plots.Figure) -> str:
        text = draw(figure)
        drawn[id(figure)] = (figure, text)  # shown again, a figure counts once
        return text

    svg_plots.Figure.svg = recorded  # type: ignore[method-assign,assignment]
    shell = InteractiveShell.instance()
    notebook = jupytext.read(Path(page))
    for number, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        result = shell.run_cell(cell.source, silent=False)
        if not result.success:
            error = result.error_in_exec or result.error_before_exec
            raise SystemExit(f"cell {number} of {page} failed: {error!r}")
    figures = [
        {"alt": figure.alt or figure.describe(), "svg": text}
        for figure, text in drawn.values()
    ]
    Path(target).write_text(json.dumps(figures), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
