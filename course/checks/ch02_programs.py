"""Chapter 2's case programs that several exercises share: a leaf's
gradients, and the name of the error a program raised."""

from __future__ import annotations

from typing import Any


def grads(*tensors: Any) -> list[Any]:
    return [None if t.grad is None else t.grad for t in tensors]


def raised(run: Any) -> Any:
    """``run()``, or the name of the RuntimeError it raised (a piece not
    written yet, a NotImplementedError, goes on)."""
    try:
        return run()
    except NotImplementedError:
        raise
    except RuntimeError as error:
        return type(error).__name__
