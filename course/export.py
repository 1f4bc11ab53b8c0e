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
import sys
import tempfile
import zipfile
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, Protocol

from course import trees
from course.answer_key import Answers
from course.checking import exercises
from course.gradescope import SETTINGS
from course.grading import Result, by_student, counted

POSSIBLE = "(points possible)"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


class Rostered(Protocol):
    """Who a class folder is in the LMS (:class:`course.collect.Student`)."""

    name: str
    lms_id: str
    id_kind: str
    late: bool


def escape(text: str) -> str:
    """``text`` as a spreadsheet shows it, never as a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text


def load_weights(
    path: Path | None, known: Collection[str] | None = None
) -> dict[str, float]:
    """``{exercise id: points}`` from a JSON or TOML file.

    Args:
        path: The file, or None for no weights.
        known: The exercise ids a weight may name (by default, the course's).

    Raises:
        ValueError: If the file is not a mapping from ids to non-negative
            numbers, or names an exercise the course does not have (a typo
            would otherwise leave that exercise at 1 point without a word).
    """
    if path is None:
        return {}
    if known is None:
        known = [exercise.id for exercise in exercises()]
    text = path.read_text(encoding="utf-8")
    data: object
    if path.suffix != ".toml":
        data = json.loads(text)
    elif sys.version_info >= (3, 11):
        import tomllib  # lazily: Python 3.11 on; only a .toml file needs it

        table = tomllib.loads(text)
        data = table.get("weights", table)
    else:
        raise ValueError(
            f"{path}: a TOML weights file needs Python 3.11 or later (tomllib); "
            "write it as JSON on an older Python"
        )
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a mapping from exercise ids to points")
    weights = {}
    for key, value in data.items():
        if str(key) not in known:
            raise ValueError(
                f"{path}: no exercise {str(key)!r} in this course (exercise ids "
                f"run {known_span(known)})"
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise ValueError(f"{path}: the weight of {key!r} is not a number >= 0")
        weights[str(key)] = float(value)
    return weights


def known_span(known: Collection[str]) -> str:
    """``1.1 to 1.11, 2.1 to 2.12``: each chapter's first and last exercise."""
    chapters: dict[int, list[str]] = {}
    for exercise in sorted(known, key=exercise_key):
        chapters.setdefault(chapter_of(exercise), []).append(exercise)
    return ", ".join(f"{ids[0]} to {ids[-1]}" for ids in chapters.values())


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
        # an exercise waiting for an earlier chapter has no points yet, and
        # its chapter no total: a blank, never a 0 read as the student's
        waiting = {chapter_of(e) for e, g in grades.items() if g.status == "waiting"}
        points = {
            e: g.points * weights.get(e, 1.0)
            for e, g in grades.items()
            if g.status != "waiting"
        }
        notes = [f"{r.path.name}: {n}" for r in mine for n in r.notes] + notes
        table.append(
            {
                "student": student,
                "points": points,
                "chapters": {
                    c: sum(p for e, p in points.items() if chapter_of(e) == c)
                    for c in chapters
                    if c not in waiting
                },
                "notes": notes,
                "handed in": {r.chapter for r in mine if r.chapter is not None},
            }
        )
    return columns, chapters, table


def write_csv(
    results: list[Result],
    path: Path,
    weights: dict[str, float] | None = None,
    roster: Mapping[str, Rostered] | None = None,
) -> None:
    """One row per student: exercises, chapters, total, notes; with a
    ``roster`` from ``collect`` that holds anyone, a ``late`` column (the
    LMS's late mark) before the notes."""
    weights = weights or {}
    roster = roster or {}
    columns, chapters, table = rows(results, weights)
    possible = {e: weights.get(e, 1.0) for e in columns}
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(
        path, "w", newline="", encoding="utf-8", errors="backslashreplace"
    ) as file:
        writer = csv.writer(file)
        chapter_names = [f"chapter {c}" for c in chapters]
        late = ["late"] if roster else []
        writer.writerow(
            ["student", *columns, *chapter_names, "points", "out of", *late, "notes"]
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
                *[""] * len(late),
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
                    *[
                        number(row["chapters"][c]) if c in row["chapters"] else ""
                        for c in chapters
                    ],
                    number(sum(row["points"].values())),
                    number(total),
                    *[late_mark(roster.get(row["student"]))] * len(late),
                    escape("; ".join(row["notes"])),
                ]
            )


def late_mark(who: Rostered | None) -> str:
    return "late" if who is not None and who.late else ""


def canvas_who(student: str, who: Rostered | None) -> list[str]:
    """The Student, ID, SIS User ID and SIS Login ID cells. Canvas reads
    ``ID`` as a Canvas user id, so only a Canvas user id goes there (not a
    Gradescope SID, a Moodle participant number or a Canvas anonymous id:
    those rows are matched by name); a folder not from ``collect`` is named
    by the folder as SIS Login ID."""
    if who is None:
        return [escape(student), "", "", escape(student)]
    canvas_id = who.lms_id if who.id_kind == "canvas user" else ""
    return [escape(who.name), escape(canvas_id), "", ""]


def write_canvas(
    results: list[Result],
    path: Path,
    weights: dict[str, float] | None = None,
    roster: Mapping[str, Rostered] | None = None,
    columns: dict[int, str] | None = None,
) -> None:
    """A Canvas gradebook import: the student columns Canvas reads, one
    assignment column per chapter, and the "Points Possible" row Canvas
    expects under the header. ``columns`` (chapter to the name of its
    assignment in Canvas) writes only those chapters' columns; without it,
    one column per chapter graded, named ``slowtorch chapter N`` (a column
    Canvas does not have becomes a new assignment). A chapter a student did
    not hand in, or whose exercises wait for an earlier chapter's notebook,
    is left blank, never 0.00: a blank does not overwrite the score Canvas
    holds."""
    weights = weights or {}
    roster = roster or {}
    exercises, chapters, table = rows(results, weights)
    if columns is not None:
        chapters = sorted(columns)
    names = [(columns or {}).get(c) or f"slowtorch chapter {c}" for c in chapters]
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(
        path, "w", newline="", encoding="utf-8", errors="backslashreplace"
    ) as file:
        writer = csv.writer(file)
        writer.writerow(
            [
                "Student",
                "ID",
                "SIS User ID",
                "SIS Login ID",
                "Section",
                *map(escape, names),
            ]
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
                        sum(
                            weights.get(e, 1.0) for e in exercises if chapter_of(e) == c
                        )
                    )
                    for c in chapters
                ],
            ]
        )
        for row in table:
            writer.writerow(
                [
                    *canvas_who(row["student"], roster.get(row["student"])),
                    "",
                    *[
                        number(row["chapters"][c])
                        if c in row["handed in"] and c in row["chapters"]
                        else ""
                        for c in chapters
                    ],
                ]
            )


def parse_columns(text: str | None) -> dict[int, str] | None:
    """``--canvas-columns "2=Chapter 2 notebook,3=Chapter 3 notebook"`` as
    ``{2: "Chapter 2 notebook", 3: ...}``; a bare ``2`` keeps the default
    name.

    Raises:
        ValueError: If a chapter is not a number.
    """
    if text is None:
        return None
    found = {}
    for item in filter(None, (i.strip() for i in text.split(","))):
        chapter, _, name = item.partition("=")
        if not chapter.strip().isdigit():
            raise ValueError(
                f"--canvas-columns: {item!r} does not start with a chapter"
            )
        found[int(chapter)] = name.strip()
    return found


# --- Gradescope --------------------------------------------------------------------

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (Ubuntu 22.04, whose Python 3.10 the grader and the engine support).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends python3
# bubblewrap where the container lets it start; where it cannot, each runner
# runs as a user of its own that cannot read the grader's files.
apt-get install -y -q --no-install-recommends bubblewrap || true
python3 -c 'import sys; assert sys.version_info >= (3, 10), sys.version'
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for each submission, as root, from /autograder (this file
# is copied to /autograder/run_autograder, the zip is in /autograder/source):
# grades /autograder/submission, writes /autograder/results/results.json.
set -uo pipefail
cd /autograder
PYTHON=""
for candidate in python3 python3.13 python3.12 python3.11 python3.10; do
    if command -v "$candidate" >/dev/null 2>&1 &&
        "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
        PYTHON="$(command -v "$candidate")"
        break
    fi
done
if [ -z "$PYTHON" ]; then
    mkdir -p /autograder/results
    MESSAGE="The autograder found no Python 3.10 or later (setup.sh installs it)."
    echo "{\\"score\\": 0, \\"tests\\": [], \\"output\\": \\"$MESSAGE\\"}" \\
        >/autograder/results/results.json
    exit 0
fi
PYTHONPATH=/autograder/source exec "$PYTHON" -m course.gradescope /autograder
"""

# What the autograder leaves out of course/: the chapters' sources (which hold
# the model answers) and everything that only writes the course.
NOT_JUDGE = ("collect.py", "edition.py", "lab.py", "class_site.py", "notebooks.py")


def gradescope(
    out: Path,
    chapter: int | None = None,
    weights: dict[str, float] | None = None,
    given: Collection[str] = (),
    language: str = "en",
) -> list[str]:
    """Writes the Gradescope autograder zip; returns the names inside.

    At the zip's root, as Gradescope documents: ``setup.sh``,
    ``run_autograder``, and the grader (``course/``, with the judge's answers
    in ``course/answers.json``: the expected outcome of every case, the
    grading-only ones too) beside the class engine (``slowtorch_lib/``,
    every piece a stub but those ``given``, which are the reference's). The
    zip is the answer key: keep it private, as Gradescope keeps an
    autograder. The chapters' sources (the model answers' text) are not in
    it.

    With ``chapter``, an assignment for that chapter only: its cases use the
    earlier chapters' pieces from the notebooks handed in with it, else from
    the reference where ``given`` (``export --give ch1,ch2``); the result
    tells the student which, and asks for a missing one. ``weights``
    (exercise id to points) are each test's max score (see
    :mod:`course.gradescope`); ``language`` is the one its sentences are
    shown in (:mod:`course.messages`)."""
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        trees.class_engine(folder, given)
        course = folder / "course"
        for path in sorted(trees.PACKAGE.glob("*.py")):
            if path.name not in NOT_JUDGE:
                shutil.copy(path, course / path.name)
        shutil.copytree(trees.PACKAGE / "data", course / "data")
        (course / "__init__.py").write_text(
            '"""The course\'s grader, as a Gradescope autograder."""\n', "utf-8"
        )
        (course / "__main__.py").unlink()
        Answers.load().save(course)
        settings = {
            "chapter": chapter,
            "weights": weights or {},
            "given": sorted(given),
            "language": language,
        }
        (course / SETTINGS).write_text(json.dumps(settings), "utf-8")
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
