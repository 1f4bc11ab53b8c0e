"""``meshgrid`` (``slowtorch_lib/ops/meshgrid.py``) against PyTorch: values,
strides, nodes, warnings and refusals."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, require_torch, same_error


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("count", [1, 2, 3])
def test_meshgrid_matches_torch(indexing: str, count: int) -> None:
    torch = require_torch()

    def run(lib: Any) -> Any:
        inputs = [
            lib.arange(1.0, 2.0 + i, requires_grad=True) * (i + 1) for i in range(count)
        ]
        grids = lib.meshgrid(*inputs, indexing=indexing)
        total = sum((g * (n + 2)).sum() for n, g in enumerate(grids))
        total.backward()
        return grids

    ours, theirs = run(st), run(torch)
    assert len(ours) == len(theirs)
    for mine, other in zip(ours, theirs):
        assert_same(mine, other)
        assert mine.stride() == other.stride()
        assert mine.grad_fn.name() == other.grad_fn.name()


def test_meshgrid_list_and_scalars() -> None:
    torch = require_torch()
    for lib_pair in [(st, torch)]:
        shapes = [
            [
                tuple(g.shape)
                for g in L.meshgrid([L.tensor(2.0), L.ones(3)], indexing="xy")
            ]
            for L in lib_pair
        ]
        assert shapes[0] == shapes[1]


def test_meshgrid_warns_without_indexing() -> None:
    torch = require_torch()
    messages = []
    for lib in (st, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.meshgrid(lib.ones(2), lib.ones(3))
        assert [w.category for w in caught] == [UserWarning]
        messages.append(str(caught[0].message).split(" (Triggered")[0])
    assert messages[0] == messages[1]


MESHGRID_REFUSALS = {
    "indexing": lambda L: L.meshgrid(L.ones(2), indexing="foo"),
    "empty": lambda L: L.meshgrid(indexing="ij"),
    "dtypes": lambda L: L.meshgrid(L.ones(2), L.ones(2, dtype=L.long), indexing="ij"),
    "not_tensor": lambda L: L.meshgrid([1, 2], indexing="ij"),
}


@pytest.mark.parametrize(
    "case", MESHGRID_REFUSALS.values(), ids=MESHGRID_REFUSALS.keys()
)
def test_meshgrid_refusals(case: Any) -> None:
    same_error(case)


def test_meshgrid_refuses_matrices() -> None:
    same_error(lambda L: L.meshgrid(L.ones(2, 2), indexing="ij"), match_message=False)
