"""Small details that must match PyTorch exactly: how ``linspace`` rounds its
points, and which in-place writes raise.

(Which ``grad_fn`` a division records, what an in-place floor division reports,
shifts, ``reshape`` and assignment with bool indices are tested in the files of
their ops modules, ``tests/ops/``.)

Each check runs the same code in both libraries (see ``tests/parity.py``);
the finite-difference and known-value checks run without torch.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib._ranges import fused_multiply_add
from tests.parity import assert_same, both, require_torch, same_error

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
    # 2 * (2**24 + 3) is halfway between two float32 values; 2**-60 less is
    # not, but rounding to float64 first would lose the 2**-60.
    assert fused_multiply_add(2.0, 2**24 + 3, -(2.0**-60), st.float32) == 2**25 + 4
    assert fused_multiply_add(2.0, 2**24 + 3, 2.0**-60, st.float32) == 2**25 + 8
    # A zero sum keeps the sign float arithmetic gives it.
    assert str(fused_multiply_add(-2.0, 0, -0.0, st.float32)) == "-0.0"
    assert str(fused_multiply_add(2.0, 1, -2.0, st.float32)) == "0.0"


# ----------------------------------------------------------------------
# In-place changes of one of several views (split, chunk, unbind)
# ----------------------------------------------------------------------

MULTI_OUTPUT_CHANGES = {
    "no-grad base, operand requires grad": lambda lib, w: (
        lib.zeros(2, 3).unbind(0)[0].mul_(w)
    ),
    "no-grad base, plain operand": lambda lib, w: lib.zeros(2, 3).unbind(0)[0].mul_(2),
    "split piece, pow_": lambda lib, w: lib.zeros(2, 3).split(1)[0].pow_(w),
    "chunk piece, fill_": lambda lib, w: lib.zeros(2, 3).chunk(2)[0].fill_(w),
    "chunk piece, zero_": lambda lib, w: lib.zeros(2, 3).chunk(2)[0].zero_(),
    "view of a piece, setitem": lambda lib, w: (
        lib.zeros(2, 3).chunk(2)[0].__setitem__(0, w)
    ),
    "view of a piece of a graph tensor": lambda lib, w: (
        (w * lib.ones(2, 3)).unbind(0)[0][1:].add_(1)
    ),
    "transposed piece of a graph tensor": lambda lib, w: (
        (w * lib.ones(2, 3)).split(1)[0].t().add_(1)
    ),
    "bool piece &= float that requires grad": lambda lib, w: (
        lib.zeros(2, 3, dtype=lib.bool).unbind(0)[0].__iand__(w)
    ),
}


@pytest.mark.parametrize("case", MULTI_OUTPUT_CHANGES)
def test_changing_one_of_several_views_matches_torch(case: str) -> None:
    torch = require_torch()

    def run(lib: Any) -> Any:
        return MULTI_OUTPUT_CHANGES[case](lib, lib.tensor(2.0).requires_grad_())

    try:
        theirs = run(torch)
    except RuntimeError:
        same_error(run)
        return
    ours = run(st)
    if theirs is not None:
        assert_same(ours, theirs)
        assert ours.requires_grad == theirs.requires_grad


def test_a_view_of_a_piece_is_one_of_several_views_too() -> None:
    """Without torch: the refusal reaches views of the pieces."""
    pieces = st.zeros(2, 3).split(1)
    pieces[0][0].add_(1)  # nothing requires grad: allowed
    assert pieces[0].tolist() == [[1.0, 1.0, 1.0]]
    weight = st.tensor(2.0).requires_grad_()
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        pieces[0][0].mul_(weight)
    with pytest.raises(RuntimeError, match="Output 0 of Slice is a view"):
        (weight * st.ones(2, 3)).unbind(0)[0][1:].add_(1)
    assert pieces[0].tolist() == [[1.0, 1.0, 1.0]]


# ----------------------------------------------------------------------
# In-place operations whose input overlaps the written-to tensor
# ----------------------------------------------------------------------


def _setitem(target: Any, key: Any, value: Any) -> Any:
    target[key] = value
    return target


OVERLAPPING_WRITES = {
    "x.t() += x": lambda lib: (
        lib.arange(9.0).reshape(3, 3).t().add_(lib.arange(9.0).reshape(3, 3))
    ),
    "x += x.t()": lambda lib: (lambda x: x.add_(x.t()))(lib.arange(9.0).reshape(3, 3)),
    "x += x": lambda lib: (lambda x: x.add_(x))(lib.arange(6.0).reshape(2, 3)),
    "x += x.view": lambda lib: (lambda x: x.add_(x.view(3, 2)))(lib.arange(6.0)),
    "x[1:] = x[:-1]": lambda lib: (lambda x: _setitem(x, slice(1, None), x[:-1]))(
        lib.arange(6.0)
    ),
    "x[::2] += x[1::2]": lambda lib: (lambda x: x[::2].add_(x[1::2]))(lib.arange(6.0)),
    "x[:3] += x[3:]": lambda lib: (lambda x: x[:3].add_(x[3:]))(lib.arange(6.0)),
    "x[:4] += x[2:]": lambda lib: (lambda x: x[:4].add_(x[2:]))(lib.arange(6.0)),
    "x[0] *= x[:, 0]": lambda lib: (lambda x: x[0].mul_(x[:, 0]))(
        lib.arange(9.0).reshape(3, 3)
    ),
    "x.mT *= x": lambda lib: (lambda x: x.mT.mul_(x))(lib.arange(4.0).reshape(1, 2, 2)),
    "x.pow_(x.t())": lambda lib: (lambda x: x.pow_(x.t()))(
        lib.arange(4.0).reshape(2, 2)
    ),
    "expanded.copy_(itself)": lambda lib: (lambda x: x.copy_(x))(
        lib.tensor(1.0).unsqueeze(0).expand(2)
    ),
    "expanded[1:] = its base": lambda lib: (
        lambda x: _setitem(x.unsqueeze(0).expand(2, 3), slice(1, None), x)
    )(lib.arange(3.0)),
    "x[[0, 1]] = x[1:]": lambda lib: (lambda x: _setitem(x, [0, 1], x[1:]))(
        lib.arange(3.0)
    ),
}


@pytest.mark.parametrize("case", OVERLAPPING_WRITES)
def test_overlapping_in_place_writes_match_torch(case: str) -> None:
    torch = require_torch()
    run = OVERLAPPING_WRITES[case]
    try:
        theirs = run(torch)
    except RuntimeError:
        same_error(run)
        return
    assert_same(run(st), theirs)


def test_partly_overlapping_write_leaves_the_tensor_unchanged() -> None:
    x = st.arange(9.0).reshape(3, 3)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        x.add_(x.t())
    assert x.tolist() == st.arange(9.0).reshape(3, 3).tolist() and x._version == 0
    flat = x.view(-1)
    flat[:3].add_(flat[6:])  # same storage, no common cell: allowed
    assert x[0].tolist() == [6.0, 8.0, 10.0]
