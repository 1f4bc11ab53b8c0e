"""Small details that must match PyTorch exactly: how ``linspace`` rounds its
points, which ``grad_fn`` a division records, what an in-place floor division
reports, and which in-place writes raise.

Each check runs the same code in both libraries (see ``tests/parity.py``);
the finite-difference and known-value checks run without torch.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib._creation import fused_multiply_add
from slowtorch_lib.autograd.gradcheck import gradcheck
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
# Division: the overload PyTorch records
# ----------------------------------------------------------------------

DIVISIONS = {
    "a / b": lambda lib, a, b: a / b,
    "a / 2": lambda lib, a, b: a / 2,
    "div(a, b)": lambda lib, a, b: lib.div(a, b),
    "div(a, 2)": lambda lib, a, b: lib.div(a, 2),
    "div(a, b, None)": lambda lib, a, b: lib.div(a, b, rounding_mode=None),
    "div(a, 2, None)": lambda lib, a, b: lib.div(a, 2, rounding_mode=None),
    "div(a, b, floor)": lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
    "div(a, 2, trunc)": lambda lib, a, b: lib.div(a, 2, rounding_mode="trunc"),
    "divide(a, b, None)": lambda lib, a, b: lib.divide(a, b, rounding_mode=None),
    "true_divide(a, b)": lambda lib, a, b: lib.true_divide(a, b),
    "a.div(b)": lambda lib, a, b: a.div(b),
    "a.div(b, None)": lambda lib, a, b: a.div(b, rounding_mode=None),
    "a.divide(2, floor)": lambda lib, a, b: a.divide(2, rounding_mode="floor"),
    "a.true_divide(b)": lambda lib, a, b: a.true_divide(b),
    "a * 1 .div_(b)": lambda lib, a, b: (a * 1).div_(b),
    "a * 1 .div_(b, None)": lambda lib, a, b: (a * 1).div_(b, rounding_mode=None),
    "a * 1 .div_(2, trunc)": lambda lib, a, b: (a * 1).div_(2, rounding_mode="trunc"),
    "a * 1 .divide_(b)": lambda lib, a, b: (a * 1).divide_(b),
    "a * 1 .true_divide_(b)": lambda lib, a, b: (a * 1).true_divide_(b),
}


def _operands(lib: Any) -> tuple[Any, Any]:
    a = lib.tensor([[1.5, -2.0, 3.0], [0.25, 7.0, -1.0]]).requires_grad_()
    b = lib.tensor([0.5, 3.0, -2.0]).requires_grad_()
    return a, b


@pytest.mark.parametrize("form", DIVISIONS)
def test_division_records_torchs_overload(form: str) -> None:
    def run(lib: Any) -> tuple[Any, ...]:
        a, b = _operands(lib)
        out = DIVISIONS[form](lib, a, b)
        (out * lib.tensor([1.0, -2.0, 0.5])).sum().backward()
        return out, a.grad, b.grad

    ours, theirs = both(run)
    assert_same(ours[0], theirs[0])
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name()
    assert_same(ours[1], theirs[1])
    assert (ours[2] is None) == (theirs[2] is None)
    if theirs[2] is not None:
        assert_same(ours[2], theirs[2])


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, a: lib.div(a, 2, rounding_mode="round"),
        lambda lib, a: (a * 1).div_(2, rounding_mode="round"),
        lambda lib, a: lib.true_divide(a, 2, rounding_mode=None),
        lambda lib, a: a.true_divide(2, rounding_mode="floor"),
        lambda lib, a: a.div(2, mode="floor"),
    ],
)
def test_division_rejects_what_torch_rejects(call: Any) -> None:
    def run(lib: Any) -> Any:
        a = lib.tensor([1.0, 2.0]).requires_grad_()
        return call(lib, a)

    same_error(run, match_message=False)


def test_division_with_mode_none_has_the_true_gradient() -> None:
    """Finite differences (no torch): ``DivBackward2`` is still ``a / b``."""
    a = st.tensor([[1.5, -2.0, 3.0], [0.25, 7.0, -1.0]], dtype=st.float64)
    b = st.tensor([0.5, 3.0, -2.0], dtype=st.float64)
    a.requires_grad_()
    b.requires_grad_()
    out = st.div(a, b, rounding_mode=None)
    assert out.grad_fn is not None and out.grad_fn.name() == "DivBackward2"
    assert gradcheck(lambda x, y: st.div(x, y, rounding_mode=None), (a, b))
    assert gradcheck(lambda x, y: (x * 1).div_(y, rounding_mode=None), (a, b))
    assert gradcheck(lambda x, y: st.true_divide(x, y), (a, b))


# ----------------------------------------------------------------------
# In-place floor division
# ----------------------------------------------------------------------


def _floor_divide_in_place(lib: Any, form: str) -> Any:
    a = lib.tensor([3.5, -2.0, 7.0]).requires_grad_()
    out = a * 1
    other = lib.tensor([2.0, 3.0, -2.0])
    if form == "//=":
        out //= other
    else:
        out.floor_divide_(other)
    return out


@pytest.mark.parametrize("form", ["//=", "floor_divide_"])
def test_floor_divide_in_place_matches_torch(form: str) -> None:
    ours, theirs = both(lambda lib: _floor_divide_in_place(lib, form))
    assert_same(ours, theirs)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    message = same_error(lambda lib: _floor_divide_in_place(lib, form).sum().backward())
    assert "aten::floor_divide_ " in message


def test_floor_divide_out_of_place_names_floor_divide() -> None:
    """Without torch: the error of backward names the function that ran."""
    a = st.tensor([3.5, -2.0]).requires_grad_()
    with pytest.raises(RuntimeError, match="aten::floor_divide is not"):
        (a // 2).sum().backward()
    with pytest.raises(RuntimeError, match="aten::floor_divide_ is not"):
        (a * 1).floor_divide_(2).sum().backward()


@pytest.mark.parametrize("other", [1.5, "float tensor"])
def test_integer_floor_divide_in_place_by_a_float_raises(other: Any) -> None:
    def run(lib: Any) -> Any:
        x = lib.tensor([7, -7, 3])
        divisor = lib.tensor([2.0, 2.0, 2.0]) if other == "float tensor" else other
        try:
            x.floor_divide_(divisor)
        finally:
            assert x.tolist() == [7, -7, 3] and x._version == 0
        return x

    same_error(run)


# ----------------------------------------------------------------------
# Assignment with bool scalars among the indices
# ----------------------------------------------------------------------

BOOL_KEYS = {
    "True": True,
    "False": False,
    "(True,)": (True,),
    "(False,)": (False,),
    "(True, 0)": (True, 0),
    "(False, 0)": (False, 0),
    "(0, False)": (0, False),
    "(..., True)": (..., True),
    "(True, [0, 1])": (True, [0, 1]),
    "(False, [7])": (False, [7]),
    "(True, [7])": (True, [7]),
    "([0, 1], True)": ([0, 1], True),
    "(True, None, 1)": (True, None, 1),
}
VALUES = {
    "number": None,
    "[3]": (3,),
    "[1, 3]": (1, 3),
    "[2, 3]": (2, 3),
    "[2]": (2,),
    "[0]": (0,),
}


def _assign(lib: Any, key: Any, value_shape: Any) -> tuple[Any, Any, Any]:
    leaf = lib.zeros(2, 3).requires_grad_()
    x = leaf * 1
    if value_shape is None:
        value = None
        x[key] = 5.0
    else:
        value = lib.ones(value_shape).requires_grad_()
        try:
            x[key] = value * 2
        except (RuntimeError, IndexError):
            assert x.tolist() == [[0.0] * 3] * 2  # unchanged
            assert x.grad_fn.name() == "MulBackward0" and x._version == 0
            raise
    (x * lib.tensor([1.0, -2.0, 3.0])).sum().backward()
    return x, leaf.grad, None if value is None else value.grad


@pytest.mark.parametrize("value_shape", VALUES)
@pytest.mark.parametrize("key", BOOL_KEYS)
def test_assignment_with_bool_scalars_matches_torch(key: str, value_shape: str) -> None:
    torch = require_torch()

    def run(lib: Any) -> Any:
        return _assign(lib, BOOL_KEYS[key], VALUES[value_shape])

    try:
        theirs = run(torch)
    except (RuntimeError, IndexError):
        same_error(run)  # ``_assign`` checks that x is unchanged
        return
    ours = run(st)
    assert_same(ours[0], theirs[0])
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name()
    assert_same(ours[1], theirs[1])
    if theirs[2] is not None:
        assert_same(ours[2], theirs[2])


def test_false_in_an_index_checks_the_value_shape() -> None:
    """Without torch: ``x[False, 0] = v`` writes nothing but ``v`` must fit."""
    x = st.zeros(2, 3)
    x[False, 0] = st.ones(3)
    x[False] = st.ones(5)  # a bare False is not checked at all
    assert x.tolist() == [[0.0] * 3] * 2 and x._version == 1  # as in torch
    with pytest.raises(RuntimeError, match=r"indexing result of shape \[0, 3\]"):
        x[False, 0] = st.ones(2)
    with pytest.raises(RuntimeError, match="shape mismatch"):
        x[True, [7]] = st.ones(2)  # the shape is checked before the index
    with pytest.raises(IndexError, match="out of bounds"):
        x[True, [7]] = st.ones(3)
    assert x.tolist() == [[0.0] * 3] * 2 and x._version == 1


def test_assignment_with_true_has_the_right_gradient() -> None:
    """Finite differences (no torch) through ``x[True, [1, 0]] = v``."""

    def assign(x: st.Tensor, v: st.Tensor) -> st.Tensor:
        out = x * 1
        out[True, [1, 0]] = v * v
        return out

    x = st.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=st.float64)
    v = st.tensor([[0.5, -1.0, 2.0]], dtype=st.float64)
    assert gradcheck(assign, (x.requires_grad_(), v.requires_grad_()))
    assert assign(x, v).grad_fn.name() == "torch::autograd::CopySlices"


@pytest.mark.parametrize(
    "key",
    ["[0, -1]", "torch.tensor([0, 0])", "(slice(None), [0])", "[[]]", "(0, [0])"],
)
@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (0, 2, 0)])
def test_indexing_a_dimension_of_size_0_matches_torch(key: str, shape: Any) -> None:
    def get(lib: Any) -> Any:
        x = lib.zeros(shape)
        return x[eval(key, {"torch": lib})]

    def put(lib: Any) -> Any:
        x = lib.zeros(shape)
        x[eval(key, {"torch": lib})] = 1.0
        return x

    for run in (get, put):
        try:
            theirs = run(require_torch())
        except IndexError:
            same_error(run)
            continue
        assert_same(run(st), theirs)


# ----------------------------------------------------------------------
# Bitwise operations in place, and shifts
# ----------------------------------------------------------------------

INT64_EDGES = [5, -5, 1, -1, 0, 2**62, -(2**63), 2**63 - 1]
SHIFTS = [0, 1, 3, 62, 63, 64, 65, 100, -1, -3, True]


@pytest.mark.parametrize("shift", SHIFTS)
def test_shifts_match_torch(shift: int) -> None:
    def run(lib: Any) -> list[Any]:
        x = lib.tensor(INT64_EDGES)
        amounts = lib.tensor([shift] * len(INT64_EDGES))
        return [
            x << shift,
            x >> shift,
            x << amounts,
            lib.bitwise_right_shift(x, amounts),
            shift << x.clamp(-3, 70) if not isinstance(shift, bool) else x << 1,
            x.bitwise_left_shift(shift),
            lib.tensor([True, False]) >> int(shift),
        ]

    for ours, theirs in zip(*both(run)):
        assert_same(ours, theirs)


def test_shifts_without_torch() -> None:
    x = st.tensor([5, -5, 2**62])
    assert (x << 1).tolist() == [10, -10, -(2**63)]  # the top bit is lost
    assert (x >> 1).tolist() == [2, -3, 2**61]  # rounds down
    assert (x << 64).tolist() == [0, 0, 0]
    assert (x >> 64).tolist() == [0, -1, 0]
    assert (x << -1).tolist() == [0, 0, 0]
    assert (3 << st.tensor([2])).tolist() == [12]


IN_PLACE_BITWISE = {
    "&=": lambda x, y: x.__iand__(y),
    "|=": lambda x, y: x.__ior__(y),
    "^=": lambda x, y: x.__ixor__(y),
    "<<=": lambda x, y: x.__ilshift__(y),
    ">>=": lambda x, y: x.__irshift__(y),
    "bitwise_and_": lambda x, y: x.bitwise_and_(y),
    "bitwise_or_": lambda x, y: x.bitwise_or_(y),
    "bitwise_xor_": lambda x, y: x.bitwise_xor_(y),
    "bitwise_left_shift_": lambda x, y: x.bitwise_left_shift_(y),
    "bitwise_right_shift_": lambda x, y: x.bitwise_right_shift_(y),
}
TARGETS = {
    "int64": lambda lib: lib.tensor([5, 6]),
    "bool": lambda lib: lib.tensor([True, False]),
    "float32": lambda lib: lib.tensor([5.0, 6.0]),
}
OTHERS = {
    "1.5": lambda lib: 1.5,
    "2.0": lambda lib: 2.0,
    "True": lambda lib: True,
    "3": lambda lib: 3,
    "float tensor": lambda lib: lib.tensor([1.5, 2.0]),
    "0-d float tensor": lambda lib: lib.tensor(2.0),
    "int tensor": lambda lib: lib.tensor([1, 2]),
    "bool tensor": lambda lib: lib.tensor([True, False]),
    "longer tensor": lambda lib: lib.tensor([1, 2, 3]),
}


@pytest.mark.parametrize("other", OTHERS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("op", IN_PLACE_BITWISE)
def test_bitwise_in_place_matches_torch(op: str, target: str, other: str) -> None:
    torch = require_torch()

    def run(lib: Any) -> Any:
        x = TARGETS[target](lib)
        before = x.tolist()
        try:
            result = IN_PLACE_BITWISE[op](x, OTHERS[other](lib))
        except (RuntimeError, NotImplementedError):
            assert x.tolist() == before and x._version == 0  # unchanged
            raise
        assert result is x
        return x

    try:
        theirs = run(torch)
    except (RuntimeError, NotImplementedError):
        same_error(run)
        return
    assert_same(run(st), theirs)


# ----------------------------------------------------------------------
# reshape: a view where possible, else a copy viewed unsafely
# ----------------------------------------------------------------------

RESHAPES = {
    "contiguous": lambda x: (x * 1).reshape(-1),
    "contiguous to 2 x 6": lambda x: (x * 1).reshape(2, 6),
    "transposed, viewable": lambda x: (x * 1).t().reshape(4, 3, 1),
    "transposed": lambda x: (x * 1).t().reshape(-1),
    "transposed to 2 x 6": lambda x: (x * 1).t().reshape(2, 6),
    "leaf transposed": lambda x: x.t().reshape(-1),
    "flatten of transposed": lambda x: (x * 1).t().flatten(),
    "reshape_as of transposed": lambda x: x.t().reshape_as(x.reshape(-1)),
}


def _graph(tensor: Any) -> list[Any]:
    """Each node's name and its inputs' names, breadth first to the leaves."""
    out, nodes = [], [tensor.grad_fn]
    while nodes:
        node = nodes.pop(0)
        inputs = [n for n, _ in node.next_functions if n is not None]
        out.append((node.name(), [n.name() for n in inputs]))
        nodes += [n for n in inputs if "AccumulateGrad" not in n.name()]
    return out


@pytest.mark.parametrize("case", RESHAPES)
def test_reshape_records_torchs_nodes(case: str) -> None:
    def run(lib: Any) -> tuple[Any, Any, Any]:
        x = lib.arange(12.0).reshape(3, 4).requires_grad_()
        out = RESHAPES[case](x)
        (out * lib.arange(12.0).reshape(out.shape)).sum().backward()
        return out, x.grad, _graph(out)

    ours, theirs = both(run)
    assert_same(ours[0], theirs[0])
    assert_same(ours[1], theirs[1])
    assert ours[2] == theirs[2]
    assert (ours[0]._base is None) == (theirs[0]._base is None)


def test_reshape_of_a_transpose_has_the_right_gradient() -> None:
    """Finite differences (no torch) through ``UnsafeViewBackward0``."""
    x = st.arange(6.0, dtype=st.float64).reshape(2, 3).requires_grad_()
    out = (x * x).t().reshape(-1)
    assert out.grad_fn.name() == "UnsafeViewBackward0"
    assert gradcheck(lambda t: (t * t).t().reshape(-1), (x,))
    assert gradcheck(lambda t: (t * t).t().reshape(3, 1, 2), (x,))


# ----------------------------------------------------------------------
# What a node saves: only what its needed gradients read
# ----------------------------------------------------------------------


def test_remainder_saves_its_inputs_only_for_the_divisors_gradient() -> None:
    """Changing a divisor that needs no gradient in place does not break
    backward (nothing reads it); changing one that does, raises."""

    def run(lib: Any, divisor_needs_grad: bool) -> Any:
        x = lib.tensor([-2.25, 2.75, -2.875, 2.125]).requires_grad_()
        divisor = lib.tensor([2.0, -1.5, 2.0, 0.75])
        divisor.requires_grad_(divisor_needs_grad)
        out = x.remainder(divisor)
        divisor.detach().mul_(2)
        (out * lib.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return x.grad

    ours, theirs = both(lambda lib: run(lib, False))
    assert_same(ours, theirs)
    same_error(lambda lib: run(lib, True), match_message=False)


def test_remainder_gradients_by_finite_differences() -> None:
    x = st.tensor([-2.25, 2.75, -2.875, 2.125], dtype=st.float64).requires_grad_()
    divisor = st.tensor([2.0, -1.5, 2.0, 0.75], dtype=st.float64).requires_grad_()
    assert gradcheck(lambda a, b: a.remainder(b), (x, divisor))
    assert gradcheck(lambda a: a.remainder(divisor.detach()), (x,))


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


@pytest.mark.parametrize(
    "source, shape",
    [((), (1,)), ((), (1, 1)), ((), (2, 1)), ((3,), (1, 3)), ((3,), (1, 1, 3))]
    + [((0,), (1, 0)), ((3,), (2, 1, 3)), ((2, 1), (1, 2, 5))],
)
def test_expand_gives_new_dimensions_torchs_strides(source: Any, shape: Any) -> None:
    ours, theirs = both(lambda lib: lib.zeros(source).expand(*shape))
    assert ours.stride() == theirs.stride()
    assert_same(ours, theirs)
