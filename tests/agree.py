"""``agree(program)``: one small program on the engine and on torch, every result
equal (values with ``nan`` equal to ``nan``, shapes, dtypes, ``grad_fn`` names,
gradients, by ``tests/fuzz.py``'s comparison); ``gradient`` makes such a program
from an expression."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import slowtorch_lib as st
from tests import fuzz
from tests.parity import require_torch


def agree(program: Callable[[Any], Any]) -> None:
    """Runs ``program(lib)`` on both libraries; every result must agree."""
    torch = require_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = program(torch)
    ours = program(st)
    why = fuzz.compare_values(ours, theirs, torch)
    assert why is None, why


def gradient(
    expression: Callable[[Any], Any], values: list[Any], dtype: str = "float32"
) -> Callable[[Any], Any]:
    """A program: the value and the gradient of ``expression(x).sum()``."""

    def program(lib: Any) -> Any:
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        y = expression(x)
        y.sum().backward()
        return y, x.grad

    return program
