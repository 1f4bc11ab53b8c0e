"""Kernels: the loops that compute values, written once and reused by every op.

Each kernel takes tensors, reads their elements in row-major order as Python
lists, runs one Python-level loop (``map`` over the lists, which is the
fastest loop pure Python has) and returns a new contiguous tensor.

Floating-point special cases follow IEEE 754 as PyTorch does: ``1 / 0`` is
``inf``, ``log(0)`` is ``-inf``, ``sqrt(-1)`` is ``nan``. Python's ``math``
raises instead, so each kernel tries the fast loop first and, only if Python
raises, redoes the loop with the careful scalar functions below.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib import _strides
from slowtorch_lib._dtype import dtype
from slowtorch_lib._storage import wrap_int64
from slowtorch_lib._strides import broadcast_shapes, numel
from slowtorch_lib._tensor import Tensor, from_values

__all__ = [
    "IEEE_FALLBACKS",
    "binary",
    "broadcast_values",
    "cast_scalar",
    "cast_values",
    "contiguous_copy",
    "float_to_int64",
    "reduced_shape",
    "reduction_groups",
    "unary",
    "wrap_int64",
]

inf = math.inf
nan = math.nan

# Errors that mean "the IEEE answer is inf or nan" rather than a bug.
ARITHMETIC_ERRORS = (ValueError, OverflowError, ZeroDivisionError)


def ieee_div(a: float, b: float) -> float:
    """``a / b`` with IEEE results for a zero divisor (``inf``, ``-inf``, ``nan``)."""
    if b == 0:
        if a == 0 or math.isnan(a):
            return nan
        return math.copysign(inf, a) * math.copysign(1.0, b)
    return a / b


def ieee_exp(x: float) -> float:
    """``e ** x``, with ``inf`` instead of OverflowError."""
    try:
        return math.exp(x)
    except OverflowError:
        return inf


def ieee_log(x: float) -> float:
    """Natural log: ``-inf`` at 0, ``nan`` below it."""
    if x > 0:
        return math.log(x)
    if x == 0:
        return -inf
    return nan


def ieee_sqrt(x: float) -> float:
    """Square root: ``nan`` for negative numbers."""
    return math.sqrt(x) if x >= 0 else nan


def ieee_pow(base: float, exponent: float) -> float:
    """``base ** exponent`` with IEEE results where Python raises."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        odd_integer = exponent == int(exponent) and int(exponent) % 2 == 1
        return -inf if base < 0 and odd_integer else inf
    except ValueError:
        if base == 0:  # 0 ** negative: inf, or -inf for -0.0 ** odd
            odd_integer = exponent == int(exponent) and int(exponent) % 2 == 1
            return math.copysign(inf, base) if odd_integer else inf
        return nan  # negative ** fractional


def ieee_sin(x: float) -> float:
    """Sine: ``nan`` for infinities."""
    return nan if math.isinf(x) else math.sin(x)


def ieee_cos(x: float) -> float:
    """Cosine: ``nan`` for infinities."""
    return nan if math.isinf(x) else math.cos(x)


INT64_MIN = -(2**63)


def float_to_int64(value: float) -> int:
    """A float truncated toward zero to int64, as PyTorch does on x86.

    ``nan``, the infinities and floats out of int64's range have no int64
    value; the CPU answers ``-2**63`` for all of them, and so does PyTorch.
    """
    if value != value or not -(2.0**63) <= value < 2.0**63:
        return INT64_MIN
    return int(value)


# The careful version of each fast function, used when the fast loop raises.
IEEE_FALLBACKS: dict[Callable[..., Any], Callable[..., Any]] = {
    math.exp: ieee_exp,
    math.log: ieee_log,
    math.sqrt: ieee_sqrt,
    math.pow: ieee_pow,
    math.sin: ieee_sin,
    math.cos: ieee_cos,
}


def cast_scalar(value: Any, d: dtype) -> Any:
    """A Python number converted to what one element of dtype ``d`` holds."""
    if d is dtypes.float32:
        return array("f", (value,))[0]
    if d is dtypes.float64:
        return float(value)
    if d is dtypes.int64:
        return float_to_int64(value) if isinstance(value, float) else int(value)
    return bool(value)


def cast_values(values: list[Any], source: dtype, target: dtype) -> list[Any]:
    """Converts elements of dtype ``source`` to dtype ``target``.

    Only the conversions that change a value cost anything: rounding to
    float32, and float to int (which truncates toward zero, as in C).
    """
    if source is target:
        return values
    if target is dtypes.float32:
        return array("f", values).tolist()
    if target.is_floating_point:
        return values if source.is_floating_point else [float(v) for v in values]
    if target is dtypes.int64:
        if source.is_floating_point:
            return list(map(float_to_int64, values))
        return [int(v) for v in values]
    return [v != 0 for v in values]


def broadcast_values(tensor: Tensor, shape: tuple[int, ...]) -> list[Any]:
    """The elements of ``tensor`` broadcast to ``shape``, in row-major order.

    Broadcasting is a view with stride 0 along each stretched dimension, so
    the same storage cell is read again for every step along it. A tensor
    whose storage is one cell (a scalar, or the gradient of a sum expanded
    back) is simply that value repeated.
    """
    data = tensor._storage.data
    if len(data) == 1:
        return [data[0]] * numel(shape)
    if tensor._shape == shape:
        return tensor._values()
    strides = [0] * (len(shape) - len(tensor._shape))
    for size, stride in zip(tensor._shape, tensor._stride):
        strides.append(stride if size != 1 else 0)
    return _strides.strided_values(data, shape, strides, tensor._offset)


def unary(
    function: Callable[[Any], Any],
    tensor: Tensor,
    out_dtype: dtype | None = None,
) -> Tensor:
    """Applies ``function`` to every element: ``[f(x) for x in tensor]``.

    Args:
        function: A scalar function, such as ``math.exp``.
        tensor: The input.
        out_dtype: The result's dtype; the input's by default.
    """
    d = out_dtype or tensor.dtype
    values = (
        cast_values(tensor._values(), tensor.dtype, d)
        if d.is_floating_point
        else tensor._values()
    )
    try:
        result = list(map(function, values))
    except ARITHMETIC_ERRORS:
        careful = IEEE_FALLBACKS.get(function)
        if careful is None:
            raise
        result = list(map(careful, values))
    return from_values(result, tensor._shape, d)


def binary(
    function: Callable[[Any, Any], Any],
    a: Tensor | Any,
    b: Tensor | Any,
    compute_dtype: dtype,
    out_dtype: dtype | None = None,
    careful: Callable[[Any, Any], Any] | None = None,
) -> Tensor:
    """Applies ``function`` to matching elements of ``a`` and ``b``.

    Either side may be a Python number. Tensors are broadcast to a common
    shape; every value is first converted to ``compute_dtype`` (so a
    float32 computation sees ``0.1`` as the float32 nearest to 0.1, as in
    PyTorch).

    Args:
        function: A scalar function of two arguments, such as ``operator.add``.
        a: The left operand.
        b: The right operand.
        compute_dtype: The promoted dtype the computation happens in.
        out_dtype: The result's dtype (``bool`` for comparisons); defaults to
            ``compute_dtype``.
        careful: A slower IEEE-safe version of ``function``, used if the fast
            loop raises (for example ``ieee_div`` for ``operator.truediv``).
    """
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        shape = (
            a._shape if a._shape == b._shape else broadcast_shapes(a._shape, b._shape)
        )
        left: Any = cast_values(broadcast_values(a, shape), a.dtype, compute_dtype)
        if b is a:  # x * x: read the elements once
            right: Any = left
        else:
            right = cast_values(broadcast_values(b, shape), b.dtype, compute_dtype)
    elif isinstance(a, Tensor):
        shape = a._shape
        left = cast_values(broadcast_values(a, shape), a.dtype, compute_dtype)
        right = repeat(cast_scalar(b, compute_dtype))
    else:
        shape = b._shape
        left = repeat(cast_scalar(a, compute_dtype))
        right = cast_values(broadcast_values(b, shape), b.dtype, compute_dtype)
    try:
        result = list(map(function, left, right))
    except ARITHMETIC_ERRORS:
        fallback = careful or IEEE_FALLBACKS.get(function)
        if fallback is None:
            raise
        result = list(map(fallback, left, right))
    return from_values(result, shape, out_dtype or compute_dtype)


def contiguous_copy(tensor: Tensor) -> Tensor:
    """A new row-major tensor with the same values (no graph recorded).

    A contiguous tensor's elements are one run of its storage array; copying
    that run array to array moves raw bytes, without making a Python number
    of each element.
    """
    if tensor.is_contiguous():
        start = tensor._offset
        run = tensor._storage.data[start : start + numel(tensor._shape)]
        return from_values(run, tensor._shape, tensor.dtype)
    return from_values(tensor._values(), tensor._shape, tensor.dtype)


def reduction_groups(tensor: Tensor, dims: tuple[int, ...]) -> list[Sequence[Any]]:
    """The elements of ``tensor`` grouped for a reduction over ``dims``.

    Returns one sequence per element of the result (in row-major order of
    the dimensions that remain); each holds the elements that reduce into
    it. Reducing over every dimension gives one group with all elements.

    When the reduced dimensions are next to each other, the shape splits
    into ``(outer, reduced, inner)`` sizes, and each group is one slice with
    step ``inner`` of the row-major values: ``values[start : stop : inner]``.
    Otherwise the reduced dimensions are moved last and the groups are
    consecutive runs.
    """
    shape = tensor._shape
    dims = tuple(sorted(dims))
    if not dims:
        return [[v] for v in tensor._values()]
    if dims == tuple(range(dims[0], dims[-1] + 1)):
        outer = numel(shape[: dims[0]])
        reduced = numel(shape[dims[0] : dims[-1] + 1])
        inner = numel(shape[dims[-1] + 1 :])
        if tensor.is_contiguous():
            # Slicing the storage array itself copies numbers without
            # turning each one into a Python object.
            values: Sequence[Any] = tensor._storage.data
            base = tensor._offset
        else:
            values = tensor._values()
            base = 0
        block = reduced * inner
        return [
            values[base + o * block + i : base + (o + 1) * block : inner]
            for o in range(outer)
            for i in range(inner)
        ]
    kept = [d for d in range(len(shape)) if d not in dims]
    order = kept + list(dims)
    gathered = _strides.strided_values(
        tensor._storage.data,
        [shape[d] for d in order],
        [tensor._stride[d] for d in order],
        tensor._offset,
    )
    group_size = numel([shape[d] for d in dims])
    if group_size == 0:
        return [[] for _ in range(numel([shape[d] for d in kept]))]
    return [gathered[i : i + group_size] for i in range(0, len(gathered), group_size)]


def reduced_shape(
    shape: tuple[int, ...], dims: tuple[int, ...], keepdim: bool
) -> tuple[int, ...]:
    """The shape after reducing ``dims``: removed, or kept as size 1."""
    if keepdim:
        return tuple(1 if d in dims else size for d, size in enumerate(shape))
    return tuple(size for d, size in enumerate(shape) if d not in dims)
