"""The attention benchmark's pure-Python baselines compute the engine's numbers.

Sums run in another order than the engine's products, so the float32
results agree to a few units in the last place, not bit for bit.
"""

from __future__ import annotations

import math

import slowtorch_lib as st
from bench import attention_cases as cases


def _close(ours: list[float], theirs: list[float], tolerance: float = 1e-5) -> None:
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert math.isclose(a, b, rel_tol=tolerance, abs_tol=1e-6), (a, b)


def test_attention_baseline_gives_the_engine_gradients() -> None:
    _, engine, baseline, _ = cases.attention_case(None)
    grad_x = engine()
    grads = baseline()
    _close(grad_x.flatten().tolist(), grads["x"])


def test_gpt_baseline_follows_the_engine_step_after_step() -> None:
    st.manual_seed(2)
    model = cases.make_gpt(st)
    optimizer = st.optim.AdamW(
        model.parameters(), lr=cases.LR, weight_decay=cases.DECAY
    )
    inputs, targets = cases.gpt_data()
    idx = st.tensor(inputs).view(cases.BATCH, cases.BLOCK)
    target = st.tensor(targets).view(cases.BATCH, cases.BLOCK)
    start = cases.named_flat(model)
    hand = cases.BaselineGPT(start)
    # The gradients themselves (AdamW's step would hide a wrong scale).
    model(idx, target).backward()
    _, grads = hand.loss_and_grads(inputs, targets)
    for name, parameter in model.named_parameters():
        _close(parameter.grad.flatten().tolist(), grads[name], 1e-4)
    losses = []
    for _ in range(2):
        loss = cases.gpt_step(st, model, optimizer, idx, target).item()
        assert math.isclose(loss, hand.step(inputs, targets), rel_tol=1e-6)
        for name, values in cases.named_flat(model).items():
            _close(values, hand.p[name])
        losses.append(loss)
    assert cases.named_flat(model) != start
    assert losses[1] < losses[0]
