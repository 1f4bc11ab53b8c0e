"""Grad mode: one switch that says whether operations record a graph.

``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode``
work as context managers and as decorators, as in PyTorch.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

from slowtorch_lib._tensor_autograd import INFERENCE_MODE

__all__ = [
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_grad_enabled",
]

F = TypeVar("F", bound=Callable[..., Any])


class _GradMode:
    """Holds the switch. ``enabled`` is read by every operation."""

    enabled: bool = True


GRAD_MODE = _GradMode()


def is_grad_enabled() -> bool:
    """Whether operations currently record the graph for autograd."""
    return GRAD_MODE.enabled


class no_grad:
    """Switches graph recording off: results have no ``grad_fn``.

    Use it for evaluation and for updating parameters in place::

        with no_grad():
            w -= lr * w.grad

    It restores the previous mode on exit, also when the block raises, when
    blocks are nested and when one object is entered twice. As a decorator,
    with or without parentheses, every call of the function runs without
    recording.
    """

    def __new__(cls, function: Any = None) -> Any:
        context = super().__new__(cls)
        if function is None:
            return context  # no_grad(): Python calls __init__ next
        no_grad.__init__(context)
        return context(function)  # @no_grad without parentheses

    def __init__(self) -> None:
        self._previous: list[bool] = []

    def __enter__(self) -> None:
        self._previous.append(GRAD_MODE.enabled)
        GRAD_MODE.enabled = False

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        GRAD_MODE.enabled = self._previous.pop()

    def __call__(self, function: F) -> F:
        """Used as a decorator: runs every call of ``function`` without a graph."""

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with no_grad():
                return function(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


class enable_grad:
    """Switches graph recording on, for example inside a ``no_grad`` block.

    The mirror of :class:`no_grad` (which is an exercise, so this class does
    not share its code): a context manager, and a decorator with or without
    parentheses.
    """

    def __new__(cls, function: Any = None) -> Any:
        if function is not None:  # @enable_grad without parentheses
            return cls()(function)
        return super().__new__(cls)

    def __init__(self) -> None:
        self._outer_modes: list[bool] = []

    def __enter__(self) -> None:
        self._outer_modes.append(is_grad_enabled())
        GRAD_MODE.enabled = True

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        outer = self._outer_modes.pop()
        GRAD_MODE.enabled = outer

    def __call__(self, function: F) -> F:
        """Used as a decorator: runs every call of ``function`` with a graph."""

        @functools.wraps(function)
        def with_graph(*args: Any, **kwargs: Any) -> Any:
            with enable_grad():
                return function(*args, **kwargs)

        return with_graph  # type: ignore[return-value]


class set_grad_enabled:
    """Sets grad mode to ``mode``.

    Like PyTorch, it takes effect at once when called, so it works as a plain
    function call as well as a context manager::

        set_grad_enabled(False)   # off from here on

    As a decorator it leaves the mode alone until the function is called.
    """

    def __init__(self, mode: bool) -> None:
        self._mode = bool(mode)
        self._before = GRAD_MODE.enabled
        GRAD_MODE.enabled = self._mode

    def __enter__(self) -> None:
        # The mode was already set by __init__; __exit__ restores the old one.
        pass

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        GRAD_MODE.enabled = self._before

    def __call__(self, function: F) -> F:
        """Used as a decorator: runs every call of ``function`` in this mode."""
        GRAD_MODE.enabled = self._before  # not changed at definition time
        mode = self._mode

        @functools.wraps(function)
        def in_mode(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return function(*args, **kwargs)

        return in_mode  # type: ignore[return-value]


def is_inference_mode_enabled() -> bool:
    """Whether inference mode is on."""
    return INFERENCE_MODE.enabled


class inference_mode:
    """``no_grad`` and more: tensors made inside are *inference tensors*.

    An inference tensor never takes part in autograd: outside inference
    mode it cannot be changed in place, be saved for a backward pass, or
    be given ``requires_grad``. ``clone()`` gives a normal tensor.
    ``inference_mode(False)`` switches it off inside an inference block.
    Works as a context manager and as a decorator, with or without
    parentheses.
    """

    def __new__(cls, mode: Any = True) -> Any:
        context = super().__new__(cls)
        if callable(mode):  # @inference_mode without parentheses
            inference_mode.__init__(context)
            return context(mode)
        return context

    def __init__(self, mode: bool = True) -> None:
        self._mode = bool(mode)
        self._previous: list[tuple[bool, bool]] = []

    def __enter__(self) -> None:
        self._previous.append((GRAD_MODE.enabled, INFERENCE_MODE.enabled))
        INFERENCE_MODE.enabled = self._mode
        GRAD_MODE.enabled = not self._mode  # as PyTorch: False turns grad on

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        GRAD_MODE.enabled, INFERENCE_MODE.enabled = self._previous.pop()

    def __call__(self, function: F) -> F:
        """Used as a decorator: runs every call of ``function`` in this mode."""

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(self._mode):
                return function(*args, **kwargs)

        return wrapper  # type: ignore[return-value]
