"""Helpers for the nn tests: the same inputs in both libraries, then compare.

A case is written once as ``call(lib, F, *inputs)``, with ``lib`` either
``slowtorch_lib`` or ``torch`` and ``F`` its ``nn.functional``; ``build(lib)``
makes the inputs from the same seeded numbers. :func:`check_parity` compares
the outputs, the ``grad_fn`` names and the gradients of every input that
requires grad, after a backward pass with the same random upstream gradient.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import slowtorch_lib as st
import slowtorch_lib.nn.functional as st_F
from tests.parity import assert_same, require_torch


def values(
    shape: tuple[int, ...], seed: int, low: float = -2.0, high: float = 2.0
) -> Any:
    """Nested lists of seeded uniform numbers of this shape."""
    rng = random.Random(seed)

    def fill(dims: tuple[int, ...]) -> Any:
        if not dims:
            return rng.uniform(low, high)
        return [fill(dims[1:]) for _ in range(dims[0])]

    return fill(shape)


def tensor(lib: Any, data: Any, dtype: str = "float32", grad: bool = False) -> Any:
    """``lib.tensor(data)`` of this dtype name, optionally requiring grad."""
    return lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=grad)


def rand(
    lib: Any,
    *shape: int,
    seed: int = 0,
    grad: bool = False,
    dtype: str = "float32",
    low: float = -2.0,
    high: float = 2.0,
) -> Any:
    return tensor(lib, values(shape, seed, low, high), dtype, grad)


def functional(lib: Any) -> Any:
    if lib is st:
        return st_F
    return lib.nn.functional


def check_parity(
    call: Callable[..., Any],
    build: Callable[[Any], list[Any]],
    rtol: float = 1e-5,
    atol: float = 1e-6,
    grad_rtol: float | None = None,
    grad_atol: float | None = None,
    seed: int = 99,
) -> tuple[Any, Any]:
    """Runs ``call`` in both libraries on ``build``'s inputs and compares.

    Returns both outputs, for further checks.
    """
    torch = require_torch()
    ours_in, theirs_in = build(st), build(torch)
    ours = call(st, st_F, *ours_in)
    theirs = call(torch, torch.nn.functional, *theirs_in)
    assert_same(ours, theirs, rtol, atol)
    if theirs.grad_fn is not None:
        assert ours.grad_fn is not None, (
            f"no grad_fn, torch has {theirs.grad_fn.name()}"
        )
        assert ours.grad_fn.name() == theirs.grad_fn.name()
    else:
        assert ours.grad_fn is None, ours.grad_fn.name()
    if theirs.requires_grad:
        upstream = values(tuple(theirs.shape), seed)
        ours.backward(tensor(st, upstream, ours.dtype.name))
        theirs.backward(tensor(torch, upstream, str(theirs.dtype)[6:]))
        compare_grads(
            ours_in, theirs_in, grad_rtol or rtol * 10, grad_atol or atol * 10
        )
    return ours, theirs


def compare_grads(ours: list[Any], theirs: list[Any], rtol: float, atol: float) -> None:
    """Every torch input that got a gradient has the same one in ours."""
    torch = require_torch()
    for mine, other in zip(ours, theirs):
        if isinstance(other, torch.Tensor) and other.requires_grad:
            assert other.grad is not None
            assert mine.grad is not None, "no gradient reached this input"
            assert_same(mine.grad, other.grad, rtol, atol)


def graph_names(output: Any) -> list[str]:
    """The backward graph of ``output`` as indented node names, depth first."""
    names: list[str] = []
    stack = [(output.grad_fn, 0)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append("  " * depth + node.name())
        for child, _ in reversed(node.next_functions):
            stack.append((child, depth + 1))
    return names


def check_graph(make: Callable[[Any], Any]) -> None:
    """``make(lib)`` leaves the same graph (every node's name) in both libraries."""
    torch = require_torch()
    assert graph_names(make(st)) == graph_names(make(torch))
