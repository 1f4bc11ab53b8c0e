"""Short programs in the style people learn PyTorch from, run on both libraries.

Each program is a function ``run(torch)`` that takes the library (the
engine or PyTorch) and returns a dict of numbers: losses, predictions,
shapes. Most draw their inputs from Python's ``random`` with a fixed seed,
so both libraries see the same numbers whatever the library's generator;
the programs that seed the library's own generator (``manual_seed``) check
that the engine draws PyTorch's numbers, weights and batches.
``tests/test_programs.py`` runs each under both and compares.
"""

from __future__ import annotations

import random
from typing import Any

NAMES = [
    "emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper",
    "evelyn", "abigail", "emily", "ella", "elizabeth", "camila", "luna", "sofia",
    "avery", "mila", "aria", "scarlett", "penelope", "layla", "chloe", "victoria",
    "madison", "eleanor", "grace", "nora", "riley", "zoey", "hannah", "hazel",
]  # fmt: skip

TEXT = (
    "first citizen: before we proceed any further, hear me speak. "
    "all: speak, speak. first citizen: you are all resolved rather to die "
    "than to famish? all: resolved. resolved. first citizen: first, you "
    "know caius marcius is chief enemy to the people. "
)


def gauss(torch: Any, rng: random.Random, shape: tuple[int, ...], scale: float) -> Any:
    """A float32 tensor of normal numbers drawn from ``rng``."""
    count = 1
    for size in shape:
        count *= size
    values = [rng.gauss(0.0, scale) for _ in range(count)]
    return torch.tensor(values).view(*shape)


def fill_parameters(torch: Any, model: Any, rng: random.Random) -> None:
    """Overwrites every parameter with numbers from ``rng``, so that both
    libraries start from the same weights (their own initialisers differ)."""
    with torch.no_grad():
        for parameter in model.parameters():
            fan_in = parameter.shape[-1] if parameter.dim() > 1 else 4
            scale = fan_in**-0.5
            parameter.copy_(gauss(torch, rng, tuple(parameter.shape), scale))
