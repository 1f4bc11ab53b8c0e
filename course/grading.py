"""Grading: a student's notebook against the solution notebook's outputs.

For each submitted notebook the grader

1. finds its chapter (notebook metadata, else the file name) and the
   solution notebook of that chapter;
2. makes a copy in which every check cell (found by its ``check-N.M`` tag)
   gets the solution's source and stored output, marked for nbval to compare,
   and every other cell loses its outputs;
3. runs the copies with ``pytest --nbval-lax`` (one kernel per notebook), so
   the student's code runs top to bottom and each check cell must print
   exactly the line the solution printed;
4. maps each check cell's result back to its exercise.

Deleted, untagged or reordered cells give a note, never a traceback.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from course.checking import load
from course.notebooks import ROOT, SOLUTIONS_DIR, TAG, chapters, kernel_environment

PASS, FAIL, MISSING = "pass", "FAIL", "missing"


@dataclass
class Result:
    """The grade of one notebook.

    Attributes:
        path: The submitted notebook.
        chapter: Its chapter's name, or None if it could not be told.
        exercises: Exercise id to ``pass``, ``FAIL`` or ``missing``.
        reasons: For exercises that did not pass, why (one line).
        notes: Problems with the notebook as a whole.
    """

    path: Path
    chapter: str | None = None
    exercises: dict[str, str] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(status == PASS for status in self.exercises.values())

    @property
    def ok(self) -> bool:
        return bool(self.exercises) and self.passed == len(self.exercises)


def exercise_tags(cell: Any) -> list[tuple[str, str]]:
    """``[(role, exercise_id)]`` for a cell's course tags (or, untagged, its id)."""
    found = []
    for tag in cell.get("metadata", {}).get("tags", []):
        match = TAG.match(tag)
        if match:
            found.append((match.group(1), match.group(2)))
    if not found:
        match = re.match(r"^(exercise|check)-(\d+)-(\d+)$", str(cell.get("id", "")))
        if match:
            found.append((match.group(1), f"{match.group(2)}.{match.group(3)}"))
    return found


def find_chapter(notebook: Any, path: Path) -> str | None:
    """The chapter a notebook belongs to: from its metadata, else from the
    exercise tags of its cells, else from its file name (``01_...``)."""
    names = {int(chapter.name[:2]): chapter.name for chapter in chapters()}
    chapter = notebook.get("metadata", {}).get("course", {}).get("chapter")
    if chapter in names.values():
        return str(chapter)
    numbers = {int(e.split(".")[0]) for c in notebook.cells for _, e in exercise_tags(c)}
    if len(numbers) == 1 and min(numbers) in names:
        return names[min(numbers)]
    prefix = re.match(r"^(\d\d)_", path.name)
    if prefix and int(prefix.group(1)) in names:
        return names[int(prefix.group(1))]
    return None


def prepare(path: Path, copy: Path) -> tuple[Result, list[str]]:
    """Writes the copy to run and returns the result so far and exercise ids."""
    result = Result(path)
    try:
        student = nbformat.read(str(path), as_version=4)
    except Exception as error:  # noqa: BLE001  (any unreadable file is reported)
        result.notes.append(f"cannot read the notebook: {type(error).__name__}: {error}")
        return result, []
    result.chapter = find_chapter(student, path)
    if result.chapter is None:
        result.notes.append("cannot tell which chapter this notebook is for")
        return result, []
    solution = nbformat.read(str(SOLUTIONS_DIR / f"{result.chapter}.ipynb"), as_version=4)
    checks = {}
    order = []
    for cell in solution.cells:
        for role, exercise in exercise_tags(cell):
            if role == "check":
                checks[exercise] = cell
                order.append(exercise)
    positions: dict[tuple[str, str], int] = {}
    cells = []
    for cell in student.cells:
        if cell.cell_type != "code":
            cells.append(cell)
            continue
        cell.outputs, cell.execution_count = [], None
        tags = exercise_tags(cell)
        for role, exercise in tags:
            positions.setdefault((role, exercise), len(cells))
        checked = [exercise for role, exercise in tags if role == "check" and exercise in checks]
        if checked:
            reference = checks[checked[0]]
            cell = nbformat.v4.new_code_cell(
                reference.source,
                outputs=reference.outputs,
                execution_count=reference.execution_count,
                metadata={"tags": [f"check-{checked[0]}", "nbval-check-output"]},
            )
        cells.append(cell)
    if not any("setup" in c.get("metadata", {}).get("tags", []) for c in cells):
        setup = next(c for c in solution.cells if "setup" in c.metadata.get("tags", []))
        cells.insert(0, nbformat.v4.new_code_cell(setup.source))
        result.notes.append("the setup cell was missing: the solution's was put first")
    for exercise in order:
        if ("check", exercise) not in positions:
            result.notes.append(f"exercise {exercise}: its check cell is missing (deleted?)")
        elif ("exercise", exercise) not in positions:
            result.notes.append(f"exercise {exercise}: its exercise cell is missing (deleted?)")
        elif positions[("exercise", exercise)] > positions[("check", exercise)]:
            result.notes.append(
                f"exercise {exercise}: the check cell comes before the exercise cell "
                "(cells reordered?)"
            )
    found = [e for e in sorted(positions, key=positions.__getitem__) if e[0] == "check"]
    if [e for _, e in found if e in checks] != [e for e in order if ("check", e) in positions]:
        result.notes.append("the exercises are not in the order of the chapter (cells moved?)")
    student.cells = cells
    student.metadata["kernelspec"] = solution.metadata["kernelspec"]
    nbformat.write(student, str(copy))
    return result, order


def run_nbval(copies: list[Path], folder: Path) -> list[dict[str, Any]]:
    """Runs the copies under ``pytest --nbval-lax`` and returns each cell's record."""
    if not copies:
        return []
    kernel_environment()
    results = folder / "results.json"
    ini = folder / "pytest.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")
    environment = dict(os.environ, COURSE_RESULTS=str(results))
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "course.nbval_results",
        "-p",
        "no:cacheprovider",
        "--nbval-lax",
        "--nbval-cell-timeout=60",
        "-q",
        "-c",
        str(ini),
        "--rootdir",
        str(folder),
        *map(str, copies),
    ]
    done = subprocess.run(
        command, cwd=str(ROOT), env=environment, capture_output=True, text=True, check=False
    )
    if not results.exists():
        raise RuntimeError(f"nbval did not run:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    records: list[dict[str, Any]] = json.loads(results.read_text(encoding="utf-8"))
    return records


def reason_of(record: dict[str, Any]) -> str:
    """One line saying why a check cell failed: what it printed, or its error."""
    printed = (record.get("printed") or "").strip()
    if printed:
        return printed.splitlines()[-1]
    lines = [line.strip() for line in record["reason"].splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"^\w*(Error|Exception|Interrupt)\b", line)]
    if errors:
        return f"the cell raised {errors[-1]}"
    return lines[0] if lines else "failed"


def grade(paths: list[Path]) -> list[Result]:
    """Grades notebooks; one :class:`Result` per path, in order."""
    with tempfile.TemporaryDirectory(prefix="course-grade-") as temporary:
        folder = Path(temporary)
        prepared = []
        copies = []
        for number, path in enumerate(paths):
            copy = folder / f"n{number:04d}_{path.stem}.ipynb"
            result, order = prepare(path, copy)
            prepared.append((result, order, copy))
            if order:
                copies.append(copy)
        records = run_nbval(copies, folder)
    for result, order, copy in prepared:
        mine = [r for r in records if Path(r["notebook"]).name == copy.name]
        by_exercise: dict[str, dict[str, Any]] = {}
        for record in mine:
            for role, exercise in exercise_tags({"metadata": {"tags": record["tags"]}}):
                if role == "check":
                    by_exercise[exercise] = record
        for exercise in order:
            if exercise not in by_exercise:
                result.exercises[exercise] = MISSING
                result.reasons[exercise] = "no check cell"
            elif by_exercise[exercise]["passed"]:
                result.exercises[exercise] = PASS
            else:
                result.exercises[exercise] = FAIL
                result.reasons[exercise] = reason_of(by_exercise[exercise])
        if order and not mine:
            result.notes.append("the notebook did not run (kernel failed to start?)")
    return [result for result, _, _ in prepared]


def title(exercise: str) -> str:
    try:
        return load(exercise).title
    except (KeyError, ImportError):
        return ""


def table(result: Result) -> str:
    """A notebook's per-exercise table, as text."""
    lines = [f"{result.path}  (chapter: {result.chapter or 'unknown'})"]
    for exercise, status in result.exercises.items():
        line = f"  {exercise:<6} {title(exercise):<34} {status}"
        if exercise in result.reasons:
            line += f"  {result.reasons[exercise]}"
        lines.append(line)
    lines.append(f"  {result.passed} of {len(result.exercises)} exercises passed")
    lines += [f"  note: {note}" for note in result.notes]
    return "\n".join(lines)


def notebooks_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def student_of(path: Path, folder: Path) -> str:
    """The student a submission belongs to: its subfolder, else its file name."""
    parts = path.relative_to(folder).parts
    return parts[0] if len(parts) > 1 else path.stem


def class_report(folder: Path, results: list[Result], csv_path: Path) -> str:
    """One row per student, printed and written to ``csv_path``.

    A student is a subfolder of ``folder`` (or a notebook directly in it); the
    columns are every exercise of the chapters handed in by anyone.
    """
    students: dict[str, list[Result]] = {}
    for result in results:
        students.setdefault(student_of(result.path, folder), []).append(result)
    exercises = sorted(
        {e for r in results for e in r.exercises}, key=lambda e: tuple(map(int, e.split(".")))
    )
    lines = [f"{'student':<16} passed  not passed"]
    with open(csv_path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["student", *exercises, "passed", "total", "notes"])
        for student, mine in sorted(students.items()):
            status = {e: s for r in mine for e, s in r.exercises.items()}
            column = [status.get(e, MISSING) for e in exercises]
            passed = column.count(PASS)
            notes = "; ".join(f"{r.path.name}: {n}" for r in mine for n in r.notes)
            writer.writerow([student, *column, passed, len(exercises), notes])
            failed = ", ".join(e for e, s in zip(exercises, column) if s != PASS) or "-"
            seen = "  (see the notes above)" if notes else ""
            lines.append(f"{student:<16} {passed:>2}/{len(exercises):<3}  {failed}{seen}")
    lines.append(f"wrote {csv_path}")
    return "\n".join(lines)
