"""What ``python -m course grade`` reads as students: a layout it cannot read
is refused with what it expected; names that would collide do not, a folder
name that is not UTF-8 is graded with a note; the self-grade command of
``exercises/README.md`` grades every chapter."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course import sandbox
from tests.grading import fixtures

ROOT = Path(__file__).resolve().parents[2]
ENVIRONMENT = dict(os.environ, PYTHONPATH=str(ROOT))
needs_sandbox = pytest.mark.skipif(
    sandbox.problem() is not None, reason="no bubblewrap here"
)


def grade(*args: str | Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "course", "grade", *map(str, args)]
    return subprocess.run(
        command, cwd=cwd, env=ENVIRONMENT, capture_output=True, text=True
    )


def blank(folder: Path, chapter: str = fixtures.CHAPTER1) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "exercises" / f"{chapter}.ipynb", folder)
    return folder / f"{chapter}.ipynb"


def test_a_layout_that_is_not_a_class_is_refused_with_what_was_expected(
    tmp_path: Path,
) -> None:
    flat = tmp_path / "flat"  # a folder of notebooks (a download, unsorted)
    blank(flat)
    blank(flat, fixtures.CHAPTER2)
    students = [tmp_path / "class" / "ann", tmp_path / "class" / "bob"]
    for folder in students:
        blank(folder)
    for args in ([flat], students, [flat / f"{fixtures.CHAPTER1}.ipynb"]):
        refused = grade(*args)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "one folder per student" in refused.stderr
        assert "--student NAME" in refused.stderr
        assert "Traceback" not in refused.stderr
    assert (
        "01_arrays_to_tensors.ipynb, 02_walking_backwards.ipynb" in grade(flat).stderr
    )
    assert not list(tmp_path.rglob("grades.csv"))
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no notebooks to grade" in grade(empty).stderr


@needs_sandbox
def test_names_never_collide_and_any_folder_name_is_graded(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    blank(folder / "Doe_Jane")
    solved = fixtures.notebook("solutions", fixtures.CHAPTER1)
    (folder / "Doe, Jane").mkdir()
    (folder / "Doe, Jane" / f"{fixtures.CHAPTER1}.ipynb").write_text(
        json.dumps(solved), encoding="utf-8"
    )
    strange = os.fsdecode(b"M\xfcller")  # Latin-1, not UTF-8
    blank(folder / strange)
    feedback = tmp_path / "feedback"
    done = grade(folder, "--feedback", feedback, "--timeout", "20")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    reports = {p.read_text("utf-8").splitlines()[0]: p for p in feedback.iterdir()}
    assert set(reports) == {
        "# Feedback for Doe_Jane",
        "# Feedback for Doe, Jane",
        "# Feedback for M\\xfcller",
    }
    assert "| 1.5 " in reports["# Feedback for Doe_Jane"].read_text("utf-8")
    rows = list(csv.DictReader((folder / "grades.csv").open(encoding="utf-8")))
    by_name = {row["student"]: row for row in rows[1:]}
    assert set(by_name) == {"Doe_Jane", "Doe, Jane", "M\\xfcller"}
    assert float(by_name["Doe, Jane"]["points"]) == 7
    assert float(by_name["Doe_Jane"]["points"]) == 0
    assert (
        "the folder's name is not UTF-8: M\\xfcller" in by_name["M\\xfcller"]["notes"]
    )


def readme_command() -> list[str]:
    text = (ROOT / "exercises" / "README.md").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if " -m course grade" in line]
    assert len(lines) == 1, lines
    return lines[0].split()


@needs_sandbox
@pytest.mark.pipeline
def test_the_self_grade_command_grades_every_chapter(tmp_path: Path) -> None:
    command = readme_command()
    assert command[0] == ".venv/bin/python"
    exercises = tmp_path / "exercises"  # a student who solved every chapter
    exercises.mkdir()
    chapters = sorted(p.name for p in (ROOT / "solutions").glob("*.ipynb"))
    for name in chapters:
        shutil.copy(ROOT / "solutions" / name, exercises / name)
    shutil.copy(ROOT / "exercises" / "README.md", exercises)
    done = subprocess.run(
        [sys.executable, *command[1:], "--timeout", "30"],
        cwd=tmp_path,
        env=ENVIRONMENT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    graded = re.findall(
        r"^exercises/(\S+)\s.*?\n(?:.*\n)*?\s+points: (\S+) of (\d+)", done.stdout, re.M
    )
    assert [name for name, _, _ in graded] == chapters
    for name, points, total in graded:
        assert float(points) == int(total) > 0, name
