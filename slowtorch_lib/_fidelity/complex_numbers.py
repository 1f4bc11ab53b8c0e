"""The complex types' loops: what PyTorch computes for complex numbers.

The complex types compute with :mod:`cmath`. :data:`COMPLEX_LOOPS` is the
one table of what they can do, keyed by the real scalar function an
operation computes with (the function itself, as in :mod:`.loop_names`);
complex32 has only the loops in :data:`COMPLEX32_LOOPS`. Where PyTorch
has no complex loop (``<``, ``max``, ``floor``...) the engine raises its
error. :data:`COMPLEX` holds these rules and is registered for the three
complex types in :data:`slowtorch_lib._tensor_kernels.FAMILIES`.
"""

from __future__ import annotations

import builtins
import cmath
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

from slowtorch_lib._dtype import dtype
from slowtorch_lib._fidelity.complex_types import COMPLEX_TYPES, complex32
from slowtorch_lib._fidelity.loop_names import loop_name, scalar_function
from slowtorch_lib._kernels import (
    ieee_div,
    ieee_log,
    ieee_pow,
    ieee_sqrt,
    map_values,
)
from slowtorch_lib._tensor import Tensor, TensorOrScalar, from_values
from slowtorch_lib._tensor_kernels import FAMILIES, not_implemented
from slowtorch_lib.ops.comparison import _both, _close, _either, _exactly_one
from slowtorch_lib.ops.fused import _addcdiv, _addcmul, _lerp_scalar
from slowtorch_lib.ops.logarithms import _exp2_scalar, _log1p_scalar
from slowtorch_lib.ops.pointwise import _sigmoid_scalar
from slowtorch_lib.ops.powers import _rsqrt_scalar
from slowtorch_lib.ops.selecting import _choose
from slowtorch_lib.ops.trigonometry import _sinc_scalar

__all__ = ["COMPLEX", "COMPLEX_LOOPS", "NOT_FOR_COMPLEX", "complex_loop"]

Loop = Callable[..., Any]


def _complex_div(a: complex, b: complex) -> complex:
    """``a / b`` with PyTorch's answers for a zero divisor: each part of
    ``a`` divided by zero on its own (``inf``, ``-inf`` or ``nan``)."""
    if b == 0:
        return complex(ieee_div(a.real, 0.0), ieee_div(a.imag, 0.0))
    return a / b


def _complex_log(z: complex) -> complex:
    """``cmath.log``, with ``-inf`` at 0 as PyTorch gives."""
    return complex(-math.inf, 0.0) if z == 0 else cmath.log(z)


def _complex_log_base(z: complex, base: float) -> complex:
    """The log of ``z`` to ``base``: each part divided by ``ln(base)`` (a
    complex division would turn the ``0`` of ``log(0) = -inf + 0j`` to nan)."""
    natural = _complex_log(z)
    scale = math.log(base)
    return complex(natural.real / scale, natural.imag / scale)


def _complex_pow(base: complex, exponent: complex) -> complex:
    """``base ** exponent``; ``z ** 0`` is 1 and ``0 ** z`` is 0 or nan."""
    if exponent == 0:
        return complex(1.0, 0.0)
    if base == 0:
        positive = exponent.real > 0
        return complex(0.0, 0.0) if positive else complex(math.nan, math.nan)
    if not cmath.isfinite(exponent):  # Python's ** has no answer for these
        return _complex_exp(complex(exponent) * cmath.log(base))
    try:
        return complex(base) ** exponent
    except OverflowError:
        return complex(math.inf, math.inf)


def _complex_exp(z: complex) -> complex:
    """``e ** z`` with C's answers where a part is infinite or nan (where
    :func:`cmath.exp` raises): 0 for a real part of ``-inf``, an infinite
    real part with a nan imaginary one for ``+inf``, else nan."""
    x, y = z.real, z.imag
    if x == -math.inf:
        return complex(0.0, 0.0)
    if x == math.inf and not math.isfinite(y):
        return complex(math.inf, math.nan)
    try:
        return cmath.exp(z)
    except (OverflowError, ValueError):
        return complex(math.nan, math.nan)


def _complex_addcdiv(a: complex, b: complex, c: complex, step: complex) -> complex:
    return a + _complex_div(step * b, c)


def _complex_lerp(a: complex, b: complex, w: complex) -> complex:
    """``a + w * (b - a)``, from the nearer end by ``|w|``, as PyTorch."""
    if abs(w) < 0.5:
        return a + w * (b - a)
    return b - (b - a) * (1 - w)


def _complex_sigmoid(z: complex) -> complex:
    return 1 / (1 + cmath.exp(-z))


def _complex_rsqrt(z: complex) -> complex:
    return _complex_div(1, cmath.sqrt(z))


def _complex_sinc(z: complex) -> complex:
    """``sin(pi z) / (pi z)``, and 1 at 0."""
    return complex(1.0, 0.0) if z == 0 else cmath.sin(math.pi * z) / (math.pi * z)


# The loops the complex types have, by the real scalar function (as in
# :data:`LOOP_NAMES`): the complex function that replaces it. complex32 has
# only those in :data:`COMPLEX32_LOOPS`.
COMPLEX_LOOPS: dict[Loop, Loop] = {
    operator.add: operator.add,
    operator.sub: operator.sub,
    operator.mul: operator.mul,
    operator.truediv: _complex_div,
    ieee_div: _complex_div,
    operator.neg: operator.neg,
    operator.eq: operator.eq,
    operator.ne: operator.ne,
    _choose: lambda condition, a, b: a if condition else b,
    operator.abs: abs,
    builtins.abs: abs,
    operator.pow: _complex_pow,
    builtins.pow: _complex_pow,
    math.pow: _complex_pow,
    ieee_pow: _complex_pow,
    math.exp: cmath.exp,
    math.log: _complex_log,
    ieee_log: _complex_log,
    math.sqrt: cmath.sqrt,
    ieee_sqrt: cmath.sqrt,
    _rsqrt_scalar: _complex_rsqrt,
    math.sin: cmath.sin,
    math.cos: cmath.cos,
    math.tanh: cmath.tanh,
    _sigmoid_scalar: _complex_sigmoid,
    math.isfinite: lambda z: cmath.isfinite(z),
    math.isnan: lambda z: cmath.isnan(z),
    math.isinf: lambda z: cmath.isinf(z),
    math.tan: cmath.tan,
    _sinc_scalar: _complex_sinc,
    math.sinh: cmath.sinh,
    math.cosh: cmath.cosh,
    math.asin: cmath.asin,
    math.acos: cmath.acos,
    math.atan: cmath.atan,
    math.log10: lambda z: _complex_log_base(z, 10),
    math.log2: lambda z: _complex_log_base(z, 2),
    _exp2_scalar: lambda z: cmath.exp(z * math.log(2)),
    math.expm1: lambda z: cmath.exp(z) - 1,
    _log1p_scalar: lambda z: _complex_log(1 + z),
    _addcdiv: _complex_addcdiv,
    _lerp_scalar: _complex_lerp,
}
# The scalar functions that work on complex numbers as they are (the
# logical ones: a number is true if it is not 0; isclose's test; addcmul,
# which complex32 has too).
COMPLEX_AS_IS = (operator.not_, _both, _either, _exactly_one, _close, _addcmul)
COMPLEX32_LOOPS = (
    operator.add,
    operator.sub,
    operator.mul,
    operator.neg,
    operator.eq,
    operator.ne,
    _choose,
    operator.abs,
    builtins.abs,
    math.isnan,
    math.isinf,
    math.isfinite,
)
# The reductions every complex type lacks, by PyTorch's loop name, and
# those complex32 lacks too.
COMPLEX_MISSING = (
    "max_all",
    "min_all",
    "max_values_cpu",
    "min_values_cpu",
    "cummax_cpu",
    "cummin_cpu",
)
COMPLEX32_MISSING = ("sum_cpu", "prod_out_cpu", "cumsum_out_cpu", "cumprod_out_cpu")

# The operations PyTorch refuses for every complex input before it looks
# for a loop, with its exception and words (``{name}`` is the op's name).
NOT_FOR_COMPLEX: dict[str, tuple[type[Exception], str]] = {
    "floor": (NotImplementedError, "floor is not supported for complex inputs"),
    "ceil": (NotImplementedError, "ceil is not supported for complex inputs"),
    "trunc": (NotImplementedError, "trunc is not supported for complex inputs"),
    "clamp": (NotImplementedError, "clamp is not supported for complex types"),
    "sign": (
        NotImplementedError,
        "Unlike NumPy, torch.sign is not intended to support complex numbers. "
        "Please use torch.sgn instead.",
    ),
    "maximum": (RuntimeError, "maximum not implemented for complex tensors."),
    "minimum": (RuntimeError, "minimum not implemented for complex tensors."),
    "max": (RuntimeError, "max(): does not support complex input"),
    "min": (RuntimeError, "min(): does not support complex input"),
    "argmax": (RuntimeError, "argmax(): does not support complex input"),
    "argmin": (RuntimeError, "argmin(): does not support complex input"),
    "sort": (RuntimeError, " Sort does not support complex dtypes on CPU"),
    "topk": (RuntimeError, " topk does not support complex dtypes on CPU"),
}


def complex_loop(function: Loop, d: dtype) -> Loop:
    """The complex version of scalar function ``function``, for dtype ``d``.

    Raises:
        NotImplementedError: PyTorch's error, naming its loop, where it has
            none for ``d`` (``"lt_cpu" not implemented for 'ComplexFloat'``).
    """
    scalar = scalar_function(function)
    if scalar in COMPLEX_AS_IS:
        return function
    loop = COMPLEX_LOOPS.get(scalar)
    if loop is None or (d is complex32 and scalar not in COMPLEX32_LOOPS):
        raise not_implemented(loop_name(scalar), d)
    return loop


class ComplexLoops:
    """The loop rules of the complex types (see
    :class:`slowtorch_lib._tensor_kernels.Family`)."""

    def unary(self, function: Loop, tensor: Tensor, d: dtype) -> Tensor:
        """A complex input computes its own loop, whatever type comes out."""
        if tensor.dtype.is_complex:
            function = complex_loop(function, tensor.dtype)
        return from_values(map_values(function, tensor._values()), tensor._shape, d)

    def binary_loop(
        self,
        function: Loop,
        careful: Loop | None,
        d: dtype,
        a: TensorOrScalar,
        b: TensorOrScalar,
        shape: tuple[int, ...],
    ) -> tuple[Loop, Loop | None]:
        return complex_loop(function, d), None

    def map_loop(
        self, function: Loop, careful: Loop | None, d: dtype
    ) -> tuple[Loop, Loop | None]:
        return complex_loop(function, d), None

    def check_loop(
        self, kernel: str, d: dtype, kinds: Sequence[str], elements: int
    ) -> None:
        """The reductions the complex types lack (and complex32 more)."""
        if elements and kernel in COMPLEX_MISSING:
            raise not_implemented(kernel, d)
        if d is complex32 and elements and kernel in COMPLEX32_MISSING:
            raise not_implemented(kernel, d)

    def refuse(self, name: str, d: dtype) -> None:
        """PyTorch's refusal of operation ``name`` for complex numbers."""
        refusal = NOT_FOR_COMPLEX.get(name)
        if refusal is not None:
            error, words = refusal
            raise error(words)


COMPLEX = ComplexLoops()
for _type in COMPLEX_TYPES:
    FAMILIES[_type] = COMPLEX
