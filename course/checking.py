"""The check machinery shared by every chapter.

An :class:`Exercise` is one of two kinds:

- a **piece** of the engine (``kind="piece"``): the student writes a function
  that the engine has too (a stride rule, a backward rule, the topological
  order...). Each case is a short program run on the engine *with the
  student's piece in place of the engine's own* (see :mod:`course.substitute`),
  and its outcome is compared with the outcome of the same program under real
  PyTorch, recorded once by ``python -m course.record``;
- a **prediction** (``kind="predict"``): the student fills in a dict from
  expressions to what they predict (a dtype, ``"view"`` or ``"copy"``, a
  ``grad_fn`` name...); each entry is compared with PyTorch's recorded answer.

:func:`check` reports "k of N right", the first failing cases (at most three:
input, expected, got), edge cases that are PyTorch conventions after the main
ones, and a hint that says more each time the check fails again (never the
answer). For a prediction it gives the hint first, then the wrong items with
the student's answers, and PyTorch's answers only when asked for
(``check("2.1", answers, reveal=True)``). What the student's code prints
stays visible; an exception raised in it is shown with a short traceback.
:func:`check` never raises.

Every case lives in ``course/checks/chNN.py`` (public: the student's check)
or ``course/checks/grading_chNN.py`` (grading only, left out of a student
release). Standard library only: checks also run in the browser (Pyodide).

Here: loading the exercises, running their cases, judging the outcomes and
:func:`check`. What an exercise and a report are is :mod:`course.cases`'s,
the text a check prints :mod:`course.feedback`'s (both named here too, for
the case programs).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import json
import math
import random
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from course.cases import Case, CaseResult, Exercise, Report
from course.feedback import FAILURES, message, one_line, untouched
from course.substitute import substituted
from course.workspace import after_check

__all__ = [
    "Case",
    "CaseResult",
    "Exercise",
    "Report",
    "check",
    "evaluate",
    "exercises",
    "expected_outcomes",
    "load",
    "normalize",
]

CHECKS = Path(__file__).resolve().parent / "checks"
PUBLIC_FILE = CHECKS / "expected.json"
GRADING_FILE = CHECKS / "expected_grading.json"


# --- outcomes -------------------------------------------------------------------


def normalize(value: Any) -> Any:
    """A JSON-able form of an outcome, the same for PyTorch and the engine.

    Tensors become ``{"tensor": values, "dtype": "torch.float32"}``; dtypes
    their name; sizes, tuples and lists lists.
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if hasattr(value, "tolist") and hasattr(value, "dtype") and hasattr(value, "shape"):
        return {"tensor": normalize(value.tolist()), "dtype": str(value.dtype)}
    if type(value).__name__ == "dtype":
        return str(value)
    if isinstance(value, dict):
        return {str(key): normalize(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalize(item) for item in value]
    if isinstance(value, BaseException):
        return {"raised": type(value).__name__}
    return repr(value)


def outcome_of(run: Callable[[Any], Any], torch: Any) -> Any:
    """``normalize(run(torch))``, or ``{"raised": name}`` if it raised."""
    try:
        return normalize(run(torch))
    except NotImplementedError:
        raise
    except RecursionError:
        return {"raised": "RecursionError"}
    except Exception as error:  # noqa: BLE001  (an exception is an outcome)
        return {"raised": type(error).__name__}


def close(expected: Any, got: Any) -> bool:
    """Equality of normalized outcomes, floats within float32 rounding."""
    if isinstance(expected, bool) or isinstance(got, bool):
        return type(expected) is type(got) and expected == got
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        return math.isclose(expected, got, rel_tol=1e-5, abs_tol=1e-6)
    if isinstance(expected, list) and isinstance(got, list):
        return len(expected) == len(got) and all(map(close, expected, got))
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(
            close(expected[k], got[k]) for k in expected
        )
    return bool(expected == got)


# --- predictions ----------------------------------------------------------------


def prediction(value: Any) -> Any:
    """A student's prediction in the recorded form: ``float32``, the dtype
    object and ``"torch.float32"`` are all ``"torch.float32"``; ``"View"`` is
    ``"view"``; a tuple is a list."""
    if type(value).__name__ == "dtype":
        return str(value)
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in ("view", "copy", "error"):
            return text.lower()
        names = (
            "float",
            "double",
            "half",
            "int",
            "uint",
            "bool",
            "long",
            "bfloat",
            "complex",
        )
        if text.startswith(names):
            return "torch." + text
        return text
    if isinstance(value, (tuple, list)):
        return [prediction(v) for v in value]
    return normalize(value)


# --- loading --------------------------------------------------------------------

_EXPECTED: dict[str, dict[str, Any]] = {}


def expected_outcomes(grading: bool = False) -> dict[str, Any]:
    """The recorded answers: ``{exercise id: {case label: outcome}}``."""
    key = "grading" if grading else "public"
    if key not in _EXPECTED:
        path = GRADING_FILE if grading else PUBLIC_FILE
        _EXPECTED[key] = json.loads(path.read_text("utf-8")) if path.exists() else {}
    return _EXPECTED[key]


def chapter_modules() -> list[int]:
    return sorted(int(p.stem[2:]) for p in CHECKS.glob("ch[0-9][0-9].py"))


def load(exercise_id: str) -> Exercise:
    """The :class:`Exercise` with this id, with its grading cases if present.

    Raises:
        KeyError: If there is no such exercise.
    """
    chapter = int(exercise_id.split(".")[0])
    module = importlib.import_module(f"course.checks.ch{chapter:02d}")
    exercise: Exercise = module.EXERCISES[exercise_id]
    try:
        hidden = importlib.import_module(f"course.checks.grading_ch{chapter:02d}")
    except ImportError:
        return exercise
    exercise.grading_cases = tuple(hidden.CASES.get(exercise_id, ()))
    drawn = tuple(getattr(hidden, "DRAWN", {}).get(exercise_id, ()))
    exercise.drawn_cases = drawn * DRAWS
    return exercise


def exercises() -> list[Exercise]:
    """Every exercise of every chapter, in order."""
    found = []
    for chapter in chapter_modules():
        module = importlib.import_module(f"course.checks.ch{chapter:02d}")
        found += [load(e) for e in module.EXERCISES]
    return found


# --- running the cases ----------------------------------------------------------


def short_traceback(error: BaseException) -> str:
    """The frames of the student's own code, and the error: a few lines."""
    frames = traceback.extract_tb(error.__traceback__)
    own = [f for f in frames if not _is_library(f.filename)]
    lines = traceback.format_list(own[-4:]) if own else []
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines).rstrip()


LIBRARY = (
    str(Path(__file__).resolve().parent),
    str(Path(__file__).resolve().parent.parent / "slowtorch_lib"),
)


def _is_library(filename: str) -> bool:
    """Whether a frame is the engine's, the checker's or Python's own."""
    if filename.startswith(LIBRARY) or "slowtorch_lib" in filename.split("/")[-2:-1]:
        return True
    return filename.endswith(("contextlib.py",)) or "importlib" in filename


DRAWS = 24  # draws of each drawn case in one grading run (each its own inputs)


def chapter_seed(seed: str, exercise_id: str) -> str:
    """The seed of the drawn cases of an exercise's chapter, from the class's
    ``seed``: the runner (and a student's feedback) sees only this one, from
    which neither the class's seed nor another chapter's draw follows."""
    chapter = exercise_id.split(".")[0]
    return hashlib.sha256(f"{seed}/chapter {chapter}".encode()).hexdigest()[:16]


def case_rng(seed: str, exercise_id: str, index: int) -> random.Random:
    """The random source of one drawn case in one grading run (the same in
    the sandbox and in the judge, different for each case and each run)."""
    return random.Random(f"{seed}/{exercise_id}/{index}")


def run_case(case: Case, torch: Any, rng: random.Random | None = None) -> Any:
    """What the case's program returns (a drawn case with ``rng``)."""
    assert case.run is not None
    if case.drawn:
        return case.run(torch, rng if rng is not None else random.Random(0))
    return case.run(torch)


def run_piece_case(
    exercise: Exercise, impl: Any, case: Case, rng: random.Random | None = None
) -> tuple[Any, str | None]:
    """The outcome of one case with ``impl`` inside the engine, and the
    short traceback if the student's code raised."""
    import slowtorch_lib  # at call time: a case loads the engine, the checks don't

    assert exercise.target is not None and case.run is not None
    stubs: list[BaseException] = []
    if callable(impl) and not isinstance(impl, type):
        student = impl

        def impl(*args: Any, **kwargs: Any) -> Any:
            try:
                return student(*args, **kwargs)
            except NotImplementedError as error:
                stubs.append(error)  # the engine may turn it into another error
                raise

    try:
        with substituted(exercise.target, impl):
            outcome = normalize(run_case(case, slowtorch_lib, rng))
    except NotImplementedError:
        raise
    except Exception as error:  # noqa: BLE001  (any mistake is a wrong answer)
        if stubs:
            raise stubs[0] from None
        if isinstance(error, RecursionError):
            return {"raised": "RecursionError"}, short_traceback(error).splitlines()[-1]
        return {"raised": type(error).__name__}, short_traceback(error)
    if stubs:
        raise stubs[0]
    return outcome, None


def evaluate(
    exercise: Exercise,
    impl: Any,
    cases: Sequence[Case],
    expected: dict[str, Any],
    before_case: Callable[[], None] | None = None,
) -> Report:
    """Judges ``impl`` on ``cases`` against the ``expected`` outcomes.

    ``before_case`` runs before each case (the grader puts the engine back as
    it was, in case the answer changed it).
    """
    results = []
    not_implemented = 0
    for case in cases:
        if before_case is not None:
            before_case()
        want = expected.get(case.label, {"missing": "not recorded"})
        error = None
        if exercise.kind == "predict":
            if not isinstance(impl, dict):
                got: Any = {"raised": "not a dict"}
            elif case.label not in impl:
                got = "(no answer)"
            elif impl[case.label] is ...:
                got = "(no answer)"
                not_implemented += 1
            else:
                got = prediction(impl[case.label])
        else:
            try:
                got, error = run_piece_case(exercise, impl, case)
            except NotImplementedError as raised:
                not_implemented += 1
                got, error = {"raised": "NotImplementedError"}, short_traceback(raised)
        results.append(
            CaseResult(case.label, close(want, got), want, got, case.convention, error)
        )
    attempted = not_implemented == 0
    if exercise.kind == "piece" and untouched(impl):
        attempted = False  # its own stub, even where another piece's raised first
    return Report(exercise, results, attempted)


def engine_parts_used(exercise: Exercise, answer: Any) -> list[str]:
    """The names of ``not_to_use`` that the answer is, subclasses or holds,
    or that its code names (``x.scatter(...)``), as the grader reads them."""
    from course.reference_use import holds_reference, imports_in  # the grader's tests

    module = sys.modules.get(str(exercise.target).rsplit(".", 1)[0])
    used = [
        name
        for name in exercise.not_to_use
        if module is not None
        and hasattr(module, name)
        and holds_reference(answer, [getattr(module, name)])
    ]
    try:
        source = inspect.getsource(answer)
    except (OSError, TypeError):
        return used
    named = imports_in(source, exercise)
    return used + [
        name
        for name in exercise.not_to_use
        if f"the engine's own {name}" in named and name not in used
    ]


def refusal(exercise: Exercise, used: list[str]) -> str:
    names = ", ".join(f"`{name}`" for name in used)
    return (
        f"exercise {exercise.id} ({exercise.name}): your answer uses the engine's "
        f"{names}, which already does this exercise's work; write it without "
        "them (the grader gives 0 to an answer that uses them). Nothing was saved."
    )


def check(exercise_id: str, answer: Any, reveal: bool = False) -> None:
    """Checks a student's answer and prints the verdict. Never raises.

    Args:
        exercise_id: ``"1.4"``.
        answer: The student's function, class or dict of predictions.
        reveal: For predictions: also show PyTorch's answer to each wrong
            item (by default only which items are wrong, and a hint).
    """
    try:
        exercise = load(exercise_id)
        used = engine_parts_used(exercise, answer)
        if used:
            sys.stdout.write(refusal(exercise, used) + "\n")
            return
        expected = expected_outcomes().get(exercise_id, {})
        report = evaluate(exercise, answer, exercise.cases, expected)
        if report.attempted and any(
            not r.passed and r.convention is None for r in report.results
        ):
            FAILURES[exercise_id] = FAILURES.get(exercise_id, 0) + 1
        text = message(report, FAILURES.get(exercise_id, 0), reveal)
        text = after_check(exercise, answer, report, text)  # a class edition's
    except Exception as error:  # noqa: BLE001  (the notebook must keep running)
        text = (
            f"exercise {exercise_id}: could not be checked ({one_line(repr(error))})."
        )
    sys.stdout.write(text + "\n")  # one write: the notebook gets it in one piece
    sys.stdout.flush()
