"""Bitwise ops and shifts (``slowtorch_lib/ops/bitwise.py``) against PyTorch:
values, dtypes, in-place forms and refusals."""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

import operator
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, both, require_torch, same_error
from tests.run_both import DTYPES, OTHER, VALUES, make, run_both


def test_inplace_bitwise_operators() -> None:
    for op in (operator.iand, operator.ior, operator.ixor):
        for dtype_name in ("int64", "bool"):
            for other in ("int64", "bool", 2, True):

                def run(lib: Any, x: Any) -> Any:
                    right = (
                        make(lib, [1, 0, 1, 0, 3], other)
                        if isinstance(other, str)
                        else other
                    )
                    assert op(x, right) is x
                    return x

                run_both(run, (VALUES[dtype_name], dtype_name))
    # PyTorch checks the cast before the kernel (a RuntimeError); here the
    # kernel refuses floats first. Either way the tensor is left unchanged.
    x = st.tensor([1, 2])
    with pytest.raises((RuntimeError, NotImplementedError)):
        x &= 0.5
    assert x.tolist() == [1, 2]


def test_bitwise_operators_on_integers() -> None:
    a, b = st.tensor([12, -3, 5]), st.tensor([10, 6, -1])
    assert (a & b).tolist() == [8, 4, 5]
    assert (a | b).tolist() == [14, -1, -1]
    assert (a ^ b).tolist() == [6, -5, -6]
    assert (~a).tolist() == [-13, 2, -6]
    assert (a & b).dtype is st.int64
    assert (3 & a).tolist() == [0, 1, 1]


def test_bitwise_operators_on_bools_are_logical() -> None:
    a, b = st.tensor([True, True, False]), st.tensor([True, False, False])
    assert (a & b).tolist() == [True, False, False]
    assert (a | b).tolist() == [True, True, False]
    assert (a ^ b).tolist() == [False, True, False]
    assert (~a).tolist() == [False, False, True]
    assert (a & b).dtype is st.bool


@pytest.mark.parametrize("dtype_name", DTYPES)
def test_invert_and_bitwise_functions(dtype_name: str) -> None:
    run_both(lambda lib, x: ~x, (VALUES[dtype_name], dtype_name))
    run_both(lambda lib, x: lib.bitwise_not(x), (VALUES[dtype_name], dtype_name))
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        run_both(
            lambda lib, x, y: getattr(lib, name)(x, y),
            (VALUES[dtype_name], dtype_name),
            (OTHER["int64"], "int64"),
        )


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.tensor([1, 2]).__iand__(0.5),
        lambda lib: lib.tensor([True]).__ior__(lib.tensor([1.5])),
        lambda lib: lib.tensor([1]).__ixor__(lib.tensor([1.0, 2.0, 3.0])),
        lambda lib: lib.tensor([True]).__ifloordiv__(lib.ones(2, 1, dtype=lib.bool)),
    ],
    ids=["int_and_float", "bool_or_float", "shape", "floordiv_shape"],
)
def test_in_place_bitwise_errors(make: Any) -> None:
    same_error(make)


INT64_EDGES = [5, -5, 1, -1, 0, 2**62, -(2**63), 2**63 - 1]


SHIFTS = [0, 1, 3, 62, 63, 64, 65, 100, -1, -3, True]


@pytest.mark.parametrize("shift", SHIFTS)
def test_shifts_match_torch(shift: int) -> None:
    def run(lib: Any) -> list[Any]:
        x = lib.tensor(INT64_EDGES)
        amounts = lib.tensor([shift] * len(INT64_EDGES))
        return [
            x << shift,
            x >> shift,
            x << amounts,
            lib.bitwise_right_shift(x, amounts),
            shift << x.clamp(-3, 70) if not isinstance(shift, bool) else x << 1,
            x.bitwise_left_shift(shift),
            lib.tensor([True, False]) >> int(shift),
        ]

    for ours, theirs in zip(*both(run)):
        assert_same(ours, theirs)


def test_shifts_without_torch() -> None:
    x = st.tensor([5, -5, 2**62])
    assert (x << 1).tolist() == [10, -10, -(2**63)]  # the top bit is lost
    assert (x >> 1).tolist() == [2, -3, 2**61]  # rounds down
    assert (x << 64).tolist() == [0, 0, 0]
    assert (x >> 64).tolist() == [0, -1, 0]
    assert (x << -1).tolist() == [0, 0, 0]
    assert (3 << st.tensor([2])).tolist() == [12]


IN_PLACE_BITWISE = {
    "&=": lambda x, y: x.__iand__(y),
    "|=": lambda x, y: x.__ior__(y),
    "^=": lambda x, y: x.__ixor__(y),
    "<<=": lambda x, y: x.__ilshift__(y),
    ">>=": lambda x, y: x.__irshift__(y),
    "bitwise_and_": lambda x, y: x.bitwise_and_(y),
    "bitwise_or_": lambda x, y: x.bitwise_or_(y),
    "bitwise_xor_": lambda x, y: x.bitwise_xor_(y),
    "bitwise_left_shift_": lambda x, y: x.bitwise_left_shift_(y),
    "bitwise_right_shift_": lambda x, y: x.bitwise_right_shift_(y),
}


TARGETS = {
    "int64": lambda lib: lib.tensor([5, 6]),
    "bool": lambda lib: lib.tensor([True, False]),
    "float32": lambda lib: lib.tensor([5.0, 6.0]),
}


OTHERS = {
    "1.5": lambda lib: 1.5,
    "2.0": lambda lib: 2.0,
    "True": lambda lib: True,
    "3": lambda lib: 3,
    "float tensor": lambda lib: lib.tensor([1.5, 2.0]),
    "0-d float tensor": lambda lib: lib.tensor(2.0),
    "int tensor": lambda lib: lib.tensor([1, 2]),
    "bool tensor": lambda lib: lib.tensor([True, False]),
    "longer tensor": lambda lib: lib.tensor([1, 2, 3]),
}


@pytest.mark.parametrize("other", OTHERS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", IN_PLACE_BITWISE)
def test_bitwise_in_place_matches_torch(op: str, target: str, other: str) -> None:
    torch = require_torch()

    def run(lib: Any) -> Any:
        x = TARGETS[target](lib)
        before = x.tolist()
        try:
            result = IN_PLACE_BITWISE[op](x, OTHERS[other](lib))
        except (RuntimeError, NotImplementedError):
            assert x.tolist() == before and x._version == 0  # unchanged
            raise
        assert result is x
        return x

    try:
        theirs = run(torch)
    except (RuntimeError, NotImplementedError):
        same_error(run)
        return
    assert_same(run(st), theirs)
