"""``torch.distributed``: training on several processes or machines.

This engine has no distributed back end, as a PyTorch built without one:
``is_available()`` is False. Programs that ask first skip it; the functions
that need a process group raise PyTorch's error for a group never started,
and starting one is refused plainly.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "get_rank",
    "get_world_size",
    "init_process_group",
    "is_available",
    "destroy_process_group",
    "is_initialized",
]

NO_GROUP = (
    "Default process group has not been initialized, please make sure to call "
    "init_process_group."
)


def is_available() -> bool:
    """Whether the distributed package can be used: not in this engine."""
    return False


def is_initialized() -> bool:
    """Whether a default process group was started: never."""
    return False


def init_process_group(*args: Any, **kwargs: Any) -> None:
    """Refused: this engine runs in one process.

    Raises:
        NotImplementedError: Always.
    """
    raise NotImplementedError(
        "torch.distributed is not available in this engine (is_available() is "
        "False): train in one process."
    )


def get_rank(group: Any = None) -> int:
    """Raises PyTorch's ValueError: no process group was started."""
    raise ValueError(NO_GROUP)


def get_world_size(group: Any = None) -> int:
    """Raises PyTorch's ValueError: no process group was started."""
    raise ValueError(NO_GROUP)


def destroy_process_group(group: Any = None) -> None:
    """Raises PyTorch's AssertionError: there is no group to destroy.

    Raises:
        AssertionError: Always (no process group was started).
    """
    raise AssertionError("Process group cannot be None")
