"""Reductions against PyTorch: values, dtypes, ``dim``/``keepdim``, errors,
gradients."""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from tests.agree import agree, gradient
from tests.parity import (
    assert_same,
    both,
    require_torch,
    same_error,
)
from tests.parity_checks import check, grid, inf, nan

NAMES = [
    "sum",
    "mean",
    "prod",
    "max",
    "min",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "var",
    "std",
    "all",
    "any",
]

# Values as nested lists, built into tensors of the named dtype.
BASE = [
    [[-1, 2, 0, 3], [1, -3, 2, 2], [0, 1, -2, 3]],
    [[2, 2, -1, 0], [3, 0, 1, -1], [-2, 1, 1, 0]],
]
INPUTS: dict[str, tuple[Any, str]] = {
    "float32": ([[[v / 2 for v in row] for row in m] for m in BASE], "float32"),
    "float64": ([[[v / 2 for v in row] for row in m] for m in BASE], "float64"),
    "int64": (BASE, "int64"),
    "bool": ([[[v > 0 for v in row] for row in m] for m in BASE], "bool"),
    "nan": ([[1.0, math.nan, 3.0], [2.0, 0.0, -1.0]], "float32"),
    "ties": ([[1.0, 3.0, 3.0], [5.0, 5.0, 0.0]], "float32"),
    "0-d": (2.5, "float32"),
    "empty": (None, "float32"),
}


def build(lib: Any, key: str) -> Any:
    values, dtype_name = INPUTS[key]
    if values is None:
        return lib.zeros(0, 3)
    return lib.tensor(values, dtype=getattr(lib, dtype_name))


def outcome(fn: Callable[[Any], Any], x: Any) -> tuple[Any, BaseException | None]:
    try:
        return fn(x), None
    except Exception as error:  # noqa: BLE001  (compared with torch's)
        return None, error


def assert_same_outcome(ours: Any, theirs: Any) -> None:
    (mine, my_error), (other, their_error) = ours, theirs
    if my_error is not None or their_error is not None:
        assert type(my_error) is type(their_error), (my_error, their_error)
        assert str(my_error) == str(their_error)
        return
    if isinstance(other, tuple):  # torch.return_types.max / min
        assert isinstance(mine, tuple) and len(mine) == 2
        assert_same(mine.values, other.values, rtol=1e-5, atol=1e-6)
        assert_same(mine.indices, other.indices)
        assert_same(mine[0], other[0], rtol=1e-5, atol=1e-6)
    else:
        assert_same(mine, other, rtol=1e-5, atol=1e-6)


def dim_choices(ndim: int) -> list[Any]:
    choices: list[Any] = [None, *range(-ndim, ndim)]
    if ndim >= 2:
        choices += [(0, -1), (0,)]
    if ndim == 0:
        choices += [0, -1]
    return choices


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("key", list(INPUTS))
def test_reduction_matches_torch(name: str, key: str) -> None:
    torch = require_torch()
    ours, theirs = build(st, key), build(torch, key)
    for dim in dim_choices(theirs.dim()):
        for keepdim in (False, True):
            if dim is None:
                if keepdim:
                    continue

                def fn(x: Any) -> Any:
                    return getattr(x, name)()
            else:

                def fn(x: Any) -> Any:
                    return getattr(x, name)(dim, keepdim=keepdim)

            assert_same_outcome(outcome(fn, ours), outcome(fn, theirs))


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize(
    "kwargs",
    [{"unbiased": False}, {"unbiased": True}, {"correction": 0}, {"correction": 2}],
)
def test_var_std_corrections(name: str, kwargs: dict[str, Any]) -> None:
    torch = require_torch()
    ours, theirs = build(st, "float64"), build(torch, "float64")
    assert_same(getattr(ours, name)(1, **kwargs), getattr(theirs, name)(1, **kwargs))
    assert_same(getattr(ours, name)(**kwargs), getattr(theirs, name)(**kwargs))
    assert_same(
        getattr(st, name)(ours, (0, 2), **kwargs),
        getattr(torch, name)(theirs, (0, 2), **kwargs),
    )


def test_reduction_dtypes() -> None:
    torch = require_torch()
    for key in ("int64", "bool", "float32"):
        ours, theirs = build(st, key), build(torch, key)
        assert_same(ours.sum(), theirs.sum())
        assert_same(ours.prod(1), theirs.prod(1))
        assert_same(ours.sum(dtype=st.float64), theirs.sum(dtype=torch.float64))
    with pytest.raises(
        RuntimeError, match="Input dtype must be either a floating point"
    ):
        build(st, "int64").mean()
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        build(st, "int64").var()


def test_max_with_dim_returns_a_named_pair() -> None:
    x = st.tensor([[1.0, 4.0, 4.0], [7.0, 0.0, 2.0]])
    result = x.max(1)
    values, indices = result
    assert values.tolist() == [4.0, 7.0]
    assert indices.tolist() == [1, 0]  # the first of tied maxima
    assert result.values is values and result.indices is indices
    assert indices.dtype is st.int64
    assert repr(x.min(0)).startswith("torch.return_types.min(\nvalues=tensor(")
    assert st.max(x, st.zeros(2, 3)).tolist() == [[1.0, 4.0, 4.0], [7.0, 0.0, 2.0]]


def test_reduction_errors() -> None:
    x = st.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.sum(2)
    with pytest.raises(RuntimeError, match="appears multiple times"):
        x.sum((0, 0))
    with pytest.raises(TypeError, match="must be int, not tuple"):
        x.max((0, 1))
    with pytest.raises(RuntimeError, match="Specify the reduction dim"):
        st.zeros(0).max()


def test_sum_handles_infinities() -> None:
    assert st.tensor([math.inf, 1.0]).sum().item() == math.inf
    assert math.isnan(st.tensor([math.inf, -math.inf]).sum().item())
    assert st.tensor([3e38, 3e38]).sum().item() == math.inf  # float32 overflow


# ----------------------------------------------------------------------
# Gradients and grad_fn names
# ----------------------------------------------------------------------

GRAD_CASES: dict[str, Callable[[Any], Any]] = {
    "max": lambda x: x.max(),
    "min": lambda x: x.min(),
    "amax(1)": lambda x: x.amax(1),
    "amin(0)": lambda x: x.amin(0),
    "amax((0, 1))": lambda x: x.amax((0, 1)),
    "max(1)": lambda x: x.max(1)[0],
    "min(0, keepdim)": lambda x: x.min(0, keepdim=True).values,
    "prod": lambda x: x.prod(),
    "prod(1)": lambda x: x.prod(1),
    "prod(0, keepdim)": lambda x: x.prod(0, keepdim=True),
    "var": lambda x: x.var(),
    "var(1, correction=0)": lambda x: x.var(1, correction=0),
    "std(0)": lambda x: x.std(0),
    "std(unbiased=False)": lambda x: x.std(unbiased=False),
    "mean(1)": lambda x: x.mean(1),
    "mean((0, 1))": lambda x: x.mean((0, 1)),
    "sum(-1, keepdim)": lambda x: x.sum(-1, keepdim=True),
}
# Ties (for max/min/amax) and zeros (one and two in a row, for prod).
GRAD_VALUES = [
    [[1.0, 3.0, 3.0], [0.0, 5.0, 5.0], [0.0, 0.0, 2.0]],
    [[1.0, 2.0, 4.0], [3.0, -1.0, 0.5], [2.0, 2.0, -3.0]],
]


@pytest.mark.parametrize("name", list(GRAD_CASES))
@pytest.mark.parametrize("values", GRAD_VALUES, ids=["ties-zeros", "plain"])
def test_reduction_gradients_match_torch(name: str, values: list[list[float]]) -> None:
    torch = require_torch()
    fn = GRAD_CASES[name]
    ours = st.tensor(values, dtype=st.float64, requires_grad=True)
    theirs = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    out_ours, out_theirs = fn(ours), fn(theirs)
    assert_same(out_ours, out_theirs)
    assert out_ours.grad_fn.name() == out_theirs.grad_fn.name()
    count = out_theirs.numel()
    weights = [0.5 + i for i in range(count)]
    (
        out_ours * st.tensor(weights, dtype=st.float64).reshape(out_ours.shape)
    ).sum().backward()
    (
        out_theirs
        * torch.tensor(weights, dtype=torch.float64).reshape(out_theirs.shape)
    ).sum().backward()
    assert_same(ours.grad, theirs.grad)


def test_full_max_shares_the_gradient_among_ties() -> None:
    x = st.tensor([2.0, 7.0, 7.0, 7.0], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == pytest.approx([0.0, 1 / 3, 1 / 3, 1 / 3])
    y = st.tensor([2.0, 7.0, 7.0], requires_grad=True)
    y.max(0).values.backward()
    assert y.grad.tolist() == [0.0, 1.0, 0.0]


def test_prod_gradient_can_be_differentiated_again() -> None:
    x = st.tensor([2.0, 3.0, 4.0], requires_grad=True)
    (grad,) = st.autograd.grad(x.prod(), x, create_graph=True)
    assert grad.tolist() == [12.0, 8.0, 6.0]
    grad.sum().backward()
    assert x.grad.tolist() == [7.0, 6.0, 5.0]  # d/dx_i of sum_j prod_{k != j} x_k


@pytest.mark.parametrize(
    "expression",
    [
        lambda x: x.max(),
        lambda x: x.min(),
        lambda x: x.amax(),
        lambda x: x.amin(),
        lambda x: x.amax(0),
        lambda x: x.max(0)[0],
        lambda x: x.min(1)[0],
    ],
    ids=["max", "min", "amax", "amin", "amax_dim", "max_dim", "min_dim"],
)
def test_max_backward_with_nan(expression: Any) -> None:
    agree(gradient(expression, [[1.0, nan, 3.0], [nan, 2.0, 2.0]]))


def test_prod_of_a_0d_infinity() -> None:
    agree(gradient(lambda x: x.prod(), inf))


@pytest.mark.parametrize(
    "values",
    [
        [-math.inf, -math.inf],
        [math.nan, 1.0],
        [math.inf, 1.0],
        [1000.0, 1000.0],
        [-1000.0, 3.0],
    ],
)
def test_logsumexp_edges(values: list[float]) -> None:
    assert_same(*both(lambda L: L.logsumexp(L.tensor(values), 0)))


def test_logsumexp_of_integers_and_of_nothing() -> None:
    assert_same(*both(lambda L: L.logsumexp(L.tensor([1, 2]), 0)))
    assert_same(*both(lambda L: L.zeros(0, 2).logsumexp(0)))


WITH_TIES = [[3.0, 1, 2, 1], [5, 5, 4, 4], [nan, 1, nan, 0]]


ORDER_STATISTICS = {
    "median": lambda lib, x: x.median(),
    "median_no_nan": lambda lib, x: lib.median(x[:2]),
    "median_dim": lambda lib, x: tuple(x.median(1)),
    "median_dim0_keepdim": lambda lib, x: tuple(lib.median(x, dim=0, keepdim=True)),
    "median_int": lambda lib, x: tuple(x[:2].long().median(-1)),
    "median_int_all": lambda lib, x: x[:2].long().median(),
    "median_float16": lambda lib, x: tuple(x.half().median(0)),
    "median_empty": lambda lib, x: x[:, :0].median(),
    "median_empty_rows": lambda lib, x: tuple(x[:0].median(1)),
    "median_0d": lambda lib, x: tuple(x[0, 0].median(0)),
    "median_0d_all": lambda lib, x: x[0, 0].median(),
    "median_empty_dim": lambda lib, x: x[:0].median(0),
    "median_bool": lambda lib, x: (x > 1).median(),
    "median_complex": lambda lib, x: (x * 1j).median(),
    "median_complex_dim": lambda lib, x: (x * 1j).median(0),
    "median_uint16": lambda lib, x: x[:2].to(lib.uint16).median(),
    "median_float8": lambda lib, x: x.to(lib.float8_e4m3fn).median(),
    "median_bad_dim": lambda lib, x: x.median(2),
    "median_keepdim_no_dim": lambda lib, x: x.median(keepdim=True),
    "kthvalue": lambda lib, x: tuple(lib.kthvalue(x, 2, 1)),
    "kthvalue_dim0": lambda lib, x: tuple(x.kthvalue(1, 0, keepdim=True)),
    "kthvalue_last": lambda lib, x: tuple(x.kthvalue(4)),
    "kthvalue_int": lambda lib, x: tuple(x[:2].long().kthvalue(3)),
    "kthvalue_0d": lambda lib, x: tuple(x[0, 0].kthvalue(1)),
    "kthvalue_too_big": lambda lib, x: x.kthvalue(5),
    "kthvalue_zero": lambda lib, x: x.kthvalue(0),
    "kthvalue_0d_too_big": lambda lib, x: x[0, 0].kthvalue(2),
    "kthvalue_empty": lambda lib, x: x[:0].kthvalue(1, 0),
    "kthvalue_bool": lambda lib, x: (x > 1).kthvalue(1),
    "kthvalue_complex": lambda lib, x: (x * 1j).kthvalue(1),
    "kthvalue_float_k": lambda lib, x: x.kthvalue(1.5),
}


@pytest.mark.parametrize("name", list(ORDER_STATISTICS))
def test_median_and_kthvalue_match_torch(name: str) -> None:
    check(lambda lib: ORDER_STATISTICS[name](lib, lib.tensor(WITH_TIES)))


@pytest.mark.parametrize("seed", range(6))
def test_median_and_kthvalue_pick_torchs_index_among_ties(seed: int) -> None:
    """Which of several equal elements is returned is PyTorch's choice: the
    middle one by (value, index) for median, quickselect's for kthvalue."""
    values = [[float(v) for v in row] for row in grid(seed, (5, 9), 0, 3)]
    values = [[round(v) for v in row] for row in values]  # many ties
    if seed % 2:
        values[1][seed] = nan
    for k in (1, 3, 5, 9):
        check(lambda lib: tuple(lib.tensor(values).kthvalue(k, 1)))
        check(lambda lib: tuple(lib.tensor(values).t().kthvalue(k, 0)))
    check(lambda lib: tuple(lib.tensor(values).median(1)))
    check(lambda lib: lib.tensor(values).median())


def test_median_and_kthvalue_name_their_results_like_torch() -> None:
    torch = require_torch()
    for lib in (st, torch):
        x = lib.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 3.0]])
        assert x.median(1).values.tolist() == [2.0, 3.0]
        assert x.kthvalue(3, 1).indices.tolist() == [1, 0]
    ours = st.tensor([[1.0, 5.0, 2.0]]).median(1)
    theirs = torch.tensor([[1.0, 5.0, 2.0]]).median(1)
    assert repr(ours) == repr(theirs)
    assert repr(st.tensor([1.0]).kthvalue(1)) == repr(torch.tensor([1.0]).kthvalue(1))


def test_median_without_torch() -> None:
    x = st.tensor([[4.0, 1.0, 3.0, 2.0], [2.0, 2.0, 9.0, 2.0]], requires_grad=True)
    assert x.median().item() == 2.0  # the lower of the two middle values
    x.median().backward()
    assert x.grad is not None
    assert x.grad.tolist() == [[0, 0, 0, 0.25], [0.25, 0.25, 0, 0.25]]
    values, indices = x.median(1)
    assert values.tolist() == [2.0, 2.0] and indices.tolist() == [3, 1]
    assert x.kthvalue(4, 1).values.tolist() == [4.0, 9.0]
    with pytest.raises(RuntimeError, match="k out of range"):
        x.kthvalue(5)


# ---------------------------------------------------------------- keepdims


@pytest.mark.parametrize(
    "name", ["sum", "mean", "prod", "amax", "amin", "std", "var", "argmax", "argmin"]
)
@pytest.mark.parametrize("as_method", [False, True])
def test_reductions_take_keepdims(name: str, as_method: bool) -> None:
    def run(L: Any) -> Any:
        x = L.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 0.5]])
        if as_method:
            return getattr(x, name)(1, keepdims=True)
        return getattr(L, name)(x, 1, keepdims=True)

    ours, theirs = both(run)
    assert_same(ours, theirs)


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_take_keepdims(name: str) -> None:
    ours, theirs = both(
        lambda L: getattr(L.tensor([[1.0, 5.0], [4.0, 3.0]]), name)(0, keepdims=True)
    )
    assert_same(ours.values, theirs.values)
    assert_same(ours.indices, theirs.indices)


@pytest.mark.parametrize("name", ["any", "all"])
def test_any_all_take_keepdims(name: str) -> None:
    ours, theirs = both(
        lambda L: getattr(L, name)(L.tensor([[True, False]]), 1, keepdims=True)
    )
    assert_same(ours, theirs)


def test_both_spellings_at_once_are_refused() -> None:
    same_error(lambda L: L.ones(2, 2).sum(1, keepdim=True, keepdims=True))


def test_keepdims_keeps_the_gradient() -> None:
    def run(L: Any) -> Any:
        x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        (x / x.sum(1, keepdims=True)).pow(2).sum().backward()
        return x.grad

    assert_same(*both(run))
