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
from slowtorch_lib.ops.bitwise import _shift_left_scalar, _shift_right_scalar
from slowtorch_lib.ops.comparison import _both, _close, _either, _exactly_one
from slowtorch_lib.ops.fused import _addcdiv, _addcmul, _lerp_scalar
from slowtorch_lib.ops.logarithms import _exp2_scalar, _log1p_scalar
from slowtorch_lib.ops.pointwise import (
    _finite,
    _relu_scalar,
    _sigmoid_scalar,
    _sign_scalar,
)
from slowtorch_lib.ops.powers import _integer_power, _rsqrt_scalar
from slowtorch_lib.ops.rounding import (
    _floor_div_scalar,
    _quotient_to_trunc,
    _remainder_scalar,
    _trunc_div_scalar,
    _trunc_scalar,
)
from slowtorch_lib.ops.selecting import (
    _choose,
    _lower_to,
    _nan_max,
    _nan_min,
    _raise_to,
)
from slowtorch_lib.ops.trigonometry import _sinc_scalar

__all__ = ["LOOP_NAMES", "loop_name", "scalar_function"]

Loop = Callable[..., Any]

# PyTorch's name of the loop, in its error, for every scalar function an op
# computes with.
LOOP_NAMES: dict[Loop, str] = {
    operator.add: "add_stub",
    operator.sub: "add_stub",
    operator.mul: "mul_cpu_reduced_float",
    operator.neg: "neg_cpu",
    operator.abs: "abs_cpu",
    builtins.abs: "abs_cpu",
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
    _sinc_scalar: "sinc_cpu",
    math.sinh: "sinh_cpu",
    math.cosh: "cosh_cpu",
    math.asin: "asin_vml_cpu",
    math.acos: "acos_vml_cpu",
    math.atan: "atan_vml_cpu",
    math.atan2: "atan2_cpu",
    math.hypot: "hypot_cpu",
    math.log10: "log10_vml_cpu",
    math.log2: "log2_vml_cpu",
    math.expm1: "expm1_vml_cpu",
    _log1p_scalar: "log1p_vml_cpu",
    _exp2_scalar: "exp2",
    _rsqrt_scalar: "rsqrt_cpu",
    _floor_div_scalar: "div_floor_cpu",
    _trunc_div_scalar: "div_trunc_cpu",
    _quotient_to_trunc: "div_trunc_cpu",
    _trunc_scalar: "trunc_vml_cpu",
    _finite: "nan_to_num",
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
    operator.lt: "lt_cpu",
    operator.le: "le_cpu",
    operator.gt: "gt_cpu",
    operator.ge: "ge_cpu",
    operator.eq: "eq_cpu",
    operator.ne: "ne_cpu",
    math.isnan: "isnan",
    math.isinf: "isinf",
    math.isfinite: "isfinite",
    _choose: "where_cpu",
    operator.and_: "bitwise_and_cpu",
    operator.or_: "bitwise_or_cpu",
    operator.xor: "bitwise_xor_cpu",
    operator.invert: "bitwise_not_cpu",
    _shift_left_scalar: "lshift_cpu",
    _shift_right_scalar: "rshift_cpu",
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
    ``add_stub``, as :data:`LOOP_NAMES` declares.

    A name is never made up from the function's own name: PyTorch's rarely
    follows it (``sinc_cpu``, not ``sinc_scalar_cpu``), so every scalar
    function an op computes with has its line in :data:`LOOP_NAMES`, and
    ``tests/test_loop_rules.py`` checks each against PyTorch's error.

    Raises:
        LookupError: For a function with no line in :data:`LOOP_NAMES`.
    """
    scalar = scalar_function(function)
    name = LOOP_NAMES.get(scalar)
    if name is None:
        raise LookupError(
            f"no PyTorch loop name for {scalar!r}: add it to LOOP_NAMES in "
            "slowtorch_lib/_fidelity/loop_names.py (see docs/adding-an-op.md)"
        )
    return name
