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

Standard library only.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import json
import linecache
import math
import operator
import os
import pkgutil
import re
import select
import signal
import struct
import sys
import time
import traceback
import types
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

if __name__ == "__main__":  # inside the tree: its own folder first
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

FORBIDDEN_MODULES = ("torch", "course", "solutions")
PROTECTED = ("slowtorch_lib", "course")
NONCE_BYTES = 32
UNWRITTEN = re.compile(r"exercise (\d+\.\d+), `\w+`.{0,80}? is not written yet")
CHILD_OUTPUT = 4 * 2**20  # bytes one exercise may send
MESSAGE = 300  # characters of an exception message kept
_MISSING = object()


# --- what the answer must not use --------------------------------------------------


def reference_names(exercise: Any) -> set[str]:
    """Names that hold the engine's own answer to this exercise."""
    names = set(exercise.forbidden) | set(exercise.not_to_use)
    if exercise.target:
        parts = exercise.target.split(".")
        owner_is_class = parts[-2][:1].isupper()
        names.add(parts[-2] if owner_is_class else parts[-1])
    return names


def imports_in(source: str, exercise: Any) -> list[str]:
    """What the cell imports or reaches for that it must not (from its text)."""
    # at call time: the judge's threads call this too (see course.parsing)
    from course.parsing import parse

    try:
        tree = parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    names = reference_names(exercise)
    found = []
    for node in ast.walk(tree):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""]
            found += [
                f"from {node.module} import {alias.name}"
                for alias in node.names
                if alias.name in names
                and (node.module or "").startswith("slowtorch_lib")
            ]
        elif isinstance(node, ast.Attribute) and node.attr in names:
            found.append(f"the engine's own {node.attr}")
        elif isinstance(node, ast.Call) and node.args:
            function = node.func
            called = getattr(function, "attr", getattr(function, "id", ""))
            first = node.args[0]
            if (
                called in ("import_module", "__import__")
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                modules = [first.value]
        found += [
            f"import {m}" for m in modules if m.split(".")[0] in FORBIDDEN_MODULES
        ]
    return sorted(set(found))


def reference_objects(exercise: Any) -> list[Any]:
    """The engine's own objects for this exercise (none in the class engine)."""
    from course.substitute import original  # at call time: as in run()

    found: list[Any] = []
    if not exercise.target:
        return found
    found.append(original(exercise.target))
    for module_name in (
        exercise.target.rsplit(".", 2)[0],
        exercise.target.rsplit(".", 1)[0],
    ):
        module = sys.modules.get(module_name)
        for name in [*exercise.forbidden, *exercise.not_to_use]:
            if module is not None and hasattr(module, name):
                found.append(getattr(module, name))
    return found


def holds_reference(value: Any, references: list[Any], depth: int = 0) -> bool:
    """Whether the answer is, or closes over, one of the engine's own objects."""
    if any(value is ref for ref in references):
        return True
    if depth > 2:
        return False
    inner: list[Any] = []
    if isinstance(value, staticmethod):
        inner.append(value.__func__)
    if isinstance(value, types.FunctionType):
        for cell in value.__closure__ or ():
            try:
                inner.append(cell.cell_contents)
            except ValueError:
                continue
        inner += list(value.__defaults__ or ())
    if isinstance(value, type):
        inner += list(vars(value).values()) + list(value.__mro__[1:])
    return any(holds_reference(item, references, depth + 1) for item in inner)


@contextmanager
def watched_imports(seen: list[str]) -> Iterator[None]:
    """Records, and refuses, every import of torch, course or solutions."""
    real_import = builtins.__import__
    real_import_module = importlib.import_module

    def refuse(name: str) -> None:
        if name.split(".")[0] in FORBIDDEN_MODULES:
            seen.append(f"import {name}")
            raise ModuleNotFoundError(f"the grader does not let answers import {name}")

    def guarded_import(name: str, *args: Any, **kwargs: Any) -> Any:
        refuse(name)
        return real_import(name, *args, **kwargs)

    def guarded_import_module(name: str, package: str | None = None) -> Any:
        refuse(name)
        return real_import_module(name, package)

    builtins.__import__ = guarded_import
    importlib.import_module = guarded_import_module  # type: ignore[assignment]
    try:
        yield
    finally:
        builtins.__import__ = real_import
        importlib.import_module = real_import_module  # type: ignore[assignment]


# --- a snapshot of the engine, put back before each case ---------------------------


class Snapshot:
    """Module and class namespaces of the engine and the case programs."""

    def __init__(self) -> None:
        self.modules = {
            name: module
            for name, module in sys.modules.items()
            if module is not None and name.split(".")[0] in PROTECTED
        }
        self.namespaces = {name: dict(vars(m)) for name, m in self.modules.items()}
        self.namespaces["builtins"] = dict(vars(builtins))
        self.classes: list[tuple[type, dict[str, Any]]] = []
        for name, module in self.modules.items():
            for value in vars(module).values():
                if isinstance(value, type) and getattr(value, "__module__", "") == name:
                    self.classes.append((value, dict(vars(value))))
        # at call time: after main()'s limits, never in the judge
        from slowtorch_lib import _dtype
        from slowtorch_lib.autograd.grad_mode import GRAD_MODE  # (the same)

        self.grad_mode = GRAD_MODE
        self.default_dtype = _dtype.get_default_dtype()
        self.path = list(sys.path)

    def restore(self) -> None:
        for name, module in self.modules.items():
            sys.modules[name] = module
        for name, saved in self.namespaces.items():
            namespace = (
                vars(builtins) if name == "builtins" else vars(self.modules[name])
            )
            if unchanged(namespace, saved):
                continue
            for key in [k for k in namespace if k not in saved]:
                del namespace[key]
            for key, value in saved.items():
                if namespace.get(key, _MISSING) is not value:
                    namespace[key] = value
        for cls, saved in self.classes:
            if unchanged(vars(cls), saved):
                continue
            try:
                for key in [k for k in vars(cls) if k not in saved]:
                    delattr(cls, key)
                for key, value in saved.items():
                    if key not in ("__dict__", "__weakref__") and (
                        vars(cls).get(key, _MISSING) is not value
                    ):
                        setattr(cls, key, value)
            except (AttributeError, TypeError):
                continue
        self.grad_mode.enabled = True
        from slowtorch_lib import _dtype  # at call time: as in __init__

        _dtype.set_default_dtype(self.default_dtype)
        sys.path[:] = self.path
        if sys.gettrace() is not None:
            sys.settrace(None)
        if sys.getprofile() is not None:
            sys.setprofile(None)


def unchanged(namespace: Mapping[str, Any], saved: dict[str, Any]) -> bool:
    """Whether ``namespace`` holds the very keys and values ``saved`` holds,
    in the same order (compared by identity, never by ``==``): then there is
    nothing to put back. Most cases change nothing, and this check runs in
    C, where the slow path of :meth:`Snapshot.restore` walks every name."""
    return (
        len(namespace) == len(saved)
        and all(map(operator.is_, namespace, saved))
        and all(map(operator.is_, namespace.values(), saved.values()))
    )


# --- the child: one exercise -------------------------------------------------------


class Guard:
    """An audit hook, set in each child before the answer runs (it cannot be
    taken off): it notes reading the grader's own files (the engine's and the
    cases' source: all of it was imported before) and what no answer needs:
    processes, signals, sockets, ctypes, threads, tracing, gc's object lists.
    Python's own ``linecache`` is emptied first, so that no trusted code opens
    a source file either.

    What it notes is advisory. The hook lives in the answer's own process,
    which can reach its lists (``gc``) or memory (``ctypes``) and empty them,
    so a clean record proves nothing and earns nothing: a note that is there
    refuses the exercise, one that was erased is simply missing. The marks
    rest on what holds from outside that process: the sandbox's allow-list
    view (no installed package, none of the course's files, by any name),
    Landlock (the runner's tree unreadable but the engine and data), the
    count of processes and threads the runner's first process makes of each
    child, the limits, and the outcomes the judge computes. Tracing
    (``sys.settrace``), ``gc``'s object lists, ``ctypes`` (the runner needs
    it for Landlock and ``prctl``), signal handlers and timers stay within an
    answer's reach: their notes here (and ``left_running``'s) are of this
    kind."""

    EVENTS = (
        "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
        "os.fork", "os.forkpty", "os.kill", "os.killpg", "signal.pthread_kill",
        "sys.settrace", "sys.setprofile", "_thread.start_new_thread",
        "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    )  # fmt: skip
    PREFIXES = ("socket.", "ctypes.")

    def __init__(self, tree: str) -> None:
        self.tree = tree.rstrip("/") + "/"
        self.data = self.tree + "course/data/"
        self.files: list[str] = []
        self.events: list[str] = []

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and args and isinstance(args[0], (str, bytes)):
            if not _reading(args):
                return  # writing: the tree and /proc are read-only anyway
            path = args[0] if isinstance(args[0], str) else args[0].decode("latin-1")
            self.opened(os.path.normpath(os.path.join(os.getcwd(), path)))
        elif event in self.EVENTS or event.startswith(self.PREFIXES):
            if len(self.events) < 20 and event not in self.events:
                self.events.append(event)

    def opened(self, path: str) -> None:
        if path.startswith(self.tree) and not path.startswith(self.data):
            name = "reads the grader's files (" + path[len(self.tree) :] + ")"
        elif path.startswith("/proc/") and path.split("/")[2] not in ("self",):
            name = "reads other processes through /proc"
        else:
            return
        if len(self.files) < 20 and name not in self.files:
            self.files.append(name)

    def take(self) -> tuple[list[str], list[str]]:
        """What was noted since the last call."""
        found = (list(self.files), list(self.events))
        self.files.clear()
        self.events.clear()
        return found


def _reading(args: tuple[Any, ...]) -> bool:
    """Whether an ``open`` audit event opens for reading."""
    mode = args[1] if len(args) > 1 else None
    if isinstance(mode, str):
        return "r" in mode or "+" in mode
    flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
    return flags & os.O_ACCMODE != os.O_WRONLY


GUARD: list[Guard] = []


def guard() -> Guard:
    """The child's audit hook, set once (before the student's code runs)."""
    if not GUARD:
        linecache.clearcache()
        linecache.getlines = lambda *args, **kwargs: []  # type: ignore[assignment]
        linecache.updatecache = lambda *args, **kwargs: []  # type: ignore[assignment]
        linecache.checkcache = lambda *args, **kwargs: None  # type: ignore[assignment]
        tree = os.path.dirname(os.path.abspath(__file__))
        GUARD.append(Guard(tree))
        sys.addaudithook(GUARD[0])
    return GUARD[0]


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


def quiet_check(*args: Any, **kwargs: Any) -> None:
    """Stands in for ``check`` while an answer cell runs."""


def error_data(error: BaseException, filename: str) -> dict[str, Any]:
    """An exception as data: its type's name, its message (one line,
    trimmed) and the line numbers of the student's own cell in its traceback."""
    try:
        lines = [
            int(frame.lineno or 0)
            for frame in traceback.extract_tb(error.__traceback__)
            if frame.filename == filename
        ][-4:]
    except Exception:  # noqa: BLE001  (a broken traceback is no traceback)
        lines = []
    if isinstance(error, SyntaxError) and error.filename == filename:
        lines = [int(error.lineno or 0)]
    try:
        text = " ".join(str(error).split())[:MESSAGE]
    except Exception:  # noqa: BLE001  (a __str__ that raises)
        text = ""
    return {"type": type(error).__name__[:80], "message": text, "lines": lines}


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data (never the student's objects)."""
    if depth > 40:
        raise ValueError("too deep")
    if value is None or type(value) in (bool, int, str):
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, float):
        number = float.__float__(value)
        return number if math.isfinite(number) else repr(number)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, dict):
        return {
            str.__str__(k) if isinstance(k, str) else repr(k): plain(v, depth + 1)
            for k, v in dict.items(value)
        }
    if isinstance(value, (list, tuple)):
        return [plain(item, depth + 1) for item in list(value)]
    return repr(value)


def left_running() -> list[str]:
    """What the cell left behind that could change the cases while they run
    (threads, timers, signal handlers); timers and handlers are then undone."""
    found = []
    try:
        threads = len(os.listdir("/proc/self/task"))
    except OSError:
        import threading  # only without /proc: not loaded otherwise

        threads = threading.active_count()
    if threads > 1:
        found.append(f"{threads - 1} thread(s) still running")
    for timer in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF):
        if signal.getitimer(timer) != (0.0, 0.0):
            found.append("a timer")
            signal.setitimer(timer, 0)
    for number in signal.valid_signals():
        try:
            handler = signal.getsignal(number)
        except (ValueError, OSError):
            continue
        if callable(handler) and number != signal.SIGINT:
            found.append(f"a handler for {signal.Signals(number).name}")
            signal.signal(number, signal.SIG_DFL)
    return sorted(set(found))[:20]


class Child:
    """Sends a child's lines to the first process."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, record: dict[str, Any]) -> None:
        data = (json.dumps(record, allow_nan=False) + "\n").encode()
        view = memoryview(data)
        while view:
            written = os.write(self.fd, view)
            view = view[written:]


def cell_namespace() -> dict[str, Any]:
    """What a notebook's cell starts with."""
    import slowtorch_lib  # at call time: after main()'s limits, never in the judge

    return {"__name__": "__main__", "torch": slowtorch_lib, "check": quiet_check}


def unwritten(exercise: Any) -> str:
    """The stub message of another exercise's piece (as the class engine's)."""
    return (
        f"exercise {exercise.id}, `{exercise.name}`, is not written yet: "
        "its answer raises NotImplementedError"
    )


def needed(error: BaseException, exercise_id: str) -> str | None:
    """The other exercise whose stub ``error`` comes from, or None."""
    try:
        text = str(error)
    except Exception:  # noqa: BLE001  (a message that cannot be read names none)
        return None
    found = UNWRITTEN.search(text)
    if found is None or found.group(1) == exercise_id:
        return None
    return found.group(1)


def _renamed(exercise: Any, function: Any) -> Any:
    """The student's piece, whose NotImplementedError names its exercise."""

    def piece(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except NotImplementedError as error:
            if needed(error, exercise.id) is not None:
                raise
            raise NotImplementedError(unwritten(exercise)) from None

    return piece


def plain_target(exercise: Any) -> bool:
    """Whether the exercise's piece is a function of a module (one that an
    answer may import by name)."""
    parts = str(exercise.target or "").split(".")
    return (
        len(parts) > 2 and not parts[-1][:1].isupper() and not parts[-2][:1].isupper()
    )


def forwarder(exercise: Any, current: dict[str, Any]) -> Any:
    """What stands for a function piece while the pieces run: it calls the
    piece ``current`` holds for the exercise by then (else it is the stub)."""

    def forward(*args: Any, **kwargs: Any) -> Any:
        if exercise.id not in current:
            raise NotImplementedError(unwritten(exercise))
        return current[exercise.id](*args, **kwargs)

    return forward


def other_pieces(pieces: list[tuple[Any, str]]) -> list[tuple[Any, Any]]:
    """The student's answers to the other exercises, as their notebook's
    saved pieces are (definitions only: see ``piece_text``), each run in a
    fresh namespace; one that does not run stays a stub."""
    found = []
    for exercise, text in pieces:
        namespace = cell_namespace()
        try:
            code = compile(text, f"<your answer to exercise {exercise.id}>", "exec")
            with watched_imports([]):
                exec(code, namespace)  # noqa: S102  (the student's code, sandboxed)
        except BaseException:  # noqa: BLE001, S112  (it stays a stub)
            continue
        value = namespace.get(exercise.name, _MISSING)
        if value is _MISSING:
            continue
        if callable(value) and not isinstance(value, type):
            value = _renamed(exercise, value)
        found.append((exercise, value))
    return found


def with_replays(
    others: list[tuple[Any, Any]], replays: list[tuple[Any, Any]], exercise: Any
) -> list[tuple[Any, Any]]:
    """The student's other pieces, each replayed piece (and the engine's own
    object for one not written: its stub, or the reference where given)
    behind its replay (:mod:`course.replay`): a call the judge noted gets the
    complete engine's result, so this exercise's cases do not pay again for
    a mistake in that piece."""
    from course.replay import REPLAYED, replaying  # at call time, as below
    from course.substitute import original

    notes = {e.id: table for e, table in replays if e.id != exercise.id}
    found = []
    for other, value in others:
        if other.id in notes and callable(value) and not isinstance(value, type):
            value = replaying(REPLAYED[other.id], value, notes.pop(other.id))
        found.append((other, value))
    for other, table in replays:
        if other.id in notes:
            engine = original(other.target)
            found.append((other, replaying(REPLAYED[other.id], engine, table)))
    return found


class Places:
    """Where the stubs of the student's other pieces are, found once (in
    the engine as the snapshot has it), so that putting the pieces in before
    each case is a few assignments."""

    def __init__(self, pieces: list[tuple[Any, Any]]) -> None:
        self.assignments: list[tuple[Any, str, Any]] = []
        namespaces = [
            vars(module)
            for name, module in sys.modules.items()
            if module is not None and name.split(".")[0] == "slowtorch_lib"
        ]
        for exercise, value in pieces:
            try:
                self.assignments += self.find(exercise.target, value, namespaces)
            except (AttributeError, KeyError, ValueError):
                continue  # it stays a stub

    @staticmethod
    def find(
        target: str, value: Any, namespaces: list[dict[str, Any]]
    ) -> list[tuple[Any, str, Any]]:
        """Where the stub at ``target`` is: (namespace or class, name, value)."""
        parent, name = target.rsplit(".", 1)
        owner: Any = sys.modules.get(parent)
        if owner is None:
            module, owner_name = parent.rsplit(".", 1)
            owner = getattr(sys.modules[module], owner_name)
        if isinstance(owner, type):
            if isinstance(owner.__dict__[name], staticmethod):
                value = staticmethod(value)
            return [(owner, name, value)]
        old = getattr(owner, name)
        found = [
            (namespace, key, value)
            for namespace in namespaces
            for key, item in list(namespace.items())
            if item is old
        ]
        if not parent.startswith("slowtorch_lib"):
            found.append((vars(owner), name, value))
        return found

    def install(self) -> None:
        """Puts the pieces in (after a restore of the snapshot)."""
        for owner, key, value in self.assignments:
            if isinstance(owner, dict):
                owner[key] = value
            else:
                setattr(owner, key, value)


def run_exercise(
    exercise: Any,
    source: str,
    pieces: list[tuple[Any, str]],
    snapshot: Snapshot,
    out: Child,
    seed: str = "",
    replays: list[tuple[Any, Any]] | None = None,
) -> None:
    """Runs the answer cell, then every case with the answer in the engine
    (and the student's answers to the other exercises in place of their
    stubs, behind their ``replays``)."""
    # at call time: after main()'s limits, never in the judge
    from course.checking import case_rng, normalize, run_piece_case

    filename = f"<answer cell of exercise {exercise.id}>"
    namespace = cell_namespace()
    seen: list[str] = []
    error = None
    watcher = guard()
    watcher.take()
    # The pieces run while the engine holds a forwarder for each function
    # piece: one that imports another by name (``from ... import
    # sum_to_size``) holds the forwarder, which calls the student's piece
    # (as the notebook's saved pieces do), never the stub. The student's own
    # piece for this exercise is among them; once the cell ran, its
    # forwarder calls the cell's answer.
    current: dict[str, Any] = {}
    snapshot.restore()
    Places([(e, forwarder(e, current)) for e, _ in pieces if plain_target(e)]).install()
    others = with_replays(other_pieces(pieces), replays or [], exercise)
    current.update({e.id: value for e, value in others})
    snapshot.restore()
    places = Places(others)
    places.install()
    try:
        code = compile(source, filename, "exec")
        with watched_imports(seen):
            exec(code, namespace)  # noqa: S102  (the student's code, sandboxed)
    except BaseException as raised:  # noqa: BLE001  (SystemExit too)
        error = error_data(raised, filename)
    answer = namespace.get(exercise.name, _MISSING)
    if answer is not _MISSING and plain_target(exercise):
        current[exercise.id] = answer
    snapshot.restore()
    reference = list(seen)
    if answer is not _MISSING:
        references = reference_objects(exercise)
        if holds_reference(answer, references) or any(
            holds_reference(value, references, depth=2)
            for value in list(namespace.values())
        ):
            reference.append(f"{exercise.name} is (or calls) the engine's own version")
    files, events = watcher.take()
    reference += files
    tampering = sorted(set(left_running() + events))[:20]
    out.send(
        {
            "kind": "cell",
            "defined": answer is not _MISSING,
            "error": error,
            "reference": sorted(set(reference))[:20],
            "tampering": tampering,
        }
    )
    if answer is _MISSING or reference or tampering:
        out.send({"kind": "finish"})
        return
    cases = [*exercise.cases, *exercise.grading_cases, *exercise.drawn_cases]
    for index, case in enumerate(cases):
        rng = case_rng(seed, exercise.id, index) if case.drawn else None
        if index == 0:  # after each case, restored below (nothing runs between)
            snapshot.restore()
        places.install()
        stub = False
        got_error = None
        seen_later: list[str] = []
        try:
            with watched_imports(seen_later):
                got, message = run_piece_case(exercise, answer, case, rng)
        except NotImplementedError as raised:
            got = {"raised": "NotImplementedError"}
            stub = needed(raised, exercise.id) is None
            got_error = None if stub else error_data(raised, filename)
        except BaseException as raised:  # noqa: BLE001  (SystemExit too)
            got = {"raised": type(raised).__name__}
            got_error = error_data(raised, filename)
        else:
            got_error = _case_error(message, filename, got)
        later_files, later_events = watcher.take()
        snapshot.restore()
        try:
            outcome = plain(normalize(got))
        except BaseException:  # noqa: BLE001  (unreadable is wrong, not fatal)
            outcome = {"unreadable": True}
        out.send(
            {
                "kind": "case",
                "index": index,
                "label": case.label,
                "outcome": outcome,
                "error": got_error,
                "stub": stub,
                "reference": sorted(set(seen_later + later_files + later_events))[:20],
            }
        )
        if stub:
            break  # not attempted: the other cases would say the same
    out.send({"kind": "finish"})


def _case_error(
    message: str | None, filename: str, outcome: Any
) -> dict[str, Any] | None:
    """The short traceback of a case (text) as data: the exception's type
    (from the outcome), its message and the student's line numbers."""
    if message is None:
        return None
    kind = outcome.get("raised", "") if isinstance(outcome, dict) else ""
    kind = kind if isinstance(kind, str) else ""
    lines, text = [], ""
    marker = f'File "{filename}", line '
    for number, line in enumerate(message.splitlines()):
        if marker in line:
            digits = line.split(marker, 1)[1].split(",")[0]
            if digits.isdigit():
                lines.append(int(digits))
        elif kind and (line == kind or line.startswith(kind + ":")):
            rest = "\n".join(message.splitlines()[number:])
            text = rest[len(kind) + 1 :]
            break
    return {
        "type": kind[:80],
        "message": " ".join(text.split())[:MESSAGE],
        "lines": lines[-4:],
    }


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
        import ctypes  # lazily: the browser imports this file, without ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
    except (OSError, AttributeError, ImportError):
        pass


def set_limits(limits: dict[str, int]) -> None:
    import resource  # lazily: the browser (checking) imports this file, no resource

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

    def __init__(self, nonce: bytearray, job: dict[str, Any]) -> None:
        self.nonce = nonce
        self.seconds = float(job.get("seconds", 60))
        self.limits = dict(job.get("limits", {}))
        self.sandboxed = bool(job.get("sandboxed")) and os.getpid() <= 3
        self.exercises = list(job["exercises"])
        self.pieces = [(str(i), str(t)) for i, t in job.get("pieces", [])]
        self.seeds = {str(k): str(v) for k, v in dict(job.get("seeds", {})).items()}
        self.replays_fd = int(job.get("replays", -1))

    def emit(self, record: dict[str, Any]) -> None:
        line = bytes(self.nonce) + b" " + json.dumps(record).encode() + b"\n"
        view = memoryview(line)
        while view:
            view = view[os.write(1, view) :]

    def run(self) -> None:
        # at call time: after main()'s limits, never in the judge
        from course.checking import load

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
    job["replays"] = os.dup(0)  # the children's messages: never read here
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    become(job.get("user"))
    not_dumpable()
    set_limits(job.get("limits", {}))
    Runner(nonce, job).run()


if __name__ == "__main__":
    main()
