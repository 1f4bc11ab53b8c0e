"""How Python sees a tensor: as a number, a list, a NumPy array, text, a
pickle or a copy.

``Tensor`` inherits these methods from :class:`PythonMethods`: ``item()``
and ``float(t)``, ``bool(t)``, ``operator.index(t)``; ``tolist()``,
``len(t)`` and iteration; ``numpy()`` and ``numpy.asarray(t)``; ``repr``;
``pickle`` and ``copy.deepcopy``. Each reads the tensor through
:meth:`Tensor._values` or its storage, and none records history. What a
tensor is (storage, shape, strides, autograd state) stays in
:mod:`slowtorch_lib._tensor`, with ``__hash__``: a class that defines
``__eq__``, as ``ElementwiseMethods`` does, must define its hash itself.
"""

# Each method's ``self`` is annotated as a ``Tensor``, the class that inherits
# it, so that mypy checks the body against what ``self`` always is (see
# _tensor_shape_methods, which does the same).
# mypy: disable-error-code="misc"
from __future__ import annotations

import builtins
import copy
from array import array
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import Scalar
from slowtorch_lib._storage import Storage

if TYPE_CHECKING:
    # The layers above, which the methods reach: see OPS_MODULES and bind_ops.
    from slowtorch_lib import _printing
    from slowtorch_lib._tensor import Tensor

__all__ = ["PythonMethods", "numpy_module", "numpy_view"]


class PythonMethods:
    """``Tensor``'s methods for Python's protocols: numbers, lists, NumPy
    arrays, text, pickles and copies."""

    __slots__ = ()

    def numpy(self: Tensor, *, force: builtins.bool = False) -> Any:
        """The tensor as a NumPy array that shares its memory.

        Writing to either changes both, as in PyTorch (where the storage
        holds a type NumPy has: float32, float64, int64, bool...; otherwise
        the values are copied). ``force=True`` detaches first.

        Raises:
            RuntimeError: If the tensor requires grad (use
                ``tensor.detach().numpy()``), or NumPy is not installed.
        """
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use "
                "tensor.detach().numpy() instead."
            )
        return numpy_view(self)

    def __array__(
        self: Tensor, dtype: Any = None, copy: builtins.bool | None = None
    ) -> Any:
        """Lets ``numpy.array(tensor)`` and ``numpy.asarray(tensor)`` work."""
        array = numpy_view(self.detach())
        if dtype is not None and dtype != array.dtype:
            return array.astype(dtype)
        return array.copy() if copy else array

    def tolist(self: Tensor) -> Any:
        """The elements as (nested) Python lists of Python numbers."""
        values = self._values()
        if self.dtype is dtypes.bool_:
            values = [bool(v) for v in values]
        if not self._shape:
            return values[0]
        return _nest(values, self._shape)

    def item(self: Tensor) -> Scalar:
        """The value of a one-element tensor as a Python number.

        Raises:
            RuntimeError: If the tensor has more than one element.
        """
        count = self.numel()
        if count != 1:
            raise RuntimeError(
                f"a Tensor with {count} elements cannot be converted to Scalar"
            )
        return self.dtype.to_python(self._values()[0])

    def _scalar(self: Tensor) -> Scalar:
        """The one element, for ``float(t)`` and ``int(t)``."""
        if self.numel() != 1:
            raise ValueError(
                "only one element tensors can be converted to Python scalars"
            )
        return self.item()

    def __float__(self: Tensor) -> float:
        return builtins.float(self._real_scalar("double"))

    def __int__(self: Tensor) -> int:
        return builtins.int(self._real_scalar("int64_t"))

    def __complex__(self: Tensor) -> complex:
        return builtins.complex(self._scalar())

    def _real_scalar(self: Tensor, cpp_type: str) -> Scalar:
        """The one element as a real number: a complex one must have no
        imaginary part (PyTorch's words name the C++ type it converts to)."""
        value: Any = self._scalar()
        if isinstance(value, builtins.complex):
            if value.imag != 0:
                raise RuntimeError(
                    f"value cannot be converted to type {cpp_type} without overflow"
                )
            return value.real
        return value  # type: ignore[no-any-return]

    def __index__(self: Tensor) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError(
                "only integer tensors of a single element can be converted to an index"
            )
        return builtins.int(self.item())

    def __bool__(self: Tensor) -> bool:
        count = self.numel()
        if count != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if count > 1
                else "Boolean value of Tensor with no values is ambiguous"
            )
        return builtins.bool(self.item())

    def __len__(self: Tensor) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self: Tensor) -> Iterator[Tensor]:
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._shape[0]))

    def __reduce__(self: Tensor) -> tuple[Any, ...]:
        """How ``pickle`` stores a tensor: its storage (shared with the other
        tensors in the same pickle), geometry and ``requires_grad``.

        As in PyTorch, the history is not stored: a tensor that was computed
        comes back as a leaf (that requires grad if the original did), and
        ``.grad`` is left behind.
        """
        geometry = (self._shape, self._stride, self._offset)
        return (_rebuild, (type(self), self._storage, geometry, self._requires_grad))

    def __deepcopy__(self: Tensor, memo: dict[int, Any]) -> Tensor:
        """``copy.deepcopy``: a new leaf with a copy of the storage (shared by
        the tensors of one copy as by the originals), ``requires_grad`` and a
        copy of ``.grad``.

        Raises:
            RuntimeError: For a tensor computed by a recorded operation, as
                PyTorch does.
        """
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support "
                "the deepcopy protocol at the moment.  If you were attempting to "
                "deepcopy a module, this may be because of a "
                "torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        storage = copy.deepcopy(self._storage, memo)
        geometry = (self._shape, self._stride, self._offset)
        result = _rebuild(type(self), storage, geometry, self._requires_grad)
        if self._grad is not None:
            result._grad = copy.deepcopy(self._grad, memo)
        memo[id(self)] = result
        return result

    def __repr__(self: Tensor) -> str:
        return _printing.tensor_repr(self)

    __str__ = __repr__

    def __format__(self: Tensor, spec: str) -> str:
        if not self._shape:
            return format(self.item(), spec)
        return repr(self)


def _rebuild(
    cls: type[Tensor],
    storage: Storage,
    geometry: tuple[tuple[int, ...], tuple[int, ...], int],
    requires_grad: builtins.bool,
) -> Tensor:
    """A tensor back from ``pickle`` (see :meth:`Tensor.__reduce__`)."""
    tensor = cls._make(storage, *geometry)
    tensor._requires_grad = requires_grad
    return tensor


def _nest(values: list[Any], shape: tuple[int, ...]) -> list[Any]:
    """Turns a flat row-major list into nested lists of the given shape."""
    if not values:
        return _empty_nest(shape)
    for size in reversed(shape[1:]):
        values = [values[i : i + size] for i in range(0, len(values), size)]
    return values


def _empty_nest(shape: tuple[int, ...]) -> list[Any]:
    """Nested lists for a shape with no elements, such as ``[[], []]``."""
    if len(shape) == 1 or shape[0] == 0:
        return []
    return [_empty_nest(shape[1:]) for _ in range(shape[0])]


def numpy_module() -> ModuleType:
    """NumPy, imported only when a tensor is exchanged with it.

    Raises:
        RuntimeError: If NumPy is not installed (PyTorch's message).
    """
    try:
        import numpy  # here, not at the top: NumPy is optional
    except ImportError:
        raise RuntimeError("Numpy is not available") from None
    return numpy


def numpy_view(tensor: Tensor) -> Any:
    """A NumPy array over the tensor's storage, with its shape and strides.

    The array reads the storage's ``array`` buffer directly, so the two
    share memory; a storage NumPy cannot read as it is (a dtype kept in a
    wider type, complex numbers and their parts) is copied instead.
    """
    numpy = numpy_module()
    data = tensor._storage.data
    kind = numpy.dtype(tensor.dtype.name)
    readable = isinstance(data, array)  # not the list of a complex storage
    readable = readable and kind.itemsize == data.itemsize and len(data) > 0
    if not readable or tensor.dtype.is_complex:
        return numpy.array(tensor.tolist(), dtype=kind).reshape(tensor._shape)
    flat = numpy.frombuffer(data, dtype=kind)
    return numpy.lib.stride_tricks.as_strided(
        flat[tensor._offset :],
        shape=tensor._shape,
        strides=[step * data.itemsize for step in tensor._stride],
    )
