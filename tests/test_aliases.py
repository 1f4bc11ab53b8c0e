"""Aliases (``subtract``, ``multiply``...) and methods that call existing functions.

Each check runs the same code on both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compares what comes out, or the type and message of the
exception. Gradients and ``grad_fn`` names are checked by the op table.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

from typing import Any

import slowtorch_lib as st
from tests.parity import require_torch
from tests.parity_checks import (
    check,
    inf,
    nan,
)


def test_aliases_subtract_multiply_divide() -> None:
    a = [[1.5, -2.0, 7.0], [0.0, 3.0, -4.5]]
    b = [2.0, -0.5, 3.0]
    check(lambda lib: lib.subtract(lib.tensor(a), lib.tensor(b), alpha=2))
    check(lambda lib: lib.tensor(a).subtract(lib.tensor(b)))
    check(lambda lib: lib.multiply(lib.tensor(a), 3))
    check(lambda lib: lib.tensor(a).multiply(lib.tensor(b)))
    check(lambda lib: lib.divide(lib.tensor(a), lib.tensor(b)))
    check(lambda lib: lib.tensor(a).divide(lib.tensor(b), rounding_mode="floor"))
    check(lambda lib: lib.tensor(a).divide(lib.tensor(b), rounding_mode="trunc"))
    check(lambda lib: lib.tensor([7, -7]).divide(2, rounding_mode="floor"))
    check(lambda lib: lib.tensor([7, -7]).divide(2, rounding_mode="trunc"))
    check(lambda lib: lib.tensor([7, -7]).true_divide(2))
    check(lambda lib: lib.true_divide(lib.tensor([7, -7]), lib.tensor([2, 4])))
    check(lambda lib: lib.tensor(a).divide(2.0, rounding_mode="round"))


def test_methods_of_existing_functions() -> None:
    x = [[1.5, -2.0, 0.0], [nan, 3.0, -0.0]]
    check(lambda lib: lib.tensor([1.5, -2.0, 0.0, -0.0, inf]).sign())
    check(lambda lib: lib.tensor([3, 0, -2]).sign())
    check(lambda lib: lib.tensor(x).logical_and(lib.tensor([True, False, True])))
    check(lambda lib: lib.tensor(x).logical_or(lib.tensor([0, 0, 1])))
    check(lambda lib: lib.tensor(x).logical_xor(lib.tensor(x).t().t()))


def test_bernoulli_method() -> None:
    torch = require_torch()
    for lib in (st, torch):
        p = lib.tensor([[0.0, 1.0], [1.0, 0.0]])
        assert p.bernoulli().tolist() == [[0.0, 1.0], [1.0, 0.0]]
        assert p.bernoulli(1.0).tolist() == [[1.0, 1.0], [1.0, 1.0]]
        assert p.bernoulli(0.0).dtype == p.dtype
        st.manual_seed(0) if lib is st else torch.manual_seed(0)
        half = lib.full((1000,), 0.5, dtype=lib.float64).bernoulli()
        assert 400 < half.sum().item() < 600
    check(lambda lib: lib.tensor([1, 0]).bernoulli(), message=False)


def test_numpy_keyword_names() -> None:
    """``axis=``, ``keepdims=``, ``x=``/``a=``/``x1=`` and ``x2=``, as PyTorch's
    argument parser takes them, and their refusal beside their own names."""
    a = [[1.5, -2.0, 7.0], [0.0, 3.0, -4.5]]
    check(lambda lib: lib.tensor(a).argmax(axis=1))
    check(lambda lib: lib.argmax(lib.tensor(a), axis=1, keepdims=True))
    check(lambda lib: lib.sum(a=lib.tensor(a), axis=0))
    check(lambda lib: lib.tensor(a).sum(axis=0, keepdims=True))
    check(lambda lib: lib.cat([lib.tensor(a), lib.tensor(a)], axis=1))
    check(lambda lib: lib.stack([lib.tensor(a), lib.tensor(a)], axis=2))
    check(lambda lib: lib.tensor(a).softmax(axis=1), exact=False)
    check(lambda lib: lib.tensor(a).max(axis=0).values)
    check(lambda lib: lib.tensor(a).std(axis=1, keepdims=True), exact=False)
    check(lambda lib: lib.tensor(a).unsqueeze(axis=0))
    check(lambda lib: lib.add(x1=lib.tensor(a), x2=lib.tensor(a)))
    check(lambda lib: lib.exp(x=lib.tensor(a)))
    check(lambda lib: lib.tensor(a).sum(dim=0, axis=0))
    check(lambda lib: lib.tensor(a).sum(0, keepdim=True, keepdims=True))
    # PyTorch writes these in Python: its parser never sees the call.
    check(lambda lib: lib.tensor(a).split(1, axis=0), message=False)
    check(lambda lib: lib.norm(lib.tensor(a), axis=0), message=False)


def test_numpy_names_written_in_python_are_pytorchs() -> None:
    """The functions left without NumPy's names are those PyTorch defines in
    Python, among the engine's functions and methods with such a parameter."""
    import inspect

    from slowtorch_lib._fidelity.numpy_keywords import ALIASES, WRITTEN_IN_PYTHON

    torch = require_torch()

    def has_aliased_parameter(function: Any) -> bool:
        try:
            parameters = inspect.signature(function).parameters
        except (TypeError, ValueError):
            return False
        return bool(parameters.keys() & ALIASES.keys())

    in_python = set()
    for ours, theirs in ((st, torch), (st.Tensor, torch.Tensor)):
        for name in dir(ours):
            function = getattr(ours, name)
            reference = getattr(theirs, name, None)
            if name.startswith("_") or reference is None:
                continue
            if not callable(function) or not has_aliased_parameter(function):
                continue
            if inspect.isfunction(reference):
                in_python.add(name)
    assert in_python == WRITTEN_IN_PYTHON
