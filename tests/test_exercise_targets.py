"""Every piece's target is where the class edition stubs it and the grader
puts the student's piece: a method defined on its class itself (not
inherited from a mixin), a function of its module. Moving a piece's code
elsewhere fails here, in the quick tier, rather than in a whole release."""

from __future__ import annotations

import pytest

from course.checking import load
from course.grading import chapter_exercises
from course.substitute import original, put

PIECES = [
    exercise
    for chapter in range(1, 7)
    for exercise in map(load, chapter_exercises(chapter))
    if exercise.kind == "piece" and exercise.target
]


def test_every_chapter_has_pieces() -> None:
    assert len(PIECES) >= 50


@pytest.mark.parametrize("exercise", PIECES, ids=lambda e: e.id)
def test_the_piece_can_be_put_in_place_and_back(exercise: object) -> None:
    target = exercise.target  # type: ignore[attr-defined]
    engine_own = original(target)
    put_back = put(target, engine_own)  # KeyError where the class only inherits it
    put_back()
    assert original(target) is engine_own
