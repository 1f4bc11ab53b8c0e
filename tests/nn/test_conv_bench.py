"""The convolution benchmark's pure-Python baselines compute the engine's numbers."""

from __future__ import annotations

from bench import conv_cases


def test_conv_baseline_gives_the_engine_numbers() -> None:
    _, engine, baseline, _ = conv_cases.conv_case(None)
    grad_x, grad_w, grad_b = engine()
    _, base_x, base_w, base_b = baseline()
    assert grad_x.flatten().tolist() == base_x
    assert grad_w.flatten().tolist() == base_w
    assert grad_b.tolist() == base_b
    assert any(v != 0.0 for v in base_x)


def test_cnn_baseline_gives_the_engine_numbers_step_after_step() -> None:
    _, engine, baseline, _ = conv_cases.cnn_case(None)
    losses = [engine().item() for _ in range(3)]
    assert [baseline() for _ in range(3)] == losses
    assert losses[2] < losses[0]
