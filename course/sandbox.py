"""The operating-system sandbox the runner runs in: bubblewrap.

:func:`command` wraps the runner's command line in ``bwrap`` with no
network and its own process, IPC, UTS and user namespaces
(``--unshare-all``), an unprivileged user inside (``--uid 65534``), a
read-only view of an allow-list (the interpreter, the libraries it loads,
its standard library and ``lib-dynload``, no installed package: see
:func:`python_view`) and of the runner's tree, a
fresh in-memory ``/tmp`` as working folder and home, and
``--die-with-parent``: when the runner's first process ends, the process
namespace ends and everything it started (forked, detached) with it. With
``--as-pid-1`` the runner's first process is the namespace's process 1
itself, not a reaper that bubblewrap would put there: no process of the
sandbox but the runner holds the judge's pipe, and process 1 cannot be
killed from inside the namespace.

Limits on CPU time, memory (address space), file size and processes are set
by the runner itself (``resource.setrlimit``, see :mod:`course.runner`), per
process. They need no control group, so they hold in a container: a grader
run as root lends each runner a host user id of its own (:func:`runner_user`)
and the runner becomes that user before any answer runs, so that the kernel
counts ``RLIMIT_NPROC`` per runner (it does not count root's processes);
everything that user started is killed when the runner is done. The user
ids are leased machine-wide (a lock file per id, held for the runner's
life), so that any number of graders can run on one machine. A student
then holds at most ``processes`` processes of at most ``memory`` bytes each.
An unprivileged grader's runners are counted in their own user namespace.
Output is capped by the judge, which reads it.

:func:`problem` says why the sandbox cannot start here (not Linux, no
``bwrap``, no user namespaces), or None.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import pwd
import shutil
import signal
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

NOBODY = 65534
TMP_BYTES = 64 * 2**20
RUNNER_UIDS = range(60_000, 60_512)  # host users lent to runners (none named)


@dataclass(frozen=True)
class Limits:
    """What one runner may use."""

    seconds: float = 60.0  # wall-clock time per exercise (CPU: a little more)
    memory: int = 1024 * 2**20  # address space per process, bytes
    file_size: int = 16 * 2**20  # largest file it may write, bytes
    processes: int = 4  # processes and threads at once (each: `memory`)
    output: int = 8 * 2**20  # bytes of records the judge reads per runner


def interpreter() -> str:
    return os.path.realpath(sys.executable)


def standard_library() -> list[Path]:
    """The interpreter's standard library and ``lib-dynload`` (its extension
    modules), and its zipped library where there is one."""
    stdlib = Path(os.path.realpath(os.__file__)).parent
    found = [stdlib]
    dynload = sysconfig.get_config_var("DESTSHARED")
    for entry in [dynload or "", *sys.path]:
        path = Path(os.path.realpath(entry)) if entry else None
        if path and path.name == "lib-dynload" and path.is_dir():
            found.append(path)
    zipped = f"python{sys.version_info[0]}{sys.version_info[1]}.zip"
    found.append(stdlib.parent / zipped)
    return sorted({p for p in found if p.exists()})


def installed_packages() -> list[Path]:
    """The folders of installed packages inside the standard library's
    folders (``site-packages``, ``dist-packages``): hidden in the sandbox."""
    found = set()
    for folder in standard_library():
        if folder.is_dir():
            for name in ("site-packages", "dist-packages"):
                if (folder / name).is_dir():
                    found.add(folder / name)
    return sorted(found)


@functools.cache
def shared_libraries() -> list[tuple[str, str]]:
    """The shared libraries that the interpreter and its extension modules
    load, as ``(file, path the loader opens)`` pairs (found with ``ldd``),
    and the C library's ``libgcc_s`` (which it loads when a thread ends)."""
    programs = [interpreter()]
    for folder in standard_library():
        if folder.name == "lib-dynload":
            programs += sorted(str(p) for p in folder.glob("*.so"))
    shares = [programs[i::LDD_PROCESSES] for i in range(LDD_PROCESSES)]
    with ThreadPoolExecutor(max_workers=LDD_PROCESSES) as pool:
        listed = "\n".join(pool.map(_ldd, shares))
    paths = set()
    for line in listed.splitlines():
        words = line.split("=>")[-1].split()
        if line.startswith("\t") and words and words[0].startswith("/"):
            paths.add(words[0])
    for path in list(paths):
        if Path(path).name.startswith("libc.so"):
            paths.add(str(Path(path).parent / "libgcc_s.so.1"))
    found = []
    for path in sorted(paths):
        if os.path.isfile(path):
            where = os.path.realpath(os.path.dirname(path))
            found.append((os.path.realpath(path), f"{where}/{Path(path).name}"))
    return found


LDD_PROCESSES = 4  # ldd starts the loader once per file: a share each


def _ldd(programs: list[str]) -> str:
    """What ``ldd`` lists for ``programs`` (one share of
    :func:`shared_libraries`' files)."""
    if not programs:
        return ""
    try:
        return subprocess.run(
            ["ldd", *programs], capture_output=True, text=True, timeout=60
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


@functools.cache
def python_view() -> tuple[str, ...]:
    """The ``bwrap`` arguments that show the interpreter and nothing else of
    the installation: the interpreter, the shared libraries it loads, its
    standard library and ``lib-dynload``, with every folder of installed
    packages among them empty. An allow-list: what is not here (NumPy,
    PyTorch, any other package, the course's own files) cannot be imported
    by any name, nor read. Worked out once per grader (every runner of a
    class starts with the same view)."""
    binds = [(interpreter(), interpreter()), *shared_libraries()]
    binds += [(str(p), str(p)) for p in standard_library()]
    if not shared_libraries():  # no ldd: the system's library folders
        arch = sysconfig.get_config_var("MULTIARCH") or ""
        for folder in (f"/usr/lib/{arch}", "/usr/lib64"):
            if arch and os.path.isdir(folder):
                binds.append((os.path.realpath(folder), os.path.realpath(folder)))
    view = []
    for name in ("bin", "lib", "lib64", "sbin"):  # the top-level links only
        path = Path("/") / name
        if path.is_symlink():
            view += ["--symlink", os.readlink(path), str(path)]
    bound = [Path(dest) for _, dest in binds]
    inside = tuple(f"{b}/" for b in bound)  # under a folder bound (or it)
    parents = {
        parent
        for dest in bound
        for parent in dest.parents
        if parent != Path("/") and not f"{parent}/".startswith(inside)
    }
    for parent in sorted(parents, key=lambda p: (len(p.parts), str(p))):
        view += ["--perms", "0755", "--dir", str(parent)]  # bwrap would make 0700
    for source, dest in sorted(binds, key=lambda bind: len(Path(bind[1]).parts)):
        view += ["--ro-bind", source, dest]
    for hidden in installed_packages():
        view += ["--perms", "0555", "--tmpfs", str(hidden), "--remount-ro", str(hidden)]
    return tuple(view)


def command(tree: Path, argv: list[str], user: int | None = None) -> list[str]:
    """``argv`` (run inside ``tree``) wrapped in ``bwrap``.

    The sandbox's files are the interpreter's (:func:`python_view`), ``tree``
    (read-only, at ``/runner``) and an empty ``/tmp``: nothing else of the
    machine. With ``user`` (a grader run as root), no user namespace: the
    runner starts as root with only the capabilities to change users, and
    becomes ``user`` before anything else (see :mod:`course.runner`), so that
    the host counts its processes (``RLIMIT_NPROC``) apart from everyone's.
    Without, an unprivileged grader's user namespace maps it to ``nobody``.
    """
    wrapped = ["bwrap", *python_view()]
    wrapped += ["--ro-bind", str(tree), "/runner"]
    wrapped += ["--dev", "/dev", "--proc", "/proc"]
    wrapped += ["--size", str(TMP_BYTES), "--perms", "1777", "--tmpfs", "/tmp"]
    wrapped += ["--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp"]
    wrapped += ["--setenv", "PATH", "/usr/bin:/bin", "--chdir", "/tmp"]
    wrapped += ["--unsetenv", "PYTHONPATH"]
    wrapped += ["--die-with-parent", "--new-session", "--as-pid-1"]
    if user is None:
        wrapped += ["--unshare-all", "--uid", str(NOBODY), "--gid", str(NOBODY)]
        wrapped += ["--cap-drop", "ALL"]
    else:
        wrapped += ["--unshare-ipc", "--unshare-pid", "--unshare-net"]
        wrapped += ["--unshare-uts", "--unshare-cgroup-try"]
        wrapped += ["--cap-drop", "ALL"]  # but the two to become ``user``:
        wrapped += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return [*wrapped, "--", *argv]


BECOME = (
    "import os, sys; u = int(sys.argv[1]); os.setgroups([]); "
    "os.setresgid(u, u, u); os.setresuid(u, u, u); print('ok')"
)


@functools.cache
def problem() -> str | None:
    """Why the sandbox cannot start on this machine, or None if it can."""
    if not sys.platform.startswith("linux"):
        return f"bubblewrap needs Linux (this is {sys.platform})"
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    with runner_user() as user:
        argv = [interpreter(), "-I", "-S", "-c", "print('ok')"]
        if user is not None:
            argv = [interpreter(), "-I", "-S", "-c", BECOME, str(user)]
        try:
            trial = subprocess.run(
                command(Path("/usr"), argv, user),
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


@functools.cache
def user_problem() -> str | None:
    """Why a runner cannot run as a lent user without bubblewrap, or None."""
    with runner_user() as user:
        if user is None:
            return limits_problem(False)
        try:
            trial = subprocess.run(
                [interpreter(), "-I", "-S", "-c", "print('ok')"],
                capture_output=True,
                text=True,
                timeout=30,
                cwd="/",
                **as_user(user),
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"Python does not start as an unprivileged user: {error}"
    if trial.stdout.strip() != "ok":
        reason = (trial.stderr.strip().splitlines() or ["no output"])[-1]
        return (
            f"{interpreter()} cannot be run by an unprivileged user ({reason}): "
            "install Python where every user can read it"
        )
    return None


# --- a host user of its own for each runner -------------------------------------
#
# The lease on a user id is machine-wide: a lock file per id under LEASES,
# held (``flock``) by the grader for the runner's whole life, so that any
# number of graders on one machine lend from the same range without sharing
# an id. An id is taken only when no process of it exists, and its processes
# are killed only by the grader that holds its lease.
# A grader in a container that shares this machine's user ids (Docker's
# default) and a grader outside it must share LEASES (bind the folder into
# the container): the outside one sees the container's processes, but not
# the other way round, and it kills by user id.

LEASES = Path("/run/slowtorch-grader")
_HELD: dict[int, int] = {}  # the ids this process holds: uid -> lock file
_HELD_LOCK = threading.Lock()


def _named(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def lease_folder() -> Path:
    """LEASES, made by root for root alone (refused if anyone else owns it)."""
    LEASES.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = LEASES.lstat()
    if not LEASES.is_dir() or LEASES.is_symlink() or info.st_uid != 0:
        raise RuntimeError(f"{LEASES} is not a folder of root's")
    return LEASES


def processes_of(uid: int, zombies: bool = True) -> list[int]:
    """The processes whose real, effective, saved or file-system user is
    ``uid`` (read from ``/proc/PID/status``, which a process that made itself
    undumpable cannot hide); without ``zombies``, only those still running."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", encoding="ascii", errors="replace") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:  # it ended meanwhile
            continue
        dead = fields.get("State", "").split()[:1] in (["Z"], ["X"])
        if str(uid) in fields.get("Uid", "").split() and (zombies or not dead):
            found.append(int(name))
    return found


def lease(uid: int) -> bool:
    """Takes ``uid``'s machine-wide lease for this process if no one holds it
    and no process of it exists; whether it was taken."""
    path = lease_folder() / f"uid-{uid}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False
    if processes_of(uid):  # left by a grader that ended: not ours to kill
        os.close(fd)
        return False
    with _HELD_LOCK:
        _HELD[uid] = fd
    return True


def release(uid: int) -> None:
    """Gives ``uid``'s lease back (its processes killed first by the caller)."""
    with _HELD_LOCK:
        fd = _HELD.pop(uid)
    os.close(fd)  # closing the file drops the lock


def holds(uid: int) -> bool:
    """Whether this process holds ``uid``'s lease."""
    with _HELD_LOCK:
        return uid in _HELD


def take_user() -> int:
    """A user id of ``RUNNER_UIDS`` (none that names a user of this machine)
    whose lease this process now holds."""
    for uid in RUNNER_UIDS:
        if not holds(uid) and not _named(uid) and lease(uid):
            return uid
    raise RuntimeError("more runners at once on this machine than user ids to lend")


@contextlib.contextmanager
def runner_user() -> Iterator[int | None]:
    """A host user id of its own for one runner, or None where the grader
    cannot change users (not root: the runner then runs as the grader's user,
    and only bubblewrap's user namespace bounds its processes). When the
    runner is done, every process of that user is killed, then the lease is
    given back."""
    if os.geteuid() != 0:
        yield None
        return
    uid = take_user()
    try:
        yield uid
    finally:
        try:
            kill_user(uid)
        finally:
            release(uid)


def as_user(uid: int | None) -> dict[str, Any]:
    """The arguments of :class:`subprocess.Popen` that start a process as
    ``uid`` (its own group, no supplementary groups), or none."""
    if uid is None:
        return {}
    return {"user": uid, "group": uid, "extra_groups": []}


def kill_user(uid: int) -> int:
    """Kills every process of ``uid`` (as that user: ``kill(-1)`` reaches all
    of them at once, so none can start another meanwhile); how many rounds
    it took until none was left (``kill(-1)`` says nothing of that: it
    succeeds whenever the namespace holds other processes, so ``/proc`` is
    asked). Only the holder of ``uid``'s lease may."""
    if not holds(uid):
        raise RuntimeError(f"user {uid} is not leased by this grader: not killed")
    for rounds in range(1, 200):
        if not processes_of(uid, zombies=False):
            return rounds - 1
        pid = os.fork()
        if pid == 0:  # pragma: no cover  (the child only kills and exits)
            try:
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
                os.kill(-1, signal.SIGKILL)
            except BaseException:  # noqa: BLE001, S110
                pass
            os._exit(0)
        os.waitpid(pid, 0)
        if rounds > 1:
            time.sleep(0.005)
    raise RuntimeError(f"the processes of user {uid} outlive being killed")


def limits_problem(sandboxed: bool) -> str | None:
    """Why processes cannot be bounded per student here, or None."""
    if sandboxed or os.geteuid() == 0:
        return None
    return (
        "without bubblewrap, only a grader run as root can bound each "
        "student's processes (it runs each runner as a user id of its own)"
    )
