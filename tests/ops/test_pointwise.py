"""Pointwise operations against PyTorch: values, dtypes, special values, errors.

Every test runs the same expression in both libraries (``lib`` is either
``slowtorch_lib`` or ``torch``) and compares what comes out: the tensor
(shape, dtype, values; bit-exact for ``+ - * /`` and comparisons), or the
exception type and message.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

import math
import operator
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.autograd.gradcheck import gradcheck
from tests.agree import agree, gradient
from tests.parity import assert_same, both, require_torch, same_error
from tests.run_both import (
    DTYPES,
    OTHER,
    SPECIAL,
    SPECIAL_OTHER,
    VALUES,
    inf,
    make,
    nan,
    run_both,
)

SCALARS = [2, 0, -3, 2.5, 0.1, True, False]


BINARY = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "pow": operator.pow,
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}
# Results computed with one IEEE operation: they must agree to the last bit.
EXACT = {
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "and",
    "or",
    "xor",
}


# ----------------------------------------------------------------------
# Binary operators: every dtype pair, 0-d tensors, Python scalars both sides
# ----------------------------------------------------------------------


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("left", DTYPES)
@pytest.mark.parametrize("right", DTYPES)
def test_binary_operator_tensor_tensor(name: str, left: str, right: str) -> None:
    op = BINARY[name]
    exact = name in EXACT
    run_both(
        lambda lib, a, b: op(a, b),
        (VALUES[left], left),
        (OTHER[right], right),
        exact=exact,
    )
    # A 0-d right operand promotes differently from a dimensioned one.
    run_both(
        lambda lib, a, b: op(a, b),
        (VALUES[left], left),
        (OTHER[right][1], right),
        exact=exact,
    )


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("dtype_name", DTYPES)
def test_binary_operator_with_python_scalars(name: str, dtype_name: str) -> None:
    op = BINARY[name]
    for scalar in SCALARS:
        run_both(
            lambda lib, a: op(a, scalar),
            (VALUES[dtype_name], dtype_name),
            exact=name in EXACT,
        )
        run_both(
            lambda lib, a: op(scalar, a),
            (VALUES[dtype_name], dtype_name),
            exact=name in EXACT,
        )


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize(
    "name", ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "eq", "ne"]
)
def test_binary_operator_on_special_values(dtype_name: str, name: str) -> None:
    op = BINARY[name]
    run_both(
        lambda lib, a, b: op(a, b),
        (SPECIAL, dtype_name),
        (SPECIAL_OTHER, dtype_name),
        exact=name != "pow",
    )


def test_float32_arithmetic_is_bit_exact_float32() -> None:
    torch = require_torch()
    values = [0.1, 1 / 3, 2.0**-20, 16777217.0, -7.3, 1e-38]
    for op in (operator.add, operator.sub, operator.mul, operator.truediv):
        for scalar in (0.1, 3, 1 / 3):
            ours = op(st.tensor(values), scalar)
            theirs = op(torch.tensor(values), scalar)
            assert ours.dtype is st.float32
            assert_same(ours, theirs, exact=True)
    # Python's 0.1 is rounded to float32 before comparing, as in torch.
    x = [0.1, 0.10000001, 0.09999999]
    assert (st.tensor(x) > 0.1).tolist() == (torch.tensor(x) > 0.1).tolist()
    assert (st.tensor(x) == 0.1).tolist() == [True, False, False]


@pytest.mark.parametrize("scalar", [2, 0.5, True])
def test_scalar_results_keep_the_tensor_dtype(scalar: Any) -> None:
    x = st.tensor([1.0, 2.0])
    assert (x * scalar).dtype is st.float32
    assert (scalar * x).dtype is st.float32
    assert (x.double() + scalar).dtype is st.float64


def test_integer_division_by_zero_raises_as_torch() -> None:
    torch = require_torch()
    for op in (operator.floordiv, operator.mod):
        run_both(lambda lib, a: op(a, 0), ([5, -5], "int64"))
        run_both(lambda lib, a, b: op(a, b), ([5, -5], "int64"), ([0, 1], "int64"))
    # True division of integers is float: 5 / 0 is inf.
    assert (st.tensor([5, -5, 0]) / 0).tolist()[:2] == [inf, -inf]
    assert math.isnan((st.tensor([0]) / 0).item())
    assert torch is not None


def test_ieee_results_of_unary_functions() -> None:
    assert st.tensor([0.0]).log().item() == -inf
    assert math.isnan(st.tensor([-1.0]).log().item())
    assert math.isnan(st.tensor([-1.0]).sqrt().item())
    assert st.tensor([1000.0]).exp().item() == inf
    assert st.tensor([-0.0]).reciprocal().item() == -inf


# ----------------------------------------------------------------------
# In-place operators
# ----------------------------------------------------------------------

INPLACE = {
    "iadd": operator.iadd,
    "isub": operator.isub,
    "imul": operator.imul,
    "itruediv": operator.itruediv,
    "ipow": operator.ipow,
    "ifloordiv": operator.ifloordiv,
    "imod": operator.imod,
}


@pytest.mark.parametrize("name", list(INPLACE))
@pytest.mark.parametrize("dtype_name", DTYPES)
def test_inplace_operators(name: str, dtype_name: str) -> None:
    op = INPLACE[name]
    for other in ["float32", "float64", "int64", "bool", 2, 0.5, True]:

        def run(lib: Any, x: Any) -> Any:
            right = (
                make(lib, [1, 2, 1, 2, 1], other) if isinstance(other, str) else other
            )
            result = op(x, right)
            assert result is x, "an in-place operator must return the same tensor"
            return x

        run_both(run, (VALUES[dtype_name], dtype_name))


def test_failed_inplace_operation_leaves_the_tensor_unchanged() -> None:
    x = st.tensor([1, 2, 3])
    with pytest.raises(
        RuntimeError, match="can't be cast to the desired output type Long"
    ):
        x += 0.5
    assert x.tolist() == [1, 2, 3]
    assert x._version == 0


# ----------------------------------------------------------------------
# Unary functions
# ----------------------------------------------------------------------

UNARY = [
    "abs",
    "neg",
    "exp",
    "log",
    "sqrt",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "relu",
    "reciprocal",
    "rsqrt",
    "square",
]
EXACT_UNARY = {"abs", "neg", "relu", "square", "sqrt", "reciprocal"}


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype_name", DTYPES)
def test_unary_functions(name: str, dtype_name: str) -> None:
    values = SPECIAL if dtype_name.startswith("float") else VALUES[dtype_name]
    run_both(
        lambda lib, x: getattr(x, name)(),
        (values, dtype_name),
        exact=name in EXACT_UNARY,
    )
    run_both(
        lambda lib, x: getattr(lib, name)(x),
        (values, dtype_name),
        exact=name in EXACT_UNARY,
    )


# ----------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------


def test_bool_subtraction_and_negation_errors() -> None:
    run_both(lambda lib, a, b: a - b, ([True], "bool"), ([False], "bool"))
    run_both(lambda lib, a: a - True, ([True], "bool"))
    run_both(lambda lib, a: 1 - a, ([True], "bool"))
    run_both(lambda lib, a: a - True, ([1.0], "float32"))
    run_both(lambda lib, a: -a, ([True], "bool"))


def test_pow_of_integers() -> None:
    run_both(
        lambda lib, a, b: a**b, ([3, -2, 1, -1], "int64"), ([-1, -2, -3, -3], "int64")
    )
    run_both(lambda lib, a: a**-1, ([1, 2], "int64"))
    run_both(lambda lib, a: 2**a, ([-1, 2, 0], "int64"))
    run_both(lambda lib, a, b: a**b, ([True], "bool"), ([True], "bool"))


def test_errors_leave_operands_unchanged() -> None:
    x = st.tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="must match the size"):
        x + st.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        st.maximum(x, 2)
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        x.clamp()
    assert x.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("dtype_name", ["float64", "int64"])
def test_tensor_methods_match_functions(dtype_name: str) -> None:
    values = [5, -3, 0, 7] if dtype_name == "int64" else [5.5, -3.0, math.nan, 7.25]
    divisors = [2, 2, 3, -4] if dtype_name == "int64" else [2.0, -2.0, 3.0, 0.5]
    run_both(
        lambda lib, x, y: x.floor_divide(y),
        (values, dtype_name),
        (divisors, dtype_name),
    )
    run_both(
        lambda lib, x, y: x.remainder(y), (values, dtype_name), (divisors, dtype_name)
    )
    run_both(lambda lib, x: x.isnan(), (values, dtype_name))
    run_both(lambda lib, x: lib.isnan(x), (values, dtype_name))
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        run_both(lambda lib, x: getattr(x, name)(6), (values, dtype_name))
    run_both(lambda lib, x: x.bitwise_not(), (values, dtype_name))


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


def test_relu_of_nan() -> None:
    agree(gradient(lambda x: x.relu(), [nan, 1.0, 0.0, -1.0]))


def test_sign_of_nan_and_zeros() -> None:
    agree(lambda lib: lib.sign(lib.tensor([nan, -0.0, 0.0, -inf, 2.0])))
    agree(lambda lib: lib.sign(lib.tensor([3, -2, 0])))
    agree(lambda lib: lib.sign(lib.tensor([True, False])))


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


def test_trunc_division_keeps_the_sign_of_zero() -> None:
    agree(
        lambda lib: (
            0.5 // lib.div(lib.tensor([-0.85, 0.85]), 1.79, rounding_mode="trunc")
        )
    )


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


def test_alpha_must_fit_the_dtype() -> None:
    same_error(lambda lib: lib.zeros(2).add_(lib.ones(2), alpha=1e300))
    agree(lambda lib: lib.zeros(2, dtype=lib.float64).add_(lib.ones(2), alpha=1e300))


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


def test_nan_to_num_gradient_is_zero_where_replaced() -> None:
    torch = require_torch()
    grads = []
    for lib in (st, torch):
        x = lib.tensor([1.0, 0.0, -1.0, 2.0], requires_grad=True)
        y = (x.log() * 3).nan_to_num()
        y.sum().backward()
        grads.append(x.grad)
    assert_same(grads[0], grads[1])


def test_a_factor_is_saved_only_if_the_other_needs_a_gradient() -> None:
    """Changing a factor in place after ``x * w`` breaks the backward only
    when that factor is needed (by the other factor's gradient), as in torch."""

    def changed(factor: str) -> Any:
        def program(lib: Any) -> Any:
            x = lib.tensor([1.0, 2.0], requires_grad=True) * 1  # not a leaf
            w = lib.tensor([3.0, 4.0])  # needs no gradient
            out = x * w
            (x if factor == "x" else w).add_(1)
            out.sum().backward()
            return out

        return program

    agree(changed("x"))  # x is not saved: w's gradient is not needed
    same_error(changed("w"))  # w is saved for x's gradient


def test_a_square_computes_its_gradient_once_and_sends_it_twice() -> None:
    x = st.tensor([1.0, -2.0, 3.0], requires_grad=True)
    (grad,) = st.autograd.grad((x * x).sum(), x, create_graph=True)
    assert grad.tolist() == [2.0, -4.0, 6.0]
    first, second = (node for node, _ in grad.grad_fn.next_functions)
    assert grad.grad_fn.name() == "AddBackward0" and first is second


def test_a_python_number_factor_is_kept_as_it_is() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        out = 2.5 * x * 3
        out.backward(lib.tensor([1.0, 10.0]))
        return out, x.grad

    agree(program)
