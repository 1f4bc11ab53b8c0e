"""Real training on the engine: the digits reach 95 %, and the names model
takes the same steps as under PyTorch."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import slowtorch_lib as st
from course.datasets import load_digits, load_names
from slowtorch_lib import nn
from slowtorch_lib.utils.data import DataLoader, TensorDataset
from tests.parity import require_torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "book"))
from epilogue_files import names  # noqa: E402


def train_digits(epochs: int = 8) -> float:
    """Chapter 4's digits model; returns its test accuracy."""
    train_images, train_labels = load_digits("train")
    test_images, test_labels = load_digits("test")
    x_train, y_train = st.tensor(train_images) / 16, st.tensor(train_labels)
    x_test, y_test = st.tensor(test_images) / 16, st.tensor(test_labels)
    st.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
    optimizer = st.optim.Adam(model.parameters(), lr=0.01)
    loader = DataLoader(
        TensorDataset(x_train, y_train),
        batch_size=64,
        shuffle=True,
        generator=st.Generator().manual_seed(0),
    )
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(epochs):
        for inputs, targets in loader:
            optimizer.zero_grad()
            loss_fn(model(inputs), targets).backward()
            optimizer.step()
    with st.no_grad():
        return (model(x_test).argmax(dim=1) == y_test).float().mean().item()


@pytest.mark.slow
def test_digits_model_reaches_95_percent() -> None:
    assert train_digits() >= 0.95


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
