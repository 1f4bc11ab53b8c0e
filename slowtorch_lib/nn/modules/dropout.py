"""``Dropout`` and ``Dropout2d``: zeroes random elements (or channels) in training."""

from __future__ import annotations

from slowtorch_lib._tensor import Tensor
from slowtorch_lib.nn import functional as F
from slowtorch_lib.nn.modules.module import Module

__all__ = ["Dropout", "Dropout2d"]


class Dropout(Module):
    """Zeroes each element with probability ``p`` while ``self.training``,
    scaling the others by ``1 / (1 - p)``; after ``eval()`` it is the identity.

    Raises:
        ValueError: If ``p`` is not in [0, 1].
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(
                f"dropout probability has to be between 0 and 1, but got {p}"
            )
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout2d(Dropout):
    """Zeroes whole channels of ``(N, C, H, W)`` input with probability ``p``
    while ``self.training`` (see :func:`F.dropout2d`)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)
