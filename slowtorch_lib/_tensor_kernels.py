"""The kernels applied to tensors: the bridge from ``Tensor`` to the loops.

:mod:`slowtorch_lib._kernels` works on values, shapes and strides and never
sees a tensor. The ops work on tensors. The few functions here connect the
two: each one takes tensors apart into what a kernel reads, runs the kernel
and wraps its values in a new contiguous tensor. No graph is recorded; the
ops call these inside their ``Function.forward``.

The types PyTorch will not promote (``uint16`` to ``uint64`` and the 8-bit
floats, see :attr:`dtype.unpromotable`) have only a few loops in PyTorch.
:func:`check_kernel` is the one place that knows which, and raises
PyTorch's error for the others before anything is computed. The complex
types compute with :mod:`cmath`: :data:`COMPLEX_LOOPS` is the one table
of what they can do, and :func:`complex_loop` the one place that looks.
"""

from __future__ import annotations

import cmath
import math
import operator
from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib import _kernels
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import cast_scalar, cast_values, ieee_div, map_values
from slowtorch_lib._strides import broadcast_shapes, numel
from slowtorch_lib._tensor import Tensor, TensorOrScalar, from_values

__all__ = [
    "binary",
    "broadcast_map",
    "check_kernel",
    "check_loop",
    "check_real",
    "complex_loop",
    "contiguous_copy",
    "expanded_values",
    "not_implemented",
    "reduction_groups",
    "unary",
]

# The loops PyTorch has for the types with few kernels, by the name of the
# scalar function the engine computes with, and the kinds of type that
# have it: "unsigned" (uint16 to uint64), "float8", and "e8m0" (which has
# even fewer).
LIMITED_KERNELS: dict[str, tuple[str, ...]] = {
    "mul": ("unsigned", "float8", "e8m0"),
    "eq": ("unsigned", "float8", "e8m0"),
    "ne": ("unsigned", "float8", "e8m0"),
    "_choose": ("unsigned", "float8", "e8m0"),
    "isnan": ("unsigned", "float8", "e8m0"),
    "isinf": ("unsigned", "float8", "e8m0"),
    "isfinite": ("unsigned", "float8", "e8m0"),
    "abs": ("float8",),
    "and_": ("unsigned",),
    "or_": ("unsigned",),
    "xor": ("unsigned",),
    "close": ("unsigned",),
}

# PyTorch's name of the loop, in its error, where it is not ``<name>_cpu``.
KERNEL_NAMES = {
    "add": "add_stub",
    "sub": "add_stub",
    "mul": "mul_cpu_reduced_float",
    "truediv": "div_cpu",
    "ieee_div": "div_cpu",
    "pow": "pow",
    "_integer_power": "pow",
    "exp": "exp_vml_cpu",
    "sqrt": "sqrt_vml_cpu",
    "ieee_sqrt": "sqrt_vml_cpu",
    "log": "log_vml_cpu",
    "tanh": "tanh_vml_cpu",
    "sin": "sin_vml_cpu",
    "cos": "cos_vml_cpu",
    "_floor_div_scalar": "div_floor_cpu",
    "_trunc_div_scalar": "div_trunc_cpu",
    "_remainder_scalar": "remainder_cpu",
    "_sign_scalar": "sign_cpu",
    "_relu_scalar": "clamp_min_scalar_cpu",
    "_sigmoid_scalar": "sigmoid_cpu_reduced_float",
    "_nan_max": "maximum_cpu",
    "_nan_min": "minimum_cpu",
    "_raise_to": "clamp_scalar_cpu",
    "_lower_to": "clamp_scalar_cpu",
    "_lerp_scalar": "lerp_kernel_scalar",
    "_addcmul": "addcmul_cpu_out",
    "_addcdiv": "addcdiv_cpu_out",
    "and_": "bitwise_and_cpu",
    "or_": "bitwise_or_cpu",
    "xor": "bitwise_xor_cpu",
    "invert": "bitwise_not_cpu",
    "not_": "logical_not_cpu",
    "close": "mul_cpu_reduced_float",
}


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


# The loops the complex types have, by the name of the real scalar
# function (as in :data:`KERNEL_NAMES`): the complex function that
# replaces it. complex32 has only those in :data:`COMPLEX32_LOOPS`.
COMPLEX_LOOPS: dict[str, Callable[..., Any]] = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": _complex_div,
    "ieee_div": _complex_div,
    "neg": operator.neg,
    "eq": operator.eq,
    "ne": operator.ne,
    "_choose": lambda condition, a, b: a if condition else b,
    "abs": abs,
    "pow": _complex_pow,
    "ieee_pow": _complex_pow,
    "exp": cmath.exp,
    "log": _complex_log,
    "ieee_log": _complex_log,
    "sqrt": cmath.sqrt,
    "ieee_sqrt": cmath.sqrt,
    "_rsqrt_scalar": _complex_rsqrt,
    "sin": cmath.sin,
    "cos": cmath.cos,
    "tanh": cmath.tanh,
    "_sigmoid_scalar": _complex_sigmoid,
    "isfinite": lambda z: cmath.isfinite(z),
    "isnan": lambda z: cmath.isnan(z),
    "isinf": lambda z: cmath.isinf(z),
    "tan": cmath.tan,
    "sinh": cmath.sinh,
    "cosh": cmath.cosh,
    "asin": cmath.asin,
    "acos": cmath.acos,
    "atan": cmath.atan,
    "log10": lambda z: _complex_log_base(z, 10),
    "log2": lambda z: _complex_log_base(z, 2),
    "_exp2_scalar": lambda z: cmath.exp(z * math.log(2)),
    "expm1": lambda z: cmath.exp(z) - 1,
    "_log1p_scalar": lambda z: _complex_log(1 + z),
    "_addcdiv": _complex_addcdiv,
    "_lerp_scalar": _complex_lerp,
}
# The scalar functions that work on complex numbers as they are (the
# logical ones: a number is true if it is not 0; isclose's test; addcmul,
# which complex32 has too).
COMPLEX_AS_IS = ("not_", "_both", "_either", "_exactly_one", "close", "_addcmul")
COMPLEX32_LOOPS = ("add", "sub", "mul", "neg", "eq", "ne", "_choose", "abs")
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


def check_real(name: str, d: dtype) -> None:
    """Raises PyTorch's refusal of operation ``name`` for a complex ``d``
    (see :data:`NOT_FOR_COMPLEX`)."""
    if d.is_complex:
        error, words = NOT_FOR_COMPLEX[name]
        raise error(words)


def complex_loop(function: Callable[..., Any], d: dtype) -> Callable[..., Any]:
    """The complex version of scalar function ``function``, for dtype ``d``.

    Raises:
        NotImplementedError: PyTorch's error, naming its loop, where it has
            none for ``d`` (``"lt_cpu" not implemented for 'ComplexFloat'``).
    """
    name = getattr(getattr(function, "__wrapped__", function), "__name__", "")
    if name in COMPLEX_AS_IS:
        return function
    loop = COMPLEX_LOOPS.get(name)
    if loop is None or (d is dtypes.complex32 and name not in COMPLEX32_LOOPS):
        raise not_implemented(KERNEL_NAMES.get(name, f"{name.strip('_')}_cpu"), d)
    return loop


def not_implemented(kernel: str, d: dtype) -> NotImplementedError:
    """PyTorch's error for a dtype that an operation has no loop for."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{d.c_name}'")


def check_kernel(
    function: Callable[..., Any], d: dtype, scalar_operand: bool = False
) -> None:
    """Raises PyTorch's error if it has no loop of ``function`` for ``d``.

    Only the types with few kernels (``d.unpromotable``) can lack one.
    ``scalar_operand`` says that an operand is a Python number or the
    right one reads one element (see :func:`binary`): an 8-bit float
    multiplies tensors, but not by such a scalar, which PyTorch multiplies
    with another loop.

    Raises:
        NotImplementedError: Naming PyTorch's loop, as in
            ``"add_stub" not implemented for 'UInt16'``.
    """
    if not d.unpromotable:
        return
    name = getattr(function, "__name__", "")
    kinds = LIMITED_KERNELS.get(name, ())
    if scalar_operand and d.float8 and name == "mul":
        kinds = ()
    check_loop(KERNEL_NAMES.get(name, f"{name.strip('_')}_cpu"), d, kinds)


def check_loop(
    kernel: str, d: dtype, kinds: tuple[str, ...] = (), elements: int = 1
) -> None:
    """Raises PyTorch's error for ``kernel`` unless ``d`` has it.

    Every ordinary type has every loop; of the types with few kernels,
    only the ``kinds`` named (``"unsigned"``, ``"float8"``, ``"e8m0"``, as
    in :data:`LIMITED_KERNELS`) have this one. Many operations look for
    their loop only when there are ``elements`` to compute: the callers
    pass 0 for an empty input, and nothing is checked.

    >>> check_loop("sum_cpu", dtypes.uint16, ("unsigned",))
    """
    if d.is_complex and elements and kernel in COMPLEX_MISSING:
        raise not_implemented(kernel, d)
    if d is dtypes.complex32 and elements and kernel in COMPLEX32_MISSING:
        raise not_implemented(kernel, d)
    if not d.unpromotable or not elements:
        return
    kind = "e8m0" if d is dtypes.float8_e8m0fnu else "float8" if d.float8 else ""
    if (kind or "unsigned") not in kinds:
        raise not_implemented(kernel, d)


def expanded_values(tensor: Tensor, shape: tuple[int, ...]) -> list[Any]:
    """The elements of ``tensor`` broadcast to ``shape``, in row-major order.

    Two shortcuts: a tensor whose storage is one cell (a scalar, or the
    gradient of a sum expanded back) is that value repeated, and a tensor
    already of the shape is read as it is.
    """
    data = tensor._storage.data
    if len(data) == 1:
        return [data[0]] * numel(shape)
    if tensor._shape == shape:
        return tensor._values()
    return _kernels.broadcast_values(
        data, tensor._shape, tensor._stride, tensor._offset, shape
    )


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
    values = tensor._values()
    if tensor.dtype.is_complex:  # its own loop, whatever type comes out
        function = complex_loop(function, tensor.dtype)
        return from_values(map_values(function, values), tensor._shape, d)
    check_kernel(function, d if d.is_floating_point else tensor.dtype)
    if d.is_floating_point:
        values = cast_values(values, tensor.dtype, d)
    return from_values(map_values(function, values), tensor._shape, d)


def broadcast_map(
    function: Callable[..., Any],
    operands: Sequence[TensorOrScalar],
    compute_dtype: dtype,
    out_dtype: dtype | None = None,
    careful: Callable[..., Any] | None = None,
) -> Tensor:
    """Applies ``function`` to matching elements of ``operands``, broadcasting.

    Any operand may be a Python number. Tensors are broadcast to a common
    shape; every value is first converted to ``compute_dtype`` (so a
    float32 computation sees ``0.1`` as the float32 nearest to 0.1, as in
    PyTorch).

    Args:
        function: A scalar function of ``len(operands)`` arguments, such as
            ``operator.add``.
        operands: Tensors and Python numbers.
        compute_dtype: The promoted dtype the computation happens in.
        out_dtype: The result's dtype (``bool`` for comparisons); defaults to
            ``compute_dtype``.
        careful: A slower IEEE-safe version of ``function``, used if the fast
            loop raises (for example ``ieee_div`` for ``operator.truediv``).
    """
    shape = broadcast_shapes(*(t._shape for t in operands if isinstance(t, Tensor)))
    check_kernel(function, compute_dtype)
    if compute_dtype.is_complex:
        function, careful = complex_loop(function, compute_dtype), None
    columns = [_column(operand, shape, compute_dtype) for operand in operands]
    result = map_values(function, *columns, careful=careful)
    return from_values(result, shape, out_dtype or compute_dtype)


def binary(
    function: Callable[[Any, Any], Any],
    a: TensorOrScalar,
    b: TensorOrScalar,
    compute_dtype: dtype,
    out_dtype: dtype | None = None,
    careful: Callable[[Any, Any], Any] | None = None,
) -> Tensor:
    """:func:`broadcast_map` of two operands, the case almost every op is.

    Written out for speed (this runs once per operation): the shapes are
    compared before they are broadcast, and ``x * x`` reads the elements of
    ``x`` once. Two Python numbers give a 0-d result, as ``torch.add(2, 3)``.
    """
    d = compute_dtype
    if isinstance(a, Tensor):
        shape = a._shape
        if isinstance(b, Tensor) and b._shape != shape:
            shape = broadcast_shapes(shape, b._shape)
    else:
        shape = b._shape if isinstance(b, Tensor) else ()
    if d.unpromotable:
        scalar = not isinstance(a, Tensor) or _reads_one_element(b, shape)
        check_kernel(function, d, scalar)
    if d.is_complex:
        function, careful = complex_loop(function, d), None
    if isinstance(a, Tensor):
        left: Any = cast_values(expanded_values(a, shape), a.dtype, d)
    elif isinstance(b, Tensor):
        left = repeat(cast_scalar(a, d))
    else:  # two numbers: one element
        left = [cast_scalar(a, d)]
    if b is a:
        right: Any = left
    elif isinstance(b, Tensor):
        right = cast_values(expanded_values(b, shape), b.dtype, d)
    else:
        right = repeat(cast_scalar(b, d))
    result = map_values(function, left, right, careful=careful)
    return from_values(result, shape, out_dtype or d)


def _reads_one_element(b: TensorOrScalar, shape: tuple[int, ...]) -> bool:
    """Whether ``b``, broadcast to ``shape``, reads one element everywhere.

    That is PyTorch's test for a scalar right operand: a Python number, or
    a tensor with elements whose stride is 0 (or size 1) along every
    dimension of ``shape`` longer than 1, as a one-element or an expanded
    tensor. An empty ``b`` is not one.
    """
    if not isinstance(b, Tensor):
        return True
    if not b.numel():
        return False
    lead = len(shape) - len(b._shape)
    return all(
        size == 1 or stride == 0 or shape[lead + i] == 1
        for i, (size, stride) in enumerate(zip(b._shape, b._stride))
    )


def _column(operand: TensorOrScalar, shape: tuple[int, ...], d: dtype) -> Any:
    """One operand's values, broadcast to ``shape`` and converted to ``d``.

    A Python number is the same value, repeated without end.
    """
    if isinstance(operand, Tensor):
        return cast_values(expanded_values(operand, shape), operand.dtype, d)
    return repeat(cast_scalar(operand, d))


def contiguous_copy(tensor: Tensor) -> Tensor:
    """A new row-major tensor with the same values (no graph recorded)."""
    if tensor.is_contiguous():
        run = _kernels.contiguous_run(
            tensor._storage.data, tensor._offset, numel(tensor._shape)
        )
        return from_values(run, tensor._shape, tensor.dtype)
    return from_values(tensor._values(), tensor._shape, tensor.dtype)


def reduction_groups(tensor: Tensor, dims: tuple[int, ...]) -> list[Sequence[Any]]:
    """The elements of ``tensor`` grouped for a reduction over ``dims``.

    See :func:`slowtorch_lib._kernels.reduction_groups`.
    """
    strides = None if tensor.is_contiguous() else tensor._stride
    return _kernels.reduction_groups(
        tensor._storage.data, tensor._shape, dims, strides, tensor._offset
    )
