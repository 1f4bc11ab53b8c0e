"""Second derivatives against PyTorch: the backward passes are tensor operations.

Each check runs the same code on both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compares what comes out, or the type and message of the
exception. Gradients and ``grad_fn`` names are checked by the op table.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, require_torch

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
