"""The Tensor: a view of a flat storage, plus what autograd needs to know.

A tensor is four things: a :class:`~slowtorch_lib._storage.Storage`, a
shape, strides and an offset (see :mod:`slowtorch_lib._strides`). Views
share the storage and differ only in the other three.

For autograd it also carries ``requires_grad``, ``grad``, ``grad_fn`` and
``is_leaf``. Methods here are thin: each one calls the function of the same
name in :mod:`slowtorch_lib.ops`, where the operation is defined once, with
its forward and its backward side by side (the modules above this one are
reached through :func:`bind_ops`; the methods are grouped in the order of
``ops/``). History is recorded by
``Function.apply`` (:mod:`slowtorch_lib.autograd.function`); the in-place
methods (``add_``, ``x[i] = v``, ``detach_``...) rewrite it, and that is done
in :mod:`slowtorch_lib.autograd.history`.
"""

from __future__ import annotations

import builtins
import copy
import functools
import importlib
import sys
import warnings
import weakref
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar, Union

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib import _strides
from slowtorch_lib._dtype import Scalar, dtype
from slowtorch_lib._kernels import contiguous_values
from slowtorch_lib._storage import Storage, stored_array
from slowtorch_lib._strides import (
    contiguous_strides,
    normalize_dim,
    numel,
    position_list,
)

if TYPE_CHECKING:
    # The layers above, which the methods reach: see OPS_MODULES and bind_ops.
    from slowtorch_lib import _creation, _printing, _rng
    from slowtorch_lib.autograd import engine as _engine
    from slowtorch_lib.autograd import history as _history
    from slowtorch_lib.autograd.function import AccumulateGrad, Node
    from slowtorch_lib.nn.functional import activation as _activation
    from slowtorch_lib.ops import bitwise as _bitwise
    from slowtorch_lib.ops import common as _common
    from slowtorch_lib.ops import comparison as _comparison
    from slowtorch_lib.ops import complex_parts as _complex_parts
    from slowtorch_lib.ops import copying as _copying
    from slowtorch_lib.ops import fused as _fused
    from slowtorch_lib.ops import gather_scatter as _gather_scatter
    from slowtorch_lib.ops import histograms as _histograms
    from slowtorch_lib.ops import indexing as _indexing
    from slowtorch_lib.ops import linalg as _linalg
    from slowtorch_lib.ops import pointwise as _pointwise
    from slowtorch_lib.ops import rearrange as _rearrange
    from slowtorch_lib.ops import reduction as _reduction
    from slowtorch_lib.ops import rounding as _rounding
    from slowtorch_lib.ops import scan as _scan
    from slowtorch_lib.ops import selecting as _selecting
    from slowtorch_lib.ops import sorting as _sorting
    from slowtorch_lib.ops import statistics as _statistics
    from slowtorch_lib.ops import trigonometry as _trigonometry
    from slowtorch_lib.ops import unique as _unique
    from slowtorch_lib.ops import views as _views

__all__ = [
    "Size",
    "Tensor",
    "OPS_MODULES",
    "bind_ops",
    "device",
    "from_values",
    "keepdims_alias",
]

# Aliases are evaluated at import, on Python 3.10 too: hence ``Union``.
TensorOrScalar = Union["Tensor", int, float, bool, complex]  # noqa: UP007
ShapeArg = Union[int, Sequence[int]]  # noqa: UP007


F = TypeVar("F", bound=Callable[..., Any])


def keepdims_alias(function: F) -> F:
    """Lets a reduction take numpy's spelling ``keepdims=`` for ``keepdim=``,
    as PyTorch's reductions do.

    Raises:
        TypeError: If both spellings are given.
    """

    @functools.wraps(function)
    def reduction(*args: Any, **kwargs: Any) -> Any:
        if "keepdims" in kwargs:
            if "keepdim" in kwargs:
                raise TypeError(
                    f"{function.__name__}() got an unexpected keyword argument "
                    "'keepdims'"
                )
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return function(*args, **kwargs)

    return reduction  # type: ignore[return-value]


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


class Tensor:
    """A multi-dimensional array of numbers of one dtype, that can track gradients.

    Make tensors with :func:`slowtorch_lib.tensor`, :func:`zeros`, ... rather
    than with this class directly.
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
        :func:`slowtorch_lib._creation.legacy_new`. Prefer ``tensor(data)``
        and ``zeros(sizes)``, which say what they make.
        """
        return _creation.legacy_new(None, args, kwargs)

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

    def numpy(self, *, force: builtins.bool = False) -> Any:
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

    def __array__(self, dtype: Any = None, copy: builtins.bool | None = None) -> Any:
        """Lets ``numpy.array(tensor)`` and ``numpy.asarray(tensor)`` work."""
        array = numpy_view(self.detach())
        if dtype is not None and dtype != array.dtype:
            return array.astype(dtype)
        return array.copy() if copy else array

    def tolist(self) -> Any:
        """The elements as (nested) Python lists of Python numbers."""
        values = self._values()
        if self.dtype is dtypes.bool_:
            values = [bool(v) for v in values]
        if not self._shape:
            return values[0]
        return _nest(values, self._shape)

    def item(self) -> Scalar:
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

    def _scalar(self) -> Scalar:
        """The one element, for ``float(t)`` and ``int(t)``."""
        if self.numel() != 1:
            raise ValueError(
                "only one element tensors can be converted to Python scalars"
            )
        return self.item()

    def __float__(self) -> float:
        return builtins.float(self._real_scalar("double"))

    def __int__(self) -> int:
        return builtins.int(self._real_scalar("int64_t"))

    def __complex__(self) -> complex:
        return builtins.complex(self._scalar())

    def _real_scalar(self, cpp_type: str) -> Scalar:
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

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError(
                "only integer tensors of a single element can be converted to an index"
            )
        return builtins.int(self.item())

    def __bool__(self) -> bool:
        count = self.numel()
        if count != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if count > 1
                else "Boolean value of Tensor with no values is ambiguous"
            )
        return builtins.bool(self.item())

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._shape[0]))

    def __hash__(self) -> int:
        return id(self)

    def __reduce__(self) -> tuple[Any, ...]:
        """How ``pickle`` stores a tensor: its storage (shared with the other
        tensors in the same pickle), geometry and ``requires_grad``.

        As in PyTorch, the history is not stored: a tensor that was computed
        comes back as a leaf (that requires grad if the original did), and
        ``.grad`` is left behind.
        """
        geometry = (self._shape, self._stride, self._offset)
        return (_rebuild, (type(self), self._storage, geometry, self._requires_grad))

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
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

    def __repr__(self) -> str:
        return _printing.tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if not self._shape:
            return format(self.item(), spec)
        return repr(self)

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

    # ==================================================================
    # Operations, in the order of ops/: each method calls the function of
    # the same name, defined once with its forward and backward. In-place
    # forms (``add_``) compute out of place, then write back (``_inplace``).
    # ==================================================================

    # ------------------------------------------------------------------
    # New tensors with this tensor's dtype (creation)
    # ------------------------------------------------------------------

    def new_tensor(
        self,
        data: Any,
        *,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        return _creation.tensor(
            data,
            dtype=dtypes.dtype_arg(dtype, "new_tensor") or self.dtype,
            device=device or self.device,
            requires_grad=requires_grad,
        )

    def new_zeros(
        self,
        *size: Any,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        return _creation.zeros(
            *size,
            dtype=dtypes.dtype_arg(dtype, "new_zeros") or self.dtype,
            device=device or self.device,
            requires_grad=requires_grad,
        )

    def new_ones(
        self,
        *size: Any,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        return _creation.ones(
            *size,
            dtype=dtypes.dtype_arg(dtype, "new_ones") or self.dtype,
            device=device or self.device,
            requires_grad=requires_grad,
        )

    def new_empty(
        self,
        *size: Any,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        return _creation.empty(
            *size,
            dtype=dtypes.dtype_arg(dtype, "new_empty") or self.dtype,
            device=device or self.device,
            requires_grad=requires_grad,
        )

    def new_full(
        self,
        size: Any,
        fill_value: Scalar,
        *,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        return _creation.full(
            size,
            fill_value,
            dtype=dtypes.dtype_arg(dtype, "new_full") or self.dtype,
            device=device or self.device,
            requires_grad=requires_grad,
        )

    # ------------------------------------------------------------------
    # Comparisons and logic (ops/comparison.py)
    # ------------------------------------------------------------------

    def __eq__(self, other: object) -> Tensor:  # type: ignore[override]
        return _comparison.eq(self, other)  # type: ignore[arg-type]

    def __ne__(self, other: object) -> Tensor:  # type: ignore[override]
        return _comparison.ne(self, other)  # type: ignore[arg-type]

    def __lt__(self, other: TensorOrScalar) -> Tensor:
        return _comparison.lt(self, other)

    def __le__(self, other: TensorOrScalar) -> Tensor:
        return _comparison.le(self, other)

    def __gt__(self, other: TensorOrScalar) -> Tensor:
        return _comparison.gt(self, other)

    def __ge__(self, other: TensorOrScalar) -> Tensor:
        return _comparison.ge(self, other)

    def eq(self, other: TensorOrScalar) -> Tensor:
        return _comparison.eq(self, other)

    def ne(self, other: TensorOrScalar) -> Tensor:
        return _comparison.ne(self, other)

    def lt(self, other: TensorOrScalar) -> Tensor:
        return _comparison.lt(self, other)

    def le(self, other: TensorOrScalar) -> Tensor:
        return _comparison.le(self, other)

    def gt(self, other: TensorOrScalar) -> Tensor:
        return _comparison.gt(self, other)

    def ge(self, other: TensorOrScalar) -> Tensor:
        return _comparison.ge(self, other)

    def logical_not(self) -> Tensor:
        return _comparison.logical_not(self)

    def isnan(self) -> Tensor:
        return _comparison.isnan(self)

    def logical_and(self, other: Tensor) -> Tensor:
        return _comparison.logical_and(self, other)

    def logical_or(self, other: Tensor) -> Tensor:
        return _comparison.logical_or(self, other)

    def logical_xor(self, other: Tensor) -> Tensor:
        return _comparison.logical_xor(self, other)

    def isinf(self) -> Tensor:
        return _comparison.isinf(self)

    def isfinite(self) -> Tensor:
        return _comparison.isfinite(self)

    def allclose(
        self,
        other: Tensor,
        rtol: builtins.float = 1e-05,
        atol: builtins.float = 1e-08,
        equal_nan: builtins.bool = False,
    ) -> builtins.bool:
        return _comparison.allclose(self, other, rtol, atol, equal_nan)

    def isclose(
        self,
        other: Tensor,
        rtol: builtins.float = 1e-05,
        atol: builtins.float = 1e-08,
        equal_nan: builtins.bool = False,
    ) -> Tensor:
        return _comparison.isclose(self, other, rtol, atol, equal_nan)

    def equal(self, other: Tensor) -> builtins.bool:
        return _comparison.equal(self, other)

    # ------------------------------------------------------------------
    # clamp, maximum, minimum, where, masked_fill (ops/selecting.py)
    # ------------------------------------------------------------------

    def clamp(
        self, min: TensorOrScalar | None = None, max: TensorOrScalar | None = None
    ) -> Tensor:
        return _selecting.clamp(self, min, max)

    clip = clamp

    def clamp_min(self, min: Scalar) -> Tensor:
        return _selecting.clamp_min(self, min)

    def clamp_max(self, max: Scalar) -> Tensor:
        return _selecting.clamp_max(self, max)

    def maximum(self, other: Tensor) -> Tensor:
        return _selecting.maximum(self, other)

    def minimum(self, other: Tensor) -> Tensor:
        return _selecting.minimum(self, other)

    def where(self, condition: Tensor, other: TensorOrScalar) -> Tensor:
        return _selecting.where(condition, self, other)

    def clamp_(
        self, min: TensorOrScalar | None = None, max: TensorOrScalar | None = None
    ) -> Tensor:
        _selecting.check_clamp_inplace(self, min, max)
        return self._inplace(_selecting.clamp, min, max)

    def masked_fill_(self, mask: Tensor, value: TensorOrScalar) -> Tensor:
        _selecting.check_masked_fill_inplace(self, mask, value)
        return self._inplace(_selecting.masked_fill, mask, value, overlap_ok=True)

    def masked_fill(self, mask: Tensor, value: TensorOrScalar) -> Tensor:
        return _selecting.masked_fill(self, mask, value)

    # ------------------------------------------------------------------
    # Rounding and rounded division (ops/rounding.py)
    # ------------------------------------------------------------------

    def floor_divide_(self, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_rounding.FloorDivideInPlace.apply, other)

    def __imod__(self, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_rounding.remainder, other)

    def __floordiv__(self, other: TensorOrScalar) -> Tensor:
        return _rounding.floor_divide(self, other)

    def __rfloordiv__(self, other: TensorOrScalar) -> Tensor:
        return _rounding.floor_divide(other, self)

    def __mod__(self, other: TensorOrScalar) -> Tensor:
        return _rounding.remainder(self, other)

    def __rmod__(self, other: TensorOrScalar) -> Tensor:
        return _rounding.remainder(other, self)

    def floor_divide(self, other: TensorOrScalar) -> Tensor:
        return _rounding.floor_divide(self, other)

    def remainder(self, other: TensorOrScalar) -> Tensor:
        return _rounding.remainder(self, other)

    def floor(self) -> Tensor:
        return _rounding.floor(self)

    def ceil(self) -> Tensor:
        return _rounding.ceil(self)

    def round(self, *, decimals: int | None = None) -> Tensor:
        return _rounding.round(self, decimals=decimals)

    def trunc(self) -> Tensor:
        return _rounding.trunc(self)

    def fix(self) -> Tensor:
        return _rounding.trunc(self)

    def floor_(self) -> Tensor:
        return self._inplace(_rounding.floor)

    def ceil_(self) -> Tensor:
        return self._inplace(_rounding.ceil)

    def round_(self, *, decimals: int | None = None) -> Tensor:
        return self._inplace(_rounding.round, decimals=decimals)

    def trunc_(self) -> Tensor:
        return self._inplace(_rounding.trunc)

    # ------------------------------------------------------------------
    # Arithmetic and elementwise functions (ops/pointwise.py)
    # ------------------------------------------------------------------

    def __add__(self, other: TensorOrScalar) -> Tensor:
        return _pointwise.add(self, other)

    def __radd__(self, other: TensorOrScalar) -> Tensor:
        return _pointwise.add(self, other)

    def __iadd__(self, other: TensorOrScalar) -> Tensor:
        return self.add_(other)

    def __sub__(self, other: TensorOrScalar) -> Tensor:
        return _pointwise.sub(self, other)

    def __rsub__(self, other: TensorOrScalar) -> Tensor:
        return _pointwise.rsub(self, other)

    def __isub__(self, other: TensorOrScalar) -> Tensor:
        return self.sub_(other)

    def __mul__(self, other: TensorOrScalar) -> Tensor:
        return _pointwise.mul(self, other)

    def __rmul__(self, other: TensorOrScalar) -> Tensor:
        return _pointwise.mul(self, other)

    def __imul__(self, other: TensorOrScalar) -> Tensor:
        return self.mul_(other)

    def __truediv__(self, other: TensorOrScalar) -> Tensor:
        return _pointwise.div(self, other)

    def __rtruediv__(self, other: TensorOrScalar) -> Tensor:
        return _pointwise.mul(_pointwise.reciprocal(self), other)

    def __itruediv__(self, other: TensorOrScalar) -> Tensor:
        return self.div_(other)

    def __ifloordiv__(self, other: TensorOrScalar) -> Tensor:
        return self.floor_divide_(other)

    def __pow__(self, exponent: TensorOrScalar) -> Tensor:
        return _pointwise.pow(self, exponent)

    def __rpow__(self, base: TensorOrScalar) -> Tensor:
        return _pointwise.pow(base, self)

    def __ipow__(self, exponent: TensorOrScalar) -> Tensor:
        return self.pow_(exponent)

    def __neg__(self) -> Tensor:
        return _pointwise.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return _pointwise.abs(self)

    def add(self, other: TensorOrScalar, *, alpha: Scalar = 1) -> Tensor:
        return _pointwise.add(self, other, alpha=alpha)

    def sub(self, other: TensorOrScalar, *, alpha: Scalar = 1) -> Tensor:
        return _pointwise.sub(self, other, alpha=alpha)

    def mul(self, other: TensorOrScalar) -> Tensor:
        return _pointwise.mul(self, other)

    def div(self, other: TensorOrScalar, **rounding_mode: str | None) -> Tensor:
        return _pointwise.div(self, other, **rounding_mode)

    def pow(self, exponent: TensorOrScalar) -> Tensor:
        return _pointwise.pow(self, exponent)

    def neg(self) -> Tensor:
        return _pointwise.neg(self)

    def abs(self) -> Tensor:
        return _pointwise.abs(self)

    def exp(self) -> Tensor:
        return _pointwise.exp(self)

    def log(self) -> Tensor:
        return _pointwise.log(self)

    def sqrt(self) -> Tensor:
        return _pointwise.sqrt(self)

    def tanh(self) -> Tensor:
        return _pointwise.tanh(self)

    def sigmoid(self) -> Tensor:
        return _pointwise.sigmoid(self)

    def relu(self) -> Tensor:
        return _pointwise.relu(self)

    def reciprocal(self) -> Tensor:
        return _pointwise.reciprocal(self)

    def rsqrt(self) -> Tensor:
        return _pointwise.rsqrt(self)

    def square(self) -> Tensor:
        return _pointwise.square(self)

    # The arithmetic in-place methods check that the result fits ``self``
    # before computing, as PyTorch does before it looks for a loop.
    def add_(self, other: TensorOrScalar, *, alpha: Scalar = 1) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_pointwise.add, other, alpha=alpha)

    def sub_(self, other: TensorOrScalar, *, alpha: Scalar = 1) -> Tensor:
        _pointwise.check_bool_subtraction(self, other)
        _common.check_inplace_result(self, other)
        return self._inplace(_pointwise.sub, other, alpha=alpha)

    def mul_(self, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_pointwise.mul, other)

    # ``rounding_mode`` is passed on only if given: PyTorch records another
    # overload when it is, even as None (see ``ops.pointwise.div``).
    def div_(self, other: TensorOrScalar, **rounding_mode: str | None) -> Tensor:
        _pointwise.check_inplace_division(
            self, other, rounding_mode.get("rounding_mode")
        )
        return self._inplace(lambda x, y: _pointwise.div(x, y, **rounding_mode), other)

    def divide_(self, other: TensorOrScalar, **rounding_mode: str | None) -> Tensor:
        return self.div_(other, **rounding_mode)

    def true_divide_(self, other: TensorOrScalar) -> Tensor:
        _pointwise.check_inplace_division(self, other, None)
        return self._inplace(_pointwise.true_divide, other)

    def pow_(self, exponent: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, exponent)
        return self._inplace(_pointwise.pow, exponent)

    def neg_(self) -> Tensor:
        return self._inplace(_pointwise.neg)

    def exp_(self) -> Tensor:
        return self._inplace(_pointwise.exp)

    def sqrt_(self) -> Tensor:
        return self._inplace(_pointwise.sqrt)

    def relu_(self) -> Tensor:
        return self._inplace(_pointwise.relu)

    def sign(self) -> Tensor:
        return _pointwise.sign(self)

    def sign_(self) -> Tensor:
        return self._inplace(_pointwise.sign)

    def true_divide(self, other: TensorOrScalar) -> Tensor:
        return _pointwise.true_divide(self, other)

    def divide(self, other: TensorOrScalar, **rounding_mode: str | None) -> Tensor:
        return _pointwise.divide(self, other, **rounding_mode)

    def multiply(self, other: TensorOrScalar) -> Tensor:
        return _pointwise.multiply(self, other)

    def subtract(self, other: TensorOrScalar, *, alpha: Scalar = 1) -> Tensor:
        return _pointwise.subtract(self, other, alpha=alpha)

    def nan_to_num(
        self,
        nan: builtins.float = 0.0,
        posinf: builtins.float | None = None,
        neginf: builtins.float | None = None,
    ) -> Tensor:
        return _pointwise.nan_to_num(self, nan, posinf, neginf)

    def log1p(self) -> Tensor:
        return _pointwise.log1p(self)

    def nan_to_num_(
        self,
        nan: builtins.float = 0.0,
        posinf: builtins.float | None = None,
        neginf: builtins.float | None = None,
    ) -> Tensor:
        return self._inplace(_pointwise.nan_to_num, nan, posinf, neginf)

    def log1p_(self) -> Tensor:
        return self._inplace(_pointwise.log1p)

    def log10(self) -> Tensor:
        return _pointwise.log10(self)

    def log10_(self) -> Tensor:
        return self._inplace(_pointwise.log10)

    def log2(self) -> Tensor:
        return _pointwise.log2(self)

    def log2_(self) -> Tensor:
        return self._inplace(_pointwise.log2)

    def exp2(self) -> Tensor:
        return _pointwise.exp2(self)

    def exp2_(self) -> Tensor:
        return self._inplace(_pointwise.exp2)

    def expm1(self) -> Tensor:
        return _pointwise.expm1(self)

    def expm1_(self) -> Tensor:
        return self._inplace(_pointwise.expm1)

    def log_(self) -> Tensor:
        return self._inplace(_pointwise.log)

    def tanh_(self) -> Tensor:
        return self._inplace(_pointwise.tanh)

    def sigmoid_(self) -> Tensor:
        return self._inplace(_pointwise.sigmoid)

    def reciprocal_(self) -> Tensor:
        return self._inplace(_pointwise.reciprocal)

    def rsqrt_(self) -> Tensor:
        return self._inplace(_pointwise.rsqrt)

    def square_(self) -> Tensor:
        return self._inplace(_pointwise.square)

    def abs_(self) -> Tensor:
        return self._inplace(_pointwise.abs)

    # ------------------------------------------------------------------
    # The parts of complex numbers (ops/complex_parts.py)
    # ------------------------------------------------------------------

    @property
    def real(self) -> Tensor:
        """The real parts of a complex tensor (a view); the tensor if real."""
        return _complex_parts.real(self)

    @property
    def imag(self) -> Tensor:
        """The imaginary parts of a complex tensor (a view)."""
        return _complex_parts.imag(self)

    def conj(self) -> Tensor:
        return _complex_parts.conj(self)

    def angle(self) -> Tensor:
        return _complex_parts.angle(self)

    # ------------------------------------------------------------------
    # Trigonometry (ops/trigonometry.py)
    # ------------------------------------------------------------------

    def sin(self) -> Tensor:
        return _trigonometry.sin(self)

    def sin_(self) -> Tensor:
        return self._inplace(_trigonometry.sin)

    def cos(self) -> Tensor:
        return _trigonometry.cos(self)

    def cos_(self) -> Tensor:
        return self._inplace(_trigonometry.cos)

    def tan(self) -> Tensor:
        return _trigonometry.tan(self)

    def tan_(self) -> Tensor:
        return self._inplace(_trigonometry.tan)

    def sinh(self) -> Tensor:
        return _trigonometry.sinh(self)

    def sinh_(self) -> Tensor:
        return self._inplace(_trigonometry.sinh)

    def cosh(self) -> Tensor:
        return _trigonometry.cosh(self)

    def cosh_(self) -> Tensor:
        return self._inplace(_trigonometry.cosh)

    def asin(self) -> Tensor:
        return _trigonometry.asin(self)

    def asin_(self) -> Tensor:
        return self._inplace(_trigonometry.asin)

    def arcsin(self) -> Tensor:
        return _trigonometry.asin(self)

    def acos(self) -> Tensor:
        return _trigonometry.acos(self)

    def acos_(self) -> Tensor:
        return self._inplace(_trigonometry.acos)

    def arccos(self) -> Tensor:
        return _trigonometry.acos(self)

    def atan(self) -> Tensor:
        return _trigonometry.atan(self)

    def atan_(self) -> Tensor:
        return self._inplace(_trigonometry.atan)

    def arctan(self) -> Tensor:
        return _trigonometry.atan(self)

    def atan2(self, other: Tensor) -> Tensor:
        return _trigonometry.atan2(self, other)

    def atan2_(self, other: Tensor) -> Tensor:
        _common.check_tensor("atan2_", other, position=1)
        return self._inplace(_trigonometry.atan2, other)

    def arctan2(self, other: Tensor) -> Tensor:
        return _trigonometry.atan2(self, other)

    def hypot(self, other: Tensor) -> Tensor:
        return _trigonometry.hypot(self, other)

    def hypot_(self, other: Tensor) -> Tensor:
        _common.check_tensor("hypot_", other, position=1)
        return self._inplace(_trigonometry.hypot, other)

    # ------------------------------------------------------------------
    # Copies, casts and fills (ops/copying.py)
    # ------------------------------------------------------------------

    def clone(self) -> Tensor:
        """A copy with its own storage (recorded as ``CloneBackward0``)."""
        return _copying.clone(self)

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

    def float(self) -> Tensor:
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        return self.to(dtypes.float64)

    def long(self) -> Tensor:
        return self.to(dtypes.int64)

    def bool(self) -> Tensor:
        return self.to(dtypes.bool_)

    def half(self) -> Tensor:
        return self.to(dtypes.float16)

    def bfloat16(self) -> Tensor:
        return self.to(dtypes.bfloat16)

    def cpu(self) -> Tensor:
        return self

    def cuda(self, device: int | str | None = None, **kwargs: Any) -> Tensor:
        """Refused as PyTorch refuses it on a machine without a GPU."""
        raise AssertionError(NO_CUDA)

    def copy_(self, source: Tensor) -> Tensor:
        """Copies ``source`` (broadcast to this shape) into this tensor."""
        # Copying a tensor into itself changes nothing, even if it is expanded.
        return self._inplace(_copying.copy_into, source, overlap_ok=source is self)

    def fill_(self, value: Scalar) -> Tensor:
        """Sets every element to ``value``."""
        return self._inplace(_copying.filled, value, overlap_ok=True)

    def zero_(self) -> Tensor:
        """Sets every element to zero."""
        return self._inplace(_copying.zeroed, overlap_ok=True)

    # ------------------------------------------------------------------
    # Bitwise operations (ops/bitwise.py)
    # ------------------------------------------------------------------

    def __iand__(self, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_bitwise.bitwise_and, other)

    def __ior__(self, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_bitwise.bitwise_or, other)

    def __ixor__(self, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_bitwise.bitwise_xor, other)

    def __ilshift__(self, other: TensorOrScalar) -> Tensor:
        return self.bitwise_left_shift_(other)

    def __irshift__(self, other: TensorOrScalar) -> Tensor:
        return self.bitwise_right_shift_(other)

    def bitwise_and_(self, other: TensorOrScalar) -> Tensor:
        return self.__iand__(other)

    def bitwise_or_(self, other: TensorOrScalar) -> Tensor:
        return self.__ior__(other)

    def bitwise_xor_(self, other: TensorOrScalar) -> Tensor:
        return self.__ixor__(other)

    def bitwise_left_shift_(self, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_bitwise.bitwise_left_shift, other)

    def bitwise_right_shift_(self, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_bitwise.bitwise_right_shift, other)

    def __invert__(self) -> Tensor:
        return _bitwise.invert(self)

    def __and__(self, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_and(self, other)

    def __or__(self, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_or(self, other)

    def __xor__(self, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_xor(self, other)

    __rand__ = __and__

    __ror__ = __or__

    __rxor__ = __xor__

    def __lshift__(self, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_left_shift(self, other)

    def __rlshift__(self, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_left_shift(other, self)

    def __rshift__(self, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_right_shift(self, other)

    def __rrshift__(self, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_right_shift(other, self)

    def bitwise_and(self, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_and(self, other)

    def bitwise_or(self, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_or(self, other)

    def bitwise_xor(self, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_xor(self, other)

    def bitwise_not(self) -> Tensor:
        return _bitwise.bitwise_not(self)

    def bitwise_left_shift(self, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_left_shift(self, other)

    def bitwise_right_shift(self, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_right_shift(self, other)

    # ------------------------------------------------------------------
    # Fused operations that optimisers use (ops/fused.py)
    # ------------------------------------------------------------------

    def addcmul(self, tensor1: Tensor, tensor2: Tensor, *, value: Scalar = 1) -> Tensor:
        return _fused.addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(
        self, tensor1: Tensor, tensor2: Tensor, *, value: Scalar = 1
    ) -> Tensor:
        return self._inplace(_fused.addcmul, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1: Tensor, tensor2: Tensor, *, value: Scalar = 1) -> Tensor:
        return _fused.addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(
        self, tensor1: Tensor, tensor2: Tensor, *, value: Scalar = 1
    ) -> Tensor:
        return self._inplace(_fused.addcdiv, tensor1, tensor2, value=value)

    def lerp(self, end: Tensor, weight: TensorOrScalar) -> Tensor:
        return _fused.lerp(self, end, weight)

    def lerp_(self, end: Tensor, weight: TensorOrScalar) -> Tensor:
        return self._inplace(_fused.lerp, end, weight)

    # ------------------------------------------------------------------
    # Reductions (ops/reduction.py)
    # ------------------------------------------------------------------

    def sum_to_size(self, *size: Any) -> Tensor:
        """Sums down to ``size``: the reverse of broadcasting to this shape."""
        return _reduction.sum_to_size(
            self, _strides.sizes_arg(size, "sum_to_size", "size")
        )

    @keepdims_alias
    def sum(
        self,
        dim: ShapeArg | None = None,
        keepdim: builtins.bool = False,
        *,
        dtype: dtypes.dtype | None = None,
    ) -> Tensor:
        return _reduction.sum(self, dim, keepdim, dtype=dtype)

    def histc(
        self,
        bins: int = 100,
        min: builtins.float = 0,
        max: builtins.float = 0,
    ) -> Tensor:
        return _histograms.histc(self, bins, min, max)

    def histogram(self, bins: Any = 100, **options: Any) -> Any:
        return _histograms.histogram(self, bins, **options)

    @keepdims_alias
    def logsumexp(self, dim: ShapeArg, keepdim: builtins.bool = False) -> Tensor:
        return _reduction.logsumexp(self, dim, keepdim)

    @keepdims_alias
    def mean(
        self,
        dim: ShapeArg | None = None,
        keepdim: builtins.bool = False,
        *,
        dtype: dtypes.dtype | None = None,
    ) -> Tensor:
        return _reduction.mean(self, dim, keepdim, dtype=dtype)

    def softmax(self, dim: int, dtype: dtypes.dtype | None = None) -> Tensor:
        _dim_given("softmax", dim)
        return _activation.softmax(self, dim, dtype=dtype)

    def log_softmax(self, dim: int, dtype: dtypes.dtype | None = None) -> Tensor:
        _dim_given("log_softmax", dim)
        return _activation.log_softmax(self, dim, dtype=dtype)

    def unique(
        self,
        sorted: builtins.bool = True,
        return_inverse: builtins.bool = False,
        return_counts: builtins.bool = False,
        dim: int | None = None,
    ) -> Any:
        return _unique.unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(
        self,
        return_inverse: builtins.bool = False,
        return_counts: builtins.bool = False,
        dim: int | None = None,
    ) -> Any:
        return _unique.unique_consecutive(self, return_inverse, return_counts, dim)

    @keepdims_alias
    def prod(
        self,
        dim: int | None = None,
        keepdim: builtins.bool = False,
        *,
        dtype: dtypes.dtype | None = None,
    ) -> Tensor:
        return _reduction.prod(self, dim, keepdim, dtype=dtype)

    @keepdims_alias
    def max(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        return _reduction.max(self, dim, keepdim)

    @keepdims_alias
    def min(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        return _reduction.min(self, dim, keepdim)

    @keepdims_alias
    def median(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        return _reduction.median(self, dim, keepdim)

    @keepdims_alias
    def kthvalue(self, k: int, dim: int = -1, keepdim: builtins.bool = False) -> Any:
        return _reduction.kthvalue(self, k, dim, keepdim)

    @keepdims_alias
    def amax(self, dim: ShapeArg = (), keepdim: builtins.bool = False) -> Tensor:
        return _reduction.amax(self, dim, keepdim)

    @keepdims_alias
    def amin(self, dim: ShapeArg = (), keepdim: builtins.bool = False) -> Tensor:
        return _reduction.amin(self, dim, keepdim)

    @keepdims_alias
    def argmax(self, dim: int | None = None, keepdim: builtins.bool = False) -> Tensor:
        return _reduction.argmax(self, dim, keepdim)

    @keepdims_alias
    def argmin(self, dim: int | None = None, keepdim: builtins.bool = False) -> Tensor:
        return _reduction.argmin(self, dim, keepdim)

    @keepdims_alias
    def var(
        self,
        dim: ShapeArg | None = None,
        unbiased: builtins.bool | None = None,
        keepdim: builtins.bool = False,
        *,
        correction: int | None = None,
    ) -> Tensor:
        return _statistics.var(self, dim, unbiased, keepdim, correction=correction)

    @keepdims_alias
    def std(
        self,
        dim: ShapeArg | None = None,
        unbiased: builtins.bool | None = None,
        keepdim: builtins.bool = False,
        *,
        correction: int | None = None,
    ) -> Tensor:
        return _statistics.std(self, dim, unbiased, keepdim, correction=correction)

    @keepdims_alias
    def all(self, dim: int | None = None, keepdim: builtins.bool = False) -> Tensor:
        return _reduction.all(self, dim, keepdim)

    @keepdims_alias
    def any(self, dim: int | None = None, keepdim: builtins.bool = False) -> Tensor:
        return _reduction.any(self, dim, keepdim)

    # ------------------------------------------------------------------
    # Views and shape changes (ops/views.py)
    # ------------------------------------------------------------------

    def _as_strided(
        self,
        shape: tuple[int, ...],
        stride: tuple[int, ...],
        offset: int,
        parts: builtins.bool = False,
    ) -> Tensor:
        """A view of this storage with exactly this geometry (not checked);
        with ``parts``, of the real and imaginary parts of this complex
        tensor's storage (a view of ``view_as_real(self)``)."""
        source = _complex_parts.view_as_real(self) if parts else self
        return _views.AsStrided.apply(source, shape=shape, stride=stride, offset=offset)

    def as_strided(
        self,
        size: Sequence[int],
        stride: Sequence[int],
        storage_offset: int | None = None,
    ) -> Tensor:
        return _views.as_strided(self, size, stride, storage_offset)

    def unfold(self, dimension: int, size: int, step: int) -> Tensor:
        return _views.unfold(self, dimension, size, step)

    def view(self, *shape: Any) -> Tensor:
        if not shape:
            raise TypeError(
                "view() received an invalid combination of arguments - got ()"
            )
        return _views.view(self, _strides.sizes_arg(shape, "view", "size"))

    def view_as(self, other: Tensor) -> Tensor:
        return _views.view(self, other._shape)

    def reshape(self, *shape: Any) -> Tensor:
        if not shape:
            raise TypeError(
                'reshape() missing 1 required positional arguments: "shape"'
            )
        return _views.reshape(self, _strides.sizes_arg(shape, "reshape", "shape"))

    def reshape_as(self, other: Tensor) -> Tensor:
        return _views.reshape(self, other._shape)

    def contiguous(self) -> Tensor:
        return _views.contiguous(self)

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        return _views.transpose(self, dim0, dim1)

    def t(self) -> Tensor:
        return _views.t(self)

    def transpose_(self, dim0: int, dim1: int) -> Tensor:
        return _views.transpose_(self, dim0, dim1)

    def t_(self) -> Tensor:
        return _views.t_(self)

    def swapaxes(self, axis0: int, axis1: int) -> Tensor:
        return _views.swapaxes(self, axis0, axis1)

    def swapdims(self, dim0: int, dim1: int) -> Tensor:
        return _views.swapdims(self, dim0, dim1)

    def swapaxes_(self, axis0: int, axis1: int) -> Tensor:
        return _views.transpose_(self, axis0, axis1)

    def swapdims_(self, dim0: int, dim1: int) -> Tensor:
        return _views.transpose_(self, dim0, dim1)

    @property
    def T(self) -> Tensor:
        """All dimensions reversed (for a matrix: the transpose)."""
        return _views.permute(self, tuple(reversed(range(len(self._shape)))))

    @property
    def mT(self) -> Tensor:
        """The last two dimensions swapped.

        Raises:
            RuntimeError: For a 1-d tensor (a 0-d tensor is returned as it is).
        """
        if self.dim() == 0:
            return self
        if self.dim() == 1:
            raise RuntimeError(
                "tensor.mT is only supported on matrices or batches of matrices. "
                "Got 1-D tensor."
            )
        return _views.transpose(self, -2, -1)

    def permute(self, *dims: Any) -> Tensor:
        if not dims:
            raise TypeError('permute() missing 1 required positional arguments: "dims"')
        return _views.permute(self, _strides.sizes_arg(dims, "permute", "dims"))

    def unsqueeze(self, dim: int) -> Tensor:
        return _views.unsqueeze(self, dim)

    def squeeze(self, dim: ShapeArg | None = None) -> Tensor:
        return _views.squeeze(self, dim)

    def expand(self, *sizes: Any) -> Tensor:
        return _views.expand(self, _strides.sizes_arg(sizes, "expand", "size"))

    def unflatten(self, dim: int, sizes: Sequence[int]) -> Tensor:
        return _views.unflatten(self, dim, sizes)

    def type_as(self, other: Tensor) -> Tensor:
        """This tensor converted to ``other``'s dtype (itself if it has it)."""
        _common.check_tensor("type_as", other, position=1)
        return self.to(other.dtype)

    def expand_as(self, other: Tensor) -> Tensor:
        _common.check_tensor("expand_as", other, position=1)
        return _views.expand(self, other._shape)

    def narrow(self, dim: int, start: int, length: int) -> Tensor:
        return _views.narrow(self, dim, start, length)

    def select(self, dim: int, index: int) -> Tensor:
        return _views.select(self, dim, index)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        return _views.flatten(self, start_dim, end_dim)

    def split(self, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
        return _views.split(self, split_size, dim)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        return _views.chunk(self, chunks, dim)

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        return _views.unbind(self, dim)

    # ------------------------------------------------------------------
    # Gathering and scattering (ops/gather_scatter.py)
    # ------------------------------------------------------------------

    def gather(self, dim: int, index: Tensor) -> Tensor:
        return _gather_scatter.gather(self, dim, index)

    def scatter(
        self, dim: int, index: Tensor, src: Any = None, *, value: Any = None
    ) -> Tensor:
        return _gather_scatter.scatter(self, dim, index, src, value=value)

    def scatter_add(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        return _gather_scatter.scatter_add(self, dim, index, src)

    def index_select(self, dim: int, index: Tensor) -> Tensor:
        return _gather_scatter.index_select(self, dim, index)

    def index_add(
        self, dim: int, index: Tensor, source: Tensor, *, alpha: Scalar = 1
    ) -> Tensor:
        return _gather_scatter.index_add(self, dim, index, source, alpha=alpha)

    def index_add_(
        self, dim: int, index: Tensor, source: Tensor, *, alpha: Scalar = 1
    ) -> Tensor:
        return self._inplace(_gather_scatter.index_add, dim, index, source, alpha=alpha)

    def masked_select(self, mask: Tensor) -> Tensor:
        return _gather_scatter.masked_select(self, mask)

    def nonzero(self, *, as_tuple: builtins.bool = False) -> Any:
        return _gather_scatter.nonzero(self, as_tuple=as_tuple)

    def scatter_(
        self, dim: int, index: Tensor, src: Any = None, *, value: Any = None
    ) -> Tensor:
        return self._inplace(_gather_scatter.scatter, dim, index, src, value=value)

    def scatter_add_(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        return self._inplace(_gather_scatter.scatter_add, dim, index, src)

    # ------------------------------------------------------------------
    # Indexing: x[i] and x[i] = v (ops/indexing.py)
    # ------------------------------------------------------------------

    def __getitem__(self, index: Any) -> Tensor:
        return _indexing.getitem(self, index)

    def __setitem__(self, index: Any, value: TensorOrScalar) -> None:
        _indexing.setitem(self, index, value)

    # ------------------------------------------------------------------
    # Rearranging (ops/rearrange.py)
    # ------------------------------------------------------------------

    def roll(self, shifts: Any, dims: Any = None) -> Tensor:
        return _rearrange.roll(self, shifts, dims)

    def flip(self, *dims: Any) -> Tensor:
        return _rearrange.flip(self, _strides.sizes_arg(dims, "flip", "dims"))

    def repeat(self, *sizes: Any) -> Tensor:
        return _rearrange.repeat(self, *sizes)

    def tril(self, diagonal: int = 0) -> Tensor:
        return _rearrange.tril(self, diagonal)

    def triu(self, diagonal: int = 0) -> Tensor:
        return _rearrange.triu(self, diagonal)

    def tril_(self, diagonal: int = 0) -> Tensor:
        return self._inplace(_rearrange.tril, diagonal)

    def triu_(self, diagonal: int = 0) -> Tensor:
        return self._inplace(_rearrange.triu, diagonal)

    # ------------------------------------------------------------------
    # Sorting (ops/sorting.py)
    # ------------------------------------------------------------------

    def sort(
        self,
        dim: int = -1,
        descending: builtins.bool = False,
        *,
        stable: builtins.bool | None = None,
    ) -> _sorting.SortResult:
        return _sorting.sort(self, dim, descending, stable=stable)

    def argsort(
        self,
        dim: int = -1,
        descending: builtins.bool = False,
        *,
        stable: builtins.bool = False,
    ) -> Tensor:
        return _sorting.argsort(self, dim, descending, stable=stable)

    def topk(
        self,
        k: int,
        dim: int = -1,
        largest: builtins.bool = True,
        sorted: builtins.bool = True,
    ) -> _sorting.TopkResult:
        return _sorting.topk(self, k, dim, largest, sorted)

    # ------------------------------------------------------------------
    # Scans (ops/scan.py)
    # ------------------------------------------------------------------

    def cumsum(self, dim: int, *, dtype: dtypes.dtype | None = None) -> Tensor:
        return _scan.cumsum(self, dim, dtype=dtype)

    def cumprod(self, dim: int, *, dtype: dtypes.dtype | None = None) -> Tensor:
        return _scan.cumprod(self, dim, dtype=dtype)

    def cumsum_(self, dim: int) -> Tensor:
        return self._inplace(_scan.cumsum, dim)

    # ------------------------------------------------------------------
    # Matrix products (ops/linalg.py)
    # ------------------------------------------------------------------

    def __matmul__(self, other: Tensor) -> Tensor:
        return _linalg.matmul(self, other)

    def __rmatmul__(self, other: Tensor) -> Tensor:
        return _linalg.matmul(other, self)

    def matmul(self, other: Tensor) -> Tensor:
        return _linalg.matmul(self, other)

    def mm(self, mat2: Tensor) -> Tensor:
        return _linalg.mm(self, mat2)

    def bmm(self, mat2: Tensor) -> Tensor:
        return _linalg.bmm(self, mat2)

    def mv(self, vec: Tensor) -> Tensor:
        return _linalg.mv(self, vec)

    def dot(self, other: Tensor) -> Tensor:
        return _linalg.dot(self, other)

    def outer(self, vec2: Tensor) -> Tensor:
        return _linalg.outer(self, vec2)

    def norm(
        self, p: Any = "fro", dim: Any = None, keepdim: builtins.bool = False
    ) -> Tensor:
        return _statistics.norm(self, p, dim, keepdim)

    # ------------------------------------------------------------------
    # Random fills (_rng.py)
    # ------------------------------------------------------------------

    def uniform_(
        self,
        from_: builtins.float = 0.0,
        to: builtins.float = 1.0,
        *,
        generator: Any = None,
    ) -> Tensor:
        """Fills with uniform random numbers in ``[from_, to)``."""
        return _rng.uniform_(self, from_, to, generator=generator)

    def normal_(
        self,
        mean: builtins.float = 0.0,
        std: builtins.float = 1.0,
        *,
        generator: Any = None,
    ) -> Tensor:
        """Fills with normal random numbers of this mean and std."""
        return _rng.normal_(self, mean, std, generator=generator)

    def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> Tensor:
        """Fills with 1 (probability ``p``) or 0 (see :mod:`slowtorch_lib._rng`)."""
        return _rng.bernoulli_(self, p, generator=generator)

    def multinomial(
        self,
        num_samples: int,
        replacement: builtins.bool = False,
        *,
        generator: Any = None,
    ) -> Tensor:
        return _rng.multinomial(self, num_samples, replacement, generator=generator)

    def bernoulli(self, p: Any = None, *, generator: Any = None) -> Tensor:
        """0 or 1 for each element, 1 with the element's probability (or ``p``)."""
        return _rng.bernoulli(self, p, generator=generator)

    # ------------------------------------------------------------------
    # Casts named after C types. They come last: a method named ``int``
    # hides the built-in ``int`` from the annotations written after it.
    # ------------------------------------------------------------------

    def int(self) -> Tensor:
        return self.to(dtypes.int32)

    def short(self) -> Tensor:
        return self.to(dtypes.int16)

    def char(self) -> Tensor:
        return self.to(dtypes.int8)

    def byte(self) -> Tensor:
        return self.to(dtypes.uint8)


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


def _dim_given(function: str, dim: Any) -> None:
    """A method's ``dim`` that may not be None (the function's may be)."""
    if dim is None:
        raise TypeError(
            f"{function}(): argument 'dim' (position 1) must be int, not NoneType"
        )


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


#: The modules above this layer whose functions the methods call, by the
#: name the methods use (``_pointwise.mul``). This is the one list: the
#: imports under ``TYPE_CHECKING`` at the top name the same modules for type
#: checkers and "go to definition", and ``tests/test_layering.py`` checks
#: that the two agree.
OPS_MODULES = {
    "_activation": "slowtorch_lib.nn.functional.activation",
    "_bitwise": "slowtorch_lib.ops.bitwise",
    "_common": "slowtorch_lib.ops.common",
    "_comparison": "slowtorch_lib.ops.comparison",
    "_complex_parts": "slowtorch_lib.ops.complex_parts",
    "_copying": "slowtorch_lib.ops.copying",
    "_creation": "slowtorch_lib._creation",
    "_engine": "slowtorch_lib.autograd.engine",
    "_fused": "slowtorch_lib.ops.fused",
    "_gather_scatter": "slowtorch_lib.ops.gather_scatter",
    "_histograms": "slowtorch_lib.ops.histograms",
    "_history": "slowtorch_lib.autograd.history",
    "_indexing": "slowtorch_lib.ops.indexing",
    "_linalg": "slowtorch_lib.ops.linalg",
    "_pointwise": "slowtorch_lib.ops.pointwise",
    "_printing": "slowtorch_lib._printing",
    "_rearrange": "slowtorch_lib.ops.rearrange",
    "_reduction": "slowtorch_lib.ops.reduction",
    "_rng": "slowtorch_lib._rng",
    "_rounding": "slowtorch_lib.ops.rounding",
    "_scan": "slowtorch_lib.ops.scan",
    "_selecting": "slowtorch_lib.ops.selecting",
    "_statistics": "slowtorch_lib.ops.statistics",
    "_sorting": "slowtorch_lib.ops.sorting",
    "_trigonometry": "slowtorch_lib.ops.trigonometry",
    "_unique": "slowtorch_lib.ops.unique",
    "_views": "slowtorch_lib.ops.views",
}


def bind_ops() -> None:
    """Connects ``Tensor``'s methods to the modules that define them.

    ``x.mul(y)`` is ``ops.pointwise.mul(x, y)``: the operation is defined
    once, in the ops, and the method only passes its arguments on. But the
    ops are built on ``Tensor``, so this module cannot import them: each
    layer imports only the layers below it. Instead, the package
    (``slowtorch_lib/__init__.py``), once it has imported every layer, calls
    this function once, and it stores each module of :data:`OPS_MODULES` in
    a global of this module, under the name the methods use.

    This is the one way ``Tensor`` reaches the layers above it; the
    autograd engine and the ops use it too when they call a tensor's
    methods.
    """
    this = sys.modules[__name__]
    for name, module in OPS_MODULES.items():
        setattr(this, name, importlib.import_module(module))


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
