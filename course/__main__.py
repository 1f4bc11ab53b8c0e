"""The course's command line: ``python -m course generate|grade``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from course import grading, notebooks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser(
        "generate", help="write exercises/ and solutions/ from course/sources/"
    )
    generate.add_argument(
        "--check", action="store_true", help="write nothing; fail if a notebook is out of date"
    )
    grade = commands.add_parser("grade", help="grade notebooks, or folders of submissions")
    grade.add_argument("paths", nargs="+", type=Path, help="notebooks or folders")
    grade.add_argument(
        "--csv", type=Path, help="where to write a folder's grades (default: FOLDER/grades.csv)"
    )
    args = parser.parse_args(argv)
    if args.command == "generate":
        return run_generate(args.check)
    return run_grade(args.paths, args.csv)


def run_generate(check: bool) -> int:
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


def run_grade(paths: list[Path], csv_path: Path | None) -> int:
    missing = [path for path in paths if not path.exists()]
    if missing:
        print(f"no such file or folder: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    files = [path for path in paths if path.is_file()]
    folders = [path for path in paths if path.is_dir()]
    submissions = {folder: grading.notebooks_in(folder) for folder in folders}
    everything = files + [path for found in submissions.values() for path in found]
    if not everything:
        print("no notebooks to grade", file=sys.stderr)
        return 2
    results = dict(zip(everything, grading.grade(everything)))
    for path in files:
        print(grading.table(results[path]))
    for folder, found in submissions.items():
        for path in found:
            print(grading.table(results[path]))
        target = csv_path or folder / "grades.csv"
        print(grading.class_report(folder, [results[path] for path in found], target))
    return 0 if all(result.ok for result in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
