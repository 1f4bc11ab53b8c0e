"""How a tensor's elements are laid out: ``torch.strided`` or ``torch.sparse_coo``.

A dense tensor is *strided*: every element has a cell of a storage, found
with the strides. A sparse COO tensor keeps only its nonzero elements, as a
list of coordinates (``indices``) and the element at each (``values``).
"""

from __future__ import annotations

__all__ = ["layout", "sparse_coo", "strided"]


class layout:
    """The layout of a tensor, printed as PyTorch prints it (``torch.strided``)."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self) -> str:
        return self._name  # pickled by name: the one object of each layout


strided = layout("strided")
sparse_coo = layout("sparse_coo")
