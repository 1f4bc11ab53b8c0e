"""One exercise, in the runner's child: runs the answer cell, then every
case with the answer in the engine (:func:`run_exercise`), and sends each
record, as plain JSON data, through its pipe to the runner's first process
(:class:`Child`), which checks it and passes it on (see :mod:`course.runner`
for the records).

Standard library and the runner's other child modules
(:mod:`course.reference_use`, :mod:`course.watch`, :mod:`course.placing`)
at import time; :mod:`course.checking` at call time (after the runner's
limits, never in the judge). The runner's tree ships this file
(``course.trees.RUNNER_FILES``).
"""

from __future__ import annotations

import json
import math
import os
import traceback
from typing import Any

from course.placing import (
    Places,
    cell_namespace,
    forwarder,
    needed,
    other_pieces,
    plain_target,
    with_replays,
)
from course.reference_use import holds_reference, reference_objects
from course.watch import MISSING, Snapshot, guard, left_running, watched_imports

MESSAGE = 300  # characters of an exception message kept


def error_data(error: BaseException, filename: str) -> dict[str, Any]:
    """An exception as data: its type's name, its message (one line,
    trimmed) and the line numbers of the student's own cell in its traceback."""
    try:
        lines = [
            int(frame.lineno or 0)
            for frame in traceback.extract_tb(error.__traceback__)
            if frame.filename == filename
        ][-4:]
    except Exception:  # noqa: BLE001  (a broken traceback is no traceback)
        lines = []
    if isinstance(error, SyntaxError) and error.filename == filename:
        lines = [int(error.lineno or 0)]
    try:
        text = " ".join(str(error).split())[:MESSAGE]
    except Exception:  # noqa: BLE001  (a __str__ that raises)
        text = ""
    return {"type": type(error).__name__[:80], "message": text, "lines": lines}


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data (never the student's objects)."""
    if depth > 40:
        raise ValueError("too deep")
    if value is None or type(value) in (bool, int, str):
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, float):
        number = float.__float__(value)
        return number if math.isfinite(number) else repr(number)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, dict):
        return {
            str.__str__(k) if isinstance(k, str) else repr(k): plain(v, depth + 1)
            for k, v in dict.items(value)
        }
    if isinstance(value, (list, tuple)):
        return [plain(item, depth + 1) for item in list(value)]
    return repr(value)


class Child:
    """Sends a child's lines to the first process."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, record: dict[str, Any]) -> None:
        data = (json.dumps(record, allow_nan=False) + "\n").encode()
        view = memoryview(data)
        while view:
            written = os.write(self.fd, view)
            view = view[written:]


def run_exercise(
    exercise: Any,
    source: str,
    pieces: list[tuple[Any, str]],
    snapshot: Snapshot,
    out: Child,
    seed: str = "",
    replays: list[tuple[Any, Any]] | None = None,
) -> None:
    """Runs the answer cell, then every case with the answer in the engine
    (and the student's answers to the other exercises in place of their
    stubs, behind their ``replays``)."""
    # at call time: after main()'s limits, never in the judge
    from course.checking import case_rng, normalize, run_piece_case

    filename = f"<answer cell of exercise {exercise.id}>"
    namespace = cell_namespace()
    seen: list[str] = []
    error = None
    watcher = guard()
    watcher.take()
    # The pieces run while the engine holds a forwarder for each function
    # piece: one that imports another by name (``from ... import
    # sum_to_size``) holds the forwarder, which calls the student's piece
    # (as the notebook's saved pieces do), never the stub. The student's own
    # piece for this exercise is among them; once the cell ran, its
    # forwarder calls the cell's answer.
    current: dict[str, Any] = {}
    snapshot.restore()
    Places([(e, forwarder(e, current)) for e, _ in pieces if plain_target(e)]).install()
    others = with_replays(other_pieces(pieces), replays or [], exercise)
    current.update({e.id: value for e, value in others})
    snapshot.restore()
    places = Places(others)
    places.install()
    try:
        code = compile(source, filename, "exec")
        with watched_imports(seen):
            exec(code, namespace)  # noqa: S102  (the student's code, sandboxed)
    except BaseException as raised:  # noqa: BLE001  (SystemExit too)
        error = error_data(raised, filename)
    answer = namespace.get(exercise.name, MISSING)
    if answer is not MISSING and plain_target(exercise):
        current[exercise.id] = answer
    snapshot.restore()
    reference = list(seen)
    if answer is not MISSING:
        references = reference_objects(exercise)
        if holds_reference(answer, references) or any(
            holds_reference(value, references, depth=2)
            for value in list(namespace.values())
        ):
            reference.append(f"{exercise.name} is (or calls) the engine's own version")
    files, events = watcher.take()
    reference += files
    tampering = sorted(set(left_running() + events))[:20]
    out.send(
        {
            "kind": "cell",
            "defined": answer is not MISSING,
            "error": error,
            "reference": sorted(set(reference))[:20],
            "tampering": tampering,
        }
    )
    if answer is MISSING or reference or tampering:
        out.send({"kind": "finish"})
        return
    cases = [*exercise.cases, *exercise.grading_cases, *exercise.drawn_cases]
    for index, case in enumerate(cases):
        rng = case_rng(seed, exercise.id, index) if case.drawn else None
        if index == 0:  # after each case, restored below (nothing runs between)
            snapshot.restore()
        places.install()
        stub = False
        got_error = None
        seen_later: list[str] = []
        try:
            with watched_imports(seen_later):
                got, message = run_piece_case(exercise, answer, case, rng)
        except NotImplementedError as raised:
            got = {"raised": "NotImplementedError"}
            stub = needed(raised, exercise.id) is None
            got_error = None if stub else error_data(raised, filename)
        except BaseException as raised:  # noqa: BLE001  (SystemExit too)
            got = {"raised": type(raised).__name__}
            got_error = error_data(raised, filename)
        else:
            got_error = _case_error(message, filename, got)
        later_files, later_events = watcher.take()
        snapshot.restore()
        try:
            outcome = plain(normalize(got))
        except BaseException:  # noqa: BLE001  (unreadable is wrong, not fatal)
            outcome = {"unreadable": True}
        out.send(
            {
                "kind": "case",
                "index": index,
                "label": case.label,
                "outcome": outcome,
                "error": got_error,
                "stub": stub,
                "reference": sorted(set(seen_later + later_files + later_events))[:20],
            }
        )
        if stub:
            break  # not attempted: the other cases would say the same
    out.send({"kind": "finish"})


def _case_error(
    message: str | None, filename: str, outcome: Any
) -> dict[str, Any] | None:
    """The short traceback of a case (text) as data: the exception's type
    (from the outcome), its message and the student's line numbers."""
    if message is None:
        return None
    kind = outcome.get("raised", "") if isinstance(outcome, dict) else ""
    kind = kind if isinstance(kind, str) else ""
    lines, text = [], ""
    marker = f'File "{filename}", line '
    for number, line in enumerate(message.splitlines()):
        if marker in line:
            digits = line.split(marker, 1)[1].split(",")[0]
            if digits.isdigit():
                lines.append(int(digits))
        elif kind and (line == kind or line.startswith(kind + ":")):
            rest = "\n".join(message.splitlines()[number:])
            text = rest[len(kind) + 1 :]
            break
    return {
        "type": kind[:80],
        "message": " ".join(text.split())[:MESSAGE],
        "lines": lines[-4:],
    }
