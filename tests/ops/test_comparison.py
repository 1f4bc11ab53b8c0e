"""``isclose``, ``allclose``, ``equal`` and ``is_tensor`` against PyTorch.

Each check runs the same code on both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compares what comes out, or the type and message of the
exception. Gradients and ``grad_fn`` names are checked by the op table.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

from typing import Any

import pytest

from tests.parity import same_error
from tests.parity_checks import (
    X34,
    check,
    inf,
    nan,
)
from tests.run_both import DTYPES, OTHER, VALUES, run_both


def test_isclose_and_allclose() -> None:
    a = [1.0, 2.0, inf, -inf, nan, 0.0, 1e-9]
    b = [1.000001, 2.1, inf, inf, nan, 1e-9, 0.0]
    check(lambda lib: lib.isclose(lib.tensor(a), lib.tensor(b)))
    check(lambda lib: lib.tensor(a).isclose(lib.tensor(b), equal_nan=True))
    check(lambda lib: lib.isclose(lib.tensor(a), lib.tensor(b), rtol=0.1, atol=0.0))
    for rtol, atol, equal_nan in [(1e-5, 1e-8, False), (0.1, 0.0, True), (0, 0, True)]:
        for lhs, rhs in [(a, b), (a, a), ([1.0, nan], [1.0, nan]), (b[:2], a[:2])]:
            check(
                lambda lib: lib.allclose(
                    lib.tensor(lhs, dtype=lib.float64),
                    lib.tensor(rhs, dtype=lib.float64),
                    rtol,
                    atol,
                    equal_nan,
                )
            )
    check(lambda lib: lib.tensor([1.0]).allclose(lib.tensor([1.0, 1.0])))
    check(lambda lib: lib.allclose(lib.tensor([1, 2]), lib.tensor([1, 2])))


def test_isclose_errors() -> None:
    check(
        lambda lib: lib.allclose(
            lib.tensor([1.0]), lib.tensor([1.0], dtype=lib.float64)
        )
    )
    check(lambda lib: lib.allclose(lib.tensor([1]), lib.tensor([1.0])))
    check(lambda lib: lib.allclose(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 1.0])))


def test_equal_and_is_tensor() -> None:
    check(lambda lib: lib.equal(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0])))
    check(lambda lib: lib.equal(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.5])))
    check(lambda lib: lib.equal(lib.tensor([1.0]), lib.tensor([1.0, 1.0])))
    check(lambda lib: lib.equal(lib.tensor([1.0]), lib.tensor([1])))
    check(lambda lib: lib.equal(lib.tensor([nan]), lib.tensor([nan])))
    check(
        lambda lib: lib.equal(lib.tensor([0.1]), lib.tensor([0.1], dtype=lib.float64))
    )
    check(lambda lib: lib.tensor(X34).equal(lib.tensor(X34).t().t()))
    check(lambda lib: lib.equal(lib.zeros(0), lib.zeros(0)))
    check(
        lambda lib: (lib.is_tensor(lib.ones(1)), lib.is_tensor(1.0), lib.is_tensor([1]))
    )


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("dtype_name", DTYPES)
def test_logical_functions(name: str, dtype_name: str) -> None:
    run_both(
        lambda lib, x, y: getattr(lib, name)(x, y),
        (VALUES[dtype_name], dtype_name),
        (OTHER["float32"], "float32"),
    )
    run_both(lambda lib, x: lib.logical_not(x), (VALUES[dtype_name], dtype_name))


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("other", [0, 1.5, True])
def test_logical_ops_refuse_python_numbers(name: str, other: Any) -> None:
    same_error(lambda lib: getattr(lib, name)(lib.tensor([1.0, 0.0]), other))
