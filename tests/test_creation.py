"""Creation functions: values, shapes, dtypes and errors, compared with torch.

Each case is a function of the library (``T``), run with slowtorch_lib and
with torch: the same code must give the same tensor, or the same error.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st_

import slowtorch_lib as st
from tests.parity import assert_same, require_torch, same_error

nan = math.nan
inf = math.inf


def same(
    make: Callable[[Any], Any], exact: bool = True, **tolerances: float
) -> st.Tensor:
    """Builds a tensor with both libraries and asserts shape, dtype, values agree."""
    torch = require_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = make(st)
        theirs = make(torch)
    assert_same(ours, theirs, exact=exact, **tolerances)
    assert ours.requires_grad == theirs.requires_grad
    return ours


# ----------------------------------------------------------------------
# tensor(data)
# ----------------------------------------------------------------------

TENSOR_CASES: list[Callable[[Any], Any]] = [
    lambda T: T.tensor(3),
    lambda T: T.tensor(2.5),
    lambda T: T.tensor(True),
    lambda T: T.tensor(0.1),  # rounded to float32
    lambda T: T.tensor([1, 2, 3]),
    lambda T: T.tensor([1.0, 2, 3]),
    lambda T: T.tensor([True, False]),
    lambda T: T.tensor([True, 2]),  # bool and int: int64
    lambda T: T.tensor([True, 2.5]),
    lambda T: T.tensor([[1, 2], [3, 4]]),
    lambda T: T.tensor([[[1.5], [2.5]], [[3.5], [4.5]]]),
    lambda T: T.tensor([[1, 2], (3, 4)]),
    lambda T: T.tensor((1, 2)),
    lambda T: T.tensor(range(4)),
    lambda T: T.tensor([]),
    lambda T: T.tensor([[]]),
    lambda T: T.tensor([[], []]),
    lambda T: T.tensor([], dtype=T.int64),
    lambda T: T.tensor([1.7, -1.7], dtype=T.int64),  # truncation toward zero
    lambda T: T.tensor([0, 2, -0.5], dtype=T.bool),
    lambda T: T.tensor([1, 2], dtype=T.float64),
    lambda T: T.tensor([True, 2], dtype=T.float64),
    lambda T: T.tensor(1.5, dtype=T.int64),
    lambda T: T.tensor(-(2**63)),
    lambda T: T.tensor(2**63, dtype=T.float64),
    lambda T: T.tensor(9.2e18, dtype=T.int64),
    lambda T: T.tensor([1e300, -1e300, 1e-50]),  # float32 overflow and underflow
    lambda T: T.tensor([nan, inf, -inf, -0.0]),
    lambda T: T.tensor([1, 2], requires_grad=False),
    lambda T: T.tensor([1.0, 2.0], requires_grad=True),
    lambda T: T.tensor([1, 2], dtype=T.float64, requires_grad=True),
    lambda T: T.tensor([1, 2], device="cpu"),
    lambda T: T.tensor([1, 2], device=T.device("cpu")),
    lambda T: T.tensor([T.tensor(1.0), T.tensor(2.0)]),
    lambda T: T.tensor([T.tensor(1), T.tensor(2)]),
    lambda T: T.tensor([T.tensor(1), T.tensor(2.5)]),
    lambda T: T.tensor([T.tensor(1.0, dtype=T.float64), 2.5]),
    lambda T: T.tensor([True, T.tensor(2)]),
    lambda T: T.tensor([T.tensor([1.0])]),  # a one-element tensor counts as a number
    lambda T: T.tensor(T.tensor([1.0, 2.0], requires_grad=True)),  # a detached copy
    lambda T: T.tensor(T.tensor([1, 2]), dtype=T.float32),
    lambda T: T.tensor(T.arange(6.0).reshape(2, 3).t()),
]


@pytest.mark.parametrize("index", range(len(TENSOR_CASES)))
def test_tensor_matches_torch(index: int) -> None:
    same(TENSOR_CASES[index])


def test_tensor_rounds_to_float32() -> None:
    assert st.tensor(0.1).item() == 0.10000000149011612
    assert st.tensor(0.1, dtype=st.float64).item() == 0.1


TENSOR_ERRORS: list[Callable[[Any], Any]] = [
    lambda T: T.tensor([[1, 2], [3]]),
    lambda T: T.tensor([[1], [2, 3]]),
    lambda T: T.tensor([[[1, 2]], [[3]]]),
    lambda T: T.tensor("abc"),
    lambda T: T.tensor(["a"]),
    lambda T: T.tensor([1, "a"]),
    lambda T: T.tensor(None),
    lambda T: T.tensor([1, None]),
    lambda T: T.tensor({}),
    lambda T: T.tensor(2**63),
    lambda T: T.tensor([1, 2**63]),
    lambda T: T.tensor(2**63, dtype=T.int64),
    lambda T: T.tensor(inf, dtype=T.int64),
    lambda T: T.tensor([nan], dtype=T.int64),
    lambda T: T.tensor(1e20, dtype=T.int64),
    lambda T: T.tensor(-9.3e18, dtype=T.int64),
    lambda T: T.tensor(3, requires_grad=True),
    lambda T: T.tensor([True], requires_grad=True),
    lambda T: T.tensor([T.tensor([1.0, 2.0])]),
    lambda T: T.tensor([1.5, [2, 3]]),
]


@pytest.mark.parametrize("index", range(len(TENSOR_ERRORS)))
def test_tensor_errors_match_torch(index: int) -> None:
    same_error(TENSOR_ERRORS[index])


@pytest.mark.parametrize(
    "make",
    [
        lambda T: T.tensor([[1, 2], 3]),  # torch: TypeError "not a sequence"
        lambda T: T.tensor([1, [2, 3]]),  # torch: TypeError about 'list'
        lambda T: T.tensor(1.0, device="cuda"),  # AssertionError
        lambda T: T.tensor(1.0, device="tpu"),  # RuntimeError
    ],
)
def test_tensor_error_types_match_torch(make: Callable[[Any], Any]) -> None:
    """Same exception type; our message says more than torch's."""
    same_error(make, match_message=False)


def test_tensor_of_tensor_warns_and_copies() -> None:
    source = st.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="detach"):
        copy = st.tensor(source)
    assert not copy.requires_grad and copy.is_leaf
    with st.no_grad():
        copy.add_(1.0)
    assert source.tolist() == [1.0, 2.0]


def test_error_leaves_no_partial_state() -> None:
    # A bad element late in the data raises before any tensor exists.
    with pytest.raises(RuntimeError):
        st.tensor([1.0, 2.0, nan], dtype=st.int64)


nested_values = st_.recursive(
    st_.one_of(
        st_.integers(-(2**40), 2**40),
        st_.booleans(),
        st_.floats(allow_nan=False, width=32),
    ),
    lambda children: st_.lists(children, min_size=0, max_size=3),
    max_leaves=12,
)


@given(nested_values)
def test_random_nested_data_like_torch(data: Any) -> None:
    """Any nesting: the same tensor as torch, or the same exception type."""
    torch = require_torch()
    try:
        theirs = torch.tensor(data)
    except Exception as error:  # noqa: BLE001  (any error torch raises)
        with pytest.raises(type(error)):
            st.tensor(data)
        return
    assert_same(st.tensor(data), theirs, exact=True)


def test_empty_first_row_reads_no_further() -> None:
    """Once a dimension is empty, torch ignores the rest of the data; so do we."""
    same(lambda T: T.tensor([[], [1]]))
    same(lambda T: T.tensor([[[]], 0]))
    same(lambda T: T.tensor([[], [[]]]))


def test_default_dtype_float64() -> None:
    torch = require_torch()
    try:
        st.set_default_dtype(st.float64)
        torch.set_default_dtype(torch.float64)
        same(lambda T: T.tensor([1.5, 2]))
        same(lambda T: T.tensor([1, 2]))
        same(lambda T: T.zeros(2))
        same(lambda T: T.arange(0, 1, 0.25))
        same(lambda T: T.linspace(0, 1, 5))
        same(lambda T: T.full((2,), 0.1))
        same(lambda T: T.eye(2))
    finally:
        st.set_default_dtype(st.float32)
        torch.set_default_dtype(torch.float32)


# ----------------------------------------------------------------------
# Filled tensors
# ----------------------------------------------------------------------

FILLED_CASES: list[Callable[[Any], Any]] = [
    lambda T: T.zeros(2, 3),
    lambda T: T.zeros((2, 3)),
    lambda T: T.zeros([2, 3]),
    lambda T: T.zeros(()),
    lambda T: T.zeros([]),
    lambda T: T.zeros(0, 3),
    lambda T: T.zeros(size=(2, 3)),
    lambda T: T.zeros(T.Size([2])),
    lambda T: T.zeros(T.tensor(2)),
    lambda T: T.zeros(2, dtype=T.int64),
    lambda T: T.zeros(2, dtype=T.float64, requires_grad=True),
    lambda T: T.ones(2, 3),
    lambda T: T.ones(4, dtype=T.bool),
    lambda T: T.ones(size=[1, 2], dtype=T.int64),
    lambda T: T.ones(3, requires_grad=True),
    lambda T: T.full((2,), 1),
    lambda T: T.full((2,), True),
    lambda T: T.full((2,), 1.5),
    lambda T: T.full((2, 2), 0.1),
    lambda T: T.full([], 2.0),
    lambda T: T.full((2,), 1.5, dtype=T.int64),
    lambda T: T.full((2,), -1.5, dtype=T.int64),
    lambda T: T.full((2,), 3, dtype=T.bool),
    lambda T: T.full((2,), 7, dtype=T.float64),
    lambda T: T.full((2,), T.tensor(3.0)),
    lambda T: T.full((2,), nan),
    lambda T: T.full((2,), 1.5, requires_grad=True),
    lambda T: T.eye(3),
    lambda T: T.eye(2, 3),
    lambda T: T.eye(3, 2, dtype=T.int64),
    lambda T: T.eye(0),
    lambda T: T.eye(2, dtype=T.bool),
    lambda T: T.eye(2, requires_grad=True),
]


@pytest.mark.parametrize("index", range(len(FILLED_CASES)))
def test_filled_matches_torch(index: int) -> None:
    same(FILLED_CASES[index])


def test_empty_has_torch_shape_and_dtype_and_holds_zeros() -> None:
    torch = require_torch()
    for ours, theirs in [
        (st.empty(2, 3), torch.empty(2, 3)),
        (st.empty(0), torch.empty(0)),
        (st.empty((2,), dtype=st.int64), torch.empty((2,), dtype=torch.int64)),
        (
            st.empty(size=(1, 2), requires_grad=True),
            torch.empty(size=(1, 2), requires_grad=True),
        ),
        (
            st.empty_like(st.zeros(2, dtype=st.float64)),
            torch.empty_like(torch.zeros(2, dtype=torch.float64)),
        ),
    ]:
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert repr(ours.dtype) == repr(theirs.dtype)
        assert ours.requires_grad == theirs.requires_grad
        assert all(v == 0 for v in ours.flatten().tolist())


FILLED_ERRORS: list[Callable[[Any], Any]] = [
    lambda T: T.zeros(-1, 2),
    lambda T: T.ones(-1, 2),
    lambda T: T.empty(2, -3),
    lambda T: T.full((2, -1), 2.0),
    lambda T: T.zeros(2.5),
    lambda T: T.ones(True),
    lambda T: T.zeros(),
    lambda T: T.zeros(2, dtype=T.int64, requires_grad=True),
    lambda T: T.full(2, 1.5),
    lambda T: T.full((2,), None),
    lambda T: T.full((2,), "a"),
    lambda T: T.full((2,), nan, dtype=T.int64),
    lambda T: T.full((2,), 1e300),
    lambda T: T.full((2,), 2**63),
    lambda T: T.eye(-1),
    lambda T: T.eye(2, -1),
    lambda T: T.eye(2.5),
]


@pytest.mark.parametrize("index", range(len(FILLED_ERRORS)))
def test_filled_errors_match_torch(index: int) -> None:
    same_error(FILLED_ERRORS[index])


@pytest.mark.parametrize(
    "make",
    [lambda T: T.zeros((2, 2.5)), lambda T: T.zeros((2,), (3,))],
)
def test_filled_error_types_match_torch(make: Callable[[Any], Any]) -> None:
    same_error(make, match_message=False)


LIKE_CASES: list[Callable[[Any], Any]] = [
    lambda T: T.zeros_like(T.tensor([1, 2])),
    lambda T: T.zeros_like(T.tensor([1, 2]), dtype=T.float32),
    lambda T: T.zeros_like(T.tensor([1.0, 2.0], requires_grad=True)),
    lambda T: T.zeros_like(T.arange(6.0).reshape(2, 3).t()),
    lambda T: T.ones_like(T.tensor([1.0, 2.0]), requires_grad=True),
    lambda T: T.ones_like(T.tensor([[True]])),
    lambda T: T.ones_like(T.tensor([1, 2]), device="cpu"),
    lambda T: T.full_like(T.tensor([1, 2]), 2.7),
    lambda T: T.full_like(T.tensor([1.0, 2.0]), 7),
    lambda T: T.full_like(T.tensor([True]), 7),
    lambda T: T.full_like(T.zeros(2, 2), 0.5, dtype=T.float64),
    lambda T: T.zeros_like(T.tensor(3.5)),
]


@pytest.mark.parametrize("index", range(len(LIKE_CASES)))
def test_like_matches_torch(index: int) -> None:
    same(LIKE_CASES[index])


def test_like_needs_a_tensor() -> None:
    for name in ("zeros_like", "ones_like", "empty_like"):
        same_error(lambda T, name=name: getattr(T, name)([1, 2]))
    same_error(lambda T: T.full_like([1, 2], 3))


# ----------------------------------------------------------------------
# as_tensor
# ----------------------------------------------------------------------


def test_as_tensor() -> None:
    same(lambda T: T.as_tensor([1, 2]))
    same(lambda T: T.as_tensor([1, 2], dtype=T.float64))
    same(lambda T: T.as_tensor(3.5))
    same(lambda T: T.as_tensor(T.tensor([1, 2]), dtype=T.float32))
    a = st.tensor([1.0, 2.0])
    assert st.as_tensor(a) is a
    assert st.as_tensor(a, dtype=st.float32) is a
    assert st.as_tensor(a, device="cpu") is a
    converted = st.as_tensor(a, dtype=st.float64)
    assert converted is not a and converted.dtype is st.float64
    b = st.tensor([1.0, 2.0], requires_grad=True) * 2
    assert st.as_tensor(b) is b  # keeps its graph, as in torch


# ----------------------------------------------------------------------
# arange and linspace
# ----------------------------------------------------------------------

RANGE_CASES: list[Callable[[Any], Any]] = [
    lambda T: T.arange(5),
    lambda T: T.arange(0),
    lambda T: T.arange(5, 5),
    lambda T: T.arange(-3, 3),
    lambda T: T.arange(5, 0, -1),
    lambda T: T.arange(0, 10, 3),
    lambda T: T.arange(1, 2.5, 0.5),
    lambda T: T.arange(2.5),
    lambda T: T.arange(5, 0, -1.5),
    lambda T: T.arange(10, dtype=T.float64),
    lambda T: T.arange(0.5, 3, dtype=T.int64),
    lambda T: T.arange(-2.5, 3, 1.5, dtype=T.int64),
    lambda T: T.arange(0, 3.5, 1.5, dtype=T.int64),
    lambda T: T.arange(5.0, requires_grad=True),
    lambda T: T.arange(T.tensor(3)),
    lambda T: T.arange(start=1, end=4),
    lambda T: T.arange(end=4),
    lambda T: T.arange(0, 1, inf),
    lambda T: T.arange(-(2**40), 2**40, 2**37),
    lambda T: T.linspace(0, 1, 5),
    lambda T: T.linspace(0, 1, 1),
    lambda T: T.linspace(0, 1, 0),
    lambda T: T.linspace(3, 3, 4),
    lambda T: T.linspace(1, 0, 5),
    lambda T: T.linspace(-8, 8, 9),
    lambda T: T.linspace(0, 1, 5, dtype=T.float64),
    lambda T: T.linspace(0, 1, 5, requires_grad=True),
    lambda T: T.linspace(T.tensor(0.0), T.tensor(1.0), 3),
    lambda T: T.linspace(0, 10, 5, dtype=T.int64),
    lambda T: T.linspace(0, 10, 4, dtype=T.int64),
    lambda T: T.linspace(-1, 1, 7, dtype=T.int64),
    lambda T: T.linspace(-2.5, 3, 5, dtype=T.int64),
    lambda T: T.linspace(2.7, -3.7, 4, dtype=T.int64),
    lambda T: T.linspace(0, inf, 3),
]


@pytest.mark.parametrize("index", range(len(RANGE_CASES)))
def test_ranges_match_torch(index: int) -> None:
    same(RANGE_CASES[index])


RANGE_ERRORS: list[Callable[[Any], Any]] = [
    lambda T: T.arange(0, 5, 0),
    lambda T: T.arange(0, 5, 0.0),
    lambda T: T.arange(0, 5, -1),
    lambda T: T.arange(5, 0),
    lambda T: T.arange(0.5, 3, 0.5, dtype=T.int64),  # the step truncates to 0
    lambda T: T.arange(3, dtype=T.bool),
    lambda T: T.arange(5, requires_grad=True),
    lambda T: T.arange(inf),
    lambda T: T.arange(0, nan),
    lambda T: T.arange(1.5, nan),
    lambda T: T.linspace(0, 1, -1),
    lambda T: T.linspace(0, 1, 3, dtype=T.bool),
    lambda T: T.linspace(0, 10, 3, dtype=T.int64, requires_grad=True),
]


@pytest.mark.parametrize("index", range(len(RANGE_ERRORS)))
def test_range_errors_match_torch(index: int) -> None:
    same_error(RANGE_ERRORS[index])


def test_linspace_bad_steps_is_type_error() -> None:
    same_error(lambda T: T.linspace(0, 1, 2.5), match_message=False)
    same_error(lambda T: T.linspace(0, 1), match_message=False)


@given(
    st_.floats(-10, 10),
    st_.floats(0.01, 3),
    st_.integers(1, 60),
    st_.booleans(),
    st_.sampled_from(["float32", "float64"]),
)
def test_random_float_arange(
    start: float, step: float, count: int, down: bool, dtype: str
) -> None:
    """Same length as torch and values within one float rounding.

    (PyTorch's own last bit depends on the CPU's vector width.)
    """
    step = -step if down else step
    end = start + step * count - step / 2
    same(
        lambda T: T.arange(start, end, step, dtype=getattr(T, dtype)),
        exact=False,
        rtol=1e-6 if dtype == "float32" else 1e-14,
        atol=1e-6 if dtype == "float32" else 1e-13,
    )


@given(st_.integers(-1000, 1000), st_.integers(-1000, 1000), st_.integers(-7, 7))
def test_random_int_arange(start: int, end: int, step: int) -> None:
    if step == 0 or (end - start) * step < 0:
        same_error(lambda T: T.arange(start, end, step))
    else:
        same(lambda T: T.arange(start, end, step))


@given(
    st_.floats(-100, 100),
    st_.floats(-100, 100),
    st_.integers(0, 50),
    st_.sampled_from(["float32", "float64", "int64"]),
)
def test_random_linspace(start: float, end: float, steps: int, dtype: str) -> None:
    """Ends exact; float values within rounding; int values within 1.

    (torch computes int64 results in float32, so 9 - 5 * 4.6 may come out
    as -13.9999995 and truncate to -13; we compute in double and get -14.)
    """
    torch = require_torch()
    ours = st.linspace(start, end, steps, dtype=getattr(st, dtype))
    theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
    if dtype == "int64":
        assert ours.dtype is st.int64 and tuple(ours.shape) == tuple(theirs.shape)
        assert all(abs(a - b) <= 1 for a, b in zip(ours.tolist(), theirs.tolist()))
    else:
        rtol, atol = (1e-5, 1e-4) if dtype == "float32" else (1e-12, 1e-12)
        assert_same(ours, theirs, rtol=rtol, atol=atol)
    if steps >= 1:
        assert ours.tolist()[0] == theirs.tolist()[0]
        assert ours.tolist()[-1] == theirs.tolist()[-1]
