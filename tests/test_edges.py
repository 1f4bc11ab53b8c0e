"""Regression tests for the edges where the engine disagreed with torch.

Each test runs the same small program on the engine and on torch and
compares every result (values with ``nan`` equal to ``nan``, shapes, dtypes,
``grad_fn`` names, gradients), or checks that both raise the same error. The
fuzzer (``tests/fuzz.py``) found most of these; each is pinned here.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import slowtorch_lib as st
from tests.agree import agree, gradient
from tests.parity import (
    assert_same,
    both,
    require_torch,
    same_error,
)

nan, inf = math.nan, math.inf


# ----------------------------------------------------------------------
# Masked gradients select, they do not multiply (0 * inf is nan)
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression",
    [
        lambda x: x.clamp(min=0).sqrt(),
        lambda x: x.relu().sqrt(),
        lambda x: x.clamp(0, 1).log(),
        lambda x: x.clamp_min(0).sqrt(),
        lambda x: x.clamp(max=0).neg().sqrt(),
    ],
    ids=["clamp_min_sqrt", "relu_sqrt", "clamp_log", "clamp_min_method", "clamp_max"],
)
def test_masked_gradient_is_zero_not_nan(expression: Any) -> None:
    agree(gradient(expression, [-1.0, 0.0, 0.5, 4.0]))


# ----------------------------------------------------------------------
# Operations that are steps, or have no derivative
# ----------------------------------------------------------------------


def test_in_place_op_without_derivative_replaces_history() -> None:
    torch = require_torch()

    def program(lib: Any) -> Any:
        x = lib.tensor([3.0, -5.0], requires_grad=True)
        y = x * 1
        y //= 2
        return y, y.grad_fn.name()

    agree(program)
    for lib in (torch, st):
        x = lib.tensor([3.0, -5.0], requires_grad=True)
        y = x * 1
        y //= 2
        with pytest.raises(RuntimeError, match="floor_divide"):
            y.sum().backward()

    def remainder_in_place(lib: Any) -> Any:
        x = lib.tensor([3.0, -5.0], requires_grad=True)
        z = lib.tensor([2.0, 3.0], requires_grad=True)
        y = x * 1
        y %= z
        y.sum().backward()
        return y, x.grad, z.grad

    agree(remainder_in_place)


# ----------------------------------------------------------------------
# int64 wraps around; conversions to int64
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression",
    [
        lambda lib: lib.tensor([2**62]) * 4,
        lambda lib: lib.tensor([3]) ** 100,
        lambda lib: lib.tensor([3, -3, 2]) ** (10**18),
        lambda lib: lib.tensor([2**62, 2**62]).sum(),
        lambda lib: lib.tensor([2**62, 2**62]).prod(),
        lambda lib: lib.tensor([1]) + 2**63,
        lambda lib: lib.tensor([-(2**63)]) - 1,
        lambda lib: lib.tensor([-(2**63)]) // -1,
        lambda lib: lib.tensor([[2**62, 2**62]]) @ lib.tensor([[2], [2]]),
        lambda lib: lib.tensor([2**62]).mul_(4),
    ],
    ids=[
        "mul",
        "pow",
        "huge_pow",
        "sum",
        "prod",
        "add",
        "sub",
        "floordiv",
        "matmul",
        "in_place",
    ],
)
def test_int64_wraps_around(expression: Any) -> None:
    agree(expression)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_floats_to_int64(dtype: str) -> None:
    values = [nan, inf, -inf, 1e30, -1e30, 1e19, 2.5e18, -2.7, 0.9]
    agree(lambda lib: lib.tensor(values, dtype=getattr(lib, dtype)).long())
    agree(
        lambda lib: lib.tensor(values, dtype=getattr(lib, dtype)).sum(dtype=lib.int64)
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.tensor([5]) // 0,
        lambda lib: lib.tensor([5]) % 0,
        lambda lib: lib.div(lib.tensor([5]), 0, rounding_mode="trunc"),
        lambda lib: lib.tensor(5.0).split(1),
        lambda lib: lib.tensor(5.0).chunk(1),
        lambda lib: lib.tensor(5.0).narrow(0, 0, 1),
        lambda lib: lib.tensor([1]).fill_(2**63),
        lambda lib: lib.tensor([1]).fill_(1e30),
        lambda lib: lib.tensor([1.0]).fill_(1e300),
        lambda lib: lib.tensor([1.0]).clamp(max=1e300),
        lambda lib: lib.tensor([1.0]).clamp(min=-1e300),
        lambda lib: lib.tensor([1.0], requires_grad=True).sum(dtype=lib.int64),
    ],
    ids=[
        "floordiv_zero",
        "remainder_zero",
        "trunc_zero",
        "split_0d",
        "chunk_0d",
        "narrow_0d",
        "fill_int_overflow",
        "fill_int_float",
        "fill_float32",
        "clamp_max_float32",
        "clamp_min_float32",
        "sum_int_grad",
    ],
)
def test_runtime_errors_as_torch(make: Any) -> None:
    same_error(make)


# ----------------------------------------------------------------------
# Raise where torch raises, succeed where it succeeds
# ----------------------------------------------------------------------


def test_mT_of_0d_and_1d() -> None:
    agree(lambda lib: lib.tensor(2.0).mT)
    same_error(lambda lib: lib.tensor([1.0]).mT)


@pytest.mark.parametrize("method", ["fill_", "zero_", "masked_fill_", "setitem"])
def test_fills_of_expanded_tensors_succeed(method: str) -> None:
    def program(lib: Any) -> Any:
        x = lib.zeros(1, 3).expand(2, 3)
        if method == "fill_":
            x.fill_(2.0)
        elif method == "zero_":
            x.zero_()
        elif method == "masked_fill_":
            mask = lib.tensor([[True, False, False], [False, False, True]])
            x.masked_fill_(mask, 5.0)
        else:
            x[x == 0] = 3.0
        return x

    agree(program)


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x.add_(1),
        lambda x: x.mul_(2),
        lambda x: x.clamp_(0, 1),
        lambda x: x.relu_(),
        lambda x: x.copy_(x.new_ones(3)),
        lambda x: x.__setitem__((slice(None), 1), 0.0),
    ],
    ids=["add_", "mul_", "clamp_", "relu_", "copy_", "slice_setitem"],
)
def test_other_in_place_ops_of_expanded_tensors_raise(make: Any) -> None:
    same_error(lambda lib: make(lib.zeros(1, 3).expand(2, 3)))


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.tensor(b"x"),
        lambda lib: lib.tensor([1])["a"],
        lambda lib: lib.tensor([1]).permute(),
        lambda lib: lib.tensor([1.0]).view(),
        lambda lib: lib.tensor([1.0]).reshape(),
    ],
    ids=["bytes", "str_index", "permute", "view", "reshape"],
)
def test_type_errors(make: Any) -> None:
    same_error(make, match_message=False)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.zeros(2**40),
        lambda lib: lib.zeros(2**62, 4),
        lambda lib: lib.ones(2**20, 2**21),
        lambda lib: lib.full((2**41,), 1.0),
        lambda lib: lib.arange(2**42),
    ],
    ids=["zeros", "overflow", "ones", "full", "arange"],
)
def test_huge_allocations_raise_runtime_error(make: Any) -> None:
    same_error(make, match_message=False)


def test_batched_matmul_and_copying_reshape_are_not_views() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([[[1.0, 2.0]], [[3.0, 4.0]]], requires_grad=True)
        y = lib.matmul(x, lib.ones(2, 3)) * 1
        z = lib.matmul(x * 1, lib.ones(2, 2, 3))
        z -= 1
        w = (x * 1).transpose(0, 2).reshape(4)
        w[[0, -1]] = -1.0
        (y.sum() + z.sum() + w.sum()).backward()
        return y, z, w, x.grad, z._is_view(), w._is_view()

    agree(program)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.ones(3, dtype=lib.bool) // lib.ones(2, dtype=lib.bool),
        lambda lib: lib.ones(3, dtype=lib.bool) % lib.ones(2, dtype=lib.bool),
        lambda lib: lib.ones(3) | lib.ones(2),
        lambda lib: lib.ones(3) & lib.ones(2, dtype=lib.bool),
        lambda lib: lib.pow(lib.ones(3, dtype=lib.bool), lib.ones(2, dtype=lib.bool)),
        lambda lib: lib.ones(1, 1, dtype=lib.bool).pow_(lib.ones(2, 3, dtype=lib.bool)),
    ],
    ids=["floordiv", "remainder", "or", "and", "pow", "pow_"],
)
def test_shapes_are_checked_before_dtypes(make: Any) -> None:
    same_error(make, match_message=False)


def _modified_multi_output_view(lib: Any, case: str) -> None:
    leaf = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x = leaf * 1 if case == "split" else leaf
    a, b = x.split(1) if case == "split" else x.unbind()
    y = a * b if case != "sin" else a.sin()
    with lib.no_grad():
        (b if case == "sin" else x).mul_(2)
    y.sum().backward()


@pytest.mark.parametrize("case", ["split", "sin", "unbind"])
def test_saved_multi_output_views_changed_in_place(case: str) -> None:
    same_error(lambda lib: _modified_multi_output_view(lib, case), match_message=False)


@pytest.mark.parametrize("method", ["zero_", "fill_", "fill_tensor", "copy_", "pow0"])
def test_overwritten_values_get_zero_not_nan(method: str) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([0.0, 2.0], requires_grad=True)
        y = x * 1
        if method == "zero_":
            y.zero_()
        elif method == "fill_":
            y.fill_(0.0)
        elif method == "fill_tensor":
            y.fill_(lib.tensor(0.0))
        elif method == "copy_":
            y.copy_(lib.zeros(2))
        else:
            y = y**0 - 1
        z = 0.5 / y  # inf: its gradient is -inf
        z.sum().backward()
        return z, x.grad

    agree(program)


@pytest.mark.parametrize(
    "name", ["log10", "log2", "exp2", "expm1", "log1p", "sinh", "cosh", "tan"]
)
def test_new_pointwise_ops_at_the_edges(name: str) -> None:
    def run(L: Any) -> Any:
        x = L.tensor([0.0, -0.0, -1.0, 2000.0, -1000.0, math.inf, -math.inf, math.nan])
        return getattr(L, name)(x), getattr(L, name)(L.tensor([1, 8]))

    (ours, ours_int), (theirs, theirs_int) = both(run)
    assert_same(ours, theirs)
    assert_same(ours_int, theirs_int)
