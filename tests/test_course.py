"""The course machinery: sources, checks, generated notebooks and grading.

The slow parts (fresh kernels) run once, side by side, in a module fixture:
``python -m course generate --check``, nbval on both notebook folders, and
``python -m course grade`` on a folder of made-up submissions.
"""

from __future__ import annotations

import copy
import csv
import functools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

import slowtorch_lib as torch
from course import __main__ as cli
from course import grading, notebooks
from course.checking import check, check_line, load
from course.notebooks import ROOT, chapters, split_solutions

CHAPTER1 = "01_arrays_to_tensors"
CHAPTER2 = "02_walking_backwards"


def all_exercises() -> list[str]:
    found = []
    for chapter in chapters():
        for cell in notebooks.read_source(chapter).cells:
            for tag in cell.metadata.get("tags", []):
                if tag.startswith("exercise-"):
                    found.append(tag.split("-", 1)[1])
    return found


def stub(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError


@functools.cache
def answers(folder: str, chapter: str) -> dict[str, Any]:
    """The names a notebook defines, from running its code cells but the checks."""
    notebook = nbformat.read(str(ROOT / folder / f"{chapter}.ipynb"), as_version=4)
    namespace: dict[str, Any] = {}
    for cell in notebook.cells:
        if cell.cell_type == "code" and not cell.id.startswith("check-"):
            exec(cell.source, namespace)  # noqa: S102  (our own notebooks)
    return namespace


def notebook_answer(folder: str, exercise: str) -> Any:
    chapter = next(c.name for c in chapters() if int(c.name[:2]) == int(exercise.split(".")[0]))
    return answers(folder, chapter)[load(exercise).name]


# --- sources and checks (fast, in process) -------------------------------------


def test_each_chapter_has_at_least_six_exercises_with_hidden_checks() -> None:
    exercises = all_exercises()
    assert sum(e.startswith("1.") for e in exercises) >= 6
    assert sum(e.startswith("2.") for e in exercises) >= 6
    for exercise in exercises:
        assert len(load(exercise).cases) >= 4


@pytest.mark.parametrize("exercise", all_exercises())
def test_reference_and_solution_pass_and_stub_is_not_attempted(exercise: str) -> None:
    total = len(load(exercise).cases)
    passed = f"exercise {exercise} passed: all {total} cases right."
    assert check_line(exercise, load(exercise).reference) == passed
    assert check_line(exercise, notebook_answer("solutions", exercise)) == passed
    assert check_line(exercise, notebook_answer("exercises", exercise)) == (
        f"exercise {exercise}: not attempted yet (the stub still raises NotImplementedError)."
    )


class RecursiveSort:
    """Wrong answers used below, written the way students write them."""

    @staticmethod
    def topological_sort(graph: dict[str, list[str]], root: str) -> list[str]:
        order: list[str] = []

        def visit(node: str) -> None:
            if node in order:
                return
            for child in graph[node]:
                visit(child)
            order.append(node)

        visit(root)
        return order[::-1]


def assign_instead_of_add(output: Any) -> None:
    output.grad = 1.0
    stack = [output]
    while stack:
        var = stack.pop()
        for parent, local in var.parents:
            parent.grad = var.grad * local
            stack.append(parent)


class AlwaysBackOn:
    def __enter__(self) -> None:
        torch.set_grad_enabled(False)

    def __exit__(self, *exc: object) -> None:
        torch.set_grad_enabled(True)


def mutating_gradient(f: Any, xs: list[float], eps: float = 1e-6) -> list[float]:
    result = []
    for i in range(len(xs)):
        xs[i] += eps
        up = f(xs)
        xs[i] -= 2 * eps
        down = f(xs)
        result.append((up - down) / (2 * eps))
    return result


WRONG = {
    "1.1": (lambda shape: tuple(1 for _ in shape), "case 2 of 8"),
    "1.3": (lambda a, b: tuple(max(x, y) for x, y in zip(a, b)), "case 2 of 8"),
    "1.6": (lambda a, b: [[0]], "case 1 of 6"),
    "2.1": (lambda a, b, g: (g / b, g * a / (b * b)), "case 1 of 5"),
    "2.4": (RecursiveSort.topological_sort, "RecursionError"),
    "2.6": (mutating_gradient, "xs changed to"),
    "2.7": (assign_instead_of_add, "case 2 of 7"),
    "2.8": (AlwaysBackOn, "case 2 of 4"),
}


@pytest.mark.parametrize("exercise", sorted(WRONG))
def test_wrong_answer_names_first_failing_case_expected_got_and_hint(exercise: str) -> None:
    wrong, expected_text = WRONG[exercise]
    line = check_line(exercise, wrong)
    assert line.startswith(f"exercise {exercise} failed on case ")
    assert expected_text in line
    assert " got " in line and " Hint: " in line
    assert "\n" not in line and "0x" not in line
    assert torch.is_grad_enabled()  # a broken NoGrad does not leave grad mode off


def test_check_prints_one_line_and_never_raises(capsys: pytest.CaptureFixture[str]) -> None:
    def chatty(*args: Any) -> int:
        print("debugging", args)
        return load("1.2").reference(*args)

    check("1.2", 42)
    check("9.9", stub)
    check("1.2", chatty)
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].startswith("exercise 1.2 failed on case 1 of 7:")
    assert "got an exception TypeError" in lines[0]
    assert lines[1].startswith("exercise 9.9: could not be checked")
    assert lines[2] == "exercise 1.2 passed: all 7 cases right."
    assert len(lines) == 3 and captured.err == ""


def test_split_solutions_replaces_regions_with_stubs() -> None:
    code = "def f():\n    x = 1\n    # BEGIN SOLUTION\n    return x\n    # END SOLUTION\n"
    exercise, solution, hidden = split_solutions(code)
    assert exercise == "def f():\n    x = 1\n    raise NotImplementedError\n"
    assert solution == "def f():\n    x = 1\n    return x\n"
    assert hidden == ["    return x"]
    custom = "    # BEGIN SOLUTION | pass  # your code\n    save()\n    # END SOLUTION"
    assert split_solutions(custom)[0] == "    pass  # your code"
    for broken in (
        "# BEGIN SOLUTION\nx",
        "x\n# END SOLUTION",
        "# BEGIN SOLUTION\n# BEGIN SOLUTION",
    ):
        with pytest.raises(ValueError):
            split_solutions(broken)


# --- the committed notebooks -----------------------------------------------------


@pytest.mark.parametrize("chapter", chapters(), ids=lambda c: c.name)
def test_exercise_notebooks_leak_no_solution(chapter: notebooks.Chapter) -> None:
    text = chapter.exercise_path.read_text(encoding="utf-8")
    exercise = nbformat.reads(text, as_version=4)
    code = "\n".join(c.source for c in exercise.cells if c.cell_type == "code")
    public = {
        line.strip()
        for cell in notebooks.read_source(chapter).cells
        for line in (
            split_solutions(cell.source)[0] if cell.cell_type == "code" else cell.source
        ).splitlines()
    } | {line.strip() for line in notebooks.SETUP.splitlines()}
    hidden = notebooks.hidden_lines(chapter)
    distinctive = [line for line in hidden if line not in public]
    assert len(distinctive) > len(hidden) / 2
    lines = {line.strip() for line in code.splitlines()}
    assert [line for line in distinctive if line in lines] == []
    assert "SOLUTION" not in text
    assert all(not c.get("outputs") for c in exercise.cells if c.cell_type == "code")
    assert "EXERCISES" not in text and "course.checks" not in text


@pytest.mark.parametrize("chapter", chapters(), ids=lambda c: c.name)
def test_notebooks_pair_every_exercise_with_a_check_and_stable_ids(
    chapter: notebooks.Chapter,
) -> None:
    for path in (chapter.exercise_path, chapter.solution_path):
        notebook = nbformat.read(str(path), as_version=4)
        nbformat.validate(notebook)
        ids = [cell.id for cell in notebook.cells]
        assert len(ids) == len(set(ids))
        tags = [t for cell in notebook.cells for t in cell.metadata.get("tags", [])]
        exercises = [t.split("-", 1)[1] for t in tags if t.startswith("exercise-")]
        checks = [t.split("-", 1)[1] for t in tags if t.startswith("check-")]
        assert exercises == checks and exercises
        assert tags.index(f"exercise-{exercises[0]}") < tags.index(f"check-{exercises[0]}")
        assert notebook.metadata["course"]["chapter"] == chapter.name


def test_solution_notebooks_store_one_passing_line_per_check() -> None:
    for chapter in chapters():
        notebook = nbformat.read(str(chapter.solution_path), as_version=4)
        for cell in notebook.cells:
            for role, exercise in grading.exercise_tags(cell):
                if role == "check":
                    (output,) = cell.outputs
                    assert output.text.startswith(f"exercise {exercise} passed: all ")
                    assert output.text.count("\n") == 1


def test_generate_check_reports_a_stale_notebook(monkeypatch: pytest.MonkeyPatch) -> None:
    chapter = chapters()[0]
    before = chapter.exercise_path.read_text(encoding="utf-8")

    def fake_render(this: notebooks.Chapter) -> dict[Path, str]:
        texts = {p: p.read_text(encoding="utf-8") for p in (this.exercise_path, this.solution_path)}
        if this.name == chapter.name:
            texts[this.exercise_path] += " "
        return texts

    monkeypatch.setattr(notebooks, "render", fake_render)
    assert notebooks.generate(check=True) == [chapter.exercise_path]
    assert chapter.exercise_path.read_text(encoding="utf-8") == before
    assert cli.main(["generate", "--check"]) == 1


# --- fresh kernels: generate --check, nbval, grading ----------------------------


def edited(notebook: Any, **sources: str) -> Any:
    """A copy of ``notebook`` with the cells of these ids given new sources."""
    notebook = copy.deepcopy(notebook)
    for cell in notebook.cells:
        if cell.id.replace("-", "_") in sources:
            cell.source = sources[cell.id.replace("-", "_")]
    return notebook


def make_submissions(folder: Path) -> None:
    solution1 = nbformat.read(str(ROOT / "solutions" / f"{CHAPTER1}.ipynb"), as_version=4)
    solution2 = nbformat.read(str(ROOT / "solutions" / f"{CHAPTER2}.ipynb"), as_version=4)
    blank2 = nbformat.read(str(ROOT / "exercises" / f"{CHAPTER2}.ipynb"), as_version=4)
    wrong = edited(
        solution1,
        exercise_1_3="def broadcast_shapes(a, b):\n    return tuple(a)",
        check_1_6='print("exercise 1.6 passed: all 6 cases right.")',  # cannot cheat
    )
    messy = copy.deepcopy(solution1)
    ids = [cell.id for cell in messy.cells]
    messy.cells = [c for c in messy.cells if c.id != "check-1-2"]  # deleted
    moved = next(c for c in messy.cells if c.id == "check-1-4")
    messy.cells.remove(moved)
    messy.cells.insert(ids.index("exercise-1-4") - 2, moved)  # before its exercise
    for name, notebooks_of in {
        "alice": [(CHAPTER1, solution1), (CHAPTER2, solution2)],
        "bob": [(CHAPTER2, blank2)],
        "carol": [(CHAPTER1, wrong)],
        "dave": [(CHAPTER1, messy)],
    }.items():
        (folder / name).mkdir(parents=True)
        for chapter, notebook in notebooks_of:
            nbformat.write(notebook, str(folder / name / f"{chapter}.ipynb"))
    (folder / "erin").mkdir()
    (folder / "erin" / "homework.ipynb").write_text("{not a notebook", encoding="utf-8")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Starts the four slow commands at once and waits for all of them."""
    folder = tmp_path_factory.mktemp("submissions")
    make_submissions(folder)
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    python = sys.executable
    pytest_args = [
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-c",
        os.devnull,
        "--rootdir",
        str(ROOT),
    ]
    commands = {
        "check": [python, "-m", "course", "generate", "--check"],
        "solutions": [python, *pytest_args, "--nbval", "solutions/"],
        "exercises": [python, *pytest_args, "--nbval-lax", "exercises/"],
        "grade": [python, "-m", "course", "grade", str(folder)],
    }
    started = {
        name: subprocess.Popen(
            command,
            cwd=ROOT,
            env=environment,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name, command in commands.items()
    }
    done = {}
    for name, process in started.items():
        out, err = process.communicate(timeout=300)
        done[name] = (process.returncode, out, err)
    done["folder"] = folder
    return done


@pytest.mark.slow
def test_committed_notebooks_are_up_to_date(runs: dict[str, Any]) -> None:
    code, out, err = runs["check"]
    assert code == 0, out + err
    assert "all notebooks up to date" in out


@pytest.mark.slow
def test_solutions_reproduce_their_outputs_under_nbval(runs: dict[str, Any]) -> None:
    code, out, err = runs["solutions"]
    assert code == 0, out + err
    assert "failed" not in out


@pytest.mark.slow
def test_blank_exercises_run_without_error_under_nbval_lax(runs: dict[str, Any]) -> None:
    code, out, err = runs["exercises"]
    assert code == 0, out + err


def graded(runs: dict[str, Any]) -> dict[str, dict[str, str]]:
    with open(runs["folder"] / "grades.csv", newline="", encoding="utf-8") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


@pytest.mark.slow
def test_grading_a_folder_writes_one_row_per_student(runs: dict[str, Any]) -> None:
    code, out, err = runs["grade"]
    assert code == 1, out + err  # some exercises fail
    assert "Traceback" not in out + err
    rows = graded(runs)
    assert sorted(rows) == ["alice", "bob", "carol", "dave", "erin"]
    assert rows["alice"]["passed"] == rows["alice"]["total"] == str(len(all_exercises()))


@pytest.mark.slow
def test_solution_passes_and_blank_fails_every_exercise(runs: dict[str, Any]) -> None:
    rows = graded(runs)
    for exercise in all_exercises():
        assert rows["alice"][exercise] == "pass"
        # bob handed in the blank chapter 2 only
        assert rows["bob"][exercise] == ("FAIL" if exercise.startswith("2.") else "missing")
    assert "exercise 2.4: not attempted yet" in runs["grade"][1]


@pytest.mark.slow
def test_one_wrong_answer_fails_exactly_that_exercise(runs: dict[str, Any]) -> None:
    row = graded(runs)["carol"]
    chapter1 = [e for e in all_exercises() if e.startswith("1.")]
    assert [e for e in chapter1 if row[e] != "pass"] == ["1.3"]
    assert "exercise 1.3 failed on case 2 of 8" in runs["grade"][1]


@pytest.mark.slow
def test_deleted_and_reordered_cells_get_a_clear_message(runs: dict[str, Any]) -> None:
    row = graded(runs)["dave"]
    out = runs["grade"][1]
    assert row["1.2"] == "missing" and row["1.4"] == "FAIL" and row["1.5"] == "pass"
    assert "exercise 1.2: its check cell is missing (deleted?)" in out
    assert "exercise 1.4: the check cell comes before the exercise cell" in out
    assert "NameError: name 'transpose_layout' is not defined" in out
    assert "cannot read the notebook" in graded(runs)["erin"]["notes"]


def test_grade_exits_zero_only_when_everything_passes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "01_arrays_to_tensors.ipynb"
    path.write_text("{}", encoding="utf-8")
    results = [grading.Result(path, CHAPTER1, {"1.1": grading.PASS})]
    monkeypatch.setattr(grading, "grade", lambda paths: results)
    assert cli.main(["grade", str(path)]) == 0
    results[0].exercises["1.2"] = grading.FAIL
    assert cli.main(["grade", str(path)]) == 1
    assert cli.main(["grade", str(tmp_path / "nowhere.ipynb")]) == 2


@pytest.mark.slow
def test_json_of_submissions_is_left_alone(runs: dict[str, Any]) -> None:
    path = runs["folder"] / "carol" / f"{CHAPTER1}.ipynb"
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert any("tuple(a)" in "".join(c["source"]) for c in notebook["cells"])
