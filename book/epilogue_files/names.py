"""The epilogue's name generator: one script for either library.

Every function takes the library as its first argument, ``torch``: either
``slowtorch_lib`` or PyTorch itself, and uses nothing but PyTorch's API.
"""

from __future__ import annotations

import random
import time
from typing import Any

ALPHABET = "." + "abcdefghijklmnopqrstuvwxyz"  # "." starts and ends a name
CONTEXT = 3
STEPS, BATCH = 500, 32


def examples(words: list[str]) -> tuple[list[list[int]], list[int]]:
    """Every (previous three characters, next character) pair in the words."""
    index_of = {c: i for i, c in enumerate(ALPHABET)}
    contexts, targets = [], []
    for word in words:
        context = [0] * CONTEXT
        for char in word + ".":
            contexts.append(context)
            targets.append(index_of[char])
            context = context[1:] + [index_of[char]]
    return contexts, targets


def draw_batches(count: int, steps: int = STEPS, seed: int = 2003) -> list[list[int]]:
    """Which examples each step trains on, drawn with Python's random numbers."""
    rng = random.Random(seed)
    return [[rng.randrange(count) for _ in range(BATCH)] for _ in range(steps)]


def make_model(torch: Any, hidden: int = 64) -> Any:
    nn = torch.nn
    return nn.Sequential(
        nn.Embedding(27, 10),  # (batch, 3) -> (batch, 3, 10)
        nn.Flatten(),  # -> (batch, 30)
        nn.Linear(30, hidden),
        nn.Tanh(),
        nn.Linear(hidden, 27),  # a score for each next character
    )


def train(torch: Any, weights: dict[str, Any], data: Any, batches: Any) -> Any:
    """Trains a model that starts from ``weights``; returns it, the losses
    and the seconds the training took."""
    contexts, targets = data
    model = make_model(torch)
    model.load_state_dict(weights)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.9)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=len(batches))
    loss_fn = torch.nn.CrossEntropyLoss()
    losses = []
    start = time.perf_counter()
    for batch in batches:
        inputs = torch.tensor([contexts[i] for i in batch])
        expected = torch.tensor([targets[i] for i in batch])
        loss = training_step(torch, model, optimizer, loss_fn, inputs, expected)
        schedule.step()
        losses.append(loss.item())
    return model, losses, time.perf_counter() - start


def training_step(
    torch: Any, model: Any, optimizer: Any, loss_fn: Any, inputs: Any, expected: Any
) -> Any:
    """One step of the loop of chapter 4, with gradient clipping; the loss."""
    optimizer.zero_grad()
    loss = loss_fn(model(inputs), expected)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    optimizer.step()
    return loss


def generate(torch: Any, model: Any, count: int = 10, seed: int = 1) -> list[str]:
    """Writes names: each step draws the next character from the model's
    probabilities, with Python's random numbers (the same for both libraries)."""
    draw = random.Random(seed)
    words = []
    with torch.no_grad():
        for _ in range(count):
            context, word = [0] * CONTEXT, ""
            while len(word) < 20:
                scores = model(torch.tensor([context]))
                probs = torch.nn.functional.softmax(scores, dim=1)[0].tolist()
                char = draw.choices(range(27), weights=probs)[0]
                if char == 0:
                    break
                word += ALPHABET[char]
                context = context[1:] + [char]
            words.append(word)
    return words


def sample_loss(torch: Any, model: Any, data: Any, count: int = 2000) -> float:
    """The model's mean loss on ``count`` examples spread evenly over the data."""
    contexts, targets = data
    picked = range(0, len(contexts), len(contexts) // count)[:count]
    with torch.no_grad():
        scores = model(torch.tensor([contexts[i] for i in picked]))
        expected = torch.tensor([targets[i] for i in picked])
        return float(torch.nn.functional.cross_entropy(scores, expected).item())


def initial_weights(lib: Any, seed: int = 0) -> dict[str, Any]:
    """The engine's initial weights as plain lists, to load into either library."""
    lib.manual_seed(seed)
    return {name: t.tolist() for name, t in make_model(lib).state_dict().items()}
