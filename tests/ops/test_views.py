"""Views: shapes, strides, offsets, grad_fn names and errors, compared with PyTorch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st_

import slowtorch_lib as st
from slowtorch_lib.autograd.gradcheck import gradcheck
from slowtorch_lib.ops.views import view_strides
from tests.agree import agree
from tests.parity import (
    assert_same,
    both,
    require_torch,
    same_error,
)

VIEWS = [
    "b.view(12)",
    "b.view(2, -1)",
    "b.view(4, 1, 3)",
    "b.view_as(b)",
    "b.reshape(3, 4)",
    "b.reshape(-1)",
    "b.reshape_as(b)",
    "b.t().reshape(12)",
    "b.t().reshape(2, 6)",
    "b.t().view(4, 3)",
    "b.transpose(0, 1)",
    "b.transpose(-1, 0)",
    "b.permute(1, 0)",
    "b.T",
    "b.mT",
    "b.t()",
    "b[0].T",
    "b[0].t()",
    "b[0, 0].T",
    "b.unsqueeze(0)",
    "b.unsqueeze(-1)",
    "b.unsqueeze(1)",
    "b.unsqueeze(1).squeeze()",
    "b.unsqueeze(1).squeeze(1)",
    "b.unsqueeze(0).unsqueeze(2).squeeze((0, 2))",
    "b.squeeze()",
    "b.squeeze(0)",
    "b[:1].squeeze(0)",
    "b.expand(2, 3, 4)",
    "b[:, :1].expand(3, 5)",
    "b[:, :1].expand(-1, 5)",
    "b.expand_as(b)",
    "b.narrow(0, 1, 1)",
    "b.narrow(1, -2, 2)",
    "b.select(1, 2)",
    "b.select(0, -1)",
    "b.flatten()",
    "b.flatten(0, 0)",
    "b[0].flatten()",
    "b.t().flatten()",
    "b.contiguous()",
    "b.t().contiguous()",
    "b.split(2)[1]",
    "b.split([1, 2])[1]",
    "b.split(3, 1)[1]",
    "b.chunk(2)[0]",
    "b.chunk(3, 1)[1]",
    "b.unbind()[1]",
    "b.unbind(1)[3]",
    "b[1:].t().unsqueeze(0)[0, 1:]",
    "b[0, 0].view(1, 1)",
    "b[0, 0].unsqueeze(0)",
    "b[:, 2:2]",
    "b[5:]",
    "b.t()[:, 1:].reshape(4, 2)",
    "torch.reshape(b, (6, 2))",
    "torch.flatten(b)",
    "torch.squeeze(b)",
    "torch.t(b)",
    "torch.transpose(b, 0, 1)",
    "torch.narrow(b, 0, 0, 2)",
    "b.swapaxes(0, 1)",
    "torch.swapdims(b, 1, 0)",
    "b.transpose_(0, 1)",
    "b.t_()",
    "b.swapaxes_(1, 0)",
    "b.swapdims_(-1, 0)",
    "b[1:].transpose_(0, 1)",
    "b.unsqueeze(0).transpose_(0, 2)[1:]",
]


def _chain(t: Any) -> list[str]:
    names = []
    node = t.grad_fn
    while node is not None and node.next_functions:
        names.append(node.name())
        node = node.next_functions[0][0]
    return names


@pytest.mark.parametrize("code", VIEWS)
def test_view_matches_torch(code: str) -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        x = lib.arange(12.0).reshape(3, 4).requires_grad_()
        b = x * 1
        out = eval(code, {"b": b, "torch": lib})
        weight = lib.arange(float(out.numel())).reshape(tuple(out.shape)) + 1
        (out * weight).sum().backward()
        results.append((out, _chain(out), x.grad))
    (ours, our_chain, our_grad), (theirs, their_chain, their_grad) = results
    assert_same(ours, theirs, exact=True)
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.is_contiguous() == theirs.is_contiguous()
    assert our_chain == their_chain
    assert_same(our_grad, their_grad, exact=True)


VIEW_ERRORS = [
    "x.narrow(0, 2, 2)",
    "x.narrow(0, -4, 1)",
    "x.narrow(0, 1, -1)",
    "x.narrow(2, 0, 1)",
    "x.view(5)",
    "x.view(-1, -1)",
    "x.view(-2, 6)",
    "x.view(0, -1)",
    "x.t().view(12)",
    "x.select(1, 5)",
    "x.select(2, 0)",
    "x.squeeze(2)",
    "x.squeeze((0, 0))",
    "x.unsqueeze(3)",
    "x.flatten(1, 0)",
    "x.permute(0)",
    "x.permute(0, 0)",
    "x.permute(0, 2)",
    "x.split(0)",
    "x.split(-1)",
    "x.split([1, 1])",
    "x.split([4, -1])",
    "x.chunk(0)",
    "x.chunk(-1)",
    "x.expand(2)",
    "x.expand(3, 5)",
    "x.expand(-1, 2, 4)",
    "x.transpose(0, 2)",
    "torch.zeros(2, 2, 2).t()",
    "torch.zeros(3).mT",
    "torch.tensor(1.).unbind()",
    "torch.zeros(0, 4).view(2, 0, -1)",
    "torch.zeros(3).expand(2, 3).add_(1)",
    "x.transpose_(0, 2)",
    "x.unsqueeze(0).t_()",
    "torch.zeros(2, 2, 2).swapdims_(1, -4)",
]


@pytest.mark.parametrize("code", VIEW_ERRORS)
def test_view_errors_match_torch(code: str) -> None:
    torch = require_torch()
    outcomes = []
    for lib in (st, torch):
        try:
            eval(code, {"x": lib.zeros(3, 4), "torch": lib})
            outcomes.append(None)
        except Exception as error:  # noqa: BLE001 - the error is the outcome
            outcomes.append((type(error).__name__, str(error)))
    assert outcomes[1] is not None
    assert outcomes[0] == outcomes[1]


SPLITS = [
    "x.split(2)",
    "x.split(0)",
    "y.split(2)",
    "y.chunk(3)",
    "z.chunk(4)",
    "w.chunk(3)",
    "y.chunk(10)",
    "x.split(3, dim=1)",
    "x.split((3, 1), 1)",
]


@pytest.mark.parametrize("code", SPLITS)
def test_split_shapes_match_torch(code: str) -> None:
    torch = require_torch()
    shapes = []
    for lib in (st, torch):
        env = {
            "x": lib.zeros(3, 4) if "x.split(0)" not in code else lib.zeros(0, 3),
            "y": lib.zeros(5),
            "z": lib.zeros(6),
            "w": lib.zeros(0),
        }
        shapes.append(
            [(tuple(p.shape), p.stride(), p.storage_offset()) for p in eval(code, env)]
        )
    assert shapes[0] == shapes[1]


def test_zero_dim_views_match_torch() -> None:
    torch = require_torch()
    for code in [
        "t.view(1, 1)",
        "t.unsqueeze(0)",
        "t.T",
        "t.flatten()",
        "t.squeeze()",
        "t.squeeze(0)",
        "t.expand(2, 3)",
        "t.reshape(1)",
        "t.view(-1)",
    ]:
        a = eval(code, {"t": st.tensor(1.0)})
        b = eval(code, {"t": torch.tensor(1.0)})
        assert tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride(), code


def test_writing_through_views_changes_the_base() -> None:
    x = st.arange(12).reshape(3, 4)
    x.t()[1, 2] = 100
    assert x[2, 1].item() == 100
    x.view(12)[0] = -1
    x.unsqueeze(0)[0, 1].fill_(7)
    x.narrow(1, 3, 1).zero_()
    assert x.tolist() == [[-1, 1, 2, 0], [7, 7, 7, 0], [8, 100, 10, 0]]
    x[0].add_(1)
    assert x.tolist()[0] == [0, 2, 3, 1]
    assert x._version >= 5


def test_reshape_copies_only_when_it_must() -> None:
    x = st.arange(6.0).reshape(2, 3)
    assert x.reshape(3, 2)._storage is x._storage
    copied = x.t().reshape(6)
    assert copied._storage is not x._storage
    assert copied.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


def test_detach_shares_storage_but_is_no_view() -> None:
    x = st.ones(3, requires_grad=True)
    d = x.detach()
    assert d._base is None and not d.requires_grad
    d.zero_()  # allowed: detached tensors are not views of the leaf
    assert x.tolist() == [0.0, 0.0, 0.0]


def test_failed_inplace_leaves_tensor_unchanged() -> None:
    x = st.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = x * 1
    version = b._version
    with pytest.raises(RuntimeError):
        b[0].add_(st.ones(3))
    with pytest.raises(RuntimeError):
        st.tensor([1, 2]).add_(0.5)
    assert b.tolist() == [[1.0, 2.0], [3.0, 4.0]] and b._version == version


def test_stale_view_gets_as_strided_history_like_torch() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        x = lib.arange(6.0).reshape(2, 3).requires_grad_()
        b = x * 1
        row, col = b[0], b.t()[1]
        b[1].mul_(3)
        out = (row * col[:1]).sum() + col.sum()
        out.backward()
        results.append(
            (row.grad_fn.name(), col.grad_fn.name(), b.grad_fn.name(), x.grad.tolist())
        )
    assert results[0] == results[1]


INPLACE_ERRORS = [
    "b.split(2)[0].mul_(2)",
    "b.unbind()[0].mul_(2)",
    "b.chunk(2)[1].zero_()",
    "b.split([1, 3])[0].add_(1)",
    "x[0].mul_(2)",
    "x.mul_(2)",
    "with torch.no_grad():\n    q = b[0]\nq.mul_(2)",
    "x.transpose_(0, 0)",
    "x.t_()",
    "b.split(2)[0].t_()",
]


@pytest.mark.parametrize("code", INPLACE_ERRORS)
def test_forbidden_inplace_changes_match_torch(code: str) -> None:
    torch = require_torch()
    outcomes = []
    for lib in (st, torch):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        b = x * 1
        try:
            exec(code, {"torch": lib, "x": x, "b": b})  # noqa: S102
            outcomes.append(None)
        except RuntimeError as error:
            outcomes.append(str(error))
        assert b.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert outcomes[1] is not None
    assert outcomes[0] == outcomes[1]


def test_split_pieces_of_plain_tensors_may_change_in_place() -> None:
    z = st.zeros(4)
    z.split(2)[1].add_(1)
    assert z.tolist() == [0.0, 0.0, 1.0, 1.0]


def test_view_made_before_assignment_sees_it_in_backward() -> None:
    # No property of the view is read between the assignment and its use.
    torch = require_torch()
    grads = []
    for lib in (st, torch):
        y = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        z = lib.zeros(2, 3)
        column = z[:, 0]
        z[0] = y * 2
        (column * lib.tensor([5.0, 7.0])).sum().backward()
        grads.append(y.grad.tolist())
    assert grads[0] == grads[1] == [10.0, 0.0, 0.0]


def test_views_of_views_record_their_whole_chain() -> None:
    x = st.zeros(2, 3, 4).requires_grad_()
    y = x[1].t()[2:].unsqueeze(0)
    assert y._base is x
    assert [n for n in _chain(y)] == [
        "UnsqueezeBackward0",
        "SliceBackward0",
        "TBackward0",
        "SelectBackward0",
    ]
    y.sum().backward()
    assert x.grad is not None and x.grad.sum().item() == 6.0


# ----------------------------------------------------------------------
# Property tests: view and reshape against torch
# ----------------------------------------------------------------------


@st_.composite
def strided_cases(draw: Any) -> tuple[list[int], list[int], int, int, list[int]]:
    """A shape, a permutation, a dimension to narrow, and a target shape."""
    shape = draw(st_.lists(st_.integers(0, 4), min_size=0, max_size=4))
    perm = draw(st_.permutations(list(range(len(shape)))))
    narrow_dim = draw(st_.integers(-1, len(shape) - 1))
    unsqueeze_at = draw(st_.integers(-1, len(shape)))
    count = 1
    for size in shape:
        count *= size
    factors: list[int] = []
    rest = count
    while rest > 1:
        f = draw(st_.sampled_from([d for d in range(2, rest + 1) if rest % d == 0]))
        factors.append(f)
        rest //= f
    if count == 0:
        factors = [0]
    for _ in range(draw(st_.integers(0, 2))):
        factors.insert(draw(st_.integers(0, len(factors))), 1)
    return shape, list(perm), narrow_dim, unsqueeze_at, draw(st_.permutations(factors))


def _strided(
    lib: Any, shape: list[int], perm: list[int], narrow_dim: int, unsqueeze_at: int
) -> Any:
    t = lib.arange(float(max(1, _count(shape))))[: _count(shape)].reshape(shape)
    t = t.permute(*perm) if perm else t
    if narrow_dim >= 0 and t.shape[narrow_dim] > 1:
        t = t.narrow(narrow_dim, 1, t.shape[narrow_dim] - 1)
    if unsqueeze_at >= 0:
        t = t.unsqueeze(unsqueeze_at)
    return t


def _count(shape: list[int]) -> int:
    count = 1
    for size in shape:
        count *= size
    return count


@given(strided_cases())
def test_view_and_reshape_agree_with_torch(case: Any) -> None:
    torch = require_torch()
    shape, perm, narrow_dim, unsqueeze_at, _ = case
    ours = _strided(st, shape, perm, narrow_dim, unsqueeze_at)
    theirs = _strided(torch, shape, perm, narrow_dim, unsqueeze_at)
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    count = theirs.numel()
    target = case[4] if count else [0]
    if _count(target) != count:  # narrowed: view the reversed shape instead
        target = list(theirs.shape)[::-1]
    try:
        expected = theirs.view(target)
    except RuntimeError as error:
        with pytest.raises(RuntimeError) as caught:
            ours.view(target)
        assert str(caught.value) == str(error)
        expected = None
    if expected is not None:
        got = ours.view(target)
        assert got.stride() == expected.stride()
        assert_same(got, expected, exact=True)
    reshaped = ours.reshape(target)
    assert_same(reshaped, theirs.reshape(target), exact=True)
    assert reshaped.stride() == theirs.reshape(target).stride()
    # A round trip gives the elements back in the same order.
    assert_same(reshaped.reshape(tuple(theirs.shape)), theirs, exact=True)


@given(strided_cases())
def test_view_strides_is_none_exactly_when_torch_refuses(case: Any) -> None:
    torch = require_torch()
    shape, perm, narrow_dim, unsqueeze_at, target = case
    theirs = _strided(torch, shape, perm, narrow_dim, unsqueeze_at)
    if theirs.numel() == 0:
        target = [0]
    if _count(target) != theirs.numel():
        target = list(theirs.shape)[::-1]
    try:
        expected = theirs.view(target).stride()
    except RuntimeError:
        expected = None
    assert view_strides(tuple(theirs.shape), theirs.stride(), tuple(target)) == expected


def test_a_tensor_transposed_in_place_after_being_saved_is_refused_like_torch() -> None:
    torch = require_torch()
    messages = []
    for lib in (st, torch):
        x = lib.ones(2, 3, requires_grad=True)
        w = x * 1
        s = w.sin()
        w.t_()
        assert w.shape == (3, 2) and w._version == 1
        with pytest.raises(RuntimeError) as error:
            s.sum().backward()
        messages.append(str(error.value).split(". Hint")[0])
    assert messages[0] == messages[1]
    assert "output 0 of T1," in messages[0]


def test_permute_backward_of_a_0d_tensor() -> None:
    def program(lib: Any) -> Any:
        x = lib.tensor(2.0, requires_grad=True)
        y = x.permute([]) * 3
        y.backward()
        return y, x.grad

    agree(program)


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


@pytest.mark.parametrize(
    "source, shape",
    [((), (1,)), ((), (1, 1)), ((), (2, 1)), ((3,), (1, 3)), ((3,), (1, 1, 3))]
    + [((0,), (1, 0)), ((3,), (2, 1, 3)), ((2, 1), (1, 2, 5))],
)
def test_expand_gives_new_dimensions_torchs_strides(source: Any, shape: Any) -> None:
    ours, theirs = both(lambda lib: lib.zeros(source).expand(*shape))
    assert ours.stride() == theirs.stride()
    assert_same(ours, theirs)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(2, 6).unflatten(1, (4, 2)),
        lambda L: L.ones(2, 6).unflatten(1, ()),
        lambda L: L.ones(2, 6).unflatten(2, (2, 3)),
        lambda L: L.unflatten(L.ones(2, 6), -1, [5, -1]),
    ],
)
def test_unflatten_refuses_sizes_that_do_not_fit_as_torch_does(
    call: Callable[[Any], Any],
) -> None:
    same_error(call)


def _grads(lib: Any, make: Any, values: list[float], weights: list[float]) -> Any:
    x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
    view = make(x)
    flat = lib.tensor(weights, dtype=lib.float64)
    (view.reshape(-1) * flat[: view.numel()]).sum().backward()
    return view, x.grad


@pytest.mark.parametrize(
    "make",
    [
        # Overlapping windows: cells read twice get both gradients.
        lambda x: x.as_strided((4, 3), (2, 1)),
        lambda x: x.as_strided((3, 3), (1, 1), 2),
        # Reading a cell the input does not show drops its gradient.
        lambda x: x[3:].as_strided((2, 3), (1, 1), 1),
        # An input showing one cell twice (expanded) shares it evenly.
        lambda x: x[:4].expand(2, 4).as_strided((3, 2), (1, 1)),
        lambda x: x.as_strided((0, 3), (1, 1)),
        lambda x: x.unfold(0, 3, 2),
        lambda x: x.view(2, 5).unfold(1, 2, 1),
        lambda x: x.view(2, 5).unfold(-1, 5, 5),
        lambda x: x.view(2, 5).t().unfold(0, 3, 1),
        lambda x: x.view(2, 5).unfold(0, 0, 1),
        lambda x: x[0].unfold(0, 1, 1),
    ],
)
def test_views_values_strides_and_gradients_match_torch(make: Any) -> None:
    torch = require_torch()
    values = [0.5 * i - 2 for i in range(10)]
    weights = [float(3 * i % 7) for i in range(40)]
    ours, our_grad = _grads(st, make, values, weights)
    theirs, their_grad = _grads(torch, make, values, weights)
    assert_same(ours, theirs, exact=True)
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert_same(our_grad, their_grad, exact=True)


def test_as_strided_is_a_view_writes_show_through() -> None:
    x = st.arange(6.0)
    windows = st.as_strided(x, (2, 3), (3, 1))
    windows[1, 0] = 30.0
    assert x.tolist() == [0.0, 1.0, 2.0, 30.0, 4.0, 5.0]
    assert windows._base is x


def test_as_strided_backward_sums_overlaps() -> None:
    """Each cell's gradient is how many windows read it: 1, 2, 3, 3, 2, 1."""
    x = st.arange(6.0, requires_grad=True)
    x.as_strided((4, 3), (1, 1)).sum().backward()
    assert x.grad.tolist() == [1.0, 2.0, 3.0, 3.0, 2.0, 1.0]


def test_unfold_double_backward() -> None:
    x = st.arange(5.0, requires_grad=True)
    windows = x.unfold(0, 2, 1)
    (grad,) = st.autograd.grad((windows**2).sum(), x, create_graph=True)
    assert grad.tolist() == [0.0, 4.0, 8.0, 12.0, 8.0]
    grad.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 4.0, 4.0, 2.0]


@pytest.mark.parametrize(
    "run",
    [
        lambda L: L.ones(4, 4).as_strided((3, 3), (1, 1, 1)),
        lambda L: L.ones(4, 4).as_strided((3, 3), (-1, 1)),
        lambda L: L.ones(4, 4).as_strided((3, 3), (1, 1), -1),
        lambda L: L.ones(4, 4).as_strided((3, 3), (4, 4), 5),
        lambda L: L.ones(4, 4).as_strided((-1, 3), (4, 4)),
        lambda L: L.ones(4, 4, dtype=L.float64).as_strided((5, 5), (4, 1)),
        lambda L: L.as_strided([1.0], (1,), (1,)),
        lambda L: L.ones(4, 4).unfold(0, 5, 1),
        lambda L: L.ones(4, 4).unfold(0, 2, 0),
        lambda L: L.ones(4, 4).unfold(2, 2, 1),
    ],
)
def test_refusals_match_torch(run: Any) -> None:
    same_error(run)


def test_as_strided_default_offset_is_the_input_offset() -> None:
    ours, theirs = both(lambda L: L.arange(10.0)[4:].as_strided((2,), (1,)))
    assert ours.tolist() == theirs.tolist() == [4.0, 5.0]
