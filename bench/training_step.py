"""One training step of a small MLP: the engine against hand-written Python.

The network is 2 -> 64 -> 64 -> 2 with ReLU, on a batch of 64 points, with
a cross-entropy loss and a plain SGD step (``lr = 0.1``). Three programs
do the same step:

* **engine**: slowtorch_lib tensors, autograd and ``optim.SGD``, written as
  a student would write it (no ``nn``: the layers are ``x @ w + b``);
* **baseline**: the same step by hand on flat lists of Python floats, each
  intermediate result rounded to float32 where the engine stores one, so
  that it returns the same numbers (``tests/optim/test_bench_step.py``
  checks that);
* **torch**: PyTorch, for scale.

The three big products (``h1 @ w2`` forward; ``h1^T @ dz2`` and
``dz2 @ w2^T`` backward, each 64x64x64) dominate: the target is that the
engine's bookkeeping (graph, optimiser, small ops) adds at most 30 %.
"""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Callable
from operator import mul
from typing import Any

import slowtorch_lib as st

BATCH, HIDDEN, LR = 64, 64, 0.1
SIZES = [(2, HIDDEN), (HIDDEN, HIDDEN), (HIDDEN, 2)]


def f32(values: list[float]) -> list[float]:
    """Rounded to float32, as the engine's storage rounds."""
    return array("f", values).tolist()


def initial_values(seed: int = 0) -> dict[str, Any]:
    """The batch, the labels and the initial weights, as float32 lists."""
    rng = random.Random(seed)
    values: dict[str, Any] = {
        "x": f32([rng.uniform(-2, 2) for _ in range(BATCH * 2)]),
        "labels": [rng.randrange(2) for _ in range(BATCH)],
    }
    for layer, (fan_in, fan_out) in enumerate(SIZES, start=1):
        bound = 1 / math.sqrt(fan_in)
        values[f"w{layer}"] = f32(
            [rng.uniform(-bound, bound) for _ in range(fan_in * fan_out)]
        )
        values[f"b{layer}"] = f32([rng.uniform(-bound, bound) for _ in range(fan_out)])
    return values


# ----------------------------------------------------------------------
# The engine
# ----------------------------------------------------------------------


def cross_entropy(logits: Any, one_hot: Any) -> Any:
    """Mean cross-entropy from logits, with the log-sum-exp shifted by the max."""
    shifted = logits - logits.amax(dim=1, keepdim=True)
    log_probs = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    return -(log_probs * one_hot).sum() / logits.shape[0]


def make_engine_step(lib: Any, values: dict[str, Any]) -> tuple[Callable[[], Any], Any]:
    """A training step in ``lib`` (slowtorch_lib or torch), and its parameters."""
    x = lib.tensor(values["x"]).reshape(BATCH, 2)
    one_hot = lib.tensor([[float(y == c) for c in range(2)] for y in values["labels"]])
    params = {}
    for layer, (fan_in, fan_out) in enumerate(SIZES, start=1):
        params[f"w{layer}"] = lib.tensor(values[f"w{layer}"]).reshape(fan_in, fan_out)
        params[f"b{layer}"] = lib.tensor(values[f"b{layer}"])
    for tensor in params.values():
        tensor.requires_grad_(True)
    w1, b1, w2, b2, w3, b3 = params.values()
    optimizer = lib.optim.SGD(params.values(), lr=LR)

    def step() -> Any:
        h1 = (x @ w1 + b1).relu()
        h2 = (h1 @ w2 + b2).relu()
        loss = cross_entropy(h2 @ w3 + b3, one_hot)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    return step, params


# ----------------------------------------------------------------------
# The baseline: the same step by hand
# ----------------------------------------------------------------------


def matmul(
    left: list[float], right: list[float], n: int, k: int, m: int
) -> list[float]:
    """Row-major ``(n, k) @ (k, m)``, rounded to float32."""
    rows = [left[i * k : (i + 1) * k] for i in range(n)]
    columns = [right[j::m] for j in range(m)]
    return f32([sum(map(mul, row, column)) for row in rows for column in columns])


def transpose(values: list[float], n: int, m: int) -> list[float]:
    """The ``(m, n)`` transpose of a row-major ``(n, m)`` list."""
    return [values[i * m + j] for j in range(m) for i in range(n)]


def add_bias(values: list[float], bias: list[float]) -> list[float]:
    width = len(bias)
    return f32([v + bias[i % width] for i, v in enumerate(values)])


def column_sums(values: list[float], n: int, m: int) -> list[float]:
    return f32([math.fsum(values[j::m]) for j in range(m)])


def make_baseline_step(
    values: dict[str, Any],
) -> tuple[Callable[[], float], dict[str, Any]]:
    """The same step on flat lists; returns the loss, updates the weights."""
    x, labels = values["x"], values["labels"]
    params = {k: list(v) for k, v in values.items() if k[0] in "wb"}
    n, h = BATCH, HIDDEN

    def step() -> float:
        w1, b1, w2, b2, w3, b3 = (
            params[k] for k in ("w1", "b1", "w2", "b2", "w3", "b3")
        )
        z1 = add_bias(matmul(x, w1, n, 2, h), b1)
        h1 = [v if v > 0 else 0.0 for v in z1]
        z2 = add_bias(matmul(h1, w2, n, h, h), b2)
        h2 = [v if v > 0 else 0.0 for v in z2]
        logits = add_bias(matmul(h2, w3, n, h, 2), b3)
        # Cross-entropy and its gradient, row by row (two classes).
        loss = 0.0
        grad_logits = []
        for row, label in enumerate(labels):
            a, b = logits[2 * row], logits[2 * row + 1]
            top = max(a, b)
            total = math.exp(a - top) + math.exp(b - top)
            loss -= (a if label == 0 else b) - top - math.log(total)
            for column, value in enumerate((a, b)):
                p = math.exp(value - top) / total
                grad_logits.append((p - (column == label)) / n)
        grad_logits = f32(grad_logits)
        # Backward through the layers.
        grad_w3 = matmul(transpose(h2, n, h), grad_logits, h, n, 2)
        grad_b3 = column_sums(grad_logits, n, 2)
        grad_h2 = matmul(grad_logits, transpose(w3, h, 2), n, 2, h)
        grad_z2 = [g if z > 0 else 0.0 for g, z in zip(grad_h2, z2)]
        grad_w2 = matmul(transpose(h1, n, h), grad_z2, h, n, h)
        grad_b2 = column_sums(grad_z2, n, h)
        grad_h1 = matmul(grad_z2, transpose(w2, h, h), n, h, h)
        grad_z1 = [g if z > 0 else 0.0 for g, z in zip(grad_h1, z1)]
        grad_w1 = matmul(transpose(x, n, 2), grad_z1, 2, n, h)
        grad_b1 = column_sums(grad_z1, n, h)
        # The SGD step.
        grads = (grad_w1, grad_b1, grad_w2, grad_b2, grad_w3, grad_b3)
        for name, grad in zip(("w1", "b1", "w2", "b2", "w3", "b3"), grads):
            params[name] = f32([p - LR * g for p, g in zip(params[name], grad)])
        return loss / n

    return step, params


def make_programs(torch: Any) -> tuple[Callable[[], Any], Callable[[], Any], Any]:
    """The engine, baseline and torch programs for ``python -m bench``."""
    values = initial_values()
    engine, _ = make_engine_step(st, values)
    baseline, _ = make_baseline_step(values)
    reference = make_engine_step(torch, values)[0] if torch is not None else None
    return engine, baseline, reference
