"""``clamp``, ``maximum``, ``minimum``, ``where`` and ``masked_fill``
(``slowtorch_lib/ops/selecting.py``) against PyTorch: values, gradients, nodes
and refusals."""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import require_torch
from tests.run_both import DTYPES, OTHER, SPECIAL, SPECIAL_OTHER, VALUES, run_both


@pytest.mark.parametrize("dtype_name", DTYPES)
@pytest.mark.parametrize(
    "bounds",
    [(0, None), (None, 1), (0.5, 2), (-1, 1.5), (2, 1), (True, None), (None, None)],
)
def test_clamp_with_number_bounds(dtype_name: str, bounds: tuple[Any, Any]) -> None:
    values = SPECIAL if dtype_name.startswith("float") else VALUES[dtype_name]
    low, high = bounds
    run_both(lambda lib, x: x.clamp(low, high), (values, dtype_name), exact=True)
    run_both(
        lambda lib, x: lib.clamp(x, min=low, max=high), (values, dtype_name), exact=True
    )


@pytest.mark.parametrize("dtype_name", DTYPES)
def test_clamp_with_tensor_bounds(dtype_name: str) -> None:
    values = VALUES[dtype_name]
    run_both(
        lambda lib, x, lo, hi: x.clamp(lo, hi),
        (values, dtype_name),
        ([0.0, 0.5, 0.0, 3.0, 1.0], "float32"),
        ([1, 1, 2, 2, 1], "int64"),
        exact=True,
    )
    run_both(
        lambda lib, x, lo: x.clamp(min=lo),
        (values, dtype_name),
        (0.5, "float64"),
        exact=True,
    )
    run_both(
        lambda lib, x, hi: lib.clamp(x, max=hi),
        (values, dtype_name),
        ([[1], [2]], "int64"),
        exact=True,
    )


def test_clamp_grad_fn_names_and_gradients() -> None:
    torch = require_torch()
    for lib in (st, torch):
        x = lib.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        low = lib.tensor([0.0, 0.0, 0.0], requires_grad=True)
        y = x.clamp(low, lib.tensor(1.0))
        assert y.grad_fn.name() == "ClampBackward0"
        assert x.clamp(0).grad_fn.name() == "ClampBackward1"
        assert x.clamp_min(0).grad_fn.name() == "ClampMinBackward0"
        assert x.clamp_max(0).grad_fn.name() == "ClampMaxBackward0"
        y.sum().backward()
        assert x.grad.tolist() == [0.0, 1.0, 0.0]
        assert low.grad.tolist() == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("left", DTYPES)
@pytest.mark.parametrize("right", DTYPES)
def test_maximum_minimum(left: str, right: str) -> None:
    for name in ("maximum", "minimum"):
        run_both(
            lambda lib, a, b: getattr(lib, name)(a, b),
            (VALUES[left], left),
            (OTHER[right], right),
            exact=True,
        )
    run_both(lambda lib, a: lib.maximum(a, 2), (VALUES[left], left))


def test_maximum_minimum_propagate_nan() -> None:
    run_both(
        lambda lib, a, b: lib.maximum(a, b),
        (SPECIAL, "float32"),
        (SPECIAL_OTHER, "float32"),
        exact=True,
    )
    run_both(
        lambda lib, a, b: lib.minimum(a, b),
        (SPECIAL, "float64"),
        (SPECIAL_OTHER, "float64"),
        exact=True,
    )


@pytest.mark.parametrize("dtype_name", DTYPES)
def test_where_promotes_like_torch(dtype_name: str) -> None:
    values = VALUES[dtype_name]
    run_both(lambda lib, x: lib.where(x > 0, x, 2.5), (values, dtype_name), exact=True)
    run_both(lambda lib, x: lib.where(x > 0, 1, x), (values, dtype_name), exact=True)
    run_both(lambda lib, x: lib.where(x > 0, 1, 2), (values, dtype_name), exact=True)
    run_both(lambda lib, x: lib.where(x, 1.0, 2), ([1, 0], "int64"))
