"""``Parameter``: a tensor that a :class:`~slowtorch_lib.nn.Module` learns.

A parameter is an ordinary tensor with one extra meaning: assigning it to
an attribute of a module registers it, so that ``module.parameters()``
finds it. It is a subclass of :class:`~slowtorch_lib.Tensor`, so every
operation works on it unchanged, and it requires grad unless told not to.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib._creation import empty
from slowtorch_lib._tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A tensor registered as a parameter when assigned to a module attribute.

    ``Parameter(data)`` shares ``data``'s storage (no copy) but is a fresh
    leaf of the graph: it has no ``grad_fn`` and, by default, requires grad.

    Args:
        data: The tensor to wrap. ``None`` gives an empty float tensor.
        requires_grad: Whether the parameter requires grad (default ``True``).

    Raises:
        TypeError: If ``data`` is not a tensor.
        RuntimeError: If ``requires_grad`` is asked of an integer or bool tensor.

    Example::

        >>> w = Parameter(torch.zeros(2))
        >>> w
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
    """

    __slots__ = ()

    def __new__(
        cls, data: Tensor | None = None, requires_grad: bool = True
    ) -> Parameter:
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(
                "Parameter(): argument 'data' (position 1) must be Tensor, "
                f"not {type(data).__name__}"
            )
        param = cls._make(data._storage, data._shape, data._stride, data._offset)
        param.requires_grad = requires_grad
        return param  # type: ignore[return-value]

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        # Everything happened in __new__; this stops Tensor.__init__ from
        # refusing the call.
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        """A parameter with a copy of the values (for ``copy.deepcopy(model)``)."""
        if id(self) not in memo:
            memo[id(self)] = Parameter(self.detach().clone(), self.requires_grad)
        return memo[id(self)]  # type: ignore[no-any-return]
