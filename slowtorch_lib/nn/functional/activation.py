"""Activation functions and softmax: ``relu``, ``gelu``, ``log_softmax``...

Each one that the tensor ops do not already provide is a :class:`Function`
with its forward and backward side by side. The forward runs one loop over
the elements; the backward is written in tensor operations, so that it is
recorded too when ``create_graph=True`` and can be differentiated again.

``relu``, ``tanh`` and ``sigmoid`` are the engine's own pointwise operations
(:mod:`slowtorch_lib.ops.pointwise`); they are re-exported here, as in torch.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._strides import normalize_dim, numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import check_loop, unary
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops import pointwise
from slowtorch_lib.ops.common import not_implemented
from slowtorch_lib.ops.pointwise import sigmoid, tanh
from slowtorch_lib.ops.selecting import where

__all__ = [
    "elu",
    "gelu",
    "leaky_relu",
    "log_softmax",
    "relu",
    "sigmoid",
    "silu",
    "softmax",
    "tanh",
]


def _check_floating(x: Tensor, kernel: str) -> None:
    """PyTorch's error for an activation given an integer or bool tensor, or
    a floating type that has no such loop (an 8-bit float)."""
    if not x.dtype.is_floating_point:
        raise not_implemented(kernel, x.dtype)
    check_loop(kernel, x.dtype)


# ----------------------------------------------------------------------
# ReLU and its relatives
# ----------------------------------------------------------------------


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` (``ReluBackward0``)."""
    if inplace:
        return input._inplace(pointwise.relu)
    return pointwise.relu(input)


class LeakyRelu(Function):
    """``x`` where ``x > 0``, else ``negative_slope * x``.

    Derivative: 1 where x > 0, else negative_slope.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, negative_slope: float) -> Tensor:
        _check_floating(x, "leaky_relu_cpu")
        ctx.save_for_backward(x)
        ctx.negative_slope = negative_slope
        return unary(lambda v: v if v > 0 else v * negative_slope, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return where(x > 0, grad_output, grad_output * ctx.negative_slope)


class LeakyReluInplace(LeakyRelu):
    """``leaky_relu(x, inplace=True)``: PyTorch names it ``LeakyReluBackward1``."""

    grad_fn_name = "LeakyReluBackward1"


def leaky_relu(
    input: Tensor, negative_slope: float = 0.01, inplace: bool = False
) -> Tensor:
    """``input`` where positive, else ``negative_slope * input``."""
    if inplace:
        return input._inplace(
            lambda x: LeakyReluInplace.apply(x, negative_slope=negative_slope)
        )
    return LeakyRelu.apply(input, negative_slope=negative_slope)


class Elu(Function):
    """``x`` where ``x > 0``, else ``alpha * (e^x - 1)``.

    Derivative: 1 where x > 0, else alpha * e^x, which is result + alpha.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, alpha: float) -> Tensor:
        _check_floating(x, "elu_cpu")
        ctx.alpha = alpha
        result = unary(lambda v: v if v > 0 else alpha * math.expm1(v), x)
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        x, result = ctx.saved_tensors
        return where(x > 0, grad_output, grad_output * (result + ctx.alpha))


class EluInplace(Elu):
    """``elu(x, inplace=True)``: PyTorch names it ``EluBackward1``."""

    grad_fn_name = "EluBackward1"


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """The exponential linear unit: ``alpha * (e^x - 1)`` below 0."""
    if inplace:
        return input._inplace(lambda x: EluInplace.apply(x, alpha=alpha))
    return Elu.apply(input, alpha=alpha)


class Silu(Function):
    """``x * sigmoid(x)`` (also called swish).

    Derivative: s * (1 + x * (1 - s)), with s = sigmoid(x).
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        _check_floating(x, "silu_cpu")
        ctx.save_for_backward(x)
        return unary(_silu_scalar, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        s = sigmoid(x)
        return grad_output * (s * (1 + x * (1 - s)))


def _silu_scalar(x: float) -> float:
    if x >= 0:
        return x / (1.0 + math.exp(-x))
    z = math.exp(x)  # no overflow for very negative x
    return x * z / (1.0 + z)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``input * sigmoid(input)``."""
    if inplace:
        return input._inplace(Silu.apply)
    return Silu.apply(input)


# ----------------------------------------------------------------------
# GELU
# ----------------------------------------------------------------------

SQRT_HALF = math.sqrt(0.5)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
TANH_SCALE = math.sqrt(2.0 / math.pi)  # the k in tanh(k (x + c x^3))
TANH_CUBIC = 0.044715  # the c


def _gelu_exact(x: float) -> float:
    """``x * Phi(x)``, with ``Phi`` the standard normal distribution function."""
    return 0.5 * x * (1.0 + math.erf(x * SQRT_HALF))


def _gelu_exact_slope(x: float) -> float:
    """``Phi(x) + x * phi(x)``, the derivative of ``x * Phi(x)``."""
    cdf = 0.5 * (1.0 + math.erf(x * SQRT_HALF))
    return cdf + x * math.exp(-0.5 * x * x) * INV_SQRT_2PI


def _gelu_tanh(x: float) -> float:
    """The tanh approximation ``x/2 * (1 + tanh(k (x + c x^3)))``."""
    return 0.5 * x * (1.0 + math.tanh(TANH_SCALE * (x + TANH_CUBIC * x * x * x)))


def _gelu_tanh_slope(x: float) -> float:
    """The derivative of :func:`_gelu_tanh`."""
    t = math.tanh(TANH_SCALE * (x + TANH_CUBIC * x * x * x))
    inner_slope = TANH_SCALE * (1.0 + 3.0 * TANH_CUBIC * x * x)
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * inner_slope


GELU_KERNELS = {
    "none": (_gelu_exact, _gelu_exact_slope),
    "tanh": (_gelu_tanh, _gelu_tanh_slope),
}


class Gelu(Function):
    """The Gaussian error linear unit, ``x * Phi(x)``, or its tanh approximation.

    ``Phi`` is the standard normal distribution function and ``phi`` its
    density. Derivative: Phi(x) + x * phi(x).

    The backward is itself a :class:`GeluBackward` operation, so that it can
    be differentiated again.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, approximate: str) -> Tensor:
        _check_floating(x, "GeluKernelImpl")
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        return unary(GELU_KERNELS[approximate][0], x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return GeluBackward.apply(grad_output, x, approximate=ctx.approximate)


class GeluBackward(Function):
    """``grad_output * gelu'(x)``: the backward of :class:`Gelu` as an operation.

    Its own gradients: ``gelu'(x)`` for ``grad_output``, and
    ``grad_output * gelu''(x)`` for ``x``, where for the exact GELU
    gelu''(x) = phi(x) * (2 - x^2).
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, grad_output: Tensor, x: Tensor, *, approximate: str
    ) -> Tensor:
        ctx.save_for_backward(grad_output, x)
        ctx.approximate = approximate
        return grad_output * unary(GELU_KERNELS[approximate][1], x)

    @staticmethod
    def backward(ctx: FunctionCtx, gg: Tensor) -> tuple[Any, Any]:
        grad_output, x = ctx.saved_tensors
        grad_grad = GeluBackward.apply(gg, x, approximate=ctx.approximate)
        return grad_grad, gg * grad_output * _gelu_curvature(x, ctx.approximate)


def _gelu_curvature(x: Tensor, approximate: str) -> Tensor:
    """The second derivative of GELU, in tensor operations."""
    if approximate == "none":
        return (x * x * -0.5).exp() * (2 - x * x) * INV_SQRT_2PI
    # With u = k (x + c x^3) and t = tanh(u):
    # gelu'' = (1 - t^2) (u' - x t u'^2 + 3 k c x^2), where u' = k (1 + 3 c x^2).
    t = (TANH_SCALE * (x + TANH_CUBIC * x * x * x)).tanh()
    inner_slope = TANH_SCALE * (1 + 3 * TANH_CUBIC * x * x)
    cubic = 3 * TANH_SCALE * TANH_CUBIC * x * x
    return (1 - t * t) * (inner_slope - x * t * inner_slope * inner_slope + cubic)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``input * Phi(input)``; ``approximate='tanh'`` uses the tanh formula.

    Raises:
        RuntimeError: If ``approximate`` is neither ``'none'`` nor ``'tanh'``.
    """
    if approximate not in GELU_KERNELS:
        raise RuntimeError("approximate argument must be either none or tanh.")
    return Gelu.apply(input, approximate=approximate)


# ----------------------------------------------------------------------
# Softmax and log-softmax
# ----------------------------------------------------------------------


def _log_softmax_row(row: list[float]) -> list[float]:
    """``x - log(sum(exp(x)))`` for one row, without overflow.

    Subtracting the largest element first makes every exponent at most 0:
    ``log(sum(exp(x))) = m + log(sum(exp(x - m)))``. Logits of 1000 give
    ``exp(0)`` instead of ``exp(1000) = inf``.
    """
    largest = max(row)
    shifted = [v - largest for v in row]
    log_total = math.log(sum(map(math.exp, shifted)))
    return [s - log_total for s in shifted]


def _softmax_row(row: list[float]) -> list[float]:
    """``exp(x) / sum(exp(x))`` for one row, shifted by the largest element."""
    largest = max(row)
    exps = [math.exp(v - largest) for v in row]
    total = sum(exps)
    return [e / total for e in exps]


def _map_rows(row_function: Any, x: Tensor, dim: int) -> Tensor:
    """Applies ``row_function`` to every row of ``x`` along ``dim``.

    In row-major order the elements of one row along ``dim`` are ``inner``
    apart (``inner`` is the product of the sizes after ``dim``), so each row
    is one slice with step ``inner``, read and written back in place.
    """
    values = x._values()
    size = x._shape[dim] if x._shape else 1
    if not values or size == 0:
        return from_values(values, x._shape, x.dtype)
    inner = numel(x._shape[dim + 1 :])
    block = size * inner
    if inner == 1:
        out: list[float] = []
        for start in range(0, len(values), block):
            out.extend(row_function(values[start : start + block]))
        return from_values(out, x._shape, x.dtype)
    out = [0.0] * len(values)
    for start in range(0, len(values), block):
        for i in range(start, start + inner):
            out[i : start + block : inner] = row_function(
                values[i : start + block : inner]
            )
    return from_values(out, x._shape, x.dtype)


class Softmax(Function):
    """``exp(x) / sum(exp(x))`` along ``dim``.

    Gradient: y * (G - sum(G * y)), the sum along ``dim``, where ``y`` is
    the result and ``G`` the gradient of the result. ``row`` computes the
    softmax of one row (attention's softmax brings its own).
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, dim: int, row: Any = _softmax_row
    ) -> Tensor:
        _check_floating(x, "softmax_lastdim_kernel_impl")
        ctx.dim = dim
        result = _map_rows(row, x, dim)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        weighted = (grad_output * result).sum(ctx.dim, keepdim=True)
        return result * (grad_output - weighted)


class LogSoftmax(Function):
    """``x - log(sum(exp(x)))`` along ``dim``, computed without overflow.

    Gradient: G - exp(y) * sum(G), the sum along ``dim``, where ``y`` is
    the result (so ``exp(y)`` is the softmax) and ``G`` its gradient.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dim: int) -> Tensor:
        _check_floating(x, "log_softmax_lastdim_kernel_impl")
        ctx.dim = dim
        result = _map_rows(_log_softmax_row, x, dim)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output - result.exp() * grad_output.sum(ctx.dim, keepdim=True)


def _softmax_dim(name: str, ndim: int, dim: int | None) -> int:
    """The dimension to normalize; ``None`` picks one as PyTorch used to."""
    if dim is None:
        dim = 0 if ndim in (0, 1, 3) else 1
        warnings.warn(
            f"Implicit dimension choice for {name} has been deprecated. Change "
            "the call to include dim=X as an argument.",
            UserWarning,
            stacklevel=3,
        )
    return normalize_dim(dim, ndim)


def _with_dtype(input: Tensor, dtype: dtype | None) -> Tensor:
    return input if dtype is None or dtype is input.dtype else input.to(dtype)


def softmax(
    input: Tensor,
    dim: int | None = None,
    _stacklevel: int = 3,
    dtype: dtypes.dtype | None = None,
) -> Tensor:
    """``exp(input) / sum(exp(input))`` along ``dim``: each row sums to 1.

    Args:
        input: The scores (logits).
        dim: The dimension whose entries are normalized.
        dtype: If given, ``input`` is first converted to it.
    """
    dtype = dtypes.dtype_arg(dtype, "softmax")
    input = _with_dtype(input, dtype)
    return Softmax.apply(input, dim=_softmax_dim("softmax", input.dim(), dim))


def log_softmax(
    input: Tensor,
    dim: int | None = None,
    _stacklevel: int = 3,
    dtype: dtypes.dtype | None = None,
) -> Tensor:
    """``log(softmax(input))`` along ``dim``, finite even for logits like 1000."""
    dtype = dtypes.dtype_arg(dtype, "log_softmax")
    input = _with_dtype(input, dtype)
    dim = _softmax_dim("log_softmax", input.dim(), dim)
    return LogSoftmax.apply(input, dim=dim)
