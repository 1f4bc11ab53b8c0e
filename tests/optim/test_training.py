"""Real training on the engine: the digits reach 95 %, and the names model
takes the same steps as under PyTorch."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import slowtorch_lib as st
from bench.training_runs import digits_to_95
from course.datasets import load_names
from tests.parity import require_torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "book"))
from epilogue_files import names  # noqa: E402


@pytest.mark.slow
def test_digits_model_reaches_95_percent() -> None:
    """Chapter 4's digits model, as ``python -m bench.training_runs`` times it."""
    _, _, accuracy = digits_to_95(max_epochs=8)
    assert accuracy >= 0.95


def test_names_model_matches_torch_step_by_step() -> None:
    torch = require_torch()
    data = names.examples(load_names())
    batches = names.draw_batches(len(data[0]), steps=50)
    weights = names.initial_weights(st)
    _, ours, _ = names.train(
        st, {k: st.tensor(v) for k, v in weights.items()}, data, batches
    )
    _, theirs, _ = names.train(
        torch, {k: torch.tensor(v) for k, v in weights.items()}, data, batches
    )
    assert len(ours) == len(theirs) == 50
    for step, (a, b) in enumerate(zip(ours, theirs)):
        assert abs(a - b) <= 1e-5 * max(1.0, abs(b)), (step, a, b)
    assert ours[-1] < ours[0] - 0.3  # it learned something
