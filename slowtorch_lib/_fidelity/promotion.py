"""How the dtypes beyond the ten promote, with each other and with the ten.

PyTorch refuses to promote the 8-bit floats with any other type, and
uint16, uint32 and uint64 with any but a real floating-point type (the
words of each refusal are :attr:`slowtorch_lib._dtype.dtype.unpromotable`).
A complex type takes parts wide enough for both real types, and a complex
operand of a lower priority lifts a floating-point result to the complex
type with parts of that float. These rules are registered in
:data:`slowtorch_lib._dtype.PROMOTION_FAMILIES`.
"""

from __future__ import annotations

from slowtorch_lib._dtype import (
    COMPLEX_OF,
    COMPLEX_PARTS,
    PROMOTION_FAMILIES,
    dtype,
    promote_types,
)
from slowtorch_lib._fidelity.complex_types import COMPLEX_TYPES, complex64
from slowtorch_lib._fidelity.float8 import FLOAT8_TYPES
from slowtorch_lib._fidelity.wide_uint import UNSIGNED_TYPES

__all__ = ["COMPLEX_PROMOTION", "FEW_LOOPS_PROMOTION", "check_promotable"]


def check_promotable(a: dtype, b: dtype) -> None:
    """Raises PyTorch's refusal to promote ``a`` with ``b`` (not the same type).

    The 8-bit floats promote with nothing; uint16, uint32 and uint64 only
    with a real floating-point type.
    """
    float8 = a if a.float8 else b if b.float8 else None
    unsigned = a if a.unpromotable else b if b.unpromotable else None
    if float8 is None and unsigned is not None:
        other = b if unsigned is a else a
        if other.is_floating_point:
            return
    refused = float8 or unsigned
    if refused is not None:
        raise RuntimeError(
            f"Promotion for {refused.unpromotable} is not supported, "
            f"attempted to promote {a.c_name} and {b.c_name}"
        )


class FewLoopsPromotion:
    """The 8-bit floats and uint16 to uint64: refused, but for an unsigned
    type with a real float, which gives the float."""

    def promote(self, a: dtype, b: dtype) -> dtype:
        check_promotable(a, b)
        return a if a.is_floating_point else b

    def lifted(self, result: dtype, higher: dtype) -> dtype:
        """A 0-d tensor of such a type is promoted, so the refusals apply
        (bool with a 0-d uint32)."""
        return self.promote(result, higher)


class ComplexPromotion:
    """The complex types: parts wide enough for both."""

    def promote(self, a: dtype, b: dtype) -> dtype:
        """The complex type whose parts hold both real types.

        ``float64`` and ``complex64`` give ``complex128``; an integer or
        bool leaves the complex type as it is.
        """
        check_promotable(a, b)
        parts = [COMPLEX_PARTS.get(d, d) for d in (a, b)]
        real_parts = [d for d in parts if d.is_floating_point]
        part = real_parts[0]
        for other in real_parts[1:]:
            part = promote_types(part, other)
        return COMPLEX_OF[part]

    def lifted(self, result: dtype, higher: dtype) -> dtype:
        """A complex operand of lower priority lifts a floating-point result
        to the complex type with parts of that float type (float64 and
        ``1j`` give complex128; bfloat16, with no complex type, complex64).

        Raises:
            RuntimeError: For an 8-bit float, which has no complex type.
        """
        if not result.is_floating_point:
            return higher
        if result.float8:
            raise RuntimeError(f"Unknown Complex ScalarType for {result.c_name}")
        return COMPLEX_OF.get(result, complex64)


FEW_LOOPS_PROMOTION = FewLoopsPromotion()
COMPLEX_PROMOTION = ComplexPromotion()
for _type in UNSIGNED_TYPES + FLOAT8_TYPES:
    PROMOTION_FAMILIES[_type] = FEW_LOOPS_PROMOTION
for _type in COMPLEX_TYPES:
    PROMOTION_FAMILIES[_type] = COMPLEX_PROMOTION
