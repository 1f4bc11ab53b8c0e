"""Tensors that count: ``arange`` and ``linspace``.

``arange(start, end, step)`` counts by ``step`` and leaves ``end`` out;
``linspace(start, end, steps)`` places ``steps`` points from ``start`` to
``end`` inclusive. Both compute each point as PyTorch's kernels do, in the
result's dtype (with a fused multiply-add where PyTorch uses one), so that
the last digits agree. The deprecated inclusive ``torch.range`` is in
:mod:`slowtorch_lib.ops.ranges`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import DeviceArg, check_sizes, finish, python_number
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import cast_scalar
from slowtorch_lib._tensor import Tensor, from_values

__all__ = ["arange", "linspace"]


def arange(
    start: Any = 0,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """``start, start + step, start + 2 * step, ...`` up to but not including ``end``.

    ``arange(5)`` counts from 0. The dtype is int64 if every argument is an
    int, else the default float dtype. There are ``ceil((end - start) / step)``
    elements; element ``i`` is ``start + i * step``, computed in double
    precision and then stored (so a float32 result is rounded once). For an
    integer dtype the three arguments are first truncated to ints.

    Raises:
        RuntimeError: If ``step`` is zero, points away from ``end``, or a
            bound is infinite or nan.
    """
    dtype = dtypes.dtype_arg(dtype, "arange")
    if end is None:
        start, end = 0, start
    start = python_number(start, "start", "arange", 1)
    end = python_number(end, "end", "arange", 2)
    step = python_number(step, "step", "arange", 3)
    if dtype is None:
        all_ints = all(isinstance(v, int) for v in (start, end, step))
        dtype = dtypes.int64 if all_ints else dtypes.get_default_dtype()
    if dtype is dtypes.bool_ or dtype.unpromotable or dtype.is_complex:  # no loop
        raise NotImplementedError(
            f"\"arange_cpu\" not implemented for '{dtype.c_name}'"
        )
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    integral = not dtype.is_floating_point
    if integral:
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if integral:
        count = -((start - end) // step)  # ceil((end - start) / step), exactly
    else:
        count = max(0, math.ceil((end - start) / step))
    check_sizes([count])
    values = [start + i * step for i in range(count)]
    return finish(from_values(values, (count,), dtype), requires_grad, device)


def linspace(
    start: Any,
    end: Any,
    steps: int,
    *,
    dtype: dtype | None = None,
    device: DeviceArg = None,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end``, both included.

    The points are computed as PyTorch computes them (see
    :func:`linspace_points`), so they agree to the last bit. For an integer
    dtype the ends are truncated to ints first, the points are computed in
    double precision, and each is truncated.

    Raises:
        TypeError: If ``steps`` is not an int.
        RuntimeError: If ``steps`` is negative.
    """
    dtype = dtypes.dtype_arg(dtype, "linspace")
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise TypeError(
            "linspace(): argument 'steps' (position 3) must be int, "
            f"not {type(steps).__name__}"
        )
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start = python_number(start, "start", "linspace", 1)
    end = python_number(end, "end", "linspace", 2)
    dtype = dtype or dtypes.get_default_dtype()
    if dtype is dtypes.bool_:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    integral = dtype.category == dtypes.INT_CATEGORY
    if integral:
        start, end = int(start), int(end)
    part = dtypes.COMPLEX_PARTS.get(dtype, dtype)  # a complex type's real part
    single = part.is_floating_point and part.itemsize <= 4
    precision = dtypes.float32 if single else dtypes.float64
    values = linspace_points(start, end, steps, precision)
    if integral:
        values = [int(v) for v in values]
    return finish(from_values(values, (steps,), dtype), requires_grad, device)


def linspace_points(start: float, end: float, steps: int, d: dtype) -> list[float]:
    """The points of ``linspace``, computed in float dtype ``d`` as PyTorch does.

    With ``step = (end - start) / (steps - 1)``, the first half of the points
    is counted up from ``start`` (``start + i * step``) and the second half
    down from ``end`` (``end - (steps - 1 - i) * step``), so both ends are
    exact. Each point is one fused multiply-add, rounded once to ``d``: in
    float32, the middle of ``linspace(-1, 1, 7)`` is ``-2.98e-08``, not 0.
    """
    start, end = cast_scalar(start, d), cast_scalar(end, d)
    if steps == 1:
        return [start]
    step = cast_scalar(cast_scalar(end - start, d) / (steps - 1), d)
    half = steps // 2
    return [
        fused_multiply_add(step, i, start, d)
        if i < half
        else fused_multiply_add(-step, steps - 1 - i, end, d)
        for i in range(steps)
    ]


def fused_multiply_add(a: float, b: int, c: float, d: dtype) -> float:
    """``a * b + c`` rounded once to float dtype ``d``, as C's ``fma`` does.

    The exact value is a ratio of integers, and Python rounds an integer
    division once, to the nearest float64. Rounding that again to float32
    is right unless it landed exactly halfway between two float32 values;
    that rare case is rounded from the exact fraction.
    """
    if not (math.isfinite(a) and math.isfinite(c)):
        return cast_scalar(a * b + c, d)
    (a_top, a_bottom), (c_top, c_bottom) = a.as_integer_ratio(), c.as_integer_ratio()
    top, bottom = a_top * b * c_bottom + c_top * a_bottom, a_bottom * c_bottom
    if top == 0:
        return a * b + c  # the sign of a zero sum, as float arithmetic gives it
    try:
        nearest = top / bottom
    except OverflowError:
        return cast_scalar(a * b + c, d)
    if d is dtypes.float64 or not _on_a_float32_tie(nearest):
        return cast_scalar(nearest, d)
    # float32 keeps 24 significant bits: scale them to an integer, round it.
    exponent = max(math.frexp(nearest)[1] - 24, -149)
    return math.ldexp(round(Fraction(top, bottom) / Fraction(2) ** exponent), exponent)


def _on_a_float32_tie(value: float) -> bool:
    """Whether ``value`` lies exactly halfway between two float32 values."""
    exponent = max(math.frexp(value)[1] - 25, -150)
    halves = math.ldexp(value, -exponent)  # in halves of a float32 step
    return halves.is_integer() and int(halves) % 2 == 1
