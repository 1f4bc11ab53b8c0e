"""Grad mode: one switch that says whether operations record a graph.

``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode``
work as context managers and as decorators, as in PyTorch.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

from slowtorch_lib._tensor import INFERENCE_MODE

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


class _GradModeContext:
    """Sets grad mode on entry and restores the previous mode on exit."""

    _mode: bool

    def __init__(self) -> None:
        self._previous: list[bool] = []

    def __enter__(self) -> None:
        self._previous.append(GRAD_MODE.enabled)
        GRAD_MODE.enabled = self._mode

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        GRAD_MODE.enabled = self._previous.pop()

    def __call__(self, function: F) -> F:
        """Used as a decorator: runs every call of ``function`` in this mode."""
        mode = self._mode

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            previous = GRAD_MODE.enabled
            GRAD_MODE.enabled = mode
            try:
                return function(*args, **kwargs)
            finally:
                GRAD_MODE.enabled = previous

        return wrapper  # type: ignore[return-value]


class _BareDecorator(_GradModeContext):
    """Lets ``@no_grad`` be written without parentheses, as in PyTorch."""

    def __new__(cls, function: Any = None) -> Any:
        context = super().__new__(cls)
        if function is None:
            return context  # no_grad(): Python calls __init__ next
        _GradModeContext.__init__(context)
        return context(function)


class no_grad(_BareDecorator):
    """Switches graph recording off: results have no ``grad_fn``.

    Use it for evaluation and for updating parameters in place::

        with no_grad():
            w -= lr * w.grad
    """

    _mode = False


class enable_grad(_BareDecorator):
    """Switches graph recording on, for example inside a ``no_grad`` block."""

    _mode = True


class set_grad_enabled(_GradModeContext):
    """Sets grad mode to ``mode``.

    Like PyTorch, it takes effect at once when called, so it works as a plain
    function call as well as a context manager::

        set_grad_enabled(False)   # off from here on
    """

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._mode = bool(mode)
        self._previous.append(GRAD_MODE.enabled)
        GRAD_MODE.enabled = self._mode

    def __enter__(self) -> None:
        # The mode was already set by __init__; __exit__ restores the old one.
        pass

    def __call__(self, function: F) -> F:
        # As a decorator it must not change the mode at definition time.
        GRAD_MODE.enabled = self._previous.pop()
        return super().__call__(function)


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
