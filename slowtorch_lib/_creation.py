"""Making tensors: from Python data, filled with a value, or counting up."""

from __future__ import annotations

import builtins
import math
from typing import Any, Optional, Sequence, Union

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import cast_scalar
from slowtorch_lib._strides import numel
from slowtorch_lib._tensor import Tensor, _shape_arg, check_device, device, from_values

__all__ = [
    "tensor", "as_tensor", "zeros", "ones", "full", "empty", "arange", "linspace",
    "eye", "zeros_like", "ones_like", "full_like", "empty_like",
]

DeviceArg = Union[str, device, None]


def _finish(result: Tensor, requires_grad: bool, device_arg: DeviceArg) -> Tensor:
    check_device(device_arg)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _flatten_data(data: Any) -> tuple[list[Any], tuple[int, ...]]:
    """Flattens nested sequences, checking they are rectangular.

    Returns:
        The elements in row-major order and the shape.

    Raises:
        ValueError: If the nesting is ragged, as PyTorch says.
        TypeError: If an element is not a number.
    """
    if isinstance(data, Tensor):
        return data._values(), data._shape
    if not isinstance(data, (list, tuple)):
        _check_number(data)
        return [data], ()
    shape: list[int] = []
    probe: Any = data
    while isinstance(probe, (list, tuple)):
        shape.append(len(probe))
        if not probe:
            break
        probe = probe[0]
    values: list[Any] = []
    level = [data]
    for depth, size in enumerate(shape):
        next_level: list[Any] = []
        for item in level:
            if isinstance(item, Tensor):
                item = item.tolist()
            if not isinstance(item, (list, tuple)):
                raise ValueError(
                    f"expected sequence of length {size} at dim {depth} (got scalar)"
                    if depth else "invalid data"
                )
            if len(item) != size:
                raise ValueError(
                    f"expected sequence of length {size} at dim {depth} (got {len(item)})"
                )
            next_level.extend(item)
        level = next_level
    for item in level:
        if isinstance(item, (list, tuple)):
            raise ValueError(f"expected sequence of length 0 at dim {len(shape)} (got {len(item)})")
        if isinstance(item, Tensor):
            item = item.item()
        _check_number(item)
        values.append(item)
    return values, tuple(shape)


def _check_number(value: Any) -> None:
    if not isinstance(value, (int, float)):
        raise TypeError(
            f"new(): invalid data type '{type(value).__name__}'"
        )


def _infer_dtype(values: list[Any]) -> dtype:
    """bool if every element is a bool, int64 if every one is an int, else float."""
    if values and builtins.all(isinstance(v, bool) for v in values):
        return dtypes.bool_
    if values and builtins.all(isinstance(v, int) for v in values):
        return dtypes.int64
    return dtypes.get_default_dtype()


def tensor(
    data: Any,
    *,
    dtype: Optional[dtype] = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """A new tensor holding a copy of ``data`` (a number or nested lists).

    >>> tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    """
    values, shape = _flatten_data(data)
    if dtype is None:
        dtype = data.dtype if isinstance(data, Tensor) else _infer_dtype(values)
    if not dtype.is_floating_point:
        for v in values:
            if isinstance(v, float) and not math.isfinite(v):
                raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    values = [cast_scalar(v, dtype) for v in values] if dtype is dtypes.int64 else values
    return _finish(from_values(values, shape, dtype), requires_grad, device)


def as_tensor(data: Any, dtype: Optional[dtype] = None, device: DeviceArg = None) -> Tensor:
    """``data`` itself if it is already a tensor of that dtype, else :func:`tensor`."""
    if isinstance(data, Tensor) and (dtype is None or dtype is data.dtype):
        return data
    return tensor(data, dtype=dtype, device=device)


def full(
    size: Sequence[int],
    fill_value: Any,
    *,
    dtype: Optional[dtype] = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of shape ``size`` with every element ``fill_value``.

    Without ``dtype`` the dtype follows the value: bool, int64 or float.
    """
    shape = tuple(size)
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )
    if dtype is None:
        dtype = dtypes.scalar_dtype(fill_value)
    value = cast_scalar(fill_value, dtype)
    return _finish(from_values([value] * numel(shape), shape, dtype), requires_grad, device)


def zeros(
    *size: Any,
    dtype: Optional[dtype] = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of zeros: ``zeros(2, 3)`` or ``zeros((2, 3))``."""
    return full(_shape_arg(size), 0.0, dtype=dtype or dtypes.get_default_dtype(),
                device=device, requires_grad=requires_grad)


def ones(
    *size: Any,
    dtype: Optional[dtype] = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of ones: ``ones(2, 3)`` or ``ones((2, 3))``."""
    return full(_shape_arg(size), 1.0, dtype=dtype or dtypes.get_default_dtype(),
                device=device, requires_grad=requires_grad)


def empty(
    *size: Any,
    dtype: Optional[dtype] = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """An "uninitialised" tensor. Here it holds zeros, so results never vary."""
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def zeros_like(input: Tensor, *, dtype: Optional[dtype] = None,
               requires_grad: bool = False) -> Tensor:
    """Zeros with the shape (and by default the dtype) of ``input``."""
    return zeros(input._shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def ones_like(input: Tensor, *, dtype: Optional[dtype] = None,
              requires_grad: bool = False) -> Tensor:
    """Ones with the shape (and by default the dtype) of ``input``."""
    return ones(input._shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def empty_like(input: Tensor, *, dtype: Optional[dtype] = None,
               requires_grad: bool = False) -> Tensor:
    """Like :func:`zeros_like` (see :func:`empty`)."""
    return zeros_like(input, dtype=dtype, requires_grad=requires_grad)


def full_like(input: Tensor, fill_value: Any, *, dtype: Optional[dtype] = None,
              requires_grad: bool = False) -> Tensor:
    """``fill_value`` everywhere, with the shape and dtype of ``input``."""
    return full(input._shape, fill_value, dtype=dtype or input.dtype,
                requires_grad=requires_grad)


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Optional[dtype] = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """``start, start + step, ...`` up to but not including ``end``.

    ``arange(5)`` counts from 0. The dtype is int64 if every argument is an
    int, else the default float dtype.
    """
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        ints = builtins.all(isinstance(v, int) for v in (start, end, step))
        dtype = dtypes.int64 if ints else dtypes.get_default_dtype()
    count = max(0, math.ceil((end - start) / step))
    values = [start + i * step for i in range(count)]
    return _finish(from_values(values, (count,), dtype), requires_grad, device)


def linspace(
    start: Any,
    end: Any,
    steps: int,
    *,
    dtype: Optional[dtype] = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end``, both included.

    As in PyTorch, the first half is counted up from ``start`` and the second
    half down from ``end``, so both ends are exact.
    """
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = dtype or dtypes.get_default_dtype()
    if steps == 1:
        values = [float(start)]
    else:
        step = (end - start) / (steps - 1)
        half = steps // 2
        values = [
            start + i * step if i < half else end - (steps - 1 - i) * step
            for i in range(steps)
        ]
    return _finish(from_values(values, (steps,), dtype), requires_grad, device)


def eye(
    n: int,
    m: Optional[int] = None,
    *,
    dtype: Optional[dtype] = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """The ``n`` by ``m`` identity matrix (``m`` defaults to ``n``)."""
    m = n if m is None else m
    dtype = dtype or dtypes.get_default_dtype()
    values = [1 if i == j else 0 for i in range(n) for j in range(m)]
    return _finish(from_values(values, (n, m), dtype), requires_grad, device)
