"""Shared helpers for comparing slowtorch_lib with real PyTorch.

Every parity test builds the same inputs in both libraries, runs the same
code, and compares with :func:`assert_same`. Tests that need torch import it
through :func:`require_torch`, so the torch-free tests (finite differences)
still run where torch is not installed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st

DTYPE_NAMES = ("float32", "float64", "int64", "bool")

# Tolerances per dtype for values computed by different algorithms
# (sums in another order, transcendental functions with other rounding).
TOLERANCES = {"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)}


def require_torch() -> Any:
    """Imports torch or skips the test."""
    return pytest.importorskip("torch")


def to_torch(tensor: st.Tensor, requires_grad: bool | None = None) -> Any:
    """The same values, shape and dtype as a torch tensor (a leaf)."""
    torch = require_torch()
    result = torch.tensor(tensor.tolist(), dtype=getattr(torch, tensor.dtype.name))
    if requires_grad if requires_grad is not None else tensor.requires_grad:
        result.requires_grad_(True)
    return result


def from_torch(tensor: Any) -> st.Tensor:
    """The same values, shape and dtype as a slowtorch tensor."""
    name = str(tensor.dtype).replace("torch.", "")
    return st.tensor(tensor.detach().tolist(), dtype=getattr(st, name if name != "bool" else "bool"))


def _flat(values: Any) -> list[Any]:
    if not isinstance(values, list):
        return [values]
    out: list[Any] = []
    for v in values:
        out.extend(_flat(v))
    return out


def assert_same(ours: st.Tensor, theirs: Any, rtol: float | None = None,
                atol: float | None = None, exact: bool = False) -> None:
    """Asserts same shape, same dtype and equal (or close) values.

    Args:
        ours: A slowtorch tensor.
        theirs: A torch tensor.
        rtol, atol: Tolerances; by default those of the dtype in TOLERANCES.
        exact: Require bit-equal values (nan equals nan).
    """
    assert isinstance(ours, st.Tensor), f"expected a slowtorch Tensor, got {type(ours)}"
    assert tuple(ours.shape) == tuple(theirs.shape), (
        f"shape {tuple(ours.shape)} != torch's {tuple(theirs.shape)}"
    )
    their_dtype = str(theirs.dtype).replace("torch.", "")
    assert ours.dtype.name == their_dtype, f"dtype {ours.dtype.name} != torch's {their_dtype}"
    mine = _flat(ours.tolist())
    other = _flat(theirs.detach().tolist())
    default_rtol, default_atol = TOLERANCES.get(their_dtype, (0.0, 0.0))
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    for i, (a, b) in enumerate(zip(mine, other)):
        if isinstance(a, float) and math.isnan(a) and isinstance(b, float) and math.isnan(b):
            continue
        if exact or not isinstance(b, float):
            assert a == b, f"element {i}: {a!r} != torch's {b!r}"
        else:
            assert math.isclose(a, b, rel_tol=rtol, abs_tol=atol) or a == b, (
                f"element {i}: {a!r} != torch's {b!r} (rtol={rtol}, atol={atol})"
            )


def same_error(make: Callable[[Any], Any], match_message: bool = True) -> None:
    """Asserts both libraries raise the same exception type (and message)."""
    torch = require_torch()
    with pytest.raises(Exception) as theirs:
        make(torch)
    with pytest.raises(Exception) as ours:
        make(st)
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)
    if match_message:
        assert str(ours.value) == str(theirs.value)
