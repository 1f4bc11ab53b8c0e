"""Replays: each piece paid for once, when another piece's case calls it.

A case of exercise 1.8 makes tensors, and every tensor calls the student's
1.5 (``contiguous_strides``). If that 1.5 is wrong, the case of 1.8 fails
too, and a correct 1.8 loses marks for a mistake that 1.5 already paid for.

Some pieces compute plain data from plain data (a shape, strides, window
ranges), or a view of their first argument: what they return depends on
nothing else. For those pieces (``REPLAYED``), the judge notes, outside
the sandbox, what the complete engine's piece returned for each call that
the *other* exercises' cases make (:func:`recording`, in
:mod:`course.record`). The runner then
stands a replay in front of the student's piece while the other exercises
run (:func:`replaying`): a call noted there gets the noted result; any other
call goes to the student's piece (or its stub) as before. A correct piece
and its replay agree on every call, so a replay never changes what a right
answer earns.

Where the notes go: each exercise's child reads, before any student code
runs, the notes of the pieces whose exercise is not graded from then on in
its runner (``replay_messages`` in :mod:`course.runner_protocol`). So no
child ever holds the notes of its own piece (they would answer its cases)
or of a piece graded after it (it could leave them in ``/tmp`` for that
piece's child), and the runner's first process, which every child is a copy
of, never reads them. What a note tells is what PyTorch tells anyone (the
strides of a shape, the windows of a tensor).

Standard library only: this runs in the runner's tree.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["REPLAYED", "key_of", "recording", "replaying", "stored"]

# exercise id -> what its piece returns: "values" (plain data) or "view"
# (a view of its first argument, noted as its shape, strides and offset)
REPLAYED: dict[str, str] = {
    "1.5": "values",
    "1.6": "values",
    "1.7": "values",
    "1.8": "values",
    "1.9": "values",
    "3.5": "values",
    "5.3": "values",
    "5.4": "view",
    "5.9": "values",
}

_PLAIN = (int, float, bool, str, type(None))


class Unkeyable(Exception):
    """An argument that is not plain data or a tensor's layout."""


def _plain(value: Any, depth: int = 0) -> Any:
    """``value`` as builtins only: a tensor as its layout."""
    if depth > 8:
        raise Unkeyable
    if type(value) in _PLAIN:
        return value
    if isinstance(value, (tuple, list)) and len(value) <= 64:
        items = [_plain(item, depth + 1) for item in value]
        return items if type(value) is list else tuple(items)
    if type(value).__name__ == "Tensor" and hasattr(value, "storage_offset"):
        return (
            "tensor",
            tuple(int(n) for n in value.shape),
            tuple(int(n) for n in value.stride()),
            int(value.storage_offset()),
            str(value.dtype),
        )
    raise Unkeyable


def key_of(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> str:
    """The text that names one call: its arguments as plain data."""
    return repr((_plain(args), sorted((k, _plain(v)) for k, v in kwargs.items())))


def stored(kind: str, result: Any) -> str:
    """What a call's result is noted as (text that ``ast.literal_eval``
    reads back to the same value), or raises Unkeyable."""
    if kind == "view":
        result = (
            tuple(result.shape),
            tuple(result.stride()),
            int(result.storage_offset()),
        )
    text = repr(_plain(result))
    again = ast.literal_eval(text)
    if again != result or type(again) is not type(result):
        raise Unkeyable
    return text


def recording(
    kind: str, function: Callable[..., Any], notes: dict[str, str]
) -> Callable[..., Any]:
    """``function``, noting each call's key and result into ``notes``."""

    def recorded(*args: Any, **kwargs: Any) -> Any:
        try:
            key = key_of(args, kwargs)
        except Unkeyable:
            key = None
        result = function(*args, **kwargs)
        if key is not None:
            try:
                notes[key] = stored(kind, result)
            except (Unkeyable, ValueError, SyntaxError, AttributeError, TypeError):
                pass
        return result

    return recorded


def replaying(
    kind: str, function: Callable[..., Any], notes: Mapping[str, str]
) -> Callable[..., Any]:
    """``function`` behind the noted results: a noted call gets its note,
    any other call goes to ``function``."""

    def replay(*args: Any, **kwargs: Any) -> Any:
        try:
            text = notes.get(key_of(args, kwargs))
        except Exception:  # noqa: BLE001  (an odd argument: the piece decides)
            text = None
        if text is None:
            return function(*args, **kwargs)
        value = ast.literal_eval(text)
        if kind == "view":
            shape, strides, offset = value
            return args[0].as_strided(shape, strides, offset)
        return value

    return replay
