"""Saving a student's pieces as files and loading them into the engine (engine side).

Its course-side look-alike, :mod:`course.workspace`, is what a check says and
does about them. The pieces of the engine a student has written are saved in
their workspace.

In a class edition (``python -m course release``) each exercise's piece of
the engine is a stub. When a check passes all of an exercise's public cases,
the student's piece is saved into the workspace, a folder ``my_engine/``
beside the exercise notebooks, one readable file per exercise::

    my_engine/ex2_9_topological_order.py

and from then on the engine puts it in place of the stub each time it is
imported, in every notebook. The workspace is found

1. in the folder named by the environment variable ``SLOWTORCH_WORKSPACE``;
2. else as ``my_engine/`` (or ``exercises/my_engine/``) in the current folder
   or in the nearest folder above it that has one. A Jupyter kernel starts in
   its notebook's folder, and so does JupyterLite's (its files live under
   ``/drive``, kept in the browser's storage with the notebooks), so the
   notebooks of ``exercises/`` all find ``exercises/my_engine/``.

A check that passes with no workspace found makes ``my_engine/`` in the
current folder.

A copy of this module, with :mod:`course.substitute`, ships inside the class
edition's engine (``slowtorch_lib/_class/``), so it imports nothing from the
course. Standard library only: it runs in the browser (Pyodide) too.
"""

from __future__ import annotations

import ast
import builtins
import linecache
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .parsing import parse
from .substitute import ENGINE, put

__all__ = [
    "FOLDER",
    "Piece",
    "find_workspace",
    "load_saved_pieces",
    "loaded",
    "piece_source",
    "piece_text",
    "reset_piece",
    "save_piece",
    "saved_files",
]

FOLDER = "my_engine"
VARIABLE = "SLOWTORCH_WORKSPACE"
README = """\
# Your engine

Each file here is a piece of the engine that you wrote in an exercise notebook.
A check saved it when your piece passed all of the exercise's public cases, and
the engine now uses it in place of its stub, in every notebook. Read them, but
change a piece in its notebook (and check it again) rather than here.

To see what is saved, run `import course; course.pieces()`; to go back to the
stub of an exercise, `course.reset("2.9")`.
"""


@dataclass(frozen=True)
class Piece:
    """An exercise's piece of the engine.

    Attributes:
        id: ``"2.9"``.
        name: The answer's name in the notebook (``"topological_order"``).
        target: The engine's object it replaces
            (``"slowtorch_lib.autograd.engine.topological_order"``).
        notebook: The exercise notebook (``"exercises/02_walking_backwards.ipynb"``).
    """

    id: str
    name: str
    target: str
    notebook: str

    @property
    def file_name(self) -> str:
        return f"ex{self.id.replace('.', '_')}_{self.name}.py"


_UNDO: dict[str, Callable[[], None]] = {}  # exercise id -> puts the stub back


def find_workspace(start: Path | None = None) -> Path | None:
    """The student's ``my_engine/`` folder, or None if there is none yet."""
    named = os.environ.get(VARIABLE)
    if named:
        return Path(named)
    here = (start or Path.cwd()).resolve()
    for folder in [here, *here.parents]:
        for candidate in (folder / FOLDER, folder / "exercises" / FOLDER):
            if candidate.is_dir():
                return candidate
    return None


def saved_files(pieces: dict[str, Piece]) -> dict[str, Path]:
    """The saved piece of each exercise that has one: ``{id: file}``."""
    folder = find_workspace()
    if folder is None:
        return {}
    found = {}
    for piece in pieces.values():
        path = folder / piece.file_name
        if path.is_file():
            found[piece.id] = path
    return found


def loaded() -> list[str]:
    """The exercises whose saved piece is in the engine now."""
    return sorted(_UNDO, key=lambda id: tuple(int(n) for n in id.split(".")))


def _install(piece: Piece, value: Any) -> None:
    if piece.id in _UNDO:
        _UNDO.pop(piece.id)()
    _UNDO[piece.id] = put(piece.target, value)


def load_saved_pieces(pieces: dict[str, Piece]) -> list[str]:
    """Puts every saved piece in place of its stub. A piece that does not
    load is reported on stderr and its stub stays. Returns the ids loaded."""
    done = []
    for id, path in saved_files(pieces).items():
        piece = pieces[id]
        if not piece.target.startswith(ENGINE + "."):
            continue  # not a piece of the engine: only its check uses it
        try:
            value = _run(path, piece.name)
            _install(piece, value)
        except Exception as error:  # noqa: BLE001  (the engine must still import)
            sys.stderr.write(
                f"your saved piece {path.name} did not load "
                f"({type(error).__name__}: {error}); the engine uses the stub of "
                f"exercise {id} instead. Check the exercise again to save it anew.\n"
            )
            continue
        done.append(id)
    return done


def _run(path: Path, name: str) -> Any:
    text = path.read_text(encoding="utf-8")
    namespace: dict[str, Any] = {"__name__": f"{FOLDER}.{path.stem}"}
    exec(compile(text, str(path), "exec"), namespace)  # noqa: S102  (the student's own)
    return namespace[name]


def save_piece(piece: Piece, source: str) -> Path:
    """Writes the piece's file (and the workspace, if new), then puts the
    piece into the engine now. Returns the file."""
    folder = find_workspace() or Path.cwd() / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "README.md").exists():
        (folder / "README.md").write_text(README, encoding="utf-8")
    path = folder / piece.file_name
    header = [
        f"# Exercise {piece.id}, {piece.name}: your piece of the engine, written in",
        f"# {piece.notebook} and saved when it passed its check. In the class",
        "# edition's engine it replaces, in every notebook,",
        f"#     {piece.target}",
        f'# course.reset("{piece.id}") deletes it.',
        "",
    ]
    path.write_text("\n".join(header) + "\n" + source.rstrip() + "\n", "utf-8")
    if piece.target.startswith(ENGINE + "."):
        _install(piece, _run(path, piece.name))
    return path


def reset_piece(piece: Piece) -> bool:
    """Deletes the saved piece and puts the stub back. False if none was saved."""
    path = saved_files({piece.id: piece}).get(piece.id)
    if piece.id in _UNDO:
        _UNDO.pop(piece.id)()
    if path is None:
        return False
    path.unlink()
    return True


# --- the source of a student's piece ----------------------------------------------


def _code_of(answer: Any) -> Any:
    """A code object of the answer (for a class, of one of its methods)."""
    if isinstance(answer, type):
        for value in vars(answer).values():
            function = getattr(value, "__func__", value)
            function = getattr(function, "fget", function)
            if hasattr(function, "__code__"):
                return function.__code__
        raise ValueError(f"class {answer.__name__} defines no method")
    function = getattr(answer, "__func__", answer)
    while hasattr(function, "__wrapped__"):
        function = function.__wrapped__
    if not hasattr(function, "__code__"):
        raise ValueError(f"{answer!r} is not a function or a class")
    return function.__code__


def _calls_nothing(node: ast.AST) -> bool:
    return not any(isinstance(inner, ast.Call) for inner in ast.walk(node))


def piece_source(answer: Any) -> str:
    """The answer's definition with what its cell imports and defines.

    The cell (or file) that defined the answer is read back (IPython keeps
    every cell's text, in JupyterLite too); kept are its imports, its
    function and class definitions and its assignments that call nothing,
    and left out what it runs (prints, experiments).

    Raises:
        ValueError: If the source cannot be found (a lambda typed at a
            prompt, a built-in...).
    """
    code = _code_of(answer)
    text = "".join(linecache.getlines(code.co_filename))
    if not text:
        raise ValueError("the cell that defined it cannot be read back")
    return piece_text(text, answer.__name__)


def piece_text(text: str, name: str) -> str:
    """What :func:`piece_source` keeps of a cell's ``text`` that defines
    ``name`` (the grader reads a submitted cell this way, never running it).

    Raises:
        ValueError: If the cell does not define ``name``.
        SyntaxError: If the cell is not Python.
    """
    tree = parse(text)
    kept: list[ast.stmt] = []
    found = False
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            kept.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kept.append(node)
            found = found or node.name == name
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and _calls_nothing(node):
            kept.append(node)
    if not found:
        raise ValueError(f"no definition of {name} in the cell that defined it")
    lines = text.splitlines()
    parts = []
    for node in kept:
        first = min([node.lineno, *(d.lineno for d in _decorators(node))])
        assert node.end_lineno is not None
        parts.append("\n".join(lines[first - 1 : node.end_lineno]))
    source = "\n\n\n".join(parts)
    if "torch" in _free_names(source) and "import slowtorch_lib as torch" not in text:
        source = "import slowtorch_lib as torch\n\n\n" + source
    return source


def _decorators(node: ast.stmt) -> list[ast.expr]:
    return list(getattr(node, "decorator_list", []))


def _free_names(source: str) -> set[str]:
    """Names the source reads but never binds (builtins left out)."""
    tree = parse(source)
    bound: set[str] = set()
    read: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return read - bound - set(dir(builtins))


def missing_names(source: str) -> list[str]:
    """Names a saved piece reads that its cell neither imports nor defines."""
    return sorted(_free_names(source) - {"torch"})
