"""cat and stack: values, dtypes, gradients and errors, compared with PyTorch."""

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
from tests.agree import agree
from tests.parity import assert_same, require_torch

CASES = [
    "torch.cat([a, b])",
    "torch.cat([a, b], 1)",
    "torch.cat([a, b], -1)",
    "torch.cat([a, c])",
    "torch.cat([a, c], -2)",
    "torch.cat([a, e])",
    "torch.cat([e, e])",
    "torch.cat((a,), 1)",
    "torch.cat([a.t(), b.t()], 1)",
    "torch.cat([i, i.bool()])",
    "torch.cat([e, i])",
    "torch.concat([a, b])",
    "torch.stack([a, b])",
    "torch.stack([a, b], 1)",
    "torch.stack([a, b], -1)",
    "torch.stack([a, b.double()])",
    "torch.stack([s, s * 2])",
    "torch.stack([s, torch.tensor(2)])",
    "torch.stack([a[:, 0], a[:, 1]], 1)",
]


def _env(lib: Any) -> dict[str, Any]:
    a = lib.arange(6.0).reshape(2, 3).requires_grad_()
    b = lib.arange(6.0, 12.0).reshape(2, 3).requires_grad_()
    return {
        "torch": lib,
        "a": a,
        "b": b,
        "c": lib.ones(1, 3, dtype=lib.int64),
        "e": lib.zeros(0),
        "i": lib.ones(1, 3, dtype=lib.int64),
        "s": lib.tensor(1.5, requires_grad=True),
    }


@pytest.mark.parametrize("code", CASES)
def test_join_matches_torch(code: str) -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        env = _env(lib)
        out = eval(code, env)
        grads = None
        if out.requires_grad:
            weight = lib.arange(float(out.numel())).reshape(tuple(out.shape)) + 1
            (out * weight).sum().backward()
            grads = [env[name].grad for name in ("a", "b", "s")]
        results.append((out, out.grad_fn.name() if out.grad_fn else None, grads))
    (ours, our_name, our_grads), (theirs, their_name, their_grads) = results
    assert_same(ours, theirs, exact=True)
    assert our_name == their_name
    assert (our_grads is None) == (their_grads is None)
    for mine, other in zip(our_grads or [], their_grads or []):
        assert (mine is None) == (other is None)
        if other is not None:
            assert_same(mine, other, exact=True)


ERRORS = [
    "torch.cat([a, torch.zeros(2)])",
    "torch.cat([a, torch.zeros(2, 4)])",
    "torch.cat([a, b], 2)",
    "torch.cat([])",
    "torch.cat(a)",
    "torch.cat([torch.tensor(1.)])",
    "torch.cat([a, torch.tensor(1.)])",
    "torch.stack([a, c])",
    "torch.stack([])",
    "torch.stack([a, b], 3)",
    "torch.stack(a)",
]


@pytest.mark.parametrize("code", ERRORS)
def test_join_errors_match_torch(code: str) -> None:
    torch = require_torch()
    outcomes = []
    for lib in (st, torch):
        try:
            eval(code, _env(lib))
            outcomes.append(None)
        except Exception as error:  # noqa: BLE001 - the error is the outcome
            outcomes.append((type(error).__name__, str(error)))
    assert outcomes[1] is not None
    assert outcomes[0] == outcomes[1]


def test_cat_result_has_its_own_storage() -> None:
    a = st.zeros(2)
    joined = st.cat([a, a])
    joined[0] = 5
    assert a.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("dim", [-2, 0, 5])
def test_cat_of_empty_vectors_ignores_dim(dim: int) -> None:
    agree(lambda lib: lib.cat([lib.zeros(0), lib.zeros(0, dtype=lib.float64)], dim))
