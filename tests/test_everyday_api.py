"""``meshgrid``, ``normal``, ``unique``, ``unique_consecutive`` and ``range``
against PyTorch: values, dtypes, strides, nodes, warnings and refusals.

``normal``'s numbers come from the engine's own generator, so its tests
compare shapes, dtypes, statistics and gradients, not values.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, require_torch, same_error

# ---------------------------------------------------------------- meshgrid


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("count", [1, 2, 3])
def test_meshgrid_matches_torch(indexing: str, count: int) -> None:
    torch = require_torch()

    def run(lib: Any) -> Any:
        inputs = [
            lib.arange(1.0, 2.0 + i, requires_grad=True) * (i + 1) for i in range(count)
        ]
        grids = lib.meshgrid(*inputs, indexing=indexing)
        total = sum((g * (n + 2)).sum() for n, g in enumerate(grids))
        total.backward()
        return grids

    ours, theirs = run(st), run(torch)
    assert len(ours) == len(theirs)
    for mine, other in zip(ours, theirs):
        assert_same(mine, other)
        assert mine.stride() == other.stride()
        assert mine.grad_fn.name() == other.grad_fn.name()


def test_meshgrid_list_and_scalars() -> None:
    torch = require_torch()
    for lib_pair in [(st, torch)]:
        shapes = [
            [
                tuple(g.shape)
                for g in L.meshgrid([L.tensor(2.0), L.ones(3)], indexing="xy")
            ]
            for L in lib_pair
        ]
        assert shapes[0] == shapes[1]


def test_meshgrid_warns_without_indexing() -> None:
    torch = require_torch()
    messages = []
    for lib in (st, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.meshgrid(lib.ones(2), lib.ones(3))
        assert [w.category for w in caught] == [UserWarning]
        messages.append(str(caught[0].message).split(" (Triggered")[0])
    assert messages[0] == messages[1]


MESHGRID_REFUSALS = {
    "indexing": lambda L: L.meshgrid(L.ones(2), indexing="foo"),
    "empty": lambda L: L.meshgrid(indexing="ij"),
    "dtypes": lambda L: L.meshgrid(L.ones(2), L.ones(2, dtype=L.long), indexing="ij"),
    "not_tensor": lambda L: L.meshgrid([1, 2], indexing="ij"),
}


@pytest.mark.parametrize(
    "case", MESHGRID_REFUSALS.values(), ids=MESHGRID_REFUSALS.keys()
)
def test_meshgrid_refusals(case: Any) -> None:
    same_error(case)


def test_meshgrid_refuses_matrices() -> None:
    same_error(lambda L: L.meshgrid(L.ones(2, 2), indexing="ij"), match_message=False)


# ---------------------------------------------------------------- normal


def _normal_forms(L: Any) -> dict[str, Any]:
    mean = L.zeros(3) + 2.0
    std = L.ones(2, 3) * 0.5
    return {
        "tensor_tensor": lambda: L.normal(mean, std),
        "tensor_default_std": lambda: L.normal(mean),
        "tensor_number": lambda: L.normal(mean, 3.0),
        "number_tensor": lambda: L.normal(1.0, std),
        "numbers_size": lambda: L.normal(0.0, 1.0, (2, 3)),
        "numbers_size_double": lambda: L.normal(0, 1, size=(4,), dtype=L.float64),
        "numbers_requires_grad": lambda: L.normal(0.0, 1.0, (2,), requires_grad=True),
        "half_mean": lambda: L.normal(L.zeros(3, dtype=L.float16), 1.0),
        "broadcast": lambda: L.normal(L.zeros(2, 1), L.ones(3)),
        "double_std_float_mean": lambda: L.normal(
            L.zeros(3), L.ones(3, dtype=L.float64)
        ),
        "empty": lambda: L.normal(L.zeros(0), L.ones(0)),
    }


@pytest.mark.parametrize("form", list(_normal_forms(st)))
def test_normal_forms_shapes_and_dtypes(form: str) -> None:
    torch = require_torch()
    ours, theirs = _normal_forms(st)[form](), _normal_forms(torch)[form]()
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype)[6:]
    assert ours.requires_grad == theirs.requires_grad


def test_normal_statistics_and_generator() -> None:
    st.manual_seed(3)
    draws = st.normal(st.full((20000,), 2.0), st.full((20000,), 0.5))
    values = draws.tolist()
    mean = sum(values) / len(values)
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    assert abs(mean - 2.0) < 0.02 and abs(spread - 0.5) < 0.02
    first = st.normal(0.0, 1.0, (5,), generator=st.Generator().manual_seed(7))
    again = st.normal(0.0, 1.0, (5,), generator=st.Generator().manual_seed(7))
    assert first.tolist() == again.tolist()
    out = st.empty(4)
    assert st.normal(st.zeros(4), 1.0, out=out) is out


@pytest.mark.parametrize("which", ["both", "mean", "std"])
def test_normal_gradients_are_zero_with_torchs_nodes(which: str) -> None:
    torch = require_torch()

    def run(L: Any) -> Any:
        mean = L.zeros(3, requires_grad=True)
        std = L.ones(3, requires_grad=True)
        if which == "both":
            out = L.normal(mean, std)
        elif which == "mean":
            out = L.normal(mean, 2.0)
        else:
            out = L.normal(1.0, std)
        (out * 3).sum().backward()
        return out.grad_fn.name(), mean.grad, std.grad

    ours, theirs = run(st), run(torch)
    assert ours[0] == theirs[0]
    for mine, other in zip(ours[1:], theirs[1:]):
        if other is None:
            assert mine is None
        else:
            assert_same(mine, other)


NORMAL_REFUSALS = {
    "negative_std_tensor": lambda L: L.normal(L.zeros(3), -L.ones(3)),
    "negative_std_number": lambda L: L.normal(0.0, -1.0, (2,)),
    "negative_std_with_tensor_mean": lambda L: L.normal(L.zeros(3), -2.0),
    "nan_std": lambda L: L.normal(0.0, float("nan"), (2,)),
    "integer_mean": lambda L: L.normal(L.zeros(3, dtype=L.long), L.ones(3)),
}


@pytest.mark.parametrize("case", NORMAL_REFUSALS.values(), ids=NORMAL_REFUSALS.keys())
def test_normal_refusals(case: Any) -> None:
    same_error(case)


@pytest.mark.parametrize(
    "case",
    [
        lambda L: L.normal(0.0, 1.0),
        lambda L: L.normal(0.0, 1.0, 5),
        lambda L: L.normal(L.zeros(3), L.ones(3), (3,)),
    ],
    ids=["numbers_no_size", "int_size", "tensors_and_size"],
)
def test_normal_forms_torch_does_not_have(case: Any) -> None:
    message = same_error(case, match_message=False)
    assert message.startswith("normal() received an invalid combination of arguments")


# ---------------------------------------------------------------- unique


UNIQUE_CASES = {
    "ints": ([3, 1, 2, 3, 1, 5], {}),
    "floats_nan": ([2.0, math.nan, 1.0, math.nan, 2.0], {}),
    "bools": ([True, False, True], {}),
    "signed_zero": ([-0.0, 0.0, 0.0], {}),
    "matrix": ([[1, 2], [0, 5], [1, 2], [0, 1]], {}),
    "rows": ([[1, 2], [0, 5], [1, 2], [0, 1]], {"dim": 0}),
    "columns": ([[1, 2, 1], [0, 5, 0]], {"dim": 1}),
    "negative_dim": ([[1, 2, 1], [0, 5, 0]], {"dim": -1}),
    "unsorted_flag": ([3.0, 1.0, 2.0, 1.0], {"sorted": False}),
    "scalar": (3, {}),
}


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("counts", [False, True])
@pytest.mark.parametrize(
    ("values", "options"), UNIQUE_CASES.values(), ids=UNIQUE_CASES.keys()
)
def test_unique_matches_torch(
    values: Any, options: Any, inverse: bool, counts: bool
) -> None:
    torch = require_torch()

    def run(L: Any, method: bool) -> Any:
        x = L.tensor(values)
        kwargs = dict(options, return_inverse=inverse, return_counts=counts)
        return x.unique(**kwargs) if method else L.unique(x, **kwargs)

    for method in (False, True):
        ours, theirs = run(st, method), run(torch, method)
        assert isinstance(ours, tuple) == isinstance(theirs, tuple)
        for mine, other in zip(
            *(([r] if not isinstance(r, tuple) else r) for r in (ours, theirs))
        ):
            assert_same(mine, other, exact=True)


CONSECUTIVE_CASES = {
    "ints": ([1, 1, 2, 2, 3, 1, 1, 2], {}),
    "nan": ([1.0, math.nan, math.nan], {}),
    "rows": ([[1, 2], [1, 2], [0, 5], [1, 2]], {"dim": 0}),
    "empty": ([], {}),
}


@pytest.mark.parametrize(
    ("values", "options"), CONSECUTIVE_CASES.values(), ids=CONSECUTIVE_CASES.keys()
)
def test_unique_consecutive_matches_torch(values: Any, options: Any) -> None:
    torch = require_torch()

    def run(L: Any) -> Any:
        x = L.tensor(values)
        return L.unique_consecutive(
            x, return_inverse=True, return_counts=True, **options
        )

    for mine, other in zip(run(st), run(torch)):
        assert_same(mine, other, exact=True)
    assert_same(
        st.tensor([4, 4, 2]).unique_consecutive(),
        torch.tensor([4, 4, 2]).unique_consecutive(),
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda L, x: L.unique(x),
        lambda L, x: L.unique(x, dim=0),
        lambda L, x: L.unique_consecutive(x),
        lambda L, x: x.unique(return_inverse=True)[0],
    ],
    ids=["unique", "unique_dim", "unique_consecutive", "method"],
)
def test_unique_has_no_derivative(make: Any) -> None:
    torch = require_torch()
    names = []
    for lib in (st, torch):
        result = make(lib, lib.tensor([[1.0, 2.0], [1.0, 2.0]], requires_grad=True))
        names.append(result.grad_fn.name())
    assert names[0] == names[1]
    same_error(
        lambda L: (
            make(L, L.tensor([[1.0, 2.0], [1.0, 2.0]], requires_grad=True))
            .sum()
            .backward()
        )
    )


UNIQUE_REFUSALS = {
    "dim_out_of_range": lambda L: L.unique(L.ones(2, 2), dim=2),
    "not_tensor": lambda L: L.unique_consecutive([1, 2]),
    "empty_other_dim": lambda L: L.unique(L.zeros(3, 0), dim=0),
}


@pytest.mark.parametrize("case", UNIQUE_REFUSALS.values(), ids=UNIQUE_REFUSALS.keys())
def test_unique_refusals(case: Any) -> None:
    same_error(case)


def test_unique_of_empty() -> None:
    torch = require_torch()
    for L_pair in [(st, torch)]:
        results = [L.unique(L.zeros(0, 3), dim=0, return_counts=True) for L in L_pair]
        for mine, other in zip(*results):
            assert_same(mine, other)


# ---------------------------------------------------------------- range


RANGES = {
    "ints": ((1, 4), {}),
    "float_step": ((0, 1, 0.3), {}),
    "tenths": ((0, 0.9, 0.1), {}),
    "down": ((5, 1, -2), {}),
    "long": ((1, 4), {"dtype": "int64"}),
    "float_to_long": ((1.0, 3), {"dtype": "int64"}),
    "keywords": ((), {"start": 1, "end": 3}),
    "requires_grad": ((1, 3), {"requires_grad": True}),
}


@pytest.mark.parametrize(("args", "kwargs"), RANGES.values(), ids=RANGES.keys())
def test_range_matches_torch_and_warns(args: Any, kwargs: Any) -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        options = dict(kwargs)
        if "dtype" in options:
            options["dtype"] = getattr(lib, options["dtype"])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = lib.range(*args, **options)
        assert [w.category for w in caught] == [UserWarning]
        assert caught[0].filename == __file__  # points at the caller
        results.append((result, str(caught[0].message)))
    assert_same(results[0][0], results[1][0])
    assert results[0][0].requires_grad == results[1][0].requires_grad
    assert results[0][1] == results[1][1]


@pytest.mark.filterwarnings("ignore:torch.range is deprecated")
@pytest.mark.parametrize(
    "case",
    [lambda L: L.range(1, 4, 0), lambda L: L.range(4, 1), lambda L: L.range(1)],
    ids=["zero_step", "wrong_direction", "no_end"],
)
def test_range_refusals(case: Any) -> None:
    same_error(case)
