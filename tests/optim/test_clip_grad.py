"""clip_grad_norm_ and clip_grad_value_ against torch.nn.utils."""

from __future__ import annotations

import math
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.nn.utils import clip_grad_norm_, clip_grad_value_
from tests.optim.problem import assert_close, loss_of, make_params
from tests.parity import require_torch


def _clip_module(lib: Any) -> Any:
    if lib is st:
        return st.nn.utils
    return lib.nn.utils


def _with_grads(lib: Any, scale: float = 1.0) -> list[Any]:
    params = make_params(lib)
    (loss_of(lib, params) * scale).backward()
    return list(params.values())  # "unused" has no gradient: skipped


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, 0.5])
@pytest.mark.parametrize("max_norm", [0.05, 100.0])
def test_clip_grad_norm_matches_torch(norm_type: float, max_norm: float) -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        params = _with_grads(lib)
        total = _clip_module(lib).clip_grad_norm_(params, max_norm, norm_type=norm_type)
        assert total.dim() == 0 and str(total.dtype).endswith("float32")
        grads = [p.grad.tolist() for p in params if p.grad is not None]
        results.append((total.item(), grads))
    assert_close(results[0][0], results[1][0], rtol=1e-6)
    assert_close(results[0][1], results[1][1], rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_of_one_tensor_and_of_no_gradients() -> None:
    torch = require_torch()
    for lib in (st, torch):
        p = lib.tensor([3.0, 4.0], requires_grad=True)
        p.grad = lib.tensor([3.0, 4.0])
        assert _clip_module(lib).clip_grad_norm_(p, 1.0).item() == 5.0
        assert math.isclose(
            p.grad.norm().item() if lib is torch else 1.0, 1.0, rel_tol=1e-5
        )
        q = lib.zeros(2, requires_grad=True)
        total = _clip_module(lib).clip_grad_norm_([q], 1.0)
        assert total.item() == 0.0
    p = st.tensor([3.0, 4.0], requires_grad=True)
    p.grad = st.tensor([3.0, 4.0])
    clip_grad_norm_(p, 1.0)
    assert_close(p.grad.tolist(), [0.6 / (1 + 0.2e-6), 0.8 / (1 + 0.2e-6)], rtol=1e-6)


def test_clip_grad_norm_non_finite() -> None:
    torch = require_torch()
    messages = []
    for lib in (st, torch):
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        p.grad = lib.tensor([float("inf"), 1.0])
        with pytest.raises(RuntimeError) as info:
            _clip_module(lib).clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
        messages.append(str(info.value))
        assert p.grad.tolist() == [float("inf"), 1.0]  # left as it was
        total = _clip_module(lib).clip_grad_norm_([p], 1.0)
        assert total.item() == float("inf")
    assert messages[0] == messages[1]


@pytest.mark.parametrize("clip_value", [0.01, 0.1, 10])
def test_clip_grad_value_matches_torch(clip_value: float) -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        params = _with_grads(lib, scale=3.0)
        assert _clip_module(lib).clip_grad_value_(params, clip_value) is None
        results.append([p.grad.tolist() for p in params if p.grad is not None])
    assert_close(results[0], results[1], rtol=1e-5, atol=1e-6)
    for value in (
        v
        for grad in results[0]
        for row in grad
        for v in (row if isinstance(row, list) else [row])
    ):
        assert abs(value) <= clip_value * (1 + 1e-6)


def test_exposed_where_torch_has_them() -> None:
    assert st.nn.utils.clip_grad_norm_ is clip_grad_norm_
    assert st.nn.utils.clip_grad_value_ is clip_grad_value_
