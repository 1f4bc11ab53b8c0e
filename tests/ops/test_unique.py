"""``unique`` and ``unique_consecutive`` (``slowtorch_lib/ops/unique.py``) against
PyTorch: values, dtypes, nodes and refusals."""

from __future__ import annotations

import math
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, require_torch, same_error

UNIQUE_CASES = {
    "ints": ([3, 1, 2, 3, 1, 5], {}),
    "floats_nan": ([2.0, math.nan, 1.0, math.nan, 2.0], {}),
    "bools": ([True, False, True], {}),
    "signed_zero": ([-0.0, 0.0, 0.0], {}),
    "matrix": ([[1, 2], [0, 5], [1, 2], [0, 1]], {}),
    "rows": ([[1, 2], [0, 5], [1, 2], [0, 1]], {"dim": 0}),
    "columns": ([[1, 2, 1], [0, 5, 0]], {"dim": 1}),
    "negative_dim": ([[1, 2, 1], [0, 5, 0]], {"dim": -1}),
    "unsorted_flag": ([3.0, 1.0, 2.0, 1.0], {"sorted": False}),
    "scalar": (3, {}),
}


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("counts", [False, True])
@pytest.mark.parametrize(
    ("values", "options"), UNIQUE_CASES.values(), ids=UNIQUE_CASES.keys()
)
def test_unique_matches_torch(
    values: Any, options: Any, inverse: bool, counts: bool
) -> None:
    torch = require_torch()

    def run(L: Any, method: bool) -> Any:
        x = L.tensor(values)
        kwargs = dict(options, return_inverse=inverse, return_counts=counts)
        return x.unique(**kwargs) if method else L.unique(x, **kwargs)

    for method in (False, True):
        ours, theirs = run(st, method), run(torch, method)
        assert isinstance(ours, tuple) == isinstance(theirs, tuple)
        for mine, other in zip(
            *(([r] if not isinstance(r, tuple) else r) for r in (ours, theirs))
        ):
            assert_same(mine, other, exact=True)


CONSECUTIVE_CASES = {
    "ints": ([1, 1, 2, 2, 3, 1, 1, 2], {}),
    "nan": ([1.0, math.nan, math.nan], {}),
    "rows": ([[1, 2], [1, 2], [0, 5], [1, 2]], {"dim": 0}),
    "empty": ([], {}),
}


@pytest.mark.parametrize(
    ("values", "options"), CONSECUTIVE_CASES.values(), ids=CONSECUTIVE_CASES.keys()
)
def test_unique_consecutive_matches_torch(values: Any, options: Any) -> None:
    torch = require_torch()

    def run(L: Any) -> Any:
        x = L.tensor(values)
        return L.unique_consecutive(
            x, return_inverse=True, return_counts=True, **options
        )

    for mine, other in zip(run(st), run(torch)):
        assert_same(mine, other, exact=True)
    assert_same(
        st.tensor([4, 4, 2]).unique_consecutive(),
        torch.tensor([4, 4, 2]).unique_consecutive(),
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda L, x: L.unique(x),
        lambda L, x: L.unique(x, dim=0),
        lambda L, x: L.unique_consecutive(x),
        lambda L, x: x.unique(return_inverse=True)[0],
    ],
    ids=["unique", "unique_dim", "unique_consecutive", "method"],
)
def test_unique_has_no_derivative(make: Any) -> None:
    torch = require_torch()
    names = []
    for lib in (st, torch):
        result = make(lib, lib.tensor([[1.0, 2.0], [1.0, 2.0]], requires_grad=True))
        names.append(result.grad_fn.name())
    assert names[0] == names[1]
    same_error(
        lambda L: (
            make(L, L.tensor([[1.0, 2.0], [1.0, 2.0]], requires_grad=True))
            .sum()
            .backward()
        )
    )


UNIQUE_REFUSALS = {
    "dim_out_of_range": lambda L: L.unique(L.ones(2, 2), dim=2),
    "not_tensor": lambda L: L.unique_consecutive([1, 2]),
    "empty_other_dim": lambda L: L.unique(L.zeros(3, 0), dim=0),
}


@pytest.mark.parametrize("case", UNIQUE_REFUSALS.values(), ids=UNIQUE_REFUSALS.keys())
def test_unique_refusals(case: Any) -> None:
    same_error(case)


def test_unique_of_empty() -> None:
    torch = require_torch()
    for L_pair in [(st, torch)]:
        results = [L.unique(L.zeros(0, 3), dim=0, return_counts=True) for L in L_pair]
        for mine, other in zip(*results):
            assert_same(mine, other)
