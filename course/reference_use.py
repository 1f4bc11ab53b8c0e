"""What counts as using the engine's own answer to an exercise.

An answer must not import torch, the course or the model answers, nor
reach for the engine's own version of what it writes: :func:`imports_in`
reads that from the answer's text (the judge reads it too, outside the
sandbox, and ``course.checking`` for the notebook's ``check()``);
:func:`reference_objects` and :func:`holds_reference` find it among the
objects an answer cell left (in the runner's child, :mod:`course.exercise_child`).

Standard library only at import time; :mod:`course.parsing` and
:mod:`course.substitute` at call time. The runner's tree ships this file
(``course.trees.RUNNER_FILES``).
"""

from __future__ import annotations

import ast
import sys
import types
from typing import Any

FORBIDDEN_MODULES = ("torch", "course", "solutions")


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
