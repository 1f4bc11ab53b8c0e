"""A class edition's chapter keeps the book's outputs where the student's engine
lacks a piece (course/book_outputs.py), run in a real Jupyter kernel."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from course import book_outputs

ROOT = Path(__file__).resolve().parents[1]

STUB = (
    "def missing():\n"
    "    raise NotImplementedError(\n"
    "        'exercise 2.9, `topological_order`, is not written yet: '\n"
    "        'exercises/02_walking_backwards.ipynb')"
)
CELLS = [
    ("from course import book_outputs\nbook_outputs.keep('chapter')", []),
    ("print('live')\n1 + 1", []),
    ("1 / 0", [{"output_type": "stream", "name": "stdout", "text": "book: 1/0"}]),
    (STUB, []),
    (
        "value = missing()\nvalue",
        [
            {"output_type": "stream", "name": "stdout", "text": "book printed\n"},
            {
                "output_type": "execute_result",
                "execution_count": 4,
                "metadata": {},
                "data": {"text/plain": "42"},
            },
        ],
    ),
    ("value + 1", [{"output_type": "stream", "name": "stdout", "text": "book: 43\n"}]),
    ("2 * 3", [{"output_type": "stream", "name": "stdout", "text": "book: 6\n"}]),
]


def notebook(cells: list[tuple[str, list[dict[str, Any]]]]) -> dict[str, Any]:
    return {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": f"c{i}",
                "metadata": {},
                "outputs": outputs,
                "source": source,
            }
            for i, (source, outputs) in enumerate(cells)
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def run(folder: Path, cells: list[str]) -> list[list[dict[str, Any]]]:
    """Runs cells in a fresh kernel started in ``folder``, as Run All would
    (errors recorded, the run going on); each cell's outputs."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    written = nbformat.from_dict(notebook([(source, []) for source in cells]))
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path]))
    client = nbclient.NotebookClient(
        written,
        timeout=120,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute(env=environment)
    return [cell["outputs"] for cell in written.cells]


def texts(outputs: list[dict[str, Any]]) -> list[str]:
    shown = []
    for output in outputs:
        if output["output_type"] == "stream":
            shown.append(output["text"])
        elif output["output_type"] == "error":
            shown.append(f"error {output['ename']}")
        else:
            shown.append(output["data"].get("text/plain", ""))
    return shown


@pytest.fixture(scope="module")
def chapter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("chapters")
    (folder / book_outputs.BOOK_VERSION).mkdir()
    book = folder / book_outputs.BOOK_VERSION / "chapter.ipynb"
    book.write_text(json.dumps(notebook(CELLS)), encoding="utf-8")
    return folder


@pytest.mark.slow
def test_a_missing_piece_shows_the_books_output_and_run_all_goes_on(
    chapter: Path,
) -> None:
    ran = run(chapter, [source for source, _ in CELLS])
    # A cell that runs is live, and shows its value as usual.
    assert texts(ran[1]) == ["live\n", "2"]
    # An error that is no missing piece is raised as usual.
    assert texts(ran[2]) == ["error ZeroDivisionError"]
    # The piece is missing: a note naming it, then the book's outputs.
    note, *shown = texts(ran[4])
    assert "exercise 2.9, `topological_order`" in note
    assert "exercises/02_walking_backwards.ipynb" in note
    assert shown == ["book printed\n", "42"]
    # What the cell would have defined is missing: the book's output again.
    note, *shown = texts(ran[5])
    assert note.startswith("The book's output") and "an earlier cell" in note
    assert shown == ["book: 43\n"]
    # Cells that run go on running live.
    assert texts(ran[6]) == ["6"]


@pytest.mark.slow
def test_a_cell_the_student_changed_runs_as_written(chapter: Path) -> None:
    cells = [CELLS[0][0], STUB, "value = missing()  # mine\nvalue"]
    ran = run(chapter, cells)
    assert texts(ran[2]) == ["error NotImplementedError"]


@pytest.mark.slow
def test_a_malformed_book_version_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / book_outputs.BOOK_VERSION).mkdir()
    book = tmp_path / book_outputs.BOOK_VERSION / "chapter.ipynb"
    book.write_text('{"cells": [{"cell_type": "code", "source": 5}', encoding="utf-8")
    ran = run(tmp_path, [CELLS[0][0] + "\nprint('kept')", STUB, "missing()"])
    assert texts(ran[0]) == ["kept\n"]
    assert texts(ran[2]) == ["error NotImplementedError"]


def test_outputs_are_read_as_data_only(tmp_path: Path) -> None:
    path = tmp_path / "chapter.ipynb"
    path.write_text(json.dumps(notebook(CELLS)), encoding="utf-8")
    found = book_outputs.book_outputs(path)
    assert found[book_outputs.digest("value + 1\n")] == CELLS[5][1]
    for broken in ["", "[]", '{"cells": 3}', '{"cells": [1, {"cell_type": 2}]}']:
        path.write_text(broken, encoding="utf-8")
        assert book_outputs.book_outputs(path) == {}


def test_restore_puts_the_books_version_back(chapter: Path) -> None:
    (chapter / "chapter.ipynb").write_text("the student's", encoding="utf-8")
    book_outputs.restore("chapter", chapter)
    kept = chapter / book_outputs.BOOK_VERSION / "chapter.ipynb"
    assert (chapter / "chapter.ipynb").read_bytes() == kept.read_bytes()


def test_the_missing_piece_is_found_through_chained_errors() -> None:
    try:
        try:
            raise NotImplementedError(
                "exercise 1.5, `contiguous_strides`, is not written yet: "
                "exercises/01_arrays_to_tensors.ipynb"
            )
        except NotImplementedError as error:
            raise RuntimeError("while printing") from error
    except RuntimeError as error:
        found = book_outputs.missing_piece(error)
    assert found == (
        "1.5",
        "`contiguous_strides`",
        "exercises/01_arrays_to_tensors.ipynb",
    )
    assert book_outputs.missing_piece(NotImplementedError("other")) is None
