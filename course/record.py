"""Records PyTorch's answers to every case, once: ``python -m course.record``.

Needs real ``torch`` (the test requirements). Runs every case of every
exercise under PyTorch and writes ``course/checks/expected.json`` (public
cases) and ``course/checks/expected_grading.json`` (grading-only cases),
which are committed: checking needs no torch. It also runs each case under the
engine with its own pieces and reports any case where the engine disagrees
(such a case could not be passed, so recording fails).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from course.checking import (
    GRADING_FILE,
    PUBLIC_FILE,
    Case,
    Exercise,
    exercises,
    normalize,
    outcome_of,
)


def record(exercise: Exercise, cases: list[Case], torch: Any) -> dict[str, Any]:
    labels = [case.label for case in cases]
    if len(set(labels)) != len(labels):
        raise ValueError(f"exercise {exercise.id}: two cases with the same label")
    return {case.label: outcome_of(case.run, torch) for case in cases}


def disagreements(
    exercise: Exercise, cases: list[Case], answers: dict[str, Any]
) -> list[str]:
    """Cases where the engine, unchanged, does not give PyTorch's answer."""
    import slowtorch_lib
    from course.checking import close

    found = []
    for case in cases:
        got = outcome_of(case.run, slowtorch_lib)
        if not close(answers[case.label], got):
            found.append(
                f"{exercise.id} {case.label}: torch {answers[case.label]!r}, "
                f"engine {normalize(got)!r}"
            )
    return found


def main() -> int:
    import torch

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
