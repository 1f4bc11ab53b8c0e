"""Small details that must match PyTorch exactly: how ``linspace`` rounds its
points, which ``grad_fn`` a division records, what an in-place floor division
reports, and which in-place writes raise.

Each check runs the same code in both libraries (see ``tests/parity.py``);
the finite-difference and known-value checks run without torch.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib._creation import fused_multiply_add
from slowtorch_lib.autograd.gradcheck import gradcheck
from tests.parity import assert_same, both, require_torch, same_error

# ----------------------------------------------------------------------
# linspace: the same points, to the last bit
# ----------------------------------------------------------------------

STARTS = (-1, 0, 1, -3.7, 0.1, 2.5, -10, 100, 1e-3, -0.0, 1e-40, 3e38)
ENDS = (1, -1, 0, 3.3, 0.7, 10, -2.5, 1e5, -0.0, -3e38)
STEPS = (*range(0, 20), 31, 32, 33, 64, 100, 257)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_linspace_points_equal_torch_bit_for_bit(dtype: str) -> None:
    torch = require_torch()
    checked = 0
    for start, end, steps in itertools.product(STARTS, ENDS, STEPS):
        try:
            theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
        except RuntimeError:  # int64 cannot hold 3e38
            continue
        ours = st.linspace(start, end, steps, dtype=getattr(st, dtype))
        mine, real = map(repr, ours.tolist()), map(repr, theirs.tolist())
        assert list(mine) == list(real), (start, end, steps)
        checked += 1
    assert checked > 2000


def test_linspace_middle_is_torchs_float32_value() -> None:
    """``-1 + 3 * (2/3 in float32)`` rounded once is not zero."""
    points = st.linspace(-1, 1, 7).tolist()
    assert points[3] == -2.9802322387695312e-08
    assert points[0] == -1.0 and points[-1] == 1.0
    assert points[4] == -points[2]
    # float64: -1 + 3 * float64(1/3), rounded once.
    assert st.linspace(-1, 1, 7, dtype=st.float64).tolist()[3] == 2.0**-54


def test_linspace_matches_torch_in_the_default_dtype() -> None:
    ours, theirs = both(lambda lib: lib.linspace(-1, 1, 7))
    assert_same(ours, theirs, exact=True)
    ours, theirs = both(lambda lib: lib.linspace(0.1, 0.7, 9, requires_grad=True))
    assert_same(ours, theirs, exact=True)
    assert ours.requires_grad and ours.grad_fn is None


def test_fused_multiply_add_rounds_once() -> None:
    """``a * b + c`` rounded once, not twice (the product is not rounded)."""
    # 3 * float64(1/3) is 1 - 2**-54 exactly; rounding it first gives 1.
    assert fused_multiply_add(1 / 3, 3, -1.0, st.float64) == -(2.0**-54)
    assert (1 / 3) * 3 - 1 == 0.0
    # float32: 1 + 2**-24 is a tie between two float32 values: even wins.
    assert fused_multiply_add(2.0**-24, 1, 1.0, st.float32) == 1.0
    assert fused_multiply_add(3 * 2.0**-24, 1, 1.0, st.float32) == 1 + 2.0**-22
    # A zero sum keeps the sign float arithmetic gives it.
    assert str(fused_multiply_add(-2.0, 0, -0.0, st.float32)) == "-0.0"
    assert str(fused_multiply_add(2.0, 1, -2.0, st.float32)) == "0.0"


# ----------------------------------------------------------------------
# Division: the overload PyTorch records
# ----------------------------------------------------------------------

DIVISIONS = {
    "a / b": lambda lib, a, b: a / b,
    "a / 2": lambda lib, a, b: a / 2,
    "div(a, b)": lambda lib, a, b: lib.div(a, b),
    "div(a, 2)": lambda lib, a, b: lib.div(a, 2),
    "div(a, b, None)": lambda lib, a, b: lib.div(a, b, rounding_mode=None),
    "div(a, 2, None)": lambda lib, a, b: lib.div(a, 2, rounding_mode=None),
    "div(a, b, floor)": lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
    "div(a, 2, trunc)": lambda lib, a, b: lib.div(a, 2, rounding_mode="trunc"),
    "divide(a, b, None)": lambda lib, a, b: lib.divide(a, b, rounding_mode=None),
    "true_divide(a, b)": lambda lib, a, b: lib.true_divide(a, b),
    "a.div(b)": lambda lib, a, b: a.div(b),
    "a.div(b, None)": lambda lib, a, b: a.div(b, rounding_mode=None),
    "a.divide(2, floor)": lambda lib, a, b: a.divide(2, rounding_mode="floor"),
    "a.true_divide(b)": lambda lib, a, b: a.true_divide(b),
    "a * 1 .div_(b)": lambda lib, a, b: (a * 1).div_(b),
    "a * 1 .div_(b, None)": lambda lib, a, b: (a * 1).div_(b, rounding_mode=None),
    "a * 1 .div_(2, trunc)": lambda lib, a, b: (a * 1).div_(2, rounding_mode="trunc"),
    "a * 1 .divide_(b)": lambda lib, a, b: (a * 1).divide_(b),
    "a * 1 .true_divide_(b)": lambda lib, a, b: (a * 1).true_divide_(b),
}


def _operands(lib: Any) -> tuple[Any, Any]:
    a = lib.tensor([[1.5, -2.0, 3.0], [0.25, 7.0, -1.0]]).requires_grad_()
    b = lib.tensor([0.5, 3.0, -2.0]).requires_grad_()
    return a, b


@pytest.mark.parametrize("form", DIVISIONS)
def test_division_records_torchs_overload(form: str) -> None:
    def run(lib: Any) -> tuple[Any, ...]:
        a, b = _operands(lib)
        out = DIVISIONS[form](lib, a, b)
        (out * lib.tensor([1.0, -2.0, 0.5])).sum().backward()
        return out, a.grad, b.grad

    ours, theirs = both(run)
    assert_same(ours[0], theirs[0])
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name()
    assert_same(ours[1], theirs[1])
    assert (ours[2] is None) == (theirs[2] is None)
    if theirs[2] is not None:
        assert_same(ours[2], theirs[2])


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, a: lib.div(a, 2, rounding_mode="round"),
        lambda lib, a: (a * 1).div_(2, rounding_mode="round"),
        lambda lib, a: lib.true_divide(a, 2, rounding_mode=None),
        lambda lib, a: a.true_divide(2, rounding_mode="floor"),
        lambda lib, a: a.div(2, mode="floor"),
    ],
)
def test_division_rejects_what_torch_rejects(call: Any) -> None:
    def run(lib: Any) -> Any:
        a = lib.tensor([1.0, 2.0]).requires_grad_()
        return call(lib, a)

    same_error(run, match_message=False)


def test_division_with_mode_none_has_the_true_gradient() -> None:
    """Finite differences (no torch): ``DivBackward2`` is still ``a / b``."""
    a = st.tensor([[1.5, -2.0, 3.0], [0.25, 7.0, -1.0]], dtype=st.float64)
    b = st.tensor([0.5, 3.0, -2.0], dtype=st.float64)
    a.requires_grad_()
    b.requires_grad_()
    out = st.div(a, b, rounding_mode=None)
    assert out.grad_fn is not None and out.grad_fn.name() == "DivBackward2"
    assert gradcheck(lambda x, y: st.div(x, y, rounding_mode=None), (a, b))
    assert gradcheck(lambda x, y: (x * 1).div_(y, rounding_mode=None), (a, b))
    assert gradcheck(lambda x, y: st.true_divide(x, y), (a, b))


# ----------------------------------------------------------------------
# In-place floor division
# ----------------------------------------------------------------------


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
