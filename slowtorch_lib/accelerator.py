"""``torch.accelerator`` as it answers on a machine without one.

Tutorials open with ``device = torch.accelerator.current_accelerator().type
if torch.accelerator.is_available() else "cpu"``. Here there is no
accelerator: the questions get PyTorch's answers on such a machine, and
what needs a device raises PyTorch's error.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "current_accelerator",
    "current_device_idx",
    "current_device_index",
    "device_count",
    "is_available",
    "set_device_idx",
    "set_device_index",
    "synchronize",
]

NO_ACCELERATOR = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """Whether an accelerator (a GPU...) can be used: no."""
    return False


def current_accelerator(check_available: bool = False) -> None:
    """The accelerator's device type: ``None``, as there is none."""
    return None


def device_count() -> int:
    """How many accelerator devices there are: 0."""
    return 0


def current_device_index() -> int:
    """Raises PyTorch's RuntimeError: there is no device to name."""
    raise RuntimeError(NO_ACCELERATOR)


def set_device_index(device: Any) -> None:
    """Raises PyTorch's RuntimeError: there is no device to choose."""
    raise RuntimeError(NO_ACCELERATOR)


def synchronize(device: Any = None) -> None:
    """Raises PyTorch's RuntimeError: there is no device to wait for."""
    raise RuntimeError(NO_ACCELERATOR)


current_device_idx = current_device_index
set_device_idx = set_device_index
