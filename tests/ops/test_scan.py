"""``cumsum`` against PyTorch: dtypes, rounding of float32 sums, int64 wrap-around.

Each check runs the same code on both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compares what comes out, or the type and message of the
exception. Gradients and ``grad_fn`` names are checked by the op table.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import (
    outcome,
    require_torch,
    same_error,
)
from tests.parity_checks import (
    DTYPES,
    VALUES,
    check,
    grid,
    inf,
    nan,
)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_dtypes(dtype: str) -> None:
    def run(lib: Any) -> Any:
        x = lib.tensor([VALUES[dtype], VALUES[dtype][::-1]], dtype=getattr(lib, dtype))
        return x.cumsum(1), lib.cumsum(x, 0), x.cumsum(-1, dtype=lib.float64)

    check(run, exact=dtype != "float32")


def test_cumsum_float32_is_summed_in_double_then_rounded() -> None:
    values = [0.1] * 50 + [1e8, 1.0, -1e8, 0.3] * 10
    check(lambda lib: lib.tensor(values).cumsum(0))


def test_int64_sums_wrap_around_as_in_torch() -> None:
    big = 2**62
    check(lambda lib: lib.tensor([big, big, big, -big]).cumsum(0))
    check(lambda lib: lib.tensor([[big], [-big]]).cumsum(0, dtype=lib.int64))
    check(
        lambda lib: lib.tensor([big, 1]).scatter_add(
            0, lib.tensor([0, 0]), lib.tensor([big, big])
        )
    )
    check(lambda lib: lib.tensor([3e38, 3e38]).cumsum(0))


def test_cumsum_edge_cases() -> None:
    check(lambda lib: lib.tensor(3.5).cumsum(0))
    check(lambda lib: lib.tensor(3.5).cumsum(-1))
    check(lambda lib: lib.zeros(2, 0, 3).cumsum(1))
    check(lambda lib: lib.zeros(2, 0, 3).cumsum(2))
    check(
        lambda lib: lib.tensor(grid(2, (3, 4, 2))).permute(2, 0, 1).cumsum(1),
        exact=False,
    )
    check(lambda lib: lib.tensor([inf, -inf, 1.0, nan, 2.0]).cumsum(0))
    check(lambda lib: lib.ones(2, 3).cumsum(2))
    check(lambda lib: lib.cumsum(lib.ones(2, 3), -3))
    check(lambda lib: lib.cumsum(lib.ones(2)), message=False)


def test_cumprod_saves_its_output_as_torch_does() -> None:
    """Changing cumprod's output in place makes backward refuse, in both."""

    def run(lib: Any) -> Any:
        x = lib.tensor([1.5, -2.0, 3.0], requires_grad=True)
        y = x.cumprod(0)
        y.mul_(2)
        y.sum().backward()

    message = same_error(run, match_message=False)
    assert "output 0 of Cumprod, is at version 1; expected version 0" in message


def test_cumprod_gradient_when_a_copy_of_its_output_changes() -> None:
    x = st.tensor([1.5, -2.0, 3.0], requires_grad=True)
    y = x.cumprod(0)
    z = y * 1
    z.mul_(2)  # a copy of the output: nothing saved changes
    z.sum().backward()
    assert x.grad is not None
    assert x.grad.tolist() == [2 * (1 - 2.0 - 6.0), 2 * (1.5 + 4.5), 2 * (1.5 * -2.0)]


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.cumprod(L.tensor([1, 2, 3]), 0).tolist(),
        lambda L: L.cumprod(L.tensor([True, True]), 0).tolist(),
        lambda L: L.cumprod(L.tensor([1, 2], dtype=L.int32), 0).dtype,
        lambda L: L.cumprod(L.tensor([1.5, 2.0]), 0, dtype=L.float64).tolist(),
        lambda L: L.cumprod(L.ones(2, 2), 2),
        lambda L: L.cumprod(L.ones(2, dtype=L.uint16), 0).tolist(),
        lambda L: L.cumprod(L.ones(2, dtype=L.float8_e5m2), 0),
    ],
)
def test_cumprod_dtypes_and_errors_as_torch(call: Callable[[Any], Any]) -> None:
    ours, theirs = outcome(call, st), outcome(call, require_torch())
    assert ours[0] == theirs[0]
    if ours[0] == "OK":
        assert str(ours[1]) == str(theirs[1])
