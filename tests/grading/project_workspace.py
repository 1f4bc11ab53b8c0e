"""A student's workspace for the final project's tests: chapters 1 and 2's
pieces of the engine as saved files (``my_engine/exN_M_name.py``), written
here from the engine's own definitions as a student who got them right would
have, each with the helpers it defines beside it (the class engine stubs the
helpers only a piece uses)."""

from __future__ import annotations

import importlib
import inspect
import textwrap
from pathlib import Path

from course import edition
from course.saved_pieces import Piece, missing_names


def definition(module: object, name: str) -> str | None:
    """The source of a function or class of ``module`` named ``name``."""
    value = getattr(module, name, None)
    if not (inspect.isfunction(value) or inspect.isclass(value)):
        return None
    if value.__module__ != getattr(module, "__name__", None):
        return None
    return textwrap.dedent(inspect.getsource(value))


def piece_file(piece: Piece) -> str | None:
    """The text of a saved piece, or None for a method's piece."""
    owner, _, name = piece.target.rpartition(".")
    try:
        module = importlib.import_module(owner)
    except ImportError:
        return None  # a method of a class: not needed by the example project
    source = definition(module, name)
    if source is None or name != piece.name:
        return None
    parts, imports = [source], []
    for _ in range(3):
        for free in missing_names("\n\n".join(parts)):
            helper = definition(module, free)
            if helper is not None:
                parts.insert(0, helper)
            elif hasattr(module, free) and free not in imports:
                imports.append(free)
    head = [f"from {owner} import {n}" for n in sorted(set(imports))]
    return "\n".join(head) + "\n\n\n" + "\n\n".join(parts)


def write_workspace(
    folder: Path, chapters: tuple[str, ...] = ("1.", "2.")
) -> list[str]:
    """Writes the pieces of ``chapters`` into ``folder``; their ids."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for exercise in edition.pieces():
        if exercise.target is None or not exercise.id.startswith(chapters):
            continue
        piece = Piece(exercise.id, exercise.name, exercise.target, "")
        text = piece_file(piece)
        if text is not None:
            (folder / piece.file_name).write_text(text, "utf-8")
            written.append(exercise.id)
    return written
