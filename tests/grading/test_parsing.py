"""The grader parses Python in threads (``grade --jobs``, and the drawn
cases' outcomes computed beside the runner); CPython 3.11's ``ast.parse``
fails when two threads parse at once, so the grader parses through
``course.parsing.parse``, one thread at a time."""

from __future__ import annotations

import ast
import gc
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from course.parsing import parse

COURSE = Path(__file__).resolve().parents[2] / "course"
# Modules that parse outside the grader's threads: the release (edition) and
# the book's output hook, which runs inside a notebook's kernel.
NOT_IN_THREADS = {"parsing.py", "edition.py", "book_outputs.py"}


def errors_parsing_in_threads(parser: Callable[[str], ast.Module]) -> list[str]:
    """Four threads parse a long module again and again while the garbage
    collector runs finalizers (which let another thread in); the errors."""
    source = (COURSE / "similarity.py").read_text("utf-8")
    errors: list[str] = []

    class Cycle:
        def __del__(self) -> None:
            pass

    def work() -> None:
        for _ in range(15):
            for _ in range(50):
                one, two = Cycle(), Cycle()
                one.other, two.other = two, one  # type: ignore[attr-defined]
            try:
                parser(source)
            except SystemError as error:
                errors.append(str(error))

    threshold = gc.get_threshold()
    gc.set_threshold(50)
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        gc.set_threshold(*threshold)
    return errors


def test_parsing_in_threads_never_fails() -> None:
    assert errors_parsing_in_threads(parse) == []


def test_without_the_lock_the_same_threads_fail() -> None:
    """The attack the lock stops, on this interpreter."""
    errors = errors_parsing_in_threads(ast.parse)
    if not errors:
        pytest.skip("this Python's parser does not fail in threads")
    assert "recursion depth mismatch" in errors[0]


def test_the_grader_parses_only_through_the_lock() -> None:
    direct = {
        path.name
        for path in COURSE.glob("*.py")
        if "ast.parse(" in path.read_text("utf-8")
    }
    assert direct <= NOT_IN_THREADS, direct - NOT_IN_THREADS
