"""``normal`` (``slowtorch_lib/ops/normal.py``) against PyTorch.

These tests compare shapes, dtypes, statistics and gradients; the values
themselves are compared bit for bit in ``tests/test_random_streams.py``.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, require_torch, same_error


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
