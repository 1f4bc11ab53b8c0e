"""group_norm and GroupNorm against torch: values, grad_fn names, gradients
of the input and of the affine parameters, errors and their messages, plus
finite-difference checks that need no torch."""

from __future__ import annotations

import pytest

import slowtorch_lib as st
import slowtorch_lib.nn.functional as F
from slowtorch_lib import nn
from slowtorch_lib.autograd.gradcheck import gradcheck, gradgradcheck
from tests.nn.nn_parity import check_parity, rand
from tests.nn.test_layers import copy_weights, run_pair, same_structure
from tests.parity import require_torch, same_error


@pytest.mark.parametrize(
    "shape, groups",
    [((2, 6), 3), ((2, 6, 5), 2), ((3, 4, 2, 3), 4), ((2, 4, 3), 1), ((1, 6, 4), 6)],
)
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_group_norm_matches_torch(shape, groups, affine) -> None:
    channels = shape[1]

    def build(lib):
        inputs = [rand(lib, *shape, seed=4, grad=True)]
        if affine != "none":
            inputs.append(rand(lib, channels, seed=5, grad=True))
        if affine == "both":
            inputs.append(rand(lib, channels, seed=6, grad=True))
        return inputs

    check_parity(
        lambda lib, F, x, *wb: F.group_norm(x, groups, *wb, eps=1e-3),
        build,
        rtol=1e-4,
        atol=1e-5,
    )


def test_group_norm_float64_and_no_input_grad_match_torch() -> None:
    def build(lib):
        return [
            rand(lib, 2, 4, 3, seed=7, dtype="float64"),
            rand(lib, 4, seed=8, grad=True, dtype="float64"),
            rand(lib, 4, seed=9, grad=True, dtype="float64"),
        ]

    ours, _ = check_parity(
        lambda lib, F, x, w, b: F.group_norm(x, 2, w, b),
        build,
        rtol=1e-12,
        atol=1e-12,
    )
    assert ours.dtype is st.float64


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.functional.group_norm(lib.ones(2, 6, 3), 4),
        lambda lib: lib.nn.functional.group_norm(lib.ones(2, 6, 3), -3),
        lambda lib: lib.nn.functional.group_norm(lib.ones(2, 6, 3), 0),
        lambda lib: lib.nn.functional.group_norm(lib.ones(2, 6, 3), 3.0),
        lambda lib: lib.nn.functional.group_norm(lib.ones(6), 3),
        lambda lib: lib.nn.functional.group_norm(lib.ones(1, 6), 6),
        lambda lib: lib.nn.functional.group_norm(lib.ones(2, 6), 3, lib.ones(5)),
        lambda lib: lib.nn.functional.group_norm(lib.ones(2, 6), 3, lib.ones(6, 1)),
        lambda lib: lib.nn.functional.group_norm(lib.ones(2, 6), 3, None, lib.ones(5)),
        lambda lib: lib.nn.functional.group_norm(
            lib.ones(2, 6), 3, lib.ones(6), lib.ones(5)
        ),
        lambda lib: lib.nn.functional.group_norm(lib.ones(2, 6, dtype=lib.int64), 3),
        lambda lib: lib.nn.GroupNorm(4, 6),
        lambda lib: lib.nn.GroupNorm(0, 6),
        lambda lib: lib.nn.GroupNorm(3, 6)(lib.ones(2, 4)),
    ],
)
def test_group_norm_errors_match_torch(make) -> None:
    same_error(make)


def test_group_norm_of_empty_matches_torch() -> None:
    torch = require_torch()
    for shape in ((0, 6, 2), (2, 0, 3)):
        x = st.ones(*shape, requires_grad=True)
        ours = F.group_norm(x, 3)
        theirs = torch.nn.functional.group_norm(torch.ones(*shape), 3)
        assert tuple(ours.shape) == tuple(theirs.shape)
        ours.sum().backward()
        assert tuple(x.grad.shape) == shape


def test_group_norm_gradcheck() -> None:
    st.manual_seed(0)
    x = st.randn(2, 4, 3, dtype=st.float64, requires_grad=True)
    w = st.randn(4, dtype=st.float64, requires_grad=True)
    b = st.randn(4, dtype=st.float64, requires_grad=True)
    fn = lambda x, w, b: F.group_norm(x, 2, w, b)  # noqa: E731
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))
    assert gradcheck(lambda x: F.group_norm(x, 4, eps=0.1), (x,))


@pytest.mark.parametrize(
    "options", [{}, {"affine": False}, {"bias": False}, {"eps": 1e-3}]
)
@pytest.mark.parametrize("shape", [(3, 6), (2, 6, 4), (2, 6, 2, 3)])
def test_group_norm_module_matches_torch(options, shape) -> None:
    torch = require_torch()
    # Groups of 3 values or more: a group of 2 normalizes to exactly -1 and 1,
    # and its input gradient is rounding noise.
    ours, theirs = nn.GroupNorm(2, 6, **options), torch.nn.GroupNorm(2, 6, **options)
    same_structure(ours, theirs)
    torch.manual_seed(0)
    with torch.no_grad():  # not the default ones and zeros, to test the affine part
        for p in theirs.parameters():
            p.copy_(torch.rand(p.shape) + 0.5)
    copy_weights(ours, theirs)
    out, _ = run_pair(ours, theirs, shape)
    assert out.grad_fn.name() == "NativeGroupNormBackward0"


def test_group_norm_module_defaults() -> None:
    layer = nn.GroupNorm(2, 4, dtype=st.float64)
    assert layer.weight.tolist() == [1.0] * 4
    assert layer.bias.tolist() == [0.0] * 4
    assert layer.weight.dtype is st.float64
