"""``interpolate`` in the modes linear, bilinear (with and without
``align_corners``) and area, against torch: values, grad_fn names, input
gradients, errors; plus finite-difference checks that need no torch."""

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
import slowtorch_lib.nn.functional as F
from slowtorch_lib.autograd.gradcheck import gradcheck, gradgradcheck
from tests.nn.nn_parity import check_parity, rand
from tests.nn.test_pooling import _image, _run_both
from tests.parity import same_error

RESIZES = [
    {"scale_factor": 2},
    {"scale_factor": 1.7},
    {"scale_factor": 0.6},
    {"size": 1},
    {"size": 9},
    {"size": 3},
    {"scale_factor": 1.3, "recompute_scale_factor": True},
]


@pytest.mark.parametrize("align_corners", [None, False, True])
@pytest.mark.parametrize("kwargs", RESIZES)
def test_linear_matches_torch(kwargs: dict[str, Any], align_corners: Any) -> None:
    _run_both(
        "interpolate",
        _image((2, 3, 5)),
        mode="linear",
        align_corners=align_corners,
        **kwargs,
    )


@pytest.mark.parametrize("align_corners", [None, False, True])
@pytest.mark.parametrize(
    "kwargs", [*RESIZES, {"scale_factor": (0.5, 3)}, {"size": (5, 11)}]
)
def test_bilinear_matches_torch(kwargs: dict[str, Any], align_corners: Any) -> None:
    _run_both(
        "interpolate",
        _image((2, 3, 4, 6)),
        mode="bilinear",
        align_corners=align_corners,
        **kwargs,
    )


@pytest.mark.parametrize("kwargs", [{"size": 3}, {"scale_factor": 0.5}, {"size": 7}])
def test_area_matches_torch(kwargs: dict[str, Any]) -> None:
    _run_both("interpolate", _image((2, 3, 4, 6)), mode="area", **kwargs)
    _run_both("interpolate", _image((2, 3, 6)), mode="area", **kwargs)


@pytest.mark.parametrize(
    "mode, shape", [("linear", (2, 3, 5)), ("bilinear", (1, 2, 3, 4))]
)
@pytest.mark.parametrize("align_corners", [False, True])
def test_linear_modes_in_float32_match_torch(mode, shape, align_corners) -> None:
    check_parity(
        lambda lib, F, x: F.interpolate(
            x, scale_factor=1.7, mode=mode, align_corners=align_corners
        ),
        lambda lib: [rand(lib, *shape, seed=3, grad=True)],
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.parametrize(
    "run",
    [
        lambda L: L.nn.functional.interpolate(
            L.ones(1, 1, 2, 2), size=3, mode="linear"
        ),
        lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2), size=3, mode="bilinear"),
        lambda L: L.nn.functional.interpolate(
            L.ones(1, 1, 2), size=3, mode="area", align_corners=True
        ),
        lambda L: L.nn.functional.interpolate(
            L.ones(1, 1, 2, dtype=L.int64), size=3, mode="linear"
        ),
        lambda L: L.nn.functional.interpolate(L.ones(1, 1, 2), size=0, mode="linear"),
        lambda L: L.nn.functional.interpolate(
            L.ones(1, 1, 0, 2), size=3, mode="bilinear"
        ),
        lambda L: L.nn.functional.interpolate(
            L.ones(1, 1, 2), size=3, mode="linear", antialias=True
        ),
        lambda L: L.nn.functional.interpolate(
            L.ones(1, 1, 2), size=3, mode="linear", scale_factor=2
        ),
    ],
)
def test_interpolate_refusals_match_torch(run: Any) -> None:
    same_error(run)


def test_linear_modes_gradcheck() -> None:
    x = _image((1, 2, 4))
    for align_corners in (False, True):
        fn = lambda x, corners=align_corners: F.interpolate(  # noqa: E731
            x, scale_factor=1.5, mode="linear", align_corners=corners
        )
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))
    image = _image((1, 2, 3, 4))
    assert gradcheck(lambda x: F.interpolate(x, size=(5, 3), mode="bilinear"), (image,))
    assert gradcheck(lambda x: F.interpolate(x, size=(2, 3), mode="area"), (image,))


def test_upsample_module_passes_mode_and_align_corners() -> None:
    x = _image((1, 1, 2, 2))
    layer = st.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
    out = layer(x)
    assert out.grad_fn.name() == "UpsampleBilinear2DBackward0"
    assert out[0, 0, 0, 0].item() == x[0, 0, 0, 0].item()
    assert out[0, 0, -1, -1].item() == x[0, 0, -1, -1].item()
