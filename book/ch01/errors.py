"""Printing an error the way the book shows it: type, message, wrapped."""

from __future__ import annotations

import textwrap
from collections.abc import Callable


def show_error(thunk: Callable[[], object], width: int = 80) -> None:
    """Calls ``thunk`` and prints the error it raises, each line wrapped.

    Raises:
        AssertionError: If ``thunk`` raises nothing (the page expected it to).
    """
    try:
        thunk()
    except Exception as error:
        message = f"{type(error).__name__}: {error}"
        for line in message.splitlines():
            print(textwrap.fill(line, width=width, subsequent_indent="    "))
    else:
        raise AssertionError("expected an error, and none was raised")
