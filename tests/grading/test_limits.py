"""Limits that hold without a control group: a grader run as root runs each
runner as a host user of its own, so the kernel bounds each student's
processes (RLIMIT_NPROC does not count root's), and nothing a runner
started outlives it."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from course import grading, sandbox
from tests.grading import attacks, fixtures

pytestmark = pytest.mark.skipif(
    sandbox.problem() is not None or os.geteuid() != 0,
    reason="needs bubblewrap and a grader run as root",
)

FORKS = """
import os, time
children = 0
for _ in range(200):
    try:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
    except OSError:
        break
"""


def lent_processes() -> dict[int, int]:
    """Each lent user's running processes (zombies are dead), by user id."""
    count: dict[int, int] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{pid}/status").read_text()
            fields = dict(line.split(":", 1) for line in status.splitlines())
            uid = int(fields["Uid"].split()[0])
            if uid in sandbox.RUNNER_UIDS and fields["State"].split()[0] != "Z":
                count[uid] = count.get(uid, 0) + 1
    return count


def outlived(uid: int) -> list[int]:
    """The running processes of ``uid`` that outlived its runner; none when
    another grader (a test beside this one) has leased ``uid`` since, for
    those are its own."""
    if sandbox.lease(uid):
        sandbox.release(uid)
        return []
    fd = os.open(sandbox.LEASES / f"uid-{uid}.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return []  # leased by another grader now
    finally:
        os.close(fd)
    return sandbox.processes_of(uid, zombies=False)


def test_a_fork_bomb_is_bounded_per_student_and_outlives_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "forks" / f"{fixtures.CHAPTER1}.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(attacks.attack_cell(FORKS)()), encoding="utf-8")
    peak: dict[int, int] = {}
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            for uid, count in lent_processes().items():
                peak[uid] = max(peak.get(uid, 0), count)
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        result = grading.grade([(path, "forks")], timeout=10)[0]
    finally:
        done.set()
        watcher.join()
    assert result.exercises["1.5"].points == 0
    # It forked (more than the runner and its child), as a lent user, and no
    # more than the limit: without a control group, root's would not count.
    # (Per lent user: graders beside this one have users of their own.)
    forks = max(peak, key=lambda uid: peak[uid])
    assert 2 < peak[forks] <= sandbox.Limits().processes
    assert not outlived(forks)  # nothing it started outlives the runner


def test_kill_user_reaches_processes_that_left_their_session() -> None:
    with sandbox.runner_user() as user:
        assert user is not None

        started = subprocess.Popen(
            ["/bin/sh", "-c", "sleep 60 & sleep 60 & wait"],
            start_new_session=True,
            **sandbox.as_user(user),
        )
        assert sandbox.kill_user(user) >= 1
        assert started.wait(timeout=10) != 0


def test_the_runner_starts_with_only_the_capabilities_to_become_its_user() -> None:
    with sandbox.runner_user() as user:
        status = "print(open('/proc/self/status').read())"
        before = [sandbox.interpreter(), "-I", "-S", "-c", status]
        after = [*before[:3], "-c", f"{sandbox.BECOME}; {status}", str(user)]
        seen = [
            subprocess.run(
                sandbox.command(Path("/usr"), argv, user),
                capture_output=True,
                text=True,
                timeout=60,
            ).stdout
            for argv in (before, after)
        ]
    setuid_setgid = 1 << 6 | 1 << 7
    assert f"CapEff:\t{setuid_setgid:016x}" in seen[0]
    assert "NoNewPrivs:\t1" in seen[0]
    assert "CapEff:\t0000000000000000" in seen[1]
    assert "CapPrm:\t0000000000000000" in seen[1]
    assert f"Uid:\t{user}\t{user}\t{user}" in seen[1]


HOLD = """
import sys, time
from course import sandbox
print(sandbox.lease(int(sys.argv[1])), flush=True)
time.sleep(60)
"""


def test_a_user_id_leased_by_another_grader_is_neither_taken_nor_killed() -> None:
    with sandbox.runner_user() as mine:
        assert mine is not None
        other = mine + 1
        holder = subprocess.Popen(
            [sandbox.interpreter(), "-c", HOLD, str(other)],
            stdout=subprocess.PIPE,
            text=True,
            env={"PYTHONPATH": str(fixtures.ROOT)},
        )
        try:
            assert holder.stdout is not None
            assert holder.stdout.readline().strip() == "True"
            assert not sandbox.lease(other)  # another process holds it
            with sandbox.runner_user() as next_one:
                assert next_one not in (mine, other)
            with pytest.raises(RuntimeError, match="not leased"):
                sandbox.kill_user(other)
            assert holder.poll() is None  # still alive
        finally:
            holder.kill()
            holder.wait()


def test_a_user_id_with_a_process_left_is_not_leased() -> None:
    with sandbox.runner_user() as mine:
        assert mine is not None
        free = next(u for u in sandbox.RUNNER_UIDS[1:] if not sandbox.holds(u))
        left = subprocess.Popen(["/bin/sleep", "60"], **sandbox.as_user(free))
        try:
            assert sandbox.processes_of(free) == [left.pid]
            assert not sandbox.lease(free)
            assert not sandbox.holds(free)
        finally:
            left.kill()
            left.wait()


GRADE_TWICE = """
import sys
from pathlib import Path
from course import grading
results = grading.grade([(Path(sys.argv[1]), "model")], timeout=60)
for graded in results[0].exercises.values():
    print(graded.id, graded.points, graded.status, graded.message[:80])
"""


@pytest.mark.pipeline
def test_two_graders_at_once_stop_none_of_each_others_runners(tmp_path: Path) -> None:
    path = tmp_path / f"{fixtures.CHAPTER1}.ipynb"
    path.write_text(
        json.dumps(fixtures.notebook("solutions", fixtures.CHAPTER1)), encoding="utf-8"
    )
    graders = [
        subprocess.Popen(
            [sandbox.interpreter(), "-c", GRADE_TWICE, str(path)],
            stdout=subprocess.PIPE,
            text=True,
            env={"PYTHONPATH": str(fixtures.ROOT), "PATH": os.environ["PATH"]},
        )
        for _ in range(2)
    ]
    outputs = [grader.communicate(timeout=1200)[0] for grader in graders]
    for output in outputs:
        lines = output.splitlines()
        assert len(lines) == 7, output
        assert "stopped" not in output, output
        assert all(line.split()[1] == "1.0" for line in lines), output
