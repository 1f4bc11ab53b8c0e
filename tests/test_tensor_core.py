"""The tensor core: index maths, storage sharing, conversions, devices.

The index-maths tests need no torch; the parity tests compare with it.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st_

import slowtorch_lib as st
from slowtorch_lib._strides import (
    broadcast_shapes,
    contiguous_strides,
    index_to_position,
    normalize_dim,
    normalize_dims,
    numel,
    position_list,
    strided_values,
)
from tests.parity import both, require_torch, same_error

shapes = st_.lists(st_.integers(min_value=0, max_value=4), min_size=0, max_size=4).map(
    tuple
)


def test_contiguous_strides_examples() -> None:
    assert contiguous_strides((2, 3, 4)) == (12, 4, 1)
    assert contiguous_strides((5,)) == (1,)
    assert contiguous_strides(()) == ()
    assert contiguous_strides((2, 0, 3)) == (3, 3, 1)


@given(shapes)
def test_contiguous_strides_match_torch(shape: tuple[int, ...]) -> None:
    torch = require_torch()
    assert contiguous_strides(shape) == torch.zeros(shape).stride()


@given(shapes)
def test_position_list_of_contiguous_tensor_counts_up(shape: tuple[int, ...]) -> None:
    assert position_list(shape, contiguous_strides(shape), 0) == list(
        range(numel(shape))
    )


def test_position_list_of_transpose() -> None:
    # A 2x3 row-major matrix read as its 3x2 transpose.
    assert position_list((3, 2), (1, 3), 0) == [0, 3, 1, 4, 2, 5]
    assert position_list((2,), (2,), 1) == [1, 3]


def test_strided_values_gathers_a_view() -> None:
    data = [10, 11, 12, 13, 14, 15]
    assert strided_values(data, (3, 2), (1, 3), 0) == [10, 13, 11, 14, 12, 15]
    assert strided_values(data, (2,), (2,), 1) == [11, 13]
    assert strided_values(data, (), (), 4) == [14]
    assert strided_values(data, (1,), (5,), 2) == [12]
    assert strided_values(data, (2, 0), (1, 1), 0) == []
    assert strided_values(data, (2, 3), (0, 0), 3) == [13] * 6


@given(shapes)
def test_strided_values_of_contiguous_view_is_the_data(shape: tuple[int, ...]) -> None:
    data = list(range(numel(shape)))
    assert strided_values(data, shape, contiguous_strides(shape), 0) == data


def test_index_to_position() -> None:
    assert index_to_position((1, 2), (3, 1)) == 5
    assert index_to_position((1, 2), (1, 2), offset=4) == 9
    assert index_to_position((), (), offset=7) == 7


def test_broadcast_shapes_rules() -> None:
    assert broadcast_shapes((3, 1), (4,)) == (3, 4)
    assert broadcast_shapes((), (2, 2)) == (2, 2)
    assert broadcast_shapes((1,), (0,)) == (0,)
    with pytest.raises(
        RuntimeError, match=r"size of tensor a \(3\) must match .* b \(2\)"
    ):
        broadcast_shapes((2, 3), (2,))


@given(shapes, shapes)
def test_broadcast_shapes_match_torch(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    torch = require_torch()
    try:
        expected = tuple(torch.broadcast_shapes(a, b))
    except RuntimeError:
        with pytest.raises(RuntimeError):
            broadcast_shapes(a, b)
        return
    assert broadcast_shapes(a, b) == expected
    assert tuple(st.broadcast_shapes(a, b)) == expected


def test_normalize_dim() -> None:
    assert normalize_dim(-1, 3) == 2
    assert normalize_dim(0, 0) == 0 and normalize_dim(-1, 0) == 0
    with pytest.raises(
        IndexError, match=r"expected to be in range of \[-2, 1\], but got 2"
    ):
        normalize_dim(2, 2)
    assert normalize_dims(None, 3) == (0, 1, 2)
    assert normalize_dims((-1, 0), 3) == (2, 0)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        normalize_dims((1, -2), 3)


def test_views_share_storage_and_version() -> None:
    base = st.zeros(2, 3)
    view = base.T
    assert view.untyped_storage() is base.untyped_storage()
    view[2, 1] = 5.0
    assert base.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 5.0]]
    assert base._version == view._version == 1


def test_float32_storage_rounds_like_torch() -> None:
    assert st.tensor(16777217.0).item() == 16777216.0
    assert st.tensor(0.1).item() == 0.10000000149011612
    assert st.tensor(0.1, dtype=st.float64).item() == 0.1
    assert st.tensor([1e39]).item() == float("inf")


def test_conversions_and_errors_match_torch() -> None:
    torch = require_torch()
    for make in (
        lambda m: m.tensor([[1.5, 2.0], [3.0, 4.0]]),
        lambda m: m.tensor([True, False]),
    ):
        ours, theirs = make(st), make(torch)
        assert ours.tolist() == theirs.tolist()
        assert len(ours) == len(theirs)
        assert [t.tolist() for t in ours] == [t.tolist() for t in theirs]
        assert ours.type() == theirs.type()
        assert ours.element_size() == theirs.element_size()
    assert st.tensor(2).item() == 2 and isinstance(st.tensor(2).item(), int)
    assert st.tensor(True).item() is True
    assert st.zeros(2, 0, 3).tolist() == torch.zeros(2, 0, 3).tolist()
    assert st.zeros(0, 2).tolist() == torch.zeros(0, 2).tolist()
    cases = [
        (lambda m: len(m.tensor(1.0)), TypeError),
        (lambda m: iter(m.tensor(1.0)), TypeError),
        (lambda m: bool(m.tensor([1.0, 2.0])), RuntimeError),
        (lambda m: bool(m.tensor([])), RuntimeError),
        (lambda m: int(m.tensor([1.5, 2.0])), ValueError),
        (lambda m: m.tensor([1.0, 2.0]).item(), RuntimeError),
        (lambda m: m.tensor([1.5]).__index__(), TypeError),
        (lambda m: m.zeros(2, 3).size(2), IndexError),
        (lambda m: m.zeros(2, 3).stride(-3), IndexError),
    ]
    for case, error in cases:
        with pytest.raises(error) as theirs_info:
            case(torch)
        with pytest.raises(error) as ours_info:
            case(st)
        assert str(ours_info.value) == str(theirs_info.value)


def test_device_is_cpu_only() -> None:
    x = st.zeros(2)
    assert repr(x.device) == "device(type='cpu')" and str(x.device) == "cpu"
    assert x.to("cpu") is x
    with pytest.raises(AssertionError, match="CPU only"):
        st.zeros(2, device="cuda")
    with pytest.raises(
        RuntimeError, match="device type at start of device string: tpu"
    ):
        st.zeros(2, device="tpu")


def test_requires_grad_rules_match_torch() -> None:
    torch = require_torch()
    for module in (torch, st):
        with pytest.raises(RuntimeError, match="only Tensors of floating point"):
            module.tensor([1, 2]).requires_grad_()
        x = module.ones(2, requires_grad=True)
        y = x * 2
        assert x.is_leaf and not y.is_leaf and y.requires_grad
        with pytest.raises(
            RuntimeError, match="only change requires_grad flags of leaf"
        ):
            y.requires_grad_(False)


# ----------------------------------------------------------------------
# No hidden state; pickle
# ----------------------------------------------------------------------


def test_tensor_has_only_declared_attributes() -> None:
    x = st.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2)[0]
    for tensor in (x, y):
        assert not hasattr(tensor, "__dict__")
        with pytest.raises(AttributeError):
            tensor.some_new_attribute = 1  # type: ignore[attr-defined]


def test_engine_nodes_keep_their_bookkeeping_in_slots() -> None:
    x = st.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # Exp keeps nothing but its saved result
    node = y.grad_fn
    accumulator = node.next_functions[0][0]
    assert not hasattr(accumulator, "__dict__")
    y.retain_grad()
    y.register_hook(lambda g: g)
    node.register_hook(lambda gi, go: None)
    # The engine's own state is declared: a Function's ctx may still carry
    # the values forward stores on it, but nothing else.
    assert vars(node) == {}


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.tensor([[1.5, -2.0], [3.0, 4.25]]),
        lambda L: L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True),
        lambda L: L.tensor([[1, 2, 3]]),
        lambda L: L.tensor([True, False]),
        lambda L: L.tensor(7.0),
        lambda L: L.arange(6.0).view(2, 3).t(),
        lambda L: L.arange(6.0)[2:5],
        lambda L: L.tensor([1.0, 2.0], requires_grad=True) * 2,  # non-leaf
        lambda L: L.zeros(0, 3),
    ],
    ids=[
        "matrix",
        "float64-leaf",
        "int64",
        "bool",
        "0-d",
        "transpose",
        "slice",
        "non-leaf",
        "empty",
    ],
)
def test_pickle_round_trip_matches_torch(make: Any) -> None:
    import pickle

    torch = require_torch()

    def facts(tensor: Any) -> tuple[Any, ...]:
        return (
            tensor.tolist(),
            str(tensor.dtype),
            tuple(tensor.shape),
            tensor.requires_grad,
            tensor.is_leaf,
            tensor.grad_fn is None,
            tensor.stride(),
            tensor.storage_offset(),
        )

    ours = pickle.loads(pickle.dumps(make(st)))
    theirs = pickle.loads(pickle.dumps(make(torch)))
    assert facts(ours) == facts(theirs)


def test_pickle_keeps_shared_storage_and_drops_grad() -> None:
    import pickle

    x = st.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    a, b = pickle.loads(pickle.dumps((x, x[1:])))
    assert a.grad is None and a.requires_grad and a.is_leaf
    with st.no_grad():
        a[1] = 10.0
    assert b.tolist() == [10.0, 3.0]


def test_pickle_of_dtypes_gives_the_same_objects() -> None:
    import pickle

    for d in (st.float32, st.float64, st.int64, st.bool, st.float, st.long):
        assert pickle.loads(pickle.dumps(d)) is d


def test_deepcopy_matches_torch() -> None:
    import copy

    def run(L: Any) -> tuple[Any, ...]:
        a = L.tensor([1.0, 2.0], requires_grad=True)
        a.grad = L.tensor([3.0, 3.0])
        b = copy.deepcopy(a)
        v = L.arange(4.0)
        c, d = copy.deepcopy((v, v[1:]))
        c[1] = 9.0
        return (
            b.tolist(),
            b.grad.tolist(),
            b.requires_grad,
            b.grad is a.grad,
            d.tolist(),
            d.storage_offset(),
            v.tolist(),
        )

    ours, theirs = both(run)
    assert ours == theirs
    message = same_error(
        lambda L: copy.deepcopy(L.tensor([1.0], requires_grad=True) * 2)
    )
    assert message.startswith("Only Tensors created explicitly by the user")
