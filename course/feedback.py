"""The text a check prints: a :class:`Report` turned into feedback.

The summary line ("k of N right"), the first failing cases (expected and
got, shown as the student would write them: :func:`show`), the hint that
says more at each failure (:data:`FAILURES` counts them in this kernel),
and "not attempted" for an answer that is still its stub
(:func:`untouched`). :mod:`course.checking` runs the cases and calls
:func:`message`; :mod:`course.workspace` words what a class edition saves
with it. Standard library only: checks also run in the browser (Pyodide).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

from course.cases import Exercise, Report

SHOWN_FAILURES = 3
MAX_REPR = 160
FAILURES: dict[str, int] = {}  # exercise id -> failed checks in this kernel


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


def untouched(answer: Any) -> bool:
    """Whether ``answer`` is still the notebook's stub: a function whose body
    (after its docstring) only raises ``NotImplementedError``, or a class
    whose every method is such a function."""
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
