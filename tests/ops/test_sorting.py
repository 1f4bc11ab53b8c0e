"""``sort``, ``argsort`` and ``topk`` against PyTorch: ties, special values
and named results.

Each check runs the same code on both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compares what comes out, or the type and message of the
exception. Gradients and ``grad_fn`` names are checked by the op table.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, require_torch
from tests.parity_checks import (
    check,
    flat,
    grid,
    inf,
    nan,
)


def _is_sorting_permutation(x: Any, values: Any, indices: Any, dim: int) -> None:
    """The indices are a permutation along ``dim`` that reads the values."""
    torch = require_torch()
    ours_x = torch.tensor(x.tolist(), dtype=torch.float64)
    idx = torch.tensor(indices.tolist(), dtype=torch.int64)
    assert ours_x.gather(dim, idx).tolist() == torch.tensor(values.tolist()).tolist()
    counted = torch.zeros_like(idx).scatter_add(dim, idx, torch.ones_like(idx))
    assert bool((counted == 1).all())


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_with_ties(shape: tuple[int, ...], descending: bool) -> None:
    torch = require_torch()
    nested = grid(sum(shape), shape, -2, 2)
    rounded = [float(round(v)) for v in flat(nested)]  # many ties

    def make(lib: Any) -> Any:
        return lib.tensor(rounded).reshape(shape)

    for dim in range(-len(shape), len(shape)):
        ours = st.sort(make(st), dim, descending)
        theirs = torch.sort(make(torch), dim, descending)
        assert_same(ours.values, theirs.values)
        _is_sorting_permutation(make(st), ours.values, ours.indices, dim)
        # With stable=True the indices are unique, and equal to torch's.
        check(
            lambda lib: lib.sort(make(lib), dim=dim, descending=descending, stable=True)
        )
        check(
            lambda lib: make(lib).argsort(dim=dim, descending=descending, stable=True)
        )


def test_sort_special_values_and_dtypes() -> None:
    check(
        lambda lib: lib.tensor([3.0, nan, -inf, 1.0, nan, inf, -0.0]).sort(stable=True)
    )
    check(lambda lib: lib.tensor([3.0, nan, -inf, 1.0, inf]).sort(descending=True))
    check(lambda lib: lib.tensor([5, -2, 9, 0]).sort())
    check(lambda lib: lib.tensor([True, False, True]).sort(stable=True))
    check(lambda lib: lib.tensor([3.0, nan, 1.0]).argsort())
    check(lambda lib: lib.tensor([5, -2, 9, 0]).argsort(descending=True))


def test_sort_edge_cases() -> None:
    check(lambda lib: lib.tensor(2.5).sort())
    check(lambda lib: lib.tensor(2.5).sort(0))
    check(lambda lib: lib.tensor(2.5).argsort())
    check(lambda lib: lib.zeros(3, 0).sort(1))
    check(lambda lib: lib.zeros(0, 3).sort(0))
    check(lambda lib: lib.tensor(grid(4, (3, 4))).t().sort(0))
    check(lambda lib: lib.tensor(grid(5, (3, 4)))[:, 1:3].sort(descending=True))
    check(lambda lib: lib.ones(2, 3).sort(2))
    check(lambda lib: lib.ones(2, 3).argsort(-3))


def test_sort_and_topk_return_named_tuples_like_torch() -> None:
    torch = require_torch()
    for name, call in (
        ("sort", lambda lib: lib.tensor([3.0, 1.0, 2.0]).sort()),
        ("sort", lambda lib: lib.sort(lib.tensor([[3, 1], [0, 2]]), 0)),
        ("topk", lambda lib: lib.tensor([3.0, 1.0, 2.0]).topk(2)),
        ("topk", lambda lib: lib.topk(lib.tensor([[3.0, 1.0], [0.5, 2.0]]), 1)),
    ):
        ours, theirs = call(st), call(torch)
        assert repr(ours) == repr(theirs)
        assert str(ours) == str(theirs)
        assert repr(ours).startswith(f"torch.return_types.{name}(")
        values, indices = ours
        assert values is ours.values and indices is ours.indices
        assert ours[0] is ours.values and len(ours) == 2
        assert isinstance(ours, tuple)


def test_sort_grad_fn_names_follow_the_overload() -> None:
    torch = require_torch()
    for lib in (st, torch):
        x = lib.tensor([2.0, 1.0], requires_grad=True)
        assert x.sort().values.grad_fn.name() == "SortBackward0"
        assert x.sort(descending=True).values.grad_fn.name() == "SortBackward0"
        assert x.sort(stable=False).values.grad_fn.name() == "SortBackward1"
        assert x.sort(stable=True).values.grad_fn.name() == "SortBackward1"
        assert x.sort().indices.grad_fn is None
        assert not x.sort().indices.requires_grad
        assert x.argsort().grad_fn is None
        assert x.topk(1).values.grad_fn.name() == "TopkBackward0"
        assert x.topk(1).indices.grad_fn is None


@pytest.mark.parametrize("k", [0, 1, 3, 5])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_values(k: int, largest: bool) -> None:
    data = [[4.0, -1.0, 7.5, 0.25, 3.0], [nan, 2.0, -inf, inf, 0.0]]
    check(lambda lib: lib.tensor(data).topk(k, largest=largest))
    check(lambda lib: lib.topk(lib.tensor([5, 3, 9, 1, 7]), k, 0, largest))
    if k <= 2:
        check(lambda lib: lib.tensor(data).topk(k, dim=0, largest=largest))


def test_topk_ties_keep_valid_indices() -> None:
    torch = require_torch()
    data = [[1.0, 3.0, 3.0, 2.0, 3.0, 1.0]]
    ours, theirs = st.tensor(data).topk(2), torch.tensor(data).topk(2)
    assert_same(ours.values, theirs.values)
    assert all(data[0][i] == 3.0 for i in ours.indices.tolist()[0])
    assert len(set(ours.indices.tolist()[0])) == 2


def test_topk_errors_and_edges() -> None:
    check(lambda lib: lib.ones(2, 3).topk(4))
    check(lambda lib: lib.ones(2, 3).topk(-1))
    check(lambda lib: lib.ones(2, 3).topk(1, dim=2))
    check(lambda lib: lib.tensor([True, False]).topk(1))
    check(lambda lib: lib.tensor(3.0).topk(1))
    check(lambda lib: lib.tensor(3.0).topk(0))
    check(lambda lib: lib.zeros(2, 0).topk(0))
