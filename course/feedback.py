"""The text a check prints: a :class:`Report` turned into feedback.

The summary line ("k of N right"), the first failing cases (expected as the
student would write it: :func:`show`; what they got, aligned with it field
by field: :func:`aligned`), the hint chosen by what failed (:func:`tier`;
:data:`FAILURES` counts the failed checks of this kernel for the callers),
and "not attempted" for an answer that is still its stub
(:func:`untouched`). :mod:`course.checking` runs the cases and calls
:func:`message`; :mod:`course.workspace` words what a class edition saves
with it. Standard library only: checks also run in the browser (Pyodide).
"""

from __future__ import annotations

import ast
import inspect
import math
import textwrap
from typing import Any

from course.cases import Exercise, Report
from course.messages import plural, text
from course.parsing import parse

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


#: Differences shown per case, and digits of a number shown.
SHOWN_DIFFERENCES = 3
SHOWN_DIGITS = 12
#: Differences counted at most (an outcome may be large).
COUNTED_DIFFERENCES = 1000


def aligned(expected: Any, got: Any, where: str = "") -> list[str]:
    """Where ``got`` differs from ``expected``, field by field: one line per
    difference (``values[1][0]: expected 4, got 5``), at most
    :data:`SHOWN_DIFFERENCES`, then how many more. Only what the expected
    outcome has a place for is shown: a longer list shows its length, a key
    the expected has not is counted, a value of another kind is named by its
    kind, long numbers and strings not of the expected are not spelled out;
    so an outcome can carry nothing else back to the student (data read
    where a case should not reach)."""
    found: list[str] = []
    _differences(expected, got, where, found)
    if len(found) > SHOWN_DIFFERENCES:
        more = len(found) - SHOWN_DIFFERENCES
        found = found[:SHOWN_DIFFERENCES] + [plural("check.more_differences", more)]
    return found


def _differences(expected: Any, got: Any, where: str, found: list[str]) -> None:
    if len(found) >= COUNTED_DIFFERENCES:
        return
    label = f"{where}: " if where else ""
    if _raised(expected) or _raised(got):
        if not _same(expected, got):
            shown = _value(got, expected)
            found.append(f"{label}expected {_value(expected)}, got {shown}")
        return
    if isinstance(expected, dict) and isinstance(got, dict):
        for key, value in expected.items():
            if key not in got:
                found.append(f"{label}{key}: expected {_value(value)}, got nothing")
            else:
                _differences(value, got[key], f"{where}.{key}".lstrip("."), found)
        extra = len([key for key in got if key not in expected])
        if extra:
            found.append(f"{label}{extra} field{'s' * (extra > 1)} not expected")
        return
    if isinstance(expected, list) and isinstance(got, list):
        if len(expected) != len(got):
            found.append(
                f"{label}expected {len(expected)} items, got {len(got)}"
                + (f": expected {_value(expected)}" if expected else "")
            )
            return
        for index, (want, have) in enumerate(zip(expected, got)):
            _differences(want, have, f"{where}[{index}]", found)
        return
    if _same(expected, got):
        return
    found.append(f"{label}expected {_value(expected)}, got {_value(got, expected)}")


def _raised(outcome: Any) -> bool:
    """Whether an outcome is an exception raised (``{"raised": name}``)."""
    return (
        isinstance(outcome, dict)
        and set(outcome) == {"raised"}
        and isinstance(outcome["raised"], str)
    )


def _same(expected: Any, got: Any) -> bool:
    if type(expected) is not type(got):
        return False
    if isinstance(expected, float):
        return expected == got or (expected != expected and got != got)
    return bool(expected == got)


def _value(value: Any, expected: Any = None) -> str:
    """One value, shown only as far as the expected one could be: a number
    of at most :data:`SHOWN_DIGITS` digits, a string the expected outcome
    holds or a short name, else only its kind."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        text = repr(value)
        return text if len(text) <= SHOWN_DIGITS else f"a {len(text)}-digit number"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str):
        known = expected is None or value == expected
        if known or (len(value) <= 24 and value.replace(".", "").isidentifier()):
            return repr(value)
        return "a string"
    if _raised(value):
        name = value["raised"]
        return (
            f"raises {name}"
            if name.isidentifier() and len(name) <= 40
            else ("raises an exception")
        )
    if isinstance(value, (list, dict)):
        kind = "list" if isinstance(value, list) else "dict"
        if expected is None:
            return one_line(show(value), 60)
        return f"a {kind} of {len(value)}"
    return f"a {type(value).__name__}"


def one_line(text: str, limit: int = MAX_REPR) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def untouched(answer: Any) -> bool:
    """Whether ``answer`` is still the notebook's stub: a function whose body
    (after its docstring) only raises ``NotImplementedError``, or a class
    whose every method is such a function."""
    try:
        tree = parse(textwrap.dedent(inspect.getsource(answer)))
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
    head = text("check.head", id=exercise.id, name=exercise.name)
    passed = sum(r.passed for r in main)
    if exercise.kind == "piece":
        line = text(
            "check.piece",
            head=head,
            name=exercise.name,
            passed=passed,
            total=len(main),
            what=exercise.what,
        )
    else:
        line = text("check.predictions", head=head, passed=passed, total=len(main))
    if conventions:
        line += text(
            "check.conventions",
            passed=sum(r.passed for r in conventions),
            total=len(conventions),
        )
    return line + "."


def failure_lines(report: Report) -> list[str]:
    """The first failing cases (main ones first), with expected and got."""
    failed = [r for r in report.results if not r.passed and r.convention is None]
    failed += [r for r in report.results if not r.passed and r.convention is not None]
    lines: list[str] = []
    shown: set[str] = set()  # each error's traceback is shown once
    for result in failed[:SHOWN_FAILURES]:
        label = text("check.convention" if result.convention else "check.case")
        lines.append(f"  {label}: {result.label}")
        expected, got = text("check.expected"), text("check.got")
        width = max(len(expected), len(got)) + 2
        lines.append(f"    {expected + ':':<{width}}{show(result.expected)}")
        differences = aligned(result.expected, result.got)
        if _flat(result.expected) and len(differences) == 1:
            lines.append(f"    {got + ':':<{width}}{show(result.got)}")
        else:
            first = differences[0] if differences else "-"
            lines.append(f"    {got + ':':<{width}}{first}")
            lines += [" " * (4 + width) + line for line in differences[1:]]
        if result.convention:
            lines.append(
                "    " + text("check.the_convention", convention=result.convention)
            )
        if result.error:
            last = result.error.splitlines()[-1]
            if last in shown:
                lines[-1] += "  " + text("check.same_error")
            else:
                shown.add(last)
                lines += ["    " + line for line in result.error.splitlines()]
    more = len(failed) - SHOWN_FAILURES
    if more > 0:
        lines.append("  " + plural("check.more_failing", more))
    return lines


#: The errors whose meaning a hint explains (``error.NAME`` in
#: :mod:`course.messages`); another gets ``error.other``.
ERROR_HINTS = (
    "NameError",
    "AttributeError",
    "TypeError",
    "IndexError",
    "KeyError",
    "ZeroDivisionError",
    "RecursionError",
    "UnboundLocalError",
)


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
        if name in ERROR_HINTS:
            what = text(f"error.{name}")
        else:
            what = text("error.other", name=name)
        return text("check.hint", hint=what)
    return ""


def _flat(outcome: Any) -> bool:
    """Whether an outcome is one value (not a list or a dict)."""
    return not isinstance(outcome, (list, dict))


def tier(exercise: Exercise, passed: int, total: int) -> int:
    """Which of the exercise's hints fits what failed: the first (the idea)
    when no main case passes, later ones (the details) the more of them
    pass; 0 when all pass. The same answer gets the same hint however many
    times it is checked."""
    hints = len(exercise.hints)
    if not hints or not total or passed >= total:
        return 0
    if passed <= 0:
        return 1
    return min(hints, 1 + math.ceil(passed / total * (hints - 1)))


def hint_for(exercise: Exercise, chosen: int, main_failed: bool) -> str:
    """The hint of tier ``chosen`` (:func:`tier`), or the convention's when
    only convention cases failed."""
    if not main_failed:
        return text("check.hint_convention")
    chosen = min(chosen, len(exercise.hints))
    if chosen <= 0:
        return ""
    return text(
        "check.hint_of",
        number=chosen,
        count=len(exercise.hints),
        hint=exercise.hints[chosen - 1],
    )


def chosen_hint(report: Report) -> str:
    """The hint for what failed in ``report`` (main cases: :func:`tier`)."""
    main = [r for r in report.results if r.convention is None]
    main_failed = any(not r.passed for r in main)
    chosen = tier(report.exercise, sum(r.passed for r in main), len(main))
    return hint_for(report.exercise, chosen, main_failed)


def prediction_lines(report: Report, hint: str, reveal: bool) -> list[str]:
    """A wrong prediction's feedback: the hint first, then which items are
    wrong, with the student's answer; PyTorch's answer only with ``reveal``
    (predictions are for thinking, and the answer would end the thinking)."""
    exercise = report.exercise
    wrong = [r for r in report.results if not r.passed]
    lines = [hint] if hint else []
    lines.append("  " + plural("check.wrong", len(wrong)))
    for result in wrong:
        lines.append(f"  - {result.label}")
        lines.append(f"      {text('check.yours')} {show(result.got)}")
        if reveal:
            lines.append(f"      {text('check.pytorch')} {show(result.expected)}")
    if not reveal:
        lines.append(text("check.think_again", id=exercise.id, name=exercise.name))
    return lines


def message(report: Report, failures: int = 0, reveal: bool = False) -> str:
    """The whole text a check prints. A wrong prediction's expected value
    is shown only with ``reveal``. The hint is chosen by what failed
    (:func:`chosen_hint`), never by ``failures`` (how many checks failed in
    this kernel, which callers count): checking again shows the same."""
    exercise = report.exercise
    if not report.attempted:
        return text("check.not_attempted", id=exercise.id, name=exercise.name)
    lines = [summary(report)]
    if report.passed == report.total:
        lines[0] = lines[0].rstrip(".") + ". " + text("check.all_right")
        return "\n".join(lines)
    # An error in the student's code is what to mend first: its hint comes
    # last, under the one for what failed.
    hint = "\n".join(h for h in (chosen_hint(report), error_hint(report)) if h)
    if exercise.kind == "predict":
        return "\n".join(lines + prediction_lines(report, hint, reveal))
    lines += failure_lines(report)
    if hint:
        lines.append(hint)
    return "\n".join(lines)
