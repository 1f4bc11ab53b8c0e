"""What the drawn cases share: random shapes, values and index expressions.

A drawn case (``Case(..., drawn=True)``) is ``run(torch, rng)``: it draws its
inputs from ``rng`` (a :class:`random.Random` the grader's judge seeds for
each run), then runs like any case. The judge computes the expected outcome
on the complete engine, outside the sandbox, for the same draw; the sandbox
sees the seed, never an expected value. Standard library only.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any

from course.checking import Case

Rng = random.Random


def drawn(label: str, run: Callable[[Any, Rng], Any]) -> Case:
    """A drawn case (its label says what is drawn, never the draw)."""
    return Case(f"drawn: {label}", run, drawn=True)


def piece(torch: Any, target: str) -> Any:
    """The engine's ``target`` (``"_strides.position_list"``), as the check
    has put it in: for a case that calls a piece on plain data of its own,
    through no other piece (drawn cases run on the engine only)."""
    module, name = target.rsplit(".", 1)
    return getattr(importlib.import_module(f"{torch.__name__}.{module}"), name)


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
    """A tensor of ``sizes`` holding drawn values, contiguous (made from
    nested lists: no reshape, so no other piece than the strides)."""
    if 0 in sizes:
        return torch.zeros(*sizes)
    return torch.tensor(nested(values(rng, numel(sizes), **kwargs), sizes))


def nested(flat: list[Any], sizes: list[int]) -> Any:
    """``flat`` as nested lists of ``sizes``."""
    if not sizes:
        return flat[0]
    step = len(flat) // sizes[0]
    return [nested(flat[i * step : (i + 1) * step], sizes[1:]) for i in range(sizes[0])]


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


def layout(tensor: Any, ones: bool = True) -> dict[str, Any]:
    """Shape, strides, offset and values: everything a layout decides
    (without ``ones``, the strides of dimensions of size 1, which nothing
    reads, are left out)."""
    strides = list(tensor.stride())
    if not ones:
        strides = [s if n != 1 else None for s, n in zip(strides, tensor.shape)]
    return {
        "shape": list(tensor.shape),
        "stride": strides,
        "offset": tensor.storage_offset(),
        "values": tensor,
    }


def leaf(torch: Any, rng: Rng, sizes: list[int], **kwargs: Any) -> Any:
    return tensor(torch, rng, sizes, **kwargs).detach().requires_grad_()


def grads(*tensors: Any) -> list[Any]:
    return [None if t.grad is None else t.grad for t in tensors]


def node_grads(torch: Any, output: Any, grad: Any, outputs: int = 1) -> list[Any]:
    """What ``output``'s node gives for the gradient ``grad`` (of the first
    of its ``outputs``): its own backward rule alone, no backward pass (no
    other exercise's piece). PyTorch calls a node; the engine's node has
    ``apply``, which takes a gradient (or None) for each output."""
    node = output.grad_fn
    if torch.__name__ == "torch":
        found = node(grad)
    else:
        found = node.apply(grad, *[None] * (outputs - 1))
    return list(found) if isinstance(found, tuple) else [found]


def rule(
    make: Callable[[Any, Rng, Any], Any], sizes: list[int], low: float = -3.0
) -> Any:
    """A backward rule alone: ``make(torch, rng, x)``'s value for a drawn
    leaf ``x`` of ``sizes``, and its node's gradient for a drawn gradient."""

    def run(torch: Any, rng: Rng) -> Any:
        x = leaf(torch, rng, sizes, low=low)
        out = make(torch, rng, x)
        grad = tensor(torch, rng, list(out.shape))
        return {"output": out.detach(), "grads": node_grads(torch, out, grad)}

    return run
