"""The map of which other pieces each case runs: not the packages the course needs.

Measured by ``python -m course.dependencies``; the judge holds it.

The grader runs a student's answer in the class edition's engine, where
every piece is a stub until the student's own answer to it is put in (see
:mod:`course.placing`). A case of exercise 2.3 also runs the engine's strides
(1.5) and topological order (2.9); if the submission has no usable answer to
one of those, the case would meet its stub, and, as in the student's
notebook, it does not count. Which pieces a case reaches is measured here,
once, on the complete engine: every piece is wrapped to note that it ran,
then every case is run. The judge holds the map, so a student's code cannot
claim that a case it fails needs a piece it lacks.

Prints ``{exercise id: [[other ids reached by case 0], ...]}`` as JSON
(public cases first, then the grading-only ones, then the drawn ones, as the
runner numbers them; a drawn case is measured on one draw).
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any

import slowtorch_lib
from course.checking import Exercise, run_case
from course.edition import pieces
from course.substitute import original, put

__all__ = ["measure"]


def _noting(function: Callable[..., Any], exercise_id: str, seen: set[str]) -> Any:
    @functools.wraps(function)
    def noted(*args: Any, **kwargs: Any) -> Any:
        seen.add(exercise_id)
        return function(*args, **kwargs)

    return noted


def _watch(exercise: Exercise, seen: set[str]) -> Callable[[], None]:
    """Wraps the exercise's piece so that running it is noted; returns the undo."""
    assert exercise.target is not None
    value = original(exercise.target)
    if not isinstance(value, type):
        return put(exercise.target, _noting(value, exercise.id, seen))
    saved = dict(vars(value))
    for key, member in saved.items():
        function = getattr(member, "__func__", member)
        if not callable(function) or isinstance(function, type):
            continue
        wrapped = _noting(function, exercise.id, seen)
        if isinstance(member, (staticmethod, classmethod)):
            wrapped = type(member)(wrapped)
        setattr(value, key, wrapped)

    def undo() -> None:
        for key, member in saved.items():
            if key not in ("__dict__", "__weakref__"):
                setattr(value, key, member)

    return undo


def measure() -> dict[str, list[list[str]]]:
    """The other pieces each case of each piece exercise reaches."""
    found = pieces()
    seen: set[str] = set()
    undo = [_watch(exercise, seen) for exercise in found]
    needs: dict[str, list[list[str]]] = {}
    try:
        for exercise in found:
            needs[exercise.id] = []
            cases = [*exercise.cases, *exercise.grading_cases, *exercise.drawn_cases]
            measured: dict[int, list[str]] = {}  # a drawn case comes many times
            for case in cases:
                if id(case) in measured:
                    needs[exercise.id].append(measured[id(case)])
                    continue
                seen.clear()
                try:
                    run_case(case, slowtorch_lib)
                except Exception:  # noqa: BLE001, S110  (only what ran matters)
                    pass
                measured[id(case)] = sorted(seen - {exercise.id})
                needs[exercise.id].append(measured[id(case)])
    finally:
        for step in reversed(undo):
            step()
    return needs


if __name__ == "__main__":
    sys.stdout.write(json.dumps(measure()) + "\n")
