"""Putting the student's pieces in place, in the runner's child.

The student's answers to the other exercises (their notebook's saved
pieces) run each in a fresh namespace (:func:`other_pieces`), behind the
judge's replays (:func:`with_replays`), and go into the engine in place of
the stubs (:class:`Places`); a piece still a stub raises the class engine's
NotImplementedError, which :func:`needed` reads back.

Standard library and :mod:`course.watch` at import time; the engine,
:mod:`course.replay` and :mod:`course.substitute` at call time (after the
runner's limits, never in the judge). The runner's tree ships this file
(``course.trees.RUNNER_FILES``).
"""

from __future__ import annotations

import re
import sys
from typing import Any

from course.watch import MISSING, watched_imports

UNWRITTEN = re.compile(r"exercise (\d+\.\d+), `\w+`.{0,80}? is not written yet")


def quiet_check(*args: Any, **kwargs: Any) -> None:
    """Stands in for ``check`` while an answer cell runs."""


def cell_namespace() -> dict[str, Any]:
    """What a notebook's cell starts with."""
    import slowtorch_lib  # at call time: after main()'s limits, never in the judge

    return {"__name__": "__main__", "torch": slowtorch_lib, "check": quiet_check}


def unwritten(exercise: Any) -> str:
    """The stub message of another exercise's piece (as the class engine's)."""
    return (
        f"exercise {exercise.id}, `{exercise.name}`, is not written yet: "
        "its answer raises NotImplementedError"
    )


def needed(error: BaseException, exercise_id: str) -> str | None:
    """The other exercise whose stub ``error`` comes from, or None."""
    try:
        text = str(error)
    except Exception:  # noqa: BLE001  (a message that cannot be read names none)
        return None
    found = UNWRITTEN.search(text)
    if found is None or found.group(1) == exercise_id:
        return None
    return found.group(1)


def _renamed(exercise: Any, function: Any) -> Any:
    """The student's piece, whose NotImplementedError names its exercise."""

    def piece(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except NotImplementedError as error:
            if needed(error, exercise.id) is not None:
                raise
            raise NotImplementedError(unwritten(exercise)) from None

    return piece


def plain_target(exercise: Any) -> bool:
    """Whether the exercise's piece is a function of a module (one that an
    answer may import by name)."""
    parts = str(exercise.target or "").split(".")
    return (
        len(parts) > 2 and not parts[-1][:1].isupper() and not parts[-2][:1].isupper()
    )


def forwarder(exercise: Any, current: dict[str, Any]) -> Any:
    """What stands for a function piece while the pieces run: it calls the
    piece ``current`` holds for the exercise by then (else it is the stub)."""

    def forward(*args: Any, **kwargs: Any) -> Any:
        if exercise.id not in current:
            raise NotImplementedError(unwritten(exercise))
        return current[exercise.id](*args, **kwargs)

    return forward


def other_pieces(pieces: list[tuple[Any, str]]) -> list[tuple[Any, Any]]:
    """The student's answers to the other exercises, as their notebook's
    saved pieces are (definitions only: see ``piece_text``), each run in a
    fresh namespace; one that does not run stays a stub."""
    found = []
    for exercise, text in pieces:
        namespace = cell_namespace()
        try:
            code = compile(text, f"<your answer to exercise {exercise.id}>", "exec")
            with watched_imports([]):
                exec(code, namespace)  # noqa: S102  (the student's code, sandboxed)
        except BaseException:  # noqa: BLE001, S112  (it stays a stub)
            continue
        value = namespace.get(exercise.name, MISSING)
        if value is MISSING:
            continue
        if callable(value) and not isinstance(value, type):
            value = _renamed(exercise, value)
        found.append((exercise, value))
    return found


def with_replays(
    others: list[tuple[Any, Any]], replays: list[tuple[Any, Any]], exercise: Any
) -> list[tuple[Any, Any]]:
    """The student's other pieces, each replayed piece (and the engine's own
    object for one not written: its stub, or the reference where given)
    behind its replay (:mod:`course.replay`): a call the judge noted gets the
    complete engine's result, so this exercise's cases do not pay again for
    a mistake in that piece."""
    from course.replay import REPLAYED, replaying  # at call time, as below
    from course.substitute import original  # at call time: the engine it reads

    notes = {e.id: table for e, table in replays if e.id != exercise.id}
    found = []
    for other, value in others:
        if other.id in notes and callable(value) and not isinstance(value, type):
            value = replaying(REPLAYED[other.id], value, notes.pop(other.id))
        found.append((other, value))
    for other, table in replays:
        if other.id in notes:
            engine = original(other.target)
            found.append((other, replaying(REPLAYED[other.id], engine, table)))
    return found


class Places:
    """Where the stubs of the student's other pieces are, found once (in
    the engine as the snapshot has it), so that putting the pieces in before
    each case is a few assignments."""

    def __init__(self, pieces: list[tuple[Any, Any]]) -> None:
        self.assignments: list[tuple[Any, str, Any]] = []
        namespaces = [
            vars(module)
            for name, module in sys.modules.items()
            if module is not None and name.split(".")[0] == "slowtorch_lib"
        ]
        for exercise, value in pieces:
            try:
                self.assignments += self.find(exercise.target, value, namespaces)
            except (AttributeError, KeyError, ValueError):
                continue  # it stays a stub

    @staticmethod
    def find(
        target: str, value: Any, namespaces: list[dict[str, Any]]
    ) -> list[tuple[Any, str, Any]]:
        """Where the stub at ``target`` is: (namespace or class, name, value)."""
        parent, name = target.rsplit(".", 1)
        owner: Any = sys.modules.get(parent)
        if owner is None:
            module, owner_name = parent.rsplit(".", 1)
            owner = getattr(sys.modules[module], owner_name)
        if isinstance(owner, type):
            if isinstance(owner.__dict__[name], staticmethod):
                value = staticmethod(value)
            return [(owner, name, value)]
        old = getattr(owner, name)
        found = [
            (namespace, key, value)
            for namespace in namespaces
            for key, item in list(namespace.items())
            if item is old
        ]
        if not parent.startswith("slowtorch_lib"):
            found.append((vars(owner), name, value))
        return found

    def install(self) -> None:
        """Puts the pieces in (after a restore of the snapshot)."""
        for owner, key, value in self.assignments:
            if isinstance(owner, dict):
                owner[key] = value
            else:
                setattr(owner, key, value)
