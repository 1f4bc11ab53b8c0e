"""The judge: the only part of the grader that holds the expected values.

It prepares the runner's tree (:func:`runner_tree`), starts the runner in
the sandbox (:func:`run_runner`), reads its records from a pipe and keeps
only those that carry this run's nonce and follow the schema strictly
(anything else is ignored and noted), and compares each case's outcome with
the recorded answer itself: outcomes are plain JSON data, so no object of the
student's is ever called. Each exercise gets the fraction of its cases
passed, in [0, 1]; a case the runner did not report (a crash, a timeout, a
malformed line) is not passed.

Predictions are read from the cell's text with :func:`ast.literal_eval`,
never run. The copy check against the model answers is
:mod:`course.similarity`'s.
"""

from __future__ import annotations

import ast
import compileall
import dataclasses
import json
import math
import os
import re
import secrets
import selectors
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course import sandbox, similarity
from course.checking import Exercise, close, prediction, show
from course.runner import imports_in

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent
MAX_RESTARTS = 3
MAX_LINE = 1 * 2**20
SHOWN_FAILURES = 3
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,79}$")
LEAK_WINDOW = 24


# --- the runner's tree -------------------------------------------------------------


RUNNER_INIT = '"""The course package as the runner sees it: cases, no answers."""\n'
RUNNER_FILES = ("checking.py", "substitute.py", "datasets.py", "workspace.py")


def class_engine(dest: Path, given: Collection[str] = ()) -> None:
    """Writes the class edition's engine (every exercise's piece a stub but
    those ``given``, as ``release --give`` ships them; nothing loaded from a
    workspace) into ``dest/slowtorch_lib``, and the case programs, with the
    pieces that live in them stubbed too, into ``dest/course/checks``. From a
    class edition (an exported autograder), its engine and checks are copied
    as they are."""
    engine = ROOT / "slowtorch_lib"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    checks = dest / "course" / "checks"
    if (engine / "_class").is_dir():
        shutil.copytree(engine, dest / "slowtorch_lib", ignore=ignore)
        shutil.copytree(PACKAGE / "checks", checks, ignore=ignore)
        return
    from course import edition

    edition.write_engine(dest, given, load_saved=False)
    checks.mkdir(parents=True)
    for path in sorted((PACKAGE / "checks").glob("*.py")):
        shutil.copy(path, checks / path.name)
    edition.stub_course(dest / "course", given)


def runner_tree(dest: Path, given: Collection[str] = ()) -> Path:
    """Writes what the runner may see into ``dest``: the class engine (with
    the pieces ``given``), the case programs (public and grading-only, no
    recorded answers, their own pieces stubbed), what they import, and the
    runner itself. Returns ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    class_engine(dest, given)
    course = dest / "course"
    (course / "__init__.py").write_text(RUNNER_INIT, encoding="utf-8")
    for name in RUNNER_FILES:
        shutil.copy(PACKAGE / name, course / name)
    shutil.copytree(PACKAGE / "data", course / "data")
    for path in (course / "checks").glob("*.json"):
        path.unlink()
    shutil.copy(PACKAGE / "runner.py", dest / "runner.py")
    # Compiled once here: the runner's tree is read-only, and each runner
    # would otherwise compile the whole engine again.
    compileall.compile_dir(dest, ddir="/runner", quiet=1, workers=1)
    for path in dest.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    dest.chmod(0o755)
    return dest


# --- the judge's answers -----------------------------------------------------------


@dataclass
class Answers:
    """What only the judge holds: recorded outcomes, the grading-only cases'
    text (to keep it out of feedback), the model answers' fingerprints, and,
    once a run's seed is drawn (:meth:`draw`), the drawn cases' expected
    outcomes, computed here on the complete engine (``engine``: the folder
    that holds it)."""

    expected: dict[str, dict[str, Any]]
    secret_text: str
    fingerprints: dict[str, list[str]]
    needs: dict[str, list[list[str]]] = field(default_factory=dict)
    engine: Path | None = None
    seed: str = ""
    drawn: dict[str, list[Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, folder: Path | None = None) -> Answers:
        """From ``folder`` (an exported autograder), else from the course."""
        if folder is not None:
            data = json.loads((folder / "answers.json").read_text("utf-8"))
            engine = folder / "engine"
            return cls(  # the complete engine, when the export carries it
                data["expected"],
                data["secret_text"],
                data["fingerprints"],
                data.get("needs", {}),
                engine if (engine / "slowtorch_lib").is_dir() else None,
            )
        expected: dict[str, dict[str, Any]] = {}
        for name in ("expected.json", "expected_grading.json"):
            path = PACKAGE / "checks" / name
            if path.exists():
                for exercise, cases in json.loads(path.read_text("utf-8")).items():
                    expected.setdefault(exercise, {}).update(cases)
        # What the runner could read and quote: the grading-only programs (the
        # recorded answers never reach it).
        secret = "\n".join(
            p.read_text("utf-8") for p in sorted(PACKAGE.glob("checks/grading_*.py"))
        )
        return cls(expected, secret, similarity.model_prints(), dependencies(), ROOT)

    def save(self, folder: Path) -> None:
        """Writes the answers and the complete engine (for the drawn cases)
        into ``folder``: what only the judge may read."""
        data = {
            "expected": self.expected,
            "secret_text": self.secret_text,
            "fingerprints": self.fingerprints,
            "needs": self.needs,
        }
        (folder / "answers.json").write_text(json.dumps(data), encoding="utf-8")
        if self.engine is not None and folder.resolve() != self.engine.resolve():
            reference_tree(self.engine, folder / "engine")

    def draw(self, seed: str | None = None) -> Answers:
        """These answers with a fresh seed drawn for this run, and the drawn
        cases' expected outcomes for it, computed by the complete engine in a
        process of its own (never in the sandbox)."""
        seed = seed or secrets.token_hex(16)
        if self.engine is None:
            raise RuntimeError(
                "no complete engine to compute the drawn cases' answers with"
            )
        done = subprocess.run(
            [sys.executable, "-m", "course.record", "--drawn", seed],
            cwd=self.engine,
            env=dict(os.environ, PYTHONPATH=str(self.engine)),
            capture_output=True,
            text=True,
            check=True,
        )
        drawn = json.loads(done.stdout)
        return dataclasses.replace(self, seed=seed, drawn=drawn)

    def want(self, exercise: Exercise, index: int) -> Any:
        """The expected outcome of a case (the runner's numbering)."""
        fixed = len(exercise.cases) + len(exercise.grading_cases)
        if index < fixed:
            label = all_cases(exercise)[index].label
            return self.expected.get(exercise.id, {}).get(label, MISSING)
        found = self.drawn.get(exercise.id, [])
        return found[index - fixed] if index - fixed < len(found) else MISSING

    def leaks(self, text: str) -> bool:
        """Whether ``text`` quotes the grading-only cases."""
        return any(
            text[i : i + LEAK_WINDOW] in self.secret_text
            for i in range(0, max(1, len(text) - LEAK_WINDOW + 1))
            if len(text) >= LEAK_WINDOW
        )


MISSING = {"missing": "not recorded"}


def reference_tree(root: Path, dest: Path) -> None:
    """Copies from ``root`` into ``dest`` what computes the drawn cases'
    answers: the complete engine and the case programs, pieces and all (an
    exported autograder's judge keeps it where only the judge reads)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(root / "slowtorch_lib", dest / "slowtorch_lib", ignore=ignore)
    course = dest / "course"
    shutil.copytree(root / "course" / "checks", course / "checks", ignore=ignore)
    shutil.copytree(root / "course" / "data", course / "data", ignore=ignore)
    for name in (*RUNNER_FILES, "record.py", "saved_pieces.py"):
        shutil.copy(root / "course" / name, course / name)
    (course / "__init__.py").write_text('"""The judge\'s reference."""\n', "utf-8")


def dependencies() -> dict[str, list[list[str]]]:
    """Which other pieces each case reaches (:mod:`course.dependencies`),
    measured on the complete engine in a process of its own."""
    if ROOT not in _NEEDS:
        done = subprocess.run(
            [sys.executable, "-m", "course.dependencies"],
            cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            capture_output=True,
            text=True,
            check=True,
        )
        _NEEDS[ROOT] = json.loads(done.stdout)
    return _NEEDS[ROOT]


_NEEDS: dict[Path, dict[str, list[list[str]]]] = {}


# --- grades ------------------------------------------------------------------------


@dataclass
class Graded:
    """The grade of one exercise in one notebook."""

    id: str
    title: str
    points: float = 0.0
    passed: int = 0
    total: int = 0
    status: str = "missing"
    message: str = ""
    failures: list[dict[str, Any]] = field(default_factory=list)
    hidden_failed: int = 0
    hints: list[str] = field(default_factory=list)
    knock_on: dict[str, int] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)


def all_cases(exercise: Exercise) -> list[Any]:
    """Public, fixed grading-only, then drawn cases: the runner's numbering."""
    return [*exercise.cases, *exercise.grading_cases, *exercise.drawn_cases]


# --- the runner's records ----------------------------------------------------------


@dataclass
class Run:
    """What one or more runner runs reported, after checking."""

    cells: dict[str, dict[str, Any]] = field(default_factory=dict)
    cases: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    ends: dict[str, dict[str, Any]] = field(default_factory=dict)
    ignored: dict[str, int] = field(default_factory=dict)
    conflicts: set[tuple[str, int]] = field(default_factory=set)
    finished: set[str] = field(default_factory=set)
    broken: dict[str, str] = field(default_factory=dict)
    ending: str | None = None

    def ignore(self, why: str) -> None:
        self.ignored[why] = self.ignored.get(why, 0) + 1


def plain_ok(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is plain, bounded JSON data."""
    if depth > 40:
        return False
    if value is None or isinstance(value, (bool, str)):
        return not isinstance(value, str) or len(value) <= 100_000
    if isinstance(value, int):
        return abs(value) < 2**63
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return len(value) <= 100_000 and all(plain_ok(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return len(value) <= 10_000 and all(
            isinstance(k, str) and plain_ok(v, depth + 1) for k, v in value.items()
        )
    return False


def error_ok(error: Any) -> bool:
    if error is None:
        return True
    return (
        isinstance(error, dict)
        and set(error) == {"type", "message", "lines"}
        and isinstance(error["type"], str)
        and (error["type"] == "" or bool(IDENTIFIER.match(error["type"])))
        and isinstance(error["message"], str)
        and len(error["message"]) <= 400
        and isinstance(error["lines"], list)
        and len(error["lines"]) <= 4
        and all(type(n) is int and 0 <= n <= 1_000_000 for n in error["lines"])
    )


def strings_ok(values: Any) -> bool:
    return (
        isinstance(values, list)
        and len(values) <= 20
        and all(isinstance(v, str) and len(v) <= 300 for v in values)
    )


KEYS = {
    "ready": {"kind"},
    "start": {"kind", "exercise"},
    "finish": {"kind", "exercise"},
    "end": {"kind", "exercise", "status", "detail"},
    "cell": {"kind", "exercise", "defined", "error", "reference", "tampering"},
    "case": {
        "kind",
        "exercise",
        "index",
        "label",
        "outcome",
        "error",
        "stub",
        "reference",
    },
}


class Reader:
    """Checks the runner's lines for one run, in order."""

    def __init__(
        self, nonce: str, exercises: dict[str, Exercise], run: Run, todo: list[str]
    ) -> None:
        self.prefix = nonce.encode() + b" "
        self.exercises = exercises
        self.run = run
        self.todo = todo
        self.current: str | None = None
        self.started: list[str] = []

    def line(self, raw: bytes) -> None:
        if not raw.startswith(self.prefix):
            self.run.ignore("lines without this run's nonce")
            return
        try:
            record = json.loads(raw[len(self.prefix) :], parse_constant=_refuse)
        except (ValueError, RecursionError):
            self.break_sequence("lines that are not JSON")
            return
        problem = self.problem(record)
        if problem:
            self.break_sequence(problem)
            return
        self.take(record)

    def break_sequence(self, why: str) -> None:
        """A line the runner's own code never writes: ignored, and the
        exercise whose child was running when it came scores nothing."""
        self.run.ignore(why)
        if self.current is not None:
            self.run.broken.setdefault(self.current, why)

    def problem(self, record: Any) -> str | None:
        if not isinstance(record, dict) or record.get("kind") not in KEYS:
            return "records of no known kind"
        kind = record["kind"]
        if set(record) != KEYS[kind]:
            return "records with wrong fields"
        if kind == "ready":
            return None
        exercise = record["exercise"]
        if exercise not in self.todo:
            return "records for an exercise not asked for"
        if kind == "start":
            return None if exercise not in self.started else "exercises started twice"
        if exercise != self.current:
            return "records out of order"
        if kind == "end":
            ok = record["status"] in ("done", "timeout", "crashed")
            ok = (
                ok and isinstance(record["detail"], str) and len(record["detail"]) < 500
            )
            return None if ok else "end records out of range"
        if exercise in self.run.finished:
            return "records after the exercise's last record"
        if kind == "finish":
            return None
        if kind == "cell":
            ok = isinstance(record["defined"], bool) and error_ok(record["error"])
            ok = ok and strings_ok(record["reference"])
            ok = ok and strings_ok(record["tampering"])
            if not ok:
                return "cell records out of range"
            return "cells reported twice" if exercise in self.run.cells else None
        return self.case_problem(record)

    def case_problem(self, record: dict[str, Any]) -> str | None:
        exercise = record["exercise"]
        cases = all_cases(self.exercises[exercise])
        index = record["index"]
        if type(index) is not int or not 0 <= index < len(cases):
            return "cases out of range"
        if record["label"] != cases[index].label:
            return "cases with a wrong label"
        if index in self.run.cases.get(exercise, {}):
            self.run.conflicts.add((exercise, index))  # neither counts
            return "cases reported twice"
        if exercise not in self.run.cells:
            return "cases before their cell"
        if any(i > index for i in self.run.cases.get(exercise, {})):
            return "cases out of order"
        ok = isinstance(record["stub"], bool) and error_ok(record["error"])
        ok = ok and strings_ok(record["reference"]) and plain_ok(record["outcome"])
        return None if ok else "case records out of range"

    def take(self, record: dict[str, Any]) -> None:
        kind = record["kind"]
        exercise = str(record.get("exercise"))
        if kind == "start":
            self.current = exercise
            self.started.append(exercise)
        elif kind == "cell":
            self.run.cells[exercise] = record
        elif kind == "case":
            self.run.cases.setdefault(exercise, {})[record["index"]] = record
        elif kind == "finish":
            self.run.finished.add(exercise)
        elif kind == "end":
            self.run.ends[exercise] = record
            self.current = None


def _refuse(name: str) -> Any:
    raise ValueError(name)


def runner_command(tree: Path, sandboxed: bool) -> list[str]:
    python = sandbox.interpreter()
    if sandboxed:
        return sandbox.command(tree, [python, "-I", "-S", "/runner/runner.py"])
    return [python, "-I", "-S", str(tree / "runner.py")]


def run_runner(
    tree: Path,
    jobs: list[tuple[str, str]],
    exercises: dict[str, Exercise],
    run: Run,
    limits: sandbox.Limits,
    sandboxed: bool,
    pieces: dict[str, str] | None = None,
    seed: str = "",
) -> list[str]:
    """Runs the runner once on ``jobs`` (with the student's ``pieces``,
    their answers to the exercises, put in place of the other stubs, and the
    run's ``seed`` for the drawn cases); adds what it reported to ``run``;
    returns the exercises it started."""
    nonce = secrets.token_hex(16)
    job = {
        "exercises": jobs,
        "pieces": sorted((pieces or {}).items()),
        "seed": seed,
        "seconds": limits.seconds,
        "sandboxed": sandboxed,
        "limits": {
            "memory": limits.memory,
            "file_size": limits.file_size,
            "processes": limits.processes if sandboxed else 0,
        },
    }
    reader = Reader(nonce, exercises, run, [e for e, _ in jobs])
    deadline = time.monotonic() + 20 + (limits.seconds + 2) * len(jobs)
    work = Path(tree.parent / f"work-{secrets.token_hex(4)}")
    work.mkdir()
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(work), "LANG": "C.UTF-8"}
    with sandbox.process_cap(limits.processes + 8) as join:
        process = subprocess.Popen(
            runner_command(tree, sandboxed),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=work,
            env=environment,
            start_new_session=True,
            preexec_fn=join,  # noqa: PLW1509  (only writes a pid to a file)
        )
        feeder = threading.Thread(target=_feed, args=(process, nonce, job), daemon=True)
        feeder.start()
        run.ending = _read(process, reader, deadline, limits.output)
        _stop(process)
    shutil.rmtree(work, ignore_errors=True)
    return reader.started


def _feed(process: subprocess.Popen[bytes], nonce: str, job: dict[str, Any]) -> None:
    assert process.stdin is not None
    try:
        process.stdin.write(nonce.encode() + b"\n" + json.dumps(job).encode())
        process.stdin.close()
    except OSError:
        pass


def _read(
    process: subprocess.Popen[bytes], reader: Reader, deadline: float, cap: int
) -> str | None:
    """Reads the runner's lines until it ends; why it ended early, or None."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    os.set_blocking(fd, False)
    received = 0
    buffer = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "the runner ran out of time"
            if not selector.select(min(left, 1.0)):
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                break
            received += len(chunk)
            if received > cap:
                return f"the runner wrote more than {cap} bytes"
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            if len(buffer) > MAX_LINE:
                return "the runner wrote a line that is too long"
            for line in lines:
                reader.line(line)
    if buffer:
        reader.run.ignore("unfinished lines")
    code = process.wait()
    if code != 0:
        return f"the runner stopped (code {code}: killed from inside?)"
    return None


def _stop(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, 9)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.kill()
    except OSError:
        pass
    process.wait()
    for stream in (process.stdout, process.stdin):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass


def run_pieces(
    tree: Path,
    sources: dict[str, str],
    exercises: dict[str, Exercise],
    limits: sandbox.Limits,
    sandboxed: bool,
    pieces: dict[str, str] | None = None,
    restarts: int = MAX_RESTARTS,
    seed: str = "",
) -> Run:
    """Runs every piece exercise's answer; starts the runner again after one
    that stopped it (at most ``restarts`` times)."""
    run = Run()
    todo = [e for e in exercises if e in sources]
    for _ in range(restarts + 1):
        if not todo:
            break
        started = run_runner(
            tree,
            [(e, sources[e]) for e in todo],
            exercises,
            run,
            limits,
            sandboxed,
            pieces,
            seed,
        )
        for exercise in started:
            if exercise not in run.ends:
                late = bool(run.ending) and "out of time" in str(run.ending)
                run.ends[exercise] = {
                    "status": "timeout" if late else "crashed",
                    "detail": run.ending or "the runner stopped",
                }
        if not started:
            for exercise in todo:
                run.ends[exercise] = {
                    "status": "crashed",
                    "detail": run.ending or "the runner did not start",
                }
        todo = [e for e in todo if e not in run.ends]
    for exercise in todo:
        run.ends[exercise] = {
            "status": "crashed",
            "detail": "not graded: earlier cells stopped the runner too often",
        }
    return run


# --- the student's other pieces ----------------------------------------------------


def piece_of(exercise: Exercise, source: str) -> str | None:
    """What the runner puts in place of this exercise's stub while it grades
    the other exercises: the answer's definitions, as the student's notebook
    saves them (no prints, no experiments), or None for a stub or an answer
    that uses the reference (its stub stays). What the definitions do when
    they run is watched in the runner as the answer cell's own code is."""
    from course.saved_pieces import piece_text

    if exercise.kind != "piece" or not exercise.target:
        return None
    if imports_in(source, exercise):
        return None
    try:
        text = piece_text(source, exercise.name)
        return None if is_stub(text, exercise.name) else text
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def is_stub(text: str, name: str) -> bool:
    """Whether the definition of ``name`` that counts (the last one, as
    Python binds it) is still the exercise's stub: a function whose body
    only raises NotImplementedError (or is ``...``), or a class with such a
    method."""
    last: ast.stmt | None = None
    for node in ast.parse(text).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name == name:
                last = node
    if isinstance(last, ast.ClassDef):
        return any(
            _stub_body(item.body)
            for item in last.body
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
        )
    if isinstance(last, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _stub_body(last.body)
    return False


def _stub_body(body: list[ast.stmt]) -> bool:
    if (
        len(body) > 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    if len(body) != 1:
        return False
    only = body[0]
    if isinstance(only, ast.Expr) and isinstance(only.value, ast.Constant):
        return only.value.value is Ellipsis
    if isinstance(only, ast.Raise) and only.exc is not None:
        raised = only.exc.func if isinstance(only.exc, ast.Call) else only.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


def unusable(exercise_id: str, run: Run) -> bool:
    """Whether the answer did not give a piece: not defined, a stub, the
    reference, or tampering (its stub stays, in the notebook too)."""
    cell = run.cells.get(exercise_id)
    if cell is None or not cell["defined"] or cell["reference"] or cell["tampering"]:
        return True
    cases = run.cases.get(exercise_id, {}).values()
    return any(r["stub"] or r["reference"] for r in cases)


# --- judging -----------------------------------------------------------------------


FIXED_SHARE = 0.15  # of an exercise's marks, at most, on cases with fixed inputs
SHOWN_STRING = re.compile(r"^(torch\.[a-z0-9_]{1,20}|[a-z_]{1,12})$")
COMPILER = re.compile(r"^[A-Za-z ,'()]{1,60}$")


def render_error(error: dict[str, Any] | None, source: str) -> str:
    """The student's own lines and the exception's type: never its message,
    which the student's code may have chosen (a compiler's message about the
    cell itself excepted)."""
    if not error:
        return ""
    lines = source.splitlines()
    shown = []
    for number in error["lines"]:
        if 1 <= number <= len(lines):
            shown.append(f"  line {number}: {lines[number - 1].strip()[:120]}")
    head = error["type"]
    if head in ("SyntaxError", "IndentationError", "TabError"):
        message = error["message"]
        head += f": {message}" if COMPILER.match(message or "-") else ""
    return "\n".join([*shown, head])


def shaped(got: Any, want: Any, depth: int = 0) -> bool:
    """Whether an outcome has the shape of the expected one, with no text
    of its own: numbers, booleans, None, lists and dicts with the expected
    keys, exception and dtype names. Anything else is not shown."""
    if depth > 20:
        return False
    if got is None or isinstance(got, (bool, int, float)):
        return True
    if isinstance(got, str):
        return bool(SHOWN_STRING.match(got)) or got in _strings(want)
    if isinstance(got, list):
        inner = want if isinstance(want, list) else []
        return len(got) <= 4096 and all(
            shaped(g, inner[i] if i < len(inner) else None, depth + 1)
            for i, g in enumerate(got)
        )
    if isinstance(got, dict):
        if set(got) == {"raised"}:
            return isinstance(got["raised"], str) and bool(
                IDENTIFIER.match(got["raised"])
            )
        keys = set(want) if isinstance(want, dict) else set()
        return set(got) <= keys and all(
            shaped(v, want[k], depth + 1) for k, v in got.items()
        )
    return False


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, list):
        return {s for v in value for s in _strings(v)}
    if isinstance(value, dict):
        return {s for v in value.values() for s in _strings(v)}
    return set()


def knock_on(
    exercise: Exercise, index: int, answers: Answers, doubtful: Collection[str]
) -> list[str]:
    """The student's doubtful other pieces (failing some of their own cases,
    or not answered) that this case also runs (the judge's own map)."""
    needs = answers.needs.get(exercise.id, [])
    reached = needs[index] if index < len(needs) else []
    return sorted(set(reached) & set(doubtful), key=_order)


def also_runs(found: list[str]) -> str:
    if not found:
        return ""
    return (
        f"this case also runs your answer to exercise{'s' * (len(found) > 1)} "
        f"{', '.join(found)}, which "
        + ("fails some of its" if len(found) == 1 else "fail some of their")
        + " own cases (or is not written)"
    )


def _order(exercise_id: str) -> tuple[int, ...]:
    return tuple(int(n) for n in exercise_id.split(".") if n.isdigit())


def stub_answer(exercise: Exercise, source: str) -> bool:
    """Whether the graded cell itself still holds the stub (what it defines
    last under the exercise's name, read from its text, never run)."""
    from course.saved_pieces import piece_text

    try:
        return is_stub(piece_text(source, exercise.name), exercise.name)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def later_cases(
    exercise: Exercise, answers: Answers, given: Collection[str] = ()
) -> set[int]:
    """The cases that reach a piece of a later chapter, not given: they do
    not count (the judge's own map, :mod:`course.dependencies`)."""
    chapter = _order(exercise.id)[0]
    return {
        index
        for index, reached in enumerate(answers.needs.get(exercise.id, []))
        if any(_order(e)[0] > chapter and e not in given for e in reached)
    }


def marks(fixed: tuple[int, int], drawn: tuple[int, int]) -> float:
    """An exercise's points from its (passed, total) fixed and drawn cases:
    the fixed ones (public or recorded: their answers can be known in
    advance) carry at most ``FIXED_SHARE``."""
    share = fixed[0] / fixed[1] if fixed[1] else 0.0
    if not drawn[1]:
        return share
    return FIXED_SHARE * share + (1 - FIXED_SHARE) * drawn[0] / drawn[1]


def judge_piece(
    exercise: Exercise,
    source: str,
    run: Run,
    answers: Answers,
    doubtful: Collection[str] = (),
    given: Collection[str] = (),
) -> Graded:
    """The grade of a piece, from what the judge checks itself: each case's
    outcome against the recorded answer (fixed cases) or the answer it
    computed for this run's drawn inputs (drawn cases, most of the marks).
    Which cases count depends on the course alone, never on the submission:
    those that reach a piece of a later chapter not ``given`` do not (no
    student has it yet); every other one does, whatever the submission's
    other pieces. A failed case that also runs one of the student's pieces in
    ``doubtful`` is reported as a knock-on, never left out (leaving it out
    would pay for breaking one's own other pieces)."""
    cases = all_cases(exercise)
    later = later_cases(exercise, answers, given)
    graded = Graded(exercise.id, exercise.title, total=len(cases) - len(later))
    cell = run.cells.get(exercise.id)
    reported = run.cases.get(exercise.id, {})
    end = run.ends.get(exercise.id, {"status": "crashed", "detail": "no result"})
    reference = list(imports_in(source, exercise))
    reference += list(cell["reference"]) if cell else []
    for record in reported.values():
        reference += record["reference"]
    if reference:
        graded.status = "reference"
        graded.message = "uses the reference: " + ", ".join(dict.fromkeys(reference))
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
        return graded
    if stub_answer(exercise, source):
        graded.status = "not attempted"
        graded.message = "the stub is still there"
        return graded
    if exercise.id in run.broken:
        graded.status = "refused"
        graded.message = (
            "the exercise's process wrote records the runner never writes "
            f"({run.broken[exercise.id]}): nothing it reported counts"
        )
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
        return graded
    if cell is None:
        graded.status = "stopped"
        graded.message = end["detail"] or "the answer cell did not finish"
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
        return graded
    if cell["error"]:
        graded.flags.append(
            f"exercise {exercise.id}: the answer cell raised {cell['error']['type']}"
        )
    if cell["tampering"]:
        graded.status = "refused"
        graded.message = (
            "the cell reached into the grader or the system, or left running "
            "what could change the cases: " + ", ".join(cell["tampering"])
        )
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
        return graded
    if not cell["defined"]:
        graded.status = "error"
        graded.message = f"the cell does not define {exercise.name}"
        if cell["error"]:
            graded.message += "; it raised:\n" + render_error(cell["error"], source)
        return graded
    public = len(exercise.cases)
    fixed_total = public + len(exercise.grading_cases)
    failed_main: list[tuple[int, dict[str, Any] | None]] = []
    failed_convention: list[tuple[int, dict[str, Any] | None]] = []
    passed = [0, 0]
    knocked: dict[str, int] = {}
    for index, case in enumerate(cases):
        if index in later:
            continue
        found: dict[str, Any] | None = reported.get(index)
        if (exercise.id, index) in run.conflicts:
            found = None
        if found is not None and close(answers.want(exercise, index), found["outcome"]):
            passed[index >= fixed_total] += 1
            continue
        for other in knock_on(exercise, index, answers, doubtful):
            knocked[other] = knocked.get(other, 0) + 1
        if index >= public:
            graded.hidden_failed += 1
            continue
        target = failed_convention if case.convention else failed_main
        target.append((index, found))
    for index, failed in (failed_main + failed_convention)[:SHOWN_FAILURES]:
        case = cases[index]
        want = answers.want(exercise, index)
        if failed is None:
            got = "no result"
        elif shaped(failed["outcome"], want):
            got = show(failed["outcome"])
        else:
            got = "(not shown: not the shape of an outcome)"
        graded.failures.append(
            {
                "label": case.label,
                "convention": case.convention,
                "expected": show(want),
                "got": got,
                "error": render_error(failed and failed["error"], source),
                "also": also_runs(knock_on(exercise, index, answers, doubtful)),
            }
        )
    graded.passed = sum(passed)
    fixed_counted = fixed_total - len([i for i in later if i < fixed_total])
    drawn_counted = (
        len(cases) - fixed_total - len([i for i in later if i >= fixed_total])
    )
    graded.points = marks((passed[0], fixed_counted), (passed[1], drawn_counted))
    graded.points = min(1.0, max(0.0, graded.points))
    graded.status = "graded"
    if knocked:
        graded.knock_on = knocked
        graded.flags.append(
            f"exercise {exercise.id}: knock-on: "
            + ", ".join(f"{n} failed case(s) also run {e}" for e, n in knocked.items())
        )
    if end["status"] == "timeout":  # killed by the runner: what it did counts
        graded.status = "stopped"
        graded.message = end["detail"]
        graded.flags.append(f"exercise {exercise.id}: {end['detail']}")
    elif end["status"] != "done":  # ended on its own before its finish record
        graded.status = "stopped"
        graded.message = end["detail"] + ": its cases do not count"
        graded.points = 0.0
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
    if graded.passed < graded.total:
        from course.checking import hint_for

        main_failed = bool(failed_main) or graded.hidden_failed > 0
        hints = [hint_for(exercise, tier, main_failed) for tier in (1, 2)]
        graded.hints = [h for h in dict.fromkeys(hints) if h]
    return graded


# --- predictions: read, never run --------------------------------------------------


def read_predictions(source: str, name: str) -> tuple[dict[str, Any] | None, str]:
    """The dict assigned to ``name`` in the cell, read as literals."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None, "the cell is not valid Python"
    found = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            found = node.value
    if found is None:
        return None, f"the cell does not assign {name}"
    if not isinstance(found, ast.Dict):
        return None, f"{name} is not written as a dict"
    answers: dict[str, Any] = {}
    for key, value in zip(found.keys, found.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            continue
        answers[key.value] = _literal(value)
    return answers, ""


NOT_LITERAL = "(not a literal: predictions are read, not run)"
OPERATORS: dict[type, Any] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
STRING_METHODS = ("split", "strip", "lower", "upper")


class NotLiteral(ValueError):
    """A prediction that is more than literals and arithmetic."""


def _literal(node: ast.expr) -> Any:
    """A prediction's value, read without running anything: literals, lists,
    tuples, dicts, arithmetic on numbers, ``"a b".split()``, and dotted names
    (``torch.float32``) as text."""
    try:
        return _value(node, 0)
    except (NotLiteral, ArithmeticError, TypeError, ValueError, RecursionError):
        return NOT_LITERAL


def _value(node: ast.expr, depth: int) -> Any:
    if depth > 30:
        raise NotLiteral("too deep")
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(item, depth + 1) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {
            _value(k, depth + 1): _value(v, depth + 1)
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None
        }
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        number = _number(_value(node.operand, depth + 1))
        return -number if isinstance(node.op, ast.USub) else number
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        left, right = _value(node.left, depth + 1), _value(node.right, depth + 1)
        if isinstance(left, str) and isinstance(right, str):
            if not isinstance(node.op, ast.Add) or len(left) + len(right) > 10_000:
                raise NotLiteral("not a literal")
            return left + right
        left = _number(_value(node.left, depth + 1))
        right = _number(_value(node.right, depth + 1))
        if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 1e6):
            raise NotLiteral("too large")
        return OPERATORS[type(node.op)](left, right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
        and node.func.attr in STRING_METHODS
        and not node.keywords
        and len(node.args) <= 1
    ):
        args = [_value(a, depth + 1) for a in node.args]
        if not all(isinstance(a, str) for a in args):
            raise NotLiteral("a method call")
        return getattr(node.func.value.value, node.func.attr)(*args)
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        dotted = ".".join([node.id, *reversed(parts)])
        return dotted if dotted.startswith("torch.") else dotted.split(".")[-1]
    raise NotLiteral(type(node).__name__)


def _number(value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise NotLiteral("not a number")
    return value


def judge_prediction(exercise: Exercise, source: str, answers: Answers) -> Graded:
    cases = all_cases(exercise)
    graded = Graded(exercise.id, exercise.title, total=len(cases))
    expected = answers.expected.get(exercise.id, {})
    reference = imports_in(source, exercise)
    if reference:
        graded.status = "reference"
        graded.message = "uses the reference: " + ", ".join(reference)
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
        return graded
    predicted, problem = read_predictions(source, exercise.name)
    if predicted is None:
        graded.status = "error"
        graded.message = problem
        return graded
    if any(value is ... for value in predicted.values()):
        graded.status = "not attempted"
        graded.message = "the stub is still there"
        return graded
    for index, case in enumerate(cases):
        want = expected.get(case.label, {"missing": "not recorded"})
        got: Any = (
            prediction(predicted[case.label]) if case.label in predicted else None
        )
        if case.label in predicted and close(want, got):
            graded.passed += 1
        elif index >= len(exercise.cases):
            graded.hidden_failed += 1
        elif len(graded.failures) < SHOWN_FAILURES:
            graded.failures.append(
                {
                    "label": case.label,
                    "convention": case.convention,
                    "expected": show(want),
                    "got": show(got) if case.label in predicted else "(no answer)",
                    "error": "",
                }
            )
    graded.points = graded.passed / len(cases) if cases else 0.0
    graded.status = "graded"
    return graded


# --- code that reaches outside the exercise: flagged for the teacher --------------

SUSPECT_MODULES = {
    "gc", "inspect", "sys", "os", "posix", "threading", "_thread", "signal",
    "atexit", "subprocess", "multiprocessing", "socket", "ssl", "ctypes",
    "importlib", "builtins", "resource", "shutil", "pathlib", "io", "urllib",
    "http", "pty", "fcntl", "mmap", "pickle", "marshal", "json", "faulthandler",
    "tracemalloc", "asyncio", "concurrent", "glob", "tempfile",
}  # fmt: skip
SUSPECT_NAMES = {
    "__globals__", "__subclasses__", "__code__", "__closure__", "__builtins__",
    "__import__", "__loader__", "__spec__", "f_back", "f_globals", "f_locals",
    "f_builtins", "tb_frame", "gi_frame", "cr_frame", "_getframe", "settrace",
    "setprofile", "open", "exec", "eval", "compile", "globals", "breakpoint",
}  # fmt: skip


LYING_METHODS = {"__eq__", "__ne__", "__repr__", "__str__", "__hash__", "__bool__"}


def suspicious(source: str) -> list[str]:
    """What in the cell's text reaches outside the exercise (the interpreter,
    the operating system, other processes, files, the network)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {
                a.name for a in node.names if a.name.split(".")[0] in SUSPECT_MODULES
            }
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.split(".")[0] in SUSPECT_MODULES:
                found.add(module)
        elif isinstance(node, ast.Attribute) and node.attr in SUSPECT_NAMES:
            found.add(node.attr)
        elif isinstance(node, ast.Name) and node.id in SUSPECT_NAMES:
            found.add(node.id)
        elif isinstance(node, ast.FunctionDef) and node.name in LYING_METHODS:
            found.add(f"defines {node.name}")
    return sorted(found)


# --- the copy check ----------------------------------------------------------------


def copied(exercise_id: str, source: str, answers: Answers) -> bool:
    found = similarity.copied_from_model(exercise_id, source, answers.fingerprints)
    return found is not None
