"""Limits that hold without a control group: a grader run as root runs each
runner as a host user of its own, so the kernel bounds each student's
processes (RLIMIT_NPROC does not count root's), and nothing a runner
started outlives it."""

from __future__ import annotations

import contextlib
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


def lent_processes() -> int:
    """How many processes the lent users hold now."""
    count = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            count += Path(f"/proc/{pid}").stat().st_uid in sandbox.RUNNER_UIDS
    return count


def test_a_fork_bomb_is_bounded_per_student_and_outlives_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "forks" / f"{fixtures.CHAPTER1}.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(attacks.attack_cell(FORKS)()), encoding="utf-8")
    peak = [0]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], lent_processes())
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
    assert 2 < peak[0] <= sandbox.Limits().processes
    assert lent_processes() == 0  # nothing it started outlives the runner


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
