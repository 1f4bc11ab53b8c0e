"""The parts of complex numbers: ``real``, ``imag``, ``conj``, ``angle``,
``complex`` and ``view_as_real``.

A complex element ``z = x + iy`` is stored as one Python ``complex``
(see :mod:`slowtorch_lib._fidelity.complex_storage`). ``view_as_real(z)``
is a view of its parts, as in PyTorch: it reads the complex storage as two
floats per element (a ``PartsView`` of it), so its
strides are twice ``z``'s, plus 1 for the new last dimension. Writing
into it changes ``z``, and the two share one version counter. ``real``
and ``imag`` are built as PyTorch builds them,
``view_as_real(z).select(-1, 0)``, so they are views too, and their graphs
(``SelectBackward0`` after ``ViewAsRealBackward0``) are PyTorch's.

Gradients follow PyTorch's convention for a real loss ``L``: the gradient
of a complex tensor is ``dL/dx + i dL/dy``. So ``real`` sends a gradient
``g`` back as ``g + 0i``, ``imag`` as ``0 + gi``, and ``conj`` conjugates
it. An operation that is complex-differentiable with derivative ``f'(z)``
sends back ``grad_output * conj(f'(z))``: the backward rules of ``mul``,
``div``, ``exp``... are written as for real numbers and say
``holomorphic = True``, and the autograd engine conjugates for them
(:class:`slowtorch_lib.autograd.function.Function`).
"""

from __future__ import annotations

import math

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._fidelity.complex_storage import parts_of
from slowtorch_lib._fidelity.complex_types import complex32
from slowtorch_lib._strides import broadcast_shapes
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import expanded_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.history import as_view
from slowtorch_lib.ops.common import tensor_input

__all__ = ["angle", "complex", "conj", "imag", "is_complex", "real", "view_as_real"]


def _joined(real: Tensor, imag: Tensor) -> Tensor:
    """``real + i imag`` (broadcast), in the complex type of their dtype."""
    shape = broadcast_shapes(real._shape, imag._shape)
    values = map(
        builtins_complex, expanded_values(real, shape), expanded_values(imag, shape)
    )
    return from_values(list(values), shape, dtypes.COMPLEX_OF[real.dtype])


builtins_complex = complex  # ``complex`` below is the operation


class Conj(Function):
    """``x - iy``: conjugation, its own inverse, so the gradient is conjugated."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        values = [v.conjugate() for v in x._values()]
        return from_values(values, x._shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return conj(grad_output)


class Complex(Function):
    """``real + i imag``. The gradient splits back into its two parts."""

    @staticmethod
    def forward(ctx: FunctionCtx, real: Tensor, imag: Tensor) -> Tensor:
        return _joined(real, imag)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        return real(grad_output), imag(grad_output)


class ViewAsReal(Function):
    """Each element as the pair ``[x, y]``, a view; the gradient pairs join
    again."""

    @staticmethod
    def forward(ctx: FunctionCtx, z: Tensor) -> Tensor:
        shape = z._shape + (2,)
        stride = tuple(2 * step for step in z._stride) + (1,)
        return as_view(z, shape, stride, 2 * z._offset, parts_of(z._storage))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return complex(grad_output.select(-1, 0), grad_output.select(-1, 1))


class Angle(Function):
    """The argument ``atan2(y, x)`` of each element (0 or pi for a real one).

    Derivative, for complex ``z``: the gradient is
    ``grad_output * i z / |z|**2`` (0 at 0); for a real input, 0.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        values = x._values()
        if x.dtype.is_complex:
            angles = [math.atan2(v.imag, v.real) for v in values]
            return from_values(angles, x._shape, dtypes.COMPLEX_PARTS[x.dtype])
        d = x.dtype if x.dtype.is_floating_point else dtypes.get_default_dtype()
        angles = [v if v != v else math.pi if v < 0 else 0.0 for v in values]
        return from_values(angles, x._shape, d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        if not x.dtype.is_complex:
            return grad_output * 0
        squared = abs(x) ** 2
        turned = grad_output * x / squared * 1j
        return turned.masked_fill(squared == 0, 0)


@tensor_input
def real(input: Tensor) -> Tensor:
    """The real parts of a complex tensor (a view); a real tensor itself."""
    if not input.dtype.is_complex:
        return input
    return ViewAsReal.apply(input).select(-1, 0)


@tensor_input
def imag(input: Tensor) -> Tensor:
    """The imaginary parts of a complex tensor (a view).

    Raises:
        RuntimeError: For a real tensor, as in PyTorch.
    """
    if not input.dtype.is_complex:
        raise RuntimeError(
            "imag is not implemented for tensors with non-complex dtypes."
        )
    return ViewAsReal.apply(input).select(-1, 1)


@tensor_input
def conj(input: Tensor) -> Tensor:
    """The complex conjugate; a real tensor itself."""
    if not input.dtype.is_complex:
        return input
    return Conj.apply(input)


@tensor_input
def angle(input: Tensor) -> Tensor:
    """The angle of each element in radians, from -pi to pi."""
    if input.dtype is complex32:
        raise NotImplementedError("\"angle_cpu\" not implemented for 'ComplexHalf'")
    return Angle.apply(input)


def complex(real: Tensor, imag: Tensor) -> Tensor:
    """The complex tensor ``real + i imag`` (broadcast).

    Raises:
        RuntimeError: Unless both are float16, float32 or float64 tensors
            of one dtype, with PyTorch's words.
    """
    parts = (dtypes.float16, dtypes.float32, dtypes.float64)
    if real.dtype not in parts or imag.dtype not in parts:
        raise RuntimeError(
            "Expected both inputs to be Half, Float or Double tensors but got "
            f"{real.dtype.c_name} and {imag.dtype.c_name}"
        )
    if real.dtype is not imag.dtype:
        raise RuntimeError(
            f"Expected object of scalar type {real.dtype.c_name} but got scalar "
            f"type {imag.dtype.c_name} for second argument"
        )
    return Complex.apply(real, imag)


def unit(x: Tensor) -> Tensor:
    """``x / |x|`` (0 at 0): the sign of a real tensor, the direction of a
    complex one. The gradient of ``|x|`` is ``grad_output * unit(x)``."""
    if not x.dtype.is_complex:
        return x.sign()
    modulus = x.detach().abs()
    return (x / modulus).masked_fill(modulus == 0, 0)


def is_complex(input: Tensor) -> bool:
    """Whether the dtype is a complex type."""
    return input.dtype.is_complex


@tensor_input
def view_as_real(input: Tensor) -> Tensor:
    """The parts as a last dimension of size 2: a view of ``input``.

    Raises:
        RuntimeError: For a real tensor, as in PyTorch.
    """
    if not input.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return ViewAsReal.apply(input)
