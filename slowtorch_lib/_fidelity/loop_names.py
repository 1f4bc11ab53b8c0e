"""PyTorch's names of its loops, which its errors name.

``torch.tensor([1], dtype=torch.uint16) + 1`` raises
``"add_stub" not implemented for 'UInt16'``: the loop is found by the name
of the scalar function the engine computes with (``add``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["KERNEL_NAMES", "loop_name", "scalar_name"]

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


def scalar_name(function: Callable[..., Any]) -> str:
    """The name of a scalar function, through an IEEE-safe wrapper."""
    return getattr(getattr(function, "__wrapped__", function), "__name__", "")


def loop_name(name: str) -> str:
    """PyTorch's loop for scalar function ``name``: ``add`` is ``add_stub``."""
    return KERNEL_NAMES.get(name, f"{name.strip('_')}_cpu")
