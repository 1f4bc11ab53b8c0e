"""The judge's side of the runner: its process and the pipe protocol.

:func:`run_pieces` starts the runner in the sandbox (:func:`run_runner`,
again after one that stopped it), feeds it the job on its stdin with a
nonce drawn for the run, reads its records from its stdout within a time
and size budget, and stops its whole process group. :class:`Reader` keeps
only the records that carry the run's nonce and follow the schema
(``KEYS``) strictly, in order; anything else is ignored and noted in the
:class:`Run`, and a record the runner's own code never writes makes the
exercise then running score nothing. What the records are worth is
:mod:`course.judge`'s.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import selectors
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course import sandbox
from course.cases import Exercise, all_cases

MAX_RESTARTS = 3
MAX_LINE = 1 * 2**20
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]{0,79}$")


@dataclass
class Run:
    """What one or more runner runs reported, after checking."""

    cells: dict[str, dict[str, Any]] = field(default_factory=dict)
    cases: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    ends: dict[str, dict[str, Any]] = field(default_factory=dict)
    ignored: dict[str, int] = field(default_factory=dict)
    conflicts: set[tuple[str, int]] = field(default_factory=set)
    finished: set[str] = field(default_factory=set)
    broken: dict[str, str] = field(default_factory=dict)
    ending: str | None = None

    def ignore(self, why: str) -> None:
        self.ignored[why] = self.ignored.get(why, 0) + 1


def plain_ok(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is plain, bounded JSON data."""
    if depth > 40:
        return False
    if value is None or isinstance(value, (bool, str)):
        return not isinstance(value, str) or len(value) <= 100_000
    if isinstance(value, int):
        return abs(value) < 2**63
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return len(value) <= 100_000 and all(plain_ok(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return len(value) <= 10_000 and all(
            isinstance(k, str) and plain_ok(v, depth + 1) for k, v in value.items()
        )
    return False


def error_ok(error: Any) -> bool:
    if error is None:
        return True
    return (
        isinstance(error, dict)
        and set(error) == {"type", "message", "lines"}
        and isinstance(error["type"], str)
        and (error["type"] == "" or bool(IDENTIFIER.match(error["type"])))
        and isinstance(error["message"], str)
        and len(error["message"]) <= 400
        and isinstance(error["lines"], list)
        and len(error["lines"]) <= 4
        and all(type(n) is int and 0 <= n <= 1_000_000 for n in error["lines"])
    )


def strings_ok(values: Any) -> bool:
    return (
        isinstance(values, list)
        and len(values) <= 20
        and all(isinstance(v, str) and len(v) <= 300 for v in values)
    )


KEYS = {
    "ready": {"kind"},
    "start": {"kind", "exercise"},
    "finish": {"kind", "exercise"},
    "end": {"kind", "exercise", "status", "detail", "made"},
    "cell": {"kind", "exercise", "defined", "error", "reference", "tampering"},
    "case": {
        "kind",
        "exercise",
        "index",
        "label",
        "outcome",
        "error",
        "stub",
        "reference",
    },
}


class Reader:
    """Checks the runner's lines for one run, in order."""

    def __init__(
        self, nonce: str, exercises: dict[str, Exercise], run: Run, todo: list[str]
    ) -> None:
        self.prefix = nonce.encode() + b" "
        self.exercises = exercises
        self.run = run
        self.todo = todo
        self.current: str | None = None
        self.started: list[str] = []

    def line(self, raw: bytes) -> None:
        if not raw.startswith(self.prefix):
            self.run.ignore("lines without this run's nonce")
            return
        try:
            record = json.loads(raw[len(self.prefix) :], parse_constant=_refuse)
        except (ValueError, RecursionError):
            self.break_sequence("lines that are not JSON")
            return
        problem = self.problem(record)
        if problem:
            self.break_sequence(problem)
            return
        self.take(record)

    def break_sequence(self, why: str) -> None:
        """A line the runner's own code never writes: ignored, and the
        exercise whose child was running when it came scores nothing."""
        self.run.ignore(why)
        if self.current is not None:
            self.run.broken.setdefault(self.current, why)

    def problem(self, record: Any) -> str | None:
        if not isinstance(record, dict) or record.get("kind") not in KEYS:
            return "records of no known kind"
        kind = record["kind"]
        if set(record) != KEYS[kind]:
            return "records with wrong fields"
        if kind == "ready":
            return None
        exercise = record["exercise"]
        if exercise not in self.todo:
            return "records for an exercise not asked for"
        if kind == "start":
            return None if exercise not in self.started else "exercises started twice"
        if exercise != self.current:
            return "records out of order"
        if kind == "end":
            ok = record["status"] in ("done", "timeout", "crashed")
            ok = (
                ok and isinstance(record["detail"], str) and len(record["detail"]) < 500
            )
            ok = ok and type(record["made"]) is int and record["made"] >= -1
            return None if ok else "end records out of range"
        if exercise in self.run.finished:
            return "records after the exercise's last record"
        if kind == "finish":
            return None
        if kind == "cell":
            ok = isinstance(record["defined"], bool) and error_ok(record["error"])
            ok = ok and strings_ok(record["reference"])
            ok = ok and strings_ok(record["tampering"])
            if not ok:
                return "cell records out of range"
            return "cells reported twice" if exercise in self.run.cells else None
        return self.case_problem(record)

    def case_problem(self, record: dict[str, Any]) -> str | None:
        exercise = record["exercise"]
        cases = all_cases(self.exercises[exercise])
        index = record["index"]
        if type(index) is not int or not 0 <= index < len(cases):
            return "cases out of range"
        if record["label"] != cases[index].label:
            return "cases with a wrong label"
        if index in self.run.cases.get(exercise, {}):
            self.run.conflicts.add((exercise, index))  # neither counts
            return "cases reported twice"
        if exercise not in self.run.cells:
            return "cases before their cell"
        if any(i > index for i in self.run.cases.get(exercise, {})):
            return "cases out of order"
        ok = isinstance(record["stub"], bool) and error_ok(record["error"])
        ok = ok and strings_ok(record["reference"]) and plain_ok(record["outcome"])
        return None if ok else "case records out of range"

    def take(self, record: dict[str, Any]) -> None:
        kind = record["kind"]
        exercise = str(record.get("exercise"))
        if kind == "start":
            self.current = exercise
            self.started.append(exercise)
        elif kind == "cell":
            self.run.cells[exercise] = record
        elif kind == "case":
            self.run.cases.setdefault(exercise, {})[record["index"]] = record
        elif kind == "finish":
            self.run.finished.add(exercise)
        elif kind == "end":
            self.run.ends[exercise] = record
            self.current = None


def _refuse(name: str) -> Any:
    raise ValueError(name)


def runner_command(tree: Path, sandboxed: bool, user: int | None = None) -> list[str]:
    python = sandbox.interpreter()
    if sandboxed:
        return sandbox.command(tree, [python, "-I", "-S", "/runner/runner.py"], user)
    return [python, "-I", "-S", str(tree / "runner.py")]


def run_runner(
    tree: Path,
    jobs: list[tuple[str, str]],
    exercises: dict[str, Exercise],
    run: Run,
    limits: sandbox.Limits,
    sandboxed: bool,
    pieces: dict[str, str] | None = None,
    seeds: dict[str, str] | None = None,
    replays: dict[str, dict[str, str]] | None = None,
) -> list[str]:
    """Runs the runner once on ``jobs`` (with the student's ``pieces``,
    their answers to the exercises, put in place of the other stubs, and the
    ``seeds`` of the drawn cases, by chapter); adds what it reported to ``run``;
    returns the exercises it started."""
    nonce = secrets.token_hex(16)
    job: dict[str, Any] = {
        "exercises": jobs,
        "pieces": sorted((pieces or {}).items()),
        "seeds": seeds or {},
        "seconds": limits.seconds,
        "sandboxed": sandboxed,
        "limits": {
            "memory": limits.memory,
            "file_size": limits.file_size,
            "processes": limits.processes,
        },
    }
    reader = Reader(nonce, exercises, run, [e for e, _ in jobs])
    deadline = time.monotonic() + 20 + (limits.seconds + 2) * len(jobs)
    work = Path(tree.parent / f"work-{secrets.token_hex(4)}")
    work.mkdir()
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(work), "LANG": "C.UTF-8"}
    with sandbox.runner_user() as user:  # its processes are counted apart
        job["user"] = user
        if user is not None:
            os.chown(work, user, user)
        elif not sandboxed:  # the grader's own user: its processes count too
            job["limits"]["processes"] = 0
        process = subprocess.Popen(
            runner_command(tree, sandboxed, user),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=work,
            env=environment,
            start_new_session=True,
            **sandbox.as_user(None if sandboxed else user),
        )
        messages = replay_messages([e for e, _ in jobs], replays or {})
        feeder = threading.Thread(
            target=_feed, args=(process, nonce, job, messages), daemon=True
        )
        feeder.start()
        run.ending = _read(process, reader, deadline, limits.output)
        _stop(process)
    shutil.rmtree(work, ignore_errors=True)
    return reader.started


def frame(data: Any) -> bytes:
    """One message of the runner's standard input: its length, then its JSON."""
    payload = json.dumps(data).encode()
    return b"%010d" % len(payload) + payload


def replay_messages(
    order: list[str], replays: dict[str, dict[str, str]]
) -> list[bytes]:
    """What each exercise's child reads before any student code runs: the
    replays (:mod:`course.replay`) of the pieces whose exercise is not graded
    from here on in this runner. A child never holds the notes of its own
    piece, nor of a piece graded after it (which it could leave in ``/tmp``
    for that piece's child); the runner's first process never reads them."""
    return [
        frame(
            {
                "exercise": exercise,
                "replays": {
                    piece: notes
                    for piece, notes in replays.items()
                    if piece not in order[index:]
                },
            }
        )
        for index, exercise in enumerate(order)
    ]


def _feed(
    process: subprocess.Popen[bytes],
    nonce: str,
    job: dict[str, Any],
    messages: list[bytes],
) -> None:
    assert process.stdin is not None
    try:
        process.stdin.write(nonce.encode() + b"\n" + frame(job))
        process.stdin.flush()
        for message in messages:
            process.stdin.write(message)
            process.stdin.flush()
        process.stdin.close()
    except OSError:
        pass


def _read(
    process: subprocess.Popen[bytes], reader: Reader, deadline: float, cap: int
) -> str | None:
    """Reads the runner's lines until it ends; why it ended early, or None."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    os.set_blocking(fd, False)
    received = 0
    buffer = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "the runner ran out of time"
            if not selector.select(min(left, 1.0)):
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                break
            received += len(chunk)
            if received > cap:
                return f"the runner wrote more than {cap} bytes"
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            if len(buffer) > MAX_LINE:
                return "the runner wrote a line that is too long"
            for line in lines:
                reader.line(line)
    if buffer:
        reader.run.ignore("unfinished lines")
    code = process.wait()
    if code != 0:
        return f"the runner stopped (code {code}: killed from inside?)"
    return None


def _stop(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, 9)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.kill()
    except OSError:
        pass
    process.wait()
    for stream in (process.stdout, process.stdin):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass


def run_pieces(
    tree: Path,
    sources: dict[str, str],
    exercises: dict[str, Exercise],
    limits: sandbox.Limits,
    sandboxed: bool,
    pieces: dict[str, str] | None = None,
    restarts: int = MAX_RESTARTS,
    seeds: dict[str, str] | None = None,
    replays: dict[str, dict[str, str]] | None = None,
) -> Run:
    """Runs every piece exercise's answer; starts the runner again after one
    that stopped it (at most ``restarts`` times)."""
    run = Run()
    todo = [e for e in exercises if e in sources]
    for _ in range(restarts + 1):
        if not todo:
            break
        started = run_runner(
            tree,
            [(e, sources[e]) for e in todo],
            exercises,
            run,
            limits,
            sandboxed,
            pieces,
            seeds,
            replays,
        )
        for exercise in started:
            if exercise not in run.ends:
                late = bool(run.ending) and "out of time" in str(run.ending)
                run.ends[exercise] = {
                    "status": "timeout" if late else "crashed",
                    "detail": run.ending or "the runner stopped",
                }
        if not started:
            for exercise in todo:
                run.ends[exercise] = {
                    "status": "crashed",
                    "detail": run.ending or "the runner did not start",
                }
        todo = [e for e in todo if e not in run.ends]
    for exercise in todo:
        run.ends[exercise] = {
            "status": "crashed",
            "detail": "not graded: earlier cells stopped the runner too often",
        }
    return run
