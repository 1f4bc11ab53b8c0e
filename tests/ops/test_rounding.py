"""Rounding, floor division and remainder against PyTorch.

Each check runs the same code on both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compares what comes out, or the type and message of the
exception. Gradients and ``grad_fn`` names are checked by the op table.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

import random
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.autograd.gradcheck import gradcheck
from tests.agree import agree
from tests.parity import assert_same, both, require_torch, same_error
from tests.parity_checks import (
    DTYPES,
    SPECIAL,
    VALUES,
    check,
    grid,
    inf,
    nan,
)

ROUNDING = {
    "floor": lambda lib, x: lib.floor(x),
    "ceil": lambda lib, x: x.ceil(),
    "trunc": lambda lib, x: lib.trunc(x),
    "fix": lambda lib, x: lib.fix(x),
    "round": lambda lib, x: lib.round(x),
    "round_method": lambda lib, x: x.round(),
    "isinf": lambda lib, x: lib.isinf(x),
    "isfinite": lambda lib, x: x.isfinite(),
    "nan_to_num": lambda lib, x: lib.nan_to_num(x),
    "nan_to_num_args": lambda lib, x: x.nan_to_num(1.5, posinf=2.0, neginf=-7.0),
    "nan_to_num_nan_only": lambda lib, x: lib.nan_to_num(x, nan=-1.0),
    "log1p": lambda lib, x: lib.log1p(x),
}


@pytest.mark.parametrize("name", list(ROUNDING))
@pytest.mark.parametrize("dtype", DTYPES)
def test_rounding_and_special_values(name: str, dtype: str) -> None:
    op = ROUNDING[name]
    values = SPECIAL if dtype.startswith("float") else VALUES[dtype]
    exact = name != "log1p"
    check(lambda lib: op(lib, lib.tensor(values, dtype=getattr(lib, dtype))), exact)


@pytest.mark.parametrize("name", list(ROUNDING))
def test_rounding_keeps_shape_of_0d_empty_and_strided(name: str) -> None:
    op = ROUNDING[name]
    check(lambda lib: op(lib, lib.tensor(-2.5)))
    check(lambda lib: op(lib, lib.zeros(2, 0)))
    check(lambda lib: op(lib, lib.tensor(grid(1, (3, 4))).t()), exact=name != "log1p")


@pytest.mark.parametrize("decimals", [-3, -1, 0, 1, 2, 3, 5])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_round_decimals_matches_torch_bit_for_bit(decimals: int, dtype: str) -> None:
    rng = random.Random(decimals)
    values = [rng.uniform(-1000, 1000) for _ in range(300)] + SPECIAL
    values += [0.125, 0.375, 2.675, 1.005, -0.045, 1234.5678]
    check(
        lambda lib: lib.round(
            lib.tensor(values, dtype=getattr(lib, dtype)), decimals=decimals
        )
    )


def test_round_decimals_beyond_the_range_of_floats() -> None:
    values = [0.0, 1.5, -2.25, inf, nan]
    for decimals in (-400, -309, -39, -38, 38, 39, 308, 309, 400):
        for dtype in ("float32", "float64"):
            check(
                lambda lib: lib.tensor(values, dtype=getattr(lib, dtype)).round(
                    decimals=decimals
                )
            )


def test_round_decimals_errors_and_integer_rounding() -> None:
    check(lambda lib: lib.round(lib.tensor([15, 25]), decimals=-1))
    check(lambda lib: lib.tensor([True]).round())
    check(lambda lib: lib.tensor([True]).floor())
    check(lambda lib: lib.ceil(lib.tensor([False])))
    check(lambda lib: lib.trunc(lib.tensor([True])))


def test_rounding_ops_have_zero_gradients_and_torch_names() -> None:
    torch = require_torch()
    for name in ("floor", "ceil", "trunc", "round"):
        for lib in (st, torch):
            x = lib.tensor([0.3, -1.7], requires_grad=True)
            y = getattr(x, name)()
            (y * lib.tensor([2.0, inf])).sum().backward()
            assert x.grad.tolist() == [0.0, 0.0]
        ours = getattr(st.tensor([1.5], requires_grad=True), name)()
        theirs = getattr(torch.tensor([1.5], requires_grad=True), name)()
        assert ours.grad_fn.name() == theirs.grad_fn.name()
    # Passing decimals at all (even 0) is the other overload.
    for lib_name, lib in (("st", st), ("torch", torch)):
        x = lib.tensor([1.25], requires_grad=True)
        assert x.round(decimals=0).grad_fn.name() == "RoundBackward1", lib_name
        assert x.round().grad_fn.name() == "RoundBackward0", lib_name


def test_remainder_has_gradients() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([5.5, -2.0, 3.0], requires_grad=True)
        y = lib.tensor([2.0, 1.5, -2.0], requires_grad=True)
        a, b = x % y, x % 2
        (a + b).sum().backward()
        return a, b, x.grad, y.grad

    agree(program)


def test_remainder_of_a_number_has_no_derivative() -> None:
    torch = require_torch()
    for lib in (torch, st):
        x = lib.tensor([1.5, 2.0], requires_grad=True)
        y = 2 % x
        assert y.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="aten::remainder is not implemented"):
            y.sum().backward()


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x // 2,
        lambda x: 3.0 // x,
        lambda lib_x: lib_x.floor_divide(lib_x),
    ],
    ids=["tensor_number", "number_tensor", "tensor_tensor"],
)
def test_floor_divide_has_no_derivative(make: Any) -> None:
    torch = require_torch()
    for lib in (torch, st):
        x = lib.tensor([1.5, -2.0], requires_grad=True)
        y = make(x)
        assert y.requires_grad
        assert y.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="aten::floor_divide is not implemented"):
            y.sum().backward()


def _floor_divide_in_place(lib: Any, form: str) -> Any:
    a = lib.tensor([3.5, -2.0, 7.0]).requires_grad_()
    out = a * 1
    other = lib.tensor([2.0, 3.0, -2.0])
    if form == "//=":
        out //= other
    else:
        out.floor_divide_(other)
    return out


@pytest.mark.parametrize("form", ["//=", "floor_divide_"])
def test_floor_divide_in_place_matches_torch(form: str) -> None:
    ours, theirs = both(lambda lib: _floor_divide_in_place(lib, form))
    assert_same(ours, theirs)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    message = same_error(lambda lib: _floor_divide_in_place(lib, form).sum().backward())
    assert "aten::floor_divide_ " in message


def test_floor_divide_out_of_place_names_floor_divide() -> None:
    """Without torch: the error of backward names the function that ran."""
    a = st.tensor([3.5, -2.0]).requires_grad_()
    with pytest.raises(RuntimeError, match="aten::floor_divide is not"):
        (a // 2).sum().backward()
    with pytest.raises(RuntimeError, match="aten::floor_divide_ is not"):
        (a * 1).floor_divide_(2).sum().backward()


@pytest.mark.parametrize("other", [1.5, "float tensor"])
def test_integer_floor_divide_in_place_by_a_float_raises(other: Any) -> None:
    def run(lib: Any) -> Any:
        x = lib.tensor([7, -7, 3])
        divisor = lib.tensor([2.0, 2.0, 2.0]) if other == "float tensor" else other
        try:
            x.floor_divide_(divisor)
        finally:
            assert x.tolist() == [7, -7, 3] and x._version == 0
        return x

    same_error(run)


def test_remainder_saves_its_inputs_only_for_the_divisors_gradient() -> None:
    """Changing a divisor that needs no gradient in place does not break
    backward (nothing reads it); changing one that does, raises."""

    def run(lib: Any, divisor_needs_grad: bool) -> Any:
        x = lib.tensor([-2.25, 2.75, -2.875, 2.125]).requires_grad_()
        divisor = lib.tensor([2.0, -1.5, 2.0, 0.75])
        divisor.requires_grad_(divisor_needs_grad)
        out = x.remainder(divisor)
        divisor.detach().mul_(2)
        (out * lib.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return x.grad

    ours, theirs = both(lambda lib: run(lib, False))
    assert_same(ours, theirs)
    same_error(lambda lib: run(lib, True), match_message=False)


def test_remainder_gradients_by_finite_differences() -> None:
    x = st.tensor([-2.25, 2.75, -2.875, 2.125], dtype=st.float64).requires_grad_()
    divisor = st.tensor([2.0, -1.5, 2.0, 0.75], dtype=st.float64).requires_grad_()
    assert gradcheck(lambda a, b: a.remainder(b), (x, divisor))
    assert gradcheck(lambda a: a.remainder(divisor.detach()), (x,))
