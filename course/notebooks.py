"""Writing the chapters' notebooks from sources (submitted ones: notebook_reader).

One py:percent file per chapter makes two notebooks.

A chapter's source is ``course/sources/NN_name.py`` in jupytext's percent
format (``# %%`` starts a code cell, ``# %% [markdown]`` a text cell). In code
cells, a solution region is marked by two comment lines::

    def contiguous_strides(shape):
        # BEGIN SOLUTION
        ...the answer...
        # END SOLUTION

``exercises/NN_name.ipynb`` gets the region replaced by
``raise NotImplementedError`` (or by the code written after a ``|``:
``# BEGIN SOLUTION | pass``), and no outputs. ``solutions/NN_name.ipynb``
keeps the code without the marker lines and is executed, outputs stored.
A prediction's answer line ends with ``# ANSWER``: ``"x.t()": "view",  # ANSWER``
becomes ``"x.t()": ...,`` in the exercise (the value may sit on its own line).

An exercise is two tagged code cells: ``# %% tags=["exercise-1.1"]`` (the stub)
and ``# %% tags=["check-1.1"]`` (``check("1.1", answer)``). Grading matches
cells by these tags, which also give the cells their ids. Every other cell gets
an id from its position, so regenerating gives byte-identical files.

The chapter's plan (:mod:`course.plan`) is put second in every notebook and
the setup cell (:data:`SETUP`, which imports ``torch`` and ``check``)
third, so sources use those names without importing them;
a ``# ruff: noqa: F821`` line at the top tells the linter so. Lines starting
with ``# ruff:`` are left out of the notebooks, and so are empty cells.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jupytext
import nbformat
from nbclient import NotebookClient

from course import plan

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "course" / "sources"
EXERCISES_DIR = ROOT / "exercises"
SOLUTIONS_DIR = ROOT / "solutions"

BEGIN = re.compile(r"^(\s*)# BEGIN SOLUTION\s*(?:\|\s*(.*))?$")
END = re.compile(r"^\s*# END SOLUTION\s*$")
ANSWER = re.compile(r"^(\s*(?:.*:\s+)?)(.+?),\s*# ANSWER\s*$")
TAG = re.compile(r"^(exercise|check)-(\d+\.\d+)$")

SETUP = """\
# Run this cell first: it imports the engine (as torch) and the checks.
import pathlib
import sys

try:
    import slowtorch_lib as torch
    from course import check
except ModuleNotFoundError:
    # Not installed: look for a checkout of the course above this folder.
    for folder in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents]:
        if (folder / "course" / "checks").is_dir():
            sys.path.insert(0, str(folder))
            break
    try:
        import slowtorch_lib as torch
        from course import check
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "This notebook needs the course's engine and checks, which this kernel "
            "cannot import. In the course's folder run `bash scripts/build-book.sh` "
            "once, start JupyterLab with `.venv/bin/jupyter lab`, choose the kernel "
            "'Python 3 (ipykernel)'; or run `pip install -e PATH/TO/THE/COURSE` in the "
            "environment of this kernel. Then run this cell again."
        ) from None\
"""

KERNELSPEC = {
    "display_name": "Python 3 (ipykernel)",
    "language": "python",
    "name": "python3",
}


@dataclass
class Chapter:
    """One chapter's source and the two notebooks made from it."""

    source: Path

    @property
    def name(self) -> str:
        return self.source.stem

    @property
    def exercise_path(self) -> Path:
        return EXERCISES_DIR / f"{self.name}.ipynb"

    @property
    def solution_path(self) -> Path:
        return SOLUTIONS_DIR / f"{self.name}.ipynb"


def chapters() -> list[Chapter]:
    """Every chapter with a source, in order."""
    return [Chapter(path) for path in sorted(SOURCES.glob("[0-9][0-9]_*.py"))]


def split_solutions(code: str) -> tuple[str, str, list[str]]:
    """The exercise and solution versions of a code cell, and the solution lines.

    Raises:
        ValueError: If the markers are unbalanced.
    """
    exercise: list[str] = []
    solution: list[str] = []
    hidden: list[str] = []
    inside = False
    for line in code.split("\n"):
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if inside:
                raise ValueError(f"nested '# BEGIN SOLUTION': {line!r}")
            inside = True
            indent, stub = begin.group(1), begin.group(2) or "raise NotImplementedError"
            exercise.append(indent + stub)
        elif end:
            if not inside:
                raise ValueError("'# END SOLUTION' without '# BEGIN SOLUTION'")
            inside = False
        elif inside:
            solution.append(line)
            hidden.append(line)
        elif ANSWER.match(line):
            answer = ANSWER.match(line)
            assert answer is not None
            exercise.append(answer.group(1) + "...,")
            solution.append(answer.group(1) + answer.group(2) + ",")
            hidden.append(answer.group(1) + answer.group(2) + ",")
        else:
            exercise.append(line)
            solution.append(line)
    if inside:
        raise ValueError("'# BEGIN SOLUTION' without '# END SOLUTION'")
    return "\n".join(exercise), "\n".join(solution), hidden


def without_lint(text: str) -> str:
    """``text`` without the ``# ruff: ...`` lines meant for the linter."""
    return "\n".join(
        line for line in text.split("\n") if not line.startswith("# ruff:")
    )


def cell_id(tags: list[str], number: int) -> str:
    """``exercise-1-1`` for a tagged cell, ``cell-7`` otherwise (ids allow no dots)."""
    for tag in tags:
        if TAG.match(tag) or tag in ("setup", "plan"):
            return tag.replace(".", "-")
    return f"cell-{number}"


def read_source(chapter: Chapter) -> Any:
    return jupytext.reads(chapter.source.read_text(encoding="utf-8"), fmt="py:percent")


def answer_lines(chapter: Chapter) -> dict[str, int]:
    """Lines of model answer per exercise id: the non-blank lines of its
    solution regions, and one per prediction."""
    lines = {}
    for cell in read_source(chapter).cells:
        tags = cell.metadata.get("tags", [])
        ids = [t.removeprefix("exercise-") for t in tags if t.startswith("exercise-")]
        if cell.cell_type == "code" and ids:
            hidden = split_solutions(cell.source)[2]
            lines[ids[0]] = sum(1 for line in hidden if line.strip())
    return lines


def build(chapter: Chapter) -> tuple[Any, Any]:
    """The exercise notebook and the (not yet executed) solution notebook:
    the source's cells, with the chapter's plan after the title and then the
    setup cell."""
    cells = [
        (cell.cell_type, without_lint(cell.source), list(cell.metadata.get("tags", [])))
        for cell in read_source(chapter).cells
        if without_lint(cell.source).strip()
    ]
    chapter_plan = plan.markdown(int(chapter.name[:2]), answer_lines(chapter))
    cells[1:1] = [("markdown", chapter_plan, ["plan"]), ("code", SETUP, ["setup"])]
    notebooks = []
    for kind in ("exercises", "solutions"):
        notebook = nbformat.v4.new_notebook()
        notebook.metadata = metadata(chapter, kind)
        for number, (cell_type, text, tags) in enumerate(cells):
            if cell_type == "markdown":
                cell = nbformat.v4.new_markdown_cell(text)
            else:
                exercise_text, solution_text, _ = split_solutions(text)
                cell = nbformat.v4.new_code_cell(
                    exercise_text if kind == "exercises" else solution_text
                )
            cell.id = cell_id(tags, number)
            if tags:
                cell.metadata["tags"] = tags
            notebook.cells.append(cell)
        notebooks.append(notebook)
    return notebooks[0], notebooks[1]


def metadata(chapter: Chapter, kind: str) -> dict[str, Any]:
    return {
        "course": {"chapter": chapter.name, "kind": kind},
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
    }


def kernel_environment() -> None:
    """Lets kernels started from here import the engine and the course."""
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if str(ROOT) not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, paths)])


def execute(notebook: Any, chapter: Chapter, folder: Path) -> Any:
    """Runs the notebook in a fresh kernel, in ``folder``, and tidies the result."""
    kernel_environment()
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    notebook.metadata = metadata(chapter, "solutions")
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    return notebook


def merge_streams(outputs: list[Any]) -> list[Any]:
    """Joins consecutive pieces of the same stream: the kernel may send one
    printed line in several messages, and the stored file must not depend on it."""
    merged: list[Any] = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.output_type == "stream"
            and previous is not None
            and previous.output_type == "stream"
            and previous.name == output.name
        ):
            previous.text += output.text
        else:
            merged.append(output)
    return merged


def dumps(notebook: Any) -> str:
    nbformat.validate(notebook)
    return nbformat.writes(notebook, version=4) + "\n"


def render(chapter: Chapter) -> dict[Path, str]:
    """The text of both notebooks of a chapter, the solution executed."""
    exercise, solution = build(chapter)
    execute(solution, chapter, SOLUTIONS_DIR)
    return {
        chapter.exercise_path: dumps(exercise),
        chapter.solution_path: dumps(solution),
    }


def generate(check: bool = False) -> list[Path]:
    """Writes every notebook, or with ``check`` only lists the stale ones.

    Returns:
        The notebooks that were (or, with ``check``, would be) changed.
    """
    changed = []
    for chapter in chapters():
        for path, text in render(chapter).items():
            old = path.read_text(encoding="utf-8") if path.exists() else None
            if old != text:
                changed.append(path)
                if not check:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(text, encoding="utf-8")
    return changed
