"""Grades out of the grader: a CSV file, a Canvas gradebook import, and a
Gradescope autograder.

The CSV has one row per student: points per exercise (the fraction of cases
passed times the exercise's weight), per-chapter totals, the total, and a
notes column with every flag (reference used, copied from the model answer,
timed out, no sandbox, a malformed notebook...); a "points possible" row
comes first. Every cell that a spreadsheet would read as a formula (starting
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is escaped with a
leading ``'``.

Weights come from a small teacher file (JSON or TOML): ``{"1.5": 2, "4.8":
3}`` (exercise id to points; 1 when not given).
"""

from __future__ import annotations

import csv
import json
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from course.grading import Result, by_student, counted

POSSIBLE = "(points possible)"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def escape(text: str) -> str:
    """``text`` as a spreadsheet shows it, never as a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text


def load_weights(path: Path | None) -> dict[str, float]:
    """``{exercise id: points}`` from a JSON or TOML file.

    Raises:
        ValueError: If the file is not a mapping from ids to non-negative numbers.
    """
    if path is None:
        return {}
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        import tomllib

        data: Any = tomllib.loads(text)
        data = data.get("weights", data)
    else:
        data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a mapping from exercise ids to points")
    weights = {}
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ValueError(f"{path}: the weight of {key!r} is not a number >= 0")
        weights[str(key)] = float(value)
    return weights


def chapter_of(exercise: str) -> int:
    return int(exercise.split(".")[0])


def exercise_key(exercise: str) -> tuple[int, ...]:
    return tuple(map(int, exercise.split(".")))


def number(value: float) -> str:
    return f"{value:.2f}"


def rows(
    results: list[Result], weights: dict[str, float]
) -> tuple[list[str], list[int], list[dict[str, Any]]]:
    """The exercise columns, the chapters, and one dict per student."""
    columns = sorted({e for r in results for e in r.exercises}, key=exercise_key)
    chapters = sorted({chapter_of(e) for e in columns})
    table = []
    for student, mine in by_student(results).items():
        kept, notes = counted(mine)
        grades = {e: g for r in kept for e, g in r.exercises.items()}
        points = {e: g.points * weights.get(e, 1.0) for e, g in grades.items()}
        notes = [f"{r.path.name}: {n}" for r in mine for n in r.notes] + notes
        table.append(
            {
                "student": student,
                "points": points,
                "chapters": {
                    c: sum(p for e, p in points.items() if chapter_of(e) == c)
                    for c in chapters
                },
                "notes": notes,
            }
        )
    return columns, chapters, table


def write_csv(
    results: list[Result], path: Path, weights: dict[str, float] | None = None
) -> None:
    """One row per student: exercises, chapters, total, notes."""
    weights = weights or {}
    columns, chapters, table = rows(results, weights)
    possible = {e: weights.get(e, 1.0) for e in columns}
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(
        path, "w", newline="", encoding="utf-8", errors="backslashreplace"
    ) as file:
        writer = csv.writer(file)
        chapter_names = [f"chapter {c}" for c in chapters]
        writer.writerow(
            ["student", *columns, *chapter_names, "points", "out of", "notes"]
        )
        total = sum(possible.values())
        writer.writerow(
            [
                POSSIBLE,
                *[number(possible[e]) for e in columns],
                *[
                    number(sum(w for e, w in possible.items() if chapter_of(e) == c))
                    for c in chapters
                ],
                number(total),
                number(total),
                "",
            ]
        )
        for row in table:
            writer.writerow(
                [
                    escape(row["student"]),
                    *[
                        number(row["points"][e]) if e in row["points"] else ""
                        for e in columns
                    ],
                    *[number(row["chapters"][c]) for c in chapters],
                    number(sum(row["points"].values())),
                    number(total),
                    escape("; ".join(row["notes"])),
                ]
            )


def write_canvas(
    results: list[Result], path: Path, weights: dict[str, float] | None = None
) -> None:
    """A Canvas gradebook import: the student columns Canvas reads (the
    folder name as SIS Login ID), one assignment column per chapter, and the
    "Points Possible" row Canvas expects under the header."""
    weights = weights or {}
    columns, chapters, table = rows(results, weights)
    names = [f"slowtorch chapter {c}" for c in chapters]
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(
        path, "w", newline="", encoding="utf-8", errors="backslashreplace"
    ) as file:
        writer = csv.writer(file)
        writer.writerow(
            ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *names]
        )
        writer.writerow(
            [
                "    Points Possible",
                "",
                "",
                "",
                "",
                *[
                    number(
                        sum(weights.get(e, 1.0) for e in columns if chapter_of(e) == c)
                    )
                    for c in chapters
                ],
            ]
        )
        for row in table:
            student = escape(row["student"])
            writer.writerow(
                [
                    student,
                    "",
                    "",
                    student,
                    "",
                    *[number(row["chapters"][c]) for c in chapters],
                ]
            )


# --- Gradescope --------------------------------------------------------------------

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder's image.
set -euo pipefail
apt-get update -q
apt-get install -y -q --no-install-recommends python3 bubblewrap || \\
    apt-get install -y -q --no-install-recommends python3
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for each submission: grades /autograder/submission/*.ipynb
# and writes /autograder/results/results.json.
set -uo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
cd "$ROOT/source"
PYTHON="$(command -v python3 || command -v python)"
PYTHONPATH="$ROOT/source" "$PYTHON" -m course.gradescope "$ROOT"
"""


JUDGE_FILES = (
    "checking.py",
    "substitute.py",
    "datasets.py",
    "workspace.py",
    "runner.py",
    "sandbox.py",
    "judge.py",
    "notebook_reader.py",
    "grading.py",
    "export.py",
    "gradescope.py",
    "saved_pieces.py",
)


def gradescope(out: Path, unsandboxed: bool = False) -> list[str]:
    """Writes the Gradescope autograder zip; returns the names inside.

    ``source/`` holds the class engine (every piece a stub), the case
    programs (their own pieces stubbed too) and the grader, with the judge's
    answers in ``course/answers.json``: no model answer is in the zip. Each
    submission's runner tree is built from it without the answers, as on a
    teacher's machine. With ``unsandboxed``, a container where bubblewrap
    cannot start grades without it (said in the result); without, it does
    not grade there (see :mod:`course.gradescope`)."""
    from course import gradescope, judge

    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        source = folder / "source"
        source.mkdir()
        judge.class_engine(source)
        course = source / "course"
        for name in JUDGE_FILES:
            shutil.copy(judge.PACKAGE / name, course / name)
        shutil.copytree(judge.PACKAGE / "data", course / "data")
        (course / "__init__.py").write_text(
            '"""The course\'s grader, as a Gradescope autograder."""\n', "utf-8"
        )
        judge.Answers.load().save(course)
        settings = {"unsandboxed": bool(unsandboxed)}
        (course / gradescope.SETTINGS).write_text(json.dumps(settings), "utf-8")
        (folder / "setup.sh").write_text(SETUP_SH, encoding="utf-8")
        (folder / "run_autograder").write_text(RUN_AUTOGRADER, encoding="utf-8")
        return _zip(folder, out)


def _zip(folder: Path, out: Path) -> list[str]:
    out.parent.mkdir(parents=True, exist_ok=True)
    names = []
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                name = str(path.relative_to(folder))
                info = zipfile.ZipInfo(name)
                mode = 0o755 if name in ("setup.sh", "run_autograder") else 0o644
                info.external_attr = (stat.S_IFREG | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, path.read_bytes())
                names.append(name)
    return names
