"""A chapter's notebook handed in alone (an LMS course with one assignment
per chapter): its earlier chapters' pieces come from the student's earlier
submissions (``grade --earlier``), else from the reference where given
(``--give``), and the console, the CSV and the feedback say which; with
neither, the exercises that need them wait, and the grader asks for them,
instead of scoring the blank stubs' knock-ons as the student's failure."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course import sandbox
from tests.grading import fixtures

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.pipeline,
    pytest.mark.skipif(sandbox.problem() is not None, reason="needs bubblewrap"),
]


def hand_in(folder: Path, chapter: str, student: str = "ann") -> Path:
    """``folder/<student>/<chapter>.ipynb``: the chapter's model answers."""
    path = folder / student / f"{chapter}.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(fixtures.notebook("solutions", chapter)), "utf-8")
    return folder


def grade(tmp_path: Path, *args: str) -> tuple[str, list[dict[str, str]], str]:
    """Grades chapter 2's model answers handed in alone, with ``args``: the
    console, the CSV's rows and ann's feedback."""
    folder = hand_in(tmp_path / "chapter2", fixtures.CHAPTER2)
    command = [sys.executable, "-m", "course", "grade", str(folder), *args]
    command += ["--feedback", str(tmp_path / "feedback")]
    done = subprocess.run(
        command,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr
    with (folder / "grades.csv").open(encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    feedback = (tmp_path / "feedback" / "ann.md").read_text("utf-8")
    return done.stdout, rows, feedback


def exercises(row: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in row.items() if k[:2] == "2." and k[2:].isdigit()}


def test_a_chapter_alone_with_give_gets_full_marks_and_says_what_was_given(
    tmp_path: Path,
) -> None:
    console, rows, feedback = grade(tmp_path, "--give", "ch1")
    marks = exercises(rows[1])
    assert len(marks) == 11 and set(marks.values()) == {"1.00"}, marks
    assert rows[1]["chapter 2"] == "11.00"
    said = "used chapter 1 from the reference (given)"
    assert said in console and said in feedback and said in rows[1]["notes"]
    assert "waiting" not in console and "MISSING" not in feedback


def test_a_chapter_alone_without_its_earlier_ones_waits_and_asks_for_them(
    tmp_path: Path,
) -> None:
    console, rows, feedback = grade(tmp_path)
    # no knock-on zeros: no points, a blank for the chapter, never 0.00
    assert set(exercises(rows[1]).values()) == {""} and rows[1]["chapter 2"] == ""
    assert "points: 0.00 of 11 (11 waiting for an earlier chapter)" in console
    for text in (console, feedback, rows[1]["notes"]):
        assert "MISSING chapter 1: no notebook of it was handed in" in text
        assert "--give ch1" in text and "--earlier" in text
    assert "| 2.10 build: the backward pass | - | waiting |" in feedback
    assert "knock-on" not in feedback and "your code" not in feedback


def test_a_chapter_alone_takes_its_earlier_chapters_from_earlier_submissions(
    tmp_path: Path,
) -> None:
    earlier = hand_in(tmp_path / "chapter1", fixtures.CHAPTER1)
    console, rows, feedback = grade(tmp_path, "--earlier", str(earlier))
    assert len(rows) == 2  # the earlier submission is not graded again
    marks = exercises(rows[1])
    assert len(marks) == 11 and set(marks.values()) == {"1.00"}, marks
    assert not any(k.startswith("1.") for k in rows[1])
    said = f"used chapter 1 from {fixtures.CHAPTER1}.ipynb (an earlier submission)"
    assert said in console and said in feedback
