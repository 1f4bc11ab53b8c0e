"""The Tensor: a view of a flat storage, plus what autograd needs to know.

A tensor is four things: a :class:`~slowtorch_lib._storage.Storage`, a
shape, strides and an offset (see :mod:`slowtorch_lib._strides`). Views
share the storage and differ only in the other three.

For autograd it also carries ``requires_grad``, ``grad``, ``grad_fn`` and
``is_leaf``. This module holds what a tensor is: its storage, shape and
strides, reading its values, its autograd state, and writing in place.
Its operations (``x.mul(y)``, ``x.sum()``...) are one-line methods that
``Tensor`` inherits from :mod:`slowtorch_lib._tensor_methods` and
:mod:`slowtorch_lib._tensor_shape_methods`: each calls the function of the
same name in :mod:`slowtorch_lib.ops`, where the operation is defined once,
with its forward and its backward side by side (the modules above this one
are reached through :func:`bind_ops`). Python's protocols (numbers, lists,
NumPy, ``repr``, pickling) are in :mod:`slowtorch_lib._tensor_python`.
History is recorded by ``Function.apply``
(:mod:`slowtorch_lib.autograd.function`); the in-place methods (``add_``,
``x[i] = v``, ``detach_``...) rewrite it, and that is done in
:mod:`slowtorch_lib.autograd.history`.
"""

from __future__ import annotations

import builtins
import warnings
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Union

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib import _strides
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import contiguous_values
from slowtorch_lib._storage import Storage, stored_array
from slowtorch_lib._strides import (
    contiguous_strides,
    normalize_dim,
    numel,
    position_list,
)
from slowtorch_lib._tensor_methods import (
    OPS_MODULES,
    ElementwiseMethods,
    bind_ops,
)
from slowtorch_lib._tensor_python import PythonMethods
from slowtorch_lib._tensor_shape_methods import ShapeMethods

if TYPE_CHECKING:
    # The layers above, which the core reaches: see OPS_MODULES and bind_ops.
    from slowtorch_lib import _legacy_constructors
    from slowtorch_lib.autograd import engine as _engine
    from slowtorch_lib.autograd import history as _history
    from slowtorch_lib.autograd.function import AccumulateGrad, Node
    from slowtorch_lib.ops import copying as _copying
    from slowtorch_lib.ops import views as _views

__all__ = [
    "Size",
    "Tensor",
    "OPS_MODULES",
    "bind_ops",
    "device",
    "from_values",
]


# Aliases are evaluated at import, on Python 3.10 too: hence ``Union``.
TensorOrScalar = Union["Tensor", int, float, bool, complex]  # noqa: UP007
ShapeArg = Union[int, Sequence[int]]  # noqa: UP007


class Size(tuple):  # type: ignore[type-arg]
    """The shape of a tensor: a tuple of ints that prints as ``torch.Size``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def numel(self) -> int:
        """The number of elements in a tensor of this shape."""
        return numel(self)


class device:
    """Where a tensor lives: ``device("cpu")``, ``device("cuda:0")``.

    Any device PyTorch names can be described, as on a machine without a
    GPU; only the CPU can hold a tensor. Putting one anywhere else raises
    what PyTorch raises there (see :func:`check_device`).

    A bare number names an accelerator (a GPU), which this machine has not.

    Raises:
        RuntimeError: For a name that is no device at all, a bad index, or a
            number.
        TypeError: For anything but a name, a number or a device.
    """

    __slots__ = ("index", "type")
    type: str
    index: int | None

    def __init__(
        self, type: str | device | int = "cpu", index: int | None = None
    ) -> None:
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, bool) or not isinstance(type, (str, int)):
            raise invalid_arguments("device", [type], {})
        if isinstance(type, int):
            raise RuntimeError(
                "Cannot access accelerator device when none is available."
            )
        name = str(type)
        kind, _, number = name.partition(":")
        if kind not in DEVICE_TYPES:
            raise RuntimeError(
                "Expected one of cpu, cuda, mps device type at start of device "
                f"string: {name}"
            )
        if number:
            if not number.isdigit() or index is not None:
                raise RuntimeError(f"Invalid device string: '{name}'")
            index = int(number)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type, self.index = kind, index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, device):
            return False
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


# PyTorch's words where a GPU is needed and there is none, and ours.
NO_CUDA = "Torch not compiled with CUDA enabled (this engine runs on the CPU only)"

# The device types PyTorch names; this engine has only the first.
DEVICE_TYPES = ("cpu", "cuda", "mps", "xpu", "meta", "hip")

CPU = device("cpu")


def check_device(requested: str | device | int | None) -> None:
    """Accepts ``None`` or the CPU; refuses any other device as PyTorch does
    on a machine without it.

    Raises:
        AssertionError: For ``cuda``: ``Torch not compiled with CUDA enabled``.
        RuntimeError: For another device, or a name that is no device.
    """
    if requested is None:
        return
    where = device(requested)
    if where.type == "cuda":
        raise AssertionError(NO_CUDA)
    if where.type != "cpu":
        raise RuntimeError(
            f"PyTorch is not linked with support for {where.type} devices "
            "(this engine runs on the CPU only)"
        )


def typename(value: object) -> str:
    """The name PyTorch's error messages give a value's type.

    A tensor is named by its legacy type (``'torch.FloatTensor'``), a
    built-in by its bare name (``'int'``), a class of the package's private
    modules by the name the package gives it (``'torch.dtype'``), anything
    else by module and class name, with this package's name spelt ``torch``.
    """
    if isinstance(value, Tensor):
        return value.type()
    kind = value if isinstance(value, type) else type(value)
    module = kind.__module__.replace("slowtorch_lib", "torch")
    if module == "builtins":
        return kind.__qualname__
    if module.startswith("torch._"):
        module = "torch"
    return f"{module}.{kind.__qualname__}"


def invalid_arguments(
    name: str, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> TypeError:
    """PyTorch's error for a call that fits none of a function's forms: what
    it got, by type (PyTorch then lists the forms, and may order the
    keywords otherwise). With keywords only, each is followed by a comma, as
    PyTorch writes them: ``got (dtype=str, )``."""
    got = [typename(arg) for arg in args]
    named = [f"{key}={typename(value)}" for key, value in kwargs.items()]
    listed = ", ".join(got + named) if got else "".join(f"{n}, " for n in named)
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({listed})"
    )


class _InferenceMode:
    """Whether inference mode is on: every tensor made then is an inference
    tensor. Switched by :class:`slowtorch_lib.autograd.grad_mode.inference_mode`."""

    enabled: bool = False


INFERENCE_MODE = _InferenceMode()

INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed."
    "You can make a clone to get a normal tensor before doing inplace update."
    "See https://github.com/pytorch/rfcs/pull/17 for more details."
)


def _to_positional(args: tuple[Any, ...]) -> tuple[Any, list[Any], list[Any] | None]:
    """``Tensor.to``'s positional arguments, in its three forms: ``(dtype,
    flags)``, ``(device, dtype, flags)`` and ``(tensor, flags)``, where the flags
    are ``non_blocking`` and ``copy``. Returns the dtype (or None), the devices
    and the flags, or None for the flags if the arguments fit no form. A Python
    type names its dtype; so does a bool, float or complex number in first place,
    in PyTorch: ``x.to(True)`` converts to bool, ``x.to(1.5)`` to float64."""
    rest = list(args)
    target: Any = None
    places: list[Any] = []
    first = rest.pop(0) if rest else None
    if isinstance(first, (builtins.bool, builtins.float, builtins.complex)):
        target = dtypes.PYTHON_TYPES[type(first)]
    elif isinstance(first, Tensor):
        target = first.dtype
    elif isinstance(first, (str, device, int)):
        places.append(first)
        target = dtypes.python_type_dtype(rest.pop(0)) if rest else None
    elif first is not None:
        target = dtypes.python_type_dtype(first)
    fits = all(isinstance(flag, builtins.bool) for flag in rest)
    if not fits or not isinstance(target, (dtype, type(None))):
        return target, places, None
    return target, places, rest


class Tensor(ElementwiseMethods, ShapeMethods, PythonMethods):
    """A multi-dimensional array of numbers of one dtype, that can track gradients.

    Make tensors with :func:`slowtorch_lib.tensor`, :func:`zeros`, ... rather
    than with this class directly.

    This class holds what a tensor is; its operations (``x.mul(y)``,
    ``x.sum()``...) are the one-line methods it inherits from
    :class:`~slowtorch_lib._tensor_methods.ElementwiseMethods` and
    :class:`~slowtorch_lib._tensor_shape_methods.ShapeMethods`, and how
    Python sees it (``item()``, ``tolist()``, ``repr``, ``pickle``...) comes
    from :class:`~slowtorch_lib._tensor_python.PythonMethods`.
    """

    __slots__ = (
        "__weakref__",
        "_base",
        "_grad",
        "_grad_accumulator",
        "_grad_fn",
        "_inference",
        "_offset",
        "_one_of_many",
        "_output_nr",
        "_requires_grad",
        "_retains_grad",
        "_shape",
        "_storage",
        "_stride",
        "_view_version",
        "_views",
    )

    # The view of a storage.
    _storage: Storage
    _shape: tuple[int, ...]
    _stride: tuple[int, ...]
    _offset: int
    # Autograd: see requires_grad, grad, grad_fn, output_nr, retains_grad.
    _requires_grad: bool
    _grad: Tensor | None
    _grad_fn: Node | None
    _output_nr: int
    _retains_grad: bool
    # The AccumulateGrad node of a leaf, made when it is first needed.
    _grad_accumulator: AccumulateGrad | None
    # Views and in-place changes (see autograd.history):
    _base: Tensor | None  # for a view: the tensor that owns the storage
    _view_version: int  # for a view: storage version its history is from
    _views: list[weakref.ref[Tensor]] | None  # for a base: its views
    _one_of_many: str | None  # for one of split()'s views: which one
    _inference: bool  # made in inference mode (or a view of such a tensor)

    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        """The legacy constructor: ``Tensor([1, 2])``, ``Tensor(2, 3)``.

        It makes a tensor of the default dtype; see
        :func:`slowtorch_lib._legacy_constructors.legacy_new`. Prefer ``tensor(data)``
        and ``zeros(sizes)``, which say what they make.
        """
        return _legacy_constructors.legacy_new(None, args, kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass  # everything happened in __new__

    @classmethod
    def _make(
        cls,
        storage: Storage,
        shape: tuple[int, ...],
        stride: tuple[int, ...],
        offset: int = 0,
        base: Tensor | None = None,
    ) -> Tensor:
        """Wraps a storage without copying it: the one way tensors are made."""
        self = object.__new__(cls)
        self._storage = storage
        self._shape = shape
        self._stride = stride
        self._offset = offset
        self._requires_grad = False
        self._grad = None
        self._grad_fn = None
        self._output_nr = 0
        self._grad_accumulator = None
        self._retains_grad = False
        self._base = base
        self._view_version = 0
        self._views = None
        self._one_of_many = None
        self._inference = INFERENCE_MODE.enabled or (
            base is not None and base._inference
        )
        return self

    # ------------------------------------------------------------------
    # Shape, strides, storage
    # ------------------------------------------------------------------

    @property
    def shape(self) -> Size:
        """The size of each dimension, as a :class:`Size`."""
        return Size(self._shape)

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the size of one dimension if ``dim`` is given."""
        if dim is None:
            return Size(self._shape)
        return self._shape[normalize_dim(dim, len(self._shape))]

    def stride(self, dim: int | None = None) -> Any:
        """How many storage cells one step along each dimension moves."""
        if dim is None:
            return self._stride
        return self._stride[normalize_dim(dim, len(self._shape))]

    def storage_offset(self) -> int:
        """Where element ``(0, ..., 0)`` sits in the storage."""
        return self._offset

    def untyped_storage(self) -> Storage:
        """The storage this tensor is a view of (shared with its views)."""
        return self._storage

    def dim(self) -> int:
        """The number of dimensions."""
        return len(self._shape)

    ndimension = dim

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self._shape)

    def numel(self) -> int:
        """The number of elements."""
        return numel(self._shape)

    nelement = numel

    def element_size(self) -> int:
        """Bytes per element."""
        return self._storage.dtype.itemsize

    @property
    def dtype(self) -> dtype:
        """The element type, such as ``torch.float32``."""
        return self._storage.dtype

    @property
    def device(self) -> device:
        """Always the CPU."""
        return CPU

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def is_xpu(self) -> bool:
        return False

    @property
    def is_mps(self) -> bool:
        return False

    def type(self, dtype: Any = None, non_blocking: builtins.bool = False) -> Any:
        """The legacy type name, ``'torch.FloatTensor'``, or with an argument
        the tensor converted to that type.

        ``dtype`` may be a dtype, a legacy class (``torch.IntTensor``) or
        its name (``'torch.IntTensor'``).

        Raises:
            ValueError: For a name that is no legacy type.
        """
        if dtype is None:
            return self.dtype.legacy_type_name
        if isinstance(dtype, str):
            dtype = _dtype_of_legacy_name(dtype)
        elif isinstance(dtype, type):  # torch.IntTensor and its kin
            dtype = _dtype_of_legacy_name(f"torch.{dtype.__name__}")
        return self.to(dtype)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Converts to another dtype (and checks the device):
        ``x.to(torch.float64)``. This tensor itself if nothing changes,
        unless ``copy=True``. Positional flags are ``non_blocking`` (which
        changes nothing on the CPU), then ``copy``.

        A dtype may also be named by a Python type, as in PyTorch:
        ``x.to(float)`` is ``x.to(torch.float64)``.

        Raises:
            TypeError: For an argument ``to`` has no place for.
        """
        given = dict(kwargs)
        named = kwargs.pop("dtype", None)
        target, places, flags = _to_positional(args)
        places.append(kwargs.pop("device", None))
        if named is not None:
            target = dtypes.python_type_dtype(named)
        copy = kwargs.pop("copy", flags is not None and len(flags) > 1 and flags[1])
        for ignored in ("non_blocking", "memory_format"):
            kwargs.pop(ignored, None)
        fits = flags is not None and len(flags) <= 2
        if not fits or kwargs or not isinstance(target, (dtype, type(None))):
            raise invalid_arguments("to", args, given)
        for place in places:  # checked once the call is known to fit
            check_device(place)
        if (target is None or target is self.dtype) and not copy:
            return self
        return _copying.to_dtype(self, target or self.dtype)

    def cpu(self) -> Tensor:
        return self

    def cuda(self, device: int | str | None = None, **kwargs: Any) -> Tensor:
        """Refused as PyTorch refuses it on a machine without a GPU."""
        raise AssertionError(NO_CUDA)

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating-point type."""
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        """Whether the dtype is a complex type."""
        return self.dtype.is_complex

    def is_contiguous(self) -> bool:
        """Whether the elements lie in storage in row-major order, without gaps.

        Dimensions of size 1 are ignored, since their stride is never used,
        and a tensor without elements is always contiguous.
        """
        if numel(self._shape) == 0:
            return True
        expected = 1
        for size, stride in zip(reversed(self._shape), reversed(self._stride)):
            if size == 1:
                continue
            if stride != expected:
                return False
            expected *= size
        return True

    @property
    def _version(self) -> int:
        """The number of in-place changes to this tensor's storage."""
        return self._storage.version

    def _is_view(self) -> bool:
        return self._base is not None

    # ------------------------------------------------------------------
    # Reading values
    # ------------------------------------------------------------------

    def _values(self) -> list[Any]:
        """All elements in row-major order, as a new list of Python numbers.

        Every kernel starts here. A contiguous tensor is one slice of the
        storage; any other view is gathered position by position.
        """
        data = self._storage.data
        if self.is_contiguous():
            return contiguous_values(data, self._offset, numel(self._shape))
        return _strides.strided_values(data, self._shape, self._stride, self._offset)

    def __hash__(self) -> int:
        return id(self)

    # ------------------------------------------------------------------
    # Autograd state
    # ------------------------------------------------------------------

    def is_inference(self) -> builtins.bool:
        """Whether this tensor was made in inference mode (or is a view of one)."""
        return self._inference

    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for autograd."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if self._grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you "
                "want to use a computed variable in a subgraph that doesn't require "
                "differentiation use var_no_grad = var.detach()."
            )
        if flag and not self.dtype.differentiable:
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients"
            )
        if flag and self._inference and not INFERENCE_MODE.enabled:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside "
                "InferenceMode is not allowed."
            )
        self._requires_grad = builtins.bool(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Sets ``requires_grad`` in place and returns ``self``."""
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self) -> Tensor | None:
        """The gradient accumulated by ``backward`` (leaves only, unless
        :meth:`retain_grad` was called). Reading it on another non-leaf
        tensor warns, as PyTorch does, since it is never filled in."""
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being "
                "accessed. Its .grad attribute won't be populated during "
                "autograd.backward(). If you indeed want the .grad field to be "
                "populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
                "Tensor. If you access the non-leaf Tensor by mistake, make sure you "
                "access the leaf Tensor instead.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        self._grad = value

    @property
    def grad_fn(self) -> Node | None:
        """The graph node that made this tensor, or ``None`` for a leaf."""
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """True unless the tensor was made by a recorded operation."""
        return self._grad_fn is None

    @property
    def output_nr(self) -> int:
        """Which output of its ``grad_fn`` this tensor is."""
        return self._output_nr

    def _set_history(self, node: Node, output_nr: int) -> None:
        """Marks this tensor as output ``output_nr`` of ``node``."""
        self._grad_fn = node
        self._output_nr = output_nr
        self._requires_grad = True

    @property
    def retains_grad(self) -> bool:
        """Whether a non-leaf tensor keeps its ``.grad`` (see :meth:`retain_grad`)."""
        return self._retains_grad

    def retain_grad(self) -> None:
        """Asks a non-leaf tensor to keep its gradient in ``.grad``."""
        _engine.retain_grad(self)

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> Any:
        """Calls ``hook(grad)`` whenever a gradient for this tensor is computed.

        The hook may return a tensor to use instead of ``grad``.
        """
        return _engine.register_tensor_hook(self, hook)

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: builtins.bool = False,
        inputs: Sequence[Tensor] | None = None,
    ) -> None:
        """Computes the gradient of this tensor with respect to the leaves.

        Gradients are added to the ``.grad`` of every leaf that requires grad.
        See :func:`slowtorch_lib.autograd.backward`.
        """
        _engine.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> Tensor:
        """A new tensor on the same storage, cut out of the graph."""
        return _views.detach(self)

    def detach_(self) -> Tensor:
        """Cuts this tensor out of the graph in place: it becomes a leaf."""
        return _history.detach_(self)

    @property
    def data(self) -> Tensor:
        """The same values, detached from the graph (a view that shares storage)."""
        return _views.detach(self)

    @data.setter
    def data(self, new: Tensor) -> None:
        self._storage = new._storage
        self._shape = new._shape
        self._stride = new._stride
        self._offset = new._offset

    # ------------------------------------------------------------------
    # Writing values in place
    # ------------------------------------------------------------------

    def _write_values(self, values: Sequence[Any]) -> None:
        """Writes row-major ``values`` into the storage cells of this view.

        The caller has already checked shapes and dtypes; this only moves
        numbers and bumps the version counter.
        """
        storage = self._storage
        data = storage.data
        if storage.dtype is dtypes.bool_:
            values = [builtins.bool(v) for v in values]
        elif storage.dtype.category == dtypes.INT_CATEGORY:
            values = [builtins.int(v) for v in values]
        if (
            storage.dtype.narrow or storage.dtype.is_complex
        ):  # rounded or wrapped as the storage stores it
            values = stored_array(values, storage.dtype).tolist()
        if self.is_contiguous():
            start = self._offset
            data[start : start + len(values)] = stored_array(values, storage.dtype)
        elif self._overlaps():
            # Several elements share a cell (fill_ or masked_fill_ of an
            # expanded tensor): only the elements that change are written.
            positions = position_list(self._shape, self._stride, self._offset)
            for position, value, old in zip(positions, values, self._values()):
                if value != old and (value == value or old == old):  # nan: same
                    data[position] = value
        else:
            for position, value in zip(
                position_list(self._shape, self._stride, self._offset), values
            ):
                data[position] = value
        storage.version += 1

    def _overlaps(self) -> builtins.bool:
        """Whether several elements share one storage cell (an expanded tensor)."""
        return 0 not in self._shape and any(
            size > 1 and stride == 0 for size, stride in zip(self._shape, self._stride)
        )

    def _check_inplace(self, overlap_ok: builtins.bool = False) -> None:
        """Refuses in-place changes autograd cannot follow (see
        :func:`~slowtorch_lib.autograd.history.check_inplace`)."""
        _history.check_inplace(self, overlap_ok)

    def _inplace(
        self,
        operation: Callable[..., Tensor],
        *args: Any,
        overlap_ok: builtins.bool = False,
        **kwargs: Any,
    ) -> Tensor:
        """Runs ``operation(self, *args)`` and stores the result in ``self``
        (see :func:`~slowtorch_lib.autograd.history.run_inplace`)."""
        return _history.run_inplace(
            self, operation, *args, overlap_ok=overlap_ok, **kwargs
        )


def _dtype_of_legacy_name(name: str) -> dtype:
    """The dtype whose legacy class is called ``name`` (``'torch.IntTensor'``)."""
    if name.startswith("torch.cuda."):
        check_device("cuda")
    for d in dtypes.DTYPES.values():
        if d.legacy_type_name == name:
            return d
    raise ValueError(f"invalid type: {name!r}")


def from_values(values: Sequence[Any], shape: tuple[int, ...], d: dtype) -> Tensor:
    """A new contiguous tensor holding ``values`` (row-major) with this shape.

    The storage converts each value to the dtype: floats are rounded to
    float32 by ``array('f')`` (and further to float16 or bfloat16), integers
    wrap into a narrow type's range; bools are stored as 0 and 1.
    """
    if d is dtypes.bool_:
        values = [builtins.bool(v) for v in values]
    return Tensor._make(Storage(values, d), shape, contiguous_strides(shape))
