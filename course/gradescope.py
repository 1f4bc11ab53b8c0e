"""The Gradescope side of the grader: ``python -m course.gradescope ROOT``.

Gradescope runs each submission in a container of its own, as root, from
``/autograder`` (``ROOT``): the autograder zip extracted in ``ROOT/source``
(this package is ``ROOT/source/course``), the submitted files in
``ROOT/submission``, and the grade to write to ``ROOT/results/results.json``
in Gradescope's format: one test per exercise with its score and max score
(the exercise's weight), the output visible to the student (the public cases
that failed, hints), the grading-only cases' details hidden, and the flags
(copied? reaches outside the exercise?) in a test hidden from the student.
The same runner and judge grade it as on a teacher's machine; an autograder
exported for one chapter grades that chapter's exercises only.

Before anything runs, only root may read or write the grader's files: the
zip (the judge's answers), the submission and the results. Each runner then
runs as a host user of its own (see :mod:`course.sandbox`), inside
bubblewrap where the container lets it start (Docker's default seccomp
profile does not, for a process without CAP_SYS_ADMIN), else directly, the
container being the outer boundary: that user cannot read the answers or
write the results, and every process it left is killed before the results
are written. Where neither can be (not root, or a Python that user cannot
run), the submission is not graded, and the result says why.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from course import grading, messages, sandbox
from course.answer_key import Answers
from course.trees import PACKAGE

TIMEOUT = 60.0
SETTINGS = "autograder.json"
REFUSED = (
    "This submission was not graded: the autograder cannot keep your code "
    "apart from its answers in this container ({problem}). Ask your teacher."
)


def settings() -> dict[str, Any]:
    """The export's choices: ``chapter`` (or None), ``weights``, ``given``
    (the pieces the grader's engine holds solved, as ``export --give`` took
    them) and ``language`` (the course file's, where the course has it)."""
    try:
        data = json.loads((PACKAGE / SETTINGS).read_text("utf-8"))
    except (OSError, ValueError):
        data = {}
    data = data if isinstance(data, dict) else {}
    weights = data.get("weights") if isinstance(data.get("weights"), dict) else {}
    chapter = data.get("chapter") if isinstance(data.get("chapter"), int) else None
    given = data.get("given")
    language = data.get("language")
    return {
        "language": language if language in messages.LANGUAGES else "en",
        "chapter": chapter,
        "weights": weights,
        "given": [str(g) for g in given] if isinstance(given, list) else [],
    }


def earlier_chapters(
    mine: list[grading.Result],
    only: int | None = None,
    own_too: bool = True,
) -> list[tuple[grading.Result, str]]:
    """For one student's graded notebooks: where each chapter's earlier
    chapters' pieces came from (as grading found them:
    :attr:`grading.Result.earlier`), and, said plainly, the earlier
    chapters that came from nowhere (:attr:`grading.Result.waiting`): the
    exercises whose cases use them wait for them, ungraded, and the student
    is asked for them. With ``only``, that chapter's notebook alone is told
    about; without ``own_too``, a notebook whose earlier chapters all came
    from the notebooks handed in with it is not told about."""
    lines = []
    for result in mine:
        if result.chapter is None or only not in (None, result.chapter):
            continue
        used = [f"chapter {c} from {where}" for c, where in result.earlier.items()]
        own = all(w.endswith("(handed in with it)") for w in result.earlier.values())
        if used and (own_too or not own):
            lines.append((result, f"used {', '.join(used)}"))
        if result.waiting:
            names = ", ".join(map(str, result.waiting))
            gives = ",".join(f"ch{c}" for c in result.waiting)
            one = len(result.waiting) == 1
            it, they, its = (
                ("it", "it was", "its") if one else ("them", "they were", "their")
            )
            notebooks = f"chapter {names}'s notebook" if one else "their notebooks"
            lines.append(
                (
                    result,
                    f"MISSING chapter {names}: no notebook of {it} was handed in "
                    f"with this one, none is an earlier submission, and {they} not "
                    f"given, so the exercises whose cases use {its} pieces are not "
                    'graded yet ("waiting", not a mark against chapter '
                    f"{result.chapter}'s answers). Hand in {notebooks} with this "
                    "one, or the teacher grades again with --earlier (the earlier "
                    f"submissions) or --give {gives} once those chapters are past.",
                )
            )
    return lines


def protect(root: Path) -> None:
    """Only root may read the grader's files and the submission, or write
    the results (its processes start as another user)."""
    for name in ("source", "submission"):
        if (root / name).is_dir():
            os.chmod(root / name, 0o700)
    for path in root.glob("*.json"):  # submission_metadata.json
        os.chmod(path, 0o600)
    results = root / "results"
    results.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        os.chown(results, 0, 0)
    os.chmod(results, 0o755)


def isolation() -> tuple[bool | None, str]:
    """Whether runners run in bubblewrap (True), as a user of their own
    without it (False), or cannot run apart from the answers (None); and
    what stops bubblewrap, if anything."""
    problem = sandbox.problem()
    if problem is None:
        return True, ""
    unbounded = sandbox.user_problem()
    if unbounded is not None:
        return None, f"{problem}; {unbounded}"
    return False, problem


def results(root: Path) -> dict[str, Any]:
    """Grades ``root/submission``; the results in Gradescope's format."""
    chosen = settings()
    messages.use(chosen["language"])
    weights: dict[str, float] = chosen["weights"]
    submitted = sorted((root / "submission").rglob("*.ipynb"))
    sandboxed, problem = isolation()
    if sandboxed is None:
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
        sandboxed=sandboxed,
        answers=answers,
        given=chosen["given"],
    )
    for result in graded:  # the runner's own user: not "without the sandbox"
        if grading.NO_SANDBOX in result.notes:
            result.notes.remove(grading.NO_SANDBOX)
    counted, notes = grading.counted(graded)
    chapter = chosen["chapter"]
    kept = [r for r in counted if chapter is None or r.chapter == chapter]
    tests: list[dict[str, Any]] = []
    for result in kept:
        for exercise in result.exercises.values():
            weight = float(weights.get(exercise.id, 1.0))
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
    if not sandboxed:
        lines.append(f"graded without bubblewrap ({problem}), each runner as a user")
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
    shown += [
        f"{result.path.name}: {line}"
        for result, line in earlier_chapters(counted, chapter)
    ]
    if not submitted:
        shown.append("no notebook (.ipynb) in the submission")
    elif chapter is not None and not kept:
        shown.append(f"no notebook of chapter {chapter} in the submission")
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
    protect(root)
    try:
        data = results(root)
    except Exception as error:  # noqa: BLE001  (Gradescope must get a result)
        data = {
            "score": 0,
            "output": f"the autograder failed ({type(error).__name__}); "
            "ask your teacher",
            "tests": [],
        }
    out = root / "results"
    partial = out / "results.json.partial"
    partial.write_text(json.dumps(data, indent=1), encoding="utf-8")
    partial.replace(out / "results.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
