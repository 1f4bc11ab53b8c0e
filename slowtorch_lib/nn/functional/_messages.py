"""Small helpers for PyTorch's error messages."""

from __future__ import annotations

from slowtorch_lib._tensor import Tensor

__all__ = ["type_name"]


def type_name(tensor: Tensor) -> str:
    """The scalar type's name in PyTorch's messages: ``'Float'``, ``'Long'``...

    It is the middle of the legacy type name ``'torch.FloatTensor'``.
    """
    return tensor.type()[len("torch.") : -len("Tensor")]
