"""``gather``, ``scatter``, ``scatter_add``, ``index_select``, ``masked_select`` and
``nonzero`` against PyTorch.

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
    assert_same,
    outcome,
    require_torch,
)
from tests.parity_checks import (
    X34,
    check,
    nan,
)


def test_gather_values() -> None:
    check(lambda lib: lib.tensor(X34).gather(1, lib.tensor([[3, 0], [1, 1], [2, 0]])))
    check(lambda lib: lib.gather(lib.tensor(X34), 0, lib.tensor([[2, 0, 1, 1]])))
    check(lambda lib: lib.tensor(X34).gather(-1, lib.tensor([[0], [3]])))
    check(lambda lib: lib.tensor(X34).gather(0, lib.tensor([[0]] * 5)))
    check(lambda lib: lib.tensor(X34).t().gather(0, lib.tensor([[2, 1, 0]])))
    check(lambda lib: lib.tensor([[1, 2], [3, 4]]).gather(1, lib.tensor([[1], [0]])))
    check(lambda lib: lib.tensor([[True, False]]).gather(1, lib.tensor([[1, 1, 0]])))


def test_gather_edge_cases() -> None:
    check(lambda lib: lib.tensor(5.0).gather(0, lib.tensor(0)))
    check(lambda lib: lib.tensor(5.0).gather(0, lib.tensor([0, 0])))
    check(lambda lib: lib.tensor([5.0, 6.0]).gather(0, lib.tensor(1)))
    check(lambda lib: lib.tensor(X34).gather(1, lib.zeros(3, 0, dtype=lib.int64)))
    check(lambda lib: lib.ones(2, 0).gather(0, lib.zeros(2, 0, dtype=lib.int64)))


def test_gather_errors() -> None:
    x = X34
    check(lambda lib: lib.tensor(x).gather(0, lib.tensor([[3]])))
    check(lambda lib: lib.tensor(x).gather(0, lib.tensor([[-1]])))
    check(lambda lib: lib.tensor(x).gather(0, lib.tensor([1])))
    check(lambda lib: lib.tensor(x).gather(0, lib.tensor([[0, 0, 0, 0, 0]])))
    check(lambda lib: lib.tensor(x).gather(0, lib.tensor([[0.0]])))
    check(lambda lib: lib.tensor(x).gather(2, lib.tensor([[0]])))
    check(lambda lib: lib.ones(2, 0).gather(1, lib.zeros(2, 1, dtype=lib.int64)))
    check(lambda lib: lib.tensor([1.0, 2.0]).gather(0, lib.tensor([[0]])))


def test_scatter_values() -> None:
    index = [[2, 0, 1, 0], [0, 2, 0, 1]]
    src = [[1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]
    check(lambda lib: lib.tensor(X34).scatter(0, lib.tensor(index), lib.tensor(src)))
    check(
        lambda lib: lib.scatter(
            lib.tensor(X34), 1, lib.tensor([[3], [0]]), lib.tensor(src)
        )
    )
    check(lambda lib: lib.tensor(X34).scatter(0, lib.tensor(index), -1.0))
    check(lambda lib: lib.tensor(X34).scatter(0, lib.tensor(index), value=2))
    check(lambda lib: lib.tensor([[1, 2], [3, 4]]).scatter(1, lib.tensor([[0]]), 2.5))
    check(lambda lib: lib.zeros(2, 3, dtype=lib.bool).scatter(1, lib.tensor([[2]]), 1))
    check(lambda lib: lib.zeros(3).scatter(0, lib.tensor(1), 5.0))
    check(lambda lib: lib.tensor(2.0).scatter(0, lib.tensor([0]), 5.0))
    check(lambda lib: lib.tensor(X34).t().scatter(1, lib.tensor([[1]]), 0.0))


def test_scatter_add_values() -> None:
    index = [[2, 0, 2, 0], [2, 2, 0, 1]]  # repeated places add up
    src = [[1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]
    check(
        lambda lib: lib.tensor(X34).scatter_add(0, lib.tensor(index), lib.tensor(src))
    )
    check(
        lambda lib: lib.scatter_add(
            lib.tensor([[1, 2], [3, 4]]), 1, lib.tensor([[0, 0]]), lib.tensor([[5, 6]])
        )
    )
    check(
        lambda lib: lib.tensor(2.0).scatter_add(
            0, lib.tensor([0, 0]), lib.tensor([5.0, 1.0])
        )
    )
    check(
        lambda lib: lib.zeros(3, dtype=lib.bool).scatter_add(
            0, lib.tensor([0, 0]), lib.tensor([True, True])
        )
    )


def test_scatter_errors() -> None:
    x = X34
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([[3]]), 1.0))
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([[-1]]), 1.0))
    check(
        lambda lib: lib.tensor(x).scatter(0, lib.tensor([[0, 1]]), lib.tensor([[1.0]]))
    )
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([[0]]), lib.tensor([[1]])))
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([0]), 1.0))
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([[0, 1, 2, 0, 1]]), 1.0))
    check(lambda lib: lib.tensor(x).scatter(1, lib.tensor([[0, 1]]), lib.ones(3, 1)))
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([[0.0]]), 1.0))
    check(lambda lib: lib.tensor(x).scatter(2, lib.tensor([[0]]), 1.0))
    check(lambda lib: lib.zeros(2, 3).scatter(0, lib.tensor([[1]]), lib.tensor(7.0)))
    check(lambda lib: lib.tensor(x).scatter_add(0, lib.tensor([[0]]), 1.0))
    check(
        lambda lib: lib.tensor(x).scatter_add(0, lib.tensor([[7]]), lib.tensor([[1.0]]))
    )
    check(
        lambda lib: lib.tensor(x).scatter_add(0, lib.tensor([[0]]), lib.tensor([[1]]))
    )
    check(
        lambda lib: lib.tensor(x).scatter_add(
            0, lib.tensor([[0, 1, 2, 0, 1]]), lib.ones(3, 5)
        )
    )


def test_arguments_of_the_wrong_type() -> None:
    x = X34
    check(lambda lib: lib.gather(lib.tensor(x), 0, [[0]]))
    check(lambda lib: lib.index_select(lib.tensor(x), 0, [0]))
    check(lambda lib: lib.tensor(x).gather(0, [[0]]), message=False)
    check(lambda lib: lib.tensor(x).scatter(0, [[0]], 1.0), message=False)
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([[0]])), message=False)
    check(
        lambda lib: lib.tensor(x).scatter_add(0, [[0]], lib.ones(1, 1)), message=False
    )
    check(lambda lib: lib.tensor(x).topk(1.5))


def test_scatter_in_place() -> None:
    def run(lib: Any) -> Any:
        x = lib.tensor(X34)
        y = x.scatter_(1, lib.tensor([[0], [3]]), lib.tensor([[-1.0], [-2.0]]))
        z = lib.tensor(X34).scatter_add_(
            0, lib.tensor([[1, 1]]), lib.tensor([[0.5, 1.5]])
        )
        w = lib.tensor(X34).scatter_(0, lib.tensor([[2]]), value=9.0)
        return x, y is x, z, w

    check(run)


def test_failed_scatter_in_place_changes_nothing() -> None:
    x = st.tensor(X34)
    with pytest.raises(RuntimeError):
        x.scatter_(0, st.tensor([[0, 3], [5, 0]]), 1.0)
    with pytest.raises(RuntimeError):
        x.scatter_add_(0, st.tensor([[0, 1]]), st.tensor([[1]]))
    assert x.tolist() == X34
    assert x._version == 0


def test_scatter_in_place_records_history_like_torch() -> None:
    torch = require_torch()
    grads = []
    for lib in (st, torch):
        x = lib.tensor(X34, requires_grad=True)
        src = lib.tensor([[1.0, 2.0]], requires_grad=True)
        y = x * 2
        y.scatter_(1, lib.tensor([[3, 0]]), src)
        assert y.grad_fn.name() == "ScatterBackward0"
        y.scatter_add_(0, lib.tensor([[2, 2]]), src * 3)
        assert y.grad_fn.name() == "ScatterAddBackward0"
        (y * lib.arange(12.0).reshape(3, 4)).sum().backward()
        grads.append((x.grad, src.grad))
    assert_same(grads[0][0], grads[1][0])
    assert_same(grads[0][1], grads[1][1])


def test_index_select() -> None:
    check(lambda lib: lib.tensor(X34).index_select(1, lib.tensor([3, 0, 3])))
    check(lambda lib: lib.index_select(lib.tensor(X34), -2, lib.tensor([2])))
    check(lambda lib: lib.tensor(X34).index_select(0, lib.tensor(1)))
    check(lambda lib: lib.tensor(X34).t().index_select(0, lib.tensor([1, 0])))
    check(lambda lib: lib.tensor(3.0).index_select(0, lib.tensor([0])))
    check(lambda lib: lib.ones(2, 3).index_select(1, lib.zeros(0, dtype=lib.int64)))
    check(lambda lib: lib.tensor([[1, 2], [3, 4]]).index_select(1, lib.tensor([1])))


def test_index_select_errors() -> None:
    check(lambda lib: lib.tensor(X34).index_select(0, lib.tensor([3])))
    check(lambda lib: lib.tensor(X34).index_select(0, lib.tensor([-1])))
    check(lambda lib: lib.tensor(X34).index_select(0, lib.tensor([[0]])))
    check(lambda lib: lib.tensor(X34).index_select(0, lib.tensor([1.0])))
    check(lambda lib: lib.tensor(X34).index_select(2, lib.tensor([1])))
    check(lambda lib: lib.tensor(3.0).index_select(0, lib.tensor([0, 0])))
    check(lambda lib: lib.tensor(3.0).index_select(0, lib.tensor([1])))
    check(lambda lib: lib.ones(2, 0).index_select(1, lib.zeros(1, dtype=lib.int64)))


def test_masked_select() -> None:
    check(lambda lib: lib.tensor(X34).masked_select(lib.tensor(X34) > 4))
    check(
        lambda lib: lib.masked_select(
            lib.tensor(X34), lib.tensor([True, False, True, False])
        )
    )
    check(
        lambda lib: lib.tensor([1.0, 2.0]).masked_select(lib.tensor([[True], [False]]))
    )
    check(lambda lib: lib.tensor(3.0).masked_select(lib.tensor(True)))
    check(lambda lib: lib.tensor([1, 2, 3]).masked_select(lib.tensor([False] * 3)))
    check(lambda lib: lib.tensor(X34).masked_select(lib.tensor(X34).long()))
    check(lambda lib: lib.tensor(X34).masked_select(lib.tensor([True, False])))
    check(lambda lib: lib.tensor(X34).masked_select(3))


def test_nonzero() -> None:
    data = [[0.0, 1.5, nan], [-0.0, 0.0, -2.0]]
    check(lambda lib: lib.tensor(data).nonzero())
    check(lambda lib: lib.nonzero(lib.tensor(data), as_tuple=True))
    check(lambda lib: lib.tensor([[True, False], [True, True]]).nonzero(as_tuple=True))
    check(lambda lib: lib.tensor([[[0, 3], [4, 0]], [[5, 0], [0, 0]]]).nonzero())
    check(lambda lib: lib.tensor(0).nonzero())
    check(lambda lib: lib.tensor(7).nonzero())
    check(lambda lib: lib.tensor(0).nonzero(as_tuple=True))
    check(lambda lib: lib.tensor(7.0).nonzero(as_tuple=True))
    check(lambda lib: lib.zeros(2, 0).nonzero())
    check(lambda lib: lib.zeros(2, 0).nonzero(as_tuple=True))
    check(lambda lib: lib.tensor(X34).t().nonzero())


def test_nonzero_as_tuple_indexes_the_elements() -> None:
    x = st.tensor([[0.0, 2.0], [3.0, 0.0]])
    assert x[x.nonzero(as_tuple=True)].tolist() == [2.0, 3.0]


@pytest.mark.parametrize(
    "call",
    [
        lambda L, x, s, i: L.index_add(x, 0, i, s.double()),
        lambda L, x, s, i: L.index_add(x, 0, i.float(), s),
        lambda L, x, s, i: L.index_add(x, 0, i[None], s),
        lambda L, x, s, i: L.index_add(x, 0, L.tensor([0, 3]), s),
        lambda L, x, s, i: L.index_add(x, 0, L.tensor([0, -1]), s),
        lambda L, x, s, i: L.index_add(x, 0, L.tensor([0]), s),
        lambda L, x, s, i: L.index_add(x, 0, i, L.ones(2, 3)),
        lambda L, x, s, i: L.index_add(x, 2, i, s),
        lambda L, x, s, i: L.index_add(x, 0, i.int(), s).tolist(),
        lambda L, x, s, i: L.index_add(x.long(), 0, i, s.long(), alpha=2.5).tolist(),
        lambda L, x, s, i: L.index_add(L.zeros(()), 0, i[:1], L.tensor(5.0)).tolist(),
        lambda L, x, s, i: x.index_add_(0, i, s).tolist(),
    ],
)
def test_index_add_values_and_errors_as_torch(call: Callable[..., Any]) -> None:
    def run(L: Any) -> Any:
        x, s = L.zeros(3, 2), L.tensor([[1.0, 2.0], [3.0, 4.0]])
        return call(L, x, s, L.tensor([0, 2]))

    ours, theirs = outcome(run, st), outcome(run, require_torch())
    assert ours == theirs
