"""Arguments of each kind, as PyTorch reads them: Python numbers where a tensor
is expected, Python types that name a dtype, int-like sizes and dims, and
the errors for a size, dim, dtype or tensor of another type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import (
    assert_same,
    both,
    outcome,
    require_torch,
    same_error,
)

# ---------------------------------------------------------------- numbers as inputs

NUMBER_CALLS = {
    "add": lambda L: L.add(2, 3),
    "sub": lambda L: L.sub(2, 3.5),
    "mul": lambda L: L.mul(True, 3),
    "div": lambda L: L.div(2, 3),
    "div_floor": lambda L: L.div(7, 2, rounding_mode="floor"),
    "floor_divide": lambda L: L.floor_divide(7, 2),
    "true_divide": lambda L: L.true_divide(1, 4),
    "add_alpha": lambda L: L.add(2, 3, alpha=2),
    "pow": lambda L: L.pow(2, 3),
    "eq": lambda L: L.eq(2, 3),
    "lt": lambda L: L.lt(2.0, 3),
    "remainder": lambda L: L.remainder(7, 2),
    "bitwise_and": lambda L: L.bitwise_and(6, 3),
    "bitwise_left_shift": lambda L: L.bitwise_left_shift(1, 3),
    "exp": lambda L: L.exp(2.5),
    "sum": lambda L: L.sum(2.5),
    "neg": lambda L: L.neg(2),
    "matmul": lambda L: L.matmul(2, 3),
    "maximum": lambda L: L.maximum(2, 3),
    "atan2": lambda L: L.atan2(1.0, 2.0),
    "clamp": lambda L: L.clamp(2.5, 0, 1),
    "reshape": lambda L: L.reshape(2.5, (1,)),
    "cumsum": lambda L: L.cumsum(2, 0),
    "argmax": lambda L: L.argmax(2.5),
    "isnan": lambda L: L.isnan(2.5),
}


@pytest.mark.parametrize("name", list(NUMBER_CALLS))
def test_python_numbers_as_inputs_as_in_torch(name: str) -> None:
    """The arithmetic operators accept two numbers (a 0-d result); the
    other operations refuse a number where a tensor is needed, with a
    TypeError, never an error from inside the engine."""
    call = NUMBER_CALLS[name]
    ours, theirs = (
        outcome(lambda L: repr(call(L)), st),
        outcome(lambda L: repr(call(L)), require_torch()),
    )
    assert ours[0] == theirs[0]
    if ours[0] == "OK":
        assert ours == theirs


def test_python_numbers_without_torch() -> None:
    assert st.add(2, 3).tolist() == 5 and st.add(2, 3).dtype is st.int64
    assert st.div(1, 4).item() == 0.25
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        st.exp(2.5)
    with pytest.raises(TypeError):
        st.eq(2, 3)


# ---------------------------------------------------------------- Python types, dtypes

X = [[1.5, -2.0], [0.25, 3.0]]

#: Calls with a ``dtype`` argument, each given ``d``.
DTYPE_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "tensor": lambda L, d: L.tensor([1, 0, 2], dtype=d),
    "as_tensor": lambda L, d: L.as_tensor([1, 0, 2], dtype=d),
    "zeros": lambda L, d: L.zeros(2, dtype=d),
    "ones": lambda L, d: L.ones(2, 3, dtype=d),
    "empty": lambda L, d: L.empty(2, dtype=d).fill_(1),
    "full": lambda L, d: L.full((2,), 1, dtype=d),
    "eye": lambda L, d: L.eye(2, dtype=d),
    "zeros_like": lambda L, d: L.zeros_like(L.tensor(X), dtype=d),
    "ones_like": lambda L, d: L.ones_like(L.tensor(X), dtype=d),
    "empty_like": lambda L, d: L.empty_like(L.tensor(X), dtype=d).fill_(0),
    "full_like": lambda L, d: L.full_like(L.tensor(X), 1, dtype=d),
    "new_zeros": lambda L, d: L.tensor(X).new_zeros(2, dtype=d),
    "new_ones": lambda L, d: L.tensor(X).new_ones(2, dtype=d),
    "new_empty": lambda L, d: L.tensor(X).new_empty(2, dtype=d).fill_(1),
    "new_full": lambda L, d: L.tensor(X).new_full((2,), 1, dtype=d),
    "new_tensor": lambda L, d: L.tensor(X).new_tensor([1, 0], dtype=d),
    "to": lambda L, d: L.tensor(X).to(d),
    "to dtype=": lambda L, d: L.tensor(X).to(dtype=d),
    "to device, dtype": lambda L, d: L.tensor(X).to("cpu", d),
    "sum": lambda L, d: L.tensor(X).sum(dtype=d),
    "sum dim": lambda L, d: L.sum(L.tensor(X), 0, dtype=d),
    "prod": lambda L, d: L.tensor(X).prod(1, dtype=d),
}
#: Calls whose dtype must be a floating-point (or complex) one.
FLOAT_DTYPE_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "mean": lambda L, d: L.tensor(X).mean(dtype=d),
    "cumsum": lambda L, d: L.tensor(X).cumsum(1, dtype=d),
    "cumprod": lambda L, d: L.cumprod(L.tensor(X), 0, dtype=d),
    "linspace": lambda L, d: L.linspace(0, 1, 5, dtype=d),
    "rand": lambda L, d: L.rand(3, dtype=d).dtype,
    "randn": lambda L, d: L.randn(3, dtype=d).dtype,
}


def _compare(ours: Any, theirs: Any) -> None:
    if isinstance(ours, st.Tensor):
        assert_same(ours, theirs)
    else:
        assert str(ours) == str(theirs)


@pytest.mark.parametrize("kind", [float, int, bool, complex])
@pytest.mark.parametrize("name", sorted(DTYPE_CALLS))
def test_a_python_type_names_a_dtype_as_in_torch(name: str, kind: type) -> None:
    """``zeros(2, dtype=float)`` holds float64 zeros, ``x.to(int)`` is int64, as
    in torch: float, int, bool and complex stand for float64, int64, bool and
    complex128."""
    ours, theirs = both(lambda L: DTYPE_CALLS[name](L, kind))
    _compare(ours, theirs)


@pytest.mark.parametrize("kind", [float, complex])
@pytest.mark.parametrize("name", sorted(FLOAT_DTYPE_CALLS))
def test_a_python_type_names_a_float_dtype_as_in_torch(name: str, kind: type) -> None:
    ours, theirs = both(lambda L: FLOAT_DTYPE_CALLS[name](L, kind))
    _compare(ours, theirs)


@pytest.mark.parametrize("given", [True, "float32", [1], 1.5])
@pytest.mark.parametrize("name", sorted(DTYPE_CALLS | FLOAT_DTYPE_CALLS))
def test_a_dtype_that_is_none_is_refused_with_a_type_error(
    name: str, given: Any
) -> None:
    """Anything else where a dtype goes is torch's TypeError, never a Python
    error from inside the engine (a bool or float first in ``to`` names bool or
    float64, as in torch, and a string first in it is a device)."""
    calls = DTYPE_CALLS | FLOAT_DTYPE_CALLS
    if name == "to" and isinstance(given, (bool, float)):
        assert_same(*both(lambda L: calls[name](L, given)))
        return
    if name == "to" and isinstance(given, str):
        same_error(lambda L: calls[name](L, given), match_message=False)
        return
    same_error(lambda L: calls[name](L, given), match_message=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.zeros(2, dtype=True),
        lambda L: L.tensor([1], dtype="float32"),
        lambda L: L.ones_like(L.ones(2), dtype=[1]),
        lambda L: L.ones(2).new_zeros(2, dtype="float"),
        lambda L: L.ones(2).cumsum(0, dtype=True),
        lambda L: L.ones(2).softmax(0, dtype="float64"),
        lambda L: L.nn.functional.log_softmax(L.ones(2), 0, dtype=1.5),
    ],
)
def test_a_dtype_argument_of_another_type_gets_torchs_message(
    call: Callable[[Any], Any],
) -> None:
    same_error(call)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(2).cumsum(0, dtype=L.bool),
        lambda L: L.ones(2).cumprod(0, dtype=bool),
        lambda L: L.arange(3, dtype=L.complex64),
        lambda L: L.arange(3, dtype=complex),
        lambda L: L.ones(2).mean(dtype=L.int64),
        lambda L: L.ones(2).mean(dtype=bool),
    ],
)
def test_dtypes_that_have_no_loop_or_no_place_are_refused_as_in_torch(
    call: Callable[[Any], Any],
) -> None:
    same_error(call)


@pytest.mark.parametrize("kind", [float, int, complex])
def test_finfo_and_iinfo_take_a_python_type(kind: type) -> None:
    def info(L: Any) -> str:
        limits = L.iinfo(kind) if kind is int else L.finfo(kind)
        return f"{limits.bits} {limits.max} {limits.min}"

    ours, theirs = both(info)
    assert ours == theirs


# ---------------------------------------------------------------- sizes, dims


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(2, 3).view("float32"),
        lambda L: L.ones(2, 3).view(2.0, 3),
        lambda L: L.ones(2, 3).view(None),
        lambda L: L.ones(2, 3).view([[2, 3]]),
        lambda L: L.ones(2, 3).reshape("a"),
        lambda L: L.ones(2, 3).reshape([2, "a"]),
        lambda L: L.ones(2, 3).reshape(6.0),
        lambda L: L.ones(2, 3).expand("a"),
        lambda L: L.ones(2, 3).permute("a"),
        lambda L: L.ones(2, 3).repeat("a"),
        lambda L: L.ones(2, 3).repeat(2, 1.5),
        lambda L: L.ones(2, 3).flip("a"),
        lambda L: L.ones(2, 3).flatten("a"),
        lambda L: L.ones(2, 3).sum("a"),
        lambda L: L.ones(2, 3).transpose("a", 1),
        lambda L: L.ones(2, 3).squeeze("a"),
        lambda L: L.ones(2, 3).unsqueeze(1.5),
        lambda L: L.ones(2, 3).softmax(None),
        lambda L: L.cat([L.ones(2), L.ones(2)], dim="0"),
    ],
)
def test_a_size_or_dim_that_is_no_int_is_a_type_error(
    call: Callable[[Any], Any],
) -> None:
    """A size or a dimension of another type is torch's TypeError, never a Python
    error from inside the engine (a ValueError from ``int('a')``, say)."""
    same_error(call, match_message=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(2, 3).reshape("a"),
        lambda L: L.ones(2, 3).reshape(6.0),
        lambda L: L.ones(2, 3).expand("a"),
        lambda L: L.ones(2, 3).permute("a"),
        lambda L: L.ones(2, 3).repeat("a"),
    ],
)
def test_a_size_that_is_no_sequence_gets_torchs_message(
    call: Callable[[Any], Any],
) -> None:
    same_error(call)


def test_sizes_and_dims_may_be_int_like() -> None:
    """Sizes and dimensions that are ints underneath (a 0-d integer tensor, an
    ``operator.index``-able number) are taken as in torch."""

    def run(L: Any) -> list[Any]:
        x = L.arange(6)
        return [
            x.view(L.tensor(2), 3),
            x.reshape((L.tensor(3), 2)).sum(L.tensor(1)),
            x.view(2, 3).permute(L.tensor(1), 0),
            x.repeat(L.tensor(2)),
        ]

    for ours, theirs in zip(*both(run), strict=True):
        assert_same(ours, theirs)


# ---------------------------------------------------------------- tensors, other things


@pytest.mark.parametrize("given", ["a", None, 1.5, [1, "a"]])
@pytest.mark.parametrize(
    "call",
    [
        lambda L, g: L.matmul(L.ones(2), g),
        lambda L, g: L.ones(2).matmul(g),
        lambda L, g: L.nn.functional.linear(L.ones(2), g),
        lambda L, g: L.nn.functional.linear(g, L.ones(2, 2)),
        lambda L, g: L.nn.Linear(2, 3)(g),
        lambda L, g: L.nn.functional.one_hot(g),
        lambda L, g: L.nn.functional.cross_entropy(L.ones(2, 3), g),
        lambda L, g: L.allclose(L.ones(2), g),
        lambda L, g: L.isclose(L.ones(2), g),
        lambda L, g: L.ones(2).expand_as(g),
        lambda L, g: L.cat([L.ones(2), g]),
        lambda L, g: L.stack([L.ones(2), g]),
        lambda L, g: L.ones(2).sum().backward(g),
        lambda L, g: L.arange(3) & g,
        lambda L, g: L.arange(3) << g,
        lambda L, g: L.bitwise_or(L.arange(3), g),
    ],
)
def test_a_tensor_argument_that_is_no_tensor_is_a_type_error(
    call: Callable[[Any, Any], Any], given: Any
) -> None:
    """Where torch takes a tensor, anything else is its TypeError, never an
    AttributeError from inside the engine."""
    same_error(lambda L: call(L, given), match_message=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(2, 6).unflatten(1, (-1, -1)),
        lambda L: L.ones(2, 6).unflatten(1, "a"),
        lambda L: L.ones(2, 6).unflatten(1, (2, 3.0)),
        lambda L: L.ones(2).type_as("a"),
        lambda L: L.ones(2).type_as(L.float64),
    ],
)
def test_unflatten_and_type_as_refuse_other_arguments(
    call: Callable[[Any], Any],
) -> None:
    same_error(call, match_message=False)


def test_type_as_without_a_change_is_the_tensor_itself() -> None:
    def run(L: Any) -> list[bool]:
        x = L.ones(2)
        return [x.type_as(L.zeros(3)) is x, x.type_as(L.zeros(1, dtype=L.int32)) is x]

    ours, theirs = both(run)
    assert ours == theirs == [True, False]
