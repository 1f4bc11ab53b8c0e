"""The course's command line.

``python -m course generate|grade|release|lab-settings``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from course import grading


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser(
        "generate", help="write exercises/ and solutions/ from course/sources/"
    )
    generate.add_argument(
        "--check",
        action="store_true",
        help="write nothing; fail if a notebook is out of date",
    )
    grade = commands.add_parser(
        "grade",
        help="grade notebooks, or folders (SUBMISSIONS/<student>/NN_name.ipynb)",
    )
    grade.add_argument("paths", nargs="+", type=Path, help="notebooks or folders")
    grade.add_argument(
        "--csv",
        type=Path,
        help="where to write the grades (default: FOLDER/grades.csv)",
    )
    grade.add_argument(
        "--feedback", type=Path, help="write one Markdown report per student here"
    )
    grade.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds each notebook may run (default 60)",
    )
    grade.add_argument(
        "--jobs", type=int, default=1, help="notebooks graded at once (default 1)"
    )
    release = commands.add_parser(
        "release",
        help="write a class edition: the engine's exercise pieces are stubs "
        "that the students write; no solutions, no grading-only cases",
    )
    release.add_argument("out", type=Path, help="an empty or new folder")
    release.add_argument(
        "--give",
        default="",
        metavar="IDS",
        help="pieces shipped solved: exercise ids or chapters (1.5,2.9 or ch1,ch2)",
    )
    commands.add_parser(
        "lab-settings",
        help="make JupyterLab open the chapters (book/*.md) as notebooks",
    )
    args = parser.parse_args(argv)
    if args.command == "lab-settings":
        from course.lab import write_settings

        print(f"wrote {write_settings()}")
        return 0
    if args.command == "generate":
        return run_generate(args.check)
    if args.command == "release":
        return run_release(args.out, args.give)
    return run_grade(args.paths, args.csv, args.feedback, args.timeout, args.jobs)


def run_generate(check: bool) -> int:
    from course import notebooks

    changed = notebooks.generate(check=check)
    for path in changed:
        verb = "out of date" if check else "wrote"
        print(f"{verb}: {path.relative_to(notebooks.ROOT)}")
    if check and changed:
        print("run `python -m course generate` and commit the notebooks")
        return 1
    if not changed:
        print("all notebooks up to date")
    return 0


def run_release(out: Path, give: str) -> int:
    from course import edition

    try:
        given = edition.parse_give(give)
        written = edition.release(out, given)
    except (FileExistsError, ValueError) as error:
        print(error, file=sys.stderr)
        return 2
    print(
        f"wrote a class edition to {out}: {len(written)} files, "
        f"{len(edition.pieces()) - len(given)} pieces to write, {len(given)} given"
    )
    for holder in edition.shared_answer_holders(given):
        print(f"note: kept, as other code uses it, though it holds an answer: {holder}")
    return 0


def run_grade(
    paths: list[Path],
    csv_path: Path | None,
    feedback: Path | None,
    timeout: float,
    jobs: int,
) -> int:
    missing = [path for path in paths if not path.exists()]
    if missing:
        print(
            f"no such file or folder: {', '.join(map(str, missing))}", file=sys.stderr
        )
        return 2
    submissions: list[tuple[Path, str]] = []
    for path in paths:
        if path.is_dir():
            submissions += [
                (p, grading.student_of(p, path)) for p in grading.notebooks_in(path)
            ]
        else:
            submissions.append((path, grading.student_of(path, None)))
    if not submissions:
        print("no notebooks to grade", file=sys.stderr)
        return 2
    start = time.monotonic()
    results = grading.grade(submissions, timeout=timeout, jobs=jobs)
    for result in results:
        print(grading.table(result))
    folders = [path for path in paths if path.is_dir()]
    target = csv_path or (folders[0] / "grades.csv" if folders else None)
    if target is not None:
        grading.write_csv(results, target)
        print(f"wrote {target}")
    if feedback is not None:
        written = grading.write_feedback(results, feedback)
        print(f"wrote {len(written)} feedback reports to {feedback}")
    print(f"graded {len(results)} notebooks in {time.monotonic() - start:.1f} s")
    return 0 if all(result.ok for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
