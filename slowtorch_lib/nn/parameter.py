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

__all__ = ["Parameter", "UninitializedBuffer", "UninitializedParameter", "is_lazy"]


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


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (a lazy module's weight).

    It holds an empty tensor of the right dtype until :meth:`materialize`
    gives it a shape; then it becomes an ordinary :class:`Parameter`, the
    same object, so an optimiser made before that still holds it. Asking
    for its ``shape`` before then is an error, as in PyTorch. (PyTorch also
    refuses every other operation on it; here they see an empty tensor.)

    Args:
        requires_grad: Whether the parameter will require grad.
        device: Only the CPU.
        dtype: The dtype it will have (the default dtype if None).
    """

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(
        cls, requires_grad: bool = True, device: Any = None, dtype: Any = None
    ) -> UninitializedParameter:
        param = Parameter.__new__(cls, empty(0, device=device, dtype=dtype))
        param.requires_grad = requires_grad
        return param  # type: ignore[return-value]

    def __init__(
        self, requires_grad: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        pass

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Gives the parameter its shape (uninitialised values) and makes it an
        ordinary :class:`Parameter`, in place."""
        self.data = empty(shape, device=device, dtype=dtype or self.dtype)
        self.__class__ = self.cls_to_become  # type: ignore[assignment]

    @property
    def shape(self) -> Any:  # type: ignore[override]
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This "
            "error usually happens in `load_state_dict` when trying to load an "
            "uninitialized parameter into an initialized one. Call `forward` to "
            "initialize the parameters before accessing their attributes."
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __deepcopy__(self, memo: dict[int, Any]) -> UninitializedParameter:
        if id(self) not in memo:
            memo[id(self)] = UninitializedParameter(
                self.requires_grad, dtype=self.dtype
            )
        return memo[id(self)]  # type: ignore[no-any-return]


class UninitializedBuffer(Tensor):
    """A buffer whose shape is not known yet (a lazy batch norm's running
    statistics): an empty tensor until :meth:`materialize` gives it a shape
    and makes it an ordinary tensor, the same object.

    Args:
        requires_grad: Whether it will require grad (buffers do not).
        device: Only the CPU.
        dtype: The dtype it will have (the default dtype if None).
    """

    __slots__ = ()

    def __new__(
        cls, requires_grad: bool = False, device: Any = None, dtype: Any = None
    ) -> UninitializedBuffer:
        data = empty(0, device=device, dtype=dtype)
        buffer = cls._make(data._storage, data._shape, data._stride)
        buffer.requires_grad = requires_grad
        return buffer  # type: ignore[return-value]

    def __init__(
        self, requires_grad: bool = False, device: Any = None, dtype: Any = None
    ) -> None:
        pass

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Gives the buffer its shape and makes it an ordinary tensor, in place."""
        self.data = empty(shape, device=device, dtype=dtype or self.dtype)
        self.__class__ = Tensor  # type: ignore[assignment]

    shape = UninitializedParameter.shape

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an uninitialised parameter or buffer."""
    return isinstance(param, (UninitializedParameter, UninitializedBuffer))
