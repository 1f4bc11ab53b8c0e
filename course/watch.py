"""The watch on the student's process, in the runner's child: what its
imports reach for (:func:`watched_imports`), a snapshot of the engine's and
the cases' namespaces put back before each case (:class:`Snapshot`), the
audit hook that notes reading the grader's files and what no answer needs
(:class:`Guard`), and what a cell left running (:func:`left_running`).

Standard library and :mod:`course.reference_use` at import time; the engine
at call time (after the runner's limits, never in the judge). The runner's
tree ships this file (``course.trees.RUNNER_FILES``).
"""

from __future__ import annotations

import builtins
import importlib
import linecache
import operator
import os
import signal
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from course.reference_use import FORBIDDEN_MODULES

PROTECTED = ("slowtorch_lib", "course")
MISSING = object()  # what a namespace holds for a name it does not hold


# --- what the answer imports -------------------------------------------------------


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
                if namespace.get(key, MISSING) is not value:
                    namespace[key] = value
        for cls, saved in self.classes:
            if unchanged(vars(cls), saved):
                continue
            try:
                for key in [k for k in vars(cls) if k not in saved]:
                    delattr(cls, key)
                for key, value in saved.items():
                    if key not in ("__dict__", "__weakref__") and (
                        vars(cls).get(key, MISSING) is not value
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


# --- the audit hook, and what a cell left running ----------------------------------


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
        # the runner's tree (this file is in its course/, the runner at its root)
        tree = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        GUARD.append(Guard(tree))
        sys.addaudithook(GUARD[0])
    return GUARD[0]


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
