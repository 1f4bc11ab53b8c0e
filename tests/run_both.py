"""Small inputs of every dtype, and ``run_both``: one expression in both libraries.

``run_both(fn, *args)`` runs ``fn(lib, *args)`` with ``lib`` either
``slowtorch_lib`` or ``torch`` and compares what comes out: the tensor (shape,
dtype, values, signs of zeros), or the exception type and message. The tests
of pointwise, selecting, bitwise and comparison ops share it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import slowtorch_lib as st
from tests.parity import assert_same, require_torch

inf, nan = math.inf, math.nan

# Small inputs of every dtype, and a second operand of each, with zeros.
VALUES = {
    "float32": [-1.5, 0.0, 0.1, 2.0, 3.7],
    "float64": [-1.5, 0.0, 0.1, 2.0, 3.7],
    "int64": [-3, 0, 1, 2, 7],
    "bool": [True, False, True, False, True],
}
OTHER = {
    "float32": [0.5, -2.0, 0.3, 0.0, 1.1],
    "float64": [0.5, -2.0, 0.3, 0.0, 1.1],
    "int64": [2, -2, 3, 1, -4],
    "bool": [False, False, True, True, True],
}
DTYPES = list(VALUES)
# IEEE special values, paired so that every interesting combination occurs.
SPECIAL = [inf, -inf, nan, 5.0, -5.0, 0.0, -0.0, 0.1, 1e30, -2.5]
SPECIAL_OTHER = [2.0, -2.0, 0.0, -0.0, inf, -inf, nan, 3.0, 1e-30, 0.5]


def make(lib: Any, values: list[Any], dtype_name: str) -> Any:
    return lib.tensor(values, dtype=getattr(lib, dtype_name))


def outcome(fn: Callable[..., Any], *args: Any) -> tuple[Any, BaseException | None]:
    try:
        return fn(*args), None
    except Exception as error:  # noqa: BLE001  (compared with torch's)
        return None, error


def assert_same_outcome(
    ours: tuple[Any, Any],
    theirs: tuple[Any, Any],
    exact: bool = False,
    signed_zeros: bool = True,
) -> None:
    """Both raised the same error, or both returned the same tensor."""
    (mine, my_error), (other, their_error) = ours, theirs
    if my_error is not None or their_error is not None:
        assert type(my_error) is type(their_error), (my_error, their_error)
        assert str(my_error) == str(their_error)
        return
    assert_same(mine, other, exact=exact)
    if signed_zeros and mine.dtype.is_floating_point:
        for a, b in zip(mine.reshape(-1).tolist(), other.reshape(-1).tolist()):
            if a == 0 and b == 0:
                assert math.copysign(1, a) == math.copysign(1, b), (a, b)


def run_both(
    fn: Callable[..., Any],
    *make_args: Any,
    exact: bool = False,
    signed_zeros: bool = True,
) -> None:
    """Runs ``fn(lib, *args)`` in both libraries; ``make_args`` are (values, dtype)
    pairs turned into tensors, or plain Python values passed as they are."""
    torch = require_torch()

    def args_for(lib: Any) -> list[Any]:
        return [make(lib, *a) if isinstance(a, tuple) else a for a in make_args]

    assert_same_outcome(
        outcome(fn, st, *args_for(st)),
        outcome(fn, torch, *args_for(torch)),
        exact=exact,
        signed_zeros=signed_zeros,
    )
