"""affine_grid and grid_sample against torch: values, gradients of the image,
the grid and theta, grad_fn names on seeded random cases (images and
volumes, every mode, padding mode and align_corners, float32 and float64,
points outside the image), errors and warnings, plus finite-difference
checks that need no torch."""

from __future__ import annotations

import math
import random
import warnings
from typing import Any

import pytest

import slowtorch_lib as st
import slowtorch_lib.nn.functional as F
from slowtorch_lib.autograd.gradcheck import gradcheck
from tests.parity import require_torch, same_error

RANDOM_CASES = 150


def _sample_case(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    n, c = rng.randint(1, 2), rng.randint(1, 3)
    axes = 3 if rng.random() < 0.3 else 2
    spatial = [rng.randint(1, 5 if axes == 2 else 3) for _ in range(axes)]
    points = [rng.randint(1, 4 if axes == 2 else 3) for _ in range(axes)]
    count = n * axes * math.prod(points)
    return {
        "seed": seed,
        "input": (n, c, *spatial),
        "grid": (n, *points, axes),
        "mode": rng.choice(["bilinear", "nearest", *(["bicubic"] * (axes == 2))]),
        "padding_mode": rng.choice(["zeros", "border", "reflection"]),
        "align_corners": rng.random() < 0.5,
        "dtype": rng.choice(["float32", "float64"]),
        # Some points outside [-1, 1], some on pixel centres and edges.
        "points": [
            rng.choice([rng.uniform(-1.5, 1.5), rng.randint(-4, 4) / 4])
            for _ in range(count)
        ],
    }


def _leaf(lib: Any, values: list[float], shape: tuple[int, ...], dtype: str) -> Any:
    tensor = lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape)
    return tensor.requires_grad_()


def _run_sample(lib: Any, case: dict[str, Any]) -> tuple[Any, Any, Any]:
    gen = random.Random(case["seed"] + 1000)
    count = 1
    for size in case["input"]:
        count *= size
    image = _leaf(
        lib, [gen.gauss(0, 1) for _ in range(count)], case["input"], case["dtype"]
    )
    grid = _leaf(lib, case["points"], case["grid"], case["dtype"])
    out = lib.nn.functional.grid_sample(
        image,
        grid,
        mode=case["mode"],
        padding_mode=case["padding_mode"],
        align_corners=case["align_corners"],
    )
    upstream = [gen.gauss(0, 1) for _ in range(out.numel())]
    weights = lib.tensor(upstream, dtype=out.dtype).reshape(out.shape)
    (out * weights).sum().backward()
    return out, image, grid


def _close(torch: Any, ours: Any, theirs: Any, dtype: str) -> None:
    tolerance = 1e-12 if dtype == "float64" else 2e-5
    torch.testing.assert_close(
        torch.tensor(ours.tolist(), dtype=torch.float64),
        theirs.detach().to(torch.float64),
        rtol=tolerance,
        atol=tolerance,
    )


@pytest.mark.parametrize("seed", range(RANDOM_CASES))
def test_random_grid_sample_matches_torch(seed: int) -> None:
    torch = require_torch()
    case = _sample_case(seed)
    ours, our_image, our_grid = _run_sample(st, case)
    theirs, their_image, their_grid = _run_sample(torch, case)
    assert ours.dtype.name == str(theirs.dtype)[6:]
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.grad_fn.name() == type(theirs.grad_fn).__name__
    _close(torch, ours, theirs, case["dtype"])
    _close(torch, our_image.grad, their_image.grad, case["dtype"])
    _close(torch, our_grid.grad, their_grid.grad, case["dtype"])


def test_random_cases_cover_every_option() -> None:
    cases = [_sample_case(seed) for seed in range(RANDOM_CASES)]
    for key in ("mode", "padding_mode", "align_corners", "dtype"):
        assert len({c[key] for c in cases}) > 1
    combos = {(c["mode"], c["padding_mode"], c["align_corners"]) for c in cases}
    assert len(combos) == 18
    assert {len(c["input"]) for c in cases} == {4, 5}


def _affine_case(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    three_d = rng.random() < 0.3
    spatial = [rng.randint(1, 5) for _ in range(3 if three_d else 2)]
    dims = len(spatial)
    batch = rng.randint(1, 3)
    return {
        "seed": seed,
        "theta": [rng.gauss(0, 1) for _ in range(batch * dims * (dims + 1))],
        "shape": (batch, dims, dims + 1),
        "size": (batch, rng.randint(1, 3), *spatial),
        "align_corners": rng.random() < 0.5,
        "dtype": rng.choice(["float32", "float64"]),
    }


def _run_affine(lib: Any, case: dict[str, Any]) -> tuple[Any, Any]:
    theta = _leaf(lib, case["theta"], case["shape"], case["dtype"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unit-size grids warn
        grid = lib.nn.functional.affine_grid(
            theta, case["size"], align_corners=case["align_corners"]
        )
    gen = random.Random(case["seed"] + 1000)
    weights = [gen.gauss(0, 1) for _ in range(grid.numel())]
    (grid * lib.tensor(weights, dtype=grid.dtype).reshape(grid.shape)).sum().backward()
    return grid, theta


@pytest.mark.parametrize("seed", range(RANDOM_CASES))
def test_random_affine_grid_matches_torch(seed: int) -> None:
    torch = require_torch()
    case = _affine_case(seed)
    ours, our_theta = _run_affine(st, case)
    theirs, their_theta = _run_affine(torch, case)
    assert ours.dtype.name == str(theirs.dtype)[6:]
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.grad_fn.name() == type(theirs.grad_fn).__name__
    _close(torch, ours, theirs, case["dtype"])
    _close(torch, our_theta.grad, their_theta.grad, case["dtype"])


def test_spatial_transformer_by_hand() -> None:
    """The identity map reads every pixel back; a shift by one pixel's
    width (2 / W) reads the neighbour, zeros past the edge."""
    image = st.arange(6.0).reshape(1, 1, 2, 3)
    identity = st.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    grid = F.affine_grid(identity, (1, 1, 2, 3), align_corners=False)
    assert F.grid_sample(image, grid, align_corners=False).tolist() == image.tolist()
    shift = st.tensor([[[1.0, 0.0, 2 / 3], [0.0, 1.0, 0.0]]])
    grid = F.affine_grid(shift, (1, 1, 2, 3), align_corners=False)
    moved = F.grid_sample(image, grid, mode="nearest", align_corners=False)
    assert moved.tolist() == [[[[1.0, 2.0, 0.0], [4.0, 5.0, 0.0]]]]


ERRORS = {
    "mode": lambda L: L.nn.functional.grid_sample(
        L.ones(1, 1, 2, 2), L.zeros(1, 1, 1, 2), mode="area"
    ),
    "padding mode": lambda L: L.nn.functional.grid_sample(
        L.ones(1, 1, 2, 2), L.zeros(1, 1, 1, 2), padding_mode="wrap"
    ),
    "batch": lambda L: L.nn.functional.grid_sample(
        L.ones(2, 1, 2, 2), L.zeros(1, 1, 1, 2), align_corners=False
    ),
    "last dimension": lambda L: L.nn.functional.grid_sample(
        L.ones(1, 1, 2, 2), L.zeros(1, 1, 1, 3), align_corners=False
    ),
    "3-d input": lambda L: L.nn.functional.grid_sample(
        L.ones(1, 2, 2), L.zeros(1, 1, 2), align_corners=False
    ),
    "dimensions differ": lambda L: L.nn.functional.grid_sample(
        L.ones(1, 1, 2, 2), L.zeros(1, 1, 1, 1, 2), align_corners=False
    ),
    "empty image": lambda L: L.nn.functional.grid_sample(
        L.ones(1, 1, 0, 2), L.zeros(1, 1, 1, 2), align_corners=False
    ),
    "integer image": lambda L: L.nn.functional.grid_sample(
        L.ones(1, 1, 2, 2, dtype=L.int64),
        L.zeros(1, 1, 1, 2, dtype=L.int64),
        align_corners=False,
    ),
    "integer volume": lambda L: L.nn.functional.grid_sample(
        L.ones(1, 1, 2, 2, 2, dtype=L.int64),
        L.zeros(1, 1, 1, 1, 3, dtype=L.int64),
        align_corners=False,
    ),
    "bicubic volume": lambda L: L.nn.functional.grid_sample(
        L.ones(1, 1, 2, 2, 2),
        L.zeros(1, 1, 1, 1, 3),
        mode="bicubic",
        align_corners=False,
    ),
    "dtypes differ": lambda L: L.nn.functional.grid_sample(
        L.ones(1, 1, 2, 2), L.zeros(1, 1, 1, 2, dtype=L.float64), align_corners=False
    ),
    "integer theta": lambda L: L.nn.functional.affine_grid(
        L.zeros(1, 2, 3, dtype=L.int64), (1, 1, 2, 2), align_corners=False
    ),
    "theta shape": lambda L: L.nn.functional.affine_grid(
        L.zeros(1, 3, 3), (1, 1, 2, 2), align_corners=False
    ),
    "3-d theta shape": lambda L: L.nn.functional.affine_grid(
        L.zeros(1, 2, 3), (1, 1, 2, 2, 2), align_corners=False
    ),
    "size of three": lambda L: L.nn.functional.affine_grid(
        L.zeros(1, 2, 3), (1, 2, 2), align_corners=False
    ),
    "empty size": lambda L: L.nn.functional.affine_grid(
        L.zeros(1, 2, 3), (1, 1, 0, 2), align_corners=False
    ),
    "batch of theta": lambda L: L.nn.functional.affine_grid(
        L.zeros(2, 2, 3), (3, 1, 2, 2), align_corners=False
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_torch(name: str) -> None:
    same_error(ERRORS[name])


def test_warnings_match_torch() -> None:
    torch = require_torch()
    for lib in (st, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.grid_sample(lib.ones(1, 1, 2, 2), lib.zeros(1, 1, 1, 2))
            lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), (1, 1, 1, 2), True)
        messages = [str(w.message) for w in caught]
        assert [w.filename for w in caught] == [__file__] * 2  # the caller's line
        if lib is st:
            ours = messages
    assert ours == messages and len(ours) == 2


# ----------------------------------------------------------------------
# Finite differences, without torch
# ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_gradcheck_grid_sample(
    mode: str, padding_mode: str, align_corners: bool
) -> None:
    """Points kept off pixel centres and edges, where the gradient jumps."""
    gen = random.Random(7)
    image = [gen.gauss(0, 1) for _ in range(2 * 3 * 4)]
    x = st.tensor(image, dtype=st.float64).reshape(1, 2, 3, 4).requires_grad_()
    points = [0.93, -0.41, -1.23, 0.37, 0.11, 1.17, -0.57, -0.83, 1.31, -1.07]
    grid = st.tensor(points, dtype=st.float64).reshape(1, 1, 5, 2).requires_grad_()

    def sample(image: st.Tensor, where: st.Tensor) -> st.Tensor:
        return F.grid_sample(
            image, where, mode, padding_mode=padding_mode, align_corners=align_corners
        )

    assert gradcheck(sample, (x, grid))


@pytest.mark.parametrize("padding_mode", ["zeros", "reflection"])
def test_gradcheck_grid_sample_3d(padding_mode: str) -> None:
    gen = random.Random(8)
    volume = [gen.gauss(0, 1) for _ in range(2 * 3 * 2 * 3)]
    x = st.tensor(volume, dtype=st.float64).reshape(1, 1, 2, 3, 6).requires_grad_()
    points = [0.93, -0.41, 0.27, -1.23, 0.37, -0.66, 0.11, 1.17, 0.81]
    grid = st.tensor(points, dtype=st.float64).reshape(1, 1, 1, 3, 3).requires_grad_()

    def sample(image: st.Tensor, where: st.Tensor) -> st.Tensor:
        return F.grid_sample(
            image, where, padding_mode=padding_mode, align_corners=False
        )

    assert gradcheck(sample, (x, grid))


def test_gradcheck_affine_grid() -> None:
    theta = st.tensor([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.4]]], dtype=st.float64)
    theta.requires_grad_()
    assert gradcheck(lambda t: F.affine_grid(t, (1, 1, 3, 4), False), (theta,))
    theta3 = st.tensor([[0.5, 0.1, -0.2, 0.3]] * 3, dtype=st.float64)
    theta3 = theta3.reshape(1, 3, 4).requires_grad_()
    assert gradcheck(lambda t: F.affine_grid(t, (1, 1, 2, 3, 2), True), (theta3,))
