"""``python -m course new-exercise N.M`` and the ids a teacher's file may name.

The scaffold writes an exercise into a copy of the course; the generator and
the checker of that copy, run in a fresh interpreter, find it. An id the
course does not have, in a weights file, is refused and named.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course import export, new_exercise
from course.__main__ import run_new_exercise

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def course_copy(tmp_path: Path) -> Path:
    """A copy of ``course/`` (without its caches) to scaffold into."""
    shutil.copytree(
        ROOT / "course",
        tmp_path / "course",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return tmp_path


def in_copy(root: Path, code: str) -> dict[str, object]:
    """What ``code`` prints as JSON, run with the copy's ``course`` package
    (the engine is this checkout's)."""
    environment = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{ROOT}"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


PICKED_UP = """
import json
from course import checking, notebooks, plan
chapter = next(c for c in notebooks.chapters() if c.name.startswith("03"))
exercise_notebook, solution_notebook = notebooks.build(chapter)
tags = [t for c in exercise_notebook.cells for t in c.metadata.get("tags", [])]
lines = notebooks.answer_lines(chapter)
core, _ = plan.parts(3, lines)
loaded = checking.load("3.13")
print(json.dumps({
    "tags": [t for t in tags if t.endswith("-3.13")],
    "stub": [c.source for c in exercise_notebook.cells
             if "exercise-3.13" in c.metadata.get("tags", [])][0],
    "in_plan": "3.13" in core.ids,
    "loaded": [loaded.id, loaded.kind, loaded.name, loaded.target],
    "drawn_table": "3.13" in __import__("course.checks.grading_ch03",
                                        fromlist=["DRAWN"]).DRAWN,
    "last": [e.id for e in checking.exercises() if e.id.startswith("3.")][-1],
}))
"""


def test_a_scaffolded_exercise_is_found_by_the_generator_and_the_checker(
    course_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_new_exercise(course_copy, "3.13", "piece") == 0
    printed = capsys.readouterr().out
    for where in ("sources/03_", "checks/ch03.py", "checks/grading_ch03.py"):
        assert f"wrote course/{where}" in printed
    assert "fill in" in printed and "python -m course.record" in printed
    found = in_copy(course_copy, PICKED_UP)
    assert found["tags"] == ["exercise-3.13", "check-3.13"]
    assert "raise NotImplementedError" in str(found["stub"])
    assert "TODO: the model answer" not in str(found["stub"])  # solution hidden
    assert found["in_plan"] is True
    assert found["loaded"] == ["3.13", "piece", "exercise_3_13", found["loaded"][3]]
    assert str(found["loaded"][3]).startswith("TODO")
    assert found["drawn_table"] is True and found["last"] == "3.13"


def test_a_prediction_has_no_grading_entry(course_copy: Path) -> None:
    made = new_exercise.scaffold(course_copy, "1.12", "predict")
    assert [m.path.name for m in made] == ["01_arrays_to_tensors.py", "ch01.py"]
    source = made[0].path.read_text(encoding="utf-8")
    assert source.rstrip().endswith('check("1.12", exercise_1_12)')
    assert "# ANSWER" in source.split("exercise-1.12")[1]


@pytest.mark.parametrize(
    ("exercise_id", "kind", "message"),
    [
        ("3.12", "piece", "exercise 3.12 exists"),
        ("3.15", "piece", "chapter 3's next exercise is 3.13"),
        ("3", "piece", "no exercise id: write N.M"),
        ("9.1", "piece", "expected one course/sources/09_*.py"),
        ("3.13", "essay", "a piece or a predict"),
    ],
)
def test_a_bad_id_is_refused_and_nothing_is_written(
    course_copy: Path, exercise_id: str, kind: str, message: str
) -> None:
    before = {p: p.read_bytes() for p in (course_copy / "course").rglob("*.py")}
    with pytest.raises(ValueError, match=re.escape(message)):
        new_exercise.scaffold(course_copy, exercise_id, kind)
    after = {p: p.read_bytes() for p in (course_copy / "course").rglob("*.py")}
    assert after == before


def test_the_command_says_why_it_refuses(
    course_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_new_exercise(course_copy, "2.99", "piece") == 2
    assert "cannot add exercise 2.99: " in capsys.readouterr().err


def test_a_weights_file_naming_an_unknown_exercise_is_refused(tmp_path: Path) -> None:
    weights = tmp_path / "weights.toml"
    weights.write_text('[weights]\n"1.5" = 2\n"1.55" = 3\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"no exercise '1\.55' in this course"):
        export.load_weights(weights)
    weights.write_text('[weights]\n"1.5" = 2\n"6.9" = 3\n', encoding="utf-8")
    assert export.load_weights(weights) == {"1.5": 2.0, "6.9": 3.0}
    with pytest.raises(ValueError, match=r"run 1\.1 to 1\.2\)$"):
        export.load_weights(weights, known=["1.1", "1.2"])
