"""Chapter 5's CNN run on the 8x8 digits.

The model, the batches and the loop are the benchmark's
(:mod:`bench.cnn_digits`), so that the page, the benchmark and the record of
PyTorch's run train exactly the same thing; the page trains for fewer
epochs, enough to pass 97 % on the test set.
"""

from __future__ import annotations

from typing import Any

from bench.cnn_digits import make_cnn, train
from course.datasets import load_digits

EPOCHS = 4
SEED = 0

__all__ = ["EPOCHS", "SEED", "initial_state", "make_cnn", "run"]


def initial_state(engine: Any) -> tuple[Any, dict[str, list[Any]]]:
    """The engine's model drawn from ``SEED``, and its weights as lists."""
    engine.manual_seed(SEED)
    model = make_cnn(engine)
    return model, {k: v.tolist() for k, v in model.state_dict().items()}


def run(lib: Any, model: Any) -> tuple[list[float], list[float], list[float]]:
    """Trains ``model`` (of ``lib``) for ``EPOCHS``: losses, accuracies, seconds."""
    images, labels = load_digits("train")
    return train(lib, model, images, labels, EPOCHS)
