"""The Gradescope side of the grader: ``python -m course.gradescope ROOT``.

Gradescope runs each submission in its own container (``run_autograder``):
the submitted notebooks are in ``ROOT/submission`` and the grade goes to
``ROOT/results/results.json``, in Gradescope's format: one test per
exercise with its score and max score, the output visible to the student
(the public cases that failed, hints), the grading-only cases' details
hidden, and the flags (copied? reaches outside the exercise?) in a test hidden
from the student. The same runner and judge grade it as on a teacher's machine; where
the container allows no user namespaces, the container itself is the outer
boundary (said in the output).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from course import grading, sandbox
from course.judge import PACKAGE, Answers

TIMEOUT = 60.0


def results(root: Path, weights: dict[str, float] | None = None) -> dict[str, Any]:
    """Grades ``root/submission/*.ipynb``; the results in Gradescope's format."""
    weights = weights or {}
    submitted = sorted((root / "submission").rglob("*.ipynb"))
    problem = sandbox.problem()
    answers = Answers.load(PACKAGE if (PACKAGE / "answers.json").exists() else None)
    graded = grading.grade(
        [(path, "submission") for path in submitted],
        timeout=TIMEOUT,
        sandboxed=problem is None,
        answers=answers,
    )
    kept, notes = grading.counted(graded)
    tests = []
    for result in kept:
        for exercise in result.exercises.values():
            weight = weights.get(exercise.id, 1.0)
            tests.append(
                {
                    "name": f"Exercise {exercise.id}: {exercise.title}",
                    "number": exercise.id,
                    "score": round(exercise.points * weight, 4),
                    "max_score": weight,
                    "status": "passed" if exercise.points == 1 else "failed",
                    "output": test_output(exercise),
                    "visibility": "visible",
                }
            )
    lines = [f"{r.path.name}: {n}" for r in graded for n in r.notes] + notes
    if problem is not None:
        lines.append(f"graded without bubblewrap inside this container ({problem})")
    score = round(sum(float(t["score"]) for t in tests), 4)
    if lines:  # flags (copied? reaches outside?) are for the teacher only
        tests.append(
            {
                "name": "Notes for the teacher",
                "score": 0,
                "max_score": 0,
                "output": "\n".join(lines),
                "visibility": "hidden",
            }
        )
    shown = [f"{r.path.name}: {n}" for r in graded if not r.exercises for n in r.notes]
    if not submitted:
        shown.append("no notebook (.ipynb) in the submission")
    return {
        "score": score,
        "output": "\n".join(shown),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def test_output(exercise: grading.Graded) -> str:
    if exercise.points == 1:
        return f"{exercise.passed} of {exercise.total} cases right."
    lines = [f"{exercise.passed} of {exercise.total} cases right."]
    if exercise.status not in ("graded",):
        lines.append(f"{exercise.status}: {exercise.message}".rstrip(": "))
    lines += grading.feedback_failures(exercise)
    lines += exercise.hints
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else "/autograder")
    out = root / "results"
    out.mkdir(parents=True, exist_ok=True)
    try:
        data = results(root)
    except Exception as error:  # noqa: BLE001  (Gradescope must get a result)
        data = {
            "score": 0,
            "output": f"the autograder failed ({type(error).__name__}); "
            "ask your teacher",
            "tests": [],
        }
    (out / "results.json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
