"""Bitwise ops and shifts (``slowtorch_lib/ops/bitwise.py``) against PyTorch:
values, dtypes, in-place forms and refusals."""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

import operator
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import same_error
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
