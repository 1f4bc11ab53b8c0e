"""Convolution and pooling: not in this engine yet.

The names exist so that a program using them stops with a clear
``NotImplementedError`` rather than an ``AttributeError``.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "avg_pool1d",
    "avg_pool2d",
    "conv1d",
    "conv2d",
    "conv3d",
    "max_pool1d",
    "max_pool2d",
]


def not_yet(name: str) -> NotImplementedError:
    """The error for a convolution or pooling operation."""
    return NotImplementedError(
        f"{name}: this engine does not have convolutions or pooling yet "
        "(only the fully connected layers: Linear, Embedding, ...)."
    )


def conv1d(input: Any, weight: Any, *args: Any, **kwargs: Any) -> Any:
    """Not implemented yet."""
    raise not_yet("conv1d")


def conv2d(input: Any, weight: Any, *args: Any, **kwargs: Any) -> Any:
    """Not implemented yet."""
    raise not_yet("conv2d")


def conv3d(input: Any, weight: Any, *args: Any, **kwargs: Any) -> Any:
    """Not implemented yet."""
    raise not_yet("conv3d")


def max_pool1d(input: Any, *args: Any, **kwargs: Any) -> Any:
    """Not implemented yet."""
    raise not_yet("max_pool1d")


def max_pool2d(input: Any, *args: Any, **kwargs: Any) -> Any:
    """Not implemented yet."""
    raise not_yet("max_pool2d")


def avg_pool1d(input: Any, *args: Any, **kwargs: Any) -> Any:
    """Not implemented yet."""
    raise not_yet("avg_pool1d")


def avg_pool2d(input: Any, *args: Any, **kwargs: Any) -> Any:
    """Not implemented yet."""
    raise not_yet("avg_pool2d")
