"""The few loops of the types PyTorch will not promote.

uint16, uint32 and uint64 and the 8-bit floats (see
:attr:`slowtorch_lib._dtype.dtype.unpromotable`) have only a few loops in
PyTorch. :data:`LIMITED_KERNELS` is the one table of which, and
:func:`check_kernel` raises PyTorch's error for the others before anything
is computed. :class:`FewLoops` holds these rules and is registered for
each of these types in :data:`slowtorch_lib._tensor_kernels.FAMILIES`.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

from slowtorch_lib._dtype import dtype
from slowtorch_lib._fidelity.float8 import FLOAT8_TYPES, float8_e8m0fnu
from slowtorch_lib._fidelity.loop_names import loop_name, scalar_function
from slowtorch_lib._fidelity.wide_uint import UNSIGNED_TYPES
from slowtorch_lib._kernels import cast_values, ieee_div, map_values
from slowtorch_lib._tensor import Tensor, TensorOrScalar, from_values
from slowtorch_lib._tensor_kernels import FAMILIES, not_implemented
from slowtorch_lib.ops.comparison import _close
from slowtorch_lib.ops.rounding import (
    _floor_div_scalar,
    _quotient_to_trunc,
    _trunc_div_scalar,
)
from slowtorch_lib.ops.selecting import _choose

__all__ = ["LIMITED_KERNELS", "check_kernel", "check_limited_loop"]

Loop = Callable[..., Any]

# The loops PyTorch has for the types with few kernels, by the scalar
# function the engine computes with (see :mod:`.loop_names`), and the kinds
# of type that have it: "unsigned" (uint16 to uint64), "float8", and "e8m0"
# (which has even fewer).
LIMITED_KERNELS: dict[Loop, tuple[str, ...]] = {
    operator.mul: ("unsigned", "float8", "e8m0"),
    operator.eq: ("unsigned", "float8", "e8m0"),
    operator.ne: ("unsigned", "float8", "e8m0"),
    _choose: ("unsigned", "float8", "e8m0"),
    math.isnan: ("unsigned", "float8", "e8m0"),
    math.isinf: ("unsigned", "float8", "e8m0"),
    math.isfinite: ("unsigned", "float8", "e8m0"),
    operator.abs: ("float8",),
    builtins.abs: ("float8",),
    operator.and_: ("unsigned",),
    operator.or_: ("unsigned",),
    operator.xor: ("unsigned",),
    _close: ("unsigned",),
}


# The divisions whose loop for an 8-bit float divided by a scalar PyTorch
# names apart: ``"div_cpu_reduced_float"`` for ``x / 4.0``.
SCALAR_DIVISIONS = (
    operator.truediv,
    ieee_div,
    _floor_div_scalar,
    _trunc_div_scalar,
    _quotient_to_trunc,
)


def check_kernel(function: Loop, d: dtype, scalar_operand: bool = False) -> None:
    """Raises PyTorch's error if it has no loop of ``function`` for ``d``.

    Only the types with few kernels (``d.unpromotable``) can lack one.
    ``scalar_operand`` says that an operand is a Python number or the
    right one reads one element (see :func:`_reads_one_element`): an 8-bit
    float multiplies tensors, but not by such a scalar, which PyTorch
    multiplies with another loop.

    Raises:
        NotImplementedError: Naming PyTorch's loop, as in
            ``"add_stub" not implemented for 'UInt16'``.
    """
    if not d.unpromotable:
        return
    function = scalar_function(function)
    kinds = LIMITED_KERNELS.get(function, ())
    name = loop_name(function)
    if scalar_operand and d.float8 and function is operator.mul:
        kinds = ()
    if scalar_operand and d.float8 and function in SCALAR_DIVISIONS:
        name += "_reduced_float"
    check_limited_loop(name, d, kinds)


def check_limited_loop(
    kernel: str, d: dtype, kinds: Sequence[str] = (), elements: int = 1
) -> None:
    """Raises PyTorch's error for ``kernel`` unless ``d`` has it.

    Of the types with few kernels, only the ``kinds`` named
    (``"unsigned"``, ``"float8"``, ``"e8m0"``, as in
    :data:`LIMITED_KERNELS`) have this one. With no ``elements`` to compute
    nothing is checked.

    >>> check_limited_loop("sum_cpu", uint16, ("unsigned",))
    """
    if not d.unpromotable or not elements:
        return
    kind = "e8m0" if d is float8_e8m0fnu else "float8" if d.float8 else ""
    if (kind or "unsigned") not in kinds:
        raise not_implemented(kernel, d)


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


class FewLoops:
    """The loop rules of the types with few kernels (see
    :class:`slowtorch_lib._tensor_kernels.Family`)."""

    def unary(self, function: Loop, tensor: Tensor, d: dtype) -> Tensor:
        check_kernel(function, d if d.is_floating_point else tensor.dtype)
        values = tensor._values()
        if d.is_floating_point:
            values = cast_values(values, tensor.dtype, d)
        return from_values(map_values(function, values), tensor._shape, d)

    def binary_loop(
        self,
        function: Loop,
        careful: Loop | None,
        d: dtype,
        a: TensorOrScalar,
        b: TensorOrScalar,
        shape: tuple[int, ...],
    ) -> tuple[Loop, Loop | None]:
        scalar = not isinstance(a, Tensor) or _reads_one_element(b, shape)
        check_kernel(function, d, scalar)
        return function, careful

    def map_loop(
        self, function: Loop, careful: Loop | None, d: dtype
    ) -> tuple[Loop, Loop | None]:
        check_kernel(function, d)
        return function, careful

    def check_loop(
        self, kernel: str, d: dtype, kinds: Sequence[str], elements: int
    ) -> None:
        check_limited_loop(kernel, d, kinds, elements)

    def refuse(self, name: str, d: dtype) -> None:
        """These types refuse nothing before they look for a loop."""


FEW_LOOPS = FewLoops()
for _type in UNSIGNED_TYPES + FLOAT8_TYPES:
    FAMILIES[_type] = FEW_LOOPS
