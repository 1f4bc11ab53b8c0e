"""Tiny stand-ins used by exercises, readable in full.

:class:`Var` is a scalar that remembers where it came from: enough of a graph
to practise the backward pass on (exercise 2.7) without the engine.
"""

from __future__ import annotations


class Var:
    """A number in a computation graph.

    Attributes:
        value: The number.
        parents: One pair ``(var, local_gradient)`` per input this value was
            made from: ``local_gradient`` is d(self)/d(var).
        grad: d(output)/d(self), filled in by a backward pass; starts at 0.
        name: A label for messages, such as ``"x"``.
    """

    def __init__(self, value: float, parents: tuple[tuple[Var, float], ...] = (), name: str = ""):
        self.value = value
        self.parents = parents
        self.grad = 0.0
        self.name = name

    def __add__(self, other: Var) -> Var:
        return Var(self.value + other.value, ((self, 1.0), (other, 1.0)))

    def __mul__(self, other: Var) -> Var:
        return Var(self.value * other.value, ((self, other.value), (other, self.value)))

    def __repr__(self) -> str:
        return f"Var({self.value!r}, grad={self.grad!r})"
