"""The class edition (``python -m course release``): students write the engine.

A fresh class edition holds no model answer and no grading-only case or
value; its engine stops at the first unwritten piece with the exercise's
message; and once the solution notebooks' answers are put in through their
checks, as a student would (each notebook run in a fresh process, in the
edition's ``exercises/`` folder, until no check saves a new piece), every
check passes, a fresh process loads every saved piece, and the epilogue's
name model trains on that engine as it does under PyTorch. The book's
chapters come with it as notebooks on the class engine: in a fresh edition
each stops at its first unwritten piece, and once every piece is saved each
runs to its end on the student's pieces.
"""

from __future__ import annotations

import ast
import builtins
import json
import keyword
import os
import re
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from course import __main__ as cli
from course import edition
from course.checking import expected_outcomes, load
from course.notebooks import BEGIN, END, chapters, read_source
from sitebuild import notebooks as conversion

# Releases class editions and runs their notebooks: the full run only.
pytestmark = pytest.mark.pipeline

ROOT = Path(__file__).resolve().parent.parent
RUN = Path(__file__).resolve().parent / "class_run.py"
PIECES = [e.id for e in edition.pieces()]
#: The book's chapters that are notebooks (the introduction has no code).
CHAPTERS = [
    "01_tensors.ipynb",
    "02_autograd.ipynb",
    "03_building_blocks.ipynb",
    "04_optimisation.ipynb",
    "05_windows.ipynb",
    "06_attention.ipynb",
    "appendix_files.ipynb",
    "appendix_recurrent.ipynb",
    "epilogue.ipynb",
]
ENGINE_PIECES = [
    e.id for e in edition.pieces() if e.target.startswith("slowtorch_lib.")
]
UNWRITTEN = re.compile(r"exercise (\d+\.\d+), `\w+`[^,]*, is not written yet: \S+")
#: The note above the book's outputs in a class chapter's cell.
NEEDED = re.compile(r"needs exercise (\d+\.\d+), `\w+`")


def run_python(folder: Path, *args: str, cwd: Path | None = None) -> str:
    """Runs Python with ``folder`` (an edition) first on the path."""
    environment = dict(os.environ, PYTHONPATH=str(folder))
    environment.pop("SLOWTORCH_WORKSPACE", None)
    done = subprocess.run(
        [sys.executable, *args],
        cwd=cwd or folder / "exercises",
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def run_notebook(folder: Path, notebook: Path) -> list[dict[str, Any]]:
    """Every code cell of ``notebook`` run in the edition: id, output, error."""
    cells: list[dict[str, Any]] = json.loads(
        run_python(folder, str(RUN), str(notebook))
    )
    return cells


@pytest.fixture(scope="module")
def fresh(class_edition: Path) -> Path:
    """The run's shared fresh edition (``tests/conftest.py``), only read here."""
    return class_edition


# --- no answers in the copy -------------------------------------------------------

NAME = re.compile(r"(?<![.\w])[A-Za-z_]\w*")
KEEP = set(keyword.kwlist) | set(dir(builtins)) | {"self", "torch"}


def code_lines(text: str) -> list[str]:
    """The non-blank lines, comments and spaces taken out."""
    return [line for _, line in numbered_code_lines(text)]


def numbered_code_lines(text: str) -> list[tuple[int, str]]:
    """:func:`code_lines` with the number of each line in ``text``."""
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        line = re.sub(r"\s+#.*$|^\s*#.*$", "", line)
        line = "".join(line.split())
        if line:
            lines.append((number, line))
    return lines


def windows(lines: list[str], size: int = 3) -> Iterator[tuple[int, tuple[str, ...]]]:
    """Each run of ``size`` lines, with its names renamed in order of first
    appearance (so that renaming variables does not hide a copy). A run made
    only of names, keywords, builtins and numbers (``count = 1``, ``for size in
    shape:``, ``count *= size``) says nothing of an answer and is left out:
    a run must hold an attribute, a string or a name from elsewhere."""
    for start in range(len(lines) - size + 1):
        names: dict[str, str] = {}

        def rename(found: re.Match[str], names: dict[str, str] = names) -> str:
            word = found.group()
            if word in KEEP:
                return word
            return names.setdefault(word, f"v{len(names)}")

        window = tuple(NAME.sub(rename, line) for line in lines[start : start + size])
        rest = NAME.sub(
            lambda found: "" if found.group() in KEEP else found.group(),
            re.sub(r"\bv\d+\b", "", "\n".join(window)),
        )
        if re.search(r"[A-Za-z]", rest):
            yield start, window


Answers = dict[tuple[str, ...], str]  # a window -> the exercise whose answer it is


def model_answers(engine: bool = True) -> Answers:
    """Every 3-line window of every model answer: the solution regions of the
    exercise sources, and the complete engine's own code of every piece
    (less what the exercise notebooks give, such as ``BatchSampler.__init__``)."""
    found: Answers = {}
    for chapter in chapters():
        for cell in read_source(chapter).cells:
            tags = [t for t in cell.metadata.get("tags", []) if t.startswith("exer")]
            if cell.cell_type != "code" or not tags:
                continue
            id = tags[0].removeprefix("exercise-")
            region: list[str] = []
            inside = False
            for line in cell.source.splitlines():
                if BEGIN.match(line):
                    inside, region = True, []
                elif END.match(line):
                    inside = False
                    for _, window in windows(code_lines("\n".join(region))):
                        found[window] = id
                elif inside:
                    region.append(line)
    if not engine:
        return found
    given = set()
    for path in (ROOT / "exercises").glob("*.ipynb"):
        given |= {w for _, w in windows(code_lines(notebook_text(path)))}
    stubs, _ = edition.plan()
    for stub in stubs:
        id = stub.message.split(",")[0].removeprefix("exercise ")
        tree = ast.parse(stub.file.read_text("utf-8"))
        lines = stub.file.read_text("utf-8").splitlines()
        node = edition._node(tree, stub.qualname)
        bodies = [node] if isinstance(node, ast.FunctionDef) else node.body
        for body in bodies:
            if not isinstance(body, ast.FunctionDef):
                continue
            statements = body.body[1:] if ast.get_docstring(body) else body.body
            if not statements:
                continue
            text = "\n".join(lines[statements[0].lineno - 1 : body.end_lineno])
            for _, window in windows(code_lines(text)):
                if window not in given:
                    found.setdefault(window, id)
    return found


def notebook_text(path: Path) -> str:
    return notebook_json_text(path.read_text("utf-8"))


def notebook_json_text(text: str) -> str:
    """A notebook's sources and outputs, from its JSON."""
    cells = json.loads(text)["cells"]
    parts = []
    for cell in cells:
        parts.append("".join(cell["source"]))
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            parts += ["".join(v) for v in output.get("data", {}).values()]
    return "\n".join(parts)


def texts(folder: Path) -> Iterator[tuple[Path, str]]:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            if path.suffix == ".ipynb":
                yield path, notebook_text(path)
            else:
                yield path, path.read_text("utf-8", errors="replace")


#: In the class site: what holds the course's own text (JupyterLite's and
#: Pyodide's builds aside), and which files of its wheels are read.
SITE_PARTS = ("files", "api", "pypi", "static/pyodide", "jupyter-lite.json")
WHEEL_TEXTS = (".py", ".json", ".txt", ".md", ".ipynb", ".csv", ".toml", ".cfg")


def site_texts(site: Path) -> Iterator[tuple[Path, str]]:
    """The texts of a class site: its notebooks, listings and settings, and
    every text file inside each of its wheels (as ``WHEEL/member``)."""
    for part in SITE_PARTS:
        top = site / part
        for path in sorted(top.rglob("*")) if top.is_dir() else [top]:
            if path.suffix == ".whl":
                with zipfile.ZipFile(path) as wheel:
                    for name in wheel.namelist():
                        if name.endswith(WHEEL_TEXTS):
                            text = wheel.read(name).decode("utf-8", "replace")
                            if name.endswith(".ipynb"):
                                text = notebook_json_text(text)
                            yield path / name, text
            elif path.is_file() and path.suffix in WHEEL_TEXTS:
                if path.suffix == ".ipynb":
                    yield path, notebook_text(path)
                else:
                    yield path, path.read_text("utf-8", errors="replace")


#: The folders that hold the book's chapters as notebooks and their helper
#: modules: a class edition's ``chapters/`` and ``book/``, a site's ``files/book/``.


def leaks(
    folder: Path,
    answers: Answers,
    found_texts: Iterator[tuple[Path, str]] | None = None,
) -> set[tuple[str, str]]:
    """Where a model answer's lines are: ``{(place, exercise id)}``, the place
    being the definition that holds them (``Module.zero_grad``) in a Python
    file, else the file. Searched: the files of ``folder``, or ``found_texts``."""
    found = set()
    for path, text in texts(folder) if found_texts is None else found_texts:
        numbered = numbered_code_lines(text)
        for start, window in windows([line for _, line in numbered]):
            if window in answers:
                place = str(path.relative_to(folder))
                if path.suffix == ".py":
                    place = definition_at(text, numbered[start][0]) or place
                found.add((place, answers[window]))
    return found


def definition_at(text: str, number: int) -> str | None:
    """The qualified name of the innermost definition holding line ``number``."""
    name = None
    body = ast.parse(text).body
    prefix = ""
    while True:
        node = next(
            (
                n
                for n in body
                if isinstance(n, (ast.FunctionDef, ast.ClassDef))
                and n.lineno <= number <= (n.end_lineno or 0)
            ),
            None,
        )
        if node is None:
            return name
        name = prefix + node.name
        prefix, body = name + ".", node.body


# Engine code that other code uses and that holds (part of) an answer: a class
# edition would keep it. None is left (one home per concept); a new one is for
# the engine's layout to remove or for its exercise to change, not to list here.
KNOWN: set[tuple[str, str]] = set()


def grading_only_values() -> dict[str, str]:
    """Distinctive texts of the grading-only cases: their labels and the
    recorded values (long JSON, long floats) that no public case shares."""
    public = expected_outcomes()
    public_text = json.dumps(public)
    public_labels = {label for cases in public.values() for label in cases}
    grading = expected_outcomes(grading=True)
    found = {}
    for id, cases in grading.items():
        for label, value in cases.items():
            if label not in public_labels and len(label) >= 12:
                found[label] = f"{id}: the label of a grading-only case"
            text = json.dumps(value)
            if len(text) >= 24 and text not in public_text:
                found["".join(text.split())] = f"{id}: {label!r}'s value"
            for number in re.findall(r"-?\d+\.\d{6,}(?:e-?\d+)?", text):
                if number not in public_text:
                    found[number] = f"{id}: a number of {label!r}'s value"
    return found


def test_the_detectors_find_the_answers_in_the_complete_course() -> None:
    answers = model_answers()
    assert ("topological_order", "2.9") in leaks(ROOT / "slowtorch_lib", answers)
    in_solutions = leaks(ROOT / "solutions", answers)
    # Every answer with three telling lines is found (2.3's two-line methods are
    # not).
    solved = set(model_answers(engine=False).values())
    assert {id for _, id in in_solutions} == solved and len(solved) >= 18
    values = grading_only_values()
    grading_file = (ROOT / "course/checks/expected_grading.json").read_text("utf-8")
    compact = "".join(grading_file.split())
    assert sum(v in compact or v in grading_file for v in values) >= 20


def test_no_model_answer_anywhere_in_a_class_edition(fresh: Path) -> None:
    assert sorted(p.name for p in (fresh / "chapters").glob("*.ipynb")) == CHAPTERS
    assert leaks(fresh, model_answers()) == KNOWN


def test_the_detectors_find_an_answer_quoted_in_a_chapter(tmp_path: Path) -> None:
    """What a chapter quotes from the engine is scanned, and the book's own
    text (its prose and its code cells) holds no model answer either."""
    answers = model_answers()
    folder = tmp_path / "chapters"
    folder.mkdir()
    answer = (ROOT / "slowtorch_lib/autograd/engine.py").read_text("utf-8")
    cell = {"cell_type": "markdown", "source": f"```python\n{answer}\n```"}
    (folder / "02_autograd.ipynb").write_text(json.dumps({"cells": [cell]}))
    assert ("chapters/02_autograd.ipynb", "2.9") in leaks(tmp_path, answers)
    for number, page in enumerate(sorted((ROOT / "book").glob("*.md"))):
        cell["source"] = page.read_text("utf-8")
        (folder / f"{number}.ipynb").write_text(json.dumps({"cells": [cell]}))
    (folder / "02_autograd.ipynb").unlink()
    assert leaks(tmp_path, answers) == set()


def test_the_chapters_quote_the_class_engines_code(tmp_path: Path) -> None:
    quoted = tmp_path / "slowtorch_lib/autograd/engine.py"
    quoted.parent.mkdir(parents=True)
    quoted.write_text(
        "def topological_order(roots):\n    raise NotImplementedError('stub')\n"
    )
    include = conversion._include
    argument = "../slowtorch_lib/autograd/engine.py"
    options = {"pyobject": "topological_order"}
    ours = include(ROOT / "book", argument, options, tmp_path)
    assert ours == f"```python\n{quoted.read_text().rstrip()}\n```"
    theirs = include(ROOT / "book", argument, options)
    assert "raise NotImplementedError" not in theirs and "def topological" in theirs


def test_no_grading_only_case_or_value_anywhere_in_a_class_edition(
    fresh: Path,
) -> None:
    values = grading_only_values()
    found = []
    for path, text in texts(fresh):
        compact = "".join(text.split())
        for value, what in values.items():
            if value in text or value in compact:
                found.append(f"{path.relative_to(fresh)}: {what}")
    assert found == []
    names = {str(p.relative_to(fresh)) for p in fresh.rglob("*") if p.is_file()}
    assert not [n for n in names if "grading_ch" in n or "expected_grading" in n]
    assert not [n for n in names if n.startswith(("solutions", "course/sources"))]


# --- the class site: its notebooks, settings and wheels -----------------------------

PYODIDE = ROOT / "scripts" / "assets" / "node_modules" / "pyodide"


@pytest.fixture(scope="module")
def site(fresh: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The in-browser course of a fresh class edition (``release --site``)."""
    if not (PYODIDE / "package.json").is_file():
        pytest.skip("the class site is built from the book's set-up (npm assets)")
    from course.class_site import build_site

    return build_site(fresh, tmp_path_factory.mktemp("class") / "site")


def test_the_class_site_serves_the_class_engine_and_exercises(site: Path) -> None:
    listing = json.loads((site / "lite-notebooks.json").read_text("utf-8"))
    assert sorted(listing) == [f"book/{name}" for name in CHAPTERS] + [
        f"exercises/{p.name}" for p in sorted((ROOT / "exercises").glob("*.ipynb"))
    ]
    assert (site / "files/book/ch02/stepper.py").is_file()  # a chapter's helpers
    assert (site / "files/exercises/my_engine/README.md").is_file()
    wheels = sorted(p.name for p in (site / "pypi").glob("slowtorch_*.whl"))
    assert [w.split("-")[0] for w in wheels] == [
        "slowtorch_course",
        "slowtorch_lib",
        "slowtorch_lite",
    ]
    engine = f"pypi/{wheels[1]}/slowtorch_lib/"
    found = {p.relative_to(site).as_posix(): text for p, text in site_texts(site)}
    stub = "exercise 1.5, `contiguous_strides`, is not written yet"
    assert stub in found[engine + "_strides.py"]
    assert "load_saved()" in found[engine + "__init__.py"]
    assert "load_saved_pieces" in found[engine + "_class/__init__.py"]


def test_the_class_site_serves_its_welcome_page(site: Path) -> None:
    """The site serves its welcome page (the page script opens it: the browser
    test sees it), not the desktop's notes; each chapter's book version too."""
    welcome = (site / "files/WELCOME.md").read_text("utf-8")
    assert "How the term works" in welcome and "File › Download" in welcome
    assert not (site / "files/exercises/README.md").exists()
    for name in CHAPTERS:
        assert (site / "files/book/book_version" / name).is_file(), name


def test_the_readme_gives_the_class_sites_size(site: Path) -> None:
    size = sum(f.stat().st_size for f in site.rglob("*") if f.is_file()) / 1e6
    said = re.search(
        r"release OUT --site`, warm caches\), (\d+) MB, or (\d+) MB once the book",
        " ".join((ROOT / "README.md").read_text("utf-8").split()),
    )
    assert said, "the README no longer gives the class site's size"
    built = (ROOT / "_build" / "jupyter_execute").is_dir()  # outputs in chapters
    stated = int(said.group(2 if built else 1))
    assert abs(stated - size) <= 2, f"the site is {size:.1f} MB (book built: {built})"


def test_no_model_answer_or_grading_only_value_in_the_class_site(site: Path) -> None:
    found_texts = list(site_texts(site))
    places = {p.relative_to(site).as_posix() for p, _ in found_texts}
    assert any(re.search(r"slowtorch_lib-[^/]+\.whl/slowtorch_lib/", p) for p in places)
    assert any(p.startswith("files/exercises/") for p in places)
    # The course's own texts: all but the wheels downloaded from PyPI as they are.
    own = [
        (p, text)
        for p, text in found_texts
        if ".whl" not in p.as_posix() or "/slowtorch_" in p.as_posix()
    ]
    # The engine's shared helpers that hold an answer (KNOWN) are in its wheel.
    assert leaks(site, model_answers(), iter(own)) == KNOWN
    values = grading_only_values()
    hits = []
    for path, text in found_texts:
        compact = "".join(text.split())
        for value, what in values.items():
            if value in text or value in compact:
                hits.append(f"{path.relative_to(site)}: {what}")
    assert hits == []
    assert not [p for p in places if "grading_ch" in p or "expected_grading" in p]
    assert not [p for p in places if "/course/sources/" in p or "solutions/" in p]


def test_a_piece_saved_where_the_browser_keeps_no_file_is_said_so() -> None:
    from course.workspace import NOT_KEPT, kept_by_the_browser

    assert kept_by_the_browser(ROOT / "exercises/my_engine/ex1_5_x.py")
    assert kept_by_the_browser("/drive/exercises/my_engine/ex1_5_x.py", "emscripten")
    assert not kept_by_the_browser("/home/pyodide/my_engine/ex1_5_x.py", "emscripten")
    assert not kept_by_the_browser("/drivers/my_engine/ex1_5_x.py", "emscripten")
    assert "does not let the notebook's Python keep files" in NOT_KEPT


# --- the stubs --------------------------------------------------------------------


def test_each_piece_is_a_stub_with_its_signature_docstring_and_message(
    fresh: Path,
) -> None:
    probe = """
import inspect, json
from course.edition import pieces, message
from course.substitute import original
found = {}
for exercise in pieces():
    stub = original(exercise.target)
    signature = "a class" if isinstance(stub, type) else inspect.signature(stub)
    found[exercise.id] = [str(signature), inspect.getdoc(stub), message(exercise)]
print(json.dumps(found))
"""
    ours = json.loads(run_python(ROOT, "-c", probe, cwd=ROOT))
    theirs = json.loads(run_python(fresh, "-c", probe))
    assert ours.keys() == theirs.keys() == set(PIECES)
    for id in PIECES:
        assert ours[id] == theirs[id], id  # signature, docstring and message kept
    assert theirs["2.9"][2] == (
        "exercise 2.9, `topological_order`, is not written yet: "
        "exercises/02_walking_backwards.ipynb"
    )
    assert "(the engine's `Div.backward`)" in theirs["2.6"][2]
    # Every piece raises its message when used directly.
    calls = """
import json, slowtorch_lib as torch
out = {}
for name, run in {
    "zeros": lambda: torch.zeros(2, 3),
    "no_grad": lambda: torch.no_grad(),
    "backward": lambda: torch.autograd.engine.topological_order([]),
    "BatchSampler": lambda: torch.utils.data.BatchSampler(range(3), 2, False),
}.items():
    try:
        run()
        out[name] = "ran"
    except NotImplementedError as error:
        out[name] = str(error)
print(json.dumps(out))
"""
    raised = json.loads(run_python(fresh, "-c", calls))
    assert raised["zeros"].startswith("exercise 1.5, `contiguous_strides`")
    assert raised["no_grad"].startswith("exercise 2.5, `no_grad`")
    assert raised["backward"].startswith("exercise 2.9, `topological_order`")
    assert raised["BatchSampler"].startswith("exercise 4.8, `BatchSampler`")


def test_give_ships_those_pieces_solved(tmp_path: Path) -> None:
    out = tmp_path / "given"
    assert cli.main(["release", str(out), "--give", "ch1,2.9,2.10"]) == 0
    strides = (out / "slowtorch_lib/_strides.py").read_text("utf-8")
    assert strides == (ROOT / "slowtorch_lib/_strides.py").read_text("utf-8")
    engine = (out / "slowtorch_lib/autograd/engine.py").read_text("utf-8")
    assert "is not written yet" not in engine
    reduction = (out / "slowtorch_lib/ops/reduction.py").read_text("utf-8")
    assert "exercise 2.7, `sum_to_size`, is not written yet" in reduction
    shown = run_python(out, "-c", "import course; course.pieces()")
    assert re.search(r"1\.5\s+contiguous_strides\s+given", shown)
    assert re.search(r"2\.7\s+sum_to_size\s+stub", shown)
    assert cli.main(["release", str(tmp_path / "bad"), "--give", "9.9"]) == 2
    assert cli.main(["release", str(out)]) == 2  # never over an existing copy


def test_the_complete_engine_saves_nothing(tmp_path: Path) -> None:
    code = (
        "import course\n"
        "def contiguous_strides(shape):\n"
        "    out, step = [], 1\n"
        "    for size in reversed(shape):\n"
        "        out.insert(0, step)\n"
        "        step *= max(size, 1)\n"
        "    return tuple(out)\n"
        "course.check('1.5', contiguous_strides)\n"
        "course.pieces()\n"
    )
    printed = run_python(ROOT, "-c", code, cwd=tmp_path)
    assert "All right!" in printed and "complete engine" in printed
    assert "Saved" not in printed and list(tmp_path.iterdir()) == []


# --- a student's way through: from release to every piece saved -----------------


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A fresh class edition, then the solution notebooks run in it, round
    after round, until no check saves a new piece."""
    start = time.monotonic()
    out = tmp_path_factory.mktemp("class") / "edition"
    assert cli.main(["release", str(out)]) == 0
    first: dict[str, list[dict[str, Any]]] = {}
    rounds = 0
    saved: set[str] = set()
    while rounds < 6:
        rounds += 1
        for notebook in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
            cells = run_notebook(out, notebook)
            first.setdefault(notebook.name, cells)
        now = {p.name for p in (out / "exercises/my_engine").glob("ex*.py")}
        if now == saved:
            break
        saved = now
    seconds = time.monotonic() - start
    sys.stderr.write(f"class edition: all pieces saved in {seconds:.1f} s\n")
    return {"out": out, "first": first, "rounds": rounds, "seconds": seconds}


def test_a_fresh_edition_stops_at_the_first_unwritten_piece(
    solved: dict[str, Any],
) -> None:
    """In the first round each piece's check either passes on what it can
    run or names the unwritten piece its cases met, with its notebook."""
    for cells in solved["first"].values():
        for cell in cells:
            assert cell["error"] is None, cell
            id = (cell["id"] or "").removeprefix("check-").replace("-", ".")
            if id not in PIECES:
                continue
            output = cell["output"]
            named = re.findall(
                r"need(?:s)? exercise (\d+\.\d+), `\w+`, which is not written yet "
                r"\((exercises/\d\d_\w+\.ipynb)\)",
                output,
            )
            assert named or "All right!" in output, output
            for other, notebook in named:
                assert other != id
                assert notebook == edition.notebook_of(load(other))


def test_no_two_pieces_need_each_other_and_none_needs_a_later_chapter(
    solved: dict[str, Any],
) -> None:
    """In the first round (the notebooks in order, each piece checked once),
    the pieces a check says it needs: never one of a later chapter, and never
    one that needs this piece back (a student could not check either first)."""
    needs: dict[str, set[str]] = {}
    for cells in solved["first"].values():
        for cell in cells:
            id = (cell["id"] or "").removeprefix("check-").replace("-", ".")
            if id in PIECES:
                named = re.findall(r"need(?:s)? exercise (\d+\.\d+)", cell["output"])
                needs[id] = set(named)
    assert len(needs) == len(PIECES)
    for piece, needed in needs.items():
        for other in needed:
            chapter = int(piece.split(".")[0])
            assert int(other.split(".")[0]) <= chapter, (piece, "needs", other)
            assert piece not in needs.get(other, set()), (piece, "and", other)


def test_after_the_solutions_every_piece_is_saved_and_every_check_passes(
    solved: dict[str, Any],
) -> None:
    out = solved["out"]
    saved = sorted((out / "exercises/my_engine").glob("ex*.py"))
    assert len(saved) == len(PIECES)
    assert solved["rounds"] <= 4
    for notebook in sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")):
        for cell in run_notebook(out, notebook):
            assert cell["error"] is None, cell
            if (cell["id"] or "").startswith("check-"):
                assert "All right!" in cell["output"], cell["output"]
                assert "not written yet" not in cell["output"]
    text = next(p for p in saved if p.name.startswith("ex1_5_")).read_text("utf-8")
    assert text.startswith("# Exercise 1.5, contiguous_strides: your piece")
    # What the README says of this run is what it measures.
    said = re.search(
        r"saves all (\d+) pieces in (\w+) passes over the (\w+) notebooks",
        " ".join((ROOT / "README.md").read_text("utf-8").split()),
    )
    assert said, "the README no longer says how the solutions save the pieces"
    words = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
    notebooks = len(list((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")))
    assert int(said.group(1)) == len(PIECES)
    assert words[said.group(2)] == solved["rounds"] - 1  # the last saves nothing
    assert words[said.group(3)] == notebooks
    loaded = run_python(
        out, "-c", "import slowtorch_lib._class as c; print(c.saved_pieces.loaded())"
    )
    assert eval(loaded) == ENGINE_PIECES  # noqa: S307  (a list of ids)
    # The exercise notebooks (the students' stubs) run without an error, and a
    # stub that fails its check does not replace a saved piece.
    for notebook in sorted((out / "exercises").glob("[0-9][0-9]_*.ipynb")):
        for cell in run_notebook(out, notebook):
            assert cell["error"] is None, cell
    assert len(list((out / "exercises/my_engine").glob("ex*.py"))) == len(PIECES)


def test_pieces_lists_and_reset_deletes_a_saved_piece(
    solved: dict[str, Any], tmp_path: Path
) -> None:
    out = solved["out"]
    shown = run_python(out, "-c", "import course; course.pieces()")
    assert re.search(
        r"2\.9\s+topological_order\s+yours: .*ex2_9_topological_order", shown
    )
    code = (
        "import course, slowtorch_lib as torch\n"
        "course.reset('2.9')\n"
        "try:\n"
        "    torch.tensor([1.0], requires_grad=True).sum().backward()\n"
        "except NotImplementedError as error:\n"
        "    print(error)\n"
    )
    backup = (out / "exercises/my_engine/ex2_9_topological_order.py").read_text()
    try:
        printed = run_python(out, "-c", code)
        assert "deleted your saved 2.9" in printed
        assert "exercise 2.9, `topological_order`, is not written yet" in printed
        assert not (out / "exercises/my_engine/ex2_9_topological_order.py").exists()
    finally:
        (out / "exercises/my_engine/ex2_9_topological_order.py").write_text(backup)


def test_the_epilogue_trains_on_the_students_engine_as_on_torch(
    solved: dict[str, Any],
) -> None:
    pytest.importorskip("torch")
    code = f"""
import json, sys
sys.path.append({str(ROOT / "book")!r})
import slowtorch_lib as st, torch
from course.datasets import load_names
from epilogue_files import names
assert st.__file__.startswith({str(solved["out"])!r}), st.__file__
assert len(st._class.saved_pieces.loaded()) == {len(ENGINE_PIECES)}
data = names.examples(load_names())
batches = names.draw_batches(len(data[0]), steps=20)
weights = names.initial_weights(st)
_, ours, _ = names.train(st, {{k: st.tensor(v) for k, v in weights.items()}}, data,
                         batches)
_, theirs, _ = names.train(torch, {{k: torch.tensor(v) for k, v in weights.items()}},
                           data, batches)
print(json.dumps([ours, theirs]))
"""
    ours, theirs = json.loads(run_python(solved["out"], "-c", code))
    assert len(ours) == len(theirs) == 20
    for step, (a, b) in enumerate(zip(ours, theirs)):
        assert abs(a - b) <= 1e-5 * max(1.0, abs(b)), (step, a, b)


def test_write_engine_for_a_grader_loads_no_saved_piece(tmp_path: Path) -> None:
    edition.write_engine(tmp_path, give={"1.5"}, load_saved=False)
    init = (tmp_path / "slowtorch_lib/__init__.py").read_text("utf-8")
    assert "load_saved" not in init
    strides = (tmp_path / "slowtorch_lib/_strides.py").read_text("utf-8")
    assert "exercise 1.5" not in strides and "exercise 1.7" in strides
    (tmp_path / "my_engine").mkdir()
    (tmp_path / "my_engine/ex1_7_position_list.py").write_text(
        "def position_list(shape, strides, offset):\n    return [offset]\n"
    )
    code = (
        "import slowtorch_lib._class as c, slowtorch_lib as torch\n"
        "print(c.GIVEN, c.saved_pieces.loaded(), torch.zeros(2, 3).stride())\n"
    )
    assert run_python(tmp_path, "-c", code, cwd=tmp_path) == "('1.5',) [] (3, 1)\n"


# --- the chapters, on the class engine ---------------------------------------------

#: Appended to a chapter when it is run: which engine it ran on, with which pieces.
ENGINE_PROBE = (
    "import slowtorch_lib, slowtorch_lib._class as c\n"
    "print(slowtorch_lib.__file__, len(c.saved_pieces.loaded()))"
)


def run_chapter(folder: Path, name: str) -> dict[str, Any]:
    """Runs the chapter notebook ``name`` of an edition in a Jupyter kernel, as
    JupyterLab would (in its folder, the edition first on the path), to its end
    or its first error: the error's name and value, the probe's output, the
    seconds taken."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = folder / "chapters" / name
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(ENGINE_PROBE))
    environment = dict(os.environ, PYTHONPATH=str(folder))
    environment.pop("SLOWTORCH_WORKSPACE", None)
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.monotonic()
    error = None
    try:
        client.execute(env=environment)
    except CellExecutionError as raised:
        error = f"{raised.ename}: {raised.evalue}"
    probe = "".join(o.get("text", "") for o in notebook.cells[-1].get("outputs", []))
    book = json.loads((path.parent / "book_version" / name).read_text("utf-8"))
    notes = []
    for cell, kept in zip(notebook.cells, book["cells"]):
        outputs = cell.get("outputs", [])
        note = outputs[0].get("data", {}).get("text/plain", "") if outputs else ""
        if note.startswith("The book's output"):
            shown = [_plain(output) for output in outputs[1:]]
            notes.append((note, shown, [_plain(o) for o in kept.get("outputs", [])]))
    texts = ["".join(_plain(o) for o in c.get("outputs", [])) for c in notebook.cells]
    return {
        "error": error,
        "probe": probe,
        "notes": notes,
        "texts": texts,
        "seconds": time.monotonic() - start,
    }


def _plain(output: dict[str, Any]) -> str:
    """An output as text (a stream's, or the plain form of a display)."""
    if output["output_type"] == "stream":
        return "".join(output["text"])
    if output["output_type"] == "error":
        return "\n".join(output["traceback"])
    return "".join(output.get("data", {}).get("text/plain", ""))


@pytest.mark.slow
def test_a_fresh_editions_chapters_run_to_the_end_with_the_books_outputs(
    fresh: Path,
) -> None:
    """Run All on a chapter before any piece is written: it goes on to its end,
    and each cell that needs a missing piece shows the book's outputs (those of
    the book version beside the chapters) under a note that names the piece."""
    for name in CHAPTERS:
        done = run_chapter(fresh, name)
        assert done["error"] is None, (name, done["error"])
        assert done["notes"], name
        first = NEEDED.search(done["notes"][0][0])
        assert first and first.group(1) in PIECES, done["notes"][0][0]
        for note, shown, book in done["notes"]:
            assert shown == book, (name, note)


@pytest.fixture(scope="module")
def solved_chapters(solved: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every chapter run in the edition where every piece is saved."""
    ran = {name: run_chapter(solved["out"], name) for name in CHAPTERS}
    seconds = sum(done["seconds"] for done in ran.values())
    sys.stderr.write(f"class edition: the chapters ran in {seconds:.1f} s\n")
    return ran


@pytest.mark.slow
def test_every_chapter_runs_on_the_students_engine(
    solved: dict[str, Any], solved_chapters: dict[str, dict[str, Any]]
) -> None:
    engine = str(solved["out"] / "slowtorch_lib" / "__init__.py")
    for name, done in solved_chapters.items():
        assert done["error"] is None, (name, done["error"])
        assert done["notes"] == [], (name, done["notes"][:1])
        assert done["probe"] == f"{engine} {len(ENGINE_PIECES)}\n", (name, done)


@pytest.mark.slow
def test_the_chapters_demonstrations_say_what_runs_on_the_students_engine(
    solved_chapters: dict[str, dict[str, Any]],
) -> None:
    """Chapter 2 breaks the engine's ``send`` to show why gradients add up: on
    an engine whose backward pass is the student's, which need not call
    ``send``, the page says that nothing was overwritten rather than show right
    gradients under a text that calls them wrong."""
    texts = solved_chapters["02_autograd.ipynb"]["texts"]
    shown = next(text for text in texts if text.startswith("overwriting:"))
    broken = "overwriting: tensor([4., 5., 6.])" in shown
    said = "never called engine.send, so nothing was overwritten" in shown
    assert broken != said, shown


def test_the_class_notes_name_only_what_the_edition_has(fresh: Path) -> None:
    """The exercises' notes of a class edition speak of its own folders: no
    book set-up, no solutions; each folder they name is there."""
    notes = (fresh / "exercises" / "README.md").read_text("utf-8")
    assert "build-book.sh" not in notes and "solutions/" not in notes
    for named in re.findall(r"`(\.\./[\w./-]+)`", notes):
        assert (fresh / "exercises" / named).exists(), named
    assert "grade --student me exercises/" in notes
