"""The product of a sparse matrix and a dense one: ``torch.sparse.mm``.

``S @ X``, for ``S`` sparse ``(n, m)`` and ``X`` dense ``(m, p)``, visits
only the stored elements: each ``v`` at ``(i, j)`` adds ``v * X[j]`` to row
``i`` of the result, which is dense. The gradients, for a loss ``L`` and
``G = dL/d(S @ X)``:

* ``dL/dX = S^T @ G``, a sparse product again;
* ``dL/dS = G @ X^T`` at the coordinates ``S`` stores, and nowhere else:
  a sparse gradient, as PyTorch gives a sparse tensor that requires grad.

A sparse leaf collects its sparse gradients with
:class:`~slowtorch_lib.sparse._coo.SparseAccumulateGrad`.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.sparse._coo import SparseTensor, apply_to_sparse, masked

__all__ = ["mm", "spmm"]


class SparseAddmm(Function):
    """``sparse @ dense`` (``grad_fn`` ``SparseAddmmBackward0``)."""

    @staticmethod
    def forward(ctx: FunctionCtx, sparse: SparseTensor, dense: Tensor) -> Tensor:
        ctx.sparse = sparse
        ctx.save_for_backward(dense)
        return product(sparse, dense)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        sparse: SparseTensor = ctx.sparse
        (dense,) = ctx.saved_tensors
        grad_sparse = grad_dense = None
        if ctx.needs_input_grad[0]:
            grad_sparse = masked(grad_output.mm(dense.t()), sparse)
        if ctx.needs_input_grad[1]:
            grad_dense = SparseAddmm.apply(transposed(sparse), grad_output)
        return grad_sparse, grad_dense


class Mm(SparseAddmm):
    """The same product reached by ``torch.mm``, ``spmm`` or ``@``
    (``grad_fn`` ``MmBackward0``). As in PyTorch, this rule gives the
    sparse input the whole dense gradient ``G @ X^T``."""

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any]:
        (dense,) = ctx.saved_tensors
        grad_sparse = grad_dense = None
        if ctx.needs_input_grad[0]:
            grad_sparse = grad_output.mm(dense.t())
        if ctx.needs_input_grad[1]:
            grad_dense = Mm.apply(transposed(ctx.sparse), grad_output)
        return grad_sparse, grad_dense


class T(Function):
    """The transpose of a sparse matrix (``grad_fn`` ``TBackward0``): the
    gradient is transposed back, sparse or dense as it comes."""

    @staticmethod
    def forward(ctx: FunctionCtx, sparse: SparseTensor) -> SparseTensor:
        return transposed(sparse)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        if isinstance(grad_output, SparseTensor):
            return transposed(grad_output)
        return grad_output.t()


def t(input: SparseTensor) -> SparseTensor:
    """The transpose of a sparse matrix.

    Raises:
        NotImplementedError: For a sparse tensor of more than 2 dimensions.
    """
    if input.dim() > 2:
        raise NotImplementedError(
            "t() of a sparse tensor of more than 2 dimensions is not supported "
            "by this engine"
        )
    if input.dim() < 2:
        return input
    return apply_to_sparse(T, input)


def product(sparse: SparseTensor, dense: Tensor) -> Tensor:
    """``sparse @ dense``: each stored ``v`` at ``(i, j)`` adds ``v * dense[j]``
    to row ``i`` (computed without recording a graph)."""
    rows, columns = sparse._coo_indices._values(), sparse._coo_values._values()
    nnz = len(columns)
    n, width = sparse._shape[0], dense._shape[1]
    cells = dense._values()
    result: list[Any] = [0] * (n * width)
    for i, j, value in zip(rows[:nnz], rows[nnz:], columns):
        for k in range(width):
            result[i * width + k] += value * cells[j * width + k]
    return from_values(result, (n, width), dense.dtype)


def transposed(sparse: SparseTensor) -> SparseTensor:
    """The transpose of a sparse matrix: its two rows of indices swapped."""
    indices = sparse._coo_indices.flip(0)
    size = (sparse._shape[1], sparse._shape[0])
    return SparseTensor._from_parts(indices, sparse._coo_values, size, False)


def check_operands(sparse: Tensor, dense: Tensor) -> None:
    """Refuses what PyTorch's sparse ``addmm`` refuses.

    Raises:
        RuntimeError: For a sparse tensor that is not a matrix, dtypes that
            differ or sizes that do not chain.
        IndexError: For a dense operand of fewer than 2 dimensions.
        NotImplementedError: For a second operand that is sparse, which
            this engine does not multiply.
    """
    if isinstance(dense, SparseTensor):
        raise NotImplementedError(
            "the product of two sparse tensors is not supported by this engine"
        )
    if sparse.dim() != 2:
        raise RuntimeError(f"addmm: matrices expected, got {sparse.dim()}D tensor")
    if dense.dim() < 2:
        raise IndexError(
            "Dimension out of range (expected to be in range of "
            f"[{-max(dense.dim(), 1)}, {max(dense.dim(), 1) - 1}], but got 1)"
        )
    if dense.dim() != 2:
        raise RuntimeError(f"addmm: matrices expected, got {dense.dim()}D tensor")
    if sparse.dtype is not dense.dtype:
        raise RuntimeError(
            f"expected scalar type {sparse.dtype.c_name} but found {dense.dtype.c_name}"
        )
    if dense._shape[0] != sparse._shape[1]:
        raise RuntimeError(
            "addmm: Argument #3 (dense): Expected dim 0 size "
            f"{sparse._shape[1]}, got {dense._shape[0]}"
        )


def mm(mat1: Tensor, mat2: Tensor) -> Tensor:
    """``mat1 @ mat2`` for a sparse COO ``mat1`` and a dense ``mat2``.

    Gradients flow to ``mat2`` and, as a sparse tensor, to ``mat1``. Two
    dense matrices are multiplied by :func:`torch.mm`.
    """
    if not isinstance(mat1, SparseTensor):
        if isinstance(mat2, SparseTensor):
            raise NotImplementedError(
                "torch.sparse.mm with a dense first argument and a sparse "
                "second one is not supported by this engine"
            )
        return mat1.mm(mat2)
    check_operands(mat1, mat2)
    return apply_to_sparse(SparseAddmm, mat1, mat2)


def spmm(input: Tensor, mat2: Tensor) -> Tensor:
    """``torch.mm`` with a sparse first argument (``grad_fn`` ``MmBackward0``)."""
    if not isinstance(input, SparseTensor):
        return input.mm(mat2)
    check_operands(input, mat2)
    return apply_to_sparse(Mm, input, mat2)


# A sparse tensor's own products (the dense ones are methods of Tensor).
SparseTensor.mm = spmm  # type: ignore[method-assign, assignment]
SparseTensor.matmul = spmm  # type: ignore[method-assign, assignment]
SparseTensor.__matmul__ = spmm  # type: ignore[method-assign, assignment]
SparseTensor.t = t  # type: ignore[method-assign, assignment]
