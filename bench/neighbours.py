"""``python -m bench.neighbours``: what one hostile student costs an honest one.

Two students are graded at once (``jobs=2``): one hands in the solutions of
every chapter, the other a chapter 1 notebook whose answer cell forks as many
processes as it can, each in a session of its own (a scheduling group of its
own, where the kernel groups by session), holding ``--hold`` MB and
spinning, and then spins itself for ``--spin`` seconds. It prints the most
processes and the most memory (resident, MB) that the grader's descendants
held at once while the hostile runner ran, and the honest student's grading
time with the neighbour against alone (the slowdown).

Without a writable control group (as in most containers) only limits set per
process and per user hold; ``--no-cgroup`` makes the grader behave as it does
there, on a machine where control groups could be written.

    python -m bench.neighbours            # this checkout
    python -m bench.neighbours --no-cgroup
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from course import grading, sandbox
from tests.grading import fixtures

CHAPTER = fixtures.CHAPTER1

BOMB = """
import os, time
for _ in range({forks}):
    try:
        if os.fork() == 0:
            os.setsid()  # a session (a scheduling group) of its own
            try:
                hold = b"x" * ({hold} * 2**20)
            except MemoryError:
                hold = b""
            end = time.monotonic() + 120
            while time.monotonic() < end:
                pass
            os._exit(0)
    except OSError:
        pass
end = time.monotonic() + {spin}
while time.monotonic() < end:
    pass
def contiguous_strides(shape):
    return ()
"""


def descendants(root: int) -> list[int]:
    """Every process whose ancestry leads to ``root``."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError):
                stat = Path(f"/proc/{name}/stat").read_text()
                parents[int(name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        children = [p for p, q in parents.items() if q == pid]
        found += children
        todo += children
    return found


def resident_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    return total * os.sysconf("SC_PAGE_SIZE") / 2**20


@contextlib.contextmanager
def watched() -> Iterator[dict[str, float]]:
    """The most processes and resident MB of this process's descendants."""
    peak = {"processes": 0.0, "memory_mb": 0.0}
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            pids = descendants(os.getpid())
            peak["processes"] = max(peak["processes"], len(pids))
            peak["memory_mb"] = max(peak["memory_mb"], resident_mb(pids))
            time.sleep(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        done.set()
        thread.join()


def write(folder: Path, name: str, notebook: Any, chapter: str) -> tuple[Path, str]:
    path = folder / name / f"{chapter}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path, name


def honest(folder: Path) -> list[tuple[Path, str]]:
    """The honest student: the solutions of every chapter."""
    return [
        write(folder, "honest", fixtures.notebook("solutions", p.stem), p.stem)
        for p in sorted((fixtures.ROOT / "solutions").glob("*.ipynb"))
    ]


def honest_seconds(results: list[grading.Result]) -> float:
    return sum(r.seconds for r in results if r.student == "honest")


def honest_points(results: list[grading.Result]) -> float:
    return sum(r.points for r in results if r.student == "honest")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forks", type=int, default=300)
    parser.add_argument("--hold", type=int, default=10, help="MB per process")
    parser.add_argument("--spin", type=float, default=30.0, help="seconds of it")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--no-cgroup", action="store_true")
    args = parser.parse_args(argv)
    if args.no_cgroup and hasattr(sandbox, "process_cap"):

        @contextlib.contextmanager
        def no_cap(limit: int) -> Iterator[None]:
            yield None

        sandbox.process_cap = no_cap  # type: ignore[attr-defined]
    bomb = BOMB.format(forks=args.forks, hold=args.hold, spin=args.spin)
    hostile = fixtures.with_answers(
        fixtures.notebook("exercises", CHAPTER), exercise_1_5=bomb
    )
    sandboxed = sandbox.problem() is None
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        alone = grading.grade(honest(folder / "a"), args.timeout, 1, sandboxed)
        both = honest(folder / "b")
        both.append(write(folder / "b", "hostile", hostile, CHAPTER))
        with watched() as peak:
            together = grading.grade(both, args.timeout, 2, sandboxed)
    hostile_result = next(r for r in together if r.student == "hostile")
    print(f"code: {Path(grading.__file__).parent}, sandboxed: {sandboxed}")
    print(f"limits: {sandbox.Limits()}")
    print(f"most processes at once: {peak['processes']:.0f}")
    print(f"most memory held at once: {peak['memory_mb']:.0f} MB")
    print(
        f"honest student: {honest_seconds(alone):.1f} s alone, "
        f"{honest_seconds(together):.1f} s beside the hostile one "
        f"({honest_seconds(together) / honest_seconds(alone):.1f}x); points "
        f"{honest_points(alone):.2f} and {honest_points(together):.2f}"
    )
    print(f"hostile student: {hostile_result.points:.2f} points")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
