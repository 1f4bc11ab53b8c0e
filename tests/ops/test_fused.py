"""addcmul, addcdiv, lerp (and their in-place forms): values, gradients,
grad_fn names and errors against torch, and finite differences without it."""

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.autograd.gradcheck import gradcheck
from tests.parity import assert_same, require_torch, same_error

A = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.5]]
B = [[1.0, 2.0, -3.0], [0.25, -0.5, 4.0]]
C = [0.5, -2.0, 1.5]  # broadcast along the rows
W = [[0.1, 0.9, 0.5], [0.7, 0.3, 0.6]]

CASES: list[tuple[str, Any, Any]] = [
    ("addcmul", lambda lib, a, b, c: lib.addcmul(a, b, c), "AddcmulBackward0"),
    (
        "addcmul-value",
        lambda lib, a, b, c: lib.addcmul(a, b, c, value=-0.5),
        "AddcmulBackward0",
    ),
    ("addcdiv", lambda lib, a, b, c: lib.addcdiv(a, b, c), "AddcdivBackward0"),
    (
        "addcdiv-value",
        lambda lib, a, b, c: a.addcdiv(b, c, value=2.5),
        "AddcdivBackward0",
    ),
    ("lerp-scalar", lambda lib, a, b, c: lib.lerp(a, b, 0.3), "LerpBackward0"),
    ("lerp-large-weight", lambda lib, a, b, c: a.lerp(b, 0.8), "LerpBackward0"),
    ("lerp-tensor", lambda lib, a, b, c: lib.lerp(a, b, c), "LerpBackward1"),
]


def _inputs(lib: Any, dtype: str = "float32") -> tuple[Any, Any, Any]:
    d = getattr(lib, dtype)
    return (
        lib.tensor(A, dtype=d, requires_grad=True),
        lib.tensor(B, dtype=d, requires_grad=True),
        lib.tensor(C, dtype=d, requires_grad=True),
    )


@pytest.mark.parametrize(
    ("name", "function", "grad_fn"), CASES, ids=[c[0] for c in CASES]
)
def test_value_gradient_and_grad_fn_match_torch(
    name: str, function: Any, grad_fn: str
) -> None:
    torch = require_torch()
    ours, theirs = _inputs(st), _inputs(torch)
    out, expected = function(st, *ours), function(torch, *theirs)
    assert_same(out, expected)
    assert type(out.grad_fn).__name__ == type(expected.grad_fn).__name__ == grad_fn
    weights = [[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]]
    (out * st.tensor(weights)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    for mine, other in zip(ours, theirs):
        if other.grad is None:
            assert mine.grad is None
        else:
            assert_same(mine.grad, other.grad)


@pytest.mark.parametrize(
    ("name", "function", "grad_fn"), CASES, ids=[c[0] for c in CASES]
)
def test_finite_differences(name: str, function: Any, grad_fn: str) -> None:
    inputs = _inputs(st, "float64")
    if name == "addcdiv" or name == "addcdiv-value":
        assert gradcheck(lambda a, b, c: function(st, a, b, c), inputs)
    elif name.startswith("lerp-scalar") or name == "lerp-large-weight":
        assert gradcheck(lambda a, b: function(st, a, b, None), inputs[:2])
    else:
        assert gradcheck(lambda a, b, c: function(st, a, b, c), inputs)


def test_lerp_tensor_weight_gradient_against_torch() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        a, b = lib.tensor(A, requires_grad=True), lib.tensor(B, requires_grad=True)
        w = lib.tensor(W, requires_grad=True)
        lib.lerp(a, b, w).sum().backward()
        results.append([t.grad for t in (a, b, w)])
    for mine, other in zip(*results):
        assert_same(mine, other)


@pytest.mark.parametrize(
    "method",
    [
        lambda t, b, c: t.addcmul_(b, c, value=0.5),
        lambda t, b, c: t.addcdiv_(b, c, value=-1.5),
        lambda t, b, c: t.lerp_(b, 0.25),
        lambda t, b, c: t.lerp_(b, c),
        lambda t, b, c: t.sign_(),
    ],
)
def test_in_place_forms_match_torch(method: Any) -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        target = lib.tensor(A)
        returned = method(target, lib.tensor(B), lib.tensor(C))
        assert returned is target
        results.append(target)
    assert_same(results[0], results[1])


def test_in_place_records_history_on_a_non_leaf() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        a, b = lib.tensor(A, requires_grad=True), lib.tensor(B, requires_grad=True)
        c = lib.tensor(C, requires_grad=True)
        x = a * 1.0
        x.addcmul_(b, c, value=2.0)
        assert type(x.grad_fn).__name__ == "AddcmulBackward0"
        x.sum().backward()
        results.append([a.grad, b.grad, c.grad])
    for mine, other in zip(*results):
        assert_same(mine, other)


def test_dtypes_match_torch() -> None:
    torch = require_torch()
    for lib_dtype_a, lib_dtype_b in [
        ("int64", "int64"),
        ("int64", "float32"),
        ("float64", "float32"),
    ]:
        ours = st.addcmul(
            st.tensor([1, 2], dtype=getattr(st, lib_dtype_a)),
            st.tensor([3, 4], dtype=getattr(st, lib_dtype_b)),
            st.tensor([5, 6], dtype=getattr(st, lib_dtype_b)),
            value=2,
        )
        theirs = torch.addcmul(
            torch.tensor([1, 2], dtype=getattr(torch, lib_dtype_a)),
            torch.tensor([3, 4], dtype=getattr(torch, lib_dtype_b)),
            torch.tensor([5, 6], dtype=getattr(torch, lib_dtype_b)),
            value=2,
        )
        assert_same(ours, theirs)


def test_errors_match_torch() -> None:
    same_error(
        lambda lib: lib.addcdiv(lib.tensor([1.0]), lib.tensor([1]), lib.tensor([2]))
    )
    same_error(lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([1, 2]), 0.5))
    same_error(
        lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([1, 2]), lib.tensor([1, 2]))
    )
    same_error(
        lambda lib: lib.lerp(
            lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0], dtype=lib.float64), 0.5
        )
    )
    same_error(
        lambda lib: lib.lerp(
            lib.tensor([1.0, 2.0]),
            lib.tensor([1.0, 2.0]),
            lib.tensor([0.5, 0.5], dtype=lib.float64),
        )
    )
    same_error(
        lambda lib: lib.addcmul(lib.ones(2), lib.ones(3), lib.ones(2)),
        match_message=False,
    )
    same_error(lambda lib: lib.ones(2).addcmul_(lib.ones(2, 2), lib.ones(2)))


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.addcmul(lib.ones(2), lib.ones(2), lib.ones(2), value=1j),
        lambda lib: lib.lerp(lib.ones(2), lib.ones(2), 1j),
        lambda lib: lib.ones(2).addcmul_(lib.ones(2) * 1j, lib.ones(2)),
        lambda lib: lib.ones(2).lerp_(lib.ones(2), lib.tensor(0.5j)),
        lambda lib: lib.addcmul(*[lib.ones(2, dtype=lib.bool)] * 3),
        lambda lib: lib.addcmul(*[lib.ones(2, dtype=lib.uint16)] * 3),
        lambda lib: lib.addcdiv(*[lib.ones(2, dtype=lib.float8_e4m3fn)] * 3),
        lambda lib: lib.lerp(*[lib.ones(2, dtype=lib.float8_e5m2)] * 3),
        lambda lib: lib.lerp(*[lib.ones(2, dtype=lib.complex32)] * 2, 0.5),
        lambda lib: lib.addcdiv(*[lib.ones(2, dtype=lib.complex32)] * 3),
        lambda lib: lib.lerp(
            lib.ones(2) * 1j, lib.ones(2) * 1j, lib.tensor([0.5], dtype=lib.float32)
        ),
    ],
)
def test_dtype_and_value_errors_match_torch(make: Any) -> None:
    same_error(make)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.addcmul(*[lib.tensor([1, 2])] * 3, value=0.5),
        lambda lib: lib.addcmul(*[lib.ones(2, dtype=lib.complex32)] * 3),
        lambda lib: lib.lerp(lib.ones(2), lib.ones(2) * 3, lib.tensor(0.25).double()),
        lambda lib: lib.lerp(lib.ones(2), lib.ones(2) * 3, lib.tensor(1)),
        lambda lib: lib.lerp(lib.ones(2), lib.ones(2) * 3, lib.tensor(0.5j)),
        lambda lib: lib.addcdiv(
            lib.tensor([1.0, 2, 0]), lib.tensor([1.0, -2, 0]), lib.zeros(3), value=3
        ),
    ],
)
def test_promotions_and_edges_match_torch(make: Any) -> None:
    torch = require_torch()
    assert_same(make(st), make(torch))


def test_in_place_leaves_tensor_unchanged_on_error() -> None:
    target = st.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError):
        target.addcmul_(st.ones(2, 2), st.ones(2))
    assert target.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError):
        target.lerp_(st.tensor([1.0, 2.0], dtype=st.float64), 0.5)
    assert target.tolist() == [1.0, 2.0]
