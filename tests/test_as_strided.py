"""``as_strided`` and ``Tensor.unfold``: windows as views, compared with PyTorch."""

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, both, require_torch, same_error


def _grads(lib: Any, make: Any, values: list[float], weights: list[float]) -> Any:
    x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
    view = make(x)
    flat = lib.tensor(weights, dtype=lib.float64)
    (view.reshape(-1) * flat[: view.numel()]).sum().backward()
    return view, x.grad


@pytest.mark.parametrize(
    "make",
    [
        # Overlapping windows: cells read twice get both gradients.
        lambda x: x.as_strided((4, 3), (2, 1)),
        lambda x: x.as_strided((3, 3), (1, 1), 2),
        # Reading a cell the input does not show drops its gradient.
        lambda x: x[3:].as_strided((2, 3), (1, 1), 1),
        # An input showing one cell twice (expanded) shares it evenly.
        lambda x: x[:4].expand(2, 4).as_strided((3, 2), (1, 1)),
        lambda x: x.as_strided((0, 3), (1, 1)),
        lambda x: x.unfold(0, 3, 2),
        lambda x: x.view(2, 5).unfold(1, 2, 1),
        lambda x: x.view(2, 5).unfold(-1, 5, 5),
        lambda x: x.view(2, 5).t().unfold(0, 3, 1),
        lambda x: x.view(2, 5).unfold(0, 0, 1),
        lambda x: x[0].unfold(0, 1, 1),
    ],
)
def test_views_values_strides_and_gradients_match_torch(make: Any) -> None:
    torch = require_torch()
    values = [0.5 * i - 2 for i in range(10)]
    weights = [float(3 * i % 7) for i in range(40)]
    ours, our_grad = _grads(st, make, values, weights)
    theirs, their_grad = _grads(torch, make, values, weights)
    assert_same(ours, theirs, exact=True)
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert_same(our_grad, their_grad, exact=True)


def test_as_strided_is_a_view_writes_show_through() -> None:
    x = st.arange(6.0)
    windows = st.as_strided(x, (2, 3), (3, 1))
    windows[1, 0] = 30.0
    assert x.tolist() == [0.0, 1.0, 2.0, 30.0, 4.0, 5.0]
    assert windows._base is x


def test_as_strided_backward_sums_overlaps() -> None:
    """Each cell's gradient is how many windows read it: 1, 2, 3, 3, 2, 1."""
    x = st.arange(6.0, requires_grad=True)
    x.as_strided((4, 3), (1, 1)).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 3.0, 3.0, 2.0, 1.0]


def test_unfold_double_backward() -> None:
    x = st.arange(5.0, requires_grad=True)
    windows = x.unfold(0, 2, 1)
    (grad,) = st.autograd.grad((windows**2).sum(), x, create_graph=True)
    assert grad.tolist() == [0.0, 4.0, 8.0, 12.0, 8.0]
    grad.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 4.0, 4.0, 2.0]


@pytest.mark.parametrize(
    "run",
    [
        lambda L: L.ones(4, 4).as_strided((3, 3), (1, 1, 1)),
        lambda L: L.ones(4, 4).as_strided((3, 3), (-1, 1)),
        lambda L: L.ones(4, 4).as_strided((3, 3), (1, 1), -1),
        lambda L: L.ones(4, 4).as_strided((3, 3), (4, 4), 5),
        lambda L: L.ones(4, 4).as_strided((-1, 3), (4, 4)),
        lambda L: L.ones(4, 4, dtype=L.float64).as_strided((5, 5), (4, 1)),
        lambda L: L.as_strided([1.0], (1,), (1,)),
        lambda L: L.ones(4, 4).unfold(0, 5, 1),
        lambda L: L.ones(4, 4).unfold(0, 2, 0),
        lambda L: L.ones(4, 4).unfold(2, 2, 1),
    ],
)
def test_refusals_match_torch(run: Any) -> None:
    same_error(run)


def test_as_strided_default_offset_is_the_input_offset() -> None:
    ours, theirs = both(lambda L: L.arange(10.0)[4:].as_strided((2,), (1,)))
    assert ours.tolist() == theirs.tolist() == [4.0, 5.0]
