"""The book's outputs in a class edition's chapters, until the student's engine
can make its own.

In a class edition the engine's exercise pieces are stubs until the student
writes them, so a chapter's cell that reaches one cannot run. Its first cell
calls :func:`keep`, and from then on, in that kernel, a cell of the chapter
as the book wrote it that fails because a piece is missing shows the book's
output instead (the outputs of the chapter's book version, run on the
complete engine, which the edition keeps in ``book_version/``), under a note
that says so and names the exercise that makes the cell live. The cell then
counts as run, so Run All goes on, and the notebook keeps the book's outputs
however often it is run, saved or reloaded. A later cell that fails after
such a cell (a name it would have defined is missing) shows the book's
output too. Every other error is raised as usual, and a cell the student
has changed runs as written.

Cells are known by their text: a cell's SHA-256 picks its outputs from the
book version. Nothing here runs code from a file: the outputs are data.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["BOOK_VERSION", "keep", "restore"]

#: The folder beside the chapters that holds each chapter as the book has it.
BOOK_VERSION = "book_version"
MISSING = re.compile(r"exercise (\d+\.\d+), (`\w+`)[^:]*is not written yet: (\S+)")
NOTE = (
    "The book's output, run on the complete engine: this cell needs "
    "exercise {id}, {name} ({where}), which your engine does not have yet. "
    "It runs on your engine once you have written it."
)
LATER_NOTE = (
    "The book's output, run on the complete engine: an earlier cell needs "
    "exercise {id}, {name} ({where}), and this one needs what it makes."
)
#: Output types a kernel can show again as they are (widgets need their models).
SHOWN = ("text/html", "image/svg+xml", "image/png", "text/markdown", "text/plain")


@dataclass
class _Chapter:
    """What the kernel knows of the chapter it runs."""

    outputs: dict[str, list[dict[str, Any]]]
    cell: str | None = None  # the digest of the cell that is running
    missing: tuple[str, str, str] | None = None  # the first piece found missing
    fell_back: set[str] = field(default_factory=set)


def digest(source: str) -> str:
    """A cell's identity: the SHA-256 of its text."""
    return hashlib.sha256(source.strip().encode("utf-8")).hexdigest()


def book_outputs(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Each code cell's outputs in a chapter notebook, by the cell's digest."""
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        cells = notebook["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    found: dict[str, list[dict[str, Any]]] = {}
    for cell in cells if isinstance(cells, list) else []:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        outputs = cell.get("outputs")
        found[digest(text)] = outputs if isinstance(outputs, list) else []
    return found


def missing_piece(error: BaseException) -> tuple[str, str, str] | None:
    """The exercise whose stub raised ``error`` (or an error it caused):
    its number, its piece's name and its notebook."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, NotImplementedError):
            found = MISSING.search(str(current))
            if found:
                return found.group(1), found.group(2), found.group(3)
        current = current.__cause__ or current.__context__
    return None


def _show(outputs: list[dict[str, Any]], note: str) -> None:
    """Shows the note, then the book's outputs, as the kernel's own, in place
    of what the cell showed before it failed."""
    # lazily: IPython exists only in a notebook's kernel
    from IPython.display import clear_output, publish_display_data

    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:  # a figure the cell began: the book's is shown instead
        pyplot.close("all")
    clear_output()
    publish_display_data(
        {
            "text/plain": note,
            "text/html": (
                '<div style="border-left:4px solid #1a5fb4;padding:4px 10px;'
                f'background:#eef3fb;font-size:90%">&#128214; {_html(note)}</div>'
            ),
        }
    )
    for output in outputs:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            stream = sys.stderr if output.get("name") == "stderr" else sys.stdout
            text = output.get("text", "")
            stream.write("".join(text) if isinstance(text, list) else str(text))
            stream.flush()
        elif kind in ("display_data", "execute_result"):
            data = output.get("data") or {}
            kept = {k: _joined(v) for k, v in data.items() if k in SHOWN}
            if kept:
                publish_display_data(kept, output.get("metadata") or {})
        elif kind == "error":
            lines = output.get("traceback") or []
            sys.stderr.write("\n".join(str(line) for line in lines) + "\n")
            sys.stderr.flush()


def _joined(value: Any) -> Any:
    return "".join(value) if isinstance(value, list) else value


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class _Guard(ast.NodeTransformer):
    """Runs a chapter's cell inside ``try``, so that a missing piece shows the
    book's output; the last expression's value is still displayed."""

    def __init__(self, chapter: _Chapter) -> None:
        self.chapter = chapter

    def visit_Module(self, node: ast.Module) -> ast.Module:
        if self.chapter.cell is None or not node.body:
            return node
        body = list(node.body)
        future = [s for s in body if isinstance(s, ast.ImportFrom)]
        if any(s.module == "__future__" for s in future):
            return node
        last = body[-1]
        if isinstance(last, ast.Expr):  # shown as IPython shows a cell's value
            hook = ast.Name("_slowtorch_sys", ast.Load())
            show = ast.Attribute(hook, "displayhook", ast.Load())
            body[-1] = ast.Expr(ast.Call(show, [last.value], []))
            body.insert(0, ast.Import([ast.alias("sys", "_slowtorch_sys")]))
        fall_back = ast.Attribute(
            ast.Name("_slowtorch_book", ast.Load()), "fall_back", ast.Load()
        )
        shown = ast.Call(fall_back, [ast.Name("_slowtorch_error", ast.Load())], [])
        handler = ast.ExceptHandler(  # a bare raise keeps the error's traceback
            type=ast.Name("Exception", ast.Load()),
            name="_slowtorch_error",
            body=[ast.If(ast.UnaryOp(ast.Not(), shown), [ast.Raise()], [])],
        )
        guarded = ast.Try(body=body, handlers=[handler], orelse=[], finalbody=[])
        found = ast.parse(
            f"_slowtorch_book = __import__({__name__!r}, fromlist=['_active'])._active"
        )
        module = ast.Module(body=[*found.body, guarded], type_ignores=[])
        return ast.fix_missing_locations(ast.copy_location(module, node))


class _Active:
    """The kernel's chapter, reached from the guarded cells."""

    chapter: _Chapter | None = None
    folder: Path | None = None  # the chapters' folder, where the kernel started

    @classmethod
    def fall_back(cls, error: BaseException) -> bool:
        """Shows the book's output for a cell that failed for want of a piece.

        Returns:
            Whether it did; if not, the cell raises ``error`` as usual.
        """
        chapter = cls.chapter
        if chapter is None or chapter.cell is None:
            return False
        missing = missing_piece(error)
        if missing is None and chapter.missing is None:
            return False
        outputs = chapter.outputs.get(chapter.cell)
        if outputs is None:
            return False
        if missing is not None:
            chapter.missing = chapter.missing or missing
            note = NOTE
        else:
            missing, note = chapter.missing, LATER_NOTE
        assert missing is not None
        number, name, where = missing
        chapter.fell_back.add(chapter.cell)
        _show(outputs, note.format(id=number, name=name, where=where))
        return True


_active = _Active


def keep(chapter: str, folder: Path | None = None) -> int:
    """Shows the book's outputs for this kernel's cells of ``chapter`` (a
    notebook's name without ``.ipynb``) that fail for want of a piece.

    Returns:
        The number of the chapter's cells that have book outputs (0 outside
        IPython, or without the book version).
    """
    try:
        from IPython import get_ipython  # lazily: only a kernel has IPython
    except ImportError:
        return 0
    shell = get_ipython()
    if shell is None:
        return 0
    folder = folder or Path.cwd()
    outputs = book_outputs(folder / BOOK_VERSION / f"{chapter}.ipynb")
    state = _Chapter(outputs)
    _Active.chapter, _Active.folder = state, folder

    def before(info: Any) -> None:
        source = getattr(info, "raw_cell", None) or ""
        key = digest(source)
        state.cell = key if key in state.outputs else None

    for old in [f for f in shell.events.callbacks["pre_run_cell"] if _ours(f)]:
        shell.events.unregister("pre_run_cell", old)
    before.slowtorch_book_outputs = True  # type: ignore[attr-defined]
    shell.events.register("pre_run_cell", before)
    shell.ast_transformers[:] = [
        t for t in shell.ast_transformers if not isinstance(t, _Guard)
    ] + [_Guard(state)]
    return len(outputs)


def _ours(function: Any) -> bool:
    return bool(getattr(function, "slowtorch_book_outputs", False))


def restore(chapter: str, folder: Path | None = None) -> Path:
    """Puts ``chapter`` back as the book has it (the notebook in the chapters'
    folder, from its book version). Reload the notebook in JupyterLab afterwards.

    Raises:
        FileNotFoundError: If there is no book version of ``chapter``.
    """
    folder = folder or _Active.folder or Path.cwd()
    source = folder / BOOK_VERSION / f"{chapter}.ipynb"
    target = folder / f"{chapter}.ipynb"
    target.write_bytes(source.read_bytes())
    return target
