"""A check's "All right!" means full marks from the grader.

For every exercise that asks for a piece of the engine, wrong answers are made from
the worked solution (``solutions/``): one for each ``raise`` in it, left out in turn
(each is a requirement the statement makes: "raise RuntimeError when..."), and the
hand-written ones below for requirements that raise nothing (a dtype, a shape...).
The test fails when the public cases pass such an answer and grading (public and
grading-only cases) does not: the notebook would say "All right!" for an answer
that loses marks.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from course.checking import evaluate, expected_outcomes, load

ROOT = Path(__file__).resolve().parents[1]

#: Wrong answers for requirements that raise nothing: exercise id -> (what, code).
HAND_WRITTEN: dict[str, list[tuple[str, str]]] = {
    "1.6": [
        (
            "never raises (the engine checks the product again afterwards)",
            "def infer_shape(shape, count):\n"
            "    shape = tuple(shape)\n"
            "    if -1 not in shape:\n"
            "        return shape\n"
            "    known = 1\n"
            "    for size in shape:\n"
            "        if size != -1:\n"
            "            known *= size\n"
            "    where = shape.index(-1)\n"
            "    inferred = count // known if known else 0\n"
            "    return shape[:where] + (inferred,) + shape[where + 1 :]\n",
        )
    ],
}


def _source(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def _solutions() -> Iterator[tuple[str, str, str]]:
    """(exercise id, set-up code before it, solution code) of every exercise."""
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        setup: list[str] = []
        for cell in cells:
            if cell["cell_type"] != "code":
                continue
            tags = cell.get("metadata", {}).get("tags", [])
            if "setup" in tags:
                setup.append(_source(cell))
            for tag in tags:
                if tag.startswith("exercise-"):
                    yield tag.removeprefix("exercise-"), "\n".join(setup), _source(cell)


class _LeaveOutRaise(ast.NodeTransformer):
    """Replaces the ``index``-th ``raise`` (in source order) by ``pass``."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.seen = -1

    def visit_Raise(self, node: ast.Raise) -> ast.AST:
        self.seen += 1
        if self.seen == self.index:
            return ast.copy_location(ast.Pass(), node)
        return node


def _without_each_raise(source: str) -> Iterator[tuple[str, str]]:
    tree = ast.parse(source)
    raises = sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.Raise)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    lines = source.splitlines()
    for index, node in enumerate(raises):
        wrong = _LeaveOutRaise(index).visit(ast.parse(source))
        what = f"without `{lines[node.lineno - 1].strip()}`"
        yield what, ast.unparse(ast.fix_missing_locations(wrong))


def _wrong_answers() -> list[tuple[str, str, str, str]]:
    found = []
    for exercise_id, setup, source in _solutions():
        if load(exercise_id).kind != "piece":
            continue
        for what, code in _without_each_raise(source):
            found.append((exercise_id, what, setup, code))
        for what, code in HAND_WRITTEN.get(exercise_id, []):
            found.append((exercise_id, what, setup, code))
    return found


WRONG = _wrong_answers()
HAND_MADE = {(e, what) for e, answers in HAND_WRITTEN.items() for what, _ in answers}


def test_there_are_wrong_answers_for_every_piece_exercise() -> None:
    pieces = {i for i, _, _ in ((e, s, c) for e, s, c in _solutions())}
    pieces = {i for i in pieces if load(i).kind == "piece"}
    covered = {exercise_id for exercise_id, _, _, _ in WRONG}
    assert pieces, "no piece exercise found in solutions/"
    assert "1.6" in covered


@pytest.mark.parametrize(
    "exercise_id, what, setup, code",
    WRONG,
    ids=[f"{e}-{w[:40]}" for e, w, _, _ in WRONG],
)
def test_public_check_fails_what_grading_fails(
    exercise_id: str, what: str, setup: str, code: str
) -> None:
    exercise = load(exercise_id)
    namespace: dict[str, Any] = {"__name__": "__student__"}
    exec(compile(setup, "<setup>", "exec"), namespace)
    exec(compile(code, "<answer>", "exec"), namespace)
    answer = namespace[exercise.name]
    public = evaluate(
        exercise, answer, exercise.cases, expected_outcomes().get(exercise_id, {})
    )
    expected = dict(expected_outcomes().get(exercise_id, {}))
    expected.update(expected_outcomes(grading=True).get(exercise_id, {}))
    graded = evaluate(
        exercise, answer, [*exercise.cases, *exercise.grading_cases], expected
    )
    failing = {r.label for r in public.results if not r.passed}
    if (exercise_id, what) in HAND_MADE:
        # Made to break a requirement of the statement: a case must show it.
        assert failing, (
            f"exercise {exercise_id}, an answer that {what}: the check says All right"
        )
    lost = {r.label for r in graded.results if not r.passed}
    if lost:
        assert failing & lost, (
            f"exercise {exercise_id}, an answer {what}: grading fails "
            f"{sorted(lost)}, the check shows none of them (it fails {sorted(failing)})"
        )


def test_an_error_in_the_answer_shows_one_traceback_and_a_hint_about_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from course.checking import check

    namespace: dict[str, Any] = {}
    exec(
        "def contiguous_strides(shape):\n"
        "    return tuple(stride_of(size) for size in shape)\n",
        namespace,
    )
    check("1.5", namespace["contiguous_strides"])
    printed = capsys.readouterr().out
    assert printed.count("NameError: name 'stride_of' is not defined") == 1, printed
    assert printed.count('File "') <= 4, printed
    assert "(the same error as above)" in printed
    hint = printed.strip().splitlines()[-1]
    assert hint.startswith("Hint:") and "not defined" in hint, hint
