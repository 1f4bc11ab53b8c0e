"""The check machinery shared by every chapter.

An :class:`Exercise` holds a reference implementation and hidden cases.
:func:`check` runs a student's code on every case, compares it with the
reference, and prints exactly one line: that it passed (and on how many
cases), that it was not attempted yet, or the first failing case with what was
expected, what came back and a hint. It never raises, so a notebook keeps
running after a wrong answer.

The cases of chapter ``N`` live in ``course/checks/chNN.py``, in a dict
``EXERCISES`` from exercise id (``"1.3"``) to :class:`Exercise`.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import io
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Case", "Exercise", "Raised", "case", "check", "check_line", "load"]

MAX_REPR = 110


@dataclass(frozen=True)
class Case:
    """One hidden case: the arguments, and an optional hint for this case only.

    Attributes:
        args: Passed to the exercise's ``run`` after the implementation.
        hint: Shown instead of the exercise's hint when this case fails.
    """

    args: tuple[Any, ...]
    hint: str | None = None


def case(*args: Any, hint: str | None = None) -> Case:
    """Shorthand: ``case((2, 3), hint="...")``."""
    return Case(args, hint)


@dataclass(frozen=True)
class Raised:
    """The outcome of a call that raised: only the exception type is compared."""

    type_name: str
    message: str = ""

    def __repr__(self) -> str:
        return f"an exception {self.type_name}" + (f": {self.message}" if self.message else "")


def call(impl: Any, *args: Any) -> Any:
    """The default ``run``: calls the implementation with the case's arguments."""
    return impl(*args)


def close(expected: Any, got: Any) -> bool:
    """Equality for outcomes: floats within 1e-6 (relative) or 1e-9, lists and
    tuples elementwise (a list may stand for a tuple), exceptions by type."""
    if isinstance(expected, Raised) or isinstance(got, Raised):
        return (
            isinstance(expected, Raised)
            and isinstance(got, Raised)
            and expected.type_name == got.type_name
        )
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        if math.isnan(expected):
            return math.isnan(got)
        return math.isclose(expected, got, rel_tol=1e-6, abs_tol=1e-9)
    if isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple)):
        return len(expected) == len(got) and all(map(close, expected, got))
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(close(expected[k], got[k]) for k in expected)
    return bool(expected == got)


@dataclass
class Exercise:
    """An exercise's hidden half: reference, cases and how to judge them.

    Attributes:
        title: A few words, shown in the grading table.
        name: The name the student's answer has in the notebook.
        reference: The model answer, run on each case to get the expected
            outcome.
        cases: The hidden cases, easiest first.
        hint: Shown when a case fails (unless the case has its own).
        run: ``run(impl, *case.args)`` returns the outcome to compare;
            defaults to calling ``impl(*case.args)``.
        same: ``same(case_args, expected, got)`` tells whether an answer is
            right; defaults to :func:`close` on the outcomes.
        describe: ``describe(name, case_args)`` shows a case in one line;
            defaults to ``name(arg, ...)``.
        expected_label: How to introduce the expected outcome in a message.
    """

    title: str
    name: str
    reference: Any
    cases: Sequence[Case]
    hint: str
    run: Callable[..., Any] = call
    same: Callable[[tuple[Any, ...], Any, Any], bool] | None = None
    describe: Callable[[str, tuple[Any, ...]], str] | None = None
    expected_label: str = "expected"


class NotAttempted(Exception):
    """Raised inside :func:`check_line` when the stub is still there."""


def outcome(exercise: Exercise, impl: Any, args: tuple[Any, ...]) -> Any:
    """What ``run`` gives, or :class:`Raised` if it raised."""
    try:
        return exercise.run(impl, *copy.deepcopy(args))
    except NotImplementedError:
        raise NotAttempted from None
    except Exception as error:  # noqa: BLE001  (any mistake is a wrong answer)
        return Raised(type(error).__name__, one_line(str(error)))


def one_line(text: str, limit: int = MAX_REPR) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_line(exercise_id: str, impl: Any) -> str:
    """The one line that :func:`check` prints."""
    exercise = load(exercise_id)
    label = f"exercise {exercise_id}"
    total = len(exercise.cases)
    name = exercise.name
    for number, this in enumerate(exercise.cases, start=1):
        expected = outcome(exercise, exercise.reference, this.args)
        try:
            got = outcome(exercise, impl, this.args)
        except NotAttempted:
            return f"{label}: not attempted yet (the stub still raises NotImplementedError)."
        right = (
            exercise.same(this.args, expected, got)
            if exercise.same is not None
            else close(expected, got)
        )
        if not right:
            shown = (
                exercise.describe(name, this.args)
                if exercise.describe is not None
                else f"{name}({', '.join(repr(a) for a in this.args)})"
            )
            return (
                f"{label} failed on case {number} of {total}: {one_line(shown)}; "
                f"{exercise.expected_label} {one_line(repr(expected))}, "
                f"got {one_line(repr(got))}. Hint: {this.hint or exercise.hint}"
            )
    return f"{label} passed: all {total} cases right."


def check(exercise_id: str, impl: Any) -> None:
    """Checks a student's answer and prints one line. Never raises.

    Whatever the answer itself prints (debugging output, warnings) is dropped,
    so the line is all the cell shows.
    """
    quiet = io.StringIO()
    try:
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            line = check_line(exercise_id, impl)
    except Exception as error:  # noqa: BLE001  (the notebook must keep running)
        line = f"exercise {exercise_id}: could not be checked ({one_line(repr(error))})."
    sys.stdout.write(line + "\n")  # one write: the notebook gets the line in one piece
    sys.stdout.flush()


def load(exercise_id: str) -> Exercise:
    """The :class:`Exercise` with this id, from ``course/checks/chNN.py``.

    Raises:
        KeyError: If there is no such exercise.
    """
    chapter = int(exercise_id.split(".")[0])
    module = importlib.import_module(f"course.checks.ch{chapter:02d}")
    exercises: dict[str, Exercise] = module.EXERCISES
    return exercises[exercise_id]
