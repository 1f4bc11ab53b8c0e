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
    optimizer = st.optim.SGD(model.parameters(), lr=nn_cases.LEARNING_RATE)
    points, labels = nn_cases.mlp_data()
    x, target = st.tensor(points).reshape(nn_cases.BATCH, 2), st.tensor(labels)
    start = nn_cases.flat_parameters(model)
    baseline = nn_cases.BaselineMLP(start)
    losses = []
    for _ in range(3):
        loss = nn_cases.training_step(st, model, optimizer, x, target)
        assert loss.item() == baseline.step(points, labels)
        assert nn_cases.flat_parameters(model) == baseline.params
        losses.append(loss.item())
    # The steps changed the weights and the loss (the checks are not vacuous).
    assert nn_cases.flat_parameters(model) != start
    assert losses[2] < losses[0]
