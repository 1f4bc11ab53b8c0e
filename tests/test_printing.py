"""repr/str of tensors, Size, dtype and device: character for character as torch.

Each case is a function of the library (``T``), run once with slowtorch_lib
and once with torch: the same code must print the same text.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st_

import slowtorch_lib as st
from slowtorch_lib import _printing
from tests.parity import require_torch, to_torch

nan = math.nan
inf = math.inf


def same_repr(make: Callable[[Any], Any]) -> str:
    """Builds a tensor with both libraries; asserts the reprs and strs agree."""
    torch = require_torch()
    ours = make(st)
    theirs = make(torch)
    assert repr(ours) == repr(theirs), f"\nours:\n{ours!r}\ntorch:\n{theirs!r}"
    assert str(ours) == str(theirs)
    return repr(ours)


CASES: list[Callable[[Any], Any]] = [
    # empty tensors
    lambda T: T.tensor([]),
    lambda T: T.zeros(0, 3),
    lambda T: T.zeros(2, 0, 3),
    lambda T: T.zeros(3, 0),
    lambda T: T.tensor([], dtype=T.int64),
    lambda T: T.tensor([], dtype=T.bool),
    lambda T: T.tensor([], dtype=T.float64),
    lambda T: T.zeros(0, 3, dtype=T.int64),
    lambda T: T.zeros(0, requires_grad=True),
    lambda T: T.zeros(0, 2, dtype=T.float64, requires_grad=True),
    # 0-d
    lambda T: T.tensor(1.5),
    lambda T: T.tensor(3),
    lambda T: T.tensor(-5),
    lambda T: T.tensor(True),
    lambda T: T.tensor(1.0),
    lambda T: T.tensor(1e10),
    lambda T: T.tensor(1e-5),
    lambda T: T.tensor(nan),
    lambda T: T.tensor(-inf),
    lambda T: T.tensor(-0.0),
    lambda T: T.tensor(1 / 3, dtype=T.float64),
    lambda T: T.tensor(2.0, requires_grad=True),
    # integer-valued floats, zeros, nan, inf
    lambda T: T.tensor([1.0, 2.0]),
    lambda T: T.tensor([0.0, nan, inf, -inf]),
    lambda T: T.tensor([0.0, -0.0]),
    lambda T: T.tensor([-0.0, 1.5]),
    lambda T: T.tensor([-0.0, 2.0]),
    lambda T: T.tensor([nan, 1.5]),
    lambda T: T.tensor([nan, -100.0]),
    lambda T: T.tensor([inf, 1.0]),
    lambda T: T.tensor([0.0, nan, 1.0]),
    lambda T: T.tensor([0.0, -inf, 10.0]),
    lambda T: T.tensor([[0.0, -inf], [nan, 0.0]]),
    # fixed and scientific notation
    lambda T: T.tensor([1e-5, 1.0]),
    lambda T: T.tensor([1.0, 1000.0]),
    lambda T: T.tensor([1.0, 1001.0]),
    lambda T: T.tensor([1.0, 1e8]),
    lambda T: T.tensor([2e8, 3e8]),
    lambda T: T.tensor([1.5, 1e8]),
    lambda T: T.tensor([1e-4, 1.0]),
    lambda T: T.tensor([0.00011, 0.1]),
    lambda T: T.tensor([0.5, 600.0]),
    lambda T: T.tensor([0.5, 500.0]),
    lambda T: T.tensor([1000.5, 1.5]),
    lambda T: T.tensor([1000.5, 1.0]),
    lambda T: T.tensor([1e5, 100.5]),
    lambda T: T.tensor([1e5, 99.5]),
    lambda T: T.tensor([-1.5, 2.25, -300.125]),
    lambda T: T.tensor([-1e10, 1.0]),
    lambda T: T.tensor([inf, 1e10]),
    lambda T: T.tensor([0.99995, 1.0]),
    lambda T: T.tensor([1e-45, 1.0]),
    lambda T: T.tensor([3.4e38]),
    lambda T: T.tensor([99999999.5], dtype=T.float64),
    lambda T: T.tensor([1e8], dtype=T.float64),
    lambda T: T.tensor([1e8 + 0.5, 1.0], dtype=T.float64),
    lambda T: T.tensor([5e-324, 1.0], dtype=T.float64),
    lambda T: T.tensor([1.7e308, 1.0], dtype=T.float64),
    lambda T: T.tensor([9.99995, 1.5], dtype=T.float64),
    # ints and bools
    lambda T: T.tensor([True, False]),
    lambda T: T.tensor([[True, True]]),
    lambda T: T.tensor([[True, False], [False, False]]),
    lambda T: T.tensor([1, -20, 300]),
    lambda T: T.tensor([10**15, -3]),
    # 2-d to 4-d
    lambda T: T.tensor([[1, 2], [3, 4]]),
    lambda T: T.arange(24.0).reshape(2, 3, 4),
    lambda T: T.arange(48).reshape(2, 2, 3, 4),
    lambda T: T.ones(1, 1, 1, 1),
    lambda T: T.tensor([[1e-5, 1.0], [2.0, 3.0]]),
    # line wrapping at 80 columns
    lambda T: T.arange(30.0),
    lambda T: T.arange(30.0) * 1.5,
    lambda T: T.arange(100),
    lambda T: T.arange(40.0).reshape(2, 20) * 1e-7,
    lambda T: T.tensor([1e300] * 9, dtype=T.float64),
    lambda T: T.tensor([0.0] * 29 + [-inf]),  # wraps by the width of "0.", not "-inf"
    lambda T: T.tensor([0.0, 0.0, 0.0, -inf, 2.0] + [0.0] * 25),
    lambda T: T.tensor([[0.0] * 12, [0.0] * 11 + [nan]]),
    # summarisation
    lambda T: T.arange(1001.0),
    lambda T: T.arange(1000.0),
    lambda T: T.arange(2000).reshape(40, 50),
    lambda T: T.arange(3000.0).reshape(10, 10, 30),
    lambda T: T.arange(1200.0).reshape(6, 200),
    lambda T: T.arange(1400.0).reshape(7, 200),
    lambda T: T.zeros(2000, dtype=T.int64),
    lambda T: T.zeros(2000, dtype=T.bool),
    lambda T: T.zeros(3, 400),
    lambda T: T.arange(2401).reshape(7, 7, 7, 7),
    lambda T: T.arange(2000.0).reshape(1000, 2),
    # the format is chosen from the shown values only
    lambda T: T.cat([T.arange(1000.0), T.tensor([1e10]), T.arange(1000.0)]),
    lambda T: T.cat([T.tensor([1e10]), T.arange(2000.0)]),
    # views and non-contiguous tensors
    lambda T: T.arange(50.0).reshape(5, 10).t(),
    lambda T: T.arange(12.0).reshape(3, 4)[:, 1],
    lambda T: T.arange(12.0).reshape(3, 4)[1:, ::2],
    lambda T: T.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)[1:],
    lambda T: T.arange(24.0).reshape(2, 3, 4).transpose(0, 2),
    lambda T: T.arange(3000.0).reshape(30, 100).t(),
    lambda T: T.tensor([1.5, 2.5]).expand(3, 2),
    # dtype and autograd suffixes
    lambda T: T.tensor([1.0, 2.0], dtype=T.float64),
    lambda T: T.tensor([1.0, 2.0], requires_grad=True),
    lambda T: T.tensor([1.0, 2.0], requires_grad=True) * 2,
    lambda T: T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True) * 2,
    lambda T: T.zeros(3, requires_grad=True),
    lambda T: T.zeros(2, 3, requires_grad=True).sum(),
    lambda T: T.tensor(3.0, dtype=T.float64, requires_grad=True),
    lambda T: T.full((3, 10), 1.5, requires_grad=True) * 1e5,
    lambda T: T.full((2, 9), 1.5, requires_grad=True) * 1e5,
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_repr_matches_torch(index: int) -> None:
    same_repr(CASES[index])


@pytest.mark.parametrize("count", range(1, 16))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_suffix_wraps_where_torch_wraps(count: int, dtype: str) -> None:
    """A suffix that does not fit the last line goes to a new line."""
    same_repr(
        lambda T: (
            T.full((count,), 1.5, dtype=getattr(T, dtype), requires_grad=True) * 1e5
        )
    )
    same_repr(
        lambda T: T.full((count, 2), 1.25, dtype=getattr(T, dtype), requires_grad=True)
    )
    same_repr(
        lambda T: T.full((count,), -1e-20, dtype=getattr(T, dtype), requires_grad=True)
    )


def test_default_dtype_float64_shows_float32_suffix() -> None:
    torch = require_torch()
    try:
        st.set_default_dtype(st.float64)
        torch.set_default_dtype(torch.float64)
        assert same_repr(lambda T: T.tensor([1.0, 2.0])) == "tensor([1., 2.])"
        assert same_repr(lambda T: T.tensor([1.0, 2.0], dtype=T.float32)) == (
            "tensor([1., 2.], dtype=torch.float32)"
        )
        same_repr(lambda T: T.tensor([], dtype=T.float32))
        same_repr(lambda T: T.tensor(1 / 3, dtype=T.float32, requires_grad=True) * 2)
        same_repr(lambda T: T.tensor([1, 2]))
    finally:
        st.set_default_dtype(st.float32)
        torch.set_default_dtype(torch.float32)


def test_known_texts() -> None:
    """A few layouts spelled out, so the expected text is visible here."""
    assert repr(st.tensor([[1.0, 2.5], [-3.0, 4.0]])) == (
        "tensor([[ 1.0000,  2.5000],\n        [-3.0000,  4.0000]])"
    )
    assert repr(st.tensor([True, False])) == "tensor([ True, False])"
    assert repr(st.zeros(0, 3)) == "tensor([], size=(0, 3))"
    assert (
        repr(st.arange(1001.0))
        == "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])"
    )
    assert str(st.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"


def test_printing_helpers() -> None:
    assert _printing.shown_indices((2, 10), summarise=True) == [
        [0, 1],
        [0, 1, 2, None, 7, 8, 9],
    ]
    assert _printing.shown_indices((2, 10), summarise=False)[1] == list(range(10))
    assert _printing.choose_style([1, 2], is_float=False) == "plain"
    assert _printing.choose_style([0.0, nan], is_float=True) == "whole"
    assert _printing.choose_style([1.0, 1001.0], is_float=True) == "scientific"
    assert _printing.choose_style([0.5, 2.0], is_float=True) == "fixed"


def test_size_dtype_device_print_as_torch() -> None:
    torch = require_torch()
    for ours, theirs in [
        (st.zeros(2, 3).shape, torch.zeros(2, 3).shape),
        (st.tensor(1.0).shape, torch.tensor(1.0).shape),
        (st.zeros(4).size(), torch.zeros(4).size()),
        (st.float32, torch.float32),
        (st.float64, torch.float64),
        (st.int64, torch.int64),
        (st.bool, torch.bool),
        (st.tensor(1.0).dtype, torch.tensor(1.0).dtype),
        (st.device("cpu"), torch.device("cpu")),
        (st.zeros(1).device, torch.zeros(1).device),
    ]:
        assert repr(ours) == repr(theirs)
        assert str(ours) == str(theirs)


def test_format_of_0d_tensor() -> None:
    torch = require_torch()
    assert f"{st.tensor(2.5):.2f}" == f"{torch.tensor(2.5):.2f}"
    assert f"{st.tensor([1.0, 2.0])}" == f"{torch.tensor([1.0, 2.0])}"


# ----------------------------------------------------------------------
# Random tensors: shapes, dtypes and magnitudes drawn by hypothesis
# ----------------------------------------------------------------------

SPECIAL = [0.0, -0.0, nan, inf, -inf]


@st_.composite
def tensors(draw: Any) -> st.Tensor:
    """A tensor of 0 to 4 dims, any dtype, values of one or many magnitudes."""
    shape = tuple(draw(st_.lists(st_.integers(0, 5), max_size=4)))
    if draw(st_.booleans()) and shape:  # sometimes one long row, to wrap lines
        shape = shape[:-1] + (draw(st_.integers(6, 40)),)
    count = math.prod(shape)
    dtype = draw(st_.sampled_from(["float32", "float64", "int64", "bool"]))
    if dtype == "bool":
        values: list[Any] = draw(
            st_.lists(st_.booleans(), min_size=count, max_size=count)
        )
    elif dtype == "int64":
        bound = 10 ** draw(st_.integers(0, 18))
        values = draw(
            st_.lists(st_.integers(-bound, bound), min_size=count, max_size=count)
        )
    else:
        low = draw(st_.integers(-12, 10))
        high = draw(st_.integers(low, 12))
        whole = draw(st_.booleans())
        values = []
        for _ in range(count):
            if draw(st_.integers(0, 9)) == 0:
                values.append(draw(st_.sampled_from(SPECIAL)))
                continue
            value = draw(st_.floats(1.0, 10.0)) * 10.0 ** draw(st_.integers(low, high))
            value = float(round(value)) if whole else value
            values.append(-value if draw(st_.booleans()) else value)
    ours = st.tensor(values, dtype=getattr(st, dtype)).reshape(shape)
    if len(shape) >= 2 and draw(st_.booleans()):
        ours = ours.transpose(0, -1)  # a non-contiguous view
    return ours


@given(tensors(), st_.booleans())
def test_random_tensors_print_as_torch(ours: st.Tensor, requires_grad: bool) -> None:
    theirs = to_torch(ours).reshape(tuple(ours.shape))  # keeps shapes like (0, 2)
    if requires_grad and ours.dtype.is_floating_point:
        ours.requires_grad_(True)
        theirs.requires_grad_(True)
    assert repr(ours) == repr(theirs), f"\nours:\n{ours!r}\ntorch:\n{theirs!r}"


@given(
    st_.integers(1, 3), st_.integers(300, 700), st_.sampled_from(["float32", "int64"])
)
def test_random_summarised_tensors(rows: int, columns: int, dtype: str) -> None:
    torch = require_torch()
    ours = st.arange(rows * columns, dtype=getattr(st, dtype)).reshape(rows, columns)
    ours = ours * ours - 7
    theirs = torch.arange(rows * columns, dtype=getattr(torch, dtype)).reshape(
        rows, columns
    )
    theirs = theirs * theirs - 7
    assert repr(ours) == repr(theirs)
