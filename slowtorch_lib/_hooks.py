"""Hook handles: what every ``register_*hook`` method returns."""

from __future__ import annotations

from itertools import count
from typing import Any

__all__ = ["RemovableHandle", "add_hook"]

_ids = count()


class RemovableHandle:
    """``handle.remove()`` takes a registered hook off again.

    The hooks of one place (a module's forward hooks, a graph node's hooks)
    live in a dict from handle id to hook, in the order they were added. It
    also works as a context manager, removing the hook on exit.
    """

    __slots__ = ("hooks", "id")

    def __init__(self, hooks: dict[int, Any]) -> None:
        self.hooks = hooks
        self.id = next(_ids)

    def remove(self) -> None:
        """Takes the hook off (doing nothing if it is already off)."""
        self.hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()


def add_hook(hooks: dict[int, Any], hook: Any) -> RemovableHandle:
    """Adds ``hook`` to ``hooks`` and returns the handle that removes it."""
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle
