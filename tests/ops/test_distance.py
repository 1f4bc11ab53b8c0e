"""cdist and pdist against torch: every kind of p, batches that broadcast,
the matrix-product path for p = 2 (its EuclideanDistBackward0 graph), the
gradients, errors and their messages, plus finite-difference checks that
need no torch."""

from __future__ import annotations

import math

import pytest

import slowtorch_lib as st
from slowtorch_lib.autograd.gradcheck import gradcheck
from tests.nn.nn_parity import check_graph, check_parity, rand
from tests.parity import assert_same, require_torch, same_error

PS = [2.0, 1.0, 0.0, 0.5, 1.5, 3.0, math.inf]


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize(
    "shapes",
    [
        ((3, 4), (5, 4)),
        ((2, 3, 4), (2, 5, 4)),
        ((2, 1, 3, 2), (3, 4, 2)),
        ((1, 3), (2, 3)),
    ],
)
def test_cdist_matches_torch(p, shapes) -> None:
    def build(lib):
        return [
            rand(lib, *shapes[0], seed=1, grad=True),
            rand(lib, *shapes[1], seed=2, grad=True),
        ]

    check_parity(lambda lib, F, a, b: lib.cdist(a, b, p), build, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "mode",
    [
        "use_mm_for_euclid_dist_if_necessary",
        "use_mm_for_euclid_dist",
        "donot_use_mm_for_euclid_dist",
    ],
)
@pytest.mark.parametrize(
    "shapes", [((30, 3), (4, 3)), ((2, 27, 3), (27, 3)), ((3, 3), (4, 3))]
)
def test_cdist_compute_modes_match_torch(mode, shapes) -> None:
    def build(lib):
        return [
            rand(lib, *shapes[0], seed=3, grad=True),
            rand(lib, *shapes[1], seed=4, grad=True),
        ]

    check_parity(
        lambda lib, F, a, b: lib.cdist(a, b, compute_mode=mode),
        build,
        rtol=1e-3,
        atol=1e-4,
    )

    def make(lib):
        a, b = build(lib)
        return lib.cdist(a, b, compute_mode=mode)

    check_graph(make)


def test_cdist_float64_and_equal_rows_match_torch() -> None:
    def build(lib):
        a = rand(lib, 3, 2, seed=5, dtype="float64")
        b = lib.cat([a[:1], rand(lib, 2, 2, seed=6, dtype="float64")])
        return [a.detach().requires_grad_(), b.detach().requires_grad_()]

    for p in PS:
        check_parity(
            lambda lib, F, a, b, p=p: lib.cdist(a, b, p), build, rtol=1e-10, atol=1e-12
        )


def test_cdist_of_empty_inputs_matches_torch() -> None:
    torch = require_torch()
    for left, right in (((0, 3), (2, 3)), ((2, 0), (3, 0)), ((2, 0, 3), (4, 3))):
        ours = st.cdist(st.ones(*left), st.ones(*right))
        theirs = torch.cdist(torch.ones(*left), torch.ones(*right))
        assert_same(ours, theirs)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.cdist(lib.ones(3, 4), lib.ones(5, 4), -1),
        lambda lib: lib.cdist(lib.ones(3, 4), lib.ones(5, 3)),
        lambda lib: lib.cdist(lib.ones(4), lib.ones(5, 4)),
        lambda lib: lib.cdist(lib.ones(3, 4), lib.ones(4)),
        lambda lib: lib.cdist(lib.ones(3, 4), lib.ones(5, 4), compute_mode="x"),
        lambda lib: lib.cdist(
            lib.ones(3, 4, dtype=lib.int64), lib.ones(5, 4, dtype=lib.int64)
        ),
        lambda lib: lib.cdist(lib.ones(3, 4), lib.ones(5, 4, dtype=lib.float64)),
        lambda lib: lib.cdist(lib.ones(2, 3, 4), lib.ones(3, 5, 4)),
        lambda lib: lib.cdist(
            lib.ones(3, 4, dtype=lib.float16), lib.ones(5, 4, dtype=lib.float16)
        ),
        lambda lib: lib.pdist(lib.ones(3)),
        lambda lib: lib.pdist(lib.ones(3, 2), -1),
        lambda lib: lib.pdist(lib.ones(3, 2, dtype=lib.int64)),
    ],
)
def test_distance_errors_match_torch(make) -> None:
    same_error(make)


@pytest.mark.parametrize("p", PS)
def test_pdist_matches_torch(p) -> None:
    def build(lib):
        x = rand(lib, 5, 3, seed=7)
        return [lib.cat([x, x[:1]]).detach().requires_grad_()]  # two equal rows

    check_parity(lambda lib, F, x: F.pdist(x, p), build, rtol=1e-4, atol=1e-5)


def test_pdist_of_one_row_matches_torch() -> None:
    torch = require_torch()
    assert_same(st.pdist(st.ones(1, 3)), torch.pdist(torch.ones(1, 3)))


@pytest.mark.parametrize("p", [2.0, 1.0, 0.5, 3.0, math.inf])
def test_distance_gradcheck(p) -> None:
    st.manual_seed(0)
    a = st.randn(2, 3, 4, dtype=st.float64, requires_grad=True)
    b = st.randn(5, 4, dtype=st.float64, requires_grad=True)
    assert gradcheck(lambda a, b: st.cdist(a, b, p), (a, b))
    assert gradcheck(lambda x: st.pdist(x, p), (b,))
    mode = "use_mm_for_euclid_dist"
    assert gradcheck(lambda a, b: st.cdist(a, b, compute_mode=mode), (a, b))
