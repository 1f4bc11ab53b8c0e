"""Convolution and pooling layers: not in this engine yet.

Making one raises ``NotImplementedError`` that says so, rather than the
``AttributeError`` a missing name would give.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib.nn.functional.convolution import not_yet
from slowtorch_lib.nn.modules.module import Module

__all__ = [
    "AvgPool1d",
    "AvgPool2d",
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "MaxPool1d",
    "MaxPool2d",
]


class _NotYet(Module):
    """A layer the engine does not have: making one raises."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise not_yet(f"nn.{type(self).__name__}")


class Conv1d(_NotYet):
    """Not implemented yet."""


class Conv2d(_NotYet):
    """Not implemented yet."""


class Conv3d(_NotYet):
    """Not implemented yet."""


class MaxPool1d(_NotYet):
    """Not implemented yet."""


class MaxPool2d(_NotYet):
    """Not implemented yet."""


class AvgPool1d(_NotYet):
    """Not implemented yet."""


class AvgPool2d(_NotYet):
    """Not implemented yet."""
