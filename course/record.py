"""Recording PyTorch's answers to the cases, once (not the runner's records).

``python -m course.record`` writes them; the records the runner sends the judge
are :mod:`course.runner_protocol`'s.

Needs real ``torch`` (the test requirements). Runs every case of every
exercise under PyTorch and writes ``course/checks/expected.json`` (public
cases) and ``course/checks/expected_grading.json`` (grading-only cases),
which are committed: checking needs no torch. It also runs each case under the
engine with its own pieces and reports any case where the engine disagrees
(such a case could not be passed, so recording fails).

Drawn cases (``DRAWN`` in ``grading_chNN.py``) are not recorded: their
inputs are drawn anew for each grading run, and the judge computes their
expected outcomes on the complete engine, outside the sandbox, with
``python -m course.record --drawn SEED`` (:func:`drawn_outcomes`), which
prints ``{"outcomes": {exercise id: [outcome of each drawn case]},
"replays": ...}`` as JSON: while the cases run, the results of the replayed
pieces (:mod:`course.replay`) are noted, for the runner (:func:`noted`).
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from typing import Any

import slowtorch_lib
from course.checking import (
    GRADING_FILE,
    PUBLIC_FILE,
    Case,
    Exercise,
    case_rng,
    chapter_seed,
    close,
    exercises,
    load,
    normalize,
    outcome_of,
    run_case,
)
from course.replay import REPLAYED, recording
from course.substitute import original, put


def record(exercise: Exercise, cases: list[Case], torch: Any) -> dict[str, Any]:
    labels = [case.label for case in cases]
    if len(set(labels)) != len(labels):
        raise ValueError(f"exercise {exercise.id}: two cases with the same label")
    return {
        case.label: outcome_of(functools.partial(run_case, case), torch)
        for case in cases
    }


def disagreements(
    exercise: Exercise, cases: list[Case], answers: dict[str, Any]
) -> list[str]:
    """Cases where the engine, unchanged, does not give PyTorch's answer."""
    found = []
    for case in cases:
        got = outcome_of(functools.partial(run_case, case), slowtorch_lib)
        if not close(answers[case.label], got):
            found.append(
                f"{exercise.id} {case.label}: torch {answers[case.label]!r}, "
                f"engine {normalize(got)!r}"
            )
    return found


def _drawn(exercise: Exercise, seed: str, torch: Any) -> list[Any]:
    drawn_seed = chapter_seed(seed, exercise.id)
    start = len(exercise.cases) + len(exercise.grading_cases)
    return [
        outcome_of(
            functools.partial(
                run_case, case, rng=case_rng(drawn_seed, exercise.id, start + k)
            ),
            torch,
        )
        for k, case in enumerate(exercise.drawn_cases)
    ]


def _chosen(chapters: Collection[int] | None) -> list[Exercise]:
    return [
        exercise
        for exercise in exercises()
        if exercise.kind == "piece"
        and (chapters is None or int(exercise.id.split(".")[0]) in chapters)
    ]


def drawn_outcomes(
    seed: str, torch: Any = None, chapters: Collection[int] | None = None
) -> dict[str, list[Any]]:
    """The outcome of every drawn case (of ``chapters``, else all) for the
    class's ``seed`` (each chapter drawn from its :func:`chapter_seed`), on
    ``torch`` (by default the engine imported: the complete one)."""
    return {
        exercise.id: _drawn(exercise, seed, torch or slowtorch_lib)
        for exercise in _chosen(chapters)
        if exercise.drawn_cases
    }


Notes = dict[str, dict[str, str]]


@contextmanager
def noted(running: list[str]) -> Iterator[Notes]:
    """Notes each replayed piece's calls on the complete engine while the
    block runs, as ``{piece: {key: result}}``: the calls that the other
    exercises' cases make (``running`` names the exercise that runs; a
    piece's own cases are not noted, as the runner never replays a piece
    to its own exercise, see :mod:`course.replay`)."""
    found: Notes = {}
    undo: list[Callable[[], None]] = []
    for piece, kind in REPLAYED.items():
        target = load(piece).target
        assert target is not None
        function = original(target)
        noting = recording(kind, function, found.setdefault(piece, {}))

        def either(
            *args: Any,
            _piece: str = piece,
            _noting: Callable[..., Any] = noting,
            _function: Callable[..., Any] = function,
            **kwargs: Any,
        ) -> Any:
            chosen = _function if running == [_piece] else _noting
            return chosen(*args, **kwargs)

        undo.append(put(target, functools.wraps(function)(either)))
    try:
        yield found
    finally:
        for step in reversed(undo):
            step()


def draw(
    seed: str, chapters: Collection[int] | None = None
) -> tuple[dict[str, list[Any]], Notes]:
    """The drawn cases' outcomes (as :func:`drawn_outcomes`) and the
    replayed pieces' results on every call that the cases, fixed and drawn,
    make (as :func:`noted` returns them), in one pass."""
    running: list[str] = []
    outcomes: dict[str, list[Any]] = {}
    with noted(running) as found:
        for exercise in _chosen(chapters):
            running[:] = [exercise.id]
            for case in [*exercise.cases, *exercise.grading_cases]:
                outcome_of(functools.partial(run_case, case), slowtorch_lib)
            if exercise.drawn_cases:
                outcomes[exercise.id] = _drawn(exercise, seed, slowtorch_lib)
    return outcomes, found


def main() -> int:
    if sys.argv[1:2] == ["--drawn"]:  # SEED [CHAPTER,...]
        chapters = [int(c) for c in sys.argv[3].split(",")] if sys.argv[3:] else None
        drawn, replays = draw(sys.argv[2], chapters)
        sys.stdout.write(json.dumps({"outcomes": drawn, "replays": replays}) + "\n")
        return 0
    import torch  # lazily: real PyTorch is needed to record, not to draw

    public: dict[str, Any] = {}
    grading: dict[str, Any] = {}
    problems: list[str] = []
    for exercise in exercises():
        public[exercise.id] = record(exercise, list(exercise.cases), torch)
        hidden = list(exercise.grading_cases)
        if hidden:
            grading[exercise.id] = record(exercise, hidden, torch)
        problems += disagreements(exercise, list(exercise.cases), public[exercise.id])
        problems += disagreements(exercise, hidden, grading.get(exercise.id, {}))
    for problem in problems:
        print("engine disagrees:", problem)
    for path, data in ((PUBLIC_FILE, public), (GRADING_FILE, grading)):
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", "utf-8")
        print(f"wrote {path.name}: {sum(map(len, data.values()))} answers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
