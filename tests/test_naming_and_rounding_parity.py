"""Small details that must match PyTorch exactly: how ``linspace`` rounds its
points, which ``grad_fn`` a division records, what an in-place floor division
reports, and which in-place writes raise.

Each check runs the same code in both libraries (see ``tests/parity.py``);
the finite-difference and known-value checks run without torch.
"""

from __future__ import annotations

import itertools

import pytest

import slowtorch_lib as st
from slowtorch_lib._creation import fused_multiply_add
from tests.parity import assert_same, both, require_torch

# ----------------------------------------------------------------------
# linspace: the same points, to the last bit
# ----------------------------------------------------------------------

STARTS = (-1, 0, 1, -3.7, 0.1, 2.5, -10, 100, 1e-3, -0.0, 1e-40, 3e38)
ENDS = (1, -1, 0, 3.3, 0.7, 10, -2.5, 1e5, -0.0, -3e38)
STEPS = (*range(0, 20), 31, 32, 33, 64, 100, 257)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_linspace_points_equal_torch_bit_for_bit(dtype: str) -> None:
    torch = require_torch()
    checked = 0
    for start, end, steps in itertools.product(STARTS, ENDS, STEPS):
        try:
            theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
        except RuntimeError:  # int64 cannot hold 3e38
            continue
        ours = st.linspace(start, end, steps, dtype=getattr(st, dtype))
        mine, real = map(repr, ours.tolist()), map(repr, theirs.tolist())
        assert list(mine) == list(real), (start, end, steps)
        checked += 1
    assert checked > 2000


def test_linspace_middle_is_torchs_float32_value() -> None:
    """``-1 + 3 * (2/3 in float32)`` rounded once is not zero."""
    points = st.linspace(-1, 1, 7).tolist()
    assert points[3] == -2.9802322387695312e-08
    assert points[0] == -1.0 and points[-1] == 1.0
    assert points[4] == -points[2]
    # float64: -1 + 3 * float64(1/3), rounded once.
    assert st.linspace(-1, 1, 7, dtype=st.float64).tolist()[3] == 2.0**-54


def test_linspace_matches_torch_in_the_default_dtype() -> None:
    ours, theirs = both(lambda lib: lib.linspace(-1, 1, 7))
    assert_same(ours, theirs, exact=True)
    ours, theirs = both(lambda lib: lib.linspace(0.1, 0.7, 9, requires_grad=True))
    assert_same(ours, theirs, exact=True)
    assert ours.requires_grad and ours.grad_fn is None


def test_fused_multiply_add_rounds_once() -> None:
    """``a * b + c`` rounded once, not twice (the product is not rounded)."""
    # 3 * float64(1/3) is 1 - 2**-54 exactly; rounding it first gives 1.
    assert fused_multiply_add(1 / 3, 3, -1.0, st.float64) == -(2.0**-54)
    assert (1 / 3) * 3 - 1 == 0.0
    # float32: 1 + 2**-24 is a tie between two float32 values: even wins.
    assert fused_multiply_add(2.0**-24, 1, 1.0, st.float32) == 1.0
    assert fused_multiply_add(3 * 2.0**-24, 1, 1.0, st.float32) == 1 + 2.0**-22
    # A zero sum keeps the sign float arithmetic gives it.
    assert str(fused_multiply_add(-2.0, 0, -0.0, st.float32)) == "-0.0"
    assert str(fused_multiply_add(2.0, 1, -2.0, st.float32)) == "0.0"
