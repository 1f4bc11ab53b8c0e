"""Differential tests of group_norm, cdist and interpolate's modes: random
shapes, hyper-parameters and dtypes, each run in both libraries; outputs,
grad_fn names and input gradients (or the errors) must agree.

Tolerances follow the dtype. In float32, two kinds of case are compared more
loosely, because PyTorch's own result is rounding noise there: the input
gradient of a group of one or two values (which normalizes to constants),
and cdist's matrix-product path, where PyTorch's ``|a|^2 - 2 a.b + |b|^2``
cancels in float32 (this engine sums in double, then rounds).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from tests.nn.nn_parity import values
from tests.parity import assert_same, require_torch

Case = tuple[Callable[[Any, list[Any]], Any], list[tuple[int, ...]], bool]
CASES_PER_FAMILY = 40


def _group_norm(rng: random.Random) -> Case:
    groups = rng.randint(1, 3)
    channels = groups * rng.randint(1, 3)
    spatial = [rng.randint(1, 4) for _ in range(rng.randint(0, 2))]
    shape = (rng.randint(1, 3), channels, *spatial)
    affine = rng.random() < 0.7
    eps = rng.choice([1e-5, 1e-3, 0.1])

    def run(lib: Any, xs: list[Any]) -> Any:
        return lib.nn.functional.group_norm(xs[0], groups, *xs[1:], eps=eps)

    noisy = channels // groups * math.prod(spatial) <= 2
    return run, [shape] + ([(channels,), (channels,)] if affine else []), noisy


def _cdist(rng: random.Random) -> Case:
    batch = tuple(rng.randint(1, 3) for _ in range(rng.randint(0, 2)))
    other_batch = batch[rng.randint(0, len(batch)) :]
    columns = rng.randint(1, 4)
    r1, r2 = rng.choice([1, 3, 27]), rng.choice([1, 4, 30])
    p = rng.choice([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf])
    mode = rng.choice(
        [
            "use_mm_for_euclid_dist_if_necessary",
            "use_mm_for_euclid_dist",
            "donot_use_mm_for_euclid_dist",
        ]
    )

    def run(lib: Any, xs: list[Any]) -> Any:
        return lib.cdist(xs[0], xs[1], p, compute_mode=mode)

    product = p == 2 and (mode.endswith("_dist") or (mode[-1] == "y" and r2 > 25))
    return run, [batch + (r1, columns), other_batch + (r2, columns)], product


def _interpolate(rng: random.Random) -> Case:
    mode = rng.choice(
        [
            "linear",
            "bilinear",
            "bicubic",
            "trilinear",
            "area",
            "nearest",
            "nearest-exact",
        ]
    )
    fixed = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
    dims = fixed.get(mode, rng.randint(1, 3))
    plane = [rng.randint(1, 6) for _ in range(dims)]
    options: dict[str, Any] = {}
    factors = [rng.choice([0.5, 0.7, 1.0, 1.5, 2.0, 2.3, 3.0]) for _ in plane]
    if rng.random() < 0.5 or min(math.floor(n * f) for n, f in zip(plane, factors)) < 1:
        options["size"] = tuple(rng.randint(1, 9) for _ in range(dims))
    else:
        options["scale_factor"] = tuple(factors)
        options["recompute_scale_factor"] = rng.random() < 0.3
    if mode in fixed:
        options["align_corners"] = rng.choice([None, False, True])

    def run(lib: Any, xs: list[Any]) -> Any:
        return lib.nn.functional.interpolate(xs[0], mode=mode, **options)

    return run, [(rng.randint(1, 2), rng.randint(1, 3), *plane)], False


def _outcome(lib: Any, case: Case, dtype: str, seed: int) -> tuple[Any, ...]:
    run, shapes, _ = case
    xs = [
        lib.tensor(values(s, seed + i), dtype=getattr(lib, dtype), requires_grad=True)
        for i, s in enumerate(shapes)
    ]
    try:
        out = run(lib, xs)
        upstream = lib.tensor(values(tuple(out.shape), seed + 50), dtype=out.dtype)
        out.backward(upstream)
    except Exception as error:  # noqa: BLE001  (compared with torch's)
        return type(error), str(error)
    return out, out.grad_fn.name(), [x.grad for x in xs]


FAMILIES = {"group_norm": _group_norm, "cdist": _cdist, "interpolate": _interpolate}


@pytest.mark.parametrize("family", FAMILIES)
def test_family_agrees_with_torch(family: str) -> None:
    torch = require_torch()
    rng = random.Random(family)
    for index in range(CASES_PER_FAMILY):
        case = FAMILIES[family](rng)
        dtype = rng.choice(["float32", "float64"])
        ours = _outcome(st, case, dtype, index)
        theirs = _outcome(torch, case, dtype, index)
        where = f"{family} case {index}: {case[1]} {dtype}"
        if isinstance(theirs[0], type):
            assert ours == theirs, where
            continue
        assert not isinstance(ours[0], type), (where, ours)
        loose = dtype == "float32" and case[2]
        rtol, atol = (1e-4, 1e-5) if dtype == "float32" else (1e-9, 1e-10)
        assert_same(ours[0], theirs[0], *((2e-2, 1e-3) if loose else (rtol, atol)))
        assert ours[1] == theirs[1], where
        for mine, other in zip(ours[2], theirs[2]):
            assert_same(mine, other, *((5e-2, 1e-3) if loose else (rtol, atol)))
