"""``Flatten`` and ``Unflatten``: reshapes as modules, for ``Sequential``."""

from __future__ import annotations

from collections.abc import Sequence

from slowtorch_lib._strides import normalize_dim
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.nn.modules.module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merges dimensions ``start_dim`` to ``end_dim`` into one (by default all
    but the batch dimension)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dimension ``dim`` into ``unflattened_size``."""

    def __init__(self, dim: int, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        dim = normalize_dim(self.dim, input.dim())
        shape = (*input.shape[:dim], *self.unflattened_size, *input.shape[dim + 1 :])
        return input.view(shape)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
