"""``interpolate`` in the modes bicubic, trilinear, nearest-exact, and
nearest and area in 3-d (``adaptive_avg_pool3d``), and ``nn.Upsample`` in
them: a seeded differential test against
torch per mode (random shapes, sizes, scale factors up and down, integer
or not, ``recompute_scale_factor``, ``align_corners``, float32 and
float64), comparing values, ``grad_fn`` names and input gradients; the
refusals against torch's; finite-difference checks that need no torch.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import slowtorch_lib as st
import slowtorch_lib.nn.functional as F
from slowtorch_lib.autograd.gradcheck import gradcheck, gradgradcheck
from slowtorch_lib.nn.functional.interpolation import cubic_sources, cubic_weights
from tests.nn.test_layer_families_differential import Case, _outcome
from tests.parity import assert_same, require_torch, same_error

CASES_PER_MODE = 120
#: The mode, and the numbers of spatial dimensions it takes.
MODES = {
    "bicubic": (2,),
    "trilinear": (3,),
    "nearest-exact": (1, 2, 3),
    "nearest": (3,),
    "area": (3,),
}
FACTORS = [0.3, 0.5, 0.7, 1.0, 1.2, 1.5, 2.0, 2.3, 3.0]


def _case(mode: str, rng: random.Random) -> Case:
    """A random call of ``interpolate`` in ``mode`` on a random input."""
    dims = rng.choice(MODES[mode])
    largest = 5 if dims == 3 else 7
    plane = [rng.randint(1, largest) for _ in range(dims)]
    factors = [rng.choice([*FACTORS, round(rng.uniform(0.25, 3.5), 3)]) for _ in plane]
    options: dict[str, Any] = {}
    if rng.random() < 0.4 or min(int(n * f) for n, f in zip(plane, factors)) < 1:
        sizes = tuple(rng.randint(1, largest + 3) for _ in plane)
        options["size"] = sizes if rng.random() < 0.7 else sizes[0]
    else:
        together = rng.random() < 0.3 and len(set(plane)) == 1
        options["scale_factor"] = factors[0] if together else tuple(factors)
        options["recompute_scale_factor"] = rng.choice([None, False, True])
    if mode in ("bicubic", "trilinear"):
        options["align_corners"] = rng.choice([None, False, True])

    def run(lib: Any, xs: list[Any]) -> Any:
        return lib.nn.functional.interpolate(xs[0], mode=mode, **options)

    return run, [(rng.randint(1, 2), rng.randint(1, 3), *plane)], False


def _agreement(
    mode: str, cases: int = CASES_PER_MODE, seed: str = "interpolate"
) -> tuple[int, list[str]]:
    """How many of ``cases`` random cases of ``mode`` agree with torch, and
    what differs in the others."""
    torch = require_torch()
    rng = random.Random(f"{seed} {mode}")
    agreed, disagreements = 0, []
    for index in range(cases):
        case = _case(mode, rng)
        dtype = rng.choice(["float32", "float64"])
        ours = _outcome(st, case, dtype, index)
        theirs = _outcome(torch, case, dtype, index)
        rtol, atol = (1e-4, 1e-5) if dtype == "float32" else (1e-10, 1e-12)
        try:
            if isinstance(theirs[0], type):
                assert isinstance(ours[0], type), (ours[0].shape, theirs)
                assert ours == theirs
            else:
                assert not isinstance(ours[0], type), ours
                assert_same(ours[0], theirs[0], rtol, atol)
                assert ours[1] == theirs[1], (ours[1], theirs[1])
                for mine, other in zip(ours[2], theirs[2]):
                    assert_same(mine, other, rtol, atol)
        except AssertionError as error:
            disagreements.append(f"case {index} {case[1]} {dtype}: {error}")
        else:
            agreed += 1
    return agreed, disagreements


@pytest.mark.parametrize("mode", MODES)
def test_mode_agrees_with_torch(mode: str) -> None:
    agreed, disagreements = _agreement(mode)
    assert agreed == CASES_PER_MODE, disagreements[:3]


@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((1, 1, 3, 4), {"scale_factor": (1.2, 1.7), "mode": "bicubic"}),
        ((1, 1, 3, 4), {"scale_factor": 1.2, "mode": "bicubic"}),
        ((1, 1, 3, 4), {"scale_factor": (1.2, 1.7), "mode": "bilinear"}),
        ((1, 1, 3), {"scale_factor": 1.2, "mode": "linear"}),
        ((1, 1, 3, 2, 2), {"scale_factor": (1.2, 2.3, 1), "mode": "trilinear"}),
        ((1, 1, 3, 1, 1), {"scale_factor": (2.3, 1, 1), "mode": "nearest"}),
        ((1, 1, 3), {"scale_factor": 2.3, "mode": "nearest-exact"}),
    ],
)
def test_unchanged_sizes_and_doubling_match_torch(shape: Any, kwargs: Any) -> None:
    """torch's kernels take short cuts when an output size equals the input's
    (or doubles it), whatever the scale factor: forward and backward agree."""
    torch = require_torch()

    def run(lib: Any, xs: list[Any]) -> Any:
        return lib.nn.functional.interpolate(xs[0], **kwargs)

    case: Case = (run, [shape], False)
    ours, theirs = _outcome(st, case, "float64", 7), _outcome(torch, case, "float64", 7)
    assert_same(ours[0], theirs[0], 1e-12, 1e-14)
    assert ours[1] == theirs[1]
    assert_same(ours[2][0], theirs[2][0], 1e-12, 1e-14)


def _call(shape: Any, dtype: str = "float32", **kwargs: Any) -> Any:
    return lambda L: L.nn.functional.interpolate(
        L.ones(*shape, dtype=getattr(L, dtype)), **kwargs
    )


@pytest.mark.parametrize(
    "run",
    [
        _call((1, 1, 3), scale_factor=2, mode="bicubic"),
        _call((1, 1, 2, 2, 2), scale_factor=2, mode="bicubic"),
        _call((1, 1, 2, 2), scale_factor=2, mode="trilinear"),
        _call((1, 1, 2), scale_factor=2, mode="trilinear"),
        _call((1, 1, 2, 2, 2), scale_factor=2, mode="bilinear"),
        _call((1, 1, 2, 2, 2), scale_factor=2, mode="linear"),
        _call((1, 1, 2, 2, 2, 2), size=2, mode="nearest-exact"),
        _call((1, 1, 2, 2), size=2, mode="bogus"),
        _call((1, 1, 2, 2), size=2, mode="nearest-exact", align_corners=True),
        _call((1, 1, 2, 2), size=2, mode="nearest-exact", align_corners=False),
        _call((1, 1, 2, 2, 2), size=2, mode="nearest", align_corners=False),
        _call((1, 1, 2, 2, 2), size=2, mode="trilinear", antialias=True),
        _call((1, 1, 2), size=2, mode="nearest-exact", antialias=True),
        _call((2, 3, 4, 4), "int64", scale_factor=2, mode="bicubic"),
        _call((2, 3, 2, 2, 2), "int64", scale_factor=2, mode="trilinear"),
        _call((2, 3, 2, 2, 2), "int64", scale_factor=2, mode="nearest"),
        _call((2, 3, 4), "int64", scale_factor=2, mode="nearest-exact"),
        _call((2, 3, 4, 4), "int64", scale_factor=2, mode="nearest-exact"),
        _call((2, 3, 4, 4), "bool", scale_factor=2, mode="nearest-exact"),
        _call((1, 1, 0, 2), size=3, mode="bicubic"),
        _call((1, 1, 2, 2), size=(0, 3), mode="bicubic"),
        _call((1, 1, 2, 2, 2), size=(0, 3, 2), mode="trilinear"),
        _call((1, 1, 2, 0, 2), size=(1, 3, 2), mode="nearest"),
        _call((1, 1, 2, 2), size=(0, 3), mode="nearest-exact"),
        _call((1, 1, 2), size=(0,), mode="nearest-exact"),
        _call((1, 1, 2, 2), size=(2, 3, 4), mode="bicubic"),
        _call((1, 1, 2, 2), scale_factor=(2, 3, 4), mode="bicubic"),
        _call((1, 1, 2, 2), size=3, mode="bicubic", recompute_scale_factor=True),
        _call((1, 1, 2, 2), size=(2.0, 3), mode="bicubic"),
        _call((1, 1, 2, 2, 2), size=[2, 3, 1.5], mode="trilinear"),
        _call((1, 1, 2, 2), size=3, mode="lanczos"),
        _call((1, 1, 2, 2), size=3, mode="lanczos", align_corners=True),
        _call((1, 1, 2, 2, 2), size=3, mode="lanczos"),
        _call((1, 1, 2, 0, 2), size=(1, 3, 2), mode="area"),
        _call((2, 3, 2, 2, 2), "int64", size=(1, 3, 2), mode="area"),
        lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(2, 3, 3), 2),
        lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(2, 3, 3, 3, 3, 3), 2),
        lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(1, 1, 3, 3, 3), (1, 2)),
        lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(1, 2, 3, 3), (2, -1, 2)),
    ],
)
def test_refusals_match_torch(run: Any) -> None:
    same_error(run)


@pytest.mark.parametrize(
    "run",
    [
        lambda: F.interpolate(
            st.ones(1, 1, 2, 2), size=3, mode="bicubic", antialias=True
        ),
        lambda: F.interpolate(
            st.ones(1, 1, 2, 2), size=3, mode="bilinear", antialias=True
        ),
        lambda: F.interpolate(
            st.ones(1, 1, 2, 2), size=3, mode="lanczos", antialias=True
        ),
    ],
)
def test_antialias_says_it_is_missing(run: Any) -> None:
    with pytest.raises(NotImplementedError, match="antialias=True"):
        run()


@pytest.mark.parametrize(
    "shape, output_size",
    [
        ((2, 3, 4, 5, 6), (2, 3, 4)),
        ((2, 3, 4, 5, 6), 1),
        ((3, 4, 5, 6), (3, None, 7)),
        ((1, 2, 5, 1, 3), 2),
    ],
)
def test_adaptive_avg_pool3d_matches_torch(shape: Any, output_size: Any) -> None:
    torch = require_torch()

    def run(lib: Any, xs: list[Any]) -> Any:
        return lib.nn.AdaptiveAvgPool3d(output_size)(xs[0])

    case: Case = (run, [shape], False)
    for dtype in ("float32", "float64"):
        ours, theirs = _outcome(st, case, dtype, 3), _outcome(torch, case, dtype, 3)
        assert not isinstance(theirs[0], type), theirs
        assert_same(ours[0], theirs[0], 1e-5, 1e-6)
        assert ours[1] == theirs[1]
        assert_same(ours[2][0], theirs[2][0], 1e-5, 1e-6)


def test_cubic_weights_sum_to_one_and_interpolate() -> None:
    """Keys' weights sum to one, are symmetric, and give the element itself
    at ``t = 0`` (the kernel interpolates)."""
    assert cubic_weights(0.0) == [0.0, 1.0, 0.0, 0.0]
    for t in (0.25, 0.5, 0.9):
        weights = cubic_weights(t)
        assert sum(weights) == pytest.approx(1.0)
        assert weights[::-1] == pytest.approx(cubic_weights(1 - t))
    # Near the edges the indices are clamped to the first and last elements.
    assert cubic_sources(3, 6, False, None, False)[0][0] == [0, 0, 0, 1]
    assert cubic_sources(3, 6, False, None, False)[-1][0] == [1, 2, 2, 2]


def _input(shape: tuple[int, ...], seed: int = 0) -> st.Tensor:
    st.manual_seed(seed)
    return st.randn(*shape, dtype=st.float64).requires_grad_()


@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((1, 2, 3, 4), {"size": (5, 3), "mode": "bicubic"}),
        ((1, 1, 3, 3), {"scale_factor": 1.6, "mode": "bicubic", "align_corners": True}),
        ((1, 1, 4, 3), {"scale_factor": (0.6, 2.0), "mode": "bicubic"}),
        ((1, 1, 2, 3, 2), {"scale_factor": 1.5, "mode": "trilinear"}),
        (
            (1, 1, 2, 2, 3),
            {"size": (3, 1, 2), "mode": "trilinear", "align_corners": True},
        ),
        ((1, 2, 5), {"scale_factor": 1.7, "mode": "nearest-exact"}),
        ((1, 1, 3, 4), {"size": (2, 7), "mode": "nearest-exact"}),
        ((1, 1, 2, 3, 2), {"scale_factor": (1.5, 0.7, 2), "mode": "nearest-exact"}),
        # (torch's backward of nearest is not its forward's transpose when a
        # scale factor gives an output of the input's size or twice it)
        ((1, 1, 2, 3, 2), {"scale_factor": (1.5, 0.7, 2), "mode": "nearest"}),
        ((1, 2, 3, 4, 2), {"size": (2, 3, 1), "mode": "area"}),
    ],
)
def test_gradcheck(shape: tuple[int, ...], kwargs: dict[str, Any]) -> None:
    def fn(x: st.Tensor) -> st.Tensor:
        return F.interpolate(x, **kwargs)

    assert gradcheck(fn, (_input(shape),))
    assert gradgradcheck(fn, (_input(shape, 1),))


@pytest.mark.parametrize(
    "mode, shape, name",
    [
        ("bicubic", (1, 1, 2, 3), "UpsampleBicubic2DBackward0"),
        ("trilinear", (1, 1, 2, 2, 3), "UpsampleTrilinear3DBackward0"),
        ("nearest-exact", (1, 1, 3), "UpsampleNearestExact1DBackward0"),
        ("nearest-exact", (1, 1, 2, 3), "UpsampleNearestExact2DBackward0"),
        ("nearest", (1, 1, 2, 2, 3), "UpsampleNearest3DBackward0"),
        ("area", (1, 1, 2, 2, 3), "AdaptiveAvgPool3DBackward0"),
    ],
)
def test_upsample_module_takes_the_modes(mode: str, shape: Any, name: str) -> None:
    layer = st.nn.Upsample(scale_factor=2, mode=mode)
    assert repr(layer) == f"Upsample(scale_factor=2.0, mode='{mode}')"
    out = layer(_input(shape))
    assert out.shape == (*shape[:2], *(2 * n for n in shape[2:]))
    assert out.grad_fn.name() == name
