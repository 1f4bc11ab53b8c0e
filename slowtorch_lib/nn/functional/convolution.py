"""Three-dimensional convolution and pooling: not in this engine.

The names exist so that a program using them stops with a clear
``NotImplementedError`` rather than an ``AttributeError``. The 1-d and 2-d
versions are in :mod:`.conv` and :mod:`.pooling`.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "avg_pool3d",
    "conv3d",
    "conv_transpose3d",
    "max_pool3d",
]


def not_yet(name: str) -> NotImplementedError:
    """The error for a 3-d convolution or pooling operation."""
    return NotImplementedError(
        f"{name}: 3-d convolutions and pooling are not implemented in this engine "
        "(the 1-d and 2-d ones are: conv1d, conv2d, max_pool2d, ...)."
    )


def conv3d(input: Any, weight: Any, *args: Any, **kwargs: Any) -> Any:
    """Not implemented."""
    raise not_yet("conv3d")


def conv_transpose3d(input: Any, weight: Any, *args: Any, **kwargs: Any) -> Any:
    """Not implemented."""
    raise not_yet("conv_transpose3d")


def max_pool3d(input: Any, *args: Any, **kwargs: Any) -> Any:
    """Not implemented."""
    raise not_yet("max_pool3d")


def avg_pool3d(input: Any, *args: Any, **kwargs: Any) -> Any:
    """Not implemented."""
    raise not_yet("avg_pool3d")
