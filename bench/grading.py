"""``python -m bench.grading``: how fast the sandboxed grader grades a class.

It writes a synthetic class of ``--students`` students (200 by default),
each with the four chapter notebooks. A quarter of the students hand in the
solutions; a quarter are partway (chapters 1 and 2 solved, chapter 3 with
every other piece left as the stub, chapter 4 blank); a quarter hand in blank
notebooks; and a quarter are hostile (the solutions, but one chapter with an
attack from ``tests/grading/attacks.py`` in two answer cells: forged records,
killing the runner, an endless fork, a memory or output flood...). A student's
cases run on their own answers to the earlier chapters' pieces (the class
engine is all stubs), so each student's notebooks are alike. It grades the
class with ``python -m course grade`` as a teacher would, and prints the
notebooks per minute, the CPU time per notebook and whether 800 notebooks
would take at most 20 minutes (the target, on 2 cores). Each run of the
grader draws the inputs of the drawn cases anew and computes their expected
outcomes on the complete engine (once per run, outside the sandbox); the
time that takes is measured apart too, and is part of the total.

    python -m bench.grading --students 200 --jobs 2
    python -m bench.grading --students 5      # a quick run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.grading import attacks
from tests.grading.fixtures import cell_with, notebook, with_answers

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = (
    "01_arrays_to_tensors",
    "02_walking_backwards",
    "03_building_blocks",
    "04_optimisation",
)
KINDS = ("full", "partial", "blank", "hostile")
HOSTILE = [
    attacks.FORGED,
    attacks.KILL,
    attacks.PATCH_STDLIB,
    attacks.INTERNALS,
    attacks.THREADS,
    attacks.FILES,
    attacks.PROCESSES,
    attacks.OUTPUT,
    attacks.MEMORY,
    attacks.NETWORK,
    attacks.FORK_BOMB,
    "while True:\n    pass\n",
]
TARGET_NOTEBOOKS = 800
TARGET_MINUTES = 20


def piece_tags(chapter: str) -> list[str]:
    """The tags of the answer cells of the chapter's pieces, in order."""
    from course.checking import load

    solved = notebook("solutions", chapter)
    tags = []
    for cell in solved["cells"]:
        for tag in cell.get("metadata", {}).get("tags", []):
            if tag.startswith("exercise-") and load(tag[9:]).kind == "piece":
                tags.append(tag)
    return tags


def partial(chapter: str) -> dict[str, Any]:
    """Partway through the course: chapters 1 and 2 solved, chapter 3 with
    every other piece back to its stub, chapter 4 blank."""
    solved, blank = notebook("solutions", chapter), notebook("exercises", chapter)
    if chapter in CHAPTERS[:2]:
        return solved
    if chapter != CHAPTERS[2]:
        return blank
    for tag in piece_tags(chapter)[1::2]:
        cell_with(solved, tag)["source"] = cell_with(blank, tag)["source"]
    return solved


def hostile(chapter: str, number: int) -> dict[str, Any]:
    """The solutions; in one chapter out of four, the blank notebook with an
    attack in front of its first two pieces' stubs."""
    if CHAPTERS[number % len(CHAPTERS)] != chapter:
        return notebook("solutions", chapter)
    blank = notebook("exercises", chapter)
    attack = HOSTILE[number % len(HOSTILE)]
    sources = {}
    for tag in piece_tags(chapter)[:2]:
        stub = "".join(cell_with(blank, tag)["source"])
        role, exercise = tag.split("-")
        sources[f"{role}_{exercise.replace('.', '_')}"] = attack + "\n" + stub
    return with_answers(blank, **sources)


def write_class(folder: Path, students: int) -> int:
    """Writes the class; returns the number of notebooks."""
    builders: dict[str, Callable[[str, int], dict[str, Any]]] = {
        "full": lambda chapter, _: notebook("solutions", chapter),
        "partial": lambda chapter, _: partial(chapter),
        "blank": lambda chapter, _: notebook("exercises", chapter),
        "hostile": hostile,
    }
    cache: dict[tuple[str, str], str] = {}
    count = 0
    for student in range(students):
        kind = KINDS[student % len(KINDS)]
        for chapter in CHAPTERS:
            key = (kind, chapter if kind != "hostile" else f"{chapter}{student}")
            if key not in cache:
                cache[key] = json.dumps(builders[kind](chapter, student // 4))
            path = folder / f"student{student:03d}" / f"{chapter}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(cache[key], encoding="utf-8")
            count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.grading")
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per exercise"
    )
    args = parser.parse_args(argv)
    drawing = draw_seconds()
    print(
        f"the judge draws this run's cases and computes their answers in "
        f"{drawing:.1f} s (once per run)"
    )
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as temporary:
        folder = Path(temporary) / "class"
        count = write_class(folder, args.students)
        start = time.monotonic()
        cpu = CpuMeter()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "course",
                "grade",
                str(folder),
                "--jobs",
                str(args.jobs),
                "--timeout",
                str(args.timeout),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            preexec_fn=cpu.join,  # noqa: PLW1509  (only writes a pid to a file)
        )
        seconds = time.monotonic() - start
        cpu_seconds = cpu.seconds()
        rows = (folder / "grades.csv").read_text(encoding="utf-8").count("\n")
    if done.returncode not in (0, 1) or rows != args.students + 2:
        print(done.stdout[-2000:] + done.stderr[-2000:])
        print(f"the grader failed (exit {done.returncode}, {rows} CSV lines)")
        return 1
    per_minute = count / seconds * 60
    needed = TARGET_NOTEBOOKS / per_minute
    print(
        f"{count} notebooks ({args.students} students x 4; students full, "
        f"partway, blank, hostile) graded in {seconds:.0f} s with --jobs "
        f"{args.jobs} --timeout {args.timeout:g}"
    )
    print(
        f"{per_minute:.1f} notebooks per minute: {TARGET_NOTEBOOKS} notebooks in "
        f"{needed:.1f} minutes (target: at most {TARGET_MINUTES})"
    )
    if cpu_seconds is not None:
        idle = TARGET_NOTEBOOKS * cpu_seconds / count / 2 / 60
        print(
            f"CPU time used: {cpu_seconds:.0f} s ({cpu_seconds / count:.2f} s per "
            f"notebook): on 2 otherwise idle cores, {TARGET_NOTEBOOKS} notebooks "
            f"in about {idle:.1f} minutes; load average now "
            f"{os.getloadavg()[0]:.1f}"
        )
    return 0 if needed <= TARGET_MINUTES else 1


def draw_seconds() -> float:
    """How long the judge takes to draw a run's cases and compute their
    expected outcomes (:meth:`course.answer_key.Answers.draw`)."""
    from course.answer_key import Answers

    answers = Answers.load()
    start = time.monotonic()
    answers.draw()
    return time.monotonic() - start


class CpuMeter:
    """The CPU time of the grader and everything it starts, from a cpuacct
    control group (where one can be made: root, control groups v1)."""

    ROOT = Path("/sys/fs/cgroup/cpuacct")

    def __init__(self) -> None:
        self.group: Path | None = self.ROOT / f"bench-grading-{os.getpid()}"
        try:
            self.group.mkdir()
        except OSError:
            self.group = None

    def join(self) -> None:
        if self.group is not None:
            (self.group / "cgroup.procs").write_text(str(os.getpid()))

    def seconds(self) -> float | None:
        if self.group is None:
            return None
        used = int((self.group / "cpuacct.usage").read_text()) / 1e9
        try:
            self.group.rmdir()
        except OSError:
            pass
        return used


if __name__ == "__main__":
    sys.exit(main())
