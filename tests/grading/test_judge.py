"""The judge's parts on their own: records, predictions, the copy check, the
CSV and the Canvas import, the sandbox refusal (the Gradescope autograder:
``test_gradescope.py``)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course import export, judge, sandbox
from course.checking import load
from course.grading import Graded, Result
from tests.grading import fixtures

ROOT = Path(__file__).resolve().parents[2]


def reader() -> tuple[judge.Reader, judge.Run]:
    exercise = load("1.5")
    run = judge.Run()
    return judge.Reader("n" * 32, {"1.5": exercise}, run, ["1.5"]), run


def line(record: object, nonce: str = "n" * 32) -> bytes:
    return nonce.encode() + b" " + json.dumps(record).encode()


def test_the_reader_keeps_only_well_formed_records_with_the_nonce() -> None:
    read, run = reader()
    label = load("1.5").cases[0].label
    case = {
        "kind": "case",
        "exercise": "1.5",
        "index": 0,
        "label": label,
        "outcome": [12, 4, 1],
        "error": None,
        "stub": False,
        "reference": [],
    }
    cell = {
        "kind": "cell",
        "exercise": "1.5",
        "defined": True,
        "error": None,
        "reference": [],
        "tampering": [],
    }
    read.line(line({"kind": "start", "exercise": "1.5"}, "x" * 32))
    read.line(line({"kind": "start", "exercise": "1.5"}))
    read.line(line(case))  # before its cell
    read.line(line(cell))
    read.line(line({**case, "passed": 1000, "total": 1}))
    read.line(line({**case, "index": 1000}))
    read.line(line({**case, "label": "another"}))
    read.line(
        line({**case, "outcome": {"x": float("inf")}}).replace(b"Infinity", b"1e999")
    )
    read.line(line({"kind": "start", "exercise": "9.9"}))
    read.line(b"n" * 32 + b" " + b"[" * 100_000)
    read.line(line(case))
    read.line(line(case))  # twice: neither counts
    assert run.ignored == {
        "lines without this run's nonce": 1,
        "cases before their cell": 1,
        "records with wrong fields": 1,
        "cases out of range": 1,
        "cases with a wrong label": 1,
        "case records out of range": 1,
        "records for an exercise not asked for": 1,
        "lines that are not JSON": 1,
        "cases reported twice": 1,
    }
    assert ("1.5", 0) in run.conflicts
    graded = judge.judge_piece(
        load("1.5"), "def contiguous_strides(shape): ...", run, judge.Answers.load()
    )
    assert graded.passed == 0 and 0 <= graded.points <= 1


def test_an_error_message_quoting_the_grading_cases_is_hidden() -> None:
    answers = judge.Answers.load()
    quoted = answers.secret_text[100:160]
    error = {"type": "ValueError", "message": " ".join(quoted.split()), "lines": [2]}
    shown = judge.render_error(error, "x = 1\nraise ValueError(text)\n", answers)
    assert shown == (
        "  line 2: raise ValueError(text)\n"
        "ValueError: (message hidden: it quotes the grader's files)"
    )
    error["message"] = "shapes (2, 3) and (4,) do not match"
    assert judge.render_error(error, "", answers).endswith("do not match")


def test_predictions_are_read_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    source = (
        "answers_1_2 = {\n"
        f"    'i + f': __import__('pathlib').Path({str(marker)!r}).touch(),\n"
        "    'i / i': torch.float32,\n"
        "    'i + 2.5': 'float' + '32',\n"
        "    'i // 2': 2**0.5,\n"
        "}\n"
    )
    predicted, problem = judge.read_predictions(source, "answers_1_2")
    assert problem == "" and predicted is not None
    assert predicted["i + f"] == judge.NOT_LITERAL
    assert predicted["i / i"] == "torch.float32"
    assert predicted["i + 2.5"] == "float32"
    assert predicted["i // 2"] == 2**0.5
    assert not marker.exists()


def test_the_copy_check_sees_through_names_literals_comments_and_layout() -> None:
    model = fixtures.solution_answer(fixtures.CHAPTER1, "1.6")
    answers = judge.Answers.load()
    assert judge.copied("1.6", model, answers)
    disguised = model.replace("shape", "dims").replace("numel", "count")
    disguised = "# my own work\n" + disguised.replace("    ", "  ")
    assert judge.copied("1.6", disguised, answers)
    assert not judge.copied("1.5", fixtures.WRONG_STRIDES, answers)


def result(student: str, points: dict[str, float], notes: list[str]) -> Result:
    graded = {e: Graded(e, e, points=p, status="graded") for e, p in points.items()}
    return Result(Path(f"{student}/01_a.ipynb"), student, 1, graded, notes)


def test_the_csv_escapes_formulas_weights_exercises_and_has_a_possible_row(
    tmp_path: Path,
) -> None:
    weights_file = tmp_path / "weights.toml"
    weights_file.write_text('[weights]\n"1.5" = 2\n"1.6" = 0.5\n')
    weights = export.load_weights(weights_file)
    results = [
        result("=HYPERLINK(1)", {"1.5": 0.5, "1.6": 1.0}, ["@SUM(A1) note"]),
        result("ann", {"1.5": 1.0, "1.6": 0.0}, []),
    ]
    path = tmp_path / "grades.csv"
    export.write_csv(results, path, weights)
    rows = list(csv.reader(path.open(encoding="utf-8")))
    assert rows[0] == [
        "student",
        "1.5",
        "1.6",
        "chapter 1",
        "points",
        "out of",
        "notes",
    ]
    assert rows[1] == ["(points possible)", "2.00", "0.50", "2.50", "2.50", "2.50", ""]
    assert rows[2][:6] == ["'=HYPERLINK(1)", "1.00", "0.50", "1.50", "1.50", "2.50"]
    assert rows[2][6].startswith("01_a.ipynb: @SUM")
    canvas = tmp_path / "canvas.csv"
    export.write_canvas(results, canvas, weights)
    rows = list(csv.reader(canvas.open(encoding="utf-8")))
    assert rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert rows[0][5] == "slowtorch chapter 1"
    assert rows[1][0].strip() == "Points Possible" and rows[1][5] == "2.50"
    assert rows[2][0] == "'=HYPERLINK(1)" and rows[3][5] == "2.00"
    with pytest.raises(ValueError):
        bad = tmp_path / "bad.json"
        bad.write_text('{"1.5": -1}')
        export.load_weights(bad)


def test_grading_refuses_without_the_sandbox_unless_told(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    (folder / "ann").mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / f"{fixtures.CHAPTER1}.ipynb", folder / "ann")
    environment = dict(os.environ, PYTHONPATH=str(ROOT), PATH="/nonexistent")
    command = [sys.executable, "-m", "course", "grade", str(folder)]
    refused = subprocess.run(command, env=environment, capture_output=True, text=True)
    assert refused.returncode == 2
    assert "cannot start the sandbox: bubblewrap is not installed" in refused.stderr
    assert not (folder / "grades.csv").exists()
    graded = subprocess.run(
        [*command, "--no-sandbox", "--timeout", "20"],
        env=environment,
        capture_output=True,
        text=True,
    )
    if sandbox.user_problem() is not None:  # no user of its own per runner
        assert graded.returncode == 2, graded.stdout + graded.stderr
        assert "cannot bound each student's processes" in graded.stderr
        return
    assert graded.returncode == 1, graded.stdout + graded.stderr
    assert "WARNING: graded WITHOUT the sandbox" in graded.stdout
    rows = list(csv.DictReader((folder / "grades.csv").open(encoding="utf-8")))
    assert "graded WITHOUT the sandbox" in rows[1]["notes"]


KILL_PROCESS_1 = """
import os, signal, time
if os.fork() == 0:
    try:
        os.kill(1, signal.SIGKILL)
    finally:
        os._exit(0)
os.wait()
print(os.getpid(), sorted(p for p in os.listdir("/proc") if p.isdigit()))
"""


@pytest.mark.skipif(sandbox.problem() is not None, reason="no bubblewrap here")
def test_in_the_sandbox_the_runner_is_process_1_alone_and_unkillable(
    tmp_path: Path,
) -> None:
    """No reaper of bubblewrap's holds the judge's pipe, and the runner's
    children cannot kill it."""
    argv = [sandbox.interpreter(), "-I", "-S", "-c", KILL_PROCESS_1]
    done = subprocess.run(
        sandbox.command(tmp_path, argv), capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "1 ['1']", done.stdout + done.stderr
