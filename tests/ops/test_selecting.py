"""``clamp``, ``maximum``, ``minimum``, ``where`` and ``masked_fill``
(``slowtorch_lib/ops/selecting.py``) against PyTorch: values, gradients, nodes
and refusals."""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
from tests.agree import agree, gradient
from tests.parity import require_torch, same_error
from tests.run_both import DTYPES, OTHER, SPECIAL, SPECIAL_OTHER, VALUES, nan, run_both


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


def test_maximum_with_zero_then_sqrt() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([-1.0, 0.0, 4.0], requires_grad=True)
        y = lib.maximum(x, lib.tensor(0.0)).sqrt()
        y.sum().backward()
        return y, x.grad

    agree(program)


def test_clamp_with_tensor_bounds_selects() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        low = lib.tensor([0.0, 0.0, 0.0], requires_grad=True)
        y = lib.clamp(x, min=low).sqrt()
        y.sum().backward()
        return y, x.grad, low.grad

    agree(program)


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_with_nan(name: str) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([1.0, nan, nan, 2.0], requires_grad=True)
        y = lib.tensor([nan, 1.0, nan, 2.0], requires_grad=True)
        out = getattr(lib, name)(x, y)
        out.sum().backward()
        return out, x.grad, y.grad

    agree(program)


@pytest.mark.parametrize(
    "expression",
    [
        lambda x: x.clamp(min=nan),
        lambda x: x.clamp(max=nan),
        lambda x: x.clamp(nan, 1),
        lambda x: x.clamp(0, nan),
        lambda x: x.clamp_min(nan),
        lambda x: x.clamp(0, 1),
    ],
    ids=["min", "max", "low", "high", "clamp_min", "nan_input"],
)
def test_clamp_with_nan(expression: Any) -> None:
    agree(gradient(expression, [-1.0, 0.5, 2.0, nan]))


def test_masked_fill_broadcasts_the_input() -> None:
    agree(lambda lib: lib.zeros(3).masked_fill(lib.tensor([[True], [False]]), 1.0))
    agree(lambda lib: lib.zeros(2, 3).masked_fill(lib.tensor([True, False, True]), 1.0))
    same_error(
        lambda lib: lib.zeros(3).masked_fill_(lib.tensor([[True], [False]]), 1.0),
        match_message=False,
    )
    same_error(lambda lib: lib.zeros(3).masked_fill(True, 1.0), match_message=False)


def test_masked_fill_mask_type_is_checked_first() -> None:
    same_error(
        lambda lib: lib.zeros(2, requires_grad=True).masked_fill_(True, 1.0),
        match_message=False,
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.where(True, lib.ones(2), 2.0),
        lambda lib: lib.where(lib.ones(2) > 0, lib.ones(2), 1e300),
        lambda lib: lib.where(lib.ones(2) > 0, 1e300, 0.0),
    ],
    ids=["condition_bool", "other_overflow", "input_overflow"],
)
def test_where_checks(make: Any) -> None:
    same_error(make, match_message=False)


def test_where_with_numbers() -> None:
    agree(lambda lib: lib.where(lib.tensor([1.0, -1.0]) > 0, 2.5, 0))
    agree(lambda lib: lib.where(lib.tensor([1.0, -1.0]) > 0, lib.ones(2), 1e30))
