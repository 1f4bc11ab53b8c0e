"""The convolution benchmark cases: a ``Conv2d`` forward and backward, a CNN step.

Both use chapter 5's shapes: a batch of 32 one-channel 8x8 images and
``Conv2d(1, 8, 3)`` (no padding, so 6x6 maps). The CNN adds ReLU,
``MaxPool2d(2)`` and ``Linear(72, 10)``, with cross-entropy and
``optim.SGD``.

Each baseline is pure Python over flat lists, written by hand for its case:
every window gathered once, one ``sum(map(mul, ...))`` per output element,
and each result that the engine stores as a float32 tensor rounded to
float32 here too (:func:`~bench.flat.to_float32`), in the same order, so
that both compute the same numbers (``tests/nn/test_conv_bench.py`` checks
that they agree).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import chain
from operator import itemgetter, mul, sub
from typing import Any

import slowtorch_lib as st
from bench.flat import float32, random_floats, to_float32
from bench.nn_cases import affine, affine_backward, log_softmax_rows

Program = Callable[[], Any]

BATCH = 32
SIZE = 8  # images are SIZE x SIZE
KERNEL = 3
CHANNELS = 8
OUT = SIZE - KERNEL + 1  # 6
POOLED = OUT // 2  # 3
FEATURES = CHANNELS * POOLED * POOLED  # 72
CLASSES = 10
LEARNING_RATE = 0.1
CONV_CASE = "Conv2d(1, 8, 3) fwd+bwd, batch 32 of 8x8"
CNN_CASE = "CNN training step (conv, ReLU, max-pool, linear; SGD), batch 32"
TARGETS = {CONV_CASE: 1.5, CNN_CASE: 1.5}


# ----------------------------------------------------------------------
# Flat-list kernels of the baselines
# ----------------------------------------------------------------------


def windows(images: list[float], batch: int) -> list[list[float]]:
    """Every 3x3 window of each 8x8 image, row by row: ``batch * 36`` lists."""
    corners = [i * SIZE + j for i in range(OUT) for j in range(OUT)]
    inside = [i * SIZE + j for i in range(KERNEL) for j in range(KERNEL)]
    picks = [itemgetter(*[c + d for d in inside]) for c in corners]
    result = []
    for b in range(batch):
        image = images[b * SIZE * SIZE : (b + 1) * SIZE * SIZE]
        result += [list(pick(image)) for pick in picks]
    return result


def conv_forward(
    columns: list[list[float]], weight: list[float], bias: list[float], batch: int
) -> list[float]:
    """``(batch, 8, 36)``: each filter's dot product with each window, plus bias."""
    filters = [weight[o * 9 : (o + 1) * 9] for o in range(CHANNELS)]
    places = OUT * OUT
    out: list[float] = []
    for b in range(batch):
        mine = columns[b * places : (b + 1) * places]
        for row, shift in zip(filters, bias):
            dots = to_float32([sum(map(mul, row, w)) for w in mine])
            out += [d + shift for d in dots]
    return to_float32(out)


def conv_weight_grad(
    columns: list[list[float]], grad: list[float], batch: int
) -> tuple[list[float], list[float]]:
    """The weight's gradient (per image, then added up) and the bias's."""
    places = OUT * OUT
    per_image = []
    for b in range(batch):
        mine = columns[b * places : (b + 1) * places]
        taps = [list(tap) for tap in zip(*mine)]  # 9 columns of 36
        rows = [
            grad[(b * CHANNELS + o) * places : (b * CHANNELS + o + 1) * places]
            for o in range(CHANNELS)
        ]
        per_image.append(to_float32([sum(map(mul, r, t)) for r in rows for t in taps]))
    grad_weight = to_float32([sum(values) for values in zip(*per_image)])
    maps = [grad[k * places : (k + 1) * places] for k in range(batch * CHANNELS)]
    grad_bias = to_float32(
        [sum(chain.from_iterable(maps[o::CHANNELS])) for o in range(CHANNELS)]
    )
    return grad_weight, grad_bias


def conv_input_grad(weight: list[float], grad: list[float], batch: int) -> list[float]:
    """``weight.T @ grad`` per image, each column added back into its window."""
    places = OUT * OUT
    taps = [weight[q::9] for q in range(9)]  # 9 rows of 8
    corners = [i * SIZE + j for i in range(OUT) for j in range(OUT)]
    inside = [i * SIZE + j for i in range(KERNEL) for j in range(KERNEL)]
    out = [0.0] * (batch * SIZE * SIZE)
    for b in range(batch):
        maps = [
            grad[(b * CHANNELS + o) * places : (b * CHANNELS + o + 1) * places]
            for o in range(CHANNELS)
        ]
        positions = list(zip(*maps))  # 36 columns of 8
        base = b * SIZE * SIZE
        for q, tap in enumerate(taps):
            spread = to_float32([sum(map(mul, tap, column)) for column in positions])
            for corner, value in zip(corners, spread):
                out[base + corner + inside[q]] += value
    return to_float32(out)


def max_pool(values: list[float], planes: int) -> tuple[list[float], list[int]]:
    """2x2 max pooling of ``planes`` 6x6 maps; the flat position of each max."""
    starts = [2 * i * OUT + 2 * j for i in range(POOLED) for j in range(POOLED)]
    cells = [(s, s + 1, s + OUT, s + OUT + 1) for s in starts]
    reads = [itemgetter(*cell) for cell in cells]
    picked, where = [], []
    for k in range(planes):
        base = k * OUT * OUT
        channel = values[base : base + OUT * OUT]
        for cell, read in zip(cells, reads):
            window = read(channel)
            best = window.index(max(window))
            picked.append(window[best])
            where.append(base + cell[best])
    return picked, where


# ----------------------------------------------------------------------
# Case 1: Conv2d forward and backward, loss = sum of the output
# ----------------------------------------------------------------------


def conv_case(torch: Any) -> tuple[str, Program, Program, Program | None]:
    st.manual_seed(0)
    layer = st.nn.Conv2d(1, CHANNELS, KERNEL)
    weight, bias = layer.weight.flatten().tolist(), layer.bias.tolist()
    images = random_floats(BATCH * SIZE * SIZE, 21)
    x = st.tensor(images).reshape(BATCH, 1, SIZE, SIZE)

    def engine() -> Any:
        layer.zero_grad()
        inputs = x.detach().requires_grad_()
        layer(inputs).sum().backward()
        return inputs.grad, layer.weight.grad, layer.bias.grad

    def baseline() -> Any:
        columns = windows(images, BATCH)
        out = conv_forward(columns, weight, bias, BATCH)
        loss = float32(sum(out))
        ones = [1.0] * len(out)
        grad_weight, grad_bias = conv_weight_grad(columns, ones, BATCH)
        return loss, conv_input_grad(weight, ones, BATCH), grad_weight, grad_bias

    reference = None
    if torch is not None:
        t_layer = torch.nn.Conv2d(1, CHANNELS, KERNEL)
        with torch.no_grad():
            t_layer.weight.copy_(torch.tensor(weight).reshape(t_layer.weight.shape))
            t_layer.bias.copy_(torch.tensor(bias))
        tx = torch.tensor(images).reshape(BATCH, 1, SIZE, SIZE)

        def reference() -> Any:
            t_layer.zero_grad()
            inputs = tx.detach().requires_grad_()
            t_layer(inputs).sum().backward()
            return inputs.grad

    return CONV_CASE, engine, baseline, reference


# ----------------------------------------------------------------------
# Case 2: one training step of the CNN
# ----------------------------------------------------------------------


def make_cnn(lib: Any) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, CHANNELS, KERNEL),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(FEATURES, CLASSES),
    )


def training_step(lib: Any, model: Any, optimizer: Any, x: Any, target: Any) -> Any:
    """zero_grad, forward, loss, backward, step (the same code for both)."""
    optimizer.zero_grad()
    loss = lib.nn.functional.cross_entropy(model(x), target)
    loss.backward()
    optimizer.step()
    return loss


class BaselineCNN:
    """The CNN as flat lists: ``params`` is ``[w1, b1, w2, b2]``."""

    def __init__(self, params: list[list[float]]) -> None:
        self.params = params
        self.rate = float32(LEARNING_RATE)

    def step(self, images: list[float], labels: list[int]) -> float:
        w1, b1, w2, b2 = self.params
        n = BATCH
        columns = windows(images, n)
        conv = conv_forward(columns, w1, b1, n)
        relu = [v if v > 0.0 else 0.0 for v in conv]
        pooled, where = max_pool(relu, n * CHANNELS)
        logits = affine(pooled, w2, b2, n, FEATURES, CLASSES)
        log_p = log_softmax_rows(logits, CLASSES)
        loss = float32(sum([-log_p[i * CLASSES + t] for i, t in enumerate(labels)]) / n)
        # cross-entropy's backward: softmax minus one-hot, over n
        share = float32(-1.0 / n)
        grad_log_p = [0.0] * (n * CLASSES)
        for i, t in enumerate(labels):
            grad_log_p[i * CLASSES + t] += share
        row_sums = to_float32(
            [sum(grad_log_p[i : i + CLASSES]) for i in range(0, n * CLASSES, CLASSES)]
        )
        probabilities = to_float32(list(map(math.exp, log_p)))
        scaled = to_float32(
            [p * row_sums[i // CLASSES] for i, p in enumerate(probabilities)]
        )
        grad_logits = to_float32(list(map(sub, grad_log_p, scaled)))
        grad_pooled, grad_w2, grad_b2 = affine_backward(
            pooled, w2, grad_logits, n, FEATURES, CLASSES
        )
        grad_relu = [0.0] * len(relu)
        for position, value in zip(where, grad_pooled):
            grad_relu[position] += value
        grad_conv = [g if v > 0.0 else 0.0 for g, v in zip(grad_relu, conv)]
        grad_w1, grad_b1 = conv_weight_grad(columns, grad_conv, n)
        grads = [grad_w1, grad_b1, grad_w2, grad_b2]
        self.params = [
            to_float32(list(map(sub, p, to_float32([self.rate * g for g in grad]))))
            for p, grad in zip(self.params, grads)
        ]
        return loss


def cnn_case(torch: Any) -> tuple[str, Program, Program, Program | None]:
    st.manual_seed(0)
    model = make_cnn(st)
    optimizer = st.optim.SGD(model.parameters(), lr=LEARNING_RATE)
    images = [abs(v) for v in random_floats(BATCH * SIZE * SIZE, 22)]
    labels = [int(abs(v) * CLASSES) % CLASSES for v in random_floats(BATCH, 23)]
    x = st.tensor(images).reshape(BATCH, 1, SIZE, SIZE)
    target = st.tensor(labels)
    params = [p.detach().flatten().tolist() for p in model.parameters()]
    baseline_model = BaselineCNN(params)

    reference = None
    if torch is not None:
        t_model = make_cnn(torch)
        with torch.no_grad():
            for p, values in zip(t_model.parameters(), params):
                p.copy_(torch.tensor(values).reshape(p.shape))
        t_optimizer = torch.optim.SGD(t_model.parameters(), lr=LEARNING_RATE)
        tx = torch.tensor(images).reshape(BATCH, 1, SIZE, SIZE)
        t_target = torch.tensor(labels)

        def reference() -> Any:
            return training_step(torch, t_model, t_optimizer, tx, t_target)

    return (
        CNN_CASE,
        lambda: training_step(st, model, optimizer, x, target),
        lambda: baseline_model.step(images, labels),
        reference,
    )


def specs(torch: Any) -> list[tuple[str, Program, Program, Program | None, float]]:
    """``(name, engine, baseline, torch, target)`` for each convolution case."""
    cases = [conv_case(torch), cnn_case(torch)]
    return [(*case, TARGETS[case[0]]) for case in cases]
