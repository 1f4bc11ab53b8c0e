"""Grad mode: no_grad, enable_grad, set_grad_enabled, is_grad_enabled, as torch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import require_torch


def both(run: Callable[[Any], Any]) -> tuple[Any, Any]:
    torch = require_torch()
    return run(st), run(torch)


def test_no_grad_context() -> None:
    def run(L: Any) -> tuple[Any, ...]:
        x = L.tensor([1.0], requires_grad=True)
        with L.no_grad():
            inside = L.is_grad_enabled()
            y = x * 2
        return inside, L.is_grad_enabled(), y.requires_grad, y.grad_fn is None

    assert both(run) == ((False, True, False, True),) * 2


def test_enable_grad_inside_no_grad() -> None:
    def run(L: Any) -> tuple[Any, ...]:
        x = L.tensor([1.0], requires_grad=True)
        with L.no_grad():
            with L.enable_grad():
                y = x * 2
            after = L.is_grad_enabled()
        return y.requires_grad, after

    assert both(run) == ((True, False),) * 2


def test_decorators_with_and_without_parentheses() -> None:
    def run(L: Any) -> tuple[Any, ...]:
        @L.no_grad()
        def with_parens() -> bool:
            return L.is_grad_enabled()

        @L.no_grad
        def bare() -> bool:
            return L.is_grad_enabled()

        @L.enable_grad()
        def enabled() -> bool:
            return L.is_grad_enabled()

        @L.set_grad_enabled(False)
        def disabled() -> bool:
            return L.is_grad_enabled()

        with L.no_grad():
            turned_on = enabled()
        return (with_parens(), bare(), turned_on, disabled(), L.is_grad_enabled(),
                bare.__name__)

    assert both(run) == ((False, False, True, False, True, "bare"),) * 2


def test_set_grad_enabled_as_function_and_context() -> None:
    def run(L: Any) -> tuple[Any, ...]:
        L.set_grad_enabled(False)
        after_call = L.is_grad_enabled()
        L.set_grad_enabled(True)
        with L.set_grad_enabled(False):
            inside = L.is_grad_enabled()
        return after_call, inside, L.is_grad_enabled()

    assert both(run) == ((False, False, True),) * 2


def test_mode_restored_after_exception() -> None:
    for lib in both(lambda L: L):
        with pytest.raises(ValueError), lib.no_grad():
            raise ValueError("boom")
        assert lib.is_grad_enabled()

        @lib.no_grad()
        def fails() -> None:
            raise ValueError("boom")

        with pytest.raises(ValueError):
            fails()
        assert lib.is_grad_enabled()


def test_nested_no_grad_restores_each_level() -> None:
    for lib in both(lambda L: L):
        with lib.no_grad():
            with lib.enable_grad():
                with lib.no_grad():
                    assert not lib.is_grad_enabled()
                assert lib.is_grad_enabled()
            assert not lib.is_grad_enabled()
        assert lib.is_grad_enabled()


def test_parameter_update_under_no_grad() -> None:
    def run(L: Any) -> tuple[Any, ...]:
        w = L.tensor([1.0, 2.0], requires_grad=True)
        (w * w).sum().backward()
        with L.no_grad():
            w -= 0.1 * w.grad
        return w.tolist(), w.is_leaf, w.requires_grad

    ours, theirs = both(run)
    assert ours[1:] == theirs[1:] == (True, True)
    assert ours[0] == pytest.approx(theirs[0])


def test_autograd_namespace_exports_grad_mode() -> None:
    assert st.autograd.no_grad is st.no_grad
    assert st.autograd.is_grad_enabled is st.is_grad_enabled
