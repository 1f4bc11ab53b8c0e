"""Tensor's methods for the operations that work element by element, and
how every method of ``Tensor`` reaches the ops.

``x.mul(y)`` is ``ops.pointwise.mul(x, y)``: an operation is defined once,
in ``ops/``, with its forward and its backward side by side, and the method
of the same name only passes its arguments on. ``Tensor`` (in
:mod:`slowtorch_lib._tensor`, which holds what a tensor is) inherits these
one-line methods from two classes, grouped in the order of ``ops/``:

- :class:`ElementwiseMethods`, here: comparisons, clamping and selecting,
  rounding, arithmetic, logarithms, complex parts, trigonometry, bitwise
  and fused operations;
- :class:`~slowtorch_lib._tensor_shape_methods.ShapeMethods`: new tensors,
  copies and casts, reductions, views, indexing, sorting, scans, matrix
  products and random fills.

Their ``self`` is annotated as a ``Tensor``, which it always is, so that
type checkers and "go to definition" follow it. In-place forms (``add_``)
compute out of place, then write back (``Tensor._inplace``).

The ops are built on ``Tensor``, so these modules cannot import them: they
reach them through :data:`OPS_MODULES`, which :func:`bind_ops` connects.
"""

# Each method's ``self`` is annotated as a ``Tensor``, the class that inherits
# it, so that mypy checks the body against what ``self`` always is. mypy
# reports such a ``self`` (it expects the class or one above it) under
# "misc", which is switched off here, and only here:
# mypy: disable-error-code="misc"
from __future__ import annotations

import builtins
import importlib
import sys
from typing import TYPE_CHECKING

from slowtorch_lib._dtype import Scalar

if TYPE_CHECKING:
    # The layers above, which the methods reach: see OPS_MODULES and bind_ops.
    from slowtorch_lib._tensor import Tensor, TensorOrScalar
    from slowtorch_lib.ops import bitwise as _bitwise
    from slowtorch_lib.ops import common as _common
    from slowtorch_lib.ops import comparison as _comparison
    from slowtorch_lib.ops import complex_parts as _complex_parts
    from slowtorch_lib.ops import fused as _fused
    from slowtorch_lib.ops import logarithms as _logarithms
    from slowtorch_lib.ops import pointwise as _pointwise
    from slowtorch_lib.ops import powers as _powers
    from slowtorch_lib.ops import rounding as _rounding
    from slowtorch_lib.ops import selecting as _selecting
    from slowtorch_lib.ops import trigonometry as _trigonometry

__all__ = [
    "BOUND_MODULES",
    "ElementwiseMethods",
    "OPS_MODULES",
    "bind_ops",
]

#: The modules above this layer whose functions the methods call, by the
#: name the methods use (``_pointwise.mul``). This is the one list: the
#: imports under ``TYPE_CHECKING`` at the top of each module of
#: :data:`BOUND_MODULES` name the ones it uses, for type checkers and "go to
#: definition", and ``tests/test_layering.py`` checks that they agree.
OPS_MODULES = {
    "_activation": "slowtorch_lib.nn.functional.activation",
    "_bitwise": "slowtorch_lib.ops.bitwise",
    "_common": "slowtorch_lib.ops.common",
    "_comparison": "slowtorch_lib.ops.comparison",
    "_complex_parts": "slowtorch_lib.ops.complex_parts",
    "_copying": "slowtorch_lib.ops.copying",
    "_creation": "slowtorch_lib._creation",
    "_legacy_constructors": "slowtorch_lib._legacy_constructors",
    "_diagonals": "slowtorch_lib.ops.diagonals",
    "_engine": "slowtorch_lib.autograd.engine",
    "_fused": "slowtorch_lib.ops.fused",
    "_gather_scatter": "slowtorch_lib.ops.gather_scatter",
    "_histograms": "slowtorch_lib.ops.histograms",
    "_history": "slowtorch_lib.autograd.history",
    "_indexing": "slowtorch_lib.ops.indexing",
    "_linalg": "slowtorch_lib.ops.linalg",
    "_logarithms": "slowtorch_lib.ops.logarithms",
    "_pointwise": "slowtorch_lib.ops.pointwise",
    "_printing": "slowtorch_lib._printing",
    "_order_statistics": "slowtorch_lib.ops.order_statistics",
    "_powers": "slowtorch_lib.ops.powers",
    "_products": "slowtorch_lib.ops.products",
    "_rearrange": "slowtorch_lib.ops.rearrange",
    "_reordering": "slowtorch_lib.ops.reordering",
    "_reduction": "slowtorch_lib.ops.reduction",
    "_rng": "slowtorch_lib._rng",
    "_rounding": "slowtorch_lib.ops.rounding",
    "_scan": "slowtorch_lib.ops.scan",
    "_selecting": "slowtorch_lib.ops.selecting",
    "_statistics": "slowtorch_lib.ops.statistics",
    "_sorting": "slowtorch_lib.ops.sorting",
    "_splitting": "slowtorch_lib.ops.splitting",
    "_trigonometry": "slowtorch_lib.ops.trigonometry",
    "_unique": "slowtorch_lib.ops.unique",
    "_views": "slowtorch_lib.ops.views",
}


#: The modules whose methods call the layers above through these names:
#: ``Tensor``'s own module (``_legacy_constructors.legacy_new``,
#: ``_engine.backward``...)
#: and the three of its inherited methods.
BOUND_MODULES = (
    "slowtorch_lib._tensor",
    "slowtorch_lib._tensor_methods",
    "slowtorch_lib._tensor_shape_methods",
    "slowtorch_lib._tensor_python",
)


def bind_ops() -> None:
    """Connects ``Tensor``'s methods to the modules that define them.

    ``x.mul(y)`` is ``ops.pointwise.mul(x, y)``: the operation is defined
    once, in the ops, and the method only passes its arguments on. But the
    ops are built on ``Tensor``, so the modules of ``Tensor`` cannot import
    them: each layer imports only the layers below it. Instead, the package
    (``slowtorch_lib/__init__.py``), once it has imported every layer, calls
    this function once, and it stores each module of :data:`OPS_MODULES` in
    a global of each module of :data:`BOUND_MODULES`, under the name the
    methods use.

    This is the one way ``Tensor`` reaches the layers above it; the
    autograd engine and the ops use it too when they call a tensor's
    methods.
    """
    for target in BOUND_MODULES:
        for name, module in OPS_MODULES.items():
            setattr(sys.modules[target], name, importlib.import_module(module))


class ElementwiseMethods:
    """``Tensor``'s methods for the operations that work element by element:
    each calls the function of the same name in ``ops/``."""

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
    # clamp, maximum, minimum, where, masked_fill (ops/selecting.py)
    # ------------------------------------------------------------------

    def clamp(
        self: Tensor,
        min: TensorOrScalar | None = None,
        max: TensorOrScalar | None = None,
    ) -> Tensor:
        return _selecting.clamp(self, min, max)

    clip = clamp

    def clamp_min(self: Tensor, min: Scalar) -> Tensor:
        return _selecting.clamp_min(self, min)

    def clamp_max(self: Tensor, max: Scalar) -> Tensor:
        return _selecting.clamp_max(self, max)

    def maximum(self: Tensor, other: Tensor) -> Tensor:
        return _selecting.maximum(self, other)

    def minimum(self: Tensor, other: Tensor) -> Tensor:
        return _selecting.minimum(self, other)

    def where(self: Tensor, condition: Tensor, other: TensorOrScalar) -> Tensor:
        return _selecting.where(condition, self, other)

    def clamp_(
        self: Tensor,
        min: TensorOrScalar | None = None,
        max: TensorOrScalar | None = None,
    ) -> Tensor:
        _selecting.check_clamp_inplace(self, min, max)
        return self._inplace(_selecting.clamp, min, max)

    def masked_fill_(self: Tensor, mask: Tensor, value: TensorOrScalar) -> Tensor:
        _selecting.check_masked_fill_inplace(self, mask, value)
        return self._inplace(_selecting.masked_fill, mask, value, overlap_ok=True)

    def masked_fill(self: Tensor, mask: Tensor, value: TensorOrScalar) -> Tensor:
        return _selecting.masked_fill(self, mask, value)

    # ------------------------------------------------------------------
    # Rounding and rounded division (ops/rounding.py)
    # ------------------------------------------------------------------

    def floor_divide_(self: Tensor, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_rounding.FloorDivideInPlace.apply, other)

    def __imod__(self: Tensor, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_rounding.remainder, other)

    def __floordiv__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _rounding.floor_divide(self, other)

    def __rfloordiv__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _rounding.floor_divide(other, self)

    def __mod__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _rounding.remainder(self, other)

    def __rmod__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _rounding.remainder(other, self)

    def floor_divide(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _rounding.floor_divide(self, other)

    def remainder(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _rounding.remainder(self, other)

    def floor(self: Tensor) -> Tensor:
        return _rounding.floor(self)

    def ceil(self: Tensor) -> Tensor:
        return _rounding.ceil(self)

    def round(self: Tensor, *, decimals: int | None = None) -> Tensor:
        return _rounding.round(self, decimals=decimals)

    def trunc(self: Tensor) -> Tensor:
        return _rounding.trunc(self)

    def fix(self: Tensor) -> Tensor:
        return _rounding.trunc(self)

    def floor_(self: Tensor) -> Tensor:
        return self._inplace(_rounding.floor)

    def ceil_(self: Tensor) -> Tensor:
        return self._inplace(_rounding.ceil)

    def round_(self: Tensor, *, decimals: int | None = None) -> Tensor:
        return self._inplace(_rounding.round, decimals=decimals)

    def trunc_(self: Tensor) -> Tensor:
        return self._inplace(_rounding.trunc)

    # ------------------------------------------------------------------
    # Arithmetic and elementwise functions (ops/pointwise.py)
    # ------------------------------------------------------------------

    def __add__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _pointwise.add(self, other)

    def __radd__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _pointwise.add(self, other)

    def __iadd__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return self.add_(other)

    def __sub__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _pointwise.sub(self, other)

    def __rsub__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _pointwise.rsub(self, other)

    def __isub__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return self.sub_(other)

    def __mul__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _pointwise.mul(self, other)

    def __rmul__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _pointwise.mul(self, other)

    def __imul__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return self.mul_(other)

    def __truediv__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _pointwise.div(self, other)

    def __rtruediv__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _pointwise.mul(_powers.reciprocal(self), other)

    def __itruediv__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return self.div_(other)

    def __ifloordiv__(self: Tensor, other: TensorOrScalar) -> Tensor:
        return self.floor_divide_(other)

    def __pow__(self: Tensor, exponent: TensorOrScalar) -> Tensor:
        return _powers.pow(self, exponent)

    def __rpow__(self: Tensor, base: TensorOrScalar) -> Tensor:
        return _powers.pow(base, self)

    def __ipow__(self: Tensor, exponent: TensorOrScalar) -> Tensor:
        return self.pow_(exponent)

    def __neg__(self: Tensor) -> Tensor:
        return _pointwise.neg(self)

    def __pos__(self: Tensor) -> Tensor:
        return self

    def __abs__(self: Tensor) -> Tensor:
        return _pointwise.abs(self)

    def add(self: Tensor, other: TensorOrScalar, *, alpha: Scalar = 1) -> Tensor:
        return _pointwise.add(self, other, alpha=alpha)

    def sub(self: Tensor, other: TensorOrScalar, *, alpha: Scalar = 1) -> Tensor:
        return _pointwise.sub(self, other, alpha=alpha)

    def mul(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _pointwise.mul(self, other)

    def div(self: Tensor, other: TensorOrScalar, **rounding_mode: str | None) -> Tensor:
        return _pointwise.div(self, other, **rounding_mode)

    def pow(self: Tensor, exponent: TensorOrScalar) -> Tensor:
        return _powers.pow(self, exponent)

    def neg(self: Tensor) -> Tensor:
        return _pointwise.neg(self)

    def abs(self: Tensor) -> Tensor:
        return _pointwise.abs(self)

    def exp(self: Tensor) -> Tensor:
        return _pointwise.exp(self)

    def log(self: Tensor) -> Tensor:
        return _pointwise.log(self)

    def sqrt(self: Tensor) -> Tensor:
        return _powers.sqrt(self)

    def tanh(self: Tensor) -> Tensor:
        return _pointwise.tanh(self)

    def sigmoid(self: Tensor) -> Tensor:
        return _pointwise.sigmoid(self)

    def relu(self: Tensor) -> Tensor:
        return _pointwise.relu(self)

    def reciprocal(self: Tensor) -> Tensor:
        return _powers.reciprocal(self)

    def rsqrt(self: Tensor) -> Tensor:
        return _powers.rsqrt(self)

    def square(self: Tensor) -> Tensor:
        return _powers.square(self)

    # The arithmetic in-place methods check that the result fits ``self``
    # before computing, as PyTorch does before it looks for a loop.
    def add_(self: Tensor, other: TensorOrScalar, *, alpha: Scalar = 1) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_pointwise.add, other, alpha=alpha)

    def sub_(self: Tensor, other: TensorOrScalar, *, alpha: Scalar = 1) -> Tensor:
        _pointwise.check_bool_subtraction(self, other)
        _common.check_inplace_result(self, other)
        return self._inplace(_pointwise.sub, other, alpha=alpha)

    def mul_(self: Tensor, other: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, other)
        return self._inplace(_pointwise.mul, other)

    # ``rounding_mode`` is passed on only if given: PyTorch records another
    # overload when it is, even as None (see ``ops.pointwise.div``).
    def div_(
        self: Tensor, other: TensorOrScalar, **rounding_mode: str | None
    ) -> Tensor:
        _pointwise.check_inplace_division(
            self, other, rounding_mode.get("rounding_mode")
        )
        return self._inplace(lambda x, y: _pointwise.div(x, y, **rounding_mode), other)

    def divide_(
        self: Tensor, other: TensorOrScalar, **rounding_mode: str | None
    ) -> Tensor:
        return self.div_(other, **rounding_mode)

    def true_divide_(self: Tensor, other: TensorOrScalar) -> Tensor:
        _pointwise.check_inplace_division(self, other, None)
        return self._inplace(_pointwise.true_divide, other)

    def pow_(self: Tensor, exponent: TensorOrScalar) -> Tensor:
        _common.check_inplace_result(self, exponent)
        return self._inplace(_powers.pow, exponent)

    def neg_(self: Tensor) -> Tensor:
        return self._inplace(_pointwise.neg)

    def exp_(self: Tensor) -> Tensor:
        return self._inplace(_pointwise.exp)

    def sqrt_(self: Tensor) -> Tensor:
        return self._inplace(_powers.sqrt)

    def relu_(self: Tensor) -> Tensor:
        return self._inplace(_pointwise.relu)

    def sign(self: Tensor) -> Tensor:
        return _pointwise.sign(self)

    def sign_(self: Tensor) -> Tensor:
        return self._inplace(_pointwise.sign)

    def true_divide(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _pointwise.true_divide(self, other)

    def divide(
        self: Tensor, other: TensorOrScalar, **rounding_mode: str | None
    ) -> Tensor:
        return _pointwise.divide(self, other, **rounding_mode)

    def multiply(self: Tensor, other: TensorOrScalar) -> Tensor:
        return _pointwise.multiply(self, other)

    def subtract(self: Tensor, other: TensorOrScalar, *, alpha: Scalar = 1) -> Tensor:
        return _pointwise.subtract(self, other, alpha=alpha)

    def nan_to_num(
        self: Tensor,
        nan: builtins.float = 0.0,
        posinf: builtins.float | None = None,
        neginf: builtins.float | None = None,
    ) -> Tensor:
        return _pointwise.nan_to_num(self, nan, posinf, neginf)

    def nan_to_num_(
        self: Tensor,
        nan: builtins.float = 0.0,
        posinf: builtins.float | None = None,
        neginf: builtins.float | None = None,
    ) -> Tensor:
        return self._inplace(_pointwise.nan_to_num, nan, posinf, neginf)

    def log_(self: Tensor) -> Tensor:
        return self._inplace(_pointwise.log)

    def tanh_(self: Tensor) -> Tensor:
        return self._inplace(_pointwise.tanh)

    def sigmoid_(self: Tensor) -> Tensor:
        return self._inplace(_pointwise.sigmoid)

    def reciprocal_(self: Tensor) -> Tensor:
        return self._inplace(_powers.reciprocal)

    def rsqrt_(self: Tensor) -> Tensor:
        return self._inplace(_powers.rsqrt)

    def square_(self: Tensor) -> Tensor:
        return self._inplace(_powers.square)

    def abs_(self: Tensor) -> Tensor:
        return self._inplace(_pointwise.abs)

    # ------------------------------------------------------------------
    # Logarithms and exponentials beyond log and exp (ops/logarithms.py)
    # ------------------------------------------------------------------

    def log1p(self: Tensor) -> Tensor:
        return _logarithms.log1p(self)

    def log1p_(self: Tensor) -> Tensor:
        return self._inplace(_logarithms.log1p)

    def log10(self: Tensor) -> Tensor:
        return _logarithms.log10(self)

    def log10_(self: Tensor) -> Tensor:
        return self._inplace(_logarithms.log10)

    def log2(self: Tensor) -> Tensor:
        return _logarithms.log2(self)

    def log2_(self: Tensor) -> Tensor:
        return self._inplace(_logarithms.log2)

    def exp2(self: Tensor) -> Tensor:
        return _logarithms.exp2(self)

    def exp2_(self: Tensor) -> Tensor:
        return self._inplace(_logarithms.exp2)

    def expm1(self: Tensor) -> Tensor:
        return _logarithms.expm1(self)

    def expm1_(self: Tensor) -> Tensor:
        return self._inplace(_logarithms.expm1)

    # ------------------------------------------------------------------
    # The parts of complex numbers (ops/complex_parts.py)
    # ------------------------------------------------------------------

    @property
    def real(self: Tensor) -> Tensor:
        """The real parts of a complex tensor (a view); the tensor if real."""
        return _complex_parts.real(self)

    @property
    def imag(self: Tensor) -> Tensor:
        """The imaginary parts of a complex tensor (a view)."""
        return _complex_parts.imag(self)

    def conj(self: Tensor) -> Tensor:
        return _complex_parts.conj(self)

    def angle(self: Tensor) -> Tensor:
        return _complex_parts.angle(self)

    # ------------------------------------------------------------------
    # Trigonometry (ops/trigonometry.py)
    # ------------------------------------------------------------------

    def sin(self: Tensor) -> Tensor:
        return _trigonometry.sin(self)

    def sin_(self: Tensor) -> Tensor:
        return self._inplace(_trigonometry.sin)

    def cos(self: Tensor) -> Tensor:
        return _trigonometry.cos(self)

    def cos_(self: Tensor) -> Tensor:
        return self._inplace(_trigonometry.cos)

    def tan(self: Tensor) -> Tensor:
        return _trigonometry.tan(self)

    def tan_(self: Tensor) -> Tensor:
        return self._inplace(_trigonometry.tan)

    def sinc(self: Tensor) -> Tensor:
        return _trigonometry.sinc(self)

    def sinc_(self: Tensor) -> Tensor:
        return self._inplace(_trigonometry.sinc)

    def sinh(self: Tensor) -> Tensor:
        return _trigonometry.sinh(self)

    def sinh_(self: Tensor) -> Tensor:
        return self._inplace(_trigonometry.sinh)

    def cosh(self: Tensor) -> Tensor:
        return _trigonometry.cosh(self)

    def cosh_(self: Tensor) -> Tensor:
        return self._inplace(_trigonometry.cosh)

    def asin(self: Tensor) -> Tensor:
        return _trigonometry.asin(self)

    def asin_(self: Tensor) -> Tensor:
        return self._inplace(_trigonometry.asin)

    def arcsin(self: Tensor) -> Tensor:
        return _trigonometry.asin(self)

    def acos(self: Tensor) -> Tensor:
        return _trigonometry.acos(self)

    def acos_(self: Tensor) -> Tensor:
        return self._inplace(_trigonometry.acos)

    def arccos(self: Tensor) -> Tensor:
        return _trigonometry.acos(self)

    def atan(self: Tensor) -> Tensor:
        return _trigonometry.atan(self)

    def atan_(self: Tensor) -> Tensor:
        return self._inplace(_trigonometry.atan)

    def arctan(self: Tensor) -> Tensor:
        return _trigonometry.atan(self)

    def atan2(self: Tensor, other: Tensor) -> Tensor:
        return _trigonometry.atan2(self, other)

    def atan2_(self: Tensor, other: Tensor) -> Tensor:
        _common.check_tensor("atan2_", other, position=1)
        return self._inplace(_trigonometry.atan2, other)

    def arctan2(self: Tensor, other: Tensor) -> Tensor:
        return _trigonometry.atan2(self, other)

    def hypot(self: Tensor, other: Tensor) -> Tensor:
        return _trigonometry.hypot(self, other)

    def hypot_(self: Tensor, other: Tensor) -> Tensor:
        _common.check_tensor("hypot_", other, position=1)
        return self._inplace(_trigonometry.hypot, other)

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

    # ------------------------------------------------------------------
    # Fused operations that optimisers use (ops/fused.py)
    # ------------------------------------------------------------------

    def addcmul(
        self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Scalar = 1
    ) -> Tensor:
        return _fused.addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(
        self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Scalar = 1
    ) -> Tensor:
        return self._inplace(_fused.addcmul, tensor1, tensor2, value=value)

    def addcdiv(
        self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Scalar = 1
    ) -> Tensor:
        return _fused.addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(
        self: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Scalar = 1
    ) -> Tensor:
        return self._inplace(_fused.addcdiv, tensor1, tensor2, value=value)

    def lerp(self: Tensor, end: Tensor, weight: TensorOrScalar) -> Tensor:
        return _fused.lerp(self, end, weight)

    def lerp_(self: Tensor, end: Tensor, weight: TensorOrScalar) -> Tensor:
        return self._inplace(_fused.lerp, end, weight)
