"""``Variable``: the wrapper a tensor needed before PyTorch 0.4.

Before 0.4, only a ``Variable`` had a gradient and a history, and code wrote
``Variable(x, requires_grad=True)``. Since then every tensor has them, and
PyTorch keeps ``Variable`` so that old programs run: calling it gives a
tensor over the same storage with no history (as ``x.detach()``), and
every tensor counts as an instance of it.
"""

from __future__ import annotations

import warnings
from typing import Any

from slowtorch_lib._tensor import Tensor

__all__ = ["Variable"]


class _VariableType(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableType):
    """``Variable(x)`` is ``x.detach()``; with ``requires_grad=True`` a leaf."""

    def __new__(  # type: ignore[misc]
        cls, data: Any = None, requires_grad: bool = False, volatile: bool = False
    ) -> Tensor:
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with "
                "torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if data is None:
            return Tensor()
        if not isinstance(data, Tensor):
            raise TypeError(
                f"Variable data has to be a tensor, but got {type(data).__name__}"
            )
        return data.detach().requires_grad_(requires_grad)
