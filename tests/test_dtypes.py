"""Type promotion against PyTorch, and a property test of broadcasting."""

from __future__ import annotations

import itertools
import operator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st_

import slowtorch_lib as st
from tests.parity import assert_same, require_torch

DTYPE_NAMES = [
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "bool",
]
SCALARS = [True, 3, 2.5]
EXAMPLE = {
    **{name: 1.5 for name in ["float16", "bfloat16", "float32", "float64"]},
    **{name: 3 for name in ["uint8", "int8", "int16", "int32", "int64"]},
    "bool": True,
}


def dtype_of(lib: Any, name: str) -> Any:
    return getattr(lib, name)


def operand(lib: Any, kind: str, name: str) -> Any:
    """A dimensioned tensor, a 0-d tensor, or (for kind 'scalar') the name itself."""
    if kind == "tensor":
        return lib.tensor([EXAMPLE[name]], dtype=dtype_of(lib, name))
    return lib.tensor(EXAMPLE[name], dtype=dtype_of(lib, name))


@pytest.mark.parametrize("a, b", list(itertools.product(DTYPE_NAMES, DTYPE_NAMES)))
def test_promote_types_and_can_cast(a: str, b: str) -> None:
    torch = require_torch()
    ours = st.promote_types(dtype_of(st, a), dtype_of(st, b))
    assert repr(ours) == repr(
        torch.promote_types(dtype_of(torch, a), dtype_of(torch, b))
    )
    assert st.can_cast(dtype_of(st, a), dtype_of(st, b)) == torch.can_cast(
        dtype_of(torch, a), dtype_of(torch, b)
    )


@pytest.mark.parametrize(
    "kinds",
    [("tensor", "tensor"), ("tensor", "0-d"), ("0-d", "tensor"), ("0-d", "0-d")],
)
def test_result_type_of_tensors(kinds: tuple[str, str]) -> None:
    torch = require_torch()
    for a, b in itertools.product(DTYPE_NAMES, DTYPE_NAMES):
        ours = st.result_type(operand(st, kinds[0], a), operand(st, kinds[1], b))
        theirs = torch.result_type(
            operand(torch, kinds[0], a), operand(torch, kinds[1], b)
        )
        assert repr(ours) == repr(theirs), (kinds, a, b)


@pytest.mark.parametrize("kind", ["tensor", "0-d"])
def test_result_type_with_python_scalars(kind: str) -> None:
    torch = require_torch()
    for name, scalar in itertools.product(DTYPE_NAMES, SCALARS):
        ours = st.result_type(operand(st, kind, name), scalar)
        theirs = torch.result_type(operand(torch, kind, name), scalar)
        assert repr(ours) == repr(theirs), (kind, name, scalar)
        ours = st.result_type(scalar, operand(st, kind, name))
        assert repr(ours) == repr(theirs), (kind, name, scalar)


def test_result_type_follows_the_default_dtype() -> None:
    st.set_default_dtype(st.float64)
    try:
        assert st.result_type(st.tensor([1, 2]), 2.5) is st.float64
        assert (st.tensor([1, 2]) / 2).dtype is st.float64
        assert st.result_type(st.tensor([1.0], dtype=st.float32), 2.5) is st.float32
    finally:
        st.set_default_dtype(st.float32)


def test_operations_use_the_promoted_dtype() -> None:
    x32 = st.tensor([1.0, 2.0])
    x64_0d = st.tensor(2.0, dtype=st.float64)
    ints = st.tensor([1, 2])
    assert (x32 * x64_0d).dtype is st.float32  # a 0-d tensor does not widen
    assert (ints * x64_0d).dtype is st.float64  # but it brings its category
    assert (ints * 2.5).dtype is st.float32
    assert (st.tensor([True]) + True).dtype is st.bool
    assert (st.tensor([True]) + 1).dtype is st.int64


# ----------------------------------------------------------------------
# Broadcasting, as a property: random broadcastable shapes, binary ops
# ----------------------------------------------------------------------

OPS = [
    operator.add,
    operator.sub,
    operator.mul,
    operator.truediv,
    operator.lt,
    operator.eq,
]


@st_.composite
def broadcastable_shapes(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two shapes that broadcast: each size is the common size or 1, and one
    shape may have fewer dimensions."""
    full = draw(st_.lists(st_.integers(0, 3), min_size=0, max_size=4))
    left, right = [], []
    for size in full:
        left.append(size if draw(st_.booleans()) else 1)
        right.append(size if draw(st_.booleans()) else 1)
    drop_left = draw(st_.integers(0, len(full)))
    drop_right = draw(st_.integers(0, len(full)))
    return tuple(left[drop_left:]), tuple(right[drop_right:])


def filled(lib: Any, shape: tuple[int, ...], seed: int, dtype_name: str) -> Any:
    count = 1
    for size in shape:
        count *= size
    values = [((i * 7 + seed) % 11 - 5) / 2 for i in range(count)]
    if dtype_name == "int64":
        values = [int(v * 2) for v in values]
    return lib.tensor(values, dtype=dtype_of(lib, dtype_name)).reshape(shape)


@given(
    shapes=broadcastable_shapes(),
    op=st_.sampled_from(OPS),
    dtypes=st_.tuples(
        st_.sampled_from(["float32", "float64", "int64"]),
        st_.sampled_from(["float32", "float64", "int64"]),
    ),
    transpose=st_.booleans(),
)
def test_broadcasting_binary_ops_match_torch(
    shapes: tuple[tuple[int, ...], tuple[int, ...]],
    op: Any,
    dtypes: tuple[str, str],
    transpose: bool,
) -> None:
    torch = require_torch()
    left_shape, right_shape = shapes
    a, ta = (
        filled(st, left_shape, 1, dtypes[0]),
        filled(torch, left_shape, 1, dtypes[0]),
    )
    b, tb = (
        filled(st, right_shape, 4, dtypes[1]),
        filled(torch, right_shape, 4, dtypes[1]),
    )
    if transpose and a.dim() >= 2:  # a non-contiguous operand
        a, ta = a.transpose(0, -1), ta.transpose(0, -1)
        try:
            torch.broadcast_shapes(ta.shape, tb.shape)
        except RuntimeError:
            return
    assert_same(op(a, b), op(ta, tb), exact=True)
    assert tuple(st.broadcast_shapes(a.shape, b.shape)) == tuple(
        torch.broadcast_shapes(ta.shape, tb.shape)
    )


def test_shapes_that_do_not_broadcast() -> None:
    torch = require_torch()
    with pytest.raises(RuntimeError) as ours:
        st.ones(2, 3) + st.ones(4, 3)
    with pytest.raises(RuntimeError) as theirs:
        torch.ones(2, 3) + torch.ones(4, 3)
    assert str(ours.value) == str(theirs.value)


# ----------------------------------------------------------------------
# The one table of dtype facts
# ----------------------------------------------------------------------


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_facts_match_torch(name: str) -> None:
    torch = require_torch()
    ours, theirs = getattr(st, name), getattr(torch, name)
    assert ours.itemsize == theirs.itemsize
    assert ours.is_floating_point == theirs.is_floating_point
    assert ours.legacy_type_name == torch.tensor([], dtype=theirs).type()
    assert st.tensor([], dtype=ours).type() == ours.legacy_type_name
    assert ours.legacy_type_name == f"torch.{ours.c_name}Tensor"
    if theirs.is_floating_point:
        info = torch.finfo(theirs)
    elif theirs is torch.bool:
        info = None
    else:
        info = torch.iinfo(theirs)
    if info is not None:
        assert (ours.min, ours.max) == (info.min, info.max)
    else:
        assert (ours.min, ours.max) == (False, True)
