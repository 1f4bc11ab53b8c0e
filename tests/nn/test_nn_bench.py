"""The nn benchmark's pure-Python baselines compute exactly the engine's numbers."""

from __future__ import annotations

import slowtorch_lib as st
from bench import nn_cases


def test_linear_baseline_gives_the_engine_numbers() -> None:
    _, engine, baseline, _ = nn_cases.linear_case(None)
    grad_x, grad_w, grad_b = engine()
    _, (base_x, base_w, base_b) = baseline()
    assert grad_x.flatten().tolist() == base_x
    assert grad_w.flatten().tolist() == base_w
    assert grad_b.tolist() == base_b


def test_mlp_baseline_gives_the_engine_numbers_step_after_step() -> None:
    st.manual_seed(0)
    model = nn_cases.make_mlp(st)
    points, labels = nn_cases.mlp_data()
    x, target = st.tensor(points).reshape(nn_cases.BATCH, 2), st.tensor(labels)
    baseline = nn_cases.BaselineMLP(nn_cases.flat_parameters(model))
    for _ in range(3):
        loss = nn_cases.engine_step(model, x, target)
        assert loss.item() == baseline.step(points, labels)
        assert nn_cases.flat_parameters(model) == baseline.params
