"""Grading a class's notebooks: ``python -m course grade``.

For each submitted notebook the grader

1. reads it as plain JSON (so notebooks saved by JupyterLab, Jupyter
   Notebook or JupyterLite, with any kernel name and metadata, are read the
   same way; a file that is not a notebook gets a note and no points);
2. finds its chapter (notebook metadata, else its cells' tags, else the file
   name) and, for each exercise of the chapter, the student's answer cell (by
   its tag ``exercise-N.M``, else its cell id, else the cell that defines the
   answer's name);
3. runs those cells top to bottom in a fresh process, in a fresh temporary
   folder, with a time limit, each answer alone and graded at once with every
   case, public and grading-only, from a copy of the engine and of the
   checks that the grader took before any notebook ran (see
   :mod:`course.worker`). Check cells are never run: redefining ``check``,
   patching the checker or the engine, or writing files changes nothing;
4. gives each exercise the fraction of its cases passed (0 for a stub, an
   answer that imports the reference, a cell that runs out of time or kills
   its process).

Results come as a table, a CSV file (one row per student, one column per
exercise) and, with ``--feedback``, one Markdown report per student.
"""

from __future__ import annotations

import ast
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course.checking import Exercise, load

PACKAGE = Path(__file__).resolve().parent
ENGINE = PACKAGE.parent / "slowtorch_lib"
TAG = re.compile(r"^(exercise|check)-(\d+)[.-](\d+)$")
MAX_RESTARTS = 3


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
    hints: list[str] = field(default_factory=list)


@dataclass
class Result:
    """The grade of one notebook."""

    path: Path
    student: str
    chapter: int | None = None
    exercises: dict[str, Graded] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def points(self) -> float:
        return sum(g.points for g in self.exercises.values())

    @property
    def ok(self) -> bool:
        return bool(self.exercises) and all(
            g.points == 1 for g in self.exercises.values()
        )


# --- reading notebooks ---------------------------------------------------------


def read_notebook(path: Path) -> dict[str, Any]:
    """The notebook as JSON, with each cell's source as one string.

    Raises:
        ValueError: If the file is not a notebook.
    """
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"not a notebook (not JSON: {error})") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ValueError("not a notebook (no list of cells)")
    for cell in notebook["cells"]:
        if isinstance(cell, dict) and isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
    notebook["cells"] = [c for c in notebook["cells"] if isinstance(c, dict)]
    return notebook


def roles(cell: dict[str, Any]) -> list[tuple[str, str]]:
    """``[(role, exercise id)]`` from a cell's tags, else from its id."""
    tags = (
        cell.get("metadata", {}).get("tags", [])
        if isinstance(cell.get("metadata"), dict)
        else []
    )
    found = []
    for text in [*tags, str(cell.get("id", ""))]:
        match = TAG.match(str(text))
        if match:
            found.append((match.group(1), f"{match.group(2)}.{match.group(3)}"))
        if found:
            break
    return found


def chapter_exercises(chapter: int) -> list[str]:
    import importlib

    try:
        module = importlib.import_module(f"course.checks.ch{chapter:02d}")
    except ImportError:
        return []
    return list(module.EXERCISES)


def find_chapter(notebook: dict[str, Any], path: Path) -> int | None:
    """From the notebook's metadata, else its tags, else its file name."""
    name = str(notebook.get("metadata", {}).get("course", {}).get("chapter", ""))
    for text in (name, ""):
        if re.match(r"^\d\d_", text) and chapter_exercises(int(text[:2])):
            return int(text[:2])
    numbers = {int(e.split(".")[0]) for c in notebook["cells"] for _, e in roles(c)}
    if len(numbers) == 1 and chapter_exercises(min(numbers)):
        return min(numbers)
    prefix = re.match(r"^(\d\d)_", path.name)
    if prefix and chapter_exercises(int(prefix.group(1))):
        return int(prefix.group(1))
    return None


def defines(source: str, name: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
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
    notebook: dict[str, Any], exercises: list[Exercise]
) -> tuple[dict[str, str], list[str]]:
    """The source of each exercise's answer cell, and notes on the layout."""
    code = [c for c in notebook["cells"] if c.get("cell_type") == "code"]
    found: dict[str, str] = {}
    where: dict[tuple[str, str], int] = {}
    for number, cell in enumerate(code):
        for role, exercise in roles(cell):
            where.setdefault((role, exercise), number)
            if role == "exercise" and exercise not in found:
                found[exercise] = str(cell.get("source", ""))
    notes = []
    for exercise in exercises:
        if exercise.id not in found:
            for cell in code:
                if defines(str(cell.get("source", "")), exercise.name):
                    found[exercise.id] = str(cell["source"])
                    notes.append(
                        f"exercise {exercise.id}: its cell lost its tag; found it "
                        f"by the name {exercise.name}"
                    )
                    break
        if ("check", exercise.id) not in where:
            notes.append(
                f"exercise {exercise.id}: its check cell is missing (deleted?); "
                "the grade does not depend on it"
            )
        elif ("exercise", exercise.id) in where and where[
            ("check", exercise.id)
        ] < where[("exercise", exercise.id)]:
            notes.append(
                f"exercise {exercise.id}: the check cell was moved above the "
                "answer; the grade does not depend on it"
            )
    return found, notes


# --- the grader's own copy of the engine and the checks -----------------------------


def grader_files() -> dict[str, bytes]:
    """Every file of the engine and of the course package, read once."""
    files = {}
    for root in (ENGINE, PACKAGE):
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
                files[str(path.relative_to(root.parent))] = path.read_bytes()
    return files


def run_worker(
    jobs: list[tuple[str, str]], files: dict[str, bytes], timeout: float
) -> tuple[list[dict[str, Any]], str | None]:
    """Runs one worker; returns the records it wrote and how it ended."""
    with tempfile.TemporaryDirectory(prefix="course-grade-") as temporary:
        folder = Path(temporary)
        library = folder / "grader"
        for name, data in files.items():
            target = library / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        work = folder / "work"
        work.mkdir()
        results = folder / "results.jsonl"
        job = json.dumps({"results": str(results), "exercises": jobs})
        command = [
            sys.executable,
            "-I",
            "-c",
            f"import sys; sys.path.insert(0, {str(library)!r}); "
            "from course.worker import main; main()",
        ]
        ending = None
        with open(folder / "output.txt", "w") as output:
            process = subprocess.Popen(
                command,
                cwd=work,
                stdin=subprocess.PIPE,
                stdout=output,
                stderr=output,
                start_new_session=True,
            )
            try:
                process.communicate(job.encode(), timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill(process)
                ending = f"timed out after {timeout:g} s (an endless loop?)"
        if ending is None and process.returncode != 0:
            ending = (
                f"the process exited (code {process.returncode}: os._exit or a crash?)"
            )
        records = []
        if results.exists():
            for line in results.read_text(encoding="utf-8").splitlines():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError:
                    break
        if ending is None and not records:
            tail = (folder / "output.txt").read_text(errors="replace")[-500:]
            ending = f"the grader's worker did not start: {tail}"
    return records, ending


def _kill(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, 9)
    except (ProcessLookupError, PermissionError, AttributeError):
        process.kill()
    process.wait()


def grade_answers(
    sources: dict[str, str], order: list[str], files: dict[str, bytes], timeout: float
) -> dict[str, dict[str, Any]]:
    """Grades answers in order; starts again after a cell that hangs or exits."""
    done: dict[str, dict[str, Any]] = {}
    todo = [e for e in order if e in sources]
    restarts = 0
    while todo:
        records, ending = run_worker([(e, sources[e]) for e in todo], files, timeout)
        for record in records:
            if record.get("status") != "started":
                done[record["id"]] = record
        started = [r["id"] for r in records if r.get("status") == "started"]
        stuck = next((e for e in started if e not in done), None)
        if stuck is not None:
            done[stuck] = {
                "id": stuck,
                "status": "stopped",
                "passed": 0,
                "message": ending or "the process stopped",
            }
        elif ending is not None and todo:
            for exercise in todo:
                done.setdefault(
                    exercise,
                    {
                        "id": exercise,
                        "status": "stopped",
                        "passed": 0,
                        "message": ending,
                    },
                )
        todo = [e for e in todo if e not in done]
        restarts += 1
        if restarts > MAX_RESTARTS and todo:
            for exercise in todo:
                done[exercise] = {
                    "id": exercise,
                    "status": "stopped",
                    "passed": 0,
                    "message": "not graded: earlier cells used up the time",
                }
            break
    return done


def grade_one(
    path: Path, student: str, files: dict[str, bytes], timeout: float
) -> Result:
    start = time.monotonic()
    result = Result(path, student)
    try:
        notebook = read_notebook(path)
    except (OSError, ValueError) as error:
        result.notes.append(f"cannot read {path.name}: {error}")
        return result
    result.chapter = find_chapter(notebook, path)
    if result.chapter is None:
        result.notes.append("cannot tell which chapter this notebook is for")
        return result
    exercises = [load(e) for e in chapter_exercises(result.chapter)]
    sources, notes = answer_cells(notebook, exercises)
    result.notes += notes
    order = [e.id for e in exercises]
    records = grade_answers(sources, order, files, timeout)
    for exercise in exercises:
        graded = Graded(exercise.id, exercise.title)
        record = records.get(exercise.id)
        if record is None:
            graded.message = "no answer cell (deleted?)"
        else:
            graded.status = record.get("status", "error")
            graded.total = record.get("total", 0)
            graded.passed = record.get("passed", 0) if graded.status == "graded" else 0
            graded.points = graded.passed / graded.total if graded.total else 0.0
            graded.message = record.get("message", "")
            graded.failures = record.get("failures", [])
            graded.hints = record.get("hints", [])
        result.exercises[exercise.id] = graded
    result.seconds = time.monotonic() - start
    return result


def notebooks_in(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*.ipynb")
        if ".ipynb_checkpoints" not in p.parts and not p.name.startswith(".")
    )


def student_of(path: Path, folder: Path | None) -> str:
    """A submission's student: its first subfolder, else its file name."""
    if folder is None:
        return path.stem
    parts = path.relative_to(folder).parts
    return parts[0] if len(parts) > 1 else path.stem


def grade(
    submissions: list[tuple[Path, str]], timeout: float = 60.0, jobs: int = 1
) -> list[Result]:
    """Grades ``(notebook, student)`` pairs; one :class:`Result` each, in order."""
    files = grader_files()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(
            pool.map(lambda item: grade_one(*item, files, timeout), submissions)
        )


# --- reports ----------------------------------------------------------------------


def status_text(graded: Graded) -> str:
    if graded.status == "graded":
        return f"{graded.passed}/{graded.total}"
    return graded.status


def table(result: Result) -> str:
    """A notebook's per-exercise table, as text."""
    chapter = f"chapter {result.chapter}" if result.chapter else "chapter unknown"
    lines = [f"{result.path}  ({result.student}, {chapter}, {result.seconds:.1f} s)"]
    for graded in result.exercises.values():
        line = (
            f"  {graded.id:<5} {graded.title:<24} {graded.points:4.2f}  "
            f"{status_text(graded)}"
        )
        if graded.status != "graded" and graded.message:
            line += "  " + graded.message.splitlines()[0]
        lines.append(line)
    total = len(result.exercises)
    lines.append(f"  points: {result.points:.2f} of {total}")
    lines += [f"  note: {note}" for note in result.notes]
    return "\n".join(lines)


def by_student(results: list[Result]) -> dict[str, list[Result]]:
    students: dict[str, list[Result]] = {}
    for result in results:
        students.setdefault(result.student, []).append(result)
    return dict(sorted(students.items()))


def exercise_key(exercise: str) -> tuple[int, ...]:
    return tuple(map(int, exercise.split(".")))


def write_csv(results: list[Result], path: Path) -> None:
    """One row per student, one column per exercise (points from 0 to 1)."""
    columns = sorted({e for r in results for e in r.exercises}, key=exercise_key)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["student", *columns, "points", "out of", "notes"])
        for student, mine in by_student(results).items():
            grades = {e: g for r in mine for e, g in r.exercises.items()}
            row = [f"{grades[e].points:.2f}" if e in grades else "" for e in columns]
            points = sum(g.points for g in grades.values())
            notes = "; ".join(f"{r.path.name}: {n}" for r in mine for n in r.notes)
            writer.writerow([student, *row, f"{points:.2f}", len(columns), notes])


def feedback(student: str, results: list[Result]) -> str:
    """A student's report, in Markdown."""
    lines = [f"# Feedback for {student}", ""]
    for result in results:
        lines += [f"## {result.path.name}", ""]
        if not result.exercises:
            lines += [f"- {note}" for note in result.notes] + [""]
            continue
        lines += ["| exercise | points | cases right |", "|---|---|---|"]
        for graded in result.exercises.values():
            right = (
                f"{graded.passed} of {graded.total}"
                if graded.status == "graded"
                else graded.status
            )
            lines.append(
                f"| {graded.id} {graded.title} | {graded.points:.2f} | {right} |"
            )
        lines.append("")
        for graded in result.exercises.values():
            if graded.points == 1:
                continue
            lines += [f"### Exercise {graded.id}: {graded.title}", ""]
            if graded.status != "graded":
                lines += [f"{graded.status}: {graded.message}".rstrip(": "), ""]
                continue
            for failure in graded.failures:
                kind = "PyTorch convention" if failure.get("convention") else "Case"
                lines += [
                    f"- {kind}: `{failure['label']}`",
                    f"  - expected: `{failure['expected']}`",
                    f"  - got: `{failure['got']}`",
                ]
                if failure.get("convention"):
                    lines.append(f"  - the convention: {failure['convention']}")
            lines += [""] + [f"> {hint}" for hint in graded.hints] + [""]
        lines += [f"Note: {note}" for note in result.notes]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write_feedback(results: list[Result], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for student, mine in by_student(results).items():
        safe = re.sub(r"[^\w.-]+", "_", student) or "student"
        path = folder / f"{safe}.md"
        path.write_text(feedback(student, mine), encoding="utf-8")
        written.append(path)
    return written


# --- a student copy ------------------------------------------------------------------

RELEASE_LEFT_OUT = ("grading_ch", "expected_grading.json", "record.py", "sources")


def release(root: Path, out: Path) -> list[Path]:
    """Writes a student copy: the engine, the course package without grading-only
    cases or solutions, the exercise notebooks, and what installs them."""
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty")
    out.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")

    def course_ignore(folder: str, names: list[str]) -> set[str]:
        left = set(ignore(folder, names))
        return left | {n for n in names if n.startswith(RELEASE_LEFT_OUT)}

    shutil.copytree(root / "slowtorch_lib", out / "slowtorch_lib", ignore=ignore)
    shutil.copytree(root / "course", out / "course", ignore=course_ignore)
    shutil.copytree(root / "exercises", out / "exercises", ignore=ignore)
    for name in ("pyproject.toml", "requirements.txt", "README.md"):
        if (root / name).exists():
            shutil.copy2(root / name, out / name)
    return sorted(p for p in out.rglob("*") if p.is_file())
