"""The Gradescope side of the grader: ``python -m course.gradescope ROOT``.

Gradescope runs each submission in its own container (``run_autograder``):
the submitted notebooks are in ``ROOT/submission`` and the grade goes to
``ROOT/results/results.json``, in Gradescope's format: one test per
exercise with its score and max score, the output visible to the student
(the public cases that failed, hints), the grading-only cases' details
hidden, and the flags (copied? reaches outside the exercise?) in a test hidden
from the student. The same runner and judge grade it as on a teacher's
machine.

Whether Gradescope's containers let bubblewrap make user namespaces is not
known here (Docker's default seccomp profile refuses ``unshare`` to a
process without CAP_SYS_ADMIN). Where it cannot start, the autograder does
what the teacher chose at export: by default it grades nothing and says why
(score 0, visible output); exported with ``--no-sandbox``, it grades without
bubblewrap, the container being the only boundary, and says so in the
output every student and the teacher see.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from course import grading, sandbox
from course.judge import PACKAGE, Answers

TIMEOUT = 60.0
SETTINGS = "autograder.json"
REFUSED = (
    "This submission was not graded: the autograder cannot start its sandbox "
    "(bubblewrap) in this container ({problem}). Ask your teacher: the "
    "autograder can be exported with --no-sandbox to grade here without it."
)
UNSANDBOXED = (
    "Graded without the sandbox: bubblewrap cannot start in this container "
    "({problem}); the teacher chose to grade here without it."
)


def unsandboxed_allowed() -> bool:
    """Whether the teacher's export allows grading without bubblewrap."""
    try:
        settings = json.loads((PACKAGE / SETTINGS).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(settings, dict) and settings.get("unsandboxed") is True


def results(root: Path, weights: dict[str, float] | None = None) -> dict[str, Any]:
    """Grades ``root/submission/*.ipynb``; the results in Gradescope's format."""
    weights = weights or {}
    submitted = sorted((root / "submission").rglob("*.ipynb"))
    problem = sandbox.problem()
    if problem is not None and not unsandboxed_allowed():
        return {
            "score": 0,
            "output": REFUSED.format(problem=problem),
            "visibility": "visible",
            "tests": [],
        }
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
        lines.append(UNSANDBOXED.format(problem=problem))
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
    if problem is not None:
        shown.insert(0, UNSANDBOXED.format(problem=problem))
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
