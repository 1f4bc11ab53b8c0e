"""``range`` (``slowtorch_lib/ops/ranges.py``) against PyTorch: values, warnings
and refusals."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, require_torch, same_error

RANGES = {
    "ints": ((1, 4), {}),
    "float_step": ((0, 1, 0.3), {}),
    "tenths": ((0, 0.9, 0.1), {}),
    "down": ((5, 1, -2), {}),
    "long": ((1, 4), {"dtype": "int64"}),
    "float_to_long": ((1.0, 3), {"dtype": "int64"}),
    "keywords": ((), {"start": 1, "end": 3}),
    "requires_grad": ((1, 3), {"requires_grad": True}),
}


@pytest.mark.parametrize(("args", "kwargs"), RANGES.values(), ids=RANGES.keys())
def test_range_matches_torch_and_warns(args: Any, kwargs: Any) -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        options = dict(kwargs)
        if "dtype" in options:
            options["dtype"] = getattr(lib, options["dtype"])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = lib.range(*args, **options)
        assert [w.category for w in caught] == [UserWarning]
        assert caught[0].filename == __file__  # points at the caller
        results.append((result, str(caught[0].message)))
    assert_same(results[0][0], results[1][0])
    assert results[0][0].requires_grad == results[1][0].requires_grad
    assert results[0][1] == results[1][1]


@pytest.mark.filterwarnings("ignore:torch.range is deprecated")
@pytest.mark.parametrize(
    "case",
    [lambda L: L.range(1, 4, 0), lambda L: L.range(4, 1), lambda L: L.range(1)],
    ids=["zero_step", "wrong_direction", "no_end"],
)
def test_range_refusals(case: Any) -> None:
    same_error(case)
