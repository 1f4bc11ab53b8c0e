"""The judge's parts on their own: records, predictions, the copy check, the
CSV and the Canvas import, the sandbox refusal (the Gradescope autograder:
``test_gradescope.py``)."""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path

import pytest

from course import export, integrity, judge, predictions, runner_protocol, sandbox
from course.answer_key import Answers
from course.cases import all_cases
from course.checking import load
from course.grading import Graded, Result
from tests.grading import fixtures

ROOT = Path(__file__).resolve().parents[2]


def reader() -> tuple[runner_protocol.Reader, runner_protocol.Run]:
    exercise = load("1.5")
    run = runner_protocol.Run()
    return runner_protocol.Reader("n" * 32, {"1.5": exercise}, run, ["1.5"]), run


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
    # A record the runner never writes breaks the sequence: nothing counts.
    assert run.broken == {"1.5": "cases before their cell"}
    graded = judge.judge_piece(
        load("1.5"),
        "def contiguous_strides(shape): return ()",
        run,
        Answers.load(),
    )
    assert (graded.passed, graded.points, graded.status) == (0, 0.0, "refused")


def test_case_records_out_of_the_runners_order_void_the_exercise() -> None:
    exercise = load("1.5")
    answers = Answers.load()
    source = "def contiguous_strides(shape): return ()"
    for records in (["cell", 0, 1, "finish"], ["cell", 1, 0, "finish"]):
        run = runner_protocol.Run()
        read = runner_protocol.Reader("n" * 32, {"1.5": exercise}, run, ["1.5"])
        read.line(line({"kind": "start", "exercise": "1.5"}))
        for record in records:
            if record == "cell":
                read.line(line(cell_record()))
            elif record == "finish":
                read.line(line({"kind": "finish", "exercise": "1.5"}))
            else:
                read.line(line(case_record(exercise, record, answers)))
        end = {"kind": "end", "exercise": "1.5", "status": "done", "detail": ""}
        read.line(line({**end, "made": 0}))
        graded = judge.judge_piece(exercise, source, run, answers)
        if records[1] == 0:  # in order: two public cases right, nothing drawn
            assert graded.status == "graded" and graded.passed == 2
        else:
            assert graded.status == "refused" and graded.points == 0


def cell_record() -> dict[str, object]:
    return {
        "kind": "cell",
        "exercise": "1.5",
        "defined": True,
        "error": None,
        "reference": [],
        "tampering": [],
    }


def case_record(exercise: object, index: int, answers: Answers) -> dict:
    return {
        "kind": "case",
        "exercise": "1.5",
        "index": index,
        "label": exercise.cases[index].label,
        "outcome": answers.want(exercise, index),
        "error": None,
        "stub": False,
        "reference": [],
    }


def test_feedback_shows_no_text_the_students_code_chose() -> None:
    answers = Answers.load()
    quoted = answers.secret_text[100:160]
    error = {"type": "ValueError", "message": " ".join(quoted.split()), "lines": [2]}
    shown = judge.render_error(error, "x = 1\nraise ValueError(text)\n")
    assert shown == "  line 2: raise ValueError(text)\nValueError"
    error = {"type": "SyntaxError", "message": "invalid syntax", "lines": [1]}
    assert judge.render_error(error, "def (:").endswith("SyntaxError: invalid syntax")
    want = {
        "shape": [2, 3],
        "stride": [3, 1],
        "values": {"tensor": [], "dtype": "torch.float32"},
    }
    assert judge.shaped({"shape": [2, 3], "stride": [1, 2]}, want)
    assert judge.shaped({"raised": "ValueError"}, want)
    assert not judge.shaped({"shape": "x[1, None, -1]"}, want)
    assert not judge.shaped({"leaked": [1]}, want)
    assert not judge.shaped(["the hidden case's label"], [[1, 2]])


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
    predicted, problem = predictions.read_predictions(source, "answers_1_2")
    assert problem == "" and predicted is not None
    assert predicted["i + f"] == predictions.NOT_LITERAL
    assert predicted["i / i"] == "torch.float32"
    assert predicted["i + 2.5"] == "float32"
    assert predicted["i // 2"] == 2**0.5
    assert not marker.exists()


def test_the_copy_check_sees_through_names_literals_comments_and_layout() -> None:
    model = fixtures.solution_answer(fixtures.CHAPTER1, "1.6")
    answers = Answers.load()
    assert integrity.copied("1.6", model, answers)
    disguised = model.replace("shape", "dims").replace("numel", "count")
    disguised = "# my own work\n" + disguised.replace("    ", "  ")
    assert integrity.copied("1.6", disguised, answers)
    assert not integrity.copied("1.5", fixtures.WRONG_STRIDES, answers)


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


def test_fixed_cases_carry_at_most_their_share_and_drawn_ones_the_rest() -> None:
    assert judge.marks((3, 3), (0, 3)) == pytest.approx(judge.FIXED_SHARE)
    assert judge.marks((0, 3), (3, 3)) == pytest.approx(1 - judge.FIXED_SHARE)
    assert judge.marks((1, 2), (1, 2)) == pytest.approx(0.5)
    assert judge.FIXED_SHARE <= 0.2
    for exercise in load_pieces():
        assert len(exercise.drawn_cases) >= 2, exercise.id


def load_pieces() -> list:
    from course.checking import exercises

    return [e for e in exercises() if e.kind == "piece"]


def test_answered_is_read_from_the_cell_the_last_definition_counting() -> None:
    exercise = load("1.5")
    stub = "def contiguous_strides(shape):\n    raise NotImplementedError\n"
    answer = "def contiguous_strides(shape):\n    return ()\n"
    assert judge.stub_answer(exercise, stub)
    assert not judge.stub_answer(exercise, stub + "\n\n" + answer)
    assert judge.stub_answer(exercise, answer + "\n\n" + stub)
    assert not judge.stub_answer(exercise, "def contiguous_strides(shape):\n    1/0\n")


def test_which_cases_count_depends_on_the_course_alone() -> None:
    answers = Answers.load()
    exercise = load("1.10")
    later = judge.later_cases(exercise, answers)
    needs = answers.needs["1.10"]
    assert later == {i for i, n in enumerate(needs) if any(e[0] != "1" for e in n)}
    assert later and not judge.later_cases(exercise, answers, {"2.9", "2.10"})


def test_of_several_notebooks_of_a_chapter_the_latest_counts() -> None:
    from course.grading import counted

    older = Result(Path("b.ipynb"), "s", 1, modified=10.0)
    newer = Result(Path("a.ipynb"), "s", 1, modified=20.0)
    older.exercises["1.5"] = Graded("1.5", "", points=1.0)
    kept, notes = counted([older, newer])
    assert kept == [newer]
    assert notes == [
        "two notebooks for chapter 1 (b.ipynb, a.ipynb): a.ipynb counts (the latest)"
    ]


def judged(
    wrong: Collection[int] = (),
    needs: dict[int, list[str]] | None = None,
    made: int = 0,
) -> Graded:
    """1.5 judged on records that give the expected outcome of every case but
    the ``wrong`` ones; ``needs``: the other pieces a case reaches (1.6
    failing its own cases)."""
    exercise = load("1.5")
    cases = all_cases(exercise)
    fixed = len(exercise.cases) + len(exercise.grading_cases)
    drawn = [[n] for n in range(len(cases) - fixed)]  # each draw its own
    reached = [(needs or {}).get(i, []) for i in range(len(cases))]
    answers = dataclasses.replace(
        Answers.load(), seed="t", drawn={"1.5": drawn}, needs={"1.5": reached}
    )
    run = runner_protocol.Run()
    run.cells["1.5"] = cell_record()
    run.ends["1.5"] = {"status": "done", "detail": "", "made": made}
    run.cases["1.5"] = {}
    for index, case in enumerate(cases):
        outcome = ["wrong"] if index in wrong else answers.want(exercise, index)
        run.cases["1.5"][index] = {
            "label": case.label,
            "outcome": outcome,
            "error": None,
            "stub": False,
            "reference": [],
        }
    source = "def contiguous_strides(shape):\n    return ()\n"
    return judge.judge_piece(exercise, source, run, answers, doubtful={"1.6"})


def test_fixed_cases_earn_nothing_but_a_fixed_case_failed_costs_full_marks() -> None:
    exercise = load("1.5")
    fixed = len(exercise.cases) + len(exercise.grading_cases)
    drawn = range(fixed, len(all_cases(exercise)))
    assert judged().points == 1
    # Attack: the fixed cases' outcomes known (they ship with the notebook,
    # or were read), the drawn ones not: nothing earned.
    assert judged(wrong=drawn).points == 0
    # A wrong answer that only a fixed case catches has not full marks.
    one = judged(wrong=[0])
    assert one.points == pytest.approx(1 - judge.FIXED_PENALTY / fixed)
    assert 0 < one.points < 1
    assert one.hints and "Hint" in one.hints[0]
    # The same case failed because it also runs the student's failing 1.6: a
    # knock-on, named, which costs 1.5 nothing.
    knocked = judged(wrong=[0], needs={0: ["1.6"]})
    assert knocked.points == 1 and knocked.knock_on == {"1.6": 1}


def test_processes_counted_outside_the_answer_void_it_whatever_it_reported() -> None:
    """The runner's first process counts the processes and threads each
    child made (``made`` in the end record, which the child cannot write):
    an answer whose own records say nothing of the fork it made, and are
    all right, scores nothing, and is no piece for the other exercises."""
    assert judged().points == 1
    forked = judged(made=1)
    assert (forked.points, forked.status) == (0, "refused")
    assert "made 1 process(es)" in forked.message
    run = runner_protocol.Run()
    run.cells["1.5"] = cell_record()
    run.ends["1.5"] = {"status": "done", "detail": "", "made": 0}
    assert not judge.unusable("1.5", run)
    run.ends["1.5"]["made"] = 3
    assert judge.unusable("1.5", run)
    # The field is the runner's alone: out of range, the exercise is void.
    for made in ("0", -2, 1.5, None):
        read, run = reader()
        read.line(line({"kind": "start", "exercise": "1.5"}))
        end = {"kind": "end", "exercise": "1.5", "status": "done", "detail": ""}
        read.line(line({**end, "made": made}))
        assert run.ignored == {"end records out of range": 1}, made


def test_an_exercise_that_needs_a_missing_earlier_chapter_waits() -> None:
    answers = Answers.load()
    exercise = load("2.9")
    assert any("1.5" in reached for reached in answers.needs["2.9"])
    assert judge.waiting_for(exercise, answers, {"1.5", "1.6"}) == [1]
    assert not judge.waiting_for(exercise, answers, {"2.10", "3.3"})  # not earlier

    def graded(source: str) -> Graded:
        run = runner_protocol.Run()
        read = runner_protocol.Reader("n" * 32, {"2.9": exercise}, run, ["2.9"])
        read.line(line({"kind": "start", "exercise": "2.9"}))
        read.line(line({**cell_record(), "exercise": "2.9"}))
        read.line(line({"kind": "finish", "exercise": "2.9"}))
        end = {"kind": "end", "exercise": "2.9", "status": "done", "detail": ""}
        read.line(line({**end, "made": 0}))
        return judge.judge_piece(exercise, source, run, answers, absent={"1.5"})

    waiting = graded(fixtures.solution_answer(fixtures.CHAPTER2, "2.9"))
    assert waiting.status == "waiting" and waiting.waiting == [1]
    assert waiting.points == 0 and not waiting.failures and not waiting.hints
    assert "no notebook of chapter 1 was handed in or given" in waiting.message
    # a stub is the student's own: it is not attempted, not waiting
    stub = fixtures.solution_answer(fixtures.CHAPTER2, "2.9").split("def ")[0]
    stub += "def topological_order(root):\n    raise NotImplementedError\n"
    assert graded(stub).status == "not attempted"
