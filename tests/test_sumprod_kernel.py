"""The matrix kernel's two inner loops give PyTorch's answers.

The kernel takes ``math.sumprod`` where the interpreter has it (Python
3.12+, the browser's Pyodide) and ``sum(map(mul, ...))`` before. Each test
here runs once on each path, forced. Where this Python has no
``math.sumprod`` (3.11), the sumprod path is an emulation with the same
contract: the sum of the exact products, rounded once (``math.fsum`` of
products split exactly into two floats each) - so the path switch is
tested on every interpreter, and the real function on 3.12+.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.ops import linalg
from tests.parity import assert_same, require_torch


def _emulated_sumprod(left: Sequence[Any], right: Sequence[Any]) -> Any:
    """``math.sumprod`` for interpreters without it: exact, rounded once."""
    if all(isinstance(v, int) for v in left) and all(isinstance(v, int) for v in right):
        return sum(a * b for a, b in zip(left, right, strict=True))
    if any(isinstance(v, complex) for v in (*left, *right)):
        return sum(a * b for a, b in zip(left, right, strict=True))
    values = [a * b for a, b in zip(left, right, strict=True)]
    if not all(map(math.isfinite, values)):
        return math.fsum(values)
    exact = sum(
        (Fraction(a) * Fraction(b) for a, b in zip(left, right, strict=True)),
        Fraction(0),
    )
    return float(exact)


SUMPROD: Callable[..., Any] = getattr(math, "sumprod", _emulated_sumprod)
PATHS = {"sum_map_mul": linalg.sum_of_products, "sumprod": SUMPROD}


@pytest.fixture(params=list(PATHS), ids=list(PATHS))
def kernel_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Forces one inner loop. The sumprod path counts its calls (so it is
    proven used); the plain path is the kernel's own inlined loop."""
    inner = PATHS[request.param]
    calls = [0]
    if inner is linalg.sum_of_products:
        monkeypatch.setattr(linalg, "dot_product", inner)
        return [1]

    def counted(left: Sequence[Any], right: Sequence[Any]) -> Any:
        calls[0] += 1
        return inner(left, right)

    monkeypatch.setattr(linalg, "dot_product", counted)
    return calls


def test_the_default_is_sumprod_where_python_has_it() -> None:
    expected = getattr(math, "sumprod", linalg.sum_of_products)
    assert linalg.dot_product is expected


def _values(lib: Any, shape: tuple[int, ...], seed: int, dtype: str) -> Any:
    count = math.prod(shape)
    flat = [math.sin(seed + 0.7 * i) * 3 for i in range(count)]
    if dtype == "int64":
        flat = [int(v * 10) for v in flat]
    return lib.tensor(flat, dtype=getattr(lib, dtype)).reshape(shape)


PRODUCTS = {
    "mm": ((5, 7), (7, 3), lambda L, a, b: L.mm(a, b)),
    "bmm": ((2, 4, 6), (2, 6, 3), lambda L, a, b: L.bmm(a, b)),
    "mv": ((4, 9), (9,), lambda L, a, b: L.mv(a, b)),
    "dot": ((11,), (11,), lambda L, a, b: L.dot(a, b)),
    "matmul_4d": ((2, 2, 3, 5), (2, 2, 5, 4), lambda L, a, b: a @ b),
    "addmm": ((3, 8), (8, 2), lambda L, a, b: L.addmm(b[0], a, b, alpha=0.5)),
    "linear": ((6, 5), (4, 5), lambda L, a, b: L.nn.functional.linear(a, b)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", PRODUCTS.values(), ids=PRODUCTS.keys())
def test_products_and_gradients_match_torch(
    case: Any, dtype: str, kernel_path: list[int]
) -> None:
    torch = require_torch()
    left_shape, right_shape, run = case
    results = []
    for lib in (st, torch):
        a = _values(lib, left_shape, 1, dtype).requires_grad_()
        b = _values(lib, right_shape, 2, dtype).requires_grad_()
        out = run(lib, a, b)
        (out * _values(lib, tuple(out.shape), 3, dtype)).sum().backward()
        results.append((out, a.grad, b.grad))
    for mine, theirs in zip(*results):
        assert_same(mine, theirs)
    assert kernel_path[0] > 0


@pytest.mark.parametrize("case", PRODUCTS.values(), ids=PRODUCTS.keys())
def test_integer_products_are_exact(case: Any, kernel_path: list[int]) -> None:
    torch = require_torch()
    left_shape, right_shape, run = case
    if run is PRODUCTS["linear"][2] or run is PRODUCTS["addmm"][2]:
        return  # float only in torch
    mine = run(
        st, _values(st, left_shape, 1, "int64"), _values(st, right_shape, 2, "int64")
    )
    theirs = run(
        torch,
        _values(torch, left_shape, 1, "int64"),
        _values(torch, right_shape, 2, "int64"),
    )
    assert_same(mine, theirs, exact=True)
    assert kernel_path[0] > 0


def test_complex_and_special_values(kernel_path: list[int]) -> None:
    torch = require_torch()
    for lib_pair in [(st, torch)]:
        results = []
        for lib in lib_pair:
            z = lib.complex(
                _values(lib, (3, 4), 1, "float32"), _values(lib, (3, 4), 2, "float32")
            )
            w = lib.tensor([[math.inf, 0.0], [1.0, math.nan], [2.0, 3.0], [0.5, -1.0]])
            results.append((lib.view_as_real(z @ z.T), w.T @ w))
        for mine, theirs in zip(*results):
            assert_same(mine, theirs)
    assert kernel_path[0] > 0


def test_emulation_agrees_with_plain_sums_where_exact() -> None:
    """The emulation itself: exact where the plain sum is exact too."""
    left, right = [1.5, -2.0, 0.25], [4.0, 0.5, 8.0]
    assert _emulated_sumprod(left, right) == linalg.sum_of_products(left, right) == 7.0
    # Cancellation the plain sum loses and an exact sum keeps.
    assert _emulated_sumprod([1e16, 1.0, -1e16], [1.0, 1.0, 1.0]) == 1.0
