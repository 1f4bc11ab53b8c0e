"""PyTorch's names of its loops, which its errors name.

``torch.tensor([1], dtype=torch.uint16) + 1`` raises
``"add_stub" not implemented for 'UInt16'``: the loop is found from the
scalar function the engine computes with (``operator.add``).

The tables here and in the other loop modules (:mod:`.few_loops`,
:mod:`.complex_numbers`) are keyed by the scalar functions themselves,
imported from where they are defined, not by their names: a function
renamed or removed fails at import, instead of changing an error quietly.
That is why these modules sit above the ops, and the package imports them
once the ops are loaded.
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
from collections.abc import Callable
from typing import Any

from slowtorch_lib._kernels import ieee_div, ieee_sqrt
from slowtorch_lib.ops.comparison import _both, _close, _either, _exactly_one
from slowtorch_lib.ops.fused import _addcdiv, _addcmul, _lerp_scalar
from slowtorch_lib.ops.logarithms import _exp2_scalar, _log1p_scalar
from slowtorch_lib.ops.pointwise import (
    _integer_power,
    _relu_scalar,
    _rsqrt_scalar,
    _sigmoid_scalar,
    _sign_scalar,
)
from slowtorch_lib.ops.rounding import (
    _floor_div_scalar,
    _remainder_scalar,
    _trunc_div_scalar,
)
from slowtorch_lib.ops.selecting import _lower_to, _nan_max, _nan_min, _raise_to

__all__ = ["LOOP_NAMES", "loop_name", "scalar_function"]

Loop = Callable[..., Any]

# PyTorch's name of the loop, in its error, where it is not ``<name>_cpu``.
LOOP_NAMES: dict[Loop, str] = {
    operator.add: "add_stub",
    operator.sub: "add_stub",
    operator.mul: "mul_cpu_reduced_float",
    operator.truediv: "div_cpu",
    ieee_div: "div_cpu",
    operator.pow: "pow",
    builtins.pow: "pow",
    math.pow: "pow",
    _integer_power: "pow",
    math.exp: "exp_vml_cpu",
    math.sqrt: "sqrt_vml_cpu",
    ieee_sqrt: "sqrt_vml_cpu",
    math.log: "log_vml_cpu",
    math.tanh: "tanh_vml_cpu",
    math.sin: "sin_vml_cpu",
    math.cos: "cos_vml_cpu",
    math.tan: "tan_vml_cpu",
    math.asin: "asin_vml_cpu",
    math.acos: "acos_vml_cpu",
    math.atan: "atan_vml_cpu",
    math.log10: "log10_vml_cpu",
    math.log2: "log2_vml_cpu",
    math.expm1: "expm1_vml_cpu",
    _log1p_scalar: "log1p_vml_cpu",
    _exp2_scalar: "exp2",
    _rsqrt_scalar: "rsqrt_cpu",
    _floor_div_scalar: "div_floor_cpu",
    _trunc_div_scalar: "div_trunc_cpu",
    _remainder_scalar: "remainder_cpu",
    _sign_scalar: "sign_cpu",
    _relu_scalar: "clamp_min_scalar_cpu",
    _sigmoid_scalar: "sigmoid_cpu_reduced_float",
    _nan_max: "maximum_cpu",
    _nan_min: "minimum_cpu",
    _raise_to: "clamp_scalar_cpu",
    _lower_to: "clamp_scalar_cpu",
    _lerp_scalar: "lerp_kernel_scalar",
    _addcmul: "addcmul_cpu_out",
    _addcdiv: "addcdiv_cpu_out",
    operator.and_: "bitwise_and_cpu",
    operator.or_: "bitwise_or_cpu",
    operator.xor: "bitwise_xor_cpu",
    operator.invert: "bitwise_not_cpu",
    operator.not_: "logical_not_cpu",
    _both: "logical_and_cpu",
    _either: "logical_or_cpu",
    _exactly_one: "logical_xor_cpu",
    _close: "mul_cpu_reduced_float",
}


def scalar_function(function: Loop) -> Loop:
    """The scalar function a loop computes with: ``function`` itself, or
    what it wraps (an IEEE-safe wrapper's ``__wrapped__``, or the function
    of a :func:`functools.partial`, as ``isclose``'s test for its
    tolerances)."""
    function = getattr(function, "__wrapped__", function)
    if isinstance(function, functools.partial):
        return function.func
    return function


def loop_name(function: Loop) -> str:
    """PyTorch's loop for a scalar function: ``operator.add`` is
    ``add_stub``; one not in :data:`LOOP_NAMES` is ``<its name>_cpu``, as
    ``operator.lt`` is ``lt_cpu``."""
    function = scalar_function(function)
    name = getattr(function, "__name__", "")
    return LOOP_NAMES.get(function, f"{name.strip('_')}_cpu")
