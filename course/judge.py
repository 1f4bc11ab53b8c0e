"""The judge: what a run's records are worth, exercise by exercise.

:func:`judge_piece` compares each case's outcome, as the runner reported it
(:mod:`course.runner_protocol` keeps only well-formed records of this run),
with the answer key (:class:`course.answer_key.Answers`): the recorded
answer itself, or the answer computed outside the sandbox for this run's
drawn inputs. Outcomes are plain JSON data, so no object of the student's
is ever called. Each exercise gets the fraction of its cases passed, in
[0, 1], from its drawn cases (``FIXED_SHARE``: passing the fixed ones
earns nothing); a fixed case the answer itself fails (not a knock-on of
another of its pieces) takes off ``FIXED_PENALTY`` times its share, so that
a wrong answer a fixed case catches never has full marks; a drawn case
every draw of which gave one outcome, where the expected ones differ,
passes none of them; a case the runner
did not report (a crash, a timeout, a malformed line) is not passed.
:func:`judge_prediction` grades a prediction from its cell's text, read by
:mod:`course.predictions`, never run. Here too: which of the student's
pieces the runner may use for the others (:func:`piece_of`), and whether an
answer is still its stub.

The runner's tree is :mod:`course.trees`'s; the flags for the teacher and
the copy check are :mod:`course.integrity`'s.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from course.answer_key import Answers
from course.cases import Exercise, all_cases
from course.checking import close, prediction
from course.feedback import aligned, hint_for, show, tier
from course.parsing import parse
from course.predictions import read_predictions
from course.reference_use import imports_in
from course.runner_protocol import IDENTIFIER, Run
from course.saved_pieces import piece_text

SHOWN_FAILURES = 3


# --- grades ------------------------------------------------------------------------


@dataclass
class Graded:
    """The grade of one exercise in one notebook."""

    id: str
    title: str
    points: float = 0.0
    passed: int = 0
    total: int = 0
    status: str = "missing"
    message: str = ""
    failures: list[dict[str, Any]] = field(default_factory=list)
    hidden_failed: int = 0
    hints: list[str] = field(default_factory=list)
    knock_on: dict[str, int] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    waiting: list[int] = field(default_factory=list)  # earlier chapters missing


# --- the student's other pieces ----------------------------------------------------


def piece_of(exercise: Exercise, source: str) -> str | None:
    """What the runner puts in place of this exercise's stub while it grades
    the other exercises: the answer's definitions, as the student's notebook
    saves them (no prints, no experiments), or None for a stub or an answer
    that uses the reference (its stub stays). What the definitions do when
    they run is watched in the runner as the answer cell's own code is."""
    if exercise.kind != "piece" or not exercise.target:
        return None
    if imports_in(source, exercise):
        return None
    try:
        text = piece_text(source, exercise.name)
        return None if is_stub(text, exercise.name) else text
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def is_stub(text: str, name: str) -> bool:
    """Whether the definition of ``name`` that counts (the last one, as
    Python binds it) is still the exercise's stub: a function whose body
    only raises NotImplementedError (or is ``...``), or a class with such a
    method."""
    last: ast.stmt | None = None
    for node in parse(text).body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name == name:
                last = node
    if isinstance(last, ast.ClassDef):
        return any(
            _stub_body(item.body)
            for item in last.body
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
        )
    if isinstance(last, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return _stub_body(last.body)
    return False


def _stub_body(body: list[ast.stmt]) -> bool:
    if (
        len(body) > 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    if len(body) != 1:
        return False
    only = body[0]
    if isinstance(only, ast.Expr) and isinstance(only.value, ast.Constant):
        return only.value.value is Ellipsis
    if isinstance(only, ast.Raise) and only.exc is not None:
        raised = only.exc.func if isinstance(only.exc, ast.Call) else only.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False


def unusable(exercise_id: str, run: Run) -> bool:
    """Whether the answer did not give a piece: not defined, a stub, the
    reference, tampering, or processes made (its stub stays, in the notebook
    too)."""
    cell = run.cells.get(exercise_id)
    if cell is None or not cell["defined"] or cell["reference"] or cell["tampering"]:
        return True
    if run.ends.get(exercise_id, {}).get("made", -1) > 0:
        return True
    cases = run.cases.get(exercise_id, {}).values()
    return any(r["stub"] or r["reference"] for r in cases)


# --- judging -----------------------------------------------------------------------


# Of an exercise's marks, the share of the cases with fixed inputs: none. Their
# outcomes can be known in advance (the public ones ship with the notebook), so
# they are for the feedback; the marks come from the drawn cases alone.
FIXED_SHARE = 0.0
# What failing them costs, at most: a fixed case the answer itself fails (not
# a knock-on) says the answer is wrong. Nothing is earned by passing them, so
# an answer that knows only their outcomes still scores nothing.
FIXED_PENALTY = 0.15
SHOWN_STRING = re.compile(r"^(torch\.[a-z0-9_]{1,20}|[a-z_]{1,12})$")
COMPILER = re.compile(r"^[A-Za-z ,'()]{1,60}$")


def render_error(error: dict[str, Any] | None, source: str) -> str:
    """The student's own lines and the exception's type: never its message,
    which the student's code may have chosen (a compiler's message about the
    cell itself excepted)."""
    if not error:
        return ""
    lines = source.splitlines()
    shown = []
    for number in error["lines"]:
        if 1 <= number <= len(lines):
            shown.append(f"  line {number}: {lines[number - 1].strip()[:120]}")
    head = error["type"]
    if head in ("SyntaxError", "IndentationError", "TabError"):
        message = error["message"]
        head += f": {message}" if COMPILER.match(message or "-") else ""
    return "\n".join([*shown, head])


def shaped(got: Any, want: Any, depth: int = 0) -> bool:
    """Whether an outcome has the shape of the expected one, with no text
    of its own: numbers, booleans, None, lists and dicts with the expected
    keys, exception and dtype names. Anything else is not shown."""
    if depth > 20:
        return False
    if got is None or isinstance(got, (bool, int, float)):
        return True
    if isinstance(got, str):
        return bool(SHOWN_STRING.match(got)) or got in _strings(want)
    if isinstance(got, list):
        inner = want if isinstance(want, list) else []
        return len(got) <= 4096 and all(
            shaped(g, inner[i] if i < len(inner) else None, depth + 1)
            for i, g in enumerate(got)
        )
    if isinstance(got, dict):
        if set(got) == {"raised"}:
            return isinstance(got["raised"], str) and bool(
                IDENTIFIER.match(got["raised"])
            )
        keys = set(want) if isinstance(want, dict) else set()
        return set(got) <= keys and all(
            shaped(v, want[k], depth + 1) for k, v in got.items()
        )
    return False


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, list):
        return {s for v in value for s in _strings(v)}
    if isinstance(value, dict):
        return {s for v in value.values() for s in _strings(v)}
    return set()


def knock_on(
    exercise: Exercise, index: int, answers: Answers, doubtful: Collection[str]
) -> list[str]:
    """The student's doubtful other pieces (failing some of their own cases,
    or not answered) that this case also runs (the judge's own map)."""
    needs = answers.needs.get(exercise.id, [])
    reached = needs[index] if index < len(needs) else []
    return sorted(set(reached) & set(doubtful), key=_order)


def also_runs(found: list[str]) -> str:
    if not found:
        return ""
    return (
        f"this case also runs your answer to exercise{'s' * (len(found) > 1)} "
        f"{', '.join(found)}, which "
        + ("fails some of its" if len(found) == 1 else "fail some of their")
        + " own cases (or is not written)"
    )


def _order(exercise_id: str) -> tuple[int, ...]:
    return tuple(int(n) for n in exercise_id.split(".") if n.isdigit())


def stub_answer(exercise: Exercise, source: str) -> bool:
    """Whether the graded cell itself still holds the stub (what it defines
    last under the exercise's name, read from its text, never run)."""
    try:
        return is_stub(piece_text(source, exercise.name), exercise.name)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def later_cases(
    exercise: Exercise, answers: Answers, given: Collection[str] = ()
) -> set[int]:
    """The cases that reach a piece of a later chapter, not given: they do
    not count (the judge's own map, :mod:`course.dependencies`)."""
    chapter = _order(exercise.id)[0]
    return {
        index
        for index, reached in enumerate(answers.needs.get(exercise.id, []))
        if any(_order(e)[0] > chapter and e not in given for e in reached)
    }


def waiting_for(
    exercise: Exercise, answers: Answers, absent: Collection[str]
) -> list[int]:
    """The earlier chapters whose pieces some of the exercise's cases reach
    and that are ``absent`` (no notebook of them handed in, none earlier,
    not given): the exercise cannot be graded without them."""
    chapter = _order(exercise.id)[0]
    return sorted(
        {
            _order(piece)[0]
            for reached in answers.needs.get(exercise.id, [])
            for piece in reached
            if piece in absent and _order(piece)[0] < chapter
        }
    )


def waiting_message(chapters: list[int]) -> str:
    """What a student and a teacher read where an exercise waits for earlier
    chapters' notebooks (the notebook's note says what to do)."""
    names = ", ".join(map(str, chapters))
    return (
        f"not graded yet: its cases use chapter {names}'s pieces, and no notebook "
        f"of chapter {names} was handed in or given (see the notebook's note)"
    )


def marks(fixed: tuple[int, int], drawn: tuple[int, int]) -> float:
    """An exercise's points from its (passed, total) fixed and drawn cases:
    the fixed ones (public or recorded: their answers can be known in
    advance) carry at most ``FIXED_SHARE``."""
    share = fixed[0] / fixed[1] if fixed[1] else 0.0
    if not drawn[1]:
        return share
    return FIXED_SHARE * share + (1 - FIXED_SHARE) * drawn[0] / drawn[1]


def input_ignored(
    exercise: Exercise,
    reported: dict[int, dict[str, Any]],
    answers: Answers,
    fixed_total: int,
) -> set[int]:
    """The drawn cases whose answer ignores its input: every draw of the same
    case gave one outcome where the expected ones differ. None of them is
    passed (an answer that returns constants passes no drawn case by luck)."""
    cases = all_cases(exercise)
    draws: dict[int, list[int]] = {}
    for index in range(fixed_total, len(cases)):
        draws.setdefault(id(cases[index]), []).append(index)
    ignored: set[int] = set()
    for indices in draws.values():
        got = {_key(reported[i]["outcome"]) for i in indices if i in reported}
        want = {_key(answers.want(exercise, i)) for i in indices}
        if len(indices) > 1 and len(got) == 1 and len(want) > 1:
            ignored.update(indices)
    return ignored


def _key(outcome: Any) -> str:
    return json.dumps(outcome, sort_keys=True, default=str)


def judge_piece(
    exercise: Exercise,
    source: str,
    run: Run,
    answers: Answers,
    doubtful: Collection[str] = (),
    given: Collection[str] = (),
    absent: Collection[str] = (),
) -> Graded:
    """The grade of a piece, from what the judge checks itself: each case's
    outcome against the recorded answer (fixed cases) or the answer it
    computed for this run's drawn inputs (drawn cases, most of the marks).
    Which cases count depends on the course alone, never on the submission:
    those that reach a piece of a later chapter not ``given`` do not (no
    student has it yet); every other one does, whatever the submission's
    other pieces. A failed case that also runs one of the student's pieces in
    ``doubtful`` is reported as a knock-on, never left out (leaving it out
    would pay for breaking one's own other pieces). An exercise some of whose
    cases reach a piece of an earlier chapter ``absent`` (the student's
    notebook of it neither handed in nor given) is not graded: it waits for
    that chapter, and says so, rather than score the stubs' knock-ons."""
    cases = all_cases(exercise)
    later = later_cases(exercise, answers, given)
    graded = Graded(exercise.id, exercise.title, total=len(cases) - len(later))
    cell = run.cells.get(exercise.id)
    reported = run.cases.get(exercise.id, {})
    end = run.ends.get(exercise.id, {"status": "crashed", "detail": "no result"})
    reference = list(imports_in(source, exercise))
    reference += list(cell["reference"]) if cell else []
    for record in reported.values():
        reference += record["reference"]
    if reference:
        graded.status = "reference"
        graded.message = "uses the reference: " + ", ".join(dict.fromkeys(reference))
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
        return graded
    if exercise.id in run.broken:
        graded.status = "refused"
        graded.message = (
            "the exercise's process wrote records the runner never writes "
            f"({run.broken[exercise.id]}): nothing it reported counts"
        )
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
        return graded
    if cell is None:
        graded.status = "stopped"
        graded.message = end["detail"] or "the answer cell did not finish"
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
        return graded
    if cell["error"]:
        graded.flags.append(
            f"exercise {exercise.id}: the answer cell raised {cell['error']['type']}"
        )
    if cell["tampering"]:
        graded.status = "refused"
        graded.message = (
            "the cell reached into the grader or the system, or left running "
            "what could change the cases: " + ", ".join(cell["tampering"])
        )
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
        return graded
    made = end.get("made", -1)
    if isinstance(made, int) and made > 0:
        graded.status = "refused"
        graded.message = (
            f"the answer made {made} process(es) or thread(s) (counted by the "
            "runner, outside the answer's process): nothing it reported counts"
        )
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
        return graded
    if not cell["defined"]:
        graded.status = "error"
        graded.message = f"the cell does not define {exercise.name}"
        if cell["error"]:
            graded.message += "; it raised:\n" + render_error(cell["error"], source)
        return graded
    if stub_answer(exercise, source):
        graded.status = "not attempted"
        graded.message = "the stub is still there"
        if end["status"] != "done":
            graded.flags.append(f"exercise {exercise.id}: {end['detail']}")
        return graded
    graded.waiting = waiting_for(exercise, answers, absent)
    if graded.waiting:
        graded.status = "waiting"
        graded.message = waiting_message(graded.waiting)
        return graded
    public = len(exercise.cases)
    fixed_total = public + len(exercise.grading_cases)
    ignoring = input_ignored(exercise, reported, answers, fixed_total)
    failed_main: list[tuple[int, dict[str, Any] | None]] = []
    failed_convention: list[tuple[int, dict[str, Any] | None]] = []
    passed = [0, 0]
    main = [0, 0]  # the main (not convention) cases passed, and counted
    own_fixed_failed = 0  # fixed cases failed, not as a knock-on
    knocked: dict[str, int] = {}
    for index, case in enumerate(cases):
        if index in later:
            continue
        main[1] += not case.convention
        found: dict[str, Any] | None = reported.get(index)
        if (exercise.id, index) in run.conflicts:
            found = None
        if found is not None and close(answers.want(exercise, index), found["outcome"]):
            if index not in ignoring:
                passed[index >= fixed_total] += 1
                main[0] += not case.convention
                continue
            found = None
        others = knock_on(exercise, index, answers, doubtful)
        for other in others:
            knocked[other] = knocked.get(other, 0) + 1
        own_fixed_failed += index < fixed_total and not others
        if index >= public:
            graded.hidden_failed += 1
            continue
        target = failed_convention if case.convention else failed_main
        target.append((index, found))
    for index, failed in (failed_main + failed_convention)[:SHOWN_FAILURES]:
        case = cases[index]
        want = answers.want(exercise, index)
        if failed is None:
            got = "no result"
        elif shaped(failed["outcome"], want):
            got = "; ".join(aligned(want, failed["outcome"])) or "-"
        else:
            got = "(not shown: not the shape of an outcome)"
        graded.failures.append(
            {
                "label": case.label,
                "convention": case.convention,
                "expected": show(want),
                "got": got,
                "error": render_error(failed and failed["error"], source),
                "also": also_runs(knock_on(exercise, index, answers, doubtful)),
            }
        )
    graded.passed = sum(passed)
    fixed_counted = fixed_total - len([i for i in later if i < fixed_total])
    drawn_counted = (
        len(cases) - fixed_total - len([i for i in later if i >= fixed_total])
    )
    graded.points = marks((passed[0], fixed_counted), (passed[1], drawn_counted))
    if drawn_counted and fixed_counted:
        graded.points -= FIXED_PENALTY * own_fixed_failed / fixed_counted
    graded.points = min(1.0, max(0.0, graded.points))
    graded.status = "graded"
    if knocked:
        graded.knock_on = knocked
        graded.flags.append(
            f"exercise {exercise.id}: knock-on: "
            + ", ".join(f"{n} failed case(s) also run {e}" for e, n in knocked.items())
        )
    if end["status"] == "timeout":  # killed by the runner: what it did counts
        graded.status = "stopped"
        graded.message = end["detail"]
        graded.flags.append(f"exercise {exercise.id}: {end['detail']}")
    elif end["status"] != "done":  # ended on its own before its finish record
        graded.status = "stopped"
        graded.message = end["detail"] + ": its cases do not count"
        graded.points = 0.0
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
    if graded.passed < graded.total:
        main_failed = main[0] < main[1]
        hint = hint_for(exercise, tier(exercise, main[0], main[1]), main_failed)
        graded.hints = [hint] if hint else []
    return graded


def judge_prediction(exercise: Exercise, source: str, answers: Answers) -> Graded:
    cases = all_cases(exercise)
    graded = Graded(exercise.id, exercise.title, total=len(cases))
    expected = answers.expected.get(exercise.id, {})
    reference = imports_in(source, exercise)
    if reference:
        graded.status = "reference"
        graded.message = "uses the reference: " + ", ".join(reference)
        graded.flags.append(f"exercise {exercise.id}: {graded.message}")
        return graded
    predicted, problem = read_predictions(source, exercise.name)
    if predicted is None:
        graded.status = "error"
        graded.message = problem
        return graded
    if any(value is ... for value in predicted.values()):
        graded.status = "not attempted"
        graded.message = "the stub is still there"
        return graded
    for index, case in enumerate(cases):
        want = expected.get(case.label, {"missing": "not recorded"})
        got: Any = (
            prediction(predicted[case.label]) if case.label in predicted else None
        )
        if case.label in predicted and close(want, got):
            graded.passed += 1
        elif index >= len(exercise.cases):
            graded.hidden_failed += 1
        elif len(graded.failures) < SHOWN_FAILURES:
            graded.failures.append(
                {
                    "label": case.label,
                    "convention": case.convention,
                    "expected": show(want),
                    "got": show(got) if case.label in predicted else "(no answer)",
                    "error": "",
                }
            )
    graded.points = graded.passed / len(cases) if cases else 0.0
    graded.status = "graded"
    return graded
