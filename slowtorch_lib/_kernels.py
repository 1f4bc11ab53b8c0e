"""Kernels: the loops that compute values, written once and reused by every op.

A kernel never sees a tensor. It works on what a tensor is made of: a flat
sequence of values (a storage's array, or a Python list), a shape, strides
and an offset, and returns a list of values in row-major order. The bridge
from tensors to these loops is :mod:`slowtorch_lib._tensor_kernels`.

Floating-point special cases follow IEEE 754 as PyTorch does: ``1 / 0`` is
``inf``, ``log(0)`` is ``-inf``, ``sqrt(-1)`` is ``nan``. Python's ``math``
raises instead, so each kernel tries the fast loop first and, only if Python
raises, redoes the loop with the careful scalar functions below.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib import _strides
from slowtorch_lib._dtype import dtype
from slowtorch_lib._storage import stored_array, wrap_integer
from slowtorch_lib._strides import numel

__all__ = [
    "CAST_FAMILIES",
    "CastFamily",
    "IEEE_FALLBACKS",
    "broadcast_values",
    "cast_scalar",
    "cast_values",
    "contiguous_run",
    "contiguous_values",
    "convert_values",
    "float_to_int64",
    "float_to_integer",
    "float_to_narrow_int",
    "map_values",
    "reduced_shape",
    "reduction_groups",
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


def ieee_function(function: Callable[[float], float]) -> Callable[[float], float]:
    """``function`` giving IEEE's answer where ``math`` raises: ``nan`` for a
    domain error (``-inf`` for a logarithm at 0) and ``inf`` on overflow."""

    def careful(x: float) -> float:
        try:
            return function(x)
        except ValueError:
            return _nan_or_log_pole(function, x)
        except OverflowError:
            return math.copysign(math.inf, x) if function is math.sinh else math.inf

    careful.__wrapped__ = function  # type: ignore[attr-defined]
    return careful


def _nan_or_log_pole(function: Callable[[float], float], x: float) -> float:
    """A logarithm's ``-inf`` at 0; ``nan`` for any other domain error."""
    if x == 0 and function in (math.log10, math.log2):
        return -math.inf
    return math.nan


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


def float_to_int64(value: float) -> int:
    """A float truncated toward zero to int64, as PyTorch does on x86.

    ``nan``, the infinities and floats out of int64's range have no int64
    value; the CPU answers ``-2**63`` for all of them, and so does PyTorch.
    """
    if value != value or not -(2.0**63) <= value < 2.0**63:
        return int(dtypes.int64.min)
    return int(value)


def float_to_narrow_int(value: float) -> int:
    """A float truncated toward zero for int32, int16, int8 or uint8.

    PyTorch on x86 converts through a 32-bit integer: a float outside
    int32's range (or ``nan``, ``inf``) becomes ``-2**31``, and the storage
    then keeps the low bits, so ``300.0`` is 44 as an int8 and ``1e10`` is
    0. C leaves these conversions undefined; this is what the CPU gives.
    """
    if value != value or not -(2.0**31) <= value < 2.0**31:
        return int(dtypes.int32.min)
    return int(value)


def float_to_integer(value: float, d: dtype) -> int:
    """A float converted to integer dtype ``d``, wrapped by the storage after."""
    if d is dtypes.int64:
        return float_to_int64(value)
    return float_to_narrow_int(value)


# The careful version of each fast function, used when the fast loop raises.
IEEE_FALLBACKS: dict[Callable[..., Any], Callable[..., Any]] = {
    math.exp: ieee_exp,
    math.log: ieee_log,
    math.sqrt: ieee_sqrt,
    math.pow: ieee_pow,
    math.sin: ieee_sin,
    math.cos: ieee_cos,
}


class CastFamily(Protocol):
    """How a family of dtypes beyond the ten converts values."""

    def cast_scalar(self, value: Any, d: dtype) -> Any:
        """A Python number as one element of ``d``."""

    def cast_values(self, values: list[Any], source: dtype, target: dtype) -> list[Any]:
        """Elements of ``source`` as elements of ``target`` (one is the
        family's)."""


#: The conversion rules of each dtype beyond the ten, registered by its
#: family's module in :mod:`slowtorch_lib._fidelity`.
CAST_FAMILIES: dict[dtype, CastFamily] = {}


def cast_scalar(value: Any, d: dtype) -> Any:
    """A Python number converted to what one element of dtype ``d`` holds."""
    if d is dtypes.float32:
        return array("f", (value,))[0]
    if d is dtypes.float64:
        return float(value)
    if d is dtypes.int64:
        return float_to_int64(value) if isinstance(value, float) else int(value)
    family = CAST_FAMILIES.get(d)
    if family is not None:
        return family.cast_scalar(value, d)
    if d.is_floating_point:  # float16 and bfloat16 compute in float32
        return array("f", (value,))[0]
    if d is dtypes.bool_:
        return bool(value)
    if isinstance(value, float):
        value = float_to_integer(value, d)
    return wrap_integer(int(value), d)


def cast_values(values: list[Any], source: dtype, target: dtype) -> list[Any]:
    """Converts elements of dtype ``source`` to dtype ``target``.

    Only the conversions that change a value cost anything: rounding to
    float32 (or float16, bfloat16), float to int (which truncates toward
    zero, as in C), and wrapping into a narrower integer type. A dtype
    beyond the ten converts by its family's rules.
    """
    if source is target:
        return values
    family = CAST_FAMILIES.get(source) or CAST_FAMILIES.get(target)
    if family is not None:
        return family.cast_values(values, source, target)
    return convert_values(values, source, target)


def convert_values(values: list[Any], source: dtype, target: dtype) -> list[Any]:
    """:func:`cast_values` between two of the ten dtypes (or two that
    convert as they do)."""
    if source is target:
        return values
    if target is dtypes.float32:
        return array("f", values).tolist()
    if target.narrow:
        if source.is_floating_point and not target.is_floating_point:
            values = [float_to_integer(v, target) for v in values]
        return stored_array(values, target).tolist()
    if target.is_floating_point:
        return values if source.is_floating_point else [float(v) for v in values]
    if target is dtypes.int64:
        if source.is_floating_point:
            return list(map(float_to_int64, values))
        return [int(v) for v in values]
    return [v != 0 for v in values]


def broadcast_values(
    data: Sequence[Any],
    shape: Sequence[int],
    strides: Sequence[int],
    offset: int,
    target: Sequence[int],
) -> list[Any]:
    """The elements of a view broadcast to shape ``target``, in row-major order.

    Broadcasting is a view with stride 0 along each stretched dimension, so
    the same storage cell is read again for every step along it.
    """
    broadcast_strides = [0] * (len(target) - len(shape))
    for size, stride in zip(shape, strides):
        broadcast_strides.append(stride if size != 1 else 0)
    return _strides.strided_values(data, target, broadcast_strides, offset)


def map_values(
    function: Callable[..., Any],
    *columns: Iterable[Any],
    careful: Callable[..., Any] | None = None,
) -> list[Any]:
    """``function`` applied to matching elements of ``columns``, as a list.

    The loop is ``map``, the fastest loop pure Python has. If Python raises
    where IEEE 754 has an answer (``1 / 0``), the loop runs again with the
    careful version of ``function``: ``careful``, or the one in
    :data:`IEEE_FALLBACKS`.
    """
    try:
        return list(map(function, *columns))
    except ARITHMETIC_ERRORS:
        fallback = careful or IEEE_FALLBACKS.get(function)
        if fallback is None:
            raise
        return list(map(fallback, *columns))


def contiguous_values(data: Any, offset: int, count: int) -> list[Any]:
    """``count`` values of ``data`` from ``offset``, as a list of Python numbers.

    All of a storage is read without the slice, which would copy it first.
    """
    if offset == 0 and count == len(data):
        return data.tolist()  # type: ignore[no-any-return]
    return data[offset : offset + count].tolist()  # type: ignore[no-any-return]


def contiguous_run(data: Any, offset: int, count: int) -> Any:
    """``count`` cells of ``data`` from ``offset``, copied array to array.

    Copying a run of a storage array moves raw bytes, without making a
    Python number of each element.
    """
    return data[offset : offset + count]


def reduction_groups(
    values: Sequence[Any],
    shape: tuple[int, ...],
    dims: tuple[int, ...],
    strides: Sequence[int] | None = None,
    offset: int = 0,
) -> list[Sequence[Any]]:
    """The elements of a view grouped for a reduction over ``dims``.

    ``values`` is either the storage of a contiguous view starting at
    ``offset`` (``strides`` is None), or the storage of any view with its
    ``strides`` and ``offset``.

    Returns one sequence per element of the result (in row-major order of
    the dimensions that remain); each holds the elements that reduce into
    it. Reducing over every dimension gives one group with all elements.

    When the reduced dimensions are next to each other and the view is
    contiguous, the shape splits into ``(outer, reduced, inner)`` sizes, and
    each group is one slice with step ``inner`` of the storage:
    ``values[start : stop : inner]``. Slicing the storage array itself
    copies numbers without turning each one into a Python object.
    Otherwise the reduced dimensions are moved last and the groups are
    consecutive runs.
    """
    dims = tuple(sorted(dims))
    if not dims:
        if strides is not None:
            values = _strides.strided_values(values, shape, strides, offset)
            offset = 0
        return [[v] for v in values[offset : offset + numel(shape)]]
    if strides is None and dims == tuple(range(dims[0], dims[-1] + 1)):
        outer = numel(shape[: dims[0]])
        reduced = numel(shape[dims[0] : dims[-1] + 1])
        inner = numel(shape[dims[-1] + 1 :])
        block = reduced * inner
        return [
            values[offset + o * block + i : offset + (o + 1) * block : inner]
            for o in range(outer)
            for i in range(inner)
        ]
    if strides is None:
        strides = _strides.contiguous_strides(shape)
    kept = [d for d in range(len(shape)) if d not in dims]
    order = kept + list(dims)
    gathered = _strides.strided_values(
        values, [shape[d] for d in order], [strides[d] for d in order], offset
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
