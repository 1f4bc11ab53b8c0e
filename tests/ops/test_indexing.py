"""Indexing ``x[...]`` and assignment ``x[...] = v``, compared with PyTorch.

Each case runs the same code on slowtorch_lib and on torch and compares
values, shapes, strides, storage offsets, the chain of ``grad_fn`` names,
error types and messages, and the gradients that reach the leaves.
"""

from __future__ import annotations

from collections.abc import Callable
from math import nan
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st_

import slowtorch_lib as st
from slowtorch_lib.autograd.gradcheck import gradcheck
from tests import fuzz
from tests.agree import agree
from tests.parity import (
    assert_same,
    both,
    chain,
    leaf,
    require_torch,
    same_error,
)


def graph(node: Any, depth: int = 4) -> str:
    """A node and its inputs, as nested names."""
    if node is None or depth == 0:
        return str(node and node.name())
    inner = ", ".join(graph(child, depth - 1) for child, _ in node.next_functions)
    return f"{node.name()}({inner})"


def run(lib: Any, code: str, env: dict[str, Any]) -> Any:
    """Evaluates ``code`` with ``torch`` bound to ``lib``; returns the result
    or the (type, message) of the exception."""
    try:
        return eval(code, {"torch": lib, **env})
    except Exception as error:  # noqa: BLE001 - the error is the result
        return (type(error).__name__, str(error))


# ----------------------------------------------------------------------
# Reading: x[index]
# ----------------------------------------------------------------------

GETITEM = [
    # basic: views
    "x[0]",
    "x[-1]",
    "x[0, 0]",
    "x[0][1]",
    "x[..., 0]",
    "x[0, 1:]",
    "x[:]",
    "x[...]",
    "x[()]",
    "x[:, :]",
    "x[:, 0:7]",
    "x[None]",
    "x[:, None]",
    "x[..., None]",
    "x[None, ..., None]",
    "x[1:4:2, ::3, 2:, -1]",
    "x[-1, -2:, :-3:2]",
    "x[5:100]",
    "x[2:1]",
    "x[:, 0]",
    "x[0:, None]",
    "x[torch.tensor(1)]",
    "x[torch.tensor(-1), 2]",
    # advanced: copies
    "x[[0, 1]]",
    "x[[0, 0, 1]]",
    "x[[-1, -5]]",
    "x[[]]",
    "x[torch.tensor([[0, 1]])]",
    "x[[0, 1], :, [0, 1]]",
    "x[:, [0, 1], [0, 1]]",
    "x[0, :, [0, 1]]",
    "x[[0, 1], :, 0]",
    "x[:, 0, :, [1, 2]]",
    "x[[0, 1], None, [0, 1]]",
    "x[:, [0, 1], None, [0, 1]]",
    "x[..., [0, 1]]",
    "x[[0, 1], ..., [0, 1]]",
    "x[:, [[0], [1]], [0, 1, 2]]",
    "x[None, [0, 1], :, [0, 1]]",
    "x[:, :, :, [1]][0]",
    "x[0, 1, [0, 1]]",
    "x[0, :, 0, [0, 1]]",
    "x[[0, 1], 1:3, [[0], [1]]]",
    "x[[0, 1], [1, 2], [2, 3], [0, 1]]",
    "x[[0, [1]]]",
    "x[[[0, 1], [1, 2]]]",
    # bools and masks
    "x[True]",
    "x[False]",
    "x[True, [0, 1]]",
    "x[[0, 1], True]",
    "x[:, True, [0, 1]]",
    "x[torch.tensor(True)]",
    "x[[True, False, True, False, True]]",
    "x[x > 700]",
    "x[x[:, :, 0, 0] > 300]",
    "x[:, x[0, :, :, 0] > 30]",
    "x[0, x[0] > 100]",
]


@pytest.mark.parametrize("code", GETITEM)
def test_getitem_matches_torch(code: str) -> None:
    torch = require_torch()
    values = [float(v) for v in range(840)]
    ours, theirs = leaf(st, values, (5, 6, 7, 4)), leaf(torch, values, (5, 6, 7, 4))
    a = run(st, code, {"x": ours})
    b = run(torch, code, {"x": theirs})
    assert not isinstance(b, tuple), b
    assert_same(a, b, exact=True)
    assert a.stride() == b.stride()
    assert a.storage_offset() == b.storage_offset()
    assert chain(a) == chain(b)
    assert (a._base is not None) == (b._base is not None)
    # Every element gets its own weight, so repeated indices must add up.
    weight = [float(i + 1) for i in range(b.numel())]
    (a * st.tensor(weight).reshape(tuple(b.shape))).sum().backward()
    (b * torch.tensor(weight).reshape(b.shape)).sum().backward()
    assert_same(ours.grad, theirs.grad, exact=True)


GETITEM_ERRORS = [
    "y[3]",
    "y[-4]",
    "y[0, 4]",
    "y[:, -5]",
    "y[0][5]",
    "y[[0, 3]]",
    "y[[0, -4]]",
    "y[:, [5]]",
    "y[torch.tensor(5)]",
    "y[1.5]",
    "y[torch.tensor([1.0])]",
    "y[torch.tensor(1.0)]",
    "y[torch.tensor([True, False])]",
    "y[[True, False]]",
    "y[torch.zeros(3, 5, dtype=torch.bool)]",
    "y[::-1]",
    "y[::0]",
    "y[0, 0, 0]",
    "y[[0, 1], [0, 1, 2]]",
    "y[None][0, 0, 3, 0]",
    "y[None, 0, 5]",
    "y[..., 4]",
    "z[0]",
    "z[:]",
    "z[[0]]",
    "w[[0], :, [7]]",
    "w[:, :, [9]]",
    "w[[0, 1], [5, 0]]",
    "w[:, [0, 1], [5, 0]]",
    "w[None, [5]]",
    "w[[0, 1], w[0, :2, 0] >= 0]",
]


@pytest.mark.parametrize("code", GETITEM_ERRORS)
def test_getitem_errors_match_torch(code: str) -> None:
    torch = require_torch()
    envs = []
    for lib in (st, torch):
        envs.append(
            {
                "y": lib.arange(12).reshape(3, 4),
                "z": lib.tensor(5),
                "w": lib.zeros(3, 4, 5),
            }
        )
    ours, theirs = run(st, code, envs[0]), run(torch, code, envs[1])
    assert isinstance(theirs, tuple)
    assert ours == theirs


def test_basic_indexing_shares_storage() -> None:
    x = st.arange(12).reshape(3, 4)
    row = x[1]
    row[2] = 100
    assert x[1, 2].item() == 100
    x[0, 1:][0] = -1
    assert x.tolist()[0][:2] == [0, -1]
    picked = x[[1]]  # advanced: a copy
    picked[0, 0] = 7
    assert x[1, 0].item() == 4


def test_index_with_zero_dim_tensors() -> None:
    x = st.arange(6).reshape(2, 3)
    assert x[st.tensor(1), st.tensor(-1)].item() == 5
    row = x[st.tensor(1)]  # an integer tensor of 0-d selects: a view
    assert row._base is not None and row.grad_fn is None


# ----------------------------------------------------------------------
# Writing: x[index] = value
# ----------------------------------------------------------------------

SETITEM = [
    "b[0] = 5",
    "b[0] = y",
    "b[:] = 5",
    "b[...] = 5",
    "b[()] = 5",
    "b[:, :] = 5",
    "b[:] = torch.tensor(5.)",
    "b[:] = y",
    "b[...] = y",
    "b[..., None] = 1",
    "b[None] = 1",
    "b[True] = 2",
    "b[False] = 2",
    "b[torch.tensor(1)] = 3",
    "b[0, 0] = torch.tensor(2.0, dtype=torch.float64)",
    "b[0] = torch.tensor([1, 2, 3, 4])",
    "b[0] = y.reshape(1, 4)",
    "b[1:, 0] = y[:2]",
    "b[0, ::2] = y[:2]",
    "b[[0, 1]] = 5",
    "b[[0, 1]] = y",
    "b[0, [1, 2]] = 5",
    "b[0, [1, 2]] = y[:2]",
    "b[b > 4] = 0",
    "b[b > 4] = y.sum()",
    "b[[True, False, True]] = y",
    "b[[0, 0]] = torch.stack([y, y * 2])",
    "b[[0]] = y.reshape(1, 1, 4)",
    "b[[0, 1], [0, 1]] = y[:2].reshape(1, 2)",
    "b[[0, 1]] = y[:2].reshape(2, 1)",
    # errors
    "b[0] = torch.ones(2, 4)",
    "b[0] = torch.ones(5)",
    "b[[0, 1]] = torch.ones(3)",
    "b[[0]] = torch.ones(1, 2, 4)",
    "b[::-1] = 0",
    "b[5] = 0",
    "b[[5]] = 0",
    "b[0, 0, 0] = 0",
    "b[[0]] = torch.tensor([2.0], dtype=torch.float64)",
    "b[0] = 'a'",
    "b[0] = None",
    "b[0] = 1e40",
    # in-place operations on views of a tensor in the graph
    "b[1:].mul_(y)",
    "b[1:].mul_(2)",
    "b[0][1:].add_(y[:3])",
    "b.t()[1].mul_(y[:3])",
    "b[:, 1].exp_()",
    "b[0].copy_(y)",
    "b[0].zero_()",
    "b[0].fill_(3)",
    "b[0].masked_fill_(y > 15, 0.5)",
    "b[0].clamp_(0, 2)",
    "b[0].sqrt_()",
    "b[0].pow_(2)",
    "b[1].sub_(y, alpha=2)",
    "b[0].unsqueeze(0).mul_(y)",
    "b.view(2, 6)[1].mul_(3)",
    "b[0][[1, 2]] = y[:2]",
    # views taken before an in-place change see it
    "v = b[0]; b.mul_(2); b = v",
    "v = b[1]; b[0] = y; b = b + v",
    "v = b[:, 1:]; v[0] = y[:3]; b = b * v.sum()",
    "v = b.t(); b[1] = y; b = v * 1",
    "v = b[0]; b[0, 1] = 7; b = v.expand(2, 4)",
]


def _setitem_outcome(lib: Any, code: str) -> Any:
    x = leaf(lib, [float(v) for v in range(12)], (3, 4))
    y = lib.tensor([10.0, 20.0, 30.0, 40.0], requires_grad=True)
    env = {"torch": lib, "x": x, "y": y, "b": x * 1}
    try:
        exec(code, env)  # noqa: S102
    except Exception as error:  # noqa: BLE001 - the error is the outcome
        return (type(error).__name__, str(error)), None, None, None
    b = env["b"]
    weight = lib.tensor([float(i + 1) for i in range(b.numel())]).reshape(
        tuple(b.shape)
    )
    (b * weight).sum().backward()
    return graph(b.grad_fn), b, x.grad, y.grad


@pytest.mark.parametrize("code", SETITEM)
def test_setitem_and_inplace_views_match_torch(code: str) -> None:
    torch = require_torch()
    ours = _setitem_outcome(st, code)
    theirs = _setitem_outcome(torch, code)
    assert ours[0] == theirs[0]
    for mine, other in zip(ours[1:], theirs[1:]):
        assert (mine is None) == (other is None)
        if other is not None:
            assert_same(mine, other, rtol=1e-6, atol=1e-6)


SETITEM_DTYPES = [
    "i[0] = 1.7",
    "i[[1]] = 2.9",
    "i[0] = torch.tensor(2.5)",
    "i[0] = True",
    "i[0:2] = torch.tensor([1.5, 2.5])",
    "i[i == 0] = -1.5",
    "i[0] = 2**70",
    "i[0] = float('nan')",
    "f[[1]] = torch.tensor([2], dtype=torch.long)",
    "f[0] = float('inf')",
    "f[[0]] = 1e40",
    "bo[0] = 5",
    "bo[[1]] = 0.5",
    "f[torch.tensor([True, False, True])] = torch.tensor([5., 6.])",
    "f[torch.tensor([True, False, True])] = torch.tensor([5., 6., 7.])",
    "f[:2] = [1, 2]",
    "i.add_(1.5)",
    "e.add_(1)",
    "e[0] = 1",
]


@pytest.mark.parametrize("code", SETITEM_DTYPES)
def test_setitem_casts_and_errors_match_torch(code: str) -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        env = {
            "torch": lib,
            "i": lib.zeros(3, dtype=lib.int64),
            "f": lib.zeros(3),
            "bo": lib.zeros(3, dtype=lib.bool),
            "e": lib.zeros(3).expand(2, 3),
        }
        try:
            exec(code, env)  # noqa: S102
            results.append([env[name].tolist() for name in ("i", "f", "bo", "e")])
        except Exception as error:  # noqa: BLE001 - the error is the outcome
            # A failed assignment leaves every tensor unchanged.
            assert env["i"].tolist() == [0, 0, 0] and env["f"].tolist() == [0, 0, 0]
            results.append([type(error).__name__, str(error)])
    assert results[0] == results[1]


def test_setitem_on_leaf_errors_like_torch() -> None:
    torch = require_torch()
    for code in ["x[0] = 1", "x[[0]] = 1", "x[:] = 1", "x[0].mul_(2)"]:
        outcomes = []
        for lib in (st, torch):
            x = lib.ones(2, 2, requires_grad=True)
            try:
                exec(code, {"x": x})  # noqa: S102
                outcomes.append(None)
            except RuntimeError as error:
                outcomes.append(str(error))
            assert x.tolist() == [[1.0, 1.0], [1.0, 1.0]]
        assert outcomes[0] == outcomes[1] and outcomes[0] is not None


def test_setitem_without_grad_on_leaf_is_allowed() -> None:
    x = st.ones(2, 2, requires_grad=True)
    with st.no_grad():
        x[0] = 5
    assert x.tolist() == [[5.0, 5.0], [1.0, 1.0]]
    assert x.is_leaf


def test_setitem_makes_a_plain_tensor_part_of_the_graph() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        y = lib.tensor([1.0, 2.0], requires_grad=True)
        z = lib.zeros(3, 2)
        z[1] = y * 3
        z[[0, 2], [1, 1]] = y
        (z * lib.arange(6.0).reshape(3, 2)).sum().backward()
        results.append((z.grad_fn.name(), z.is_leaf, y.grad.tolist()))
    assert results[0] == results[1]


def test_copyslices_double_backward_matches_torch() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = x * 1
        b[1:].mul_(x[:2])
        (g,) = lib.autograd.grad((b * b).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        results.append((g.tolist(), gg.tolist()))
    assert results[0] == results[1]


def test_saved_tensor_changed_through_a_view_is_detected() -> None:
    x = st.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1
    e = b.exp()  # saves its result
    e[0].mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        e.sum().backward()


# ----------------------------------------------------------------------
# Property tests
# ----------------------------------------------------------------------


@st_.composite
def index_cases(draw: Any) -> tuple[tuple[int, ...], tuple[Any, ...]]:
    """A random shape and a random mix of basic and advanced index items."""
    shape = tuple(draw(st_.lists(st_.integers(1, 4), min_size=1, max_size=4)))
    items: list[Any] = []
    dim = 0
    while dim < len(shape) and len(items) < 5:
        size = shape[dim]
        kind = draw(st_.sampled_from(["int", "slice", "none", "list", "mask", "stop"]))
        if kind == "stop":
            break
        if kind == "int":
            items.append(draw(st_.integers(-size, size - 1)))
        elif kind == "slice":
            start = draw(st_.none() | st_.integers(-size - 1, size + 1))
            stop = draw(st_.none() | st_.integers(-size - 1, size + 1))
            step = draw(st_.none() | st_.integers(1, 3))
            items.append(slice(start, stop, step))
        elif kind == "none":
            items.append(None)
            continue
        elif kind == "list":
            n = draw(st_.integers(1, 3))
            items.append(
                draw(st_.lists(st_.integers(-size, size - 1), min_size=n, max_size=n))
            )
        else:
            items.append(
                ("mask", draw(st_.lists(st_.booleans(), min_size=size, max_size=size)))
            )
        dim += 1
    if draw(st_.booleans()):
        items.insert(draw(st_.integers(0, len(items))), Ellipsis)
    return shape, tuple(items)


def _materialize(lib: Any, items: tuple[Any, ...]) -> tuple[Any, ...]:
    out = []
    for item in items:
        if isinstance(item, tuple):
            out.append(lib.tensor(item[1]))
        else:
            out.append(item)
    return tuple(out)


@given(index_cases())
def test_random_indexing_matches_torch(
    case: tuple[tuple[int, ...], tuple[Any, ...]],
) -> None:
    torch = require_torch()
    shape, items = case
    count = 1
    for size in shape:
        count *= size
    values = [float(v) for v in range(count)]
    ours, theirs = leaf(st, values, shape), leaf(torch, values, shape)
    try:
        b = theirs[_materialize(torch, items)]
    except IndexError as error:
        with pytest.raises(IndexError) as caught:
            ours[_materialize(st, items)]
        assert str(caught.value) == str(error)
        return
    a = ours[_materialize(st, items)]
    assert_same(a, b, exact=True)
    assert chain(a) == chain(b)
    if b._base is not None:
        assert a.stride() == b.stride() and a.storage_offset() == b.storage_offset()
    weight = [float(i + 1) for i in range(b.numel())]
    (a * st.tensor(weight).reshape(tuple(b.shape))).sum().backward()
    (b * torch.tensor(weight).reshape(b.shape)).sum().backward()
    assert_same(ours.grad, theirs.grad, exact=True)


@given(index_cases(), st_.integers(-5, 5))
def test_random_assignment_matches_torch(
    case: tuple[tuple[int, ...], tuple[Any, ...]], value: int
) -> None:
    torch = require_torch()
    shape, items = case
    count = 1
    for size in shape:
        count *= size
    values = [float(v) for v in range(count)]
    ours, theirs = st.tensor(values).reshape(shape), torch.tensor(values).reshape(shape)
    try:
        theirs[_materialize(torch, items)] = float(value)
    except IndexError as error:
        with pytest.raises(IndexError) as caught:
            ours[_materialize(st, items)] = float(value)
        assert str(caught.value) == str(error)
        return
    ours[_materialize(st, items)] = float(value)
    assert_same(ours, theirs, exact=True)


def test_index_double_backward_matches_torch() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        picked = x[[0, 0, 2]]
        (g,) = lib.autograd.grad((picked**3).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * lib.tensor([1.0, 2.0, 3.0])).sum(), x)
        results.append((g.tolist(), gg.tolist()))
    assert results[0] == results[1]


def test_stale_view_double_backward_matches_torch() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = x * 1
        column = b[:, 1]
        b[0].mul_(x[1])
        (g,) = lib.autograd.grad((column**2).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        results.append((g.tolist(), gg.tolist()))
    assert results[0] == results[1]


@pytest.mark.parametrize(
    ("shape", "index"),
    [
        ((1, 2, 1, 1), (Ellipsis, 0, None, [1], None, slice(None, 0))),
        ((0, 3), (slice(None), [5])),
    ],
)
def test_out_of_range_index_into_an_empty_result_is_not_read(
    shape: tuple[int, ...], index: tuple[Any, ...]
) -> None:
    """PyTorch checks an index only when it reads it: an empty result reads none."""
    torch = require_torch()
    expected = torch.zeros(*shape)[index]
    got = st.zeros(*shape)[index]
    assert tuple(got.shape) == tuple(expected.shape)


def test_false_and_true_in_setitem_index() -> None:
    def program(lib: Any) -> Any:
        x = lib.zeros(3)
        x[False] = 1.0
        y = lib.zeros(3)
        y[True] = 2.0
        return x, y

    agree(program)


def test_setitem_checks_the_leaf_before_the_index() -> None:
    same_error(
        lambda lib: lib.zeros(2, requires_grad=True).__setitem__(lib.tensor([5]), 1.0)
    )


@pytest.mark.parametrize(
    "statement",
    [
        "x[[0, 1]] = lib.tensor(True)",
        "x[[True, False, True]] = lib.tensor(True)",
        "x[x == 0] = lib.tensor(2)",
        "x[x == 0] = lib.tensor([2])",
        "x[x == 0] = lib.tensor([2, 3, 4])",
        "x[lib.tensor([0, 5])] = lib.tensor(True)",
        "x[[True, False, True]] = lib.tensor([1, 2])",
        "x = lib.zeros(0); x[[0, -1]] = lib.tensor([True])",
    ],
)
def test_setitem_with_another_dtype(statement: str) -> None:
    def program(lib: Any) -> Any:
        space = {"lib": lib, "x": lib.zeros(3)}
        try:
            exec(statement, space)
        except Exception as error:  # noqa: BLE001 - the type is compared
            return fuzz._error_kind(error)
        return space["x"]

    agree(program)


def test_index_put_into_an_expanded_tensor_holding_nan() -> None:
    def program(lib: Any) -> Any:
        base = lib.tensor([[nan, 1.0], [2.0, nan]])
        x = base.unsqueeze(0).expand(2, 2, 2)
        x[[[0], [0]]] = -1.0
        return base

    agree(program)


def test_setitem_on_a_view_of_a_leaf_checks_the_leaf_first() -> None:
    def make(lib: Any) -> None:
        x = lib.zeros(2, 0, requires_grad=True)
        x[:, :][[[0], [0]]] = lib.tensor(1.0, dtype=lib.float64)

    same_error(make, match_message=False)


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


# ---------------------------------------------------------------- range indices


@pytest.mark.parametrize(
    "call",
    [
        lambda L, x: x[range(3), L.tensor([0, 2, 1])],
        lambda L, x: x[range(3)],
        lambda L, x: x[range(1, 3), 0],
        lambda L, x: x[:, range(0, 4, 2)],
        lambda L, x: x[range(0)],
    ],
)
def test_range_indexes_like_a_list(call: Callable[[Any, Any], Any]) -> None:
    def run(L: Any) -> Any:
        x = L.arange(12.0).view(3, 4).requires_grad_()
        result = call(L, x)
        result.sum().backward()
        return result, x.grad

    (ours, our_grad), (theirs, their_grad) = both(run)
    assert_same(ours, theirs)
    assert_same(our_grad, their_grad)


def test_range_index_assignment() -> None:
    def run(L: Any) -> Any:
        x = L.zeros(3, 3)
        x[range(3), range(3)] = 1.0
        return x

    assert_same(*both(run))
