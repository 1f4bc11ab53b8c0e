"""``histc`` and ``histogram`` (``slowtorch_lib/ops/histograms.py``) against
PyTorch: values and refusals."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from tests.parity import (
    assert_same,
    both,
    same_error,
)
from tests.parity_checks import check


@pytest.mark.parametrize(
    "call",
    [
        lambda L, x: L.histc(x, bins=4, min=0, max=4),
        lambda L, x: L.histc(x, bins=3),
        lambda L, x: L.histc(L.tensor([2.0, 2.0]), bins=2),
        lambda L, x: L.histc(x.double(), 5, min=-1, max=2),
        lambda L, x: L.histogram(x, bins=4),
        lambda L, x: L.histogram(x, bins=2, range=(0.0, 2.0)),
        lambda L, x: L.histogram(x, L.tensor([0.0, 1.0, 3.0])),
        lambda L, x: L.histogram(x, bins=2, density=True),
        lambda L, x: L.histogram(x, bins=2, weight=L.ones(6) * 2),
        lambda L, x: x.histc(4, 0, 4),
        lambda L, x: x.histogram(2, range=(0.0, 2.0)),
    ],
)
def test_histograms_match_torch(call: Callable[[Any, Any], Any]) -> None:
    ours, theirs = both(lambda L: call(L, L.tensor([1.0, 2.0, 1.0, 4.0, 2.5, 0.0])))
    if isinstance(theirs, tuple):
        assert_same(ours.hist, theirs.hist)
        assert_same(ours.bin_edges, theirs.bin_edges)
    else:
        assert_same(ours, theirs)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.histc(L.tensor([1, 2]), 2),
        lambda L: L.histogram(L.tensor([1, 2]), 2),
        lambda L: L.histc(L.ones(2), bins=0),
        lambda L: L.histc(L.ones(2), 2, min=3, max=1),
        lambda L: L.histc(L.ones(2, requires_grad=True), 2).sum().backward(),
    ],
)
def test_histograms_refuse_as_torch(call: Callable[[Any], Any]) -> None:
    same_error(call)


def test_histc_of_nan_data_refuses() -> None:
    same_error(lambda L: L.histc(L.tensor([1.0, math.nan]), 2), match_message=False)


def test_bincount() -> None:
    values = [1, 3, 1, 0, 7, 3, 3]
    weights = [0.5, 1.0, 2.0, 3.0, -1.5, 0.25, 4.0]
    check(lambda lib: lib.bincount(lib.tensor(values)))
    check(lambda lib: lib.tensor(values).bincount(minlength=10))
    check(lambda lib: lib.tensor(values, dtype=lib.int8).bincount(minlength=2))
    check(lambda lib: lib.bincount(lib.tensor(values), lib.tensor(weights)))
    check(lambda lib: lib.bincount(lib.tensor(values), lib.tensor(weights).double()))
    check(lambda lib: lib.bincount(lib.tensor(values), lib.tensor(values)))
    check(lambda lib: lib.bincount(lib.tensor([], dtype=lib.int64)))
    check(lambda lib: lib.bincount(lib.tensor([-1])))
    check(lambda lib: lib.bincount(lib.tensor([[1]])))
    check(lambda lib: lib.bincount(lib.tensor([1.0])))
    check(lambda lib: lib.bincount(lib.tensor([True])))
    check(lambda lib: lib.bincount(lib.tensor(values), minlength=-1))
    check(lambda lib: lib.bincount(lib.tensor(values), lib.ones(3)))
