"""The in-place forms of the operations (``add_``, ``clamp_``...) against PyTorch.

Each check runs the same code on both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compares what comes out, or the type and message of the
exception. Gradients and ``grad_fn`` names are checked by the op table.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import (
    assert_same,
    both,
    require_torch,
    same_error,
)
from tests.parity_checks import (
    check,
)

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


@pytest.mark.parametrize("name", ["log10_", "exp2_", "sinh_", "atan_", "tan_"])
def test_new_inplace_forms(name: str) -> None:
    def run(L: Any) -> Any:
        x = L.tensor([0.5, 0.25])
        result = getattr(x, name)()
        assert result is x
        return x

    assert_same(*both(run))
    same_error(lambda L: getattr(L.tensor([1, 2]), name)())
