"""gradcheck and gradgradcheck: finite differences against the backward pass.

These tests need no torch, except the one that compares verdicts with it.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.autograd import GradcheckError, gradcheck, gradgradcheck
from slowtorch_lib.autograd.gradcheck import analytical_jacobian, numerical_jacobian
from tests.parity import require_torch


def double(values: Any) -> st.Tensor:
    return st.tensor(values, dtype=st.float64, requires_grad=True)


class WrongSquare(st.autograd.Function):
    """x * x with the derivative 3x instead of 2x."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x


class DetachedCube(st.autograd.Function):
    """x ** 3 whose backward is right once, but cannot be differentiated again."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: Any, grad_output: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x.detach() ** 2


def test_passes_for_correct_operations() -> None:
    x = double([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])
    w = double([0.2, -0.4, 1.1])
    assert gradcheck(lambda a, b: (a * b).tanh().sum(1), (x, w))
    assert gradcheck(lambda a: a.t() @ a, x)


def test_raises_gradcheck_error_naming_input_and_element() -> None:
    x = double([1.0, 2.0])
    with pytest.raises(GradcheckError) as info:
        gradcheck(WrongSquare.apply, (x,))
    message = str(info.value)
    assert isinstance(info.value, RuntimeError)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,")
    assert "at output element (0,) and input element (0,)" in message
    assert "analytical (backward):          3.0" in message
    assert "numerical (finite differences): 2.0" in message


def test_returns_false_without_raising() -> None:
    assert (
        gradcheck(WrongSquare.apply, (double([1.0, 2.0]),), raise_exception=False)
        is False
    )


def test_mismatch_in_second_input_is_named() -> None:
    x, y = double([1.0, 2.0]), double([0.5, 3.0])
    with pytest.raises(GradcheckError, match="with respect to input 1"):
        gradcheck(lambda a, b: a + WrongSquare.apply(b), (x, y))


def test_several_outputs_and_constant_arguments() -> None:
    x = double([0.5, -1.5, 2.0])

    def fn(a: Any, scale: float, index: Any) -> Any:
        return a * scale, a.exp().sum(), index * 2  # the int output is skipped

    assert gradcheck(fn, (x, 3.0, st.tensor([1, 2])))


def test_noncontiguous_input_is_left_unchanged() -> None:
    base = double([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    view = base.detach().t().requires_grad_()
    version = view._version
    assert gradcheck(lambda a: (a * a).sum(0), (view,))
    assert view.tolist() == [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]
    assert view._version == version


def test_jacobians_of_a_linear_map() -> None:
    a = st.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=st.float64)
    x = double([0.1, 0.2, 0.3])
    numerical = numerical_jacobian(lambda v: a @ v, (x,))
    analytical = analytical_jacobian(lambda v: a @ v, (x,))
    assert analytical == [[a.tolist()]]
    for row, expected in zip(numerical[0][0], a.tolist()):
        assert row == pytest.approx(expected, abs=1e-8)


def test_float32_inputs_warn() -> None:
    x = st.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision"):
        gradcheck(lambda a: a * 2, (x,), eps=1e-2, atol=1e-2, rtol=1e-2)


def test_needs_an_input_that_requires_grad() -> None:
    with pytest.raises(
        ValueError, match="at least one input tensor to require gradient"
    ):
        gradcheck(lambda a: a * 2, (st.tensor([1.0], dtype=st.float64),))


def test_gradgradcheck_passes_for_differentiable_backward() -> None:
    x, y = double([0.5, -1.0]), double([1.5, 0.25])
    assert gradgradcheck(lambda a, b: (a.sin() * b * b).sum(), (x, y))


def test_gradgradcheck_fails_when_backward_detaches() -> None:
    x = double([0.5, -1.0, 2.0])
    assert gradcheck(DetachedCube.apply, (x,))
    assert gradgradcheck(DetachedCube.apply, (x,), raise_exception=False) is False


def test_same_verdicts_as_torch() -> None:
    torch = require_torch()

    def verdicts(lib: Any) -> list[bool]:
        x = lib.tensor([0.3, -1.2, 0.8], dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [
                lib.autograd.gradcheck(lambda a: (a * a.exp()).sum(), (x,)),
                lib.autograd.gradcheck(lambda a: a.abs() * 2, (x,)),
            ]

    assert verdicts(st) == verdicts(torch) == [True, True]
