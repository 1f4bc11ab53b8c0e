"""The grader's worker: grades the answer cells of one notebook, in a fresh process.

Started by :mod:`course.grading` as ``python -I -c ...`` in a fresh temporary
folder, with the grader's own copy of the engine and of the checks first on
``sys.path``. It reads a job (JSON) from stdin: the exercises to grade, each
with the source of its answer cell. Before any student code runs it loads
every check and every recorded answer, and takes a snapshot of the engine and
of the checker. Then, for each exercise in notebook order, it

1. puts the snapshot back (so nothing an earlier cell changed survives),
2. runs the answer cell alone, in a fresh namespace holding only ``torch``
   (the engine) and a ``check`` that does nothing,
3. takes the answer by its name, puts the snapshot back again, and runs
   every case, public and grading-only, through the grader's own
   :func:`course.checking.evaluate`, putting the snapshot back before each.

Importing ``torch``, ``course`` or ``solutions``, or holding the engine's own
version of the piece, scores 0 for that exercise. Results go to a file, one
JSON line per exercise, written as soon as each is known: if the process is
killed (time limit) or exits (``os._exit``), the grader still knows how far
it got. Standard library only.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import io
import json
import os
import sys
import traceback
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from typing import Any

from course.checking import (
    SHOWN_FAILURES,
    Exercise,
    Report,
    evaluate,
    expected_outcomes,
    hint_for,
    load,
    show,
)
from course.substitute import original

FORBIDDEN_MODULES = ("torch", "course", "solutions")
PROTECTED = ("slowtorch_lib", "course")


# --- what the answer must not use -------------------------------------------------


def reference_names(exercise: Exercise) -> set[str]:
    """Names that hold the engine's own answer to this exercise."""
    names = set(exercise.forbidden)
    if exercise.target:
        parts = exercise.target.split(".")
        owner_is_class = parts[-2][:1].isupper()
        names.add(parts[-2] if owner_is_class else parts[-1])
    return names


def reference_objects(exercise: Exercise) -> list[Any]:
    """The engine's own objects for this exercise."""
    found: list[Any] = []
    if not exercise.target:
        return found
    found.append(original(exercise.target))
    module_name = exercise.target.rsplit(".", 2)[0]
    module = sys.modules.get(module_name) or sys.modules.get(
        exercise.target.rsplit(".", 1)[0]
    )
    for name in exercise.forbidden:
        for candidate in (module, sys.modules.get(exercise.target.rsplit(".", 1)[0])):
            if candidate is not None and hasattr(candidate, name):
                found.append(getattr(candidate, name))
    return found


def imports_in(source: str, exercise: Exercise) -> list[str]:
    """What the cell imports or reaches for that it must not (from its text)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
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
        found += [
            f"import {m}" for m in modules if m.split(".")[0] in FORBIDDEN_MODULES
        ]
    return sorted(set(found))


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
        inner += [
            cell.cell_contents for cell in value.__closure__ or () if _filled(cell)
        ]
        inner += list(value.__defaults__ or ())
    if isinstance(value, type):
        inner += list(vars(value).values()) + list(value.__mro__[1:])
    return any(holds_reference(item, references, depth + 1) for item in inner)


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


@contextmanager
def watched_imports(seen: list[str]) -> Iterator[None]:
    """Records, and refuses, every import of torch, course or solutions made
    inside the block (the grader's own modules are imported before)."""
    real_import = builtins.__import__
    real_import_module = importlib.import_module

    def guarded_import(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] in FORBIDDEN_MODULES:
            seen.append(f"import {name}")
            raise ModuleNotFoundError(f"the grader does not let answers import {name}")
        return real_import(name, *args, **kwargs)

    def guarded_import_module(name: str, package: str | None = None) -> Any:
        if name.split(".")[0] in FORBIDDEN_MODULES:
            seen.append(f"import {name}")
            raise ModuleNotFoundError(f"the grader does not let answers import {name}")
        return real_import_module(name, package)

    builtins.__import__ = guarded_import
    importlib.import_module = guarded_import_module  # type: ignore[assignment]
    try:
        yield
    finally:
        builtins.__import__ = real_import
        importlib.import_module = real_import_module  # type: ignore[assignment]


# --- a snapshot of the engine and the checker ---------------------------------------


class Snapshot:
    """Module and class namespaces of the engine and the checker, and builtins."""

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
        from slowtorch_lib import _dtype
        from slowtorch_lib.autograd.grad_mode import GRAD_MODE

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
            for key in [k for k in namespace if k not in saved]:
                del namespace[key]
            for key, value in saved.items():
                if namespace.get(key, _MISSING) is not value:
                    namespace[key] = value
        for cls, saved in self.classes:
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
        from slowtorch_lib import _dtype

        _dtype.set_default_dtype(self.default_dtype)
        sys.path[:] = self.path


_MISSING = object()


# --- grading one exercise ---------------------------------------------------


def quiet_check(*args: Any, **kwargs: Any) -> None:
    """Stands in for ``check`` while an answer cell runs."""


def short_error(error: BaseException, filename: str) -> str:
    frames = [
        f for f in traceback.extract_tb(error.__traceback__) if f.filename == filename
    ]
    lines = traceback.format_list(frames[-3:]) + traceback.format_exception_only(
        type(error), error
    )
    return "".join(lines).rstrip()


def run_cell(
    exercise: Exercise, source: str, snapshot: Snapshot
) -> tuple[Any, str | None, list[str], dict[str, Any]]:
    """Runs the answer cell; returns the answer, an error, forbidden imports
    and the cell's namespace."""
    import slowtorch_lib

    filename = f"<answer cell of exercise {exercise.id}>"
    namespace: dict[str, Any] = {
        "__name__": "__main__",
        "torch": slowtorch_lib,
        "check": quiet_check,
    }
    seen: list[str] = []
    error = None
    printed = io.StringIO()
    try:
        code = compile(source, filename, "exec")
        with watched_imports(seen), redirect_stdout(printed), redirect_stderr(printed):
            exec(code, namespace)  # noqa: S102  (the student's code, isolated)
    except SyntaxError as raised:
        error = "".join(traceback.format_exception_only(type(raised), raised)).rstrip()
    except BaseException as raised:  # noqa: BLE001  (SystemExit, KeyboardInterrupt too)
        error = short_error(raised, filename)
    answer = namespace.get(exercise.name, _MISSING)
    snapshot.restore()
    return answer, error, seen, namespace


def grade_exercise(exercise_id: str, source: str, snapshot: Snapshot) -> dict[str, Any]:
    exercise = load(exercise_id)
    cases = list(exercise.cases) + list(exercise.grading_cases)
    expected = dict(expected_outcomes().get(exercise_id, {}))
    expected.update(expected_outcomes(grading=True).get(exercise_id, {}))
    result: dict[str, Any] = {"id": exercise_id, "total": len(cases), "passed": 0}
    snapshot.restore()
    forbidden = imports_in(source, exercise)
    answer, error, seen, namespace = run_cell(exercise, source, snapshot)
    forbidden = sorted(set(forbidden + seen))
    if forbidden:
        return {
            **result,
            "status": "reference",
            "message": "uses the reference: " + ", ".join(forbidden),
        }
    if answer is _MISSING:
        message = f"the cell does not define {exercise.name}"
        if error:
            message += "; it raised:\n" + error
        return {**result, "status": "error", "message": message}
    references = reference_objects(exercise)
    if holds_reference(answer, references) or any(
        holds_reference(value, references, depth=2) for value in namespace.values()
    ):
        return {
            **result,
            "status": "reference",
            "message": f"{exercise.name} is (or calls) the engine's own version",
        }
    seen_later: list[str] = []
    printed = io.StringIO()
    with (
        watched_imports(seen_later),
        redirect_stdout(printed),
        redirect_stderr(printed),
    ):
        report = evaluate(
            exercise, answer, cases, expected, before_case=snapshot.restore
        )
    snapshot.restore()
    if seen_later:
        return {
            **result,
            "status": "reference",
            "message": "uses the reference: " + ", ".join(sorted(set(seen_later))),
        }
    if not report.attempted:
        return {
            **result,
            "status": "not attempted",
            "message": "the stub is still there",
        }
    return {**result, **summary_of(report)}


def summary_of(report: Report) -> dict[str, Any]:
    failed = [r for r in report.results if not r.passed and r.convention is None]
    failed += [r for r in report.results if not r.passed and r.convention is not None]
    failures = [
        {
            "label": r.label,
            "convention": r.convention,
            "expected": show(r.expected),
            "got": show(r.got),
            "error": r.error,
        }
        for r in failed[:SHOWN_FAILURES]
    ]
    main_failed = any(r.convention is None for r in failed)
    hints = (
        [hint_for(report.exercise, tier, main_failed) for tier in (1, 2)]
        if failed
        else []
    )
    return {
        "status": "graded",
        "passed": report.passed,
        "failures": failures,
        "failed": len(failed),
        "hints": [h for h in dict.fromkeys(hints) if h],
    }


def main() -> None:
    job = json.loads(sys.stdin.read())
    results_path = job["results"]
    for exercise_id, _ in job["exercises"]:
        load(exercise_id)
    expected_outcomes()
    expected_outcomes(grading=True)
    import slowtorch_lib  # noqa: F401  (the whole engine, before the snapshot)
    import slowtorch_lib.autograd.engine  # noqa: F401

    snapshot = Snapshot()
    write: Callable[[dict[str, Any]], None]
    results = open(results_path, "a", encoding="utf-8")  # noqa: SIM115

    def write(record: dict[str, Any]) -> None:
        results.write(json.dumps(record) + "\n")
        results.flush()
        os.fsync(results.fileno())

    for exercise_id, source in job["exercises"]:
        write({"id": exercise_id, "status": "started"})
        try:
            record = grade_exercise(exercise_id, source, snapshot)
        except BaseException as error:  # noqa: BLE001  (report, go on)
            snapshot.restore()
            record = {
                "id": exercise_id,
                "status": "error",
                "passed": 0,
                "message": f"grading failed: {type(error).__name__}: {error}",
            }
        write(record)
    results.close()


if __name__ == "__main__":
    main()
