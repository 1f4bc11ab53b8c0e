"""What the in-browser site serves as files: every chapter named in ``_toc.yml``
(converted by :mod:`sitebuild.notebooks`), the folders of helper modules next to
them, and every notebook in ``exercises/``, all with the browser kernel's name
(``python``); for a class site, the class edition's exercises and its welcome
page."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitebuild.notebooks import (
    copy_helpers,
    notebook_source,
    toc_files,
    write_notebook,
)
from sitebuild.paths import LITE, ROOT

#: A class site's welcome page: the page script opens it in JupyterLab when the
#: site's address is opened (lite/loading.js).
CLASS_WELCOME = LITE / "class_welcome.md"
CLASS_WELCOME_PAGE = "WELCOME.md"
#: The list of the site's notebooks, at the site's root.
LISTING = "lite-notebooks.json"


def write_contents(
    contents: Path, root: Path = ROOT, chapters: bool = True
) -> list[str]:
    """Every chapter and exercise notebook, as the lite site serves them: the
    exercises of ``root`` (a class edition's, for its site), the chapters unless
    not ``chapters`` (quoting the engine of ``root``)."""
    written: list[str] = []
    folders: set[Path] = set()
    sources = [notebook_source(entry) for entry in toc_files()] if chapters else []
    if root != ROOT:  # a class edition's exercise notebooks, not the book's
        sources = [s for s in sources if s and not s.is_relative_to(ROOT / "exercises")]
    sources += sorted((root / "exercises").glob("*.ipynb"))
    for source in dict.fromkeys(s for s in sources if s is not None):
        base = root if source.is_relative_to(root) else ROOT
        relative = source.relative_to(base).with_suffix(".ipynb")
        write_notebook(source, contents / relative, root=root)
        written.append(relative.as_posix())
        folders.add(source.parent)
    for folder in sorted(folders):
        base = root if folder.is_relative_to(root) else ROOT
        copy_helpers(folder, contents / folder.relative_to(base))
    if root != ROOT:  # a class site: its welcome page in place of the desktop's notes
        (contents / "exercises" / "README.md").unlink(missing_ok=True)
        welcome = CLASS_WELCOME.read_text(encoding="utf-8")
        (contents / CLASS_WELCOME_PAGE).write_text(
            welcome + exercise_table(class_pieces(root)), encoding="utf-8"
        )
    return written


def write_listing(output: Path, notebooks: list[str]) -> None:
    """The notebooks the site serves (``lite-notebooks.json``, which tests
    read), at the site's root: outside the files, so the file browser does not
    list it."""
    (output / LISTING).write_text(json.dumps(notebooks, indent=1) + "\n")


@dataclass(frozen=True)
class ClassPiece:
    """An exercise's piece in a class edition, as its welcome page lists it."""

    id: str
    name: str
    notebook: str  # "exercises/01_arrays_to_tensors.ipynb"
    given: bool

    @property
    def file(self) -> str:
        """Where a check that passes saves it (``course.saved_pieces``)."""
        return f"exercises/my_engine/ex{self.id.replace('.', '_')}_{self.name}.py"


def class_pieces(root: Path) -> list[ClassPiece]:
    """The pieces of the class edition in ``root`` and whether the teacher gave
    them, read from its engine's table (``slowtorch_lib/_class/__init__.py``,
    written by ``course.edition``) without importing it."""
    table = root / "slowtorch_lib" / "_class" / "__init__.py"
    tree = ast.parse(table.read_text(encoding="utf-8"))
    values: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
    given = set(ast.literal_eval(values["GIVEN"]))
    pieces = []
    for call in values["PIECES"].values:
        id_, name, _, notebook = (ast.literal_eval(a) for a in call.args)
        pieces.append(ClassPiece(id_, name, notebook, id_ in given))
    return pieces


#: The welcome page's table of exercises: the page script (``lite/loading.js``)
#: fills in each one's state from the browser's storage.
STATE_HEADER = "| Exercise | Piece | Notebook | State |"


def exercise_table(pieces: list[ClassPiece]) -> str:
    """The welcome page's part that names the given pieces and lists every
    exercise, with the state a student starts from."""
    given = [p for p in pieces if p.given]
    lines = ["", "## Where you stand", ""]
    if given:
        named = ", ".join(f"{p.id} `{p.name}`" for p in given)
        lines.append(
            f"**Your teacher gave {len(given)} of the {len(pieces)} pieces**: "
            f"{named}. The engine has them already; you may still write them."
        )
    else:
        lines.append(
            f"**Your teacher gave no piece**: you write all {len(pieces)} of them."
        )
    lines += [
        "",
        "Each exercise's state, read from this browser's storage when this page "
        "opens: *not started* (its notebook was never saved here), *saved* (its "
        "notebook was saved, the check has not passed yet), *all right* (its check "
        "passed every public case and saved the piece in `exercises/my_engine/`), "
        "*given* (your teacher's piece, in use until you write your own).",
        "",
        STATE_HEADER,
        "| --- | --- | --- | --- |",
    ]
    for p in pieces:
        state = "given" if p.given else "not started"
        lines.append(f"| {p.id} | `{p.name}` | `{p.notebook}` | {state} |")
    return "\n".join(lines) + "\n"
