"""``out=``: the result written into a given tensor, cast or refused as PyTorch
does, and resized with a warning."""

from __future__ import annotations

import re
import warnings
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

# ---------------------------------------------------------------- out=


@pytest.mark.parametrize(
    "call",
    [
        lambda L, o: L.add(L.ones(2, 2), L.ones(2), out=o),
        lambda L, o: L.sub(L.ones(2, 2), 3, out=o),
        lambda L, o: L.mul(L.ones(2, 2), L.ones(2, 2) * 2, out=o),
        lambda L, o: L.div(L.ones(2, 2), 4, out=o),
        lambda L, o: L.matmul(L.ones(2, 3), L.ones(3, 2), out=o),
        lambda L, o: L.mm(L.ones(2, 3), L.ones(3, 2), out=o),
        lambda L, o: L.cat([L.ones(1, 2), L.zeros(1, 2)], out=o),
        lambda L, o: L.stack([L.ones(2), L.zeros(2)], out=o),
    ],
)
@pytest.mark.parametrize("out_shape", [(2, 2), (0,)])
def test_out_writes_into_the_given_tensor(
    call: Callable[[Any, Any], Any], out_shape: tuple[int, ...]
) -> None:
    def run(L: Any) -> Any:
        out = L.full(out_shape, 7.0)
        result = call(L, out)
        assert result is out
        return out

    assert_same(*both(run))


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.add(L.ones(2), 1, out=L.zeros(2, dtype=L.int64)),
        lambda L: L.mm(L.ones(2, 2), L.ones(2, 2), out=L.zeros(2, 2, dtype=L.float64)),
        lambda L: L.mul(L.ones(2, requires_grad=True), 2, out=L.zeros(2)),
        lambda L: L.mul(L.ones(2), 2, out=L.zeros(2, requires_grad=True)),
        lambda L: L.bitwise_or(L.tensor([1, 2]), 3, out=L.zeros(2, requires_grad=True)),
        lambda L: L.sum(L.ones(2), out=L.zeros(())),
        lambda L: L.sum(L.ones(2), dtype=L.float64, out=L.zeros(())),
        lambda L: L.sum(L.ones(2), keepdim=True, out=L.zeros(())),
        lambda L: L.prod(L.ones(2), out=L.zeros(())),
        lambda L: L.bitwise_and(L.ones(2), L.ones(2), out=L.zeros(2).long()),
        lambda L: L.bitwise_right_shift(L.ones(2), 1, out=L.zeros(2).long()),
        lambda L: L.lerp(L.ones(2), L.ones(2), L.ones(2), out=L.zeros(2).double()),
        lambda L: L.lerp(*[L.ones(2).long()] * 3, out=L.zeros(2)),
    ],
)
def test_out_refuses_as_torch(call: Callable[[Any], Any]) -> None:
    same_error(call)


# Operations given ``out=`` by one decorator (``accepts_out``), each called
# on a float and an int input and written into an out of each dtype.
OUT_UNARY = ["exp", "log", "sqrt", "neg", "abs", "sigmoid", "tanh", "sin", "floor"]
OUT_UNARY += ["round", "sign", "square", "rsqrt", "reciprocal", "log2", "exp2"]
OUT_UNARY += ["logical_not", "bitwise_not", "nan_to_num", "expm1", "trunc"]
OUT_BINARY = ["pow", "maximum", "minimum", "atan2", "remainder", "floor_divide"]
OUT_BINARY += ["eq", "lt", "ge", "logical_and", "bitwise_and", "true_divide"]
OUT_BINARY += ["bitwise_or", "bitwise_xor", "bitwise_left_shift"]
OUT_OTHER = {
    "sum": lambda L, x, o: L.sum(x, 0, out=o[0]),
    "sum_keepdim": lambda L, x, o: L.sum(x, 0, keepdim=True, out=o[0]),
    "mean": lambda L, x, o: L.mean(x.double(), 1, out=o[0]),
    "prod": lambda L, x, o: L.prod(x, 0, out=o[0]),
    "amax": lambda L, x, o: L.amax(x, 0, out=o[0]),
    "argmax": lambda L, x, o: L.argmax(x, 0, out=o[0]),
    "cumsum": lambda L, x, o: L.cumsum(x, 0, out=o),
    "clamp": lambda L, x, o: L.clamp(x, 2, 5, out=o),
    "where": lambda L, x, o: L.where(x > 2, x, L.zeros(()), out=o),
    "bmm": lambda L, x, o: L.bmm(x[None], x[None], out=o[None]),
    "mv": lambda L, x, o: L.mv(x, x[0], out=o[0]),
    "dot": lambda L, x, o: L.dot(x[0], x[1], out=o[0, 0]),
    "lerp": lambda L, x, o: L.lerp(x, x * 2, 0.5, out=o),
    "lerp_tensor": lambda L, x, o: L.lerp(x, x * 2, x / 16, out=o),
    "addcmul": lambda L, x, o: L.addcmul(x, x, x, out=o),
    "std": lambda L, x, o: L.std(x, 0, out=o[0]),
    "tril": lambda L, x, o: L.tril(x, out=o),
    "flip": lambda L, x, o: L.flip(x, [0], out=o),
    "index_select": lambda L, x, o: L.index_select(x, 0, L.tensor([1]), out=o),
}


def out_call(name: str) -> Callable[[Any, Any, Any], Any]:
    if name in OUT_UNARY:
        return lambda L, x, o: getattr(L, name)(x, out=o)
    if name in OUT_BINARY:
        return lambda L, x, o: getattr(L, name)(x, x.flip(0), out=o)
    return OUT_OTHER[name]


@pytest.mark.parametrize("name", [*OUT_UNARY, *OUT_BINARY, *OUT_OTHER])
@pytest.mark.parametrize("source", ["float32", "int64"])
@pytest.mark.parametrize("target", ["float32", "float64", "int64", "bool"])
def test_out_casts_or_refuses_as_torch(name: str, source: str, target: str) -> None:
    """``out=`` takes the result if it can be cast to ``out``'s dtype (some
    operations want exactly their own dtype), resizes ``out`` if needed, and
    refuses inputs that require grad: PyTorch's rules, in one place."""
    call = out_call(name)
    if target == "bool" and name in ("prod", "cumsum", "lerp"):
        return  # PyTorch's bool reductions are kernels of their own

    def run(L: Any) -> str:
        x = L.tensor([[1.0, 4.0], [9.0, 16.0]], dtype=getattr(L, source))
        out = L.full((2, 2), 7, dtype=getattr(L, target))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call(L, x, out)
        return repr(out) if result is not out and result is not None else repr(result)

    ours, theirs = outcome(run, st), outcome(run, require_torch())
    assert ours[0] == theirs[0]
    if ours[0] == "OK":
        close = [ours[1], theirs[1]]
        if name in ("sigmoid", "sin", "tanh"):  # one last bit may differ
            close = [re.sub(r"\d{3}(?=[,\]e])", "", text) for text in close]
        assert close[0] == close[1]


@pytest.mark.parametrize("name", ["exp", "neg", "sum", "clamp", "pow", "where"])
def test_out_refuses_inputs_that_require_grad(name: str) -> None:
    call = out_call(name)
    same_error(
        lambda L: call(L, L.ones(2, 2, requires_grad=True), L.zeros(2, 2)),
        match_message=False,
    )


def test_out_of_another_shape_is_resized_with_a_warning() -> None:
    out = st.zeros(3)
    with pytest.warns(UserWarning, match="resized"):
        st.add(st.ones(2, 2), 1, out=out)
    assert out.tolist() == [[2.0, 2.0], [2.0, 2.0]]
