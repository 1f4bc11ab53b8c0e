"""NumPy's keyword names, which PyTorch's native functions take too.

PyTorch's argument parser, the C++ code behind every function and method
that PyTorch writes in C++ (``torch.sum``, ``Tensor.argmax``,
``torch.cat``...), accepts NumPy's names for four parameters: ``axis`` for
``dim``, ``keepdims`` for ``keepdim``, ``x``, ``a`` or ``x1`` for ``input``
and ``x2`` for ``other``. So ``x.argmax(axis=1)`` works, while the
functions PyTorch writes in Python (``torch.norm``, ``Tensor.split``,
everything in ``torch.nn.functional``) refuse ``axis``.

The chapters never use these names, so the engine's functions do not
spell them out. :func:`install` wraps, once, every public function of the
package and every method of ``Tensor`` that has one of the four
parameters, except those PyTorch writes in Python
(:data:`WRITTEN_IN_PYTHON`, checked against PyTorch by
``tests/test_aliases.py``).
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from typing import Any

__all__ = ["ALIASES", "WRITTEN_IN_PYTHON", "install", "numpy_names"]

ALIASES = {
    "dim": ("axis",),
    "keepdim": ("keepdims",),
    "input": ("x", "a", "x1"),
    "other": ("x2",),
}

# Functions and methods with one of the parameters above that PyTorch
# defines in Python, where its argument parser never sees the call.
WRITTEN_IN_PYTHON = frozenset(
    {"norm", "split", "unflatten", "unique", "unique_consecutive"}
)


def _renames(function: Callable[..., Any]) -> dict[str, str]:
    """NumPy's name of each parameter ``function`` has, to the parameter."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return {}
    return {
        alias: name
        for name, aliases in ALIASES.items()
        if name in parameters
        for alias in aliases
    }


def numpy_names(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, also taking NumPy's names of its parameters.

    A NumPy name given beside the parameter's own is refused, as PyTorch
    refuses it: with a ``TypeError`` naming the extra keyword.
    """
    renames = _renames(function)
    if not renames:
        return function
    name = function.__name__

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        for alias in renames.keys() & kwargs.keys():
            if renames[alias] in kwargs:
                raise TypeError(
                    f"{name}() got an unexpected keyword argument '{alias}'"
                )
            kwargs[renames[alias]] = kwargs.pop(alias)
        return function(*args, **kwargs)

    return call


def install(package: types.ModuleType, tensor: type) -> None:
    """Wraps ``package``'s public functions and ``tensor``'s methods.

    Only plain functions are wrapped: a class, a property, a static or a
    class method keeps its own way of being called.
    """
    for owner in (package, tensor):
        for name in dir(owner):
            value = inspect.getattr_static(owner, name)
            if name.startswith("_") or name in WRITTEN_IN_PYTHON:
                continue
            if isinstance(value, types.FunctionType):
                setattr(owner, name, numpy_names(value))
