"""Making tensors: from Python data, filled with a value, or counting up.

Every function here ends the same way: a flat list of values, a shape and a
dtype go to :func:`~slowtorch_lib._tensor.from_values`, which stores them in
a new contiguous tensor. Storing a float in a ``float32`` storage rounds it,
so ``tensor(0.1).item()`` is ``0.10000000149011612``, as in PyTorch.

The dtype of a new tensor, when none is given, follows the data: all bools
give ``bool``, all ints give ``int64``, anything with a float gives the
default float dtype (``float32`` unless changed by ``set_default_dtype``).

Here are ``tensor(data)``, the filled tensors (``zeros``, ``full``, ``eye``,
the ``*_like`` forms) and the default device. Next door: the counting ones
(``arange``, ``linspace``) in :mod:`slowtorch_lib._ranges`, the legacy
``torch.FloatTensor(...)`` in :mod:`slowtorch_lib._legacy_constructors`, and
NumPy arrays in (``from_numpy``) in :mod:`slowtorch_lib._numpy_in`.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Protocol

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._numpy_in import is_numpy, numpy_values
from slowtorch_lib._strides import numel
from slowtorch_lib._tensor import CPU, Tensor, check_device, device, from_values

__all__ = [
    "as_tensor",
    "empty",
    "empty_like",
    "eye",
    "full",
    "full_like",
    "get_default_device",
    "ones",
    "ones_like",
    "set_default_device",
    "tensor",
    "zeros",
    "zeros_like",
]

DeviceArg = str | device | None

# What counts as a nested sequence in ``tensor(data)``.
SEQUENCES = (list, tuple, range)


# ----------------------------------------------------------------------
# Shared checks
# ----------------------------------------------------------------------


def finish(result: Tensor, requires_grad: bool, device_arg: DeviceArg) -> Tensor:
    """Checks the device and sets ``requires_grad`` on a new tensor.

    Raises:
        AssertionError: If the device (or, without one, the default
            device) is ``cuda``.
        RuntimeError: If gradients are asked for on an integer or bool tensor.
    """
    check_device(_DefaultDevice.where if device_arg is None else device_arg)
    if requires_grad:
        if not result.dtype.differentiable:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        result.requires_grad_(True)
    return result


def size_arg(name: str, args: tuple[Any, ...], size: Any = None) -> tuple[int, ...]:
    """The shape given to ``zeros``, ``rand``, ...: as ``(2, 3)``, ``((2, 3),)``
    or ``size=(2, 3)``.

    Raises:
        TypeError: If a size is not an int, with PyTorch's message.
        RuntimeError: If a size is negative.
    """
    if size is not None:
        if args:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        args = (size,)
    if not args:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    if len(args) == 1 and isinstance(args[0], (tuple, list)):  # Size is a tuple
        args = tuple(args[0])
    shape = []
    for position, s in enumerate(args, start=1):
        if isinstance(s, Tensor) and s.dim() == 0 and not s.is_floating_point():
            s = int(s.item())
        if isinstance(s, bool) or not isinstance(s, int):
            raise TypeError(
                f"{name}(): argument 'size' (position {position}) must be tuple of "
                f"ints, not {type(s).__name__}"
            )
        shape.append(s)
    check_sizes(shape)
    return tuple(shape)


# The most elements a tensor may have here: each one is a Python number
# while it is computed, so far fewer fit in memory than in PyTorch.
MAX_ELEMENTS = 2**31


def check_sizes(shape: list[int]) -> None:
    """Refuses negative sizes, and sizes no memory can hold, as PyTorch does.

    Raises:
        RuntimeError: For a negative size, or a tensor too large to allocate
            (PyTorch's allocator raises RuntimeError, never MemoryError).
    """
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {shape}"
            )
    count = numel(shape)
    if count * 8 >= 2**63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={shape}")
    if count > MAX_ELEMENTS:
        raise RuntimeError(
            f"can't allocate memory: you tried to allocate {count} elements "
            f"(this engine holds at most {MAX_ELEMENTS})"
        )


#: The largest int PyTorch takes as a number (a uint64's largest).
LARGEST_INTEGER = 2**64 - 1


class ConvertFamily(Protocol):
    """How a dtype beyond the ten takes a Python number, where it differs."""

    def convert(self, value: Any, d: dtype) -> Any:
        """:func:`convert` for ``d``."""

    def checked_fill(self, value: Any, d: dtype) -> Any:
        """:func:`checked_fill` for ``d``, once a complex value is refused."""


#: The conversion rules of the dtypes beyond the ten that have their own,
#: registered by their modules in :mod:`slowtorch_lib._fidelity`.
CONVERT_FAMILIES: dict[dtype, ConvertFamily] = {}


def python_number(value: Any, argument: str, function: str, position: int) -> Any:
    """A plain Python number from a number or a one-element tensor.

    Raises:
        TypeError: For anything else (``None``, strings, lists).
        OverflowError: For an int that is neither an int64 nor a uint64,
            which PyTorch cannot hold as a number.
    """
    if isinstance(value, Tensor):
        return value.item()
    if not isinstance(value, (bool, int, float, complex)):
        raise TypeError(
            f"{function}(): argument '{argument}' (position {position}) must be "
            f"Number, not {type(value).__name__}"
        )
    if isinstance(value, int) and value > LARGEST_INTEGER:
        raise OverflowError("int too big to convert")
    if isinstance(value, int) and value < dtypes.int64.min:
        raise OverflowError("can't convert negative int to unsigned")
    return value


def convert(value: Any, d: dtype) -> Any:
    """A Python number converted to an element of dtype ``d``, range-checked.

    Floats become integers by truncation toward zero; anything nonzero
    becomes ``True``; floats too large for float32 become ``inf`` when
    stored. A narrow integer type accepts what PyTorch accepts: a float
    within its range, an int within its range or, for uint8, an int down
    to ``-255``, which wraps around.

    Raises:
        RuntimeError: For a float that the integer type cannot hold (``nan``,
            ``inf``, 1e20), or an int outside a narrow type's range.
        ValueError: For a Python int outside the int64 range.
    """
    if d.is_complex:
        return complex(value)
    if d.is_floating_point:
        return float(value)
    if d is dtypes.bool_:
        return bool(value)
    overflow = RuntimeError(
        f"value cannot be converted to type {d.name} without overflow"
    )
    family = CONVERT_FAMILIES.get(d)
    if family is not None:
        return family.convert(value, d)
    if isinstance(value, float):
        if not (math.isfinite(value) and dtypes.int64.min <= value < 2.0**63):
            raise overflow
        if d.narrow and not d.min <= value <= d.max:  # 127.5 is no int8
            raise overflow
        value = int(value)
    elif not dtypes.int64.min <= value <= dtypes.int64.max:
        raise ValueError("Overflow when unpacking long long")
    lowest = d.min if d.is_signed else -d.max  # -1 is 255 as a uint8
    if not lowest <= value <= d.max:
        raise overflow
    return int(value)


def checked_fill(value: Any, d: dtype) -> Any:
    """The value ``fill_`` writes: like :func:`convert`, and also refuses
    a finite float too large for float32, float16 or bfloat16, as PyTorch's
    ``fill_``, ``masked_fill`` and ``clamp`` do."""
    overflow = RuntimeError(
        f"value cannot be converted to type {d.cpp_type} without overflow"
    )
    if d.is_complex:
        return complex(value)
    if isinstance(value, complex):  # no part of it may be dropped
        raise overflow
    too_big = math.isfinite(value) and abs(value) > d.max
    if d.is_floating_point and d.itemsize <= 4 and too_big:
        raise overflow
    family = CONVERT_FAMILIES.get(d)
    if family is not None:
        return family.checked_fill(value, d)
    try:
        return convert(value, d)
    except (RuntimeError, ValueError):
        raise overflow from None


# ----------------------------------------------------------------------
# tensor(data)
# ----------------------------------------------------------------------


def flatten_data(data: Any) -> tuple[list[Any], tuple[int, ...]]:
    """Flattens nested lists, checking that they are rectangular.

    The shape is read from the first element at each depth (``data``,
    ``data[0]``, ``data[0][0]``, ...). Then the nesting is walked depth
    first, with a stack, in the order the numbers are written: every list
    must have the length the shape says, and only numbers may stand at the
    bottom. If the shape holds a 0 the tensor is empty and, as in PyTorch,
    nothing more is read: ``[[], [1]]`` gives shape ``(2, 0)``.

    Returns:
        The elements in row-major order (numbers or one-element tensors)
        and the shape.

    Raises:
        ValueError: If the nesting is ragged, as PyTorch says it.
        TypeError: If a number stands where a list should be, or a list
            where a number should be.
    """
    shape: list[int] = []
    probe = data
    while isinstance(probe, SEQUENCES):
        shape.append(len(probe))
        if len(probe) == 0:
            break
        probe = probe[0]
    if isinstance(probe, str) and shape:
        raise ValueError("too many dimensions 'str'")
    if 0 in shape:
        return [], tuple(shape)
    if not shape:
        return [data], ()
    values: list[Any] = []
    stack = [(data, 0)]  # (item, its depth); the top of the stack is read next
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, SEQUENCES):
            raise TypeError(
                f"not a sequence: expected a sequence of length {shape[depth]} at dim "
                f"{depth}, got {type(item).__name__}"
            )
        if len(item) != shape[depth]:
            raise ValueError(
                f"expected sequence of length {shape[depth]} at dim {depth} "
                f"(got {len(item)})"
            )
        if depth < len(shape) - 1:
            stack.extend((child, depth + 1) for child in reversed(item))
            continue
        for number in item:  # the innermost list: a row of numbers
            if isinstance(number, SEQUENCES):
                raise TypeError(f"must be real number, not {type(number).__name__}")
        values.extend(item)
    return values, tuple(shape)


def element_dtype(value: Any) -> dtype:
    """The dtype one element asks for: bool, int64, the default float, or a
    one-element tensor's own dtype.

    Raises:
        TypeError: For strings and nested lists.
        RuntimeError: For other objects, such as ``None``.
    """
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise ValueError(
                "only one element tensors can be converted to Python scalars"
            )
        return value.dtype
    if isinstance(value, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(value).__name__}'")
    if isinstance(value, SEQUENCES):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    if isinstance(value, (bool, int, float, complex)):
        return dtypes.scalar_dtype(value)
    raise RuntimeError(f"Could not infer dtype of {type(value).__name__}")


def infer_dtype(values: list[Any]) -> dtype:
    """The dtype that holds every element: the promotion of their dtypes.

    Plain Python numbers, the usual case, are decided at once from the set
    of their types; anything else is checked one element at a time.
    """
    kinds = set(map(type, values))
    if kinds <= {bool, int, float, complex}:
        if complex in kinds:
            return dtypes.scalar_dtype(1j)
        if float in kinds or not kinds:
            return dtypes.get_default_dtype()
        return dtypes.int64 if int in kinds else dtypes.bool_
    result = element_dtype(values[0])
    for value in values:
        result = dtypes.promote_types(result, element_dtype(value))
    return result


def tensor(
    data: Any,
    *,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """A new tensor holding a copy of ``data`` (a number or nested lists).

    >>> tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])

    Args:
        data: A Python number, nested lists or tuples of numbers (all rows of
            the same length), a NumPy array or number (its dtype is kept), or
            a tensor (copied, with a warning, as in PyTorch).
        dtype: The element type; inferred from the data if not given.
        device: Only the CPU exists.
        requires_grad: Whether autograd should track the new tensor.

    Raises:
        ValueError: Ragged nesting (``[[1, 2], [3]]``), or an int too large
            for int64.
        TypeError: A string or a list where a number should be.
        RuntimeError: An object that is no number (``None``), or a float that
            does not fit the requested integer dtype.
    """
    dtype = dtypes.dtype_arg(dtype, "tensor")
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        values, shape = data._values(), data._shape
        inferred = data.dtype
    else:
        if isinstance(data, str):
            raise TypeError("new(): invalid data type 'str'")
        if is_numpy(data):
            values, shape, inferred = numpy_values(data)
        else:
            values, shape = flatten_data(data)
            inferred = infer_dtype(values)
        values = [v.item() if isinstance(v, Tensor) else v for v in values]
    if dtype is None:
        dtype = inferred
    if dtype.category == dtypes.INT_CATEGORY:  # the conversion that is checked
        values = [convert(v, dtype) for v in values]
    return finish(from_values(values, shape, dtype), requires_grad, device)


def as_tensor(
    data: Any, dtype: dtype | None = None, device: DeviceArg = None
) -> Tensor:
    """``data`` itself if it is already a tensor of that dtype, else a new tensor.

    A tensor of another dtype is converted with ``data.to(dtype)`` (which
    autograd records); anything else goes through :func:`tensor`.
    """
    dtype = dtypes.dtype_arg(dtype, "as_tensor")
    check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    return tensor(data, dtype=dtype)


# ----------------------------------------------------------------------
# Filled tensors
# ----------------------------------------------------------------------


def full(
    size: Any,
    fill_value: Any,
    *,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of shape ``size`` with every element ``fill_value``.

    Without ``dtype`` the dtype follows the value: bool, int64 or float.

    Raises:
        TypeError: If ``size`` is not a sequence of ints (``full(2, 1.5)``).
        RuntimeError: If the value does not fit the dtype.
    """
    dtype = dtypes.dtype_arg(dtype, "full")
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            "full(): argument 'size' (position 1) must be tuple of ints, "
            f"not {type(size).__name__}"
        )
    shape = size_arg("full", (size,))
    value = python_number(fill_value, "fill_value", "full", 2)
    if dtype is None:
        dtype = dtypes.scalar_dtype(value)
    narrow_float = dtype.is_floating_point and dtype.narrow
    if narrow_float and not isinstance(value, complex):  # PyTorch's full: inf
        values = [float(value)] * numel(shape)
    else:
        values = [checked_fill(value, dtype)] * numel(shape)
    return finish(from_values(values, shape, dtype), requires_grad, device)


def zeros(
    *sizes: Any,
    size: Any = None,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of zeros: ``zeros(2, 3)``, ``zeros((2, 3))`` or ``zeros(size=(2, 3))``.

    A negative size gets PyTorch's message for ``zeros``, which differs from
    the one of ``ones`` and ``full``.
    """
    dtype = dtypes.dtype_arg(dtype, "zeros")
    try:
        shape = size_arg("zeros", sizes, size)
    except RuntimeError as error:
        if "negative dimension" not in str(error):
            raise
        raise RuntimeError("zeros: Dimension size must be non-negative.") from None
    return full(
        shape,
        0,
        dtype=dtype or dtypes.get_default_dtype(),
        device=device,
        requires_grad=requires_grad,
    )


def ones(
    *sizes: Any,
    size: Any = None,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of ones: ``ones(2, 3)``, ``ones((2, 3))`` or ``ones(size=(2, 3))``."""
    dtype = dtypes.dtype_arg(dtype, "ones")
    shape = size_arg("ones", sizes, size)
    return full(
        shape,
        1,
        dtype=dtype or dtypes.get_default_dtype(),
        device=device,
        requires_grad=requires_grad,
    )


def empty(
    *sizes: Any,
    size: Any = None,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """An "uninitialised" tensor. PyTorch leaves whatever was in memory;
    here it holds zeros, so results never depend on chance."""
    dtype = dtypes.dtype_arg(dtype, "empty")
    shape = size_arg("empty", sizes, size)
    return full(
        shape,
        0,
        dtype=dtype or dtypes.get_default_dtype(),
        device=device,
        requires_grad=requires_grad,
    )


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """The ``n`` by ``m`` identity matrix (``m`` defaults to ``n``).

    Raises:
        TypeError: If ``n`` or ``m`` is not an int.
        RuntimeError: If one is negative.
    """
    dtype = dtypes.dtype_arg(dtype, "eye")
    m = n if m is None else m
    for name, position, value in (("n", 1, n), ("m", 2, m)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(
                f"eye(): argument '{name}' (position {position}) must be int, "
                f"not {type(value).__name__}"
            )
        if value < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {value}")
    dtype = dtype or dtypes.get_default_dtype()
    values = [1 if i == j else 0 for i in range(n) for j in range(m)]
    return finish(from_values(values, (n, m), dtype), requires_grad, device)


# ----------------------------------------------------------------------
# The *_like forms: the shape (and by default the dtype) of another tensor
# ----------------------------------------------------------------------


def like_input(name: str, input: Any) -> Tensor:
    """Checks that the first argument of a ``*_like`` function is a tensor."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, "
            f"not {type(input).__name__}"
        )
    return input


def zeros_like(
    input: Tensor,
    *,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """Zeros with the shape (and by default the dtype) of ``input``."""
    dtype = dtypes.dtype_arg(dtype, "zeros_like")
    input = like_input("zeros_like", input)
    return full(
        input._shape,
        0,
        dtype=dtype or input.dtype,
        device=device or input.device,
        requires_grad=requires_grad,
    )


def ones_like(
    input: Tensor,
    *,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """Ones with the shape (and by default the dtype) of ``input``."""
    dtype = dtypes.dtype_arg(dtype, "ones_like")
    input = like_input("ones_like", input)
    return full(
        input._shape,
        1,
        dtype=dtype or input.dtype,
        device=device or input.device,
        requires_grad=requires_grad,
    )


def empty_like(
    input: Tensor,
    *,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """Like :func:`zeros_like` (see :func:`empty`)."""
    dtype = dtypes.dtype_arg(dtype, "empty_like")
    input = like_input("empty_like", input)
    return full(
        input._shape,
        0,
        dtype=dtype or input.dtype,
        device=device or input.device,
        requires_grad=requires_grad,
    )


def full_like(
    input: Tensor,
    fill_value: Any,
    *,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """``fill_value`` everywhere, with the shape and (by default) dtype of ``input``.

    The value is converted to that dtype: ``full_like(int_tensor, 2.7)`` holds 2s.
    """
    dtype = dtypes.dtype_arg(dtype, "full_like")
    input = like_input("full_like", input)
    return full(
        input._shape,
        fill_value,
        dtype=dtype or input.dtype,
        device=device or input.device,
        requires_grad=requires_grad,
    )


# ----------------------------------------------------------------------
# The default device
# ----------------------------------------------------------------------


class _DefaultDevice:
    """Where a new tensor goes when its maker is given no ``device``:
    ``None`` for the CPU."""

    where: device | None = None


def set_default_device(where: DeviceArg) -> None:
    """Sets where new tensors are made (``None`` for the CPU again).

    Any device PyTorch names is accepted here, as in PyTorch; ``cuda``
    fails only at the next tensor made without a ``device``, with
    PyTorch's ``AssertionError`` on a machine without CUDA.

    Raises:
        RuntimeError: For a name that is no device.
    """
    _DefaultDevice.where = None if where is None else device(where)


def get_default_device() -> device:
    """Where new tensors are made: the CPU unless set otherwise.

    Raises:
        AssertionError: If that is ``cuda`` with no index: PyTorch asks
            CUDA which GPU is current, and fails without CUDA.
    """
    where = _DefaultDevice.where
    if where is not None and where.index is None:
        check_device(where)
    return where or CPU
