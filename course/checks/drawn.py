"""What the drawn cases share: random shapes, values and index expressions.

A drawn case (``Case(..., drawn=True)``) is ``run(torch, rng)``: it draws its
inputs from ``rng`` (a :class:`random.Random` the grader's judge seeds for
each run), then runs like any case. The judge computes the expected outcome
on the complete engine, outside the sandbox, for the same draw; the sandbox
sees the seed, never an expected value. Standard library only.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from course.checking import Case

Rng = random.Random


def drawn(label: str, run: Callable[[Any, Rng], Any]) -> Case:
    """A drawn case (its label says what is drawn, never the draw)."""
    return Case(f"drawn: {label}", run, drawn=True)


def shape(
    rng: Rng, low: int = 1, high: int = 4, dims: tuple[int, int] = (1, 4)
) -> list[int]:
    return [rng.randint(low, high) for _ in range(rng.randint(*dims))]


def numel(sizes: list[int]) -> int:
    count = 1
    for size in sizes:
        count *= size
    return count


def values(rng: Rng, count: int, low: float = -4.0, high: float = 4.0) -> list[float]:
    """Values with two decimals (exact enough in float32 to compare)."""
    return [round(rng.uniform(low, high), 2) for _ in range(count)]


def tensor(torch: Any, rng: Rng, sizes: list[int], **kwargs: Any) -> Any:
    """A tensor of ``sizes`` holding drawn values, contiguous."""
    flat = torch.tensor(values(rng, numel(sizes), **kwargs))
    return flat.reshape(*sizes) if sizes else flat.sum()


def permutation(rng: Rng, dims: int) -> list[int]:
    order = list(range(dims))
    rng.shuffle(order)
    return order


def factors(rng: Rng, count: int, parts: int) -> list[int]:
    """``parts`` sizes whose product is ``count``."""
    sizes = [1] * parts
    left = count
    for prime in (2, 3, 5, 7):
        while left % prime == 0:
            left //= prime
            sizes[rng.randrange(parts)] *= prime
    sizes[rng.randrange(parts)] *= left
    return sizes


def layout(tensor: Any) -> dict[str, Any]:
    """Shape, strides, offset and values: everything a layout decides."""
    return {
        "shape": list(tensor.shape),
        "stride": list(tensor.stride()),
        "offset": tensor.storage_offset(),
        "values": tensor,
    }


def leaf(torch: Any, rng: Rng, sizes: list[int], **kwargs: Any) -> Any:
    return tensor(torch, rng, sizes, **kwargs).detach().requires_grad_()


def grads(*tensors: Any) -> list[Any]:
    return [None if t.grad is None else t.grad for t in tensors]
