"""A check's "All right!" means full marks, for the wrong answers that matter.

For every piece exercise, the wrong answers a student would really write
(:data:`tests.grading.wrong_answers.WRONG`: the tie rule, the NaN row, the
off-by-one window, the forgotten dilation...) are put in place of the
engine's piece one at a time. Each must fail the notebook's own public check
(so the student hears of it in the exercise it belongs to) and lose marks
with the grader (public, grading-only and drawn cases).
"""

from __future__ import annotations

import pytest

from course.checking import load
from tests.grading.wrong_answers import (
    WRONG,
    Wrong,
    answer,
    grader_verdict,
    mutated,
    public_verdict,
    solutions,
)

FOUND = solutions()


def test_every_piece_exercise_has_wrong_answers() -> None:
    pieces = {e for e in FOUND if load(e).kind == "piece"}
    assert len(pieces) > 40, "no piece exercise found in solutions/"
    covered = {wrong.exercise for wrong in WRONG}
    assert pieces <= covered, f"no wrong answers for {sorted(pieces - covered)}"


def test_a_replacement_that_no_longer_applies_is_refused() -> None:
    stale = Wrong("1.5", "a stale edit", (("no such text", "x"),))
    with pytest.raises(AssertionError, match="no such text"):
        mutated(FOUND["1.5"][1], stale)


@pytest.mark.slow
@pytest.mark.parametrize(
    "wrong", WRONG, ids=[f"{w.exercise}-{w.what[:48]}" for w in WRONG]
)
def test_a_wrong_answer_fails_its_check_and_loses_marks(wrong: Wrong) -> None:
    exercise = load(wrong.exercise)
    impl = answer(wrong, FOUND)
    assert public_verdict(exercise, impl), (
        f"exercise {wrong.exercise}: an answer where {wrong.what} gets "
        "'All right!' from its own check"
    )
    assert grader_verdict(exercise, impl, first=True), (
        f"exercise {wrong.exercise}: an answer where {wrong.what} gets full marks"
    )


PIECES = sorted(
    (e for e in FOUND if load(e).kind == "piece"),
    key=lambda e: tuple(int(n) for n in e.split(".")),
)


@pytest.mark.slow
@pytest.mark.parametrize("exercise_id", PIECES)
def test_the_model_answer_passes_both(exercise_id: str) -> None:
    """The verdicts are not the harness's failures: the unchanged model
    answer passes every case, public and graded."""
    exercise = load(exercise_id)
    setup, model = FOUND[exercise_id]
    namespace: dict[str, object] = {"__name__": "__student__"}
    exec(compile(setup, "<setup>", "exec"), namespace)  # noqa: S102
    exec(compile(model, "<answer>", "exec"), namespace)  # noqa: S102
    impl = namespace[exercise.name]
    assert public_verdict(exercise, impl) == []
    assert grader_verdict(exercise, impl) == []
