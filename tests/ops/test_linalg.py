"""Matrix products against PyTorch: every ``matmul`` shape case, grad_fn chains,
errors."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.ops.linalg import matrix_product
from tests.agree import agree
from tests.parity import (
    assert_same,
    chain,
    require_torch,
    same_error,
)

SHAPE_PAIRS = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),
    ((1, 3, 3), (3, 3)),
    ((3, 3), (1, 3, 3)),
    ((2, 3, 4), (4,)),
    ((4,), (2, 4, 3)),
    ((2, 3, 4), (2, 4, 5)),
    ((4, 1, 3, 4), (2, 4, 5)),
    ((2, 3), (5, 3, 4)),
    ((2, 2, 3, 4), (4, 2)),
    ((0, 3), (3, 2)),
    ((2, 0), (0, 3)),
]


def values(shape: tuple[int, ...], seed: int) -> list[float]:
    rng = random.Random(seed)
    count = 1
    for size in shape:
        count *= size
    return [round(rng.uniform(-2, 2), 3) for _ in range(count)]


def pair(
    lib: Any, shape: tuple[int, ...], seed: int, dtype_name: str = "float64"
) -> Any:
    flat = values(shape, seed)
    if dtype_name == "int64":
        flat = [int(v * 3) for v in flat]
    return lib.tensor(flat, dtype=getattr(lib, dtype_name)).reshape(shape)


@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_matmul_values_gradients_and_grad_fns(shapes: tuple[Any, Any]) -> None:
    torch = require_torch()
    left_shape, right_shape = shapes
    a, b = pair(st, left_shape, 1), pair(st, right_shape, 2)
    ta, tb = pair(torch, left_shape, 1), pair(torch, right_shape, 2)
    for x in (a, b, ta, tb):
        x.requires_grad_()
    ours, theirs = a @ b, ta @ tb
    assert_same(ours, theirs)
    assert chain(ours) == chain(theirs)
    ours.sum().backward()
    theirs.sum().backward()
    assert_same(a.grad, ta.grad)
    assert_same(b.grad, tb.grad)


def test_matmul_grad_fn_examples() -> None:
    m = st.ones(3, 3, requires_grad=True)
    x = st.ones(3, requires_grad=True)
    assert (m[None] @ m).grad_fn.name() == "UnsafeViewBackward0"
    assert (m[None] @ m).grad_fn.next_functions[0][0].name() == "MmBackward0"
    assert (x @ m).grad_fn.name() == "SqueezeBackward4"
    assert (m @ x).grad_fn.name() == "MvBackward0"
    assert (x @ x).grad_fn.name() == "DotBackward0"


@pytest.mark.parametrize("name", ["mm", "bmm", "mv", "dot", "matmul"])
def test_named_products_match_torch(name: str) -> None:
    torch = require_torch()
    shapes = {
        "mm": ((2, 3), (3, 4)),
        "bmm": ((2, 2, 3), (2, 3, 4)),
        "mv": ((2, 3), (3,)),
        "dot": ((3,), (3,)),
        "matmul": ((2, 2, 3), (3,)),
    }[name]
    for dtype_name in ("float32", "float64", "int64"):
        a, b = pair(st, shapes[0], 3, dtype_name), pair(st, shapes[1], 4, dtype_name)
        ta, tb = (
            pair(torch, shapes[0], 3, dtype_name),
            pair(torch, shapes[1], 4, dtype_name),
        )
        assert_same(getattr(st, name)(a, b), getattr(torch, name)(ta, tb))
        assert_same(getattr(a, name)(b), getattr(ta, name)(tb))


def test_matmul_of_non_contiguous_views() -> None:
    torch = require_torch()
    a, ta = pair(st, (4, 3), 5), pair(torch, (4, 3), 5)
    assert_same(a.t() @ a, ta.t() @ ta)
    assert_same(a[::2] @ a.t()[:, 1:3], ta[::2] @ ta.t()[:, 1:3])


ERROR_CASES: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = [
    ("matmul", (2, 3), (4,)),
    ("matmul", (3,), (4,)),
    ("matmul", (2, 2, 3), (2, 4, 5)),
    ("matmul", (2, 3, 4), (3, 4, 5)),
    ("matmul", (3,), (3, 4, 2)),
    ("matmul", (2, 3, 4), (5,)),
    ("mm", (2, 3), (4, 5)),
    ("mm", (2, 3, 4), (4, 5)),
    ("mm", (3,), (3, 4)),
    ("mm", (2, 3), (3,)),
    ("bmm", (2, 3), (3, 4)),
    ("bmm", (2, 3, 4), (3, 4, 5)),
    ("bmm", (2, 3, 4), (2, 5, 5)),
    ("mv", (2, 3), (4,)),
    ("mv", (3,), (3,)),
    ("mv", (2, 3), (3, 1)),
    ("dot", (2,), (3,)),
    ("dot", (2, 2), (2,)),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=str)
def test_product_errors_match_torch(case: tuple[str, Any, Any]) -> None:
    name, left, right = case
    same_error(lambda L: getattr(L, name)(pair(L, left, 1), pair(L, right, 2)))


@pytest.mark.parametrize("name", ["mm", "bmm", "mv", "dot", "matmul"])
def test_products_refuse_mixed_dtypes(name: str) -> None:
    shapes = {
        "mm": ((2, 2), (2, 2)),
        "bmm": ((1, 2, 2), (1, 2, 2)),
        "mv": ((2, 2), (2,)),
        "dot": ((2,), (2,)),
        "matmul": ((2, 2), (2, 2)),
    }[name]
    same_error(
        lambda L: getattr(L, name)(
            L.ones(*shapes[0]), L.ones(*shapes[1], dtype=L.float64)
        )
    )


def test_matmul_of_0d_tensor() -> None:
    with pytest.raises(
        RuntimeError, match="both arguments to matmul need to be at least 1D"
    ):
        st.tensor(2.0) @ st.ones(3)


def test_matrix_product_kernel() -> None:
    # (2, 3) @ (3, 2), the right matrix given as its transpose.
    left = [1, 2, 3, 4, 5, 6]
    right_t = [1, 0, 1, 0, 1, 0]
    assert matrix_product(left, right_t, 2, 3, 2) == [4, 2, 10, 5]


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


# ---------------------------------------------------------------- outer and norms


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.outer(L.ones(2, 2), L.ones(2)),
        lambda L: L.outer(L.ones(2), L.ones(())),
        lambda L: L.outer(L.ones(2), 3),
        lambda L: L.linalg.vector_norm(L.tensor([1, 2])),
        lambda L: L.linalg.vector_norm(L.ones(2, 2), dim=2),
        lambda L: L.norm(L.ones(2, 2), dim=(0, 0)),
    ],
)
def test_outer_and_norm_refuse_as_torch(call: Callable[[Any], Any]) -> None:
    same_error(call, match_message=False)


def test_outer_promotes_and_norms_without_torch() -> None:
    product = st.outer(st.tensor([1, 2]), st.tensor([0.5, 1.0, 2.0]))
    assert product.dtype is st.float32
    assert product.tolist() == [[0.5, 1.0, 2.0], [1.0, 2.0, 4.0]]
    x = st.tensor([3.0, -4.0], requires_grad=True)
    norm = st.linalg.vector_norm(x)
    norm.backward()
    assert norm.item() == 5.0
    assert x.grad.allclose(st.tensor([0.6, -0.8]))
    assert st.norm(x, p=1).item() == 7.0
    assert st.linalg.vector_norm(x, float("inf")).item() == 4.0
