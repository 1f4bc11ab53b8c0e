"""The ``nn`` benchmark cases: a ``Linear(64, 64)`` layer and an MLP training step.

Each case has an engine program (written as a student would write it, with
``slowtorch_lib.nn`` and, for the training step, ``slowtorch_lib.optim.SGD``),
a hand-written pure-Python baseline over flat lists (helpers in
:mod:`bench.flat`) and a torch program. The baseline computes the *same
float32 numbers* as the engine: every intermediate result that the engine
stores as a float32 tensor is rounded to float32 here too (:func:`to_float32`),
and sums run in the same order. ``tests/nn/test_nn_bench.py`` checks that they
agree exactly, step after step.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from operator import add, mul, sub
from typing import Any

import slowtorch_lib as st
from bench.flat import (
    columns_of,
    float32,
    matmul,
    products,
    random_floats,
    rows_of,
    to_float32,
)
from slowtorch_lib import nn

Program = Callable[[], Any]

BATCH = 64
LEARNING_RATE = 0.1
LINEAR_CASE = "Linear(64, 64) fwd+bwd, batch 64"
MLP_CASE = "MLP 2-64-64-2 training step (cross-entropy, SGD)"
TARGETS = {LINEAR_CASE: 1.3, MLP_CASE: 1.3}


# ----------------------------------------------------------------------
# Flat-list kernels of the baselines
# ----------------------------------------------------------------------


def affine(
    x: list[float], weight: list[float], bias: list[float], n: int, k: int, m: int
) -> list[float]:
    """``x @ weight.T + bias`` with ``weight`` ``(m, k)``: rows times rows."""
    dots = products(rows_of(x, n, k), rows_of(weight, m, k))
    return to_float32(list(map(add, dots, bias * n)))


def affine_backward(
    x: list[float],
    weight: list[float],
    grad: list[float],
    n: int,
    k: int,
    m: int,
    need_input: bool = True,
) -> Any:
    """Gradients of ``x @ weight.T + bias`` given ``grad`` ``(n, m)``.

    ``grad_x = grad @ weight``, ``grad_weight = grad.T @ x`` and
    ``grad_bias`` is the column sums of ``grad``.
    """
    grad_columns = columns_of(grad, n, m)
    grad_x = None
    if need_input:
        grad_x = to_float32(matmul(grad, weight, n, m, k))
    grad_weight = to_float32(products(grad_columns, columns_of(x, n, k)))
    grad_bias = to_float32([sum(column) for column in grad_columns])
    return grad_x, grad_weight, grad_bias


# ----------------------------------------------------------------------
# Case 1: forward and backward of Linear(64, 64), loss = sum of the output
# ----------------------------------------------------------------------


def linear_case(torch: Any) -> tuple[str, Program, Program, Program | None]:
    features = 64
    layer = nn.Linear(features, features)
    weight, bias = layer.weight.tolist(), layer.bias.tolist()
    flat_weight = [v for row in weight for v in row]
    x_values = random_floats(BATCH * features, 11)
    x = st.tensor(x_values).reshape(BATCH, features)

    def engine() -> Any:
        layer.zero_grad()
        inputs = x.detach().requires_grad_()
        layer(inputs).sum().backward()
        return inputs.grad, layer.weight.grad, layer.bias.grad

    def baseline() -> Any:
        out = affine(x_values, flat_weight, bias, BATCH, features, features)
        loss = float32(sum(out))
        ones = [1.0] * (BATCH * features)
        grads = affine_backward(x_values, flat_weight, ones, BATCH, features, features)
        return loss, grads

    reference = None
    if torch is not None:
        t_layer = torch.nn.Linear(features, features)
        with torch.no_grad():
            t_layer.weight.copy_(torch.tensor(weight))
            t_layer.bias.copy_(torch.tensor(bias))
        tx = torch.tensor(x_values).reshape(BATCH, features)

        def reference() -> Any:
            t_layer.zero_grad()
            inputs = tx.detach().requires_grad_()
            t_layer(inputs).sum().backward()
            return inputs.grad

    return LINEAR_CASE, engine, baseline, reference


# ----------------------------------------------------------------------
# Case 2: one training step of a 2 -> 64 -> 64 -> 2 tanh MLP
# ----------------------------------------------------------------------


def make_mlp(lib: Any) -> Any:
    return lib.nn.Sequential(
        lib.nn.Linear(2, 64),
        lib.nn.Tanh(),
        lib.nn.Linear(64, 64),
        lib.nn.Tanh(),
        lib.nn.Linear(64, 2),
    )


def mlp_data() -> tuple[list[float], list[int]]:
    """Two interleaved classes in the plane, ``BATCH`` points."""
    points = random_floats(2 * BATCH, 12)
    labels = [int(points[2 * i] * points[2 * i + 1] > 0) for i in range(BATCH)]
    return points, labels


def training_step(lib: Any, model: Any, optimizer: Any, x: Any, target: Any) -> Any:
    """zero_grad, forward, loss, backward, step: how a student writes it.

    ``lib`` is ``slowtorch_lib`` or ``torch``: the same code runs under both.
    """
    optimizer.zero_grad()
    loss = lib.nn.functional.cross_entropy(model(x), target)
    loss.backward()
    optimizer.step()
    return loss


def tanh_backward(grad: list[float], result: list[float]) -> list[float]:
    """``grad * (1 - result * result)``, rounded after each of the three steps."""
    squares = to_float32(list(map(mul, result, result)))
    slopes = to_float32([1.0 - s for s in squares])
    return to_float32(list(map(mul, grad, slopes)))


def log_softmax_rows(logits: list[float], classes: int) -> list[float]:
    out: list[float] = []
    for start in range(0, len(logits), classes):
        row = logits[start : start + classes]
        largest = max(row)
        shifted = [v - largest for v in row]
        log_total = math.log(sum(map(math.exp, shifted)))
        out.extend([s - log_total for s in shifted])
    return to_float32(out)


class BaselineMLP:
    """The same MLP as flat lists: ``params`` is ``[w1, b1, w2, b2, w3, b3]``."""

    def __init__(self, params: list[list[float]]) -> None:
        self.params = params
        self.rate = float32(LEARNING_RATE)  # the engine rounds 0.1 to float32

    def step(self, x: list[float], labels: list[int]) -> float:
        w1, b1, w2, b2, w3, b3 = self.params
        n, hidden, classes = BATCH, 64, 2
        # forward
        h1 = to_float32(list(map(math.tanh, affine(x, w1, b1, n, 2, hidden))))
        h2 = to_float32(list(map(math.tanh, affine(h1, w2, b2, n, hidden, hidden))))
        logits = affine(h2, w3, b3, n, hidden, classes)
        log_p = log_softmax_rows(logits, classes)
        picked = [log_p[i * classes + t] for i, t in enumerate(labels)]
        loss = float32(sum([-v for v in picked]) / n)
        # backward of nll_loss: -1/n at each target, 0 elsewhere
        share = float32(-1.0 / n)
        grad_log_p = [0.0] * (n * classes)
        for i, t in enumerate(labels):
            grad_log_p[i * classes + t] += share
        # backward of log_softmax: g - exp(log_p) * sum(g) per row
        row_sums = to_float32(
            [sum(grad_log_p[i : i + classes]) for i in range(0, n * classes, classes)]
        )
        probabilities = to_float32(list(map(math.exp, log_p)))
        scaled = to_float32(
            [p * row_sums[i // classes] for i, p in enumerate(probabilities)]
        )
        grad_logits = to_float32(list(map(sub, grad_log_p, scaled)))
        grad_h2, grad_w3, grad_b3 = affine_backward(
            h2, w3, grad_logits, n, hidden, classes
        )
        grad_z2 = tanh_backward(grad_h2, h2)
        grad_h1, grad_w2, grad_b2 = affine_backward(h1, w2, grad_z2, n, hidden, hidden)
        grad_z1 = tanh_backward(grad_h1, h1)
        _, grad_w1, grad_b1 = affine_backward(
            x, w1, grad_z1, n, 2, hidden, need_input=False
        )
        # SGD, as param.add_(grad, alpha=-lr): the product rounded, then the sum
        grads = [grad_w1, grad_b1, grad_w2, grad_b2, grad_w3, grad_b3]
        self.params = [
            to_float32(list(map(sub, p, to_float32([self.rate * g for g in grad]))))
            for p, grad in zip(self.params, grads)
        ]
        return loss


def flat_parameters(model: Any) -> list[list[float]]:
    return [p.detach().flatten().tolist() for p in model.parameters()]


def mlp_case(torch: Any) -> tuple[str, Program, Program, Program | None]:
    st.manual_seed(0)
    model = make_mlp(st)
    optimizer = st.optim.SGD(model.parameters(), lr=LEARNING_RATE)
    points, labels = mlp_data()
    x = st.tensor(points).reshape(BATCH, 2)
    target = st.tensor(labels)
    baseline_model = BaselineMLP(flat_parameters(model))

    reference = None
    if torch is not None:
        t_model = make_mlp(torch)
        with torch.no_grad():
            for p, values in zip(t_model.parameters(), flat_parameters(model)):
                p.copy_(torch.tensor(values).reshape(p.shape))
        t_optimizer = torch.optim.SGD(t_model.parameters(), lr=LEARNING_RATE)
        tx = torch.tensor(points).reshape(BATCH, 2)
        t_target = torch.tensor(labels)

        def reference() -> Any:
            return training_step(torch, t_model, t_optimizer, tx, t_target)

    return (
        MLP_CASE,
        lambda: training_step(st, model, optimizer, x, target),
        lambda: baseline_model.step(points, labels),
        reference,
    )


def specs(torch: Any) -> list[tuple[str, Program, Program, Program | None, float]]:
    """``(name, engine, baseline, torch, target)`` for each nn case."""
    cases = [linear_case(torch), mlp_case(torch)]
    return [(*case, TARGETS[case[0]]) for case in cases]
