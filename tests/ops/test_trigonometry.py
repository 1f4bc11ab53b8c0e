"""Trigonometric ops, ``atan2`` and ``hypot`` (``slowtorch_lib/ops/trigonometry.py``)
against PyTorch: values, domains, promotion and refusals."""

from __future__ import annotations

from typing import Any

import pytest

from tests.parity import (
    assert_same,
    both,
    same_error,
)


@pytest.mark.parametrize("name", ["asin", "acos", "atan", "arcsin", "arctan"])
def test_inverse_trigonometry_outside_its_domain(name: str) -> None:
    assert_same(
        *both(lambda L: getattr(L, name)(L.tensor([-2.0, -1.0, 0.5, 1.0, 3.0])))
    )


def test_atan2_and_hypot_broadcast_and_promote() -> None:
    assert_same(
        *both(lambda L: L.atan2(L.tensor([[1.0], [-1.0]]), L.tensor([0.0, 2.0])))
    )
    assert_same(*both(lambda L: L.atan2(L.tensor([1]), L.tensor([2]))))
    assert_same(*both(lambda L: L.hypot(L.tensor([3.0, -5.0]), L.tensor([4.0]))))
    same_error(lambda L: L.hypot(L.tensor([3]), L.tensor([4])))


@pytest.mark.parametrize("name", ["atan2_", "hypot_"])
@pytest.mark.parametrize("other", [2.0, -1, True])
def test_atan2_and_hypot_in_place_refuse_a_number_first(name: str, other: Any) -> None:
    # The type of ``other`` is checked before the in-place checks: an expanded
    # tensor, or a leaf that requires grad, still raises TypeError.
    def expanded(L: Any) -> Any:
        x = L.tensor([1.0, 2.0]).unsqueeze(0).expand(2, 2)
        return getattr(x, name)(other)

    def leaf(L: Any) -> Any:
        return getattr(L.zeros(2, requires_grad=True), name)(other)

    same_error(expanded)
    same_error(leaf)


def test_sinc_at_zero_at_the_integers_and_beyond_the_floats() -> None:
    """1 at 0, a gradient of 0 there, nan for the infinities; integers and
    bools compute in the default float type."""
    values = [0.0, 1.0, -2.5, 1e-20, float("inf"), float("nan")]
    assert_same(*both(lambda L: L.sinc(L.tensor(values, dtype=L.float64))))
    assert_same(*both(lambda L: L.tensor([0, 1, 2]).sinc()))
    assert_same(*both(lambda L: L.tensor([True, False]).sinc()))

    def gradient(L: Any) -> Any:
        x = L.tensor([0.0, 0.5, -1.0, 3.0], dtype=L.float64, requires_grad=True)
        L.sinc(x).sum().backward()
        return x.grad

    assert_same(*both(gradient))
