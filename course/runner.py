"""The runner: runs a student's answers and reports what each case gave, as data.

It runs inside the sandbox (:mod:`course.sandbox`), from a tree that
:func:`course.trees.runner_tree` prepared: the class edition's engine, in
which every exercise's piece is a stub (:mod:`course.edition`), the case
*programs* (``course/checks``, their own pieces stubbed too) and what they
import, and this file. No expected value, model answer or grading
expectation is there: the judge, outside, alone holds them and compares.

The student's answer to each *other* exercise, as their notebook saves it
(its definitions, see :func:`course.saved_pieces.piece_text`), comes with
the job and is put in place of that exercise's stub, as the class edition's
notebooks load the pieces a student has saved. A case that still meets
another exercise's stub raises NotImplementedError naming it: that is
reported as the case's outcome, not as a stub of this exercise (the judge
decides, from its own map, which cases do not count).

Protocol. Standard input: the run's nonce (32 hex digits and a newline),
then messages, each ten digits of length and that much JSON: first the job,
``{"exercises": [[id, source], ...], "pieces": [[id, definitions], ...],
"seconds": s, "limits": {...}, "sandboxed": bool}``, which this first
process reads; then one per exercise, ``{"exercise": id, "replays": {piece:
notes}}`` (:mod:`course.replay`), which that exercise's child reads before
any student code runs, and this process never does.
Standard output: one record per line, ``NONCE JSON``, with ``kind`` one of

- ``ready``: the engine and the cases are loaded;
- ``start`` / ``end``: an exercise begins / ends (``status``: ``done``,
  ``timeout``, ``crashed``; ``detail``; ``made``: the processes and threads
  its child made, counted by this first process, -1 outside the sandbox);
- ``cell``: the answer cell ran (``defined``, ``error``, ``reference``);
- ``case``: one case's ``outcome`` (plain JSON data), ``error``, ``stub``;
- ``finish``: the child's last record for the exercise.

The job's ``seeds`` (one per chapter, :func:`course.checking.chapter_seed`)
seed the drawn cases' inputs (``case_rng``): the judge chose them and
computes their expected outcomes itself. Nothing a child sends is believed
because it says so: the judge checks each outcome
against its own, takes a child's records only in the runner's sequence (one
cell, cases in order, one finish, nothing after), and an exercise whose
child ends without its finish record, or breaks the sequence, scores nothing.

This first process (process 1 of the sandbox) never runs student code. It
reads the nonce into a buffer, makes itself impossible to trace or to read
through ``/proc`` (``PR_SET_DUMPABLE`` 0), imports the engine and the cases
once, and forks one child per exercise. The child wipes its copy of the
nonce, sends its standard streams to ``/dev/null``, sets its limits, runs
the student's other pieces and the answer cell in fresh namespaces, puts
them into the engine in place of the stubs, runs each case, and sends each
outcome, already turned into JSON, through its own pipe. The first process
checks the child's lines, tags them with the nonce and passes them on; when
the child ends or runs out of time, it kills every other process of the
sandbox (threads, forks, detached processes die with it).

What the child does is in modules of ``course/`` that the tree ships
(``course.trees.RUNNER_FILES``): :mod:`course.exercise_child` runs one
exercise, :mod:`course.placing` puts the student's pieces in place,
:mod:`course.watch` watches the student's process and
:mod:`course.reference_use` says what counts as using the engine's own
answer. This file keeps the first process: the protocol's reading, the
fork, the relay and the sweep, the limits and Landlock.

Standard library only at import time, and nothing of the course until
:meth:`Runner.run` (after ``not_dumpable`` and the limits): the final
project's child (:mod:`course.project_child`), whose tree has no
``course/``, imports this file for its start-up steps.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import select
import signal
import struct
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from course.watch import Snapshot

if __name__ == "__main__":  # inside the tree: its own folder first
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

NONCE_BYTES = 32
CHILD_OUTPUT = 4 * 2**20  # bytes one exercise may send


def import_everything() -> None:
    """Imports every module of the engine and of the course's cases, so that
    the children never need to open a source file."""
    for name in ("slowtorch_lib", "course"):
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, name + "."):
            if info.name.endswith("__main__"):
                continue
            try:
                importlib.import_module(info.name)
            except Exception:  # noqa: BLE001, S112  (what fails is not needed)
                continue


# --- the first process -------------------------------------------------------------


def read_nonce(fd: int) -> bytearray:
    """The nonce, read straight into a buffer that children can wipe."""
    nonce = bytearray(NONCE_BYTES + 1)
    got = 0
    while got < len(nonce):
        with memoryview(nonce) as view:
            count = os.readv(fd, [view[got:]])
        if count == 0:
            raise SystemExit("no nonce")
        got += count
    del nonce[NONCE_BYTES:]
    return nonce


def read_all(fd: int) -> bytes:
    parts: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)


def read_exactly(fd: int, count: int) -> bytes:
    parts: list[bytes] = []
    while count > 0:
        chunk = os.read(fd, min(count, 1 << 16))
        if not chunk:
            raise EOFError
        parts.append(chunk)
        count -= len(chunk)
    return b"".join(parts)


def read_message(fd: int) -> Any:
    """One message of standard input: ten digits of length, then JSON."""
    size = read_exactly(fd, 10)
    if not size.isdigit():
        raise ValueError("not a message")
    return json.loads(read_exactly(fd, int(size)))


def read_replays(fd: int, exercise: Any) -> list[tuple[Any, Any]]:
    """This exercise's replays (see ``replay_messages`` in the judge's
    protocol): the messages of exercises before it (a child that never
    started) are passed over. Read before any student code runs."""
    from course.checking import load  # at call time, as in Runner.run

    try:
        while True:
            message = read_message(fd)
            if message.get("exercise") == exercise.id:
                break
        replays = dict(message.get("replays", {}))
        return [(load(str(piece)), dict(notes)) for piece, notes in replays.items()]
    except Exception:  # noqa: BLE001  (no replays: the pieces answer)
        return []
    finally:
        try:
            os.close(fd)
        except OSError:
            pass


READABLE = ("slowtorch_lib", "course/data")  # of the tree, what a child reads
LANDLOCK_READ = 1 << 2 | 1 << 3  # LANDLOCK_ACCESS_FS_READ_FILE, _READ_DIR


def hide_the_tree(root: str = "/", tree: str = "/runner") -> bool:
    """From now on, this process and any it starts can read nothing of the
    runner's tree (its code, the case programs, public and grading-only:
    what it imported stays in memory) but the engine and the data; the rest
    of the sandbox's view stays readable. Done with Landlock, which the
    kernel holds: nothing in the process can undo it. Whether it holds
    (older kernels have no Landlock: the audit hook's notes remain)."""
    try:
        import ctypes  # lazily: as in not_dumpable

        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        handled = ctypes.c_uint64(LANDLOCK_READ)
        size = ctypes.c_size_t(ctypes.sizeof(handled))
        ruleset = libc.syscall(444, ctypes.byref(handled), size, 0)  # create
        if ruleset < 0:
            return False
    except (OSError, AttributeError, ImportError):
        return False
    try:
        kept = [os.path.join(root, n) for n in os.listdir(root) if n != "runner"]
        kept += [os.path.join(tree, name) for name in READABLE]
        for path in kept:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            rule = ctypes.create_string_buffer(struct.pack("=Qi", LANDLOCK_READ, fd))
            libc.syscall(445, ruleset, 1, rule, 0)  # add a rule: path beneath
            os.close(fd)
        libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS, as Landlock needs
        return bool(libc.syscall(446, ruleset, 0) == 0)  # restrict self
    finally:
        os.close(ruleset)


def not_dumpable() -> None:
    """Nobody in the sandbox may trace this process or open its /proc files."""
    try:
        import ctypes  # lazily: loaded only by a process that calls this

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
    except (OSError, AttributeError, ImportError):
        pass


def set_limits(limits: dict[str, int]) -> None:
    import resource  # lazily: loaded only by a process that calls this

    for name, key in (
        ("memory", resource.RLIMIT_AS),
        ("file_size", resource.RLIMIT_FSIZE),
        ("processes", resource.RLIMIT_NPROC),
    ):
        value = limits.get(name)
        if isinstance(value, int) and value > 0:
            try:
                resource.setrlimit(key, (value, value))
            except (ValueError, OSError):
                continue
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class Runner:
    """The first process: forks a child per exercise and relays its lines."""

    def __init__(
        self, nonce: bytearray, job: dict[str, Any], replays_fd: int = -1
    ) -> None:
        self.nonce = nonce
        self.seconds = float(job.get("seconds", 60))
        self.limits = dict(job.get("limits", {}))
        self.sandboxed = bool(job.get("sandboxed")) and os.getpid() <= 3
        self.exercises = list(job["exercises"])
        self.pieces = [(str(i), str(t)) for i, t in job.get("pieces", [])]
        self.seeds = {str(k): str(v) for k, v in dict(job.get("seeds", {})).items()}
        self.replays_fd = replays_fd  # the children's messages: never read here

    def emit(self, record: dict[str, Any]) -> None:
        line = bytes(self.nonce) + b" " + json.dumps(record).encode() + b"\n"
        view = memoryview(line)
        while view:
            view = view[os.write(1, view) :]

    def run(self) -> None:
        # at call time: after main()'s limits, never in the judge
        from course.checking import load
        from course.watch import Snapshot  # (the same)

        loaded = {exercise_id: load(exercise_id) for exercise_id, _ in self.exercises}
        pieces = []
        for exercise_id, text in self.pieces:
            try:
                pieces.append((load(exercise_id), text))
            except (KeyError, ValueError, ImportError):
                continue
        self.loaded_pieces = [(e, t) for e, t in pieces if e.target]
        import slowtorch_lib  # noqa: F401  (the whole engine, before the snapshot)
        import slowtorch_lib.autograd.engine  # noqa: F401

        import_everything()

        snapshot = Snapshot()
        self.emit({"kind": "ready"})
        for exercise_id, source in self.exercises:
            self.emit({"kind": "start", "exercise": exercise_id})
            status, detail, made = self.one(loaded[exercise_id], source, snapshot)
            self.emit(
                {
                    "kind": "end",
                    "exercise": exercise_id,
                    "status": status,
                    "detail": detail,
                    "made": made,
                }
            )

    def one(
        self, exercise: Any, source: str, snapshot: Snapshot
    ) -> tuple[str, str, int]:
        """Runs one exercise in a child; its status, detail, and how many
        processes and threads the child made (see :meth:`made_since`)."""
        self.status: int | None = None
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            replays = read_replays(self.replays_fd, exercise)
            self.child(exercise, source, snapshot, write_end, replays)
        os.close(write_end)
        status, detail = self.relay(exercise, read_end, pid)
        os.close(read_end)
        self.sweep(pid)
        return status, detail, self.made_since(pid)

    def made_since(self, pid: int) -> int:
        """How many processes and threads were made in the sandbox since the
        child ``pid`` (-1 outside the sandbox). Counted here, outside the
        student's process, from what it cannot change: a process namespace
        gives out ids in sequence (threads take one too), so a process made
        now gets the id after the last one made."""
        if not self.sandboxed:
            return -1
        probe = os.fork()
        if probe == 0:  # pragma: no cover  (the probe only ends)
            os._exit(0)
        os.waitpid(probe, 0)
        if probe > pid:
            return probe - pid - 1
        try:  # the ids went round: at least as many as the namespace has
            with open("/proc/sys/kernel/pid_max", encoding="ascii") as file:
                return probe - pid - 1 + int(file.read())
        except (OSError, ValueError):
            return 1

    def child(
        self,
        exercise: Any,
        source: str,
        snapshot: Snapshot,
        fd: int,
        replays: list[tuple[Any, Any]],
    ) -> None:
        self.nonce[:] = bytes(len(self.nonce))
        code = 0
        try:
            null = os.open(os.devnull, os.O_RDWR)
            for target in (0, 1, 2):
                os.dup2(null, target)
            if not self.sandboxed:
                os.setpgid(0, 0)
            import resource  # lazily: as in set_limits

            cpu = int(self.seconds) + 2
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            # at call time: loaded by run() (import_everything) before the fork
            from course.exercise_child import Child, run_exercise

            if self.sandboxed:
                hide_the_tree()
            run_exercise(
                exercise,
                source,
                self.loaded_pieces,
                snapshot,
                Child(fd),
                self.seeds.get(exercise.id.split(".")[0], ""),
                replays,
            )
        except BaseException:  # noqa: BLE001  (the child ends here, whatever)
            code = 1
        os._exit(code)

    def relay(self, exercise: Any, fd: int, pid: int) -> tuple[str, str]:
        deadline = time.monotonic() + self.seconds
        buffer = b""
        received = 0
        self.finished = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout", f"timed out after {self.seconds:g} s"
            ready, _, _ = select.select([fd], [], [], min(left, 0.5))
            if not ready and not self.exited(pid):
                continue
            if not ready:
                # Ended: read what is left, not waiting for a process it
                # started that may hold the pipe open.
                ready, _, _ = select.select([fd], [], [], 0)
                if not ready:
                    break
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            received += len(chunk)
            if received > CHILD_OUTPUT:
                return "crashed", "sent more than the runner reads"
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                self.pass_on(exercise, line)
        code = self.status if self.status is not None else self.wait(pid, deadline)
        if code is None:
            return "timeout", f"timed out after {self.seconds:g} s"
        if code != 0:
            return "crashed", _ending(code)
        if not self.finished:
            return "crashed", "the process ended before its last record"
        return "done", ""

    def pass_on(self, exercise: Any, line: bytes) -> None:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            return
        if isinstance(record, dict) and record.get("kind") in ("cell", "case"):
            record["exercise"] = exercise.id
            self.emit(record)
        elif record == {"kind": "finish"}:
            self.finished = True
            self.emit({"kind": "finish", "exercise": exercise.id})

    def exited(self, pid: int) -> bool:
        """Whether the child has ended (its exit code kept in ``status``)."""
        if self.status is not None:
            return True
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            self.status = os.waitstatus_to_exitcode(status)
        return bool(done)

    def wait(self, pid: int, deadline: float) -> int | None:
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.005)
        return None

    def sweep(self, pid: int) -> None:
        """Kills the child and everything else of the sandbox but this process."""
        _kill(pid)
        if not self.sandboxed:
            _kill(-pid)
        else:
            for _ in range(3):
                others = [
                    int(name)
                    for name in os.listdir("/proc")
                    if name.isdigit() and int(name) not in (1, os.getpid())
                ]
                for other in others:
                    _kill(other)
                if not others:
                    break
                _reap()
        _reap()


def _ending(code: int) -> str:
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.valid_signals() else code
        return f"the process was killed ({name}: out of memory or CPU time?)"
    return f"the process exited (code {code}: os._exit or a crash?)"


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.01)
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return


def become(user: Any) -> None:
    """Started as root (the sandbox of a grader run as root): becomes the
    host user lent to this runner, for good, before any answer runs."""
    if os.getuid() != 0:
        return
    if not isinstance(user, int) or user <= 0:
        raise SystemExit("the runner will not run answers as root")
    os.setgroups([])
    os.setresgid(user, user, user)
    os.setresuid(user, user, user)


def main() -> None:
    nonce = read_nonce(0)
    job = read_message(0)
    replays_fd = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    become(job.get("user"))
    not_dumpable()
    set_limits(job.get("limits", {}))
    Runner(nonce, job, replays_fd).run()


if __name__ == "__main__":
    main()
