"""Matrix products: ``mm``, ``bmm``, ``mv``, ``dot`` and ``matmul``, which picks one.

The kernel is the textbook triple loop with its inner loop handed to C:
each output element is the dot product of a row and a column, with the
columns of the right matrix gathered once beforehand. The dot product is
``math.sumprod(row, column)`` where the interpreter has it (Python 3.12+,
which the browser's Pyodide is), one C loop; otherwise
``sum(map(mul, row, column))``, two loops in C and a Python float between
them for every product.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from operator import add, mul
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._strides import broadcast_shapes, numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import check_loop, expanded_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops import pointwise
from slowtorch_lib.ops.autocast import lower_precision
from slowtorch_lib.ops.common import (
    EXACT,
    accepts_out,
    check_tensor,
    not_implemented,
    result_type,
    tensor_input,
)
from slowtorch_lib.ops.statistics import vector_norm as vector_norm  # linalg's
from slowtorch_lib.ops.views import UnsafeView, expand, reshape, squeeze

__all__ = ["bmm", "dot", "matmul", "mm", "mv", "outer"]


def sum_of_products(left: Sequence[Any], right: Sequence[Any]) -> Any:
    """``left[0] * right[0] + left[1] * right[1] + ...`` (Python before 3.12)."""
    return sum(map(mul, left, right))


# The inner loop of every product below. math.sumprod also sums more
# accurately (its float32 results agree with PyTorch's as well or better).
dot_product: Callable[[Sequence[Any], Sequence[Any]], Any] = getattr(
    math, "sumprod", sum_of_products
)


def matrix_product(
    left: list[Any], right_t: list[Any], n: int, k: int, m: int
) -> list[Any]:
    """Row-major ``(n, k) @ (k, m)`` with the right matrix given transposed.

    Args:
        left: The ``n * k`` elements of the left matrix, row by row.
        right_t: The ``m * k`` elements of the right matrix's transpose,
            so that each column of the right matrix is one contiguous run.
        n: Rows of the result.
        k: The shared dimension.
        m: Columns of the result.
    """
    if k == 0:  # empty sums
        return [0] * (n * m)
    rows = [left[i : i + k] for i in range(0, n * k, k)]
    columns = [right_t[j : j + k] for j in range(0, m * k, k)]
    dot = dot_product
    if dot is sum_of_products:  # inlined: a call per element would cost more
        return [sum(map(mul, row, column)) for row in rows for column in columns]
    return [dot(row, column) for row in rows for column in columns]


# The kernel each product's message names when it has no loop for a dtype.
BOOL_KERNELS = {
    "mm": "addmm_impl_cpu_",
    "mv": "addmv_impl_cpu",
    "dot": "dot",
    "bmm": "bmm",
}


def _check_same_dtype(a: Tensor, b: Tensor, op: str = "mm") -> None:
    """Matrix products do not promote: both operands must have one dtype.

    The message names the dtypes the way PyTorch's message for ``op`` does.
    """
    if a.dtype is b.dtype:
        # No loop for bools; an empty product never reaches it (except dot).
        empty = a.numel() == 0 or b.numel() == 0
        if a.dtype is dtypes.bool_ and (op == "dot" or not empty):
            raise not_implemented(BOOL_KERNELS[op], a.dtype)
        check_loop(BOOL_KERNELS[op], a.dtype, ("float8",), a.numel() * b.numel())
        return
    first, second = a.dtype.c_name, b.dtype.c_name
    if op == "mm":
        message = (
            f"expected m1 and m2 to have the same dtype, but got: "
            f"{a.dtype.cpp_type_name} != {b.dtype.cpp_type_name}"
        )
    elif op == "bmm":
        message = f"expected scalar type {first} but found {second}"
    elif op == "mv":
        message = (
            f"addmv input tensors must have the same dtype, but got {second}, "
            f"{first}, and {second}"
        )
    else:
        message = (
            "dot : expected both vectors to have same dtype, but found "
            f"{first} and {second}"
        )
    raise RuntimeError(message)


def _elements(tensor: Tensor) -> list[Any]:
    """The row-major elements; quick for a gradient that is one value expanded."""
    return expanded_values(tensor, tensor._shape)


def _product(a: Tensor, b: Tensor) -> Tensor:
    """The values of ``a @ b`` for two matrices (no graph)."""
    n, k = a._shape
    m = b._shape[1]
    d = result_type(a, b)
    right_t = _elements(b.t())
    values = matrix_product(_elements(a), right_t, n, k, m)
    return from_values(values, (n, m), d)


class Mm(Function):
    """Matrix product of ``(n, k)`` and ``(k, m)`` matrices: ``A @ B``.

    With ``G`` the gradient of the product, the gradient of ``A`` is
    ``G @ B.T`` and that of ``B`` is ``A.T @ G``.
    """

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, b: Tensor) -> Tensor:
        if a.dim() != 2 or b.dim() != 2:
            bad = a if a.dim() != 2 else b
            raise RuntimeError(f"{'self' if bad is a else 'mat2'} must be a matrix")
        if a._shape[1] != b._shape[0]:
            raise RuntimeError(
                "mat1 and mat2 shapes cannot be multiplied "
                f"({a._shape[0]}x{a._shape[1]} "
                f"and {b._shape[0]}x{b._shape[1]})"
            )
        _check_same_dtype(a, b)
        ctx.save_for_backward(
            a if ctx.needs_input_grad[1] else None,
            b if ctx.needs_input_grad[0] else None,
        )
        return _product(a, b)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        a, b = ctx.saved_tensors
        grad_a = grad_output.mm(b.t()) if ctx.needs_input_grad[0] else None
        grad_b = a.t().mm(grad_output) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Bmm(Function):
    r"""A batch of matrix products: ``(b, n, k) @ (b, k, m)``.

    The gradients are those of :class:`Mm`, one batch element at a time.
    """

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, b: Tensor) -> Tensor:
        if a.dim() != 3 or b.dim() != 3:
            raise RuntimeError(
                "batch1 must be a 3D tensor"
                if a.dim() != 3
                else "batch2 must be a 3D tensor"
            )
        batch, n, k = a._shape
        if b._shape[0] != batch or b._shape[1] != k:
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: "
                f"[{batch}, {k}] but got: [{b._shape[0]}, {b._shape[1]}]."
            )
        _check_same_dtype(a, b, "bmm")
        ctx.save_for_backward(a, b)
        m = b._shape[2]
        left = _elements(a)
        right_t = _elements(b.transpose(1, 2))
        values: list[Any] = []
        for i in range(batch):
            values.extend(
                matrix_product(
                    left[i * n * k : (i + 1) * n * k],
                    right_t[i * m * k : (i + 1) * m * k],
                    n,
                    k,
                    m,
                )
            )
        return from_values(values, (batch, n, m), result_type(a, b))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        a, b = ctx.saved_tensors
        grad_a = grad_output.bmm(b.transpose(1, 2)) if ctx.needs_input_grad[0] else None
        grad_b = a.transpose(1, 2).bmm(grad_output) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class Mv(Function):
    r"""Matrix times vector: ``(n, k) @ (k,)``.

    Gradients, for the gradient g of the result: dL/dA = outer(g, v),
    dL/dv = A.T @ g.
    """

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, v: Tensor) -> Tensor:
        if a.dim() != 2 or v.dim() != 1:
            raise RuntimeError(
                f"vector + matrix @ vector expected, got 1, {a.dim()}, {v.dim()}"
            )
        n, k = a._shape
        if v._shape[0] != k:
            raise RuntimeError(
                f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({v._shape[0]})"
            )
        _check_same_dtype(a, v, "mv")
        ctx.save_for_backward(a, v)
        values = matrix_product(_elements(a), _elements(v), n, k, 1)
        return from_values(values, (n,), result_type(a, v))

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        a, v = ctx.saved_tensors
        grad_a = (
            grad_output.unsqueeze(1).mm(v.unsqueeze(0))
            if ctx.needs_input_grad[0]
            else None
        )
        grad_v = a.t().mv(grad_output) if ctx.needs_input_grad[1] else None
        return grad_a, grad_v


class Dot(Function):
    """Dot product of two vectors. Derivatives: d/da = b, d/db = a."""

    holomorphic = True

    @staticmethod
    def forward(ctx: FunctionCtx, a: Tensor, b: Tensor) -> Tensor:
        if a.dim() != 1 or b.dim() != 1:
            raise RuntimeError(
                f"1D tensors expected, but got {a.dim()}D and {b.dim()}D tensors"
            )
        if a._shape[0] != b._shape[0]:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{a._shape[0]}] and src "
                f"[{b._shape[0]}] to have the same number of elements, but got "
                f"{a._shape[0]} and {b._shape[0]} elements respectively"
            )
        _check_same_dtype(a, b, "dot")
        ctx.save_for_backward(a, b)
        d = result_type(a, b)
        total = dot_product(_elements(a), _elements(b)) if a._shape[0] else 0
        return from_values([total], (), d)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        a, b = ctx.saved_tensors
        grad_a = grad_output * b if ctx.needs_input_grad[0] else None
        grad_b = grad_output * a if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


@lower_precision
@accepts_out(dtype_refusal=EXACT)
@tensor_input
def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """The matrix product of two 2-d tensors."""
    return Mm.apply(input, mat2)


@lower_precision
@accepts_out(dtype_refusal=EXACT)
@tensor_input
def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Matrix products of two batches of matrices (3-d tensors)."""
    return Bmm.apply(input, mat2)


@accepts_out(dtype_refusal=EXACT)
@tensor_input
def mv(input: Tensor, vec: Tensor) -> Tensor:
    """A matrix times a vector."""
    return Mv.apply(input, vec)


@accepts_out(dtype_refusal=EXACT)
@tensor_input
def dot(input: Tensor, other: Tensor) -> Tensor:
    """The dot product of two vectors."""
    return Dot.apply(input, other)


@accepts_out
@tensor_input
def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two vectors: ``out[i][j] = input[i] * vec2[j]``.

    Written as PyTorch writes it, a column times a row, so the graph is
    the same: ``MulBackward0`` after ``ViewBackward0``, and the operands
    promote as in a product.

    Raises:
        RuntimeError: If either operand is not 1-d.
    """
    if not isinstance(vec2, Tensor):
        raise TypeError(
            f"outer(): argument 'vec2' (position 2) must be Tensor, not "
            f"{type(vec2).__name__}"
        )
    for name, vector in (("self", input), ("vec2", vec2)):
        if vector.dim() != 1:
            raise RuntimeError(
                f"outer: Expected 1-D argument {name}, but got {vector.dim()}-D"
            )
    return pointwise.mul(reshape(input, (-1, 1)), vec2)


class SqueezeAfterMatmul(Function):
    """Removes the 1 that a vector on the left became (``SqueezeBackward4``)."""

    grad_fn_name = "SqueezeBackward4"

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, *, dim: int) -> Tensor:
        ctx.dim = dim
        return squeeze(x, dim)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return grad_output.unsqueeze(ctx.dim)


@lower_precision
@accepts_out(dtype_refusal=EXACT)
@tensor_input
def matmul(input: Tensor, other: Tensor) -> Tensor:
    """The matrix product, for every combination of dimensions PyTorch accepts.

    * 1-d @ 1-d: the dot product.
    * 2-d @ 2-d: :func:`mm`. 2-d @ 1-d: :func:`mv`.
    * 1-d @ 2-d: the vector becomes a ``(1, k)`` matrix, then the 1 is removed.
    * Otherwise the leading (batch) dimensions broadcast, and matrices are
      multiplied pairwise with :func:`bmm`.

    Raises:
        RuntimeError: If either operand is 0-d or the shapes do not fit.
    """
    check_tensor("matmul", other)
    da, db = input.dim(), other.dim()
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D "
            f"and {db}D"
        )
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 2:
        return mm(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        return SqueezeAfterMatmul.apply(mm(input.unsqueeze(0), other), dim=0)
    return _batched_matmul(input, other)


def _batched_matmul(input: Tensor, other: Tensor) -> Tensor:
    """``matmul`` with batch dimensions (at least one operand is 3-d or more).

    Three cases, in the order PyTorch tries them:

    * ``input`` is 3-d or more and ``other`` a matrix or vector: the batch
      dimensions of ``input`` are folded into its rows, so one :func:`mm`
      (or :func:`mv`) does all the work, and the result is unfolded.
    * ``input`` is a matrix or vector and ``other`` 3-d or more: transposing
      both turns this into the first case.
    * Both are 3-d or more: the batch dimensions broadcast, both are
      expanded and flattened to one batch dimension, and :func:`bmm` runs.
    """
    da, db = input.dim(), other.dim()
    if db <= 2:
        *batch, n, k = input._shape
        rows = reshape(input, (numel(batch) * n, k))  # not -1: k may be 0
        if db == 2:
            folded = mm(rows, other)
            shape = (*batch, n, other._shape[1])
        else:
            folded = mv(rows, other)
            shape = (*batch, n)
        return UnsafeView.apply(folded, shape=shape)
    if da <= 2:
        if input._shape[-1] != other._shape[-2]:
            batch_count = 1
            for size in other._shape[:-2]:
                batch_count *= size
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: "
                f"[{batch_count}, {input._shape[-1]}] but got: "
                f"[{batch_count}, {other._shape[-2]}]."
            )
        if da == 1:
            return matmul(other.mT, input)
        return matmul(other.mT, input.mT).mT.contiguous()
    *batch_a, n, k = input._shape
    *batch_b, k_b, m = other._shape
    batch_shape = broadcast_shapes(batch_a, batch_b)
    count = 1
    for size in batch_shape:
        count *= size
    left = reshape(expand(input, (*batch_shape, n, k)), (count, n, k))
    right = reshape(expand(other, (*batch_shape, k_b, m)), (count, k_b, m))
    return UnsafeView.apply(bmm(left, right), shape=(*batch_shape, n, m))


# ----------------------------------------------------------------------
# addmm: a matrix product plus a bias, in one pass (added for nn.Linear)
# ----------------------------------------------------------------------


def _check_addmm(bias: Tensor, m1: Tensor, m2: Tensor) -> tuple[int, int, int]:
    """Checks the operands of ``addmm``; returns the sizes ``n, k, m``."""
    for name, matrix in (("mat1", m1), ("mat2", m2)):
        if matrix.dim() != 2:
            raise RuntimeError(f"{name} must be a matrix, got {matrix.dim()}-D tensor")
    n, k = m1._shape
    k2, m = m2._shape
    if k != k2:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{m})"
        )
    _check_same_dtype(m1, m2)
    if bias.dtype is not m1.dtype:
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got "
            f"{bias.type()[6:-6]} and {m2.type()[6:-6]}"
        )

    expand(bias, (n, m))  # raises PyTorch's error if bias does not broadcast
    return n, k, m


class Addmm(Function):
    """``beta * bias + alpha * (m1 @ m2)``, the bias broadcast to ``(n, m)``.

    This is what ``nn.Linear`` runs on a batch: ``addmm(b, x, W.t())``.

    Gradients, for ``G`` the gradient of the result: beta * G for the bias
    (which the engine sums back to the bias's shape), alpha * G @ m2.T for
    ``m1`` and alpha * m1.T @ G for ``m2``.
    """

    holomorphic = True

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        bias: Tensor,
        m1: Tensor,
        m2: Tensor,
        *,
        beta: Any = 1,
        alpha: Any = 1,
    ) -> Tensor:
        n, k, m = _check_addmm(bias, m1, m2)
        ctx.beta, ctx.alpha = beta, alpha
        ctx.save_for_backward(
            m1 if ctx.needs_input_grad[2] else None,
            m2 if ctx.needs_input_grad[1] else None,
        )
        products = matrix_product(_elements(m1), _elements(m2.t()), n, k, m)
        if alpha != 1:
            products = [alpha * p for p in products]
        if beta == 0:  # the bias is ignored, even its nan and inf
            return from_values(products, (n, m), m1.dtype)
        if bias._shape == (m,) and bias.is_contiguous():
            offsets = bias._values() * n  # one row of bias per row of the result
        else:
            offsets = expanded_values(bias, (n, m))
        if beta != 1:
            offsets = [beta * b for b in offsets]
        return from_values(list(map(add, products, offsets)), (n, m), m1.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any, Any]:
        m1, m2 = ctx.saved_tensors
        grad_bias = grad_m1 = grad_m2 = None
        if ctx.needs_input_grad[0]:
            grad_bias = grad_output if ctx.beta == 1 else grad_output * ctx.beta
        if ctx.needs_input_grad[1]:
            grad_m1 = grad_output.mm(m2.t())
            grad_m1 = grad_m1 if ctx.alpha == 1 else grad_m1 * ctx.alpha
        if ctx.needs_input_grad[2]:
            grad_m2 = m1.t().mm(grad_output)
            grad_m2 = grad_m2 if ctx.alpha == 1 else grad_m2 * ctx.alpha
        return grad_bias, grad_m1, grad_m2


@lower_precision
@accepts_out
def addmm(
    input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1
) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts."""
    return Addmm.apply(input, mat1, mat2, beta=beta, alpha=alpha)


__all__ += ["addmm"]
