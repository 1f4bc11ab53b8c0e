"""What an exercise is, and how its cases went: the check's data, no code.

:class:`Case` and :class:`Exercise` are what ``course/checks/chNN.py``
declare; :class:`CaseResult` and :class:`Report` are what a check makes of
them; :func:`all_cases` numbers an exercise's cases as the runner and the
judge do. Running the cases is :mod:`course.checking`'s, the text a check
prints :mod:`course.feedback`'s. Standard library only: checks also run in
the browser (Pyodide) and in the grader's sandbox.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    """One case of an exercise.

    Attributes:
        label: What the case runs, shown to the student (``"x.t().stride()"``);
            also the key of a prediction and of the recorded answer.
        run: ``run(torch)`` returns the outcome, with ``torch`` either real
            PyTorch (when recording) or the engine. None for a prediction.
        convention: For an edge case that follows a PyTorch convention rather
            than the main idea: a one-line explanation of the convention.
        drawn: A case whose inputs are drawn for each grading run:
            ``run(torch, rng)`` takes a :class:`random.Random` too, seeded by the
            grader's judge (:func:`case_rng`), which computes the expected
            outcome itself on the complete engine; nothing is recorded.
    """

    label: str
    run: Callable[..., Any] | None = None
    convention: str | None = None
    drawn: bool = False


@dataclass
class Exercise:
    """An exercise: what the student writes, how it is checked, the hints.

    Attributes:
        id: ``"1.4"``.
        title: A few words, for tables.
        name: The name the answer has in the notebook.
        kind: ``"piece"`` or ``"predict"``.
        cases: The public cases, main ones first.
        hints: From a nudge to the idea; one more is shown at each failure.
        target: For a piece, the engine's object it replaces
            (``"slowtorch_lib._strides.contiguous_strides"``).
        what: What a case is, in the summary line ("tensor operations").
        forbidden: Other engine names that hold the answer (the grader gives
            0 to an answer that imports or holds them).
        not_to_use: Engine names that stay in the class engine (other parts
            of it need them) but would do the exercise's work: the check and
            the grader refuse an answer that imports, subclasses or holds
            them, as they refuse the engine's own version.
        grading_cases: The grading-only cases (from ``grading_chNN.py``).
        drawn_cases: The grading-only cases whose inputs each grading run
            draws (``DRAWN`` in ``grading_chNN.py``): most of the marks.
        stretch: For students who finish the core: no core exercise and no
            later chapter needs its piece (see :mod:`course.plan`).
    """

    id: str
    title: str
    name: str
    kind: str
    cases: Sequence[Case]
    hints: Sequence[str]
    target: str | None = None
    what: str = "cases"
    forbidden: Sequence[str] = ()
    not_to_use: Sequence[str] = ()
    grading_cases: Sequence[Case] = field(default_factory=tuple)
    drawn_cases: Sequence[Case] = field(default_factory=tuple)
    stretch: bool = False


@dataclass
class CaseResult:
    """How a case went."""

    label: str
    passed: bool
    expected: Any
    got: Any
    convention: str | None = None
    error: str | None = None  # a short traceback of the student's code


@dataclass
class Report:
    """Every case of an exercise, judged."""

    exercise: Exercise
    results: list[CaseResult]
    attempted: bool = True
    printed_error: str | None = None

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def total(self) -> int:
        return len(self.results)


def all_cases(exercise: Exercise) -> list[Any]:
    """Public, fixed grading-only, then drawn cases: the runner's numbering."""
    return [*exercise.cases, *exercise.grading_cases, *exercise.drawn_cases]
