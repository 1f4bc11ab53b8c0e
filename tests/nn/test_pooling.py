"""Pooling, BatchNorm2d, Dropout2d and nearest upsampling, compared with PyTorch."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import slowtorch_lib as st
import slowtorch_lib.nn.functional as F
from slowtorch_lib.autograd.gradcheck import gradcheck
from tests.parity import assert_same, require_torch, same_error, to_torch


def _run_both(name: str, x: st.Tensor, *args: Any, **kwargs: Any) -> None:
    """Values, indices, grad_fn names and input gradients of ``F.<name>``."""
    torch = require_torch()
    tx = to_torch(x)
    ours = getattr(F, name)(x, *args, **kwargs)
    theirs = getattr(torch.nn.functional, name)(tx, *args, **kwargs)
    if isinstance(ours, tuple):
        assert_same(ours[1], theirs[1], exact=True)
        ours, theirs = ours[0], theirs[0]
    assert_same(ours, theirs, rtol=1e-12, atol=1e-15)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    st.manual_seed(1)
    weights = st.randn(*ours.shape, dtype=st.float64)
    (ours * weights).sum().backward()
    (theirs * to_torch(weights)).sum().backward()
    assert_same(x.grad, tx.grad, rtol=1e-12, atol=1e-12)


def _image(shape: tuple[int, ...], seed: int = 0) -> st.Tensor:
    st.manual_seed(seed)
    return st.randn(*shape, dtype=st.float64).requires_grad_()


POOLS = [
    ("max_pool2d", (2,), {}),
    ("max_pool2d", (3,), {"stride": 2, "padding": 1, "dilation": (1, 2)}),
    ("max_pool2d", ((2, 3),), {"stride": (2, 1), "ceil_mode": True}),
    ("max_pool2d", (3,), {"stride": 2, "ceil_mode": True, "return_indices": True}),
    ("avg_pool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool2d", (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
    ("avg_pool2d", ((2, 3),), {"stride": (1, 2), "divisor_override": 5}),
    ("adaptive_avg_pool2d", ((3, 4),), {}),
    ("adaptive_avg_pool2d", (1,), {}),
    ("adaptive_avg_pool2d", ((None, 2),), {}),
    ("adaptive_max_pool2d", ((2, 3),), {"return_indices": True}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), POOLS)
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 5, 5)])
def test_2d_pools_match_torch(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any], shape: Any
) -> None:
    _run_both(name, _image(shape), *args, **kwargs)


@pytest.mark.parametrize(
    ("name", "args", "kwargs"),
    [
        ("max_pool1d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
        ("max_pool1d", (2,), {"dilation": 2, "return_indices": True}),
        ("avg_pool1d", (4,), {"stride": 3, "padding": 2, "ceil_mode": True}),
        ("avg_pool1d", (3,), {"padding": 1, "count_include_pad": False}),
        ("adaptive_avg_pool1d", (3,), {}),
        ("adaptive_max_pool1d", (4,), {"return_indices": True}),
    ],
)
def test_1d_pools_match_torch(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    _run_both(name, _image((2, 3, 9)), *args, **kwargs)


ADAPTIVE_3D_CASES = 60


def _adaptive_3d_case(seed: int) -> tuple[tuple[int, ...], Any, str]:
    """A random 4-d or 5-d shape, output size (an int, or three sizes with
    None, smaller or larger than the input) and dtype."""
    rng = random.Random(seed)
    spatial = tuple(rng.randint(1, 5) for _ in range(3))
    batch = (rng.randint(1, 2),) if rng.random() < 0.7 else ()
    shape = (*batch, rng.randint(1, 3), *spatial)
    if rng.random() < 0.2:
        size: Any = rng.randint(1, 4)
    else:
        size = tuple(
            None if rng.random() < 0.2 else rng.randint(1, 6) for _ in range(3)
        )
    return shape, size, rng.choice(["float32", "float64"])


@pytest.mark.parametrize("seed", range(ADAPTIVE_3D_CASES))
def test_random_adaptive_max_pool3d_matches_torch(seed: int) -> None:
    """Values and indices exactly, grad_fn names, gradients; every other
    case has ties (values rounded to halves), which go to the first."""
    torch = require_torch()
    shape, size, dtype = _adaptive_3d_case(seed)
    st.manual_seed(seed)
    x = st.randn(*shape, dtype=getattr(st, dtype))
    if seed % 2:
        x = (x * 2).round() / 2
    x.requires_grad_()
    tx = to_torch(x)
    ours = F.adaptive_max_pool3d(x, size, return_indices=True)
    theirs = torch.nn.functional.adaptive_max_pool3d(tx, size, return_indices=True)
    assert to_torch(ours[1]).tolist() == theirs[1].tolist()
    assert ours[1].dtype.name == "int64" == str(theirs[1].dtype)[6:]
    assert to_torch(ours[0]).tolist() == theirs[0].tolist()
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name()
    weights = st.randn(*ours[0].shape, dtype=x.dtype)
    (ours[0] * weights).sum().backward()
    (theirs[0] * to_torch(weights)).sum().backward()
    # Overlapping windows add into one element: float32 sums may differ in
    # their last bit (torch adds in float32, the engine rounds once).
    if dtype == "float64":
        assert to_torch(x.grad).tolist() == tx.grad.tolist()
    torch.testing.assert_close(to_torch(x.grad), tx.grad, rtol=1e-6, atol=1e-5)


def test_adaptive_max_pool3d_with_indices_and_module_match_torch() -> None:
    torch = require_torch()
    x = _image((2, 3, 4, 5, 3))
    tx = to_torch(x)
    for name in (
        "adaptive_max_pool3d_with_indices",
        "adaptive_max_pool2d_with_indices",
    ):
        ours = getattr(F, name)(x[0] if "2d" in name else x, 2)
        theirs = getattr(torch.nn.functional, name)(tx[0] if "2d" in name else tx, 2)
        assert [to_torch(t).tolist() for t in ours] == [t.tolist() for t in theirs]
    ours_1d = F.adaptive_max_pool1d_with_indices(x[0, 0], 2)
    theirs_1d = torch.nn.functional.adaptive_max_pool1d_with_indices(tx[0, 0], 2)
    assert [to_torch(t).tolist() for t in ours_1d] == [t.tolist() for t in theirs_1d]
    for spec in ["AdaptiveMaxPool3d(2)", "AdaptiveMaxPool3d((2, None, 3), True)"]:
        layer, reference = eval("st.nn." + spec), eval("torch.nn." + spec)
        assert repr(layer) == repr(reference)
        out, expected = layer(x), reference(tx)
        if isinstance(out, tuple):
            assert to_torch(out[1]).tolist() == expected[1].tolist()
            out, expected = out[0], expected[0]
        assert to_torch(out).tolist() == expected.tolist()


@pytest.mark.parametrize(
    "run",
    [
        lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(2, 3, 3), 2),
        lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(1, 1, 2, 3, 3, 3), 2),
        lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(2, 0, 3, 3, 3), 2),
        lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(2, 3, 0, 3), 2),
        lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(2, 3, 3, 3), (2, 2)),
        lambda L: L.nn.functional.adaptive_max_pool3d(L.ones(2, 3, 3, 3), (2, -1, 2)),
        lambda L: L.nn.functional.adaptive_max_pool3d(
            L.ones(2, 3, 3, 3, dtype=L.int64), 2
        ),
        lambda L: L.nn.functional.adaptive_max_pool3d(
            L.ones(2, 3, 3, 3, dtype=L.bool), 2
        ),
        lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(2, 3, 3), (2, 2)),
        lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(2, 0, 3, 3), 2),
    ],
)
def test_adaptive_3d_refusals_match_torch(run: Any) -> None:
    same_error(run)


def test_adaptive_max_pool3d_empty_batch_and_zero_size_match_torch() -> None:
    torch = require_torch()
    for shape, size in [((0, 2, 3, 3, 3), 2), ((1, 3, 3, 3), (2, 2, 0))]:
        ours = F.adaptive_max_pool3d(st.ones(*shape), size, return_indices=True)
        theirs = torch.nn.functional.adaptive_max_pool3d(
            torch.ones(*shape), size, return_indices=True
        )
        assert [tuple(t.shape) for t in ours] == [tuple(t.shape) for t in theirs]


def test_adaptive_max_pool3d_gradcheck() -> None:
    """Finite differences, without torch (distinct values: no ties)."""
    values = [math.sin(3.7 * k) for k in range(2 * 3 * 4 * 5)]
    x = st.tensor(values, dtype=st.float64).reshape(2, 3, 4, 5).requires_grad_()
    assert gradcheck(lambda t: F.adaptive_max_pool3d(t, (2, 2, 3)), (x,))


TIES = [[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0], [0.0, 3.0, 3.0, 0.0]]


@pytest.mark.parametrize("stride", [1, 2])
def test_max_pool_gives_a_tie_to_the_first_maximum(stride: int) -> None:
    """The whole gradient goes to one element, the first in the scan, as in
    torch (``amax`` would split it among the tied elements)."""
    x = st.tensor([[TIES]], dtype=st.float64, requires_grad=True)
    _run_both("max_pool2d", x, 2, stride=stride, return_indices=True)
    if stride == 2:
        assert x.grad.view(-1).tolist().count(0.0) == 12 - 2


def test_max_pool_picks_the_last_nan() -> None:
    rows = [[1.0, math.nan, 2.0], [math.nan, 5.0, 1.0], [0.0, 1.0, 2.0]]
    x = st.tensor([[rows]], dtype=st.float64, requires_grad=True)
    _run_both("max_pool2d", x, 2, stride=1, return_indices=True)


def test_max_pool_of_minus_infinity_picks_the_first_element() -> None:
    x = st.full((1, 1, 3, 3), -math.inf, dtype=st.float64).requires_grad_()
    _run_both("max_pool2d", x, 2, stride=1, padding=1, return_indices=True)


@pytest.mark.parametrize(
    "run",
    [
        lambda L: L.nn.functional.max_pool2d(L.ones(1, 4, 5, 5), 2, padding=2),
        lambda L: L.nn.functional.max_pool2d(L.ones(1, 4, 5, 5), 6),
        lambda L: L.nn.functional.max_pool2d(L.ones(1, 4, 5, 5), (2, 2, 2)),
        lambda L: L.nn.functional.max_pool2d(L.ones(1, 4, 5, 5), 2, stride=0),
        lambda L: L.nn.functional.avg_pool2d(L.ones(1, 4, 5, 5), 2, padding=2),
        lambda L: L.nn.functional.avg_pool2d(L.ones(1, 4, 5, 5), 6),
        lambda L: L.nn.functional.interpolate(
            L.ones(1, 1, 2, 2), scale_factor=2, mode="foo"
        ),
        lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2, 2)),
        lambda L: L.nn.functional.interpolate(
            L.ones(1, 1, 2, 2), size=3, scale_factor=2
        ),
        lambda L: L.nn.functional.interpolate(
            L.ones(1, 1, 2, 2), size=3, align_corners=True
        ),
        lambda L: L.nn.functional.dropout2d(L.ones(1, 1, 2, 2), 1.5),
        lambda L: L.nn.BatchNorm2d(4)(L.ones(4, 5, 5)),
    ],
)
def test_refusals_match_torch(run: Any) -> None:
    same_error(run)


@pytest.mark.parametrize(
    "run",
    [
        lambda: F.max_pool3d(st.ones(1, 1, 2, 2, 2), 2),
        lambda: F.avg_pool3d(st.ones(1, 1, 2, 2, 2), 2),
        lambda: st.nn.MaxPool3d(2),
        lambda: st.nn.AvgPool3d(2),
    ],
)
def test_what_is_missing_says_so(run: Any) -> None:
    with pytest.raises(NotImplementedError, match="not implemented in this engine"):
        run()


MODULES = [
    "MaxPool2d(2)",
    "MaxPool2d(3, stride=2, padding=1, ceil_mode=True)",
    "MaxPool1d(2)",
    "AvgPool2d(2)",
    "AvgPool2d(3, 1, 1, count_include_pad=False)",
    "AvgPool1d(3, stride=2)",
    "AdaptiveAvgPool2d(1)",
    "AdaptiveAvgPool2d((2, 3))",
    "AdaptiveAvgPool1d(2)",
    "AdaptiveMaxPool2d((2, 3))",
    "AdaptiveMaxPool1d(3)",
    "Upsample(scale_factor=2)",
    "Upsample(size=(5, 7))",
    "Upsample(scale_factor=1.5, mode='bilinear', align_corners=True)",
    "Upsample(size=(4, 3), mode='area')",
    "UpsamplingBilinear2d(scale_factor=2)",
    "UpsamplingBilinear2d(size=(3, 7))",
    "UpsamplingNearest2d(size=3)",
    "Dropout2d(0.3)",
]


@pytest.mark.parametrize("spec", MODULES)
def test_modules_match_torch(spec: str) -> None:
    torch = require_torch()
    ours, theirs = eval("st.nn." + spec), eval("torch.nn." + spec, {"torch": torch})
    assert repr(ours) == repr(theirs)
    ours.eval()
    theirs.eval()
    shape = (2, 3, 9) if "1d" in spec else (2, 3, 6, 5)
    x = _image(shape)
    assert_same(ours(x), theirs(to_torch(x)), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"scale_factor": 2},
        {"scale_factor": 1.7},
        {"scale_factor": (0.5, 3)},
        {"size": (5, 11)},
        {"size": 7},
        {"scale_factor": 1.3, "recompute_scale_factor": True},
        {"scale_factor": 2.3},  # 6 outputs from 3, but not every other one
        {"scale_factor": 1.2},  # as many outputs as inputs, not the same ones
    ],
)
def test_nearest_interpolation_matches_torch(kwargs: dict[str, Any]) -> None:
    _run_both("interpolate", _image((2, 3, 4, 6)), **kwargs)
    if not isinstance(kwargs.get("scale_factor", kwargs.get("size")), tuple):
        _run_both("interpolate", _image((2, 3, 6)), **kwargs)


@pytest.mark.parametrize("scale", [2.3, 1.2, 2.0])
def test_nearest_1d_forward_and_backward_rules_match_torch(scale: float) -> None:
    """In 1-d, torch reads by the ratio but sends gradients back by the 2-d
    rule (a copy when 3 -> 3, every other when 3 -> 6): both are mirrored."""
    _run_both("interpolate", _image((1, 2, 3)), scale_factor=scale)
    _run_both("interpolate", _image((1, 2, 3, 3)), scale_factor=scale)


def test_batch_norm_2d_matches_torch() -> None:
    torch = require_torch()
    ours = st.nn.BatchNorm2d(3, dtype=st.float64)
    theirs = torch.nn.BatchNorm2d(3).double()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x = _image((4, 3, 2, 5))
    tx = to_torch(x)
    out, t_out = ours(x), theirs(tx)
    assert_same(out, t_out, rtol=1e-12, atol=1e-12)
    assert out.grad_fn.name() == t_out.grad_fn.name()
    (out * out.detach()).sum().backward()
    (t_out * t_out.detach()).sum().backward()
    assert_same(x.grad, tx.grad, rtol=1e-9, atol=1e-12)
    assert_same(ours.running_var, theirs.running_var, rtol=1e-12, atol=1e-12)
    ours.eval()
    theirs.eval()
    assert_same(ours(x), theirs(tx), rtol=1e-12, atol=1e-12)


def test_dropout2d_drops_whole_channels() -> None:
    st.manual_seed(0)
    x = st.ones(8, 16, 3, 3, requires_grad=True)
    out = F.dropout2d(x, 0.5)
    assert out.grad_fn.name() == "MulBackward0"
    for sample in out.tolist():
        for channel in sample:
            values = {v for row in channel for v in row}
            assert values in ({0.0}, {2.0})
    kept = sum(1 for s in out.tolist() for c in s if c[0][0] == 2.0)
    assert 0 < kept < 8 * 16
    out.sum().backward()
    assert x.grad.tolist() == out.tolist()
    assert F.dropout2d(x, 0.5, training=False) is x
    assert st.nn.Dropout2d().eval()(x) is x
