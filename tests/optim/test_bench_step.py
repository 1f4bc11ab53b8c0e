"""The training-step benchmark compares programs that compute the same numbers."""

from __future__ import annotations

import slowtorch_lib as st
from bench.training_step import initial_values, make_baseline_step, make_engine_step
from tests.optim.problem import assert_close
from tests.parity import require_torch


def test_engine_baseline_and_torch_take_the_same_steps() -> None:
    torch = require_torch()
    values = initial_values()
    engine, engine_params = make_engine_step(st, values)
    baseline, baseline_params = make_baseline_step(values)
    reference, torch_params = make_engine_step(torch, values)
    for _ in range(3):
        losses = [engine().item(), baseline(), reference().item()]
        assert_close(losses[0], losses[1], rtol=1e-6)
        assert_close(losses[0], losses[2], rtol=1e-6)
    for name, tensor in engine_params.items():
        ours = tensor.reshape(-1).tolist()
        assert_close(ours, baseline_params[name], rtol=1e-5, atol=1e-7)
        assert_close(
            ours, torch_params[name].reshape(-1).tolist(), rtol=1e-5, atol=1e-7
        )
    # The step changed the weights (the comparison above is not vacuous).
    assert engine_params["w2"].reshape(-1).tolist() != values["w2"]
