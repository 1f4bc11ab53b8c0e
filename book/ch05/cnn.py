"""Chapter 5's CNN run on the 8x8 digits.

The model, the batches and the loop, written once for either library: the
page, the benchmark (``python -m bench.cnn_digits``) and the record of
PyTorch's run train exactly the same thing; the page trains for fewer
epochs, enough for 96.7 % on the test set.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from course.datasets import load_digits

EPOCHS = 4
SEED = 0
BATCH = 32
LEARNING_RATE = 0.02

__all__ = ["EPOCHS", "SEED", "batches", "initial_state", "make_cnn", "run", "train"]


def make_cnn(lib: Any) -> Any:
    """The same model in either library."""
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(8 * 4 * 4, 10),
    )


def batches(count: int, epoch: int) -> list[list[int]]:
    """The indices of each batch of one epoch (the same for both libraries)."""
    order = list(range(count))
    random.Random(epoch).shuffle(order)
    return [order[i : i + BATCH] for i in range(0, count, BATCH)]


#: Called after each step with the steps done, the steps in all and the loss.
Progress = Callable[[int, int, float], None]


def train(
    lib: Any,
    model: Any,
    images: list[list[float]],
    labels: list[int],
    epochs: int,
    progress: Progress | None = None,
) -> tuple[list[float], list[float], list[float]]:
    """Trains ``model``; returns each epoch's mean loss, accuracy and seconds."""
    x_all = lib.tensor(images).reshape(-1, 1, 8, 8) / 16
    y_all = lib.tensor(labels)
    test_images, test_labels = load_digits("test")
    x_test = lib.tensor(test_images).reshape(-1, 1, 8, 8) / 16
    y_test = lib.tensor(test_labels)
    optimizer = lib.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    loss_fn = lib.nn.CrossEntropyLoss()
    losses, accuracies, seconds = [], [], []
    steps = epochs * len(batches(len(labels), 0))
    for epoch in range(epochs):
        start = time.perf_counter()
        total = 0.0
        groups = batches(len(labels), epoch)
        for step, group in enumerate(groups, epoch * len(groups) + 1):
            index = lib.tensor(group)
            optimizer.zero_grad()
            loss = loss_fn(model(x_all[index]), y_all[index])
            loss.backward()
            optimizer.step()
            total += loss.item()
            if progress is not None:
                progress(step, steps, loss.item())
        seconds.append(time.perf_counter() - start)
        with lib.no_grad():
            predicted = model(x_test).argmax(dim=1)
            accuracies.append((predicted == y_test).float().mean().item())
        losses.append(total / len(groups))
    return losses, accuracies, seconds


def initial_state(engine: Any) -> tuple[Any, dict[str, list[Any]]]:
    """The engine's model drawn from ``SEED``, and its weights as lists."""
    engine.manual_seed(SEED)
    model = make_cnn(engine)
    return model, {k: v.tolist() for k, v in model.state_dict().items()}


def run(
    lib: Any, model: Any, progress: Progress | None = None
) -> tuple[list[float], list[float], list[float]]:
    """Trains ``model`` (of ``lib``) for ``EPOCHS``: losses, accuracies, seconds."""
    images, labels = load_digits("train")
    return train(lib, model, images, labels, EPOCHS, progress)
