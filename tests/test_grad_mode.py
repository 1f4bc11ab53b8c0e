"""Grad mode: no_grad, enable_grad, set_grad_enabled, is_grad_enabled, as torch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import (
    both,
    same_error,
)


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
        return (
            with_parens(),
            bare(),
            turned_on,
            disabled(),
            L.is_grad_enabled(),
            bare.__name__,
        )

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


# ----------------------------------------------------------------------
# A mode nested inside the same mode restores the outer mode (as torch)
# ----------------------------------------------------------------------


def _nested_same_mode(L: Any) -> list[bool]:
    """Grad mode seen at each step of blocks nested in the same mode."""
    seen = []
    with L.no_grad():
        with L.no_grad():
            seen.append(L.is_grad_enabled())
        seen.append(L.is_grad_enabled())  # still off: the outer no_grad
    seen.append(L.is_grad_enabled())
    with L.no_grad():
        with L.enable_grad():
            with L.enable_grad():
                seen.append(L.is_grad_enabled())
            seen.append(L.is_grad_enabled())  # still on: the outer enable_grad
        seen.append(L.is_grad_enabled())
    with L.set_grad_enabled(False):
        with L.set_grad_enabled(False):
            seen.append(L.is_grad_enabled())
        seen.append(L.is_grad_enabled())
        with L.set_grad_enabled(True):
            with L.set_grad_enabled(True):
                seen.append(L.is_grad_enabled())
            seen.append(L.is_grad_enabled())
        seen.append(L.is_grad_enabled())
    seen.append(L.is_grad_enabled())
    return seen


def test_same_mode_nested_restores_the_outer_mode() -> None:
    ours, theirs = both(_nested_same_mode)
    assert ours == theirs
    assert ours == [
        False,
        False,
        True,
        True,
        True,
        False,
        False,
        False,
        True,
        True,
        False,
        True,
    ]


def test_nested_decorators_restore_the_outer_mode() -> None:
    def run(L: Any) -> list[bool]:
        seen = []

        @L.no_grad()
        def inner_off() -> None:
            seen.append(L.is_grad_enabled())

        @L.no_grad()
        def outer_off() -> None:
            inner_off()
            seen.append(L.is_grad_enabled())

        @L.enable_grad()
        def inner_on() -> None:
            seen.append(L.is_grad_enabled())

        @L.enable_grad()
        def outer_on() -> None:
            inner_on()
            seen.append(L.is_grad_enabled())

        @L.set_grad_enabled(False)
        def set_off() -> None:
            outer_off()
            outer_on()
            seen.append(L.is_grad_enabled())

        outer_off()
        seen.append(L.is_grad_enabled())
        with L.no_grad():
            outer_on()
            seen.append(L.is_grad_enabled())
        set_off()
        seen.append(L.is_grad_enabled())
        return seen

    ours, theirs = both(run)
    assert ours == theirs
    assert ours == [
        False,
        False,
        True,
        True,
        True,
        False,
        False,
        False,
        True,
        True,
        False,
        True,
    ]


def test_nested_same_mode_records_as_torch() -> None:
    def run(L: Any) -> tuple[bool, ...]:
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with L.no_grad():
            with L.no_grad():
                a = x * 2
            b = x * 2
        with L.enable_grad():
            with L.enable_grad():
                c = x * 2
            d = x * 2
        return a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad

    assert both(run) == ((False, False, True, True),) * 2


# ---------------------------------------------------------------- inference mode


def test_inference_mode_makes_inference_tensors() -> None:
    def run(L: Any) -> list[Any]:
        w = L.ones(2, requires_grad=True)
        with L.inference_mode():
            x = L.ones(2)
            y = w * 2
            inside = [L.is_inference_mode_enabled(), L.is_grad_enabled()]
            with L.inference_mode(False):
                off = [L.is_inference_mode_enabled(), L.is_grad_enabled()]
                off.append(L.ones(1).is_inference())
        after = [L.is_inference_mode_enabled(), L.is_grad_enabled()]
        return [
            x.is_inference(),
            y.is_inference(),
            y.requires_grad,
            w.is_inference(),
            inside,
            off,
            after,
            x.view(2).is_inference(),
            x.clone().is_inference(),
            (x + 1).is_inference(),
            (w + x).requires_grad,
        ]

    ours, theirs = both(run)
    assert ours == theirs


def test_inference_mode_as_a_decorator() -> None:
    def run(L: Any) -> list[bool]:
        @L.inference_mode
        def bare() -> bool:
            return bool(L.ones(1).is_inference())

        @L.inference_mode()
        def called() -> bool:
            return bool(L.ones(1).is_inference())

        @L.inference_mode(False)
        def off() -> bool:
            return bool(L.ones(1).is_inference())

        return [bare(), called(), off(), L.is_inference_mode_enabled()]

    ours, theirs = both(run)
    assert ours == theirs == [True, True, False, False]


def _inference(L: Any) -> Any:
    with L.inference_mode():
        return L.ones(2)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: (L.ones(2, requires_grad=True) * _inference(L)).sum(),
        lambda L: L.ones(2, requires_grad=True).exp() * _inference(L),
        lambda L: _inference(L).add_(1),
        lambda L: _inference(L).__setitem__(0, 5.0),
        lambda L: _inference(L).requires_grad_(),
    ],
)
def test_inference_tensors_meet_autograd_with_torchs_errors(
    call: Callable[[Any], Any],
) -> None:
    same_error(call)


def test_refused_inplace_leaves_the_inference_tensor_unchanged() -> None:
    x = _inference(st)
    with pytest.raises(RuntimeError):
        x.mul_(3)
    assert x.tolist() == [1.0, 1.0]
    with st.inference_mode():
        x.mul_(3)
    assert x.tolist() == [3.0, 3.0]
