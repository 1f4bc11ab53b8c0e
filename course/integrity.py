"""What the grader flags for the teacher: code reaching outside, and copies.

:func:`suspicious` lists what a cell's text reaches outside the exercise
(the interpreter, the operating system, other processes, files, the
network, methods that could lie about a value); :func:`copied` says whether
an answer is a model answer, disguised or not (:mod:`course.similarity`'s
check, against the fingerprints the judge keeps). Neither changes a mark by
itself: the grade is :mod:`course.judge`'s.
"""

from __future__ import annotations

import ast

from course import similarity
from course.answer_key import Answers
from course.parsing import parse

SUSPECT_MODULES = {
    "gc", "inspect", "sys", "os", "posix", "threading", "_thread", "signal",
    "atexit", "subprocess", "multiprocessing", "socket", "ssl", "ctypes",
    "importlib", "builtins", "resource", "shutil", "pathlib", "io", "urllib",
    "http", "pty", "fcntl", "mmap", "pickle", "marshal", "json", "faulthandler",
    "tracemalloc", "asyncio", "concurrent", "glob", "tempfile",
}  # fmt: skip
SUSPECT_NAMES = {
    "__globals__", "__subclasses__", "__code__", "__closure__", "__builtins__",
    "__import__", "__loader__", "__spec__", "f_back", "f_globals", "f_locals",
    "f_builtins", "tb_frame", "gi_frame", "cr_frame", "_getframe", "settrace",
    "setprofile", "open", "exec", "eval", "compile", "globals", "breakpoint",
}  # fmt: skip


LYING_METHODS = {"__eq__", "__ne__", "__repr__", "__str__", "__hash__", "__bool__"}


def suspicious(source: str) -> list[str]:
    """What in the cell's text reaches outside the exercise (the interpreter,
    the operating system, other processes, files, the network)."""
    try:
        tree = parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {
                a.name for a in node.names if a.name.split(".")[0] in SUSPECT_MODULES
            }
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.split(".")[0] in SUSPECT_MODULES:
                found.add(module)
        elif isinstance(node, ast.Attribute) and node.attr in SUSPECT_NAMES:
            found.add(node.attr)
        elif isinstance(node, ast.Name) and node.id in SUSPECT_NAMES:
            found.add(node.id)
        elif isinstance(node, ast.FunctionDef) and node.name in LYING_METHODS:
            found.add(f"defines {node.name}")
    return sorted(found)


def copied(exercise_id: str, source: str, answers: Answers) -> bool:
    found = similarity.copied_from_model(exercise_id, source, answers.fingerprints)
    return found is not None
