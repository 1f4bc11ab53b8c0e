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
prints ``{exercise id: [outcome of each drawn case]}`` as JSON.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Collection
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
    normalize,
    outcome_of,
    run_case,
)


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


def drawn_outcomes(
    seed: str, torch: Any = None, chapters: Collection[int] | None = None
) -> dict[str, list[Any]]:
    """The outcome of every drawn case (of ``chapters``, else all) for the
    class's ``seed`` (each chapter drawn from its :func:`chapter_seed`), on
    ``torch`` (by default the engine imported: the complete one)."""
    if torch is None:
        torch = slowtorch_lib
    found: dict[str, list[Any]] = {}
    for exercise in exercises():
        if exercise.kind != "piece" or not exercise.drawn_cases:
            continue
        if chapters is not None and int(exercise.id.split(".")[0]) not in chapters:
            continue
        drawn_seed = chapter_seed(seed, exercise.id)
        start = len(exercise.cases) + len(exercise.grading_cases)
        found[exercise.id] = [
            outcome_of(
                functools.partial(
                    run_case, case, rng=case_rng(drawn_seed, exercise.id, start + k)
                ),
                torch,
            )
            for k, case in enumerate(exercise.drawn_cases)
        ]
    return found


def main() -> int:
    if sys.argv[1:2] == ["--drawn"]:  # SEED [CHAPTER,...]
        chapters = [int(c) for c in sys.argv[3].split(",")] if sys.argv[3:] else None
        drawn = drawn_outcomes(sys.argv[2], chapters=chapters)
        sys.stdout.write(json.dumps(drawn) + "\n")
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
