"""Checks that run the same code on slowtorch_lib and on PyTorch.

``check(fn)`` calls ``fn(lib)`` with ``lib`` each library in turn and
compares what comes out: the same tensors (values, dtype, shape, signs of
zeros), or the same exception type and message.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import slowtorch_lib as st
from tests.parity import assert_same, require_torch

inf, nan = math.inf, math.nan

SPECIAL = [
    inf,
    -inf,
    nan,
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.5,
    -1.5,
    2.5,
    -2.5,
    0.49999997,
    -0.2,
    1e30,
    -1e30,
    4503599627370497.0,
    3.7,
    -3.7,
]
DTYPES = ("float32", "float64", "int64", "bool")
VALUES = {
    "float32": [-1.5, 0.0, 0.1, 2.0, 3.7, -0.6],
    "float64": [-1.5, 0.0, 0.1, 2.0, 3.7, -0.6],
    "int64": [-3, 0, 1, 2, 7, 0],
    "bool": [True, False, True, False, True, True],
}


def outcome(fn: Callable[[Any], Any], lib: Any) -> tuple[Any, BaseException | None]:
    try:
        return fn(lib), None
    except Exception as error:  # noqa: BLE001 - compared with torch's
        return None, error


def same_sign_of_zero(ours: Any, theirs: Any) -> None:
    """-0.0 and 0.0 print differently: check that zeros have torch's sign."""
    for a, b in zip(flat(ours.tolist()), flat(theirs.tolist())):
        if isinstance(b, float) and b == 0:
            assert math.copysign(1, a) == math.copysign(1, b), (a, b)


def flat(values: Any) -> list[Any]:
    if not isinstance(values, list):
        return [values]
    return [v for item in values for v in flat(item)]


def compare(ours: Any, theirs: Any, exact: bool = True) -> None:
    """Tensors: shape, dtype and values; tuples element by element; else ==."""
    torch = require_torch()
    if isinstance(theirs, torch.Tensor):
        assert_same(ours, theirs, exact=exact)
        if exact and theirs.dtype.is_floating_point:
            same_sign_of_zero(ours, theirs)
    elif isinstance(theirs, tuple):
        assert isinstance(ours, tuple), type(ours)
        assert len(ours) == len(theirs)
        for mine, other in zip(ours, theirs):
            compare(mine, other, exact)
    else:
        assert type(ours) is type(theirs) and ours == theirs, (ours, theirs)


def check(fn: Callable[[Any], Any], exact: bool = True, message: bool = True) -> None:
    """Runs ``fn`` on both libraries: same result, or same exception."""
    torch = require_torch()
    theirs, their_error = outcome(fn, torch)
    ours, our_error = outcome(fn, st)
    if their_error is not None:
        assert our_error is not None, f"torch raised {their_error!r}, we did not"
        assert type(our_error) is type(their_error), (our_error, their_error)
        if message:
            assert str(our_error) == str(their_error)
        return
    assert our_error is None, f"we raised {our_error!r}, torch did not"
    compare(ours, theirs, exact)


def grid(
    seed: int, shape: tuple[int, ...], low: float = -3, high: float = 3
) -> list[Any]:
    """Nested random floats with 2 decimals (ties likely in sorts)."""
    rng = random.Random(seed)
    count = math.prod(shape)
    values: Any = [round(rng.uniform(low, high), 2) for _ in range(count)]
    for size in reversed(shape[1:]):
        values = [values[i : i + size] for i in range(0, len(values), size)]
    return values if shape else values[0]


# A 3 x 4 grid of distinct floats.
X34 = [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
