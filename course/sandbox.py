"""The operating-system sandbox the runner runs in: bubblewrap.

:func:`command` wraps the runner's command line in ``bwrap`` with no
network and its own process, IPC, UTS and user namespaces
(``--unshare-all``), an unprivileged user inside (``--uid 65534``), a
read-only view of only the Python installation and the runner's tree, a
fresh in-memory ``/tmp`` as working folder and home, and
``--die-with-parent``: when the runner's first process ends, the process
namespace ends and everything it started (forked, detached) with it. With
``--as-pid-1`` the runner's first process is the namespace's process 1
itself, not a reaper that bubblewrap would put there: no process of the
sandbox but the runner holds the judge's pipe, and process 1 cannot be
killed from inside the namespace.

Limits on CPU time, memory, file size and processes are set by the runner
itself (``resource.setrlimit``, see :mod:`course.runner`); the number of
processes is also capped by a ``pids`` control group when the grader runs as
root (where ``RLIMIT_NPROC`` does not count). Output is capped by the judge,
which reads it.

:func:`problem` says why the sandbox cannot start here (not Linux, no
``bwrap``, no user namespaces), or None.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

NOBODY = 65534
TMP_BYTES = 64 * 2**20
CGROUP_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))


@dataclass(frozen=True)
class Limits:
    """What one runner may use."""

    seconds: float = 60.0  # wall-clock time per exercise (CPU: a little more)
    memory: int = 1024 * 2**20  # address space per process, bytes
    file_size: int = 16 * 2**20  # largest file it may write, bytes
    processes: int = 32  # processes and threads at once
    output: int = 8 * 2**20  # bytes of records the judge reads per runner


def python_roots() -> list[Path]:
    """The folders that hold the Python interpreter and its standard library."""
    executable = Path(os.path.realpath(sys.executable))
    roots = {Path(sys.base_prefix).resolve(), executable.parent.parent}
    return sorted(r for r in roots if r != Path("/"))


def interpreter() -> str:
    return os.path.realpath(sys.executable)


def command(tree: Path, argv: list[str]) -> list[str]:
    """``argv`` (run inside ``tree``) wrapped in ``bwrap``."""
    wrapped = ["bwrap", "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib64", "sbin"):
        path = Path("/") / name
        if path.is_symlink():
            wrapped += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            wrapped += ["--ro-bind", str(path), str(path)]
    for root in python_roots():
        if not str(root).startswith("/usr/"):
            wrapped += ["--ro-bind", str(root), str(root)]
    wrapped += ["--ro-bind", str(tree), "/runner"]
    wrapped += ["--dev", "/dev", "--proc", "/proc"]
    wrapped += ["--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    wrapped += ["--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
    wrapped += ["--setenv", "PATH", "/usr/bin:/bin", "--chdir", "/tmp"]
    wrapped += ["--unsetenv", "PYTHONPATH"]
    wrapped += ["--unshare-all", "--die-with-parent", "--new-session", "--as-pid-1"]
    wrapped += ["--uid", str(NOBODY), "--gid", str(NOBODY), "--cap-drop", "ALL"]
    return [*wrapped, "--", *argv]


@functools.cache
def problem() -> str | None:
    """Why the sandbox cannot start on this machine, or None if it can."""
    if not sys.platform.startswith("linux"):
        return f"bubblewrap needs Linux (this is {sys.platform})"
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    try:
        trial = subprocess.run(
            command(Path("/usr"), [interpreter(), "-I", "-S", "-c", "print('ok')"]),
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap does not start: {error}"
    if trial.stdout.strip() != "ok":
        reason = (trial.stderr.strip().splitlines() or ["no output"])[-1]
        return f"bubblewrap does not start (no user namespaces?): {reason}"
    return None


# --- the number of processes, when RLIMIT_NPROC does not count (root) --------------


@contextlib.contextmanager
def process_cap(limit: int) -> Iterator[Callable[[], None] | None]:
    """A function that puts the calling process (and what it starts) in a
    fresh ``pids`` control group of at most ``limit`` processes, or None
    where control groups cannot be written (then RLIMIT_NPROC counts)."""
    if os.geteuid() != 0:
        yield None
        return
    group = None
    for root in CGROUP_ROOTS:
        if (root / "cgroup.procs").exists() and (
            root.name == "pids" or "pids" in _read(root / "cgroup.controllers")
        ):
            group = root / f"course-runner-{secrets.token_hex(6)}"
            break
    if group is None:
        yield None
        return
    try:
        group.mkdir()
        (group / "pids.max").write_text(str(limit))
    except OSError:
        yield None
        return
    procs = str(group / "cgroup.procs")

    def join() -> None:
        with open(procs, "w") as file:
            file.write(str(os.getpid()))

    try:
        yield join
    finally:
        for _ in range(50):
            try:
                group.rmdir()
                break
            except OSError:
                _kill_group(group)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _kill_group(group: Path) -> None:
    for line in _read(group / "cgroup.procs").split():
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(line), signal.SIGKILL)
    time.sleep(0.02)
