"""Which notebooks are whose: the folders ``python -m course grade`` reads.

A class is a folder with one folder per student (``CLASS/<student>/``, as
``python -m course collect`` writes), each holding that student's chapter
notebooks. Anything else is refused with what was expected, never guessed:
a notebook or a folder of loose notebooks (a student's own folder, or a flat
download) would otherwise make each notebook a "student" of its own. With
``--student NAME``, every notebook given (or found in the folders given) is
that one student's: the way to grade one's own ``exercises/``.

A folder whose name is not valid UTF-8 is graded too: its student is shown
with the bytes escaped (``M\\xfcller``), and a note says so.
"""

from __future__ import annotations

import os
from pathlib import Path

EXPECTED = (
    "grade reads a class folder with one folder per student "
    "(CLASS/<student>/NN_name.ipynb, as `python -m course collect` writes)"
)


class LayoutError(ValueError):
    """The paths given are not a class this can tell the students of."""


def notebooks_in(folder: Path) -> list[Path]:
    """The notebooks under ``folder``, checkpoints and hidden files left out."""
    return sorted(
        p
        for p in folder.rglob("*.ipynb")
        if ".ipynb_checkpoints" not in p.parts
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )


def shown(name: str) -> str:
    """A folder's name as text: undecodable bytes escaped (``\\xfc``)."""
    raw = os.fsencode(name)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="backslashreplace")


def submissions(
    paths: list[Path], student: str | None = None
) -> tuple[list[tuple[Path, str]], dict[str, list[str]]]:
    """``(notebook, student)`` pairs, and notes per student.

    Raises:
        LayoutError: If a path is not a class folder (and no ``student``).
    """
    found: list[tuple[Path, str]] = []
    notes: dict[str, list[str]] = {}
    if student is not None:
        for path in paths:
            mine = notebooks_in(path) if path.is_dir() else [path]
            found += [(notebook, student) for notebook in mine]
        return found, notes
    for path in paths:
        if not path.is_dir():
            raise LayoutError(
                f"{path} is a notebook, not a class folder: {EXPECTED}. To grade "
                "notebooks as one student's, pass --student NAME."
            )
        everything = notebooks_in(path)
        loose = [p.name for p in everything if p.parent == path]
        if loose:
            listed = ", ".join(shown(n) for n in loose[:3])
            more = f" and {len(loose) - 3} more" if len(loose) > 3 else ""
            raise LayoutError(
                f"{path} holds notebooks directly ({listed}{more}): {EXPECTED}. "
                "If it is one student's folder, pass the folder that holds the "
                "students' folders; to grade these notebooks as one student's, "
                "pass --student NAME."
            )
        for notebook in everything:
            folder = notebook.relative_to(path).parts[0]
            name = shown(folder)
            if name != folder:
                notes.setdefault(name, [f"the folder's name is not UTF-8: {name}"])
            found.append((notebook, name))
    return found, notes
