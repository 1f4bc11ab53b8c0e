"""Reading a submitted notebook defensively (writing the course's: course.notebooks).

Whatever is in the file, a note.

A notebook is read as plain JSON (JupyterLab, Jupyter Notebook and
JupyterLite files alike), never executed and never trusted: each field of the
wrong shape (a cell that is not an object, a ``source`` that is not text,
``metadata`` that is a list, ``tags`` that are a number...) is skipped with a
note naming the file, so that one submission never stops the class.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course.parsing import parse

MAX_BYTES = 20 * 2**20
MAX_CELLS = 5000
MAX_SOURCE = 1 * 2**20
TAG = re.compile(r"^(exercise|check)-(\d+)[.-](\d+)$")


class NotANotebook(ValueError):
    """The file cannot be read as a notebook at all."""


@dataclass
class Cell:
    """A cell as the grader uses it."""

    number: int  # its position among all cells
    kind: str
    source: str
    tags: list[str]
    id: str


@dataclass
class Notebook:
    """What the grader takes from a notebook file, and the notes on it."""

    cells: list[Cell]
    chapter_name: str = ""
    notes: list[str] = field(default_factory=list)


def read(path: Path) -> Notebook:
    """The notebook at ``path``.

    Raises:
        NotANotebook: If it is a symbolic link, too large, not JSON, or has
            no list of cells.
    """
    if path.is_symlink():
        raise NotANotebook("a symbolic link (refused: submit the file itself)")
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise NotANotebook(f"too large ({size} bytes; at most {MAX_BYTES})")
        data = path.read_bytes()
    except OSError as error:
        raise NotANotebook(f"cannot be read ({error.strerror})") from None
    try:
        raw = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError) as error:
        raise NotANotebook(f"not a notebook (not JSON: {error})") from None
    except RecursionError:
        raise NotANotebook("not a notebook (JSON nested too deeply)") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("cells"), list):
        raise NotANotebook("not a notebook (no list of cells)")
    notebook = Notebook([])
    metadata = raw.get("metadata", {})
    if not isinstance(metadata, dict):
        notebook.notes.append("the notebook's metadata is not an object; ignored")
        metadata = {}
    course = metadata.get("course", {})
    if not isinstance(course, dict):
        notebook.notes.append("metadata.course is not an object; ignored")
    elif isinstance(course.get("chapter"), str):
        notebook.chapter_name = course["chapter"][:100]
    cells = raw["cells"]
    if len(cells) > MAX_CELLS:
        notebook.notes.append(f"{len(cells)} cells; only the first {MAX_CELLS} read")
    for number, cell in enumerate(cells[:MAX_CELLS]):
        read_cell = _cell(number, cell, notebook.notes)
        if read_cell is not None:
            notebook.cells.append(read_cell)
    return notebook


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _cell(number: int, cell: Any, notes: list[str]) -> Cell | None:
    where = f"cell {number + 1}"
    if not isinstance(cell, dict):
        notes.append(f"{where} is not an object; skipped")
        return None
    kind = cell.get("cell_type")
    if not isinstance(kind, str):
        notes.append(f"{where} has no cell_type; skipped")
        return None
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        source = "".join(source)
    if not isinstance(source, str):
        notes.append(f"{where}: its source is not text; read as empty")
        source = ""
    if len(source) > MAX_SOURCE:
        notes.append(f"{where}: its source is over {MAX_SOURCE} characters; cut")
        source = source[:MAX_SOURCE]
    metadata = cell.get("metadata", {})
    if not isinstance(metadata, dict):
        notes.append(f"{where}: its metadata is not an object; ignored")
        metadata = {}
    tags = metadata.get("tags", [])
    if not isinstance(tags, list):
        notes.append(f"{where}: its tags are not a list; ignored")
        tags = []
    text_tags = [t for t in tags if isinstance(t, str)]
    if len(text_tags) != len(tags):
        notes.append(f"{where}: a tag that is not text; ignored")
    identifier = cell.get("id", "")
    return Cell(
        number,
        kind,
        source,
        text_tags[:50],
        identifier[:200] if isinstance(identifier, str) else "",
    )


def roles(cell: Cell) -> list[tuple[str, str]]:
    """``[(role, exercise id)]`` from a cell's tags, else from its id."""
    found = []
    for text in [*cell.tags, cell.id]:
        match = TAG.match(text)
        if match:
            found.append((match.group(1), f"{match.group(2)}.{match.group(3)}"))
        if found:
            break
    return found


def defines(source: str, name: str) -> bool:
    """Whether the cell defines ``name`` at its top level (from its text)."""
    try:
        tree = parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return True
    return False


def answer_cells(
    notebook: Notebook, exercises: list[tuple[str, str]]
) -> tuple[dict[str, str], list[str]]:
    """The source of each exercise's answer cell (``exercises``: ``(id, name)``),
    and notes on the layout."""
    code = [c for c in notebook.cells if c.kind == "code"]
    tagged: dict[str, list[Cell]] = {}
    where: dict[tuple[str, str], int] = {}
    for position, cell in enumerate(code):
        for role, exercise in roles(cell):
            where.setdefault((role, exercise), position)
            if role == "exercise":
                tagged.setdefault(exercise, []).append(cell)
    found: dict[str, str] = {}
    notes = []
    for exercise, name in exercises:
        cells = tagged.get(exercise, [])
        if len(cells) > 1:
            chosen = next((c for c in reversed(cells) if defines(c.source, name)), None)
            chosen = chosen or cells[-1]
            numbers = ", ".join(str(c.number + 1) for c in cells)
            notes.append(
                f"exercise {exercise}: {len(cells)} cells carry its tag (cells "
                f"{numbers}); graded cell {chosen.number + 1}, the last that "
                f"defines {name}"
            )
            found[exercise] = chosen.source
        elif cells:
            found[exercise] = cells[0].source
        else:
            for cell in code:
                if defines(cell.source, name):
                    found[exercise] = cell.source
                    notes.append(
                        f"exercise {exercise}: its cell lost its tag; found it "
                        f"by the name {name}"
                    )
                    break
        if ("check", exercise) not in where:
            notes.append(
                f"exercise {exercise}: its check cell is missing (deleted?); "
                "the grade does not depend on it"
            )
        elif ("exercise", exercise) in where and where[("check", exercise)] < where[
            ("exercise", exercise)
        ]:
            notes.append(
                f"exercise {exercise}: the check cell was moved above the "
                "answer; the grade does not depend on it"
            )
    return found, notes
