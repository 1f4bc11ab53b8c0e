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
"""

from __future__ import annotations

import importlib
import json
import math
import random
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
SHOWN_FAILURES = 3
MAX_REPR = 160
FAILURES: dict[str, int] = {}  # exercise id -> failed checks in this kernel


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


def show(outcome: Any) -> str:
    """An outcome as the student would write it, on one line."""
    if isinstance(outcome, dict) and set(outcome) == {"tensor", "dtype"}:
        text = f"tensor({outcome['tensor']!r}"
        if outcome["dtype"] not in ("torch.float32", "torch.int64", "torch.bool"):
            text += f", dtype={outcome['dtype']}"
        return one_line(text + ")")
    if isinstance(outcome, dict) and set(outcome) == {"raised"}:
        return f"raises {outcome['raised']}"
    if isinstance(outcome, dict):
        return one_line(
            "{" + ", ".join(f"{k}: {show(v)}" for k, v in outcome.items()) + "}"
        )
    if isinstance(outcome, list) and outcome and isinstance(outcome[0], dict):
        return one_line("[" + ", ".join(show(v) for v in outcome) + "]")
    return one_line(repr(outcome))


def one_line(text: str, limit: int = MAX_REPR) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
    exercise.drawn_cases = tuple(getattr(hidden, "DRAWN", {}).get(exercise_id, ()))
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
    import slowtorch_lib

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


def untouched(answer: Any) -> bool:
    """Whether ``answer`` is still the notebook's stub: a function whose body
    (after its docstring) only raises ``NotImplementedError``, or a class
    whose every method is such a function."""
    import ast
    import inspect
    import textwrap

    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(answer)))
    except (OSError, TypeError, SyntaxError):
        return False  # no source to read: judged by what it does
    node = tree.body[0] if tree.body else None
    if isinstance(node, ast.ClassDef):
        methods = [n for n in node.body if isinstance(n, ast.FunctionDef)]
        return bool(methods) and all(_only_raises(m) for m in methods)
    return isinstance(node, ast.FunctionDef) and _only_raises(node)


def _only_raises(function: Any) -> bool:
    import ast

    body = list(function.body)
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
    ):
        body = body[1:]  # the docstring
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    raised = body[0].exc
    raised = raised.func if isinstance(raised, ast.Call) else raised
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


def summary(report: Report) -> str:
    """The first line: k of N right, main cases and conventions apart."""
    exercise = report.exercise
    main = [r for r in report.results if r.convention is None]
    conventions = [r for r in report.results if r.convention is not None]
    head = f"exercise {exercise.id} ({exercise.name})"
    if exercise.kind == "piece":
        text = (
            f"{head}: with your {exercise.name}, {sum(r.passed for r in main)} of "
            f"{len(main)} {exercise.what} give PyTorch's answers"
        )
    else:
        text = f"{head}: {sum(r.passed for r in main)} of {len(main)} predictions right"
    if conventions:
        text += (
            f"; PyTorch-convention edge cases: {sum(r.passed for r in conventions)} "
            f"of {len(conventions)}"
        )
    return text + "."


def failure_lines(report: Report) -> list[str]:
    """The first failing cases (main ones first), with expected and got."""
    failed = [r for r in report.results if not r.passed and r.convention is None]
    failed += [r for r in report.results if not r.passed and r.convention is not None]
    lines: list[str] = []
    shown: set[str] = set()  # each error's traceback is shown once
    for result in failed[:SHOWN_FAILURES]:
        label = "PyTorch convention" if result.convention else "case"
        lines.append(f"  {label}: {result.label}")
        lines.append(f"    expected: {show(result.expected)}")
        lines.append(f"    got:      {show(result.got)}")
        if result.convention:
            lines.append(f"    (convention: {result.convention})")
        if result.error:
            last = result.error.splitlines()[-1]
            if last in shown:
                lines[-1] += "  (the same error as above)"
            else:
                shown.add(last)
                lines += ["    " + line for line in result.error.splitlines()]
    more = len(failed) - SHOWN_FAILURES
    if more > 0:
        lines.append(f"  ... and {more} more failing case{'s' * (more > 1)}.")
    return lines


#: What an error from the student's own code usually means, by its type.
ERROR_HINTS = {
    "NameError": "a name your code uses is not defined (a typo, or a name from a "
    "cell that was not run): the last line of the traceback says which.",
    "AttributeError": "an object has no attribute of that name: the last line of "
    "the traceback says which object type and which name.",
    "TypeError": "a call got a value of the wrong type, or the wrong number of "
    "arguments: the line above the error is the call.",
    "IndexError": "an index is out of range: check where your loop starts and stops.",
    "KeyError": "a key is not in the dict: the last line of the traceback says which.",
    "ZeroDivisionError": "a division by zero: which case can make the divisor 0?",
    "RecursionError": "your function calls itself without end: check the case that "
    "stops the recursion (or use a loop).",
    "UnboundLocalError": "a variable is used before it is given a value in this "
    "function.",
}


def error_hint(report: Report) -> str:
    """A hint about the error the student's code raised, or "" if none did."""
    for result in report.results:
        # Only an error raised in the student's own lines (the traceback shows
        # them); one the engine raised is a wrong answer's consequence.
        if result.passed or not result.error or 'File "' not in result.error:
            continue
        name = result.error.splitlines()[-1].split(":")[0].strip()
        name = name.rsplit(".", 1)[-1]
        if name == "NotImplementedError":
            continue
        what = ERROR_HINTS.get(
            name,
            f"your code raised {name}: the last line of the traceback says what, "
            "the line above it where.",
        )
        return f"Hint: {what}"
    return ""


def hint_for(exercise: Exercise, failures: int, main_failed: bool) -> str:
    """The hint for the ``failures``-th failed check: one tier more each time."""
    if not main_failed:
        return (
            "Hint: your main idea works; read the convention above and handle "
            "that case."
        )
    tier = min(failures, len(exercise.hints))
    if tier == 0:
        return ""
    return f"Hint {tier} of {len(exercise.hints)}: {exercise.hints[tier - 1]}"


def prediction_lines(report: Report, hint: str, reveal: bool) -> list[str]:
    """A wrong prediction's feedback: the hint first, then which items are
    wrong, with the student's answer; PyTorch's answer only with ``reveal``
    (predictions are for thinking, and the answer would end the thinking)."""
    exercise = report.exercise
    wrong = [r for r in report.results if not r.passed]
    lines = [hint] if hint else []
    lines.append(f"  wrong: {len(wrong)} item{'s' * (len(wrong) > 1)}")
    for result in wrong:
        lines.append(f"  - {result.label}")
        lines.append(f"      yours:   {show(result.got)}")
        if reveal:
            lines.append(f"      PyTorch: {show(result.expected)}")
    if not reveal:
        lines.append(
            "Think again about those items and check again; to see PyTorch's "
            f'answers, check("{exercise.id}", {exercise.name}, reveal=True).'
        )
    return lines


def message(report: Report, failures: int, reveal: bool = False) -> str:
    """The whole text a check prints. A wrong prediction's expected value
    is shown only with ``reveal``."""
    exercise = report.exercise
    if not report.attempted:
        return (
            f"exercise {exercise.id} ({exercise.name}): not attempted yet (your "
            "answer still has a stub: replace each ... or raise NotImplementedError, "
            "run the cell, then this one)."
        )
    lines = [summary(report)]
    if report.passed == report.total:
        lines[0] = lines[0].rstrip(".") + ". All right!"
        return "\n".join(lines)
    main_failed = any(not r.passed and r.convention is None for r in report.results)
    # An error in the student's code is what to mend first: its hint comes
    # last. From the second failure on, the hint of that tier stands above it.
    hint = error_hint(report)
    tiered = hint_for(exercise, failures, main_failed)
    if hint and tiered and failures >= 2:
        hint = tiered + "\n" + hint
    hint = hint or tiered
    if exercise.kind == "predict":
        return "\n".join(lines + prediction_lines(report, hint, reveal))
    lines += failure_lines(report)
    if hint:
        lines.append(hint)
    return "\n".join(lines)


def engine_parts_used(exercise: Exercise, answer: Any) -> list[str]:
    """The names of ``not_to_use`` that the answer is, subclasses or holds."""
    from course.runner import holds_reference  # the grader's test, shared

    module = sys.modules.get(str(exercise.target).rsplit(".", 1)[0])
    return [
        name
        for name in exercise.not_to_use
        if module is not None
        and hasattr(module, name)
        and holds_reference(answer, [getattr(module, name)])
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
