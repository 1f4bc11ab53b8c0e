"""Random programs: every operation on random shapes, dims and strided views.

Each check runs the same code on both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compares what comes out, or the type and message of the
exception. Gradients and ``grad_fn`` names are checked by the op table.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest

from tests.parity_checks import (
    check,
)


def _random_case(rng: random.Random) -> Callable[[Any], Any]:
    """One op on a random tensor (0-d to 3-d, sizes 0 to 3, maybe transposed)."""
    ndim = rng.randint(0, 3)
    shape = tuple(rng.choice((0, 1, 2, 3, 3)) for _ in range(ndim))
    values = [float(rng.randint(-3, 3)) for _ in range(math.prod(shape))]
    dtype = rng.choice(("float32", "float64", "int64"))
    transpose = ndim >= 2 and rng.random() < 0.5
    dim = rng.randint(-max(ndim, 1), max(ndim, 1) - 1)
    size = shape[dim] if shape else 1
    rows = [rng.randrange(size) if size else 0 for _ in range(math.prod(shape))]
    picks = [rng.randrange(size) for _ in range(rng.randint(0, 4))] if size else []
    mask = [rng.random() < 0.5 for _ in values]
    repeats = [rng.randint(0, 2) for _ in range(ndim + rng.randint(0, 1))]
    diagonal = rng.randint(-2, 2)
    k = rng.randint(0, size)
    descending = rng.random() < 0.5

    def make(lib: Any) -> Any:
        x = lib.tensor(values, dtype=getattr(lib, dtype)).reshape(shape)
        return x.transpose(0, 1) if transpose else x

    def same_shape(lib: Any, data: list[Any]) -> Any:
        return lib.tensor(data, dtype=lib.int64).reshape(shape)

    ops: list[Callable[[Any], Any]] = [
        lambda lib: make(lib).sort(dim=dim, descending=descending, stable=True),
        lambda lib: make(lib).argsort(dim=dim, descending=descending, stable=True),
        lambda lib: make(lib).cumsum(dim),
        lambda lib: make(lib).flip(dim),
        lambda lib: make(lib).repeat(*repeats),
        lambda lib: make(lib).tril(diagonal),
        lambda lib: make(lib).triu(diagonal),
        lambda lib: make(lib).gather(
            dim,
            same_shape(lib, rows).transpose(0, 1)
            if transpose
            else same_shape(lib, rows),
        ),
        lambda lib: make(lib).index_select(dim, lib.tensor(picks, dtype=lib.int64)),
        lambda lib: make(lib).masked_select(
            lib.tensor(mask, dtype=lib.bool).reshape(shape).transpose(0, 1)
            if transpose
            else lib.tensor(mask, dtype=lib.bool).reshape(shape)
        ),
        lambda lib: make(lib).nonzero(),
        lambda lib: make(lib).nonzero(as_tuple=True),
        lambda lib: make(lib).topk(k, dim, largest=descending).values,
        lambda lib: make(lib).floor() if dtype != "int64" else make(lib).round(),
        lambda lib: (
            make(lib)
            .scatter(
                dim,
                same_shape(lib, rows).transpose(0, 1)
                if transpose
                else same_shape(lib, rows),
                7,
            )
            .sum(dim)
        ),
        lambda lib: make(lib).scatter_add(
            dim,
            same_shape(lib, rows).transpose(0, 1)
            if transpose
            else same_shape(lib, rows),
            make(lib),
        ),
    ]
    return rng.choice(ops)


@pytest.mark.parametrize("seed", range(8))
def test_random_programs_agree_with_torch(seed: int) -> None:
    """50 random calls per seed: same values, shapes, dtypes, or same error."""
    rng = random.Random(seed)
    for _ in range(50):
        check(_random_case(rng))
