"""Where a piece's marks come from: the ideas, not PyTorch's messages.

The grader gives most of a piece's marks to drawn cases, whose inputs each
grading run draws; the fixed cases (public and recorded) carry at most
``judge.FIXED_SHARE`` (``judge.marks``). The cases that only check that a
bad argument is refused (PyTorch's error) are fixed cases, so they weigh
little. These tests keep it so as exercises are added.
"""

from __future__ import annotations

from typing import Any

import pytest

from course import judge
from course.checking import Exercise, exercises, expected_outcomes

PIECES = [e for e in exercises() if e.kind == "piece"]


def fixed_outcomes(exercise: Exercise) -> dict[str, Any]:
    return {
        **expected_outcomes().get(exercise.id, {}),
        **expected_outcomes(grading=True).get(exercise.id, {}),
    }


def refusals(exercise: Exercise) -> list[Any]:
    """The fixed cases that expect an error."""
    fixed = fixed_outcomes(exercise).values()
    return [v for v in fixed if isinstance(v, dict) and "raised" in v]


def refusal_share(exercise: Exercise) -> float:
    """The share of the exercise's marks on cases that expect an error."""
    fixed = fixed_outcomes(exercise)
    # The marks of an answer that passes the refusals and nothing else.
    return judge.marks(
        (len(refusals(exercise)), len(fixed)), (0, len(exercise.drawn_cases))
    )


@pytest.mark.parametrize("exercise", PIECES, ids=[e.id for e in PIECES])
def test_most_marks_come_from_drawn_cases(exercise: Exercise) -> None:
    assert exercise.drawn_cases, f"{exercise.id} has no drawn case"
    assert refusal_share(exercise) <= 0.12


@pytest.mark.parametrize("chapter", sorted({e.id.split(".")[0] for e in PIECES}))
def test_refusals_weigh_little_in_a_chapter(chapter: str) -> None:
    """Across a chapter's pieces, errors carry under 3 % of the marks."""
    shares = [refusal_share(e) for e in PIECES if e.id.split(".")[0] == chapter]
    assert sum(shares) / len(shares) < 0.03


def test_a_refusal_counts_only_where_no_case_is_drawn() -> None:
    """The share is measured: fixed cases carry no marks beside drawn ones,
    but the same fixed cases without drawn ones give the refusals their
    whole weight."""
    exercise = next(e for e in PIECES if refusals(e))
    bare = Exercise(exercise.id, exercise.title, exercise.name, "piece", [], [])
    assert refusal_share(exercise) == 0 < refusal_share(bare) <= 1
