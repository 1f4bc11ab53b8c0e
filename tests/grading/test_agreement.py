"""The grader agrees with the notebook: an answer that reaches another
exercise's piece the way a student would write it (imported by name at the
top of the cell, through its module, through a tensor method) gets the same
verdict from the grader as from the notebook, where every piece is there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from course import grading
from course.checking import evaluate, expected_outcomes, load
from tests.grading import fixtures as f
from tests.grading.scenarios import import_by_name_2_10, pieces

# Grades a whole student, every chapter: the full run only.
pytestmark = pytest.mark.pipeline

CHAPTERS = {1: f.CHAPTER1, 2: f.CHAPTER2, 3: f.CHAPTER3, 4: f.CHAPTER4, 5: f.CHAPTER5}
CHAPTERS |= {6: f.CHAPTER6}

REACH = """
from slowtorch_lib._strides import {other}
import slowtorch_lib._strides as _strides_module

_model_{name} = {name}
_busy_{name} = []


def {name}(*args, **kwargs):
    # another piece, by name, through its module, and through a method
    # (once: the other piece may call this one)
    if not _busy_{name}:
        _busy_{name}.append(True)
        try:
            {other}({shape})
            _strides_module.{other}({shape})
            torch.zeros(2, 3).t().contiguous().stride()
        finally:
            _busy_{name}.pop()
    return _model_{name}(*args, **kwargs)
"""


def reaching(exercise: Any, source: str) -> str:
    """The model answer, wrapped so that each call also reaches another
    piece (1.5's ``contiguous_strides``; for 1.5, 1.7's ``position_list``)."""
    if exercise.id == "1.5":
        other, shape = "position_list", "(2, 3), (3, 1), 0"
    else:
        other, shape = "contiguous_strides", "(2, 3)"
    return source + REACH.format(other=other, name=exercise.name, shape=shape)


def function_pieces(chapter: int) -> list[Any]:
    """The pieces answered by a function (a class piece is left as it is)."""
    return [
        e
        for e in pieces(chapter)
        if e.target
        and not e.target.split(".")[-1][:1].isupper()
        and not e.target.split(".")[-2][:1].isupper()
    ]


def notebook_verdict(exercise: Any, source: str) -> bool:
    """What the student's check says, in a kernel where every piece is there
    (the complete engine is the class engine with every piece saved)."""
    import slowtorch_lib

    namespace: dict[str, Any] = {"torch": slowtorch_lib, "__name__": "__main__"}
    exec(source, namespace)  # noqa: S102  (the model answer, changed)
    expected = expected_outcomes().get(exercise.id, {})
    report = evaluate(exercise, namespace[exercise.name], exercise.cases, expected)
    return report.attempted and report.passed == report.total


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("agreement")
    sources: dict[str, str] = {}
    items = []
    for number, chapter in CHAPTERS.items():
        answers = {}
        for exercise in function_pieces(number):
            source = reaching(exercise, f.solution_answer(chapter, exercise.id))
            if exercise.id == "2.10":
                source = import_by_name_2_10()
            sources[exercise.id] = source
            answers["exercise_" + exercise.id.replace(".", "_")] = source
        path = folder / "student" / f"{chapter}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        notebook = f.with_answers(f.notebook("solutions", chapter), **answers)
        path.write_text(json.dumps(notebook), encoding="utf-8")
        items.append((path, "student"))
    results = grading.grade(items, timeout=120, jobs=1)
    return {"sources": sources, "results": results}


@pytest.mark.slow
def test_the_grader_and_the_notebook_agree_on_answers_that_reach_other_pieces(
    graded: dict[str, Any],
) -> None:
    by_id = {g.id: g for r in graded["results"] for g in r.exercises.values()}
    assert set(graded["sources"]) <= set(by_id)
    for exercise_id, source in graded["sources"].items():
        exercise = load(exercise_id)
        notebook = notebook_verdict(exercise, source)
        grade = by_id[exercise_id]
        grader = grade.status == "graded" and not grade.failures
        assert notebook == grader, (exercise_id, grade.status, grade.message)
        assert notebook and grade.points == 1, (exercise_id, grade.points, grade.flags)


def test_the_wrapped_answers_do_reach_another_piece() -> None:
    """A control: with the other piece broken, the wrapped answer fails."""
    import slowtorch_lib
    from course.substitute import substituted

    exercise = load("1.7")
    source = reaching(exercise, f.solution_answer(f.CHAPTER1, "1.7"))
    assert notebook_verdict(exercise, source)

    def broken(shape: Any) -> Any:
        raise NotImplementedError(
            "exercise 1.5, `contiguous_strides`, is not written yet"
        )

    with substituted("slowtorch_lib._strides.contiguous_strides", broken):
        namespace: dict[str, Any] = {"torch": slowtorch_lib, "__name__": "__main__"}
        exec(source, namespace)  # noqa: S102
        report = evaluate(
            exercise,
            namespace["position_list"],
            exercise.cases,
            expected_outcomes().get("1.7", {}),
        )
    assert report.passed < report.total
    assert Path(__file__).exists()


def engine_pieces() -> dict[str, str]:
    """The function pieces whose parameter names are the engine's own (not
    PyTorch's, which a student must keep): their name and exercise."""
    import torch

    public = (torch, torch.nn.functional, torch.autograd, torch.nn.utils)
    return {
        str(e.target).rsplit(".", 1)[1]: e.id
        for e in all_pieces()
        if e.target
        and not any(hasattr(m, str(e.target).rsplit(".", 1)[1]) for m in public)
    }


def all_pieces() -> list[Any]:
    from course.checking import exercises
    from course.placing import plain_target

    return [e for e in exercises() if e.kind == "piece" and plain_target(e)]


def test_the_engine_calls_its_own_pieces_by_position() -> None:
    """A student may name a piece's parameters as they like (``y`` for
    ``skip_full``): the engine never passes one by keyword, else the honest
    answer raises TypeError in the grader while the notebook said right."""
    import ast

    pieces = engine_pieces()
    assert {"_basic", "position_list", "view_strides"} <= set(pieces)
    by_keyword = []
    for path in sorted(Path("slowtorch_lib").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and node.keywords:
                called = node.func
                name = getattr(called, "id", getattr(called, "attr", None))
                if name in pieces:
                    by_keyword.append(f"{path}:{node.lineno} {name} ({pieces[name]})")
    assert not by_keyword, by_keyword


SUBCLASSED_CONV = '''
from slowtorch_lib.nn.modules.conv import _Conv


class Conv2d(_Conv):
    """The engine's own 2-d convolution, under the exercise's name."""
'''


def test_a_layer_that_subclasses_the_engines_convolution_is_refused_by_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """5.10 asks for nn.Conv2d built from Module; the engine's ``_Conv``
    (which Conv1d needs, so the class edition keeps it) already is one. An
    answer that subclasses it passes every case, so the notebook's check
    refuses it, saves nothing, and the grader gives it 0."""
    from course.checking import check

    namespace: dict[str, Any] = {}
    exec(SUBCLASSED_CONV, namespace)  # noqa: S102  (the attack, a fixed text)
    check("5.10", namespace["Conv2d"])
    said = capsys.readouterr().out
    assert "`_Conv`, which already does" in said and "Nothing was saved" in said
    path = tmp_path / "student" / f"{f.CHAPTER5}.ipynb"
    path.parent.mkdir()
    notebook = f.with_answers(
        f.notebook("solutions", f.CHAPTER5), exercise_5_10=SUBCLASSED_CONV
    )
    path.write_text(json.dumps(notebook), encoding="utf-8")
    result = grading.grade([(path, "student")], timeout=120, jobs=1)[0]
    graded = result.exercises["5.10"]
    assert graded.points == 0 and "_Conv" in graded.message, graded
