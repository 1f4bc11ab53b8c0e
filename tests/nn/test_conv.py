"""Convolutions: functions, layers, errors and checkpoints, compared with PyTorch."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import slowtorch_lib as st
import slowtorch_lib.nn.functional as F
from slowtorch_lib.autograd import gradcheck, gradgradcheck
from tests.parity import (
    NARROW_STEP,
    assert_same,
    fused_narrow_kernels,
    largest_difference,
    require_torch,
    same_error,
    to_torch,
)


def _leaf(shape: tuple[int, ...], seed: int) -> st.Tensor:
    st.manual_seed(seed)
    return st.randn(*shape, dtype=st.float64).requires_grad_()


def test_conv2d_is_the_window_view_times_the_weight_matrix() -> None:
    """The node is ConvolutionBackward0; its gradients are autograd's through
    the plain composition (unfold, then a matrix product)."""
    x, w, b = _leaf((2, 3, 6, 5), 1), _leaf((4, 3, 3, 2), 2), _leaf((4,), 3)
    out = F.conv2d(x, w, b, stride=2, padding=1)
    assert out.grad_fn.name() == "ConvolutionBackward0"
    columns = F.unfold(x, (3, 2), padding=1, stride=2)
    plain = (w.view(4, -1) @ columns).view(out.shape) + b.view(-1, 1, 1)
    assert plain.grad_fn.name() != "ConvolutionBackward0"
    assert_close_lists(out.tolist(), plain.tolist())
    weights = st.randn(*out.shape, dtype=st.float64)
    ours = st.autograd.grad((out * weights).sum(), (x, w, b))
    composed = st.autograd.grad((plain * weights).sum(), (x, w, b))
    for a, c in zip(ours, composed):
        assert_close_lists(a.tolist(), c.tolist())


def assert_close_lists(a: Any, b: Any) -> None:
    if isinstance(a, list):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            assert_close_lists(u, v)
    else:
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (a, b)


@pytest.mark.parametrize(
    "run",
    [
        lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, groups=1),
        lambda x, w, b: F.conv2d(x, w, None, padding="same", dilation=(1, 2)),
        lambda x, w, b: F.conv_transpose2d(
            x, w.transpose(0, 1), None, stride=2, output_padding=1
        ),
    ],
)
def test_second_derivatives(run: Any) -> None:
    x, w, b = _leaf((1, 2, 4, 4), 4), _leaf((3, 2, 2, 3), 5), _leaf((3,), 6)
    assert gradcheck(run, (x, w, b))
    assert gradgradcheck(run, (x, w, b))


def test_unbatched_and_1d_inputs() -> None:
    torch = require_torch()
    x, w = _leaf((2, 5, 6), 7), _leaf((3, 2, 2, 2), 8)
    ours = F.conv2d(x, w)
    theirs = torch.nn.functional.conv2d(to_torch(x), to_torch(w))
    assert_same(ours, theirs)
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "SqueezeBackward1"
    x1, w1 = _leaf((2, 7), 9), _leaf((4, 2, 3), 10)
    assert_same(
        F.conv1d(x1, w1, padding="same"),
        torch.nn.functional.conv1d(to_torch(x1), to_torch(w1), padding="same"),
    )


@pytest.mark.parametrize(
    "run",
    [
        lambda L: L.nn.functional.conv2d(L.ones(1, 4, 5, 5), L.ones(3, 2, 3, 3)),
        lambda L: L.nn.functional.conv2d(
            L.ones(1, 4, 5, 5), L.ones(3, 2, 3, 3), groups=2
        ),
        lambda L: L.nn.functional.conv2d(
            L.ones(1, 2, 5, 5), L.ones(3, 2, 3, 3), stride=2, padding="same"
        ),
        lambda L: L.nn.functional.conv2d(
            L.ones(1, 2, 5, 5), L.ones(3, 2, 3, 3), padding="foo"
        ),
        lambda L: L.nn.functional.conv2d(
            L.ones(1, 2, 5, 5), L.ones(3, 2, 3, 3), stride=0
        ),
        lambda L: L.nn.functional.conv2d(
            L.ones(1, 2, 5, 5), L.ones(3, 2, 3, 3), padding=-1
        ),
        lambda L: L.nn.functional.conv2d(L.ones(1, 2, 5, 5), L.ones(3, 2, 7, 7)),
        lambda L: L.nn.functional.conv2d(
            L.ones(1, 2, 5, 5), L.ones(3, 2, 3, 3), L.ones(4)
        ),
        lambda L: L.nn.functional.conv2d(
            L.ones(1, 2, 5, 5), L.ones(3, 2, 3, 3), padding=(1, 2, 3)
        ),
        lambda L: L.nn.functional.conv2d(L.ones(2, 5), L.ones(3, 2, 3, 3)),
        lambda L: L.nn.functional.conv2d(
            L.ones(1, 2, 5, 5, dtype=L.float64), L.ones(3, 2, 3, 3)
        ),
        lambda L: L.nn.functional.conv_transpose2d(
            L.ones(1, 4, 5, 5), L.ones(4, 2, 3, 3), stride=2, output_padding=2
        ),
        lambda L: L.nn.functional.conv_transpose2d(
            L.ones(1, 4, 5, 5), L.ones(4, 2, 3, 3), padding="same"
        ),
        lambda L: L.nn.Conv2d(3, 4, 3, groups=2),
        lambda L: L.nn.Conv2d(4, 5, 3, groups=2),
        lambda L: L.nn.Conv2d(4, 4, 3, groups=0),
        lambda L: L.nn.Conv2d(4, 4, 3, stride=2, padding="same"),
        lambda L: L.nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"),
    ],
)
def test_refusals_match_torch(run: Any) -> None:
    same_error(run)


@pytest.mark.parametrize(
    "run",
    [
        lambda L: L.nn.functional.conv2d([1.0], L.ones(3, 2, 3, 3)),
        lambda L: L.nn.functional.conv2d(L.ones(1, 2, 5, 5), [1.0]),
    ],
)
def test_a_list_is_a_type_error(run: Any) -> None:
    same_error(run, match_message=False)


def test_bad_padding_mode_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        st.nn.Conv2d(3, 4, 3, padding_mode="foo")


def test_three_dimensional_convolution_says_it_is_missing() -> None:
    with pytest.raises(NotImplementedError, match="3-d convolutions"):
        F.conv3d(st.ones(1, 1, 3, 3, 3), st.ones(1, 1, 2, 2, 2))
    with pytest.raises(NotImplementedError, match="3-d convolutions"):
        st.nn.Conv3d(1, 1, 2)


LAYERS = [
    "Conv2d(3, 4, 3)",
    "Conv2d(3, 4, (3, 2), stride=2, padding=1, dilation=2, bias=False)",
    "Conv2d(4, 6, 3, groups=2, padding='same', padding_mode='reflect')",
    "Conv2d(2, 3, (3, 4), padding=(1, 2), padding_mode='replicate')",
    "Conv2d(2, 3, 3, padding=1, padding_mode='circular')",
    "Conv2d(2, 3, 2, padding='valid')",
    "Conv1d(3, 4, 3, stride=2, padding=1)",
    "Conv1d(2, 4, 4, padding='same', padding_mode='circular')",
    "ConvTranspose2d(3, 4, 3, stride=2, output_padding=1)",
    "ConvTranspose2d(4, 2, (2, 3), groups=2, dilation=(1, 2), bias=False)",
    "ConvTranspose1d(2, 4, 3, groups=2)",
]


@pytest.mark.parametrize("spec", LAYERS)
def test_layers_match_torch(spec: str, tmp_path: Path) -> None:
    """Repr, state_dict keys, forward and gradients given the same weights,
    and checkpoints saved by one library loaded by the other."""
    torch = require_torch()
    ours = eval("st.nn." + spec)
    theirs = eval("torch.nn." + spec)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    st.save(ours.state_dict(), tmp_path / "ours.pt")
    theirs.load_state_dict(torch.load(tmp_path / "ours.pt"))
    torch.save(theirs.state_dict(), tmp_path / "theirs.pt")
    ours.load_state_dict(st.load(tmp_path / "theirs.pt"))
    for name, value in ours.state_dict().items():
        assert_same(value, theirs.state_dict()[name], exact=True)
    dims = 1 if "1d" in spec else 2
    shape = (2, ours.in_channels) + (7, 6)[:dims]
    x = _leaf(shape, 11).float().detach().requires_grad_()
    tx = to_torch(x)
    out, t_out = ours(x), theirs(tx)
    assert_same(out, t_out, rtol=1e-5, atol=1e-5)
    assert out.grad_fn.name() == t_out.grad_fn.name()
    weights = st.randn(*out.shape)
    (out * weights).sum().backward()
    (t_out * to_torch(weights)).sum().backward()
    assert_same(x.grad, tx.grad, rtol=1e-4, atol=1e-5)
    assert_same(ours.weight.grad, theirs.weight.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("spec", LAYERS)
def test_initialisation_bounds_are_torchs(spec: str) -> None:
    """kaiming_uniform_(a=sqrt(5)): U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the
    weight and the bias, fan_in = weight.shape[1] * kernel elements."""
    layer = eval("st.nn." + spec)
    fan_in = layer.weight.shape[1] * math.prod(layer.weight.shape[2:])
    bound = 1 / math.sqrt(fan_in)
    weights = layer.weight.flatten().tolist()
    assert max(abs(v) for v in weights) <= bound
    assert max(abs(v) for v in weights) > bound / 2  # drawn, not zeros
    if layer.bias is not None:
        assert max(abs(v) for v in layer.bias.tolist()) <= bound


def test_conv_transpose_output_size() -> None:
    torch = require_torch()
    ours = st.nn.ConvTranspose2d(2, 3, 3, stride=2)
    theirs = torch.nn.ConvTranspose2d(2, 3, 3, stride=2)
    theirs.load_state_dict({k: to_torch(v) for k, v in ours.state_dict().items()})
    x = st.randn(1, 2, 3, 3)
    out = ours(x, output_size=(8, 8))
    assert_same(out, theirs(to_torch(x), output_size=(8, 8)), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError):
        ours(x, output_size=(10, 10))


def test_unfold_and_fold_layers() -> None:
    torch = require_torch()
    x = _leaf((2, 3, 5, 6), 12)
    for ours, theirs in [
        (st.nn.Unfold((2, 3), padding=1, stride=2), torch.nn.Unfold((2, 3), 1, 1, 2)),
        (st.nn.Unfold(3, dilation=2), torch.nn.Unfold(3, dilation=2)),
    ]:
        assert repr(ours) == repr(theirs)
        columns = ours(x)
        assert_same(columns, theirs(to_torch(x)))
        assert columns.grad_fn.name() == "Im2ColBackward0"
    folded = st.nn.Fold((5, 6), (2, 3), padding=1, stride=2)(
        st.nn.Unfold((2, 3), padding=1, stride=2)(x)
    )
    t_folded = torch.nn.Fold((5, 6), (2, 3), padding=1, stride=2)(
        torch.nn.Unfold((2, 3), padding=1, stride=2)(to_torch(x))
    )
    assert_same(folded, t_folded)
    assert folded.grad_fn.name() == "Col2ImBackward0"
    assert_same(F.unfold(x[0], 2), torch.nn.functional.unfold(to_torch(x[0]), 2))


@pytest.mark.parametrize(
    "run",
    [
        lambda L: L.nn.functional.unfold(L.ones(4, 4), 2),
        lambda L: L.nn.functional.unfold(L.ones(1, 4, 4), 5),
        lambda L: L.nn.functional.fold(L.ones(1, 5, 9), (4, 4), 2),
        lambda L: L.nn.functional.fold(L.ones(1, 4, 8), (4, 4), 2),
    ],
)
def test_fold_refusals_match_torch(run: Any) -> None:
    same_error(run, match_message="Given" in str(run.__code__.co_consts))


def test_circular_padding_matches_torch() -> None:
    torch = require_torch()
    for shape, pad in [
        ((1, 3, 4), (2, 3)),
        ((1, 3, 4), (-1, 2)),
        ((2, 1, 3, 4), (1, 2, -1, 2)),
    ]:
        x = _leaf(shape, 13)
        tx = to_torch(x)
        ours = F.pad(x, pad, mode="circular")
        theirs = torch.nn.functional.pad(tx, pad, mode="circular")
        assert_same(ours, theirs, exact=True)
        assert ours.grad_fn.name() == theirs.grad_fn.name()
        weights = st.randn(*ours.shape, dtype=st.float64)
        (ours * weights).sum().backward()
        (theirs * to_torch(weights)).sum().backward()
        assert_same(x.grad, tx.grad, rtol=1e-12, atol=1e-12)
    same_error(lambda L: L.nn.functional.pad(L.ones(1, 3, 4), (5, 0), mode="circular"))
    same_error(lambda L: L.nn.functional.pad(L.ones(1, 1, 3), (-1, 3), mode="circular"))


NARROW = [
    ("conv2d", lambda F, x, w, b: F.conv2d(x, w, b, padding=1, groups=2)),
    ("conv2d_stride", lambda F, x, w, b: F.conv2d(x, w, None, stride=2, groups=2)),
    ("conv_transpose2d", lambda F, x, w, b: F.conv_transpose2d(x, w, b[:2], stride=2)),
    (
        "conv1d",
        lambda F, x, w, b: F.conv1d(x[:, :, 0], w[:, :, 0], b, dilation=2, groups=2),
    ),
]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize(("name", "run"), NARROW, ids=[n for n, _ in NARROW])
def test_narrow_dtypes_round_once_like_torch(name: str, run: Any, dtype: str) -> None:
    """In bfloat16 and float16, values and gradients equal PyTorch's: its
    oneDNN kernels add in float32 and round once, and so does the engine.
    On a CPU without them, PyTorch's fallback rounds some partial sums on
    the way: there the two differ by at most one step of the dtype."""
    torch = require_torch()
    st.manual_seed(0)
    tensors = [st.randn(2, 4, 5, 6), st.randn(6, 2, 3, 3) / 2, st.randn(6)]
    found = []
    for lib in (st, torch):
        kind = getattr(lib, dtype)
        leaves = [
            (t if lib is st else to_torch(t)).to(kind).requires_grad_() for t in tensors
        ]
        if name == "conv_transpose2d":
            leaves[1] = leaves[1].detach()[:4].requires_grad_()
        out = run(lib.nn.functional, *leaves)
        upstream = (out.detach().float() * 0 + 1).to(kind).cumsum(-1)
        (out * upstream).sum().backward()
        found.append([out, *(leaf.grad for leaf in leaves)])
    fused = fused_narrow_kernels(dtype)
    for ours, theirs in zip(*found):
        if theirs is None:
            assert ours is None
        elif fused:
            assert_same(ours, theirs, exact=True)
        else:
            assert ours.shape == theirs.shape and ours.dtype.name == dtype
            gap = largest_difference(ours.tolist(), theirs.detach().tolist())
            assert gap <= NARROW_STEP[dtype], gap


def test_a_narrow_input_changed_after_the_convolution_is_refused() -> None:
    x = st.randn(1, 2, 4, 4).bfloat16().requires_grad_()
    w = st.randn(3, 2, 2, 2).bfloat16().requires_grad_()
    y = x * 1
    out = F.conv2d(y, w)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
