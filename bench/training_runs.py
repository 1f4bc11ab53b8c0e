"""``python -m bench.training_runs``: two real trainings, timed.

* **digits**: chapter 4's model (64 -> 32 -> 10, Adam, batches of 64) trained
  from scratch on the engine until its test accuracy reaches 95 %, checked
  after every epoch. Target: at most 30 s on one core.
* **names**: one training step of the epilogue's name generator (batch 32),
  engine against PyTorch on one thread: the median of many steps each.

These are whole runs rather than the repeated small programs of
``python -m bench``, so they are measured once (digits) or over a fixed
number of steps (names), and print their numbers without a baseline.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import slowtorch_lib as st
from course.datasets import load_digits, load_names
from slowtorch_lib import nn
from slowtorch_lib.utils.data import DataLoader, TensorDataset

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book"))
from epilogue_files import names  # noqa: E402

DIGITS_TARGET_SECONDS = 30.0


def digits_to_95(max_epochs: int = 30) -> tuple[float, int, float]:
    """Seconds (loading included), epochs and accuracy to reach 95 %."""
    start = time.perf_counter()
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
    accuracy = 0.0
    for epoch in range(1, max_epochs + 1):
        for inputs, targets in loader:
            optimizer.zero_grad()
            loss_fn(model(inputs), targets).backward()
            optimizer.step()
        with st.no_grad():
            accuracy = (model(x_test).argmax(dim=1) == y_test).float().mean().item()
        if accuracy >= 0.95:
            return time.perf_counter() - start, epoch, accuracy
    return time.perf_counter() - start, max_epochs, accuracy


def names_step_seconds(lib: Any, steps: int = 20) -> float:
    """Median seconds per training step of the name generator in ``lib``."""
    data = names.examples(load_names())
    batches = names.draw_batches(len(data[0]), steps=1)
    weights = {k: lib.tensor(v) for k, v in names.initial_weights(st).items()}
    times = []
    for _ in range(steps):
        _, _, seconds = names.train(lib, weights, data, batches)
        times.append(seconds)
    return statistics.median(times)


def main() -> int:
    seconds, epochs, accuracy = digits_to_95()
    verdict = (
        "PASS" if accuracy >= 0.95 and seconds <= DIGITS_TARGET_SECONDS else "FAIL"
    )
    print(
        f"digits to 95 %: {seconds:.1f} s ({epochs} epochs, test accuracy "
        f"{accuracy:.1%}); target <= {DIGITS_TARGET_SECONDS:g} s {verdict}"
    )
    engine = names_step_seconds(st)
    line = f"names model, one step: engine {engine * 1e3:.1f} ms"
    try:
        import torch
    except ImportError:
        print(line)
    else:
        torch.set_num_threads(1)
        reference = names_step_seconds(torch)
        print(f"{line}, torch {reference * 1e3:.2f} ms ({engine / reference:.0f}x)")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
