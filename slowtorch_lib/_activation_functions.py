"""``torch.softmax`` and ``torch.log_softmax``: ``nn.functional``'s, at the top.

PyTorch offers the same computation three ways: ``F.softmax(x, dim)``,
``x.softmax(dim)`` and ``torch.softmax(x, dim)``. The last one, here, takes
``dim`` as required (``F.softmax`` still accepts None, with a warning) and
calls the one definition in :mod:`slowtorch_lib.nn.functional.activation`.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib._dtype import dtype
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.nn.functional import activation

__all__ = ["log_softmax", "softmax"]

_MISSING: Any = object()


def _check(name: str, input: Any, dim: Any) -> None:
    """PyTorch's refusals: a first argument that is no tensor, no ``dim``."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    if dim is _MISSING:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    if not isinstance(dim, int):
        raise TypeError(
            f"{name}(): argument 'dim' (position 2) must be int, not "
            f"{type(dim).__name__}"
        )


def softmax(input: Tensor, dim: int = _MISSING, dtype: dtype | None = None) -> Tensor:
    """``exp(input) / sum(exp(input))`` along ``dim`` (``SoftmaxBackward0``).

    Raises:
        TypeError: If ``input`` is not a tensor or ``dim`` is not an int.
    """
    _check("softmax", input, dim)
    return activation.softmax(input, dim, dtype=dtype)


def log_softmax(
    input: Tensor, dim: int = _MISSING, dtype: dtype | None = None
) -> Tensor:
    """``log(softmax(input))`` along ``dim``, without overflow.

    Raises:
        TypeError: If ``input`` is not a tensor or ``dim`` is not an int.
    """
    _check("log_softmax", input, dim)
    return activation.log_softmax(input, dim, dtype=dtype)
