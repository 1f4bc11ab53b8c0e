"""The API added in issue 6 against PyTorch: values, dtypes, return types,
edge cases (empty, 0-d, negative dims, ties, special values), errors, and
second derivatives.

Gradients, ``grad_fn`` names and finite differences of the differentiable
ops are checked by the op table (``tests/op_table.py``); this file covers
the rest. Every check runs the same code on both libraries (``lib`` is
``slowtorch_lib`` or ``torch``) and compares what comes out, or the type
and message of the exception.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest

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
    for a, b in zip(_flat(ours.tolist()), _flat(theirs.tolist())):
        if isinstance(b, float) and b == 0:
            assert math.copysign(1, a) == math.copysign(1, b), (a, b)


def _flat(values: Any) -> list[Any]:
    if not isinstance(values, list):
        return [values]
    return [v for item in values for v in _flat(item)]


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


# ----------------------------------------------------------------------
# Rounding, special values, log1p
# ----------------------------------------------------------------------

ROUNDING = {
    "floor": lambda lib, x: lib.floor(x),
    "ceil": lambda lib, x: x.ceil(),
    "trunc": lambda lib, x: lib.trunc(x),
    "fix": lambda lib, x: lib.fix(x),
    "round": lambda lib, x: lib.round(x),
    "round_method": lambda lib, x: x.round(),
    "isinf": lambda lib, x: lib.isinf(x),
    "isfinite": lambda lib, x: x.isfinite(),
    "nan_to_num": lambda lib, x: lib.nan_to_num(x),
    "nan_to_num_args": lambda lib, x: x.nan_to_num(1.5, posinf=2.0, neginf=-7.0),
    "nan_to_num_nan_only": lambda lib, x: lib.nan_to_num(x, nan=-1.0),
    "log1p": lambda lib, x: lib.log1p(x),
}


@pytest.mark.parametrize("name", list(ROUNDING))
@pytest.mark.parametrize("dtype", DTYPES)
def test_rounding_and_special_values(name: str, dtype: str) -> None:
    op = ROUNDING[name]
    values = SPECIAL if dtype.startswith("float") else VALUES[dtype]
    exact = name != "log1p"
    check(lambda lib: op(lib, lib.tensor(values, dtype=getattr(lib, dtype))), exact)


@pytest.mark.parametrize("name", list(ROUNDING))
def test_rounding_keeps_shape_of_0d_empty_and_strided(name: str) -> None:
    op = ROUNDING[name]
    check(lambda lib: op(lib, lib.tensor(-2.5)))
    check(lambda lib: op(lib, lib.zeros(2, 0)))
    check(lambda lib: op(lib, lib.tensor(grid(1, (3, 4))).t()), exact=name != "log1p")


@pytest.mark.parametrize("decimals", [-3, -1, 0, 1, 2, 3, 5])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_round_decimals_matches_torch_bit_for_bit(decimals: int, dtype: str) -> None:
    rng = random.Random(decimals)
    values = [rng.uniform(-1000, 1000) for _ in range(300)] + SPECIAL
    values += [0.125, 0.375, 2.675, 1.005, -0.045, 1234.5678]
    check(
        lambda lib: lib.round(
            lib.tensor(values, dtype=getattr(lib, dtype)), decimals=decimals
        )
    )


def test_round_decimals_beyond_the_range_of_floats() -> None:
    values = [0.0, 1.5, -2.25, inf, nan]
    for decimals in (-400, -309, -39, -38, 38, 39, 308, 309, 400):
        for dtype in ("float32", "float64"):
            check(
                lambda lib: lib.tensor(values, dtype=getattr(lib, dtype)).round(
                    decimals=decimals
                )
            )


def test_round_decimals_errors_and_integer_rounding() -> None:
    check(lambda lib: lib.round(lib.tensor([15, 25]), decimals=-1))
    check(lambda lib: lib.tensor([True]).round())
    check(lambda lib: lib.tensor([True]).floor())
    check(lambda lib: lib.ceil(lib.tensor([False])))
    check(lambda lib: lib.trunc(lib.tensor([True])))


def test_log1p_is_accurate_near_zero_and_promotes_integers() -> None:
    check(lambda lib: lib.log1p(lib.tensor([1e-10, -1e-12, 1e-300], dtype=lib.float64)))
    check(lambda lib: lib.tensor([1, 2, 0]).log1p(), exact=False)
    check(lambda lib: lib.tensor([True, False]).log1p(), exact=False)


def test_rounding_ops_have_zero_gradients_and_torch_names() -> None:
    torch = require_torch()
    for name in ("floor", "ceil", "trunc", "round"):
        for lib in (st, torch):
            x = lib.tensor([0.3, -1.7], requires_grad=True)
            y = getattr(x, name)()
            (y * lib.tensor([2.0, inf])).sum().backward()
            assert x.grad.tolist() == [0.0, 0.0]
        ours = getattr(st.tensor([1.5], requires_grad=True), name)()
        theirs = getattr(torch.tensor([1.5], requires_grad=True), name)()
        assert ours.grad_fn.name() == theirs.grad_fn.name()
    # Passing decimals at all (even 0) is the other overload.
    for lib_name, lib in (("st", st), ("torch", torch)):
        x = lib.tensor([1.25], requires_grad=True)
        assert x.round(decimals=0).grad_fn.name() == "RoundBackward1", lib_name
        assert x.round().grad_fn.name() == "RoundBackward0", lib_name


def test_nan_to_num_gradient_is_zero_where_replaced() -> None:
    torch = require_torch()
    grads = []
    for lib in (st, torch):
        x = lib.tensor([1.0, 0.0, -1.0, 2.0], requires_grad=True)
        y = (x.log() * 3).nan_to_num()
        y.sum().backward()
        grads.append(x.grad)
    assert_same(grads[0], grads[1])


# ----------------------------------------------------------------------
# cumsum
# ----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_dtypes(dtype: str) -> None:
    def run(lib: Any) -> Any:
        x = lib.tensor([VALUES[dtype], VALUES[dtype][::-1]], dtype=getattr(lib, dtype))
        return x.cumsum(1), lib.cumsum(x, 0), x.cumsum(-1, dtype=lib.float64)

    check(run, exact=dtype != "float32")


def test_cumsum_float32_is_summed_in_double_then_rounded() -> None:
    values = [0.1] * 50 + [1e8, 1.0, -1e8, 0.3] * 10
    check(lambda lib: lib.tensor(values).cumsum(0))


def test_int64_sums_wrap_around_as_in_torch() -> None:
    big = 2**62
    check(lambda lib: lib.tensor([big, big, big, -big]).cumsum(0))
    check(lambda lib: lib.tensor([[big], [-big]]).cumsum(0, dtype=lib.int64))
    check(
        lambda lib: lib.tensor([big, 1]).scatter_add(
            0, lib.tensor([0, 0]), lib.tensor([big, big])
        )
    )
    check(lambda lib: lib.tensor([3e38, 3e38]).cumsum(0))


def test_cumsum_edge_cases() -> None:
    check(lambda lib: lib.tensor(3.5).cumsum(0))
    check(lambda lib: lib.tensor(3.5).cumsum(-1))
    check(lambda lib: lib.zeros(2, 0, 3).cumsum(1))
    check(lambda lib: lib.zeros(2, 0, 3).cumsum(2))
    check(
        lambda lib: lib.tensor(grid(2, (3, 4, 2))).permute(2, 0, 1).cumsum(1),
        exact=False,
    )
    check(lambda lib: lib.tensor([inf, -inf, 1.0, nan, 2.0]).cumsum(0))
    check(lambda lib: lib.ones(2, 3).cumsum(2))
    check(lambda lib: lib.cumsum(lib.ones(2, 3), -3))
    check(lambda lib: lib.cumsum(lib.ones(2)), message=False)


# ----------------------------------------------------------------------
# sort, argsort, topk
# ----------------------------------------------------------------------


def _is_sorting_permutation(x: Any, values: Any, indices: Any, dim: int) -> None:
    """The indices are a permutation along ``dim`` that reads the values."""
    torch = require_torch()
    ours_x = torch.tensor(x.tolist(), dtype=torch.float64)
    idx = torch.tensor(indices.tolist(), dtype=torch.int64)
    assert ours_x.gather(dim, idx).tolist() == torch.tensor(values.tolist()).tolist()
    counted = torch.zeros_like(idx).scatter_add(dim, idx, torch.ones_like(idx))
    assert bool((counted == 1).all())


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_with_ties(shape: tuple[int, ...], descending: bool) -> None:
    torch = require_torch()
    nested = grid(sum(shape), shape, -2, 2)
    flat = [float(round(v)) for v in _flat(nested)]  # many ties

    def make(lib: Any) -> Any:
        return lib.tensor(flat).reshape(shape)

    for dim in range(-len(shape), len(shape)):
        ours = st.sort(make(st), dim, descending)
        theirs = torch.sort(make(torch), dim, descending)
        assert_same(ours.values, theirs.values)
        _is_sorting_permutation(make(st), ours.values, ours.indices, dim)
        # With stable=True the indices are unique, and equal to torch's.
        check(
            lambda lib: lib.sort(make(lib), dim=dim, descending=descending, stable=True)
        )
        check(
            lambda lib: make(lib).argsort(dim=dim, descending=descending, stable=True)
        )


def test_sort_special_values_and_dtypes() -> None:
    check(
        lambda lib: lib.tensor([3.0, nan, -inf, 1.0, nan, inf, -0.0]).sort(stable=True)
    )
    check(lambda lib: lib.tensor([3.0, nan, -inf, 1.0, inf]).sort(descending=True))
    check(lambda lib: lib.tensor([5, -2, 9, 0]).sort())
    check(lambda lib: lib.tensor([True, False, True]).sort(stable=True))
    check(lambda lib: lib.tensor([3.0, nan, 1.0]).argsort())
    check(lambda lib: lib.tensor([5, -2, 9, 0]).argsort(descending=True))


def test_sort_edge_cases() -> None:
    check(lambda lib: lib.tensor(2.5).sort())
    check(lambda lib: lib.tensor(2.5).sort(0))
    check(lambda lib: lib.tensor(2.5).argsort())
    check(lambda lib: lib.zeros(3, 0).sort(1))
    check(lambda lib: lib.zeros(0, 3).sort(0))
    check(lambda lib: lib.tensor(grid(4, (3, 4))).t().sort(0))
    check(lambda lib: lib.tensor(grid(5, (3, 4)))[:, 1:3].sort(descending=True))
    check(lambda lib: lib.ones(2, 3).sort(2))
    check(lambda lib: lib.ones(2, 3).argsort(-3))


def test_sort_and_topk_return_named_tuples_like_torch() -> None:
    torch = require_torch()
    for name, call in (
        ("sort", lambda lib: lib.tensor([3.0, 1.0, 2.0]).sort()),
        ("sort", lambda lib: lib.sort(lib.tensor([[3, 1], [0, 2]]), 0)),
        ("topk", lambda lib: lib.tensor([3.0, 1.0, 2.0]).topk(2)),
        ("topk", lambda lib: lib.topk(lib.tensor([[3.0, 1.0], [0.5, 2.0]]), 1)),
    ):
        ours, theirs = call(st), call(torch)
        assert repr(ours) == repr(theirs)
        assert str(ours) == str(theirs)
        assert repr(ours).startswith(f"torch.return_types.{name}(")
        values, indices = ours
        assert values is ours.values and indices is ours.indices
        assert ours[0] is ours.values and len(ours) == 2
        assert isinstance(ours, tuple)


def test_sort_grad_fn_names_follow_the_overload() -> None:
    torch = require_torch()
    for lib in (st, torch):
        x = lib.tensor([2.0, 1.0], requires_grad=True)
        assert x.sort().values.grad_fn.name() == "SortBackward0"
        assert x.sort(descending=True).values.grad_fn.name() == "SortBackward0"
        assert x.sort(stable=False).values.grad_fn.name() == "SortBackward1"
        assert x.sort(stable=True).values.grad_fn.name() == "SortBackward1"
        assert x.sort().indices.grad_fn is None
        assert not x.sort().indices.requires_grad
        assert x.argsort().grad_fn is None
        assert x.topk(1).values.grad_fn.name() == "TopkBackward0"
        assert x.topk(1).indices.grad_fn is None


@pytest.mark.parametrize("k", [0, 1, 3, 5])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_values(k: int, largest: bool) -> None:
    data = [[4.0, -1.0, 7.5, 0.25, 3.0], [nan, 2.0, -inf, inf, 0.0]]
    check(lambda lib: lib.tensor(data).topk(k, largest=largest))
    check(lambda lib: lib.topk(lib.tensor([5, 3, 9, 1, 7]), k, 0, largest))
    if k <= 2:
        check(lambda lib: lib.tensor(data).topk(k, dim=0, largest=largest))


def test_topk_ties_keep_valid_indices() -> None:
    torch = require_torch()
    data = [[1.0, 3.0, 3.0, 2.0, 3.0, 1.0]]
    ours, theirs = st.tensor(data).topk(2), torch.tensor(data).topk(2)
    assert_same(ours.values, theirs.values)
    assert all(data[0][i] == 3.0 for i in ours.indices.tolist()[0])
    assert len(set(ours.indices.tolist()[0])) == 2


def test_topk_errors_and_edges() -> None:
    check(lambda lib: lib.ones(2, 3).topk(4))
    check(lambda lib: lib.ones(2, 3).topk(-1))
    check(lambda lib: lib.ones(2, 3).topk(1, dim=2))
    check(lambda lib: lib.tensor([True, False]).topk(1))
    check(lambda lib: lib.tensor(3.0).topk(1))
    check(lambda lib: lib.tensor(3.0).topk(0))
    check(lambda lib: lib.zeros(2, 0).topk(0))


# ----------------------------------------------------------------------
# gather, scatter, scatter_add
# ----------------------------------------------------------------------

X34 = [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]


def test_gather_values() -> None:
    check(lambda lib: lib.tensor(X34).gather(1, lib.tensor([[3, 0], [1, 1], [2, 0]])))
    check(lambda lib: lib.gather(lib.tensor(X34), 0, lib.tensor([[2, 0, 1, 1]])))
    check(lambda lib: lib.tensor(X34).gather(-1, lib.tensor([[0], [3]])))
    check(lambda lib: lib.tensor(X34).gather(0, lib.tensor([[0]] * 5)))
    check(lambda lib: lib.tensor(X34).t().gather(0, lib.tensor([[2, 1, 0]])))
    check(lambda lib: lib.tensor([[1, 2], [3, 4]]).gather(1, lib.tensor([[1], [0]])))
    check(lambda lib: lib.tensor([[True, False]]).gather(1, lib.tensor([[1, 1, 0]])))


def test_gather_edge_cases() -> None:
    check(lambda lib: lib.tensor(5.0).gather(0, lib.tensor(0)))
    check(lambda lib: lib.tensor(5.0).gather(0, lib.tensor([0, 0])))
    check(lambda lib: lib.tensor([5.0, 6.0]).gather(0, lib.tensor(1)))
    check(lambda lib: lib.tensor(X34).gather(1, lib.zeros(3, 0, dtype=lib.int64)))
    check(lambda lib: lib.ones(2, 0).gather(0, lib.zeros(2, 0, dtype=lib.int64)))


def test_gather_errors() -> None:
    x = X34
    check(lambda lib: lib.tensor(x).gather(0, lib.tensor([[3]])))
    check(lambda lib: lib.tensor(x).gather(0, lib.tensor([[-1]])))
    check(lambda lib: lib.tensor(x).gather(0, lib.tensor([1])))
    check(lambda lib: lib.tensor(x).gather(0, lib.tensor([[0, 0, 0, 0, 0]])))
    check(lambda lib: lib.tensor(x).gather(0, lib.tensor([[0.0]])))
    check(lambda lib: lib.tensor(x).gather(2, lib.tensor([[0]])))
    check(lambda lib: lib.ones(2, 0).gather(1, lib.zeros(2, 1, dtype=lib.int64)))
    check(lambda lib: lib.tensor([1.0, 2.0]).gather(0, lib.tensor([[0]])))


def test_scatter_values() -> None:
    index = [[2, 0, 1, 0], [0, 2, 0, 1]]
    src = [[1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]
    check(lambda lib: lib.tensor(X34).scatter(0, lib.tensor(index), lib.tensor(src)))
    check(
        lambda lib: lib.scatter(
            lib.tensor(X34), 1, lib.tensor([[3], [0]]), lib.tensor(src)
        )
    )
    check(lambda lib: lib.tensor(X34).scatter(0, lib.tensor(index), -1.0))
    check(lambda lib: lib.tensor(X34).scatter(0, lib.tensor(index), value=2))
    check(lambda lib: lib.tensor([[1, 2], [3, 4]]).scatter(1, lib.tensor([[0]]), 2.5))
    check(lambda lib: lib.zeros(2, 3, dtype=lib.bool).scatter(1, lib.tensor([[2]]), 1))
    check(lambda lib: lib.zeros(3).scatter(0, lib.tensor(1), 5.0))
    check(lambda lib: lib.tensor(2.0).scatter(0, lib.tensor([0]), 5.0))
    check(lambda lib: lib.tensor(X34).t().scatter(1, lib.tensor([[1]]), 0.0))


def test_scatter_add_values() -> None:
    index = [[2, 0, 2, 0], [2, 2, 0, 1]]  # repeated places add up
    src = [[1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]
    check(
        lambda lib: lib.tensor(X34).scatter_add(0, lib.tensor(index), lib.tensor(src))
    )
    check(
        lambda lib: lib.scatter_add(
            lib.tensor([[1, 2], [3, 4]]), 1, lib.tensor([[0, 0]]), lib.tensor([[5, 6]])
        )
    )
    check(
        lambda lib: lib.tensor(2.0).scatter_add(
            0, lib.tensor([0, 0]), lib.tensor([5.0, 1.0])
        )
    )
    check(
        lambda lib: lib.zeros(3, dtype=lib.bool).scatter_add(
            0, lib.tensor([0, 0]), lib.tensor([True, True])
        )
    )


def test_scatter_errors() -> None:
    x = X34
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([[3]]), 1.0))
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([[-1]]), 1.0))
    check(
        lambda lib: lib.tensor(x).scatter(0, lib.tensor([[0, 1]]), lib.tensor([[1.0]]))
    )
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([[0]]), lib.tensor([[1]])))
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([0]), 1.0))
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([[0, 1, 2, 0, 1]]), 1.0))
    check(lambda lib: lib.tensor(x).scatter(1, lib.tensor([[0, 1]]), lib.ones(3, 1)))
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([[0.0]]), 1.0))
    check(lambda lib: lib.tensor(x).scatter(2, lib.tensor([[0]]), 1.0))
    check(lambda lib: lib.zeros(2, 3).scatter(0, lib.tensor([[1]]), lib.tensor(7.0)))
    check(lambda lib: lib.tensor(x).scatter_add(0, lib.tensor([[0]]), 1.0))
    check(
        lambda lib: lib.tensor(x).scatter_add(0, lib.tensor([[7]]), lib.tensor([[1.0]]))
    )
    check(
        lambda lib: lib.tensor(x).scatter_add(0, lib.tensor([[0]]), lib.tensor([[1]]))
    )
    check(
        lambda lib: lib.tensor(x).scatter_add(
            0, lib.tensor([[0, 1, 2, 0, 1]]), lib.ones(3, 5)
        )
    )


def test_arguments_of_the_wrong_type() -> None:
    x = X34
    check(lambda lib: lib.gather(lib.tensor(x), 0, [[0]]))
    check(lambda lib: lib.index_select(lib.tensor(x), 0, [0]))
    check(lambda lib: lib.tensor(x).gather(0, [[0]]), message=False)
    check(lambda lib: lib.tensor(x).scatter(0, [[0]], 1.0), message=False)
    check(lambda lib: lib.tensor(x).scatter(0, lib.tensor([[0]])), message=False)
    check(
        lambda lib: lib.tensor(x).scatter_add(0, [[0]], lib.ones(1, 1)), message=False
    )
    check(lambda lib: lib.tensor(x).topk(1.5))


def test_scatter_in_place() -> None:
    def run(lib: Any) -> Any:
        x = lib.tensor(X34)
        y = x.scatter_(1, lib.tensor([[0], [3]]), lib.tensor([[-1.0], [-2.0]]))
        z = lib.tensor(X34).scatter_add_(
            0, lib.tensor([[1, 1]]), lib.tensor([[0.5, 1.5]])
        )
        w = lib.tensor(X34).scatter_(0, lib.tensor([[2]]), value=9.0)
        return x, y is x, z, w

    check(run)


def test_failed_scatter_in_place_changes_nothing() -> None:
    x = st.tensor(X34)
    with pytest.raises(RuntimeError):
        x.scatter_(0, st.tensor([[0, 3], [5, 0]]), 1.0)
    with pytest.raises(RuntimeError):
        x.scatter_add_(0, st.tensor([[0, 1]]), st.tensor([[1]]))
    assert x.tolist() == X34
    assert x._version == 0


def test_scatter_in_place_records_history_like_torch() -> None:
    torch = require_torch()
    grads = []
    for lib in (st, torch):
        x = lib.tensor(X34, requires_grad=True)
        src = lib.tensor([[1.0, 2.0]], requires_grad=True)
        y = x * 2
        y.scatter_(1, lib.tensor([[3, 0]]), src)
        assert y.grad_fn.name() == "ScatterBackward0"
        y.scatter_add_(0, lib.tensor([[2, 2]]), src * 3)
        assert y.grad_fn.name() == "ScatterAddBackward0"
        (y * lib.arange(12.0).reshape(3, 4)).sum().backward()
        grads.append((x.grad, src.grad))
    assert_same(grads[0][0], grads[1][0])
    assert_same(grads[0][1], grads[1][1])


# ----------------------------------------------------------------------
# index_select, masked_select, nonzero
# ----------------------------------------------------------------------


def test_index_select() -> None:
    check(lambda lib: lib.tensor(X34).index_select(1, lib.tensor([3, 0, 3])))
    check(lambda lib: lib.index_select(lib.tensor(X34), -2, lib.tensor([2])))
    check(lambda lib: lib.tensor(X34).index_select(0, lib.tensor(1)))
    check(lambda lib: lib.tensor(X34).t().index_select(0, lib.tensor([1, 0])))
    check(lambda lib: lib.tensor(3.0).index_select(0, lib.tensor([0])))
    check(lambda lib: lib.ones(2, 3).index_select(1, lib.zeros(0, dtype=lib.int64)))
    check(lambda lib: lib.tensor([[1, 2], [3, 4]]).index_select(1, lib.tensor([1])))


def test_index_select_errors() -> None:
    check(lambda lib: lib.tensor(X34).index_select(0, lib.tensor([3])))
    check(lambda lib: lib.tensor(X34).index_select(0, lib.tensor([-1])))
    check(lambda lib: lib.tensor(X34).index_select(0, lib.tensor([[0]])))
    check(lambda lib: lib.tensor(X34).index_select(0, lib.tensor([1.0])))
    check(lambda lib: lib.tensor(X34).index_select(2, lib.tensor([1])))
    check(lambda lib: lib.tensor(3.0).index_select(0, lib.tensor([0, 0])))
    check(lambda lib: lib.tensor(3.0).index_select(0, lib.tensor([1])))
    check(lambda lib: lib.ones(2, 0).index_select(1, lib.zeros(1, dtype=lib.int64)))


def test_masked_select() -> None:
    check(lambda lib: lib.tensor(X34).masked_select(lib.tensor(X34) > 4))
    check(
        lambda lib: lib.masked_select(
            lib.tensor(X34), lib.tensor([True, False, True, False])
        )
    )
    check(
        lambda lib: lib.tensor([1.0, 2.0]).masked_select(lib.tensor([[True], [False]]))
    )
    check(lambda lib: lib.tensor(3.0).masked_select(lib.tensor(True)))
    check(lambda lib: lib.tensor([1, 2, 3]).masked_select(lib.tensor([False] * 3)))
    check(lambda lib: lib.tensor(X34).masked_select(lib.tensor(X34).long()))
    check(lambda lib: lib.tensor(X34).masked_select(lib.tensor([True, False])))
    check(lambda lib: lib.tensor(X34).masked_select(3))


def test_nonzero() -> None:
    data = [[0.0, 1.5, nan], [-0.0, 0.0, -2.0]]
    check(lambda lib: lib.tensor(data).nonzero())
    check(lambda lib: lib.nonzero(lib.tensor(data), as_tuple=True))
    check(lambda lib: lib.tensor([[True, False], [True, True]]).nonzero(as_tuple=True))
    check(lambda lib: lib.tensor([[[0, 3], [4, 0]], [[5, 0], [0, 0]]]).nonzero())
    check(lambda lib: lib.tensor(0).nonzero())
    check(lambda lib: lib.tensor(7).nonzero())
    check(lambda lib: lib.tensor(0).nonzero(as_tuple=True))
    check(lambda lib: lib.tensor(7.0).nonzero(as_tuple=True))
    check(lambda lib: lib.zeros(2, 0).nonzero())
    check(lambda lib: lib.zeros(2, 0).nonzero(as_tuple=True))
    check(lambda lib: lib.tensor(X34).t().nonzero())


def test_nonzero_as_tuple_indexes_the_elements() -> None:
    x = st.tensor([[0.0, 2.0], [3.0, 0.0]])
    assert x[x.nonzero(as_tuple=True)].tolist() == [2.0, 3.0]


# ----------------------------------------------------------------------
# flip, repeat, tril, triu
# ----------------------------------------------------------------------


def test_flip() -> None:
    cube = grid(6, (2, 3, 4))
    for dims in [(0,), (1,), (2,), (-1,), (0, 2), (2, 0, 1), ()]:
        check(lambda lib: lib.flip(lib.tensor(cube), dims))
    check(lambda lib: lib.tensor(cube).flip(1, 2))
    check(lambda lib: lib.tensor(cube).flip(0))
    check(lambda lib: lib.tensor(cube).permute(2, 0, 1).flip(0))
    check(lambda lib: lib.tensor([[True, False]]).flip(1))
    check(lambda lib: lib.tensor(3.0).flip(0))
    check(lambda lib: lib.zeros(0, 2).flip(0))
    check(lambda lib: lib.tensor(cube).flip(3))
    check(lambda lib: lib.tensor(cube).flip(0, 0))


def test_repeat() -> None:
    m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    check(lambda lib: lib.tensor(m).repeat(2, 3))
    check(lambda lib: lib.tensor(m).repeat((1, 2)))
    check(lambda lib: lib.tensor(m).repeat(2, 1, 2))
    check(lambda lib: lib.tensor(m).t().repeat(1, 2))
    check(lambda lib: lib.tensor([1, 2]).repeat(3))
    check(lambda lib: lib.tensor([True, False]).repeat(2, 2))
    check(lambda lib: lib.tensor(3.0).repeat(2, 2))
    check(lambda lib: lib.tensor(3.0).repeat(()))
    check(lambda lib: lib.tensor(m).repeat(0, 1))
    check(lambda lib: lib.zeros(0, 2).repeat(3, 1))
    check(lambda lib: lib.tensor(m).repeat(2))
    check(lambda lib: lib.tensor(m).repeat(-1, 1))


@pytest.mark.parametrize("diagonal", [-3, -1, 0, 1, 2, 5])
def test_tril_triu(diagonal: int) -> None:
    cube = grid(7, (2, 3, 4))
    for name in ("tril", "triu"):
        check(lambda lib: getattr(lib, name)(lib.tensor(cube), diagonal))
        check(lambda lib: getattr(lib.tensor(cube), name)(diagonal=diagonal))
        check(lambda lib: getattr(lib.tensor(cube).transpose(1, 2), name)(diagonal))
        check(lambda lib: getattr(lib.tensor([[1, 2], [3, 4]]), name)(diagonal))
        check(lambda lib: getattr(lib.ones(2, 2, dtype=lib.bool), name)(diagonal))
        check(lambda lib: getattr(lib.tensor([[nan, inf], [nan, 1.0]]), name)(diagonal))
        check(lambda lib: getattr(lib.zeros(0, 3), name)(diagonal))


def test_tril_triu_errors() -> None:
    check(lambda lib: lib.tensor([1.0, 2.0]).tril())
    check(lambda lib: lib.tensor(1.0).triu())


# ----------------------------------------------------------------------
# In-place forms
# ----------------------------------------------------------------------

IN_PLACE = {
    "floor_": lambda x: x.floor_(),
    "ceil_": lambda x: x.ceil_(),
    "round_": lambda x: x.round_(),
    "round_decimals_": lambda x: x.round_(decimals=1),
    "trunc_": lambda x: x.trunc_(),
    "nan_to_num_": lambda x: x.nan_to_num_(),
    "log1p_": lambda x: x.log1p_(),
    "cumsum_": lambda x: x.cumsum_(1),
    "tril_": lambda x: x.tril_(),
    "triu_": lambda x: x.triu_(1),
}


@pytest.mark.parametrize("name", list(IN_PLACE))
def test_in_place_forms(name: str) -> None:
    torch = require_torch()
    data = [[0.3, -1.7, 2.5], [0.0, 4.25, -0.55]]

    def run(lib: Any) -> Any:
        x = lib.tensor(data)
        out = IN_PLACE[name](x)
        return out is x, x

    check(run, exact=name != "log1p_")
    names = []
    for lib in (st, torch):
        x = lib.tensor(data, requires_grad=True)
        y = x * 1
        IN_PLACE[name](y)
        names.append(y.grad_fn.name())
    assert names[0] == names[1]


# ----------------------------------------------------------------------
# allclose, isclose, equal, is_tensor
# ----------------------------------------------------------------------


def test_isclose_and_allclose() -> None:
    a = [1.0, 2.0, inf, -inf, nan, 0.0, 1e-9]
    b = [1.000001, 2.1, inf, inf, nan, 1e-9, 0.0]
    check(lambda lib: lib.isclose(lib.tensor(a), lib.tensor(b)))
    check(lambda lib: lib.tensor(a).isclose(lib.tensor(b), equal_nan=True))
    check(lambda lib: lib.isclose(lib.tensor(a), lib.tensor(b), rtol=0.1, atol=0.0))
    for rtol, atol, equal_nan in [(1e-5, 1e-8, False), (0.1, 0.0, True), (0, 0, True)]:
        for lhs, rhs in [(a, b), (a, a), ([1.0, nan], [1.0, nan]), (b[:2], a[:2])]:
            check(
                lambda lib: lib.allclose(
                    lib.tensor(lhs, dtype=lib.float64),
                    lib.tensor(rhs, dtype=lib.float64),
                    rtol,
                    atol,
                    equal_nan,
                )
            )
    check(lambda lib: lib.tensor([1.0]).allclose(lib.tensor([1.0, 1.0])))
    check(lambda lib: lib.allclose(lib.tensor([1, 2]), lib.tensor([1, 2])))


def test_isclose_errors() -> None:
    check(
        lambda lib: lib.allclose(
            lib.tensor([1.0]), lib.tensor([1.0], dtype=lib.float64)
        )
    )
    check(lambda lib: lib.allclose(lib.tensor([1]), lib.tensor([1.0])))
    check(lambda lib: lib.allclose(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 1.0])))


def test_equal_and_is_tensor() -> None:
    check(lambda lib: lib.equal(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0])))
    check(lambda lib: lib.equal(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.5])))
    check(lambda lib: lib.equal(lib.tensor([1.0]), lib.tensor([1.0, 1.0])))
    check(lambda lib: lib.equal(lib.tensor([1.0]), lib.tensor([1])))
    check(lambda lib: lib.equal(lib.tensor([nan]), lib.tensor([nan])))
    check(
        lambda lib: lib.equal(lib.tensor([0.1]), lib.tensor([0.1], dtype=lib.float64))
    )
    check(lambda lib: lib.tensor(X34).equal(lib.tensor(X34).t().t()))
    check(lambda lib: lib.equal(lib.zeros(0), lib.zeros(0)))
    check(
        lambda lib: (lib.is_tensor(lib.ones(1)), lib.is_tensor(1.0), lib.is_tensor([1]))
    )


# ----------------------------------------------------------------------
# Aliases and methods of existing functions
# ----------------------------------------------------------------------


def test_aliases_subtract_multiply_divide() -> None:
    a = [[1.5, -2.0, 7.0], [0.0, 3.0, -4.5]]
    b = [2.0, -0.5, 3.0]
    check(lambda lib: lib.subtract(lib.tensor(a), lib.tensor(b), alpha=2))
    check(lambda lib: lib.tensor(a).subtract(lib.tensor(b)))
    check(lambda lib: lib.multiply(lib.tensor(a), 3))
    check(lambda lib: lib.tensor(a).multiply(lib.tensor(b)))
    check(lambda lib: lib.divide(lib.tensor(a), lib.tensor(b)))
    check(lambda lib: lib.tensor(a).divide(lib.tensor(b), rounding_mode="floor"))
    check(lambda lib: lib.tensor(a).divide(lib.tensor(b), rounding_mode="trunc"))
    check(lambda lib: lib.tensor([7, -7]).divide(2, rounding_mode="floor"))
    check(lambda lib: lib.tensor([7, -7]).divide(2, rounding_mode="trunc"))
    check(lambda lib: lib.tensor([7, -7]).true_divide(2))
    check(lambda lib: lib.true_divide(lib.tensor([7, -7]), lib.tensor([2, 4])))
    check(lambda lib: lib.tensor(a).divide(2.0, rounding_mode="round"))


def test_methods_of_existing_functions() -> None:
    x = [[1.5, -2.0, 0.0], [nan, 3.0, -0.0]]
    check(lambda lib: lib.tensor([1.5, -2.0, 0.0, -0.0, inf]).sign())
    check(lambda lib: lib.tensor([3, 0, -2]).sign())
    check(lambda lib: lib.tensor(x).logical_and(lib.tensor([True, False, True])))
    check(lambda lib: lib.tensor(x).logical_or(lib.tensor([0, 0, 1])))
    check(lambda lib: lib.tensor(x).logical_xor(lib.tensor(x).t().t()))


def test_bernoulli_method() -> None:
    torch = require_torch()
    for lib in (st, torch):
        p = lib.tensor([[0.0, 1.0], [1.0, 0.0]])
        assert p.bernoulli().tolist() == [[0.0, 1.0], [1.0, 0.0]]
        assert p.bernoulli(1.0).tolist() == [[1.0, 1.0], [1.0, 1.0]]
        assert p.bernoulli(0.0).dtype == p.dtype
        st.manual_seed(0) if lib is st else torch.manual_seed(0)
        half = lib.full((1000,), 0.5, dtype=lib.float64).bernoulli()
        assert 400 < half.sum().item() < 600
    check(lambda lib: lib.tensor([1, 0]).bernoulli(), message=False)


# ----------------------------------------------------------------------
# Second derivatives: the backward passes are tensor operations
# ----------------------------------------------------------------------

SECOND = {
    "gather": lambda lib, x: x.gather(1, lib.tensor([[0, 0, 2], [1, 2, 1]])),
    "scatter": lambda lib, x: (x * 2).scatter(1, lib.tensor([[2], [0]]), x[:, :1] ** 2),
    "scatter_add": lambda lib, x: x.scatter_add(0, lib.tensor([[1, 1, 0]]), x[:1] ** 2),
    "index_select": lambda lib, x: x.index_select(1, lib.tensor([2, 2, 0])),
    "masked_select": lambda lib, x: x.masked_select(lib.tensor([True, False, True])),
    "sort": lambda lib, x: x.sort(1).values,
    "topk": lambda lib, x: x.topk(2, dim=1).values,
    "cumsum": lambda lib, x: x.cumsum(1),
    "flip": lambda lib, x: x.flip(0, 1),
    "repeat": lambda lib, x: x.repeat(2, 2),
    "tril": lambda lib, x: x.tril(),
    "triu": lambda lib, x: x.triu(1),
    "log1p": lambda lib, x: (x * x).log1p(),
    "nan_to_num": lambda lib, x: (x - 0.5).log().nan_to_num(),
    "floor": lambda lib, x: x.floor() * x,
}


@pytest.mark.parametrize("name", list(SECOND))
def test_second_derivatives_match_torch(name: str) -> None:
    """d/dx of (d/dx sum(w * f(x)^2)) . v: needs the backward to be recorded."""
    torch = require_torch()
    data = [[0.9, -1.3, 2.2], [0.4, 1.7, -0.6]]
    results = []
    for lib in (st, torch):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        out = SECOND[name](lib, x)
        weight = lib.arange(1.0, out.numel() + 1, dtype=lib.float64).reshape(out.shape)
        (grad,) = lib.autograd.grad((out * out * weight).sum(), x, create_graph=True)
        assert grad.requires_grad
        (second,) = lib.autograd.grad((grad * grad).sum(), x)
        results.append((grad, second))
    assert_same(results[0][0], results[1][0])
    assert_same(results[0][1], results[1][1])


# ----------------------------------------------------------------------
# Speed: kernels loop over flat lists
# ----------------------------------------------------------------------


def test_kernels_handle_large_tensors_quickly() -> None:
    import time

    x = st.rand(200, 500)
    start = time.perf_counter()
    x.sort(1)
    x.cumsum(0)
    x.gather(1, x.argsort(1))
    x.flip(0, 1).repeat(2, 1).tril()
    x.index_select(0, st.arange(199, -1, -1))
    x.masked_select(x > 0.5)
    x.floor()
    elapsed = time.perf_counter() - start
    assert elapsed < 10, f"100,000-element kernels took {elapsed:.1f} s"


# ----------------------------------------------------------------------
# Random programs: every op on random shapes, dims and strided views
# ----------------------------------------------------------------------


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
