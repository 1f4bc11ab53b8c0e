"""Tensor's methods for comparisons, logic and bits: ``==``, ``<``,
``isclose``, ``logical_and``..., and ``&``, ``|``, ``^``, ``~``, the shifts.

``Tensor`` inherits them from :class:`LogicMethods`; each calls the function
of the same name in ``ops/comparison.py`` or ``ops/bitwise.py``, reached as
:mod:`slowtorch_lib._tensor_methods` explains, where the other elementwise
methods are. ``Tensor`` defines ``__hash__`` itself, since this class
defines ``__eq__``.
"""

# Each method's ``self`` is annotated as a ``Tensor``, the class that inherits
# it, so that mypy checks the body against what ``self`` always is (see
# _tensor_shape_methods, which does the same).
# mypy: disable-error-code="misc"
from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # The layers above, which the methods reach: see OPS_MODULES and bind_ops.
    from slowtorch_lib._tensor import Tensor, TensorOrScalar
    from slowtorch_lib.ops import bitwise as _bitwise
    from slowtorch_lib.ops import common as _common
    from slowtorch_lib.ops import comparison as _comparison

__all__ = ["LogicMethods"]


class LogicMethods:
    """``Tensor``'s methods for comparisons, logic and bitwise operations."""

    __slots__ = ()

    # ------------------------------------------------------------------
    # Comparisons and logic (ops/comparison.py)
    # ------------------------------------------------------------------

    def __eq__(self: Tensor, other: object) -> Tensor:  # type: ignore[override]
        return _comparison.eq(self, other)  # type: ignore[arg-type]

    def __ne__(self: Tensor, other: object) -> Tensor:  # type: ignore[override]
        return _comparison.ne(self, other)  # type: ignore[arg-type]

    def __lt__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _comparison.lt(self, other)

    def __le__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _comparison.le(self, other)

    def __gt__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _comparison.gt(self, other)

    def __ge__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _comparison.ge(self, other)

    def eq(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _comparison.eq(self, other)

    def ne(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _comparison.ne(self, other)

    def lt(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _comparison.lt(self, other)

    def le(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _comparison.le(self, other)

    def gt(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _comparison.gt(self, other)

    def ge(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _comparison.ge(self, other)

    def logical_not(self: Tensor) -> Tensor:
        return _comparison.logical_not(self)

    def isnan(self: Tensor) -> Tensor:
        return _comparison.isnan(self)

    def logical_and(self: Tensor, other: Tensor) -> Tensor:
        return _comparison.logical_and(self, other)

    def logical_or(self: Tensor, other: Tensor) -> Tensor:
        return _comparison.logical_or(self, other)

    def logical_xor(self: Tensor, other: Tensor) -> Tensor:
        return _comparison.logical_xor(self, other)

    def isinf(self: Tensor) -> Tensor:
        return _comparison.isinf(self)

    def isfinite(self: Tensor) -> Tensor:
        return _comparison.isfinite(self)

    def allclose(
        self: Tensor,
        other: Tensor,
        rtol: builtins.float = 1e-05,
        atol: builtins.float = 1e-08,
        equal_nan: builtins.bool = False,
    ) -> builtins.bool:
        return _comparison.allclose(self, other, rtol, atol, equal_nan)

    def isclose(
        self: Tensor,
        other: Tensor,
        rtol: builtins.float = 1e-05,
        atol: builtins.float = 1e-08,
        equal_nan: builtins.bool = False,
    ) -> Tensor:
        return _comparison.isclose(self, other, rtol, atol, equal_nan)

    def equal(self: Tensor, other: Tensor) -> builtins.bool:
        return _comparison.equal(self, other)

    # ------------------------------------------------------------------
    # Bitwise operations (ops/bitwise.py)
    # ------------------------------------------------------------------

    def __iand__(self: Tensor, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_bitwise.bitwise_and, other)

    def __ior__(self: Tensor, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_bitwise.bitwise_or, other)

    def __ixor__(self: Tensor, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_bitwise.bitwise_xor, other)

    def __ilshift__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return self.bitwise_left_shift_(other)

    def __irshift__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return self.bitwise_right_shift_(other)

    def bitwise_and_(self: Tensor, other: TensorOrScalar) -> Tensor:
        return self.__iand__(other)

    def bitwise_or_(self: Tensor, other: TensorOrScalar) -> Tensor:
        return self.__ior__(other)

    def bitwise_xor_(self: Tensor, other: TensorOrScalar) -> Tensor:
        return self.__ixor__(other)

    def bitwise_left_shift_(self: Tensor, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_bitwise.bitwise_left_shift, other)

    def bitwise_right_shift_(self: Tensor, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_bitwise.bitwise_right_shift, other)

    def __invert__(self: Tensor) -> Tensor:
        return _bitwise.invert(self)

    def __and__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_and(self, other)

    def __or__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_or(self, other)

    def __xor__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_xor(self, other)

    __rand__ = __and__

    __ror__ = __or__

    __rxor__ = __xor__

    def __lshift__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_left_shift(self, other)

    def __rlshift__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_left_shift(other, self)

    def __rshift__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_right_shift(self, other)

    def __rrshift__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_right_shift(other, self)

    def bitwise_and(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_and(self, other)

    def bitwise_or(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_or(self, other)

    def bitwise_xor(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_xor(self, other)

    def bitwise_not(self: Tensor) -> Tensor:
        return _bitwise.bitwise_not(self)

    def bitwise_left_shift(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_left_shift(self, other)

    def bitwise_right_shift(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _bitwise.bitwise_right_shift(self, other)
