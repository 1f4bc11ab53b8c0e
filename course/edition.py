"""The class edition: a student copy whose engine the students write.

``python -m course release OUT/ [--give 1.5,2.9 | --give ch1]`` writes the
exercise notebooks, the public checks and their recorded answers, a README
for students, and an engine in which **each exercise's piece is a stub**: the
function or method keeps its decorators, signature and docstring, and its
body raises ::

    NotImplementedError: exercise 2.9, `topological_order`, is not written
    yet: exercises/02_walking_backwards.ipynb

Each piece is found from its exercise's ``target`` (the engine's dotted name):
the object is imported from the complete engine, its definition located with
:mod:`ast` in the file that holds it, and only that definition's lines are
rewritten, so the rest of the file keeps its text. A class target (a class
the student writes whole) keeps its bases and docstring, every method becomes
a stub, and its other statements go. A helper named in the exercise's
``forbidden`` list (one that holds part of the answer) is stubbed too. One
that other code of the engine shares would have to stay: then
:func:`shared_answer_holders` lists it and :func:`write_engine` (so the
release, and the grader's engine) refuses with :class:`AnswerKept`: such a
helper is restructured (its answer moved into the piece, or the other code
given a path of its own), never shipped.

Another path of the engine that would compute a piece, and that the chapters
still use, is routed through the student's piece (``ROUTES``: in a class
edition ``Tensor.unfold`` takes its windows' layout from exercise 5.4's
``windows``), so that an answer calling it calls itself; one that must stay
as it is is named in the exercise's ``not_to_use``, which the check and the
grader refuse.

The engine of a class edition also holds ``slowtorch_lib/_class/`` (the table
of pieces and copies of :mod:`course.saved_pieces` and
:mod:`course.substitute`), and its ``__init__`` ends by loading the pieces the
student has saved (see :mod:`course.saved_pieces`). ``--give`` leaves the
engine's own code of the pieces given. Predictions change nothing.

The book's chapters come as runnable notebooks in ``chapters/`` (converted as
``sitebuild.notebooks`` writes the desktop chapters, with the book build's
outputs if the book is built), their helper modules in ``book/``. The engine's
code they quote is read from the class engine, so a quoted piece shows its
stub; they import the class engine, which loads the saved pieces from
``exercises/my_engine/`` (found upwards from either folder).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import shutil
import textwrap
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from course.checking import Exercise, exercises
from course.saved_pieces import FOLDER, README
from course.substitute import original

__all__ = [
    "AnswerKept",
    "parse_give",
    "release",
    "shared_answer_holders",
    "stub_course",
    "write_chapters",
    "write_engine",
]

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent
ENGINE = "slowtorch_lib"
LEFT_OUT = (
    "grading_ch",
    "expected_grading.json",
    "record.py",
    "sources",
    "class_site.py",
)
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")
WIDTH = 88
HOOK = """

# The class edition: the pieces of the engine that the student has written
# and saved replace their stubs (see slowtorch_lib/_class/__init__.py).
from slowtorch_lib._class import load_saved  # noqa: E402

load_saved()
"""


class AnswerKept(Exception):
    """A class edition would keep a helper that holds a piece's answer."""

    def __init__(self, holders: list[str]) -> None:
        super().__init__(
            "the class edition would keep helpers that hold an answer, as other "
            "code of the engine uses them: " + "; ".join(holders) + ". Move the "
            "answer into the piece or give the other code its own path."
        )
        self.holders = holders


@dataclass(frozen=True)
class Stub:
    """A definition to replace by a stub: where it is and what it raises."""

    file: Path  # the complete engine's (or course's) file
    qualname: str  # "Log.backward", "no_grad", "_scatter_to_index"
    message: str
    body: str = ""  # a routed definition's new body (see ROUTES), else a raise


# Other paths of the engine that would compute a piece, and that the chapters
# still need: in a class edition, each one's body asks the student's piece
# (so that an answer which calls the path calls itself, without end), as the
# body below. By exercise: the dotted name of the path and its new body.
WINDOW_LAYOUT = """\
if not shape:
    return (size,), (1,)
# The class edition: the count and the strides of the windows come from the
# student's ``windows`` (exercise 5.4), on a one-row image of this dimension,
# so that ``Tensor.unfold`` never answers that exercise.
from importlib import import_module

from slowtorch_lib._creation import empty

windows = import_module("slowtorch_lib.nn.functional.fold").windows
length = shape[dim]
line = empty(length).as_strided((1, 1, length, 1), (length, length, 1, 1))
found = windows(line, (size, 1), (1, 1), (step, 1))
count, across, along = found.shape[2], found.stride()[2], found.stride()[4]
new_shape = shape[:dim] + (count,) + shape[dim + 1 :] + (size,)
new_stride = stride[:dim] + (stride[dim] * across,) + stride[dim + 1 :]
return new_shape, new_stride + (stride[dim] * along,)
"""
ROUTES = {
    "5.4": (("slowtorch_lib.ops.splitting.window_layout", WINDOW_LAYOUT),),
}


# --- which pieces -----------------------------------------------------------------


def pieces() -> list[Exercise]:
    """Every exercise that asks for a piece (of the engine or of the course)."""
    return [e for e in exercises() if e.kind == "piece" and e.target]


def parse_give(text: str) -> set[str]:
    """``"1.5,2.9"`` or ``"ch1,ch2"`` (or both) as a set of exercise ids.

    Raises:
        ValueError: For an id or chapter that asks for no piece.
    """
    ids = {e.id for e in pieces()}
    given: set[str] = set()
    for word in filter(None, (w.strip() for w in text.split(","))):
        chapter = re.fullmatch(r"ch0*(\d+)", word)
        if chapter:
            found = {i for i in ids if i.split(".")[0] == chapter.group(1)}
        else:
            found = {word} & ids
        if not found:
            raise ValueError(f"--give {word}: no exercise piece has that name")
        given |= found
    return given


def notebook_of(exercise: Exercise) -> str:
    """``exercises/02_walking_backwards.ipynb`` for exercise 2.x."""
    chapter = int(exercise.id.split(".")[0])
    for path in sorted((ROOT / "exercises").glob("[0-9][0-9]_*.ipynb")):
        if int(path.name[:2]) == chapter:
            return f"exercises/{path.name}"
    raise FileNotFoundError(f"no exercise notebook for chapter {chapter}")


def message(exercise: Exercise) -> str:
    """What the stub of this exercise's piece raises."""
    assert exercise.target is not None
    owner, _, last = exercise.target.rpartition(".")
    engine_name = last
    if owner.split(".")[-1][:1].isupper():  # a method: Log.backward
        engine_name = f"{owner.split('.')[-1]}.{last}"
    name = f"`{exercise.name}`"
    if engine_name != exercise.name:
        name += f" (the engine's `{engine_name}`)"
    return (
        f"exercise {exercise.id}, {name}, is not written yet: {notebook_of(exercise)}"
    )


# --- locating definitions ---------------------------------------------------------


def _unwrapped(value: Any) -> Any:
    value = getattr(value, "__func__", value)
    return inspect.unwrap(value) if callable(value) else value


def _qualname(value: Any) -> str:
    return str(_unwrapped(value).__qualname__)


def _file_of(value: Any) -> Path:
    value = _unwrapped(value)
    if isinstance(value, type):
        return Path(inspect.getsourcefile(value) or "").resolve()
    return Path(value.__code__.co_filename).resolve()


def stubs_for(exercise: Exercise) -> tuple[list[Stub], list[str]]:
    """The definitions to stub for this piece, and the names of the shared
    helpers that hold its answer (kept, see :func:`shared_answer_holders`)."""
    assert exercise.target is not None
    value = original(exercise.target)
    text = message(exercise)
    found = [Stub(_file_of(value), _qualname(value), text)]
    shared = []
    module = importlib.import_module(_unwrapped(value).__module__)
    owner_name = _qualname(value).rpartition(".")[0]
    owner = getattr(module, owner_name) if owner_name else None
    for name in exercise.forbidden:
        helper = getattr(owner, name, None) if owner is not None else None
        helper = helper if helper is not None else getattr(module, name, None)
        if helper is None or not (
            isinstance(helper, type) or hasattr(_unwrapped(helper), "__code__")
        ):
            continue
        helper_file = _file_of(helper)
        if (
            not helper_file.is_relative_to(ROOT)
            or _qualname(helper) == found[0].qualname
        ):
            continue
        if _used_elsewhere(name, [found[0], Stub(helper_file, _qualname(helper), "")]):
            shared.append(f"{exercise.id}: {_qualname(helper)} ({helper_file.name})")
        else:
            found.append(Stub(helper_file, _qualname(helper), text))
    return found, shared


def routes_for(exercise: Exercise) -> list[Stub]:
    """The other paths of the engine that compute this piece, each routed
    through the student's piece (see ``ROUTES``)."""
    found = []
    for target, body in ROUTES.get(exercise.id, ()):
        value = original(target)
        found.append(Stub(_file_of(value), _qualname(value), message(exercise), body))
    return found


def _node(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.ClassDef:
    body: list[ast.stmt] = tree.body
    node: Any = None
    for part in qualname.split("."):
        node = next(
            (
                n
                for n in body
                if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == part
            ),
            None,
        )
        if node is None:
            raise LookupError(f"no definition of {qualname}")
        body = node.body
    return node  # type: ignore[no-any-return]


def _span(node: ast.stmt) -> tuple[int, int]:
    """First and last line (1-based) of a definition, decorators included."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    assert node.end_lineno is not None
    return first, node.end_lineno


def _used_elsewhere(name: str, stubs: list[Stub]) -> bool:
    """Whether ``name`` appears in the engine or course outside these definitions."""
    spans: dict[Path, list[tuple[int, int]]] = {}
    for stub in stubs:
        tree = ast.parse(stub.file.read_text("utf-8"))
        spans.setdefault(stub.file, []).append(_span(_node(tree, stub.qualname)))
    engine = (ROOT / ENGINE).resolve()
    helper = stubs[-1].file
    files = engine.rglob("*.py") if helper.is_relative_to(engine) else [helper]
    for path in files:
        inside = spans.get(path.resolve(), [])
        for number in _uses(ast.parse(path.read_text("utf-8")), name):
            if not any(a <= number <= b for a, b in inside):
                return True
    return False


def _uses(tree: ast.Module, name: str) -> list[int]:
    """The lines where code names ``name`` (a name, an attribute, an import):
    never a word in a docstring or a comment."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name:
            lines.append(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr == name:
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if any(alias.name == name for alias in node.names):
                lines.append(node.lineno)
    return lines


# --- writing stubs ----------------------------------------------------------------


def _raise_lines(text: str, indent: str) -> list[str]:
    width = WIDTH - len(indent) - 6
    parts = textwrap.wrap(
        text,
        width,
        drop_whitespace=False,
        break_long_words=False,
        break_on_hyphens=False,
    )
    assert "".join(parts) == text
    return [
        f"{indent}raise NotImplementedError(",
        *(f'{indent}    "{part}"' for part in parts),
        f"{indent})",
    ]


def _head(lines: list[str], node: ast.FunctionDef | ast.ClassDef) -> list[str]:
    """The definition's decorators, signature and docstring."""
    first, _ = _span(node)
    body = node.body[0]
    docstring = (
        isinstance(body, ast.Expr)
        and isinstance(body.value, ast.Constant)
        and isinstance(body.value.value, str)
    )
    if docstring:
        assert body.end_lineno is not None
        return lines[first - 1 : body.end_lineno]
    if body.lineno <= node.lineno:
        raise ValueError(f"{node.name}: its body starts on the line of its signature")
    return lines[first - 1 : body.lineno - 1]


def _stub_text(
    lines: list[str], node: ast.FunctionDef | ast.ClassDef, text: str, body: str = ""
) -> list[str]:
    """The stub of a function, or of each method of a class; a function with
    a ``body`` (a routed path) gets that body instead of a raise."""
    indent = " " * node.body[0].col_offset
    if isinstance(node, ast.FunctionDef) and body:
        return _head(lines, node) + [
            indent + line if line else "" for line in body.splitlines()
        ]
    if isinstance(node, ast.FunctionDef):
        return _head(lines, node) + _raise_lines(text, indent)
    stub = _head(lines, node)
    methods = [n for n in node.body if isinstance(n, ast.FunctionDef)]
    if not any(m.name == "__init__" for m in methods):
        stub += ["", f"{indent}def __init__(self, *args, **kwargs):"]
        stub += _raise_lines(text, indent + "    ")
    for method in methods:
        stub += [""] + _stub_text(lines, method, text)
    return stub


def stub_file(path: Path, stubs: Iterable[Stub]) -> None:
    """Rewrites the definitions of ``stubs`` in the file ``path`` as stubs."""
    text = path.read_text("utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    edits = []
    for stub in stubs:
        node = _node(tree, stub.qualname)
        edits.append((_span(node), _stub_text(lines, node, stub.message, stub.body)))
    for (first, last), new in sorted(edits, reverse=True):
        lines[first - 1 : last] = new
    path.write_text("\n".join(lines) + "\n", "utf-8")


def _apply(stubs: list[Stub], source_root: Path, dest_root: Path) -> None:
    by_file: dict[Path, list[Stub]] = {}
    for stub in stubs:
        if stub.file.is_relative_to(source_root):
            by_file.setdefault(stub.file, []).append(stub)
    for file, group in by_file.items():
        stub_file(dest_root / file.relative_to(source_root), group)


def plan(give: Collection[str] = ()) -> tuple[list[Stub], list[str]]:
    """Every stub of a class edition with these pieces given, and the shared
    answer holders of the pieces not given."""
    stubs: list[Stub] = []
    shared: list[str] = []
    for exercise in pieces():
        if exercise.id in give:
            continue
        found, holders = stubs_for(exercise)
        stubs += found + routes_for(exercise)
        shared += holders
    return stubs, shared


def stub_course(dest: Path, give: Collection[str] = ()) -> None:
    """Stubs, in ``dest`` (a copy of the ``course`` package), the pieces that
    live in the course rather than the engine (a check's training loop)."""
    _apply(plan(give)[0], PACKAGE, dest)


def shared_answer_holders(give: Collection[str] = ()) -> list[str]:
    """Helpers that hold (part of) a piece's answer but that other code of
    the engine also uses, so that a class edition keeps them."""
    return plan(give)[1]


# --- the engine and the student copy --------------------------------------------


def _table(give: Collection[str]) -> str:
    rows = [
        f'    "{e.id}": Piece(\n'
        f'        "{e.id}", "{e.name}", "{e.target}", "{notebook_of(e)}"\n'
        "    ),"
        for e in pieces()
    ]
    given = ", ".join(f'"{i}"' for i in sorted(give, key=_order))
    return f'''"""The class edition: the pieces of this engine that students write.

Each piece below is a stub in this copy of the engine (unless given), until
its exercise's check passes and saves the student's piece into their
workspace (``my_engine/`` beside the notebooks); from then on the engine
puts the saved piece in place of the stub each time it is imported. See
``saved_pieces.py`` (a copy of the course's ``course/saved_pieces.py``).
"""

from slowtorch_lib._class.saved_pieces import Piece, load_saved_pieces

PIECES = {{
{chr(10).join(rows)}
}}
GIVEN = ({given}{"," if len(give) == 1 else ""})  # shipped with the engine's own code


def load_saved() -> list[str]:
    """Puts every saved piece in place of its stub; the ids loaded."""
    return load_saved_pieces(PIECES)
'''


def _order(exercise_id: str) -> tuple[int, ...]:
    return tuple(int(n) for n in exercise_id.split("."))


def write_engine(
    dest: Path, give: Collection[str] = (), load_saved: bool = True
) -> None:
    """Writes ``dest/slowtorch_lib``: the engine with every exercise's piece a
    stub, except those given (``{"1.5", "2.9"}``).

    With ``load_saved``, the engine loads the pieces saved in the student's
    workspace when it is imported; without, it never looks for them (a
    grader's copy).

    Raises:
        AnswerKept: If a helper that holds an answer would be kept.
    """
    engine = Path(importlib.import_module(ENGINE).__file__ or "").resolve().parent
    if engine != (ROOT / ENGINE).resolve():
        raise RuntimeError(f"the engine imported is {engine}, not {ROOT / ENGINE}")
    stubs, holders = plan(give)
    if holders:
        raise AnswerKept(holders)
    out = dest / ENGINE
    shutil.copytree(engine, out, ignore=IGNORE)
    _apply(stubs, engine, out)
    (out / "_class").mkdir()
    (out / "_class" / "__init__.py").write_text(_table(give), "utf-8")
    for name in ("saved_pieces.py", "substitute.py", "parsing.py"):
        shutil.copy2(PACKAGE / name, out / "_class" / name)
    if load_saved:
        init = out / "__init__.py"
        init.write_text(init.read_text("utf-8").rstrip("\n") + "\n" + HOOK, "utf-8")


def write_chapters(out: Path) -> list[Path]:
    """Writes the book's chapters as notebooks into ``out/chapters``, quoting
    the engine of ``out``, and their helper modules into ``out/book``, where
    the chapters' first cell finds them. Returns the notebooks.

    Raises:
        RuntimeError: Without the book's build script.
    """
    # The book's build tools come with the repository, not with the course: a
    # class edition ships this module (and the browser's course wheel holds it)
    # without them.
    try:
        from sitebuild import notebooks  # at call time: see above
    except ModuleNotFoundError as error:
        raise RuntimeError(f"{error}: write a class edition from the course") from None

    notebooks.copy_helpers(ROOT / "book", out / "book")
    written: list[Path] = notebooks.write_desktop_chapters(
        out / "chapters", root=out, sign=False
    )
    return written


STUDENT_README = """\
# {title}

In this course you build the engine, `slowtorch_lib`, a piece at a time: read
a chapter in `chapters/`, then do its exercises in `exercises/`. The engine's
pieces that the exercises ask for are missing here: each raises, for example,

    NotImplementedError: exercise 2.9, `topological_order`, is not written yet:
    exercises/02_walking_backwards.ipynb

until you write it. When your piece passes all of its check's cases, the check
saves it into `exercises/my_engine/` (one readable file per exercise) and the
engine uses it from then on, in every notebook, the chapters' too: chapter 3
runs on your chapter 1 and 2 pieces, and by the epilogue every piece of the
engine you train with is yours. Do the exercises in order: a check that needs
a piece you have not written yet says which one. A chapter reads whole at any
point: a cell that needs a piece you have not written shows the book's output
(run on the complete engine), under a note naming the exercise that makes it
run on your engine, and Run All goes on. `chapters/book_version/` keeps each
chapter as the book has it; `book_outputs.restore("02_autograd")` in a
chapter puts it back. The engine's code that the chapters show is this
folder's, so a piece you have not written shows as its stub. The chapters'
helper modules are in `book/`.

## Set-up

With Python 3.10 or later, in this folder:

```bash
python -m venv .venv
.venv/bin/pip install -e . jupyterlab graphviz matplotlib ipywidgets
.venv/bin/jupyter lab
```

(The chapters draw graphs with Graphviz's `dot` program: install Graphviz too.)

Use this folder's engine: in a Python environment where another copy of
`slowtorch_lib` is installed, the notebooks would import that one.

If your teacher gives you the address of the class's in-browser course, you
can work there instead, with nothing installed: your notebooks and saved
pieces stay in that browser (a private window keeps nothing), and File >
Download saves a notebook to hand in.

## Your saved pieces

```python
import course
course.pieces()        # which pieces are yours, given, or still stubs
course.reset("2.9")    # delete your saved 2.9 and go back to the stub
```

The files in `exercises/my_engine/` are yours to read; change a piece in its
notebook and check it again. To hand in, hand in the notebooks.
"""


CLASS_EXERCISES = """\
# Exercises

One notebook per chapter: `01_arrays_to_tensors.ipynb`,
`02_walking_backwards.ipynb`, ... Each exercise is a statement, a cell for
your answer, and a check cell. Read the chapter first (in `../chapters/`),
then do its exercises in order. `../README.md` says how to set up this folder
and start JupyterLab.

## Two kinds of exercise

- **Predictions**: a dict from expressions to your prediction; replace each
  `...`. They check against PyTorch's recorded answers and save nothing.
- **Pieces of the engine**: replace `raise NotImplementedError` with your
  code. The check puts your function into the engine in place of its stub and
  runs real tensor operations through it. When every public case passes, your
  piece is saved into `my_engine/` and the engine uses it from then on, in
  every notebook, the chapters' too.

## Reading a check

- how many cases are right, then the first failing cases: what ran, what
  PyTorch gave (`expected`) and what yours gave (`got`), with your code's
  traceback when it raised;
- a hint: each failure in a row says a little more, none gives the answer;
- `not attempted yet` while the stub is left.

## Your saved pieces

```python
import course
course.pieces()        # which pieces are yours, given, or still stubs
course.reset("2.9")    # delete your saved 2.9 and go back to the stub
```

## Handing in

Hand in the notebooks. Keep everything an answer needs inside its answer cell
(the grader runs each answer cell on its own, imports included) and keep the
cells' tags. To see the grade you would get, from this folder's parent:

```bash
python -m course grade --student me exercises/
```

There are no worked solutions here: you write the pieces.
"""


def release(out: Path, give: Collection[str] = (), site: bool = False) -> list[Path]:
    """Writes a class edition into ``out`` (an empty or new folder); with
    ``site``, also its in-browser course into ``out/site`` (see
    :mod:`course.class_site`). Returns the files of the edition (the site's
    left out).

    Raises:
        FileExistsError: If ``out`` is not empty.
        AnswerKept: If a helper that holds an answer would be kept (before
            anything is written).
        RuntimeError: If the site does not build.
    """
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty")
    holders = shared_answer_holders(give)
    if holders:
        raise AnswerKept(holders)
    out.mkdir(parents=True, exist_ok=True)
    write_engine(out, give)

    def course_ignore(folder: str, names: list[str]) -> set[str]:
        return set(IGNORE(folder, names)) | {n for n in names if n.startswith(LEFT_OUT)}

    shutil.copytree(PACKAGE, out / "course", ignore=course_ignore)
    _apply(plan(give)[0], PACKAGE, out / "course")
    shutil.copytree(ROOT / "exercises", out / "exercises", ignore=IGNORE)
    # The class's own notes: the book's speak of its set-up and its solutions.
    (out / "exercises" / "README.md").write_text(CLASS_EXERCISES, "utf-8")
    (out / "exercises" / FOLDER).mkdir()
    (out / "exercises" / FOLDER / "README.md").write_text(README, "utf-8")
    for name in ("pyproject.toml", "requirements.txt"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, out / name)
    title = "slowtorch: the class edition"
    (out / "README.md").write_text(STUDENT_README.format(title=title), "utf-8")
    write_chapters(out)
    written = sorted(p for p in out.rglob("*") if p.is_file())
    if site:
        from course.class_site import build_site  # at call time: only with --site

        build_site(out, out / "site")
    return written
