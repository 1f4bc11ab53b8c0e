"""Regression tests for the edges where the engine disagreed with torch.

Each test runs the same small program on the engine and on torch and
compares every result (values with ``nan`` equal to ``nan``, shapes, dtypes,
``grad_fn`` names, gradients), or checks that both raise the same error. The
fuzzer (``tests/fuzz.py``) found most of these; each is pinned here.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from tests import fuzz
from tests.parity import require_torch, same_error

nan, inf = math.nan, math.inf


def agree(program: Callable[[Any], Any]) -> None:
    """Runs ``program(lib)`` on both libraries; every result must agree."""
    torch = require_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = program(torch)
    ours = program(st)
    why = fuzz.compare_values(ours, theirs, torch)
    assert why is None, why


def gradient(
    expression: Callable[[Any], Any], values: list[Any], dtype: str = "float32"
) -> Callable[[Any], Any]:
    """A program: the value and the gradient of ``expression(x).sum()``."""

    def program(lib: Any) -> Any:
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        y = expression(x)
        y.sum().backward()
        return y, x.grad

    return program


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


def test_maximum_with_zero_then_sqrt() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([-1.0, 0.0, 4.0], requires_grad=True)
        y = lib.maximum(x, lib.tensor(0.0)).sqrt()
        y.sum().backward()
        return y, x.grad

    agree(program)


def test_clamp_with_tensor_bounds_selects() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([-1.0, 0.0, 2.0], requires_grad=True)
        low = lib.tensor([0.0, 0.0, 0.0], requires_grad=True)
        y = lib.clamp(x, min=low).sqrt()
        y.sum().backward()
        return y, x.grad, low.grad

    agree(program)


# ----------------------------------------------------------------------
# Gradients at special points
# ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("values", [[1.0, 1.0, 1.0], [[2.0, 1.0], [2.0, 3.0]]])
def test_std_var_at_zero_spread(name: str, values: list[Any]) -> None:
    agree(gradient(lambda x: getattr(x, name)(0), values))


@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("correction", [3, 5, 3.5])
@pytest.mark.parametrize("values", [[1.0, 2.0, 4.0], [2.0, 2.0, 2.0], [1.0]])
def test_std_var_without_degrees_of_freedom(
    name: str, correction: Any, values: list[float]
) -> None:
    agree(gradient(lambda x: getattr(x, name)(correction=correction), values))


def test_var_of_one_element() -> None:
    agree(gradient(lambda x: x.var(), [1.0]))
    agree(gradient(lambda x: x.std(), [1.0]))


def test_pow_at_zero_base_and_zero_exponent() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([0.0, 2.0], requires_grad=True)
        e = lib.tensor([0.0, 0.0], requires_grad=True)
        y = lib.pow(x, e)
        y.sum().backward()
        return y, x.grad, e.grad

    agree(program)
    agree(gradient(lambda x: x**0, [0.0, 1.0]))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_division_backward_for_a_huge_divisor(dtype: str) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([1.0, 1.0, 1.0], dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.tensor(
            [2e19, -3e19, 1e-30], dtype=getattr(lib, dtype), requires_grad=True
        )
        out = x / y
        out.sum().backward()
        return out, x.grad, y.grad

    agree(program)


# ----------------------------------------------------------------------
# Operations that are steps, or have no derivative
# ----------------------------------------------------------------------


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


def test_rounded_division_and_sign_have_zero_gradients() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([1.5, -2.5, nan, -0.5], requires_grad=True)
        y = lib.tensor([2.0, 2.0, 1.0, 3.0], requires_grad=True)
        a = lib.div(x, y, rounding_mode="floor")
        b = lib.div(x, 2, rounding_mode="trunc")
        c = lib.sign(x)
        (a + b + c).sum().backward()
        return a, b, c, x.grad, y.grad

    agree(program)


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
# nan
# ----------------------------------------------------------------------


def test_relu_of_nan() -> None:
    agree(gradient(lambda x: x.relu(), [nan, 1.0, 0.0, -1.0]))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximum_minimum_with_nan(name: str) -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([1.0, nan, nan, 2.0], requires_grad=True)
        y = lib.tensor([nan, 1.0, nan, 2.0], requires_grad=True)
        out = getattr(lib, name)(x, y)
        out.sum().backward()
        return out, x.grad, y.grad

    agree(program)


@pytest.mark.parametrize(
    "expression",
    [
        lambda x: x.max(),
        lambda x: x.min(),
        lambda x: x.amax(),
        lambda x: x.amin(),
        lambda x: x.amax(0),
        lambda x: x.max(0)[0],
        lambda x: x.min(1)[0],
    ],
    ids=["max", "min", "amax", "amin", "amax_dim", "max_dim", "min_dim"],
)
def test_max_backward_with_nan(expression: Any) -> None:
    agree(gradient(expression, [[1.0, nan, 3.0], [nan, 2.0, 2.0]]))


def test_sign_of_nan_and_zeros() -> None:
    agree(lambda lib: lib.sign(lib.tensor([nan, -0.0, 0.0, -inf, 2.0])))
    agree(lambda lib: lib.sign(lib.tensor([3, -2, 0])))
    agree(lambda lib: lib.sign(lib.tensor([True, False])))


@pytest.mark.parametrize(
    "expression",
    [
        lambda x: x.clamp(min=nan),
        lambda x: x.clamp(max=nan),
        lambda x: x.clamp(nan, 1),
        lambda x: x.clamp(0, nan),
        lambda x: x.clamp_min(nan),
        lambda x: x.clamp(0, 1),
    ],
    ids=["min", "max", "low", "high", "clamp_min", "nan_input"],
)
def test_clamp_with_nan(expression: Any) -> None:
    agree(gradient(expression, [-1.0, 0.5, 2.0, nan]))


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


def test_fill_just_inside_float32() -> None:
    agree(lambda lib: lib.tensor([1.0]).fill_(1e30))
    agree(lambda lib: lib.tensor([1]).fill_(2.5))


# ----------------------------------------------------------------------
# Raise where torch raises, succeed where it succeeds
# ----------------------------------------------------------------------


def test_masked_fill_broadcasts_the_input() -> None:
    agree(lambda lib: lib.zeros(3).masked_fill(lib.tensor([[True], [False]]), 1.0))
    agree(lambda lib: lib.zeros(2, 3).masked_fill(lib.tensor([True, False, True]), 1.0))
    same_error(
        lambda lib: lib.zeros(3).masked_fill_(lib.tensor([[True], [False]]), 1.0),
        match_message=False,
    )
    same_error(lambda lib: lib.zeros(3).masked_fill(True, 1.0), match_message=False)


def test_mT_of_0d_and_1d() -> None:
    agree(lambda lib: lib.tensor(2.0).mT)
    same_error(lambda lib: lib.tensor([1.0]).mT)


@pytest.mark.parametrize(
    "shapes",
    [
        ((2, 3, 0), (2, 0, 4)),
        ((3, 0), (2, 0, 4)),
        ((2, 2, 0), (0, 2)),
        ((2, 0), (0,)),
    ],
)
def test_matmul_with_an_empty_inner_dimension(shapes: Any) -> None:
    a, b = shapes
    agree(lambda lib: lib.matmul(lib.zeros(a), lib.zeros(b)))


@pytest.mark.parametrize(
    "shapes",
    [
        ((2,), (2,)),
        ((2, 2), (2, 2)),
        ((2, 2), (2,)),
        ((2, 2, 2), (2, 2, 2)),
        ((2, 2, 2), (2, 2)),
        ((0,), (0,)),
    ],
)
def test_matmul_of_bools_raises(shapes: Any) -> None:
    a, b = shapes
    same_error(
        lambda lib: lib.matmul(lib.ones(a, dtype=lib.bool), lib.ones(b, dtype=lib.bool))
    )


@pytest.mark.parametrize("shapes", [((3, 0), (0, 3)), ((0, 2), (2, 3)), ((2, 0), (0,))])
def test_empty_matmul_of_bools_succeeds(shapes: Any) -> None:
    a, b = shapes
    agree(
        lambda lib: lib.matmul(lib.ones(a, dtype=lib.bool), lib.ones(b, dtype=lib.bool))
    )


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


def test_false_and_true_in_setitem_index() -> None:
    def program(lib: Any) -> Any:
        x = lib.zeros(3)
        x[False] = 1.0
        y = lib.zeros(3)
        y[True] = 2.0
        return x, y

    agree(program)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("other", [0, 1.5, True])
def test_logical_ops_refuse_python_numbers(name: str, other: Any) -> None:
    same_error(lambda lib: getattr(lib, name)(lib.tensor([1.0, 0.0]), other))


def test_alpha_checks() -> None:
    same_error(lambda lib: lib.add(lib.tensor([1]), 1, alpha=0.5))
    same_error(lambda lib: lib.sub(lib.tensor([1]), lib.tensor([1]), alpha=0.5))
    same_error(lambda lib: lib.tensor([1.0]).add_(lib.tensor([1.0]), alpha=True))
    agree(lambda lib: lib.add(lib.tensor([1.0]), 1, alpha=0.5))
    agree(
        lambda lib: lib.tensor([1.5], dtype=lib.float64).add_(
            lib.tensor(1.43), alpha=-1.5
        )
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


def test_copy_from_a_number() -> None:
    agree(lambda lib: lib.zeros(2).copy_(1.5))


def test_permute_backward_of_a_0d_tensor() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor(2.0, requires_grad=True)
        y = x.permute([]) * 3
        y.backward()
        return y, x.grad

    agree(program)


def test_setitem_checks_the_leaf_before_the_index() -> None:
    same_error(
        lambda lib: lib.zeros(2, requires_grad=True).__setitem__(lib.tensor([5]), 1.0)
    )


def test_trunc_division_keeps_the_sign_of_zero() -> None:
    agree(
        lambda lib: (
            0.5 // lib.div(lib.tensor([-0.85, 0.85]), 1.79, rounding_mode="trunc")
        )
    )


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


def test_masked_fill_mask_type_is_checked_first() -> None:
    same_error(
        lambda lib: lib.zeros(2, requires_grad=True).masked_fill_(True, 1.0),
        match_message=False,
    )


@pytest.mark.parametrize("dim", [-2, 0, 5])
def test_cat_of_empty_vectors_ignores_dim(dim: int) -> None:
    agree(lambda lib: lib.cat([lib.zeros(0), lib.zeros(0, dtype=lib.float64)], dim))


def test_pow_exponent_gradient_at_zero_base() -> None:
    def program(lib: Any) -> Any:
        base = lib.tensor([0.0, 0.0, 0.0, 2.0], requires_grad=True)
        exponent = lib.tensor([-0.73, 0.0, 2.0, 0.5], requires_grad=True)
        y = lib.pow(base, exponent)
        y.sum().backward()
        return y, base.grad, exponent.grad

    agree(program)
    agree(gradient(lambda x: 0**x, [-1.0, 0.0, 2.0]))
    agree(gradient(lambda x: 0.0**x, [-1.0, 0.0, 2.0]))
    agree(gradient(lambda x: 2.0**x, [-1.0, 0.0, 2.0]))


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


@pytest.mark.parametrize(
    "statement",
    [
        "x[[0, 1]] = lib.tensor(True)",
        "x[[True, False, True]] = lib.tensor(True)",
        "x[x == 0] = lib.tensor(2)",
        "x[x == 0] = lib.tensor([2])",
        "x[x == 0] = lib.tensor([2, 3, 4])",
        "x[lib.tensor([0, 5])] = lib.tensor(True)",
        "x[[True, False, True]] = lib.tensor([1, 2])",
        "x = lib.zeros(0); x[[0, -1]] = lib.tensor([True])",
    ],
)
def test_setitem_with_another_dtype(statement: str) -> None:
    def program(lib: Any) -> Any:
        space = {"lib": lib, "x": lib.zeros(3)}
        try:
            exec(statement, space)
        except Exception as error:  # noqa: BLE001 - the type is compared
            return fuzz._error_kind(error)
        return space["x"]

    agree(program)


def test_alpha_must_fit_the_dtype() -> None:
    same_error(lambda lib: lib.zeros(2).add_(lib.ones(2), alpha=1e300))
    agree(lambda lib: lib.zeros(2, dtype=lib.float64).add_(lib.ones(2), alpha=1e300))


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
    "make",
    [
        lambda lib: lib.where(True, lib.ones(2), 2.0),
        lambda lib: lib.where(lib.ones(2) > 0, lib.ones(2), 1e300),
        lambda lib: lib.where(lib.ones(2) > 0, 1e300, 0.0),
    ],
    ids=["condition_bool", "other_overflow", "input_overflow"],
)
def test_where_checks(make: Any) -> None:
    same_error(make, match_message=False)


def test_where_with_numbers() -> None:
    agree(lambda lib: lib.where(lib.tensor([1.0, -1.0]) > 0, 2.5, 0))
    agree(lambda lib: lib.where(lib.tensor([1.0, -1.0]) > 0, lib.ones(2), 1e30))


@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("correction", [3, 5])
@pytest.mark.parametrize("keepdim", [False, True])
def test_std_var_along_a_dim_without_degrees_of_freedom(
    name: str, correction: int, keepdim: bool
) -> None:
    agree(
        gradient(
            lambda x: getattr(x, name)(0, correction=correction, keepdim=keepdim),
            [1.0, 2.0, 4.0],
        )
    )
    agree(
        gradient(
            lambda x: getattr(x, name)(1, correction=correction),
            [[1.0, 2.0, 4.0], [1.0, 1.0, 1.0]],
        )
    )


def test_prod_of_a_0d_infinity() -> None:
    agree(gradient(lambda x: x.prod(), inf))


def test_index_put_into_an_expanded_tensor_holding_nan() -> None:
    def program(lib: Any) -> Any:
        base = lib.tensor([[nan, 1.0], [2.0, nan]])
        x = base.unsqueeze(0).expand(2, 2, 2)
        x[[[0], [0]]] = -1.0
        return base

    agree(program)


def test_setitem_on_a_view_of_a_leaf_checks_the_leaf_first() -> None:
    def make(lib: Any) -> None:
        x = lib.zeros(2, 0, requires_grad=True)
        x[:, :][[[0], [0]]] = lib.tensor(1.0, dtype=lib.float64)

    same_error(make, match_message=False)
