"""``torch.sparse``: sparse COO tensors, beside the dense core.

Graph networks build a normalised adjacency matrix, mostly zeros, and
multiply it by the node features at every layer. A sparse COO tensor keeps
only the nonzero elements (:mod:`slowtorch_lib.sparse._coo`), and
``torch.sparse.mm`` multiplies it by a dense matrix with gradients to both
(:mod:`slowtorch_lib.sparse._mm`).

Nothing of this is in the dense ``Tensor``'s own files: :func:`install`
gives ``Tensor`` the few methods every tensor has in PyTorch
(``to_sparse``, ``is_sparse``, ``layout``...) and makes ``torch.mm`` and
``torch.matmul`` accept a sparse first argument. The package calls it once.
"""

from __future__ import annotations

import functools
import types
import warnings
from collections.abc import Callable
from typing import Any

from slowtorch_lib._dtype import dtype, float32, float64, int64
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.sparse._coo import (
    SparseTensor,
    apply_to_sparse,
    masked,
    sparse_coo_tensor,
    to_sparse,
)
from slowtorch_lib.sparse._layout import layout, sparse_coo, strided
from slowtorch_lib.sparse._mm import mm, spmm

__all__ = ["DoubleTensor", "FloatTensor", "LongTensor", "mm", "sum"]

# The names the top-level package takes from here (``torch.sparse_coo_tensor``).
TOP_LEVEL = {
    "layout": layout,
    "sparse_coo": sparse_coo,
    "sparse_coo_tensor": sparse_coo_tensor,
    "spmm": spmm,
    "strided": strided,
}


def sum(input: Tensor, dim: Any = None, dtype: dtype | None = None) -> Tensor:
    """The sum of a sparse tensor's elements, a dense 0-d tensor.

    Raises:
        NotImplementedError: For ``dim`` (a sum along dimensions is
            sparse in PyTorch, and not supported by this engine).
    """
    if dim is not None:
        raise NotImplementedError(
            "torch.sparse.sum along dimensions is not supported by this engine"
        )
    if not isinstance(input, SparseTensor):
        return input.sum(dtype=dtype)
    total = apply_to_sparse(Sum, input)
    return total if dtype is None else total.to(dtype)


class Sum(Function):
    """The sum of the stored elements; each one's gradient is the gradient
    of the sum (a coalesced sparse tensor, as PyTorch's)."""

    @staticmethod
    def forward(ctx: FunctionCtx, sparse: SparseTensor) -> Tensor:
        ctx.sparse = sparse
        return sparse._coo_values.sum()

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> SparseTensor:
        sparse = ctx.sparse
        return masked(grad_output.expand(*sparse._shape), sparse, coalesced=True)


class _LegacySparse:
    """``torch.sparse.FloatTensor(indices, values, size)``: the old spelling
    of :func:`sparse_coo_tensor` that older graph code still uses."""

    _dtype: dtype

    def __new__(cls, indices: Tensor, values: Tensor, size: Any = None) -> Any:
        shape = "" if size is None else " shape,"
        warnings.warn(
            f"torch.sparse.SparseTensor(indices, values,{shape} *, device=) is "
            "deprecated.  Please use torch.sparse_coo_tensor(indices, values,"
            f"{shape} dtype=, device=).",
            UserWarning,
            stacklevel=2,
        )
        return sparse_coo_tensor(indices, values, size, dtype=cls._dtype)


class FloatTensor(_LegacySparse):
    _dtype = float32


class DoubleTensor(_LegacySparse):
    _dtype = float64


class LongTensor(_LegacySparse):
    _dtype = int64


# ----------------------------------------------------------------------
# What every tensor has: the dense side of the methods above
# ----------------------------------------------------------------------


def _expects_sparse(name: str) -> Callable[[Tensor], Any]:
    """A dense tensor's ``indices``, ``values``...: PyTorch's refusal."""
    kind = "sparse coordinate tensor" if name != "values" else "sparse tensor"

    def refuse(self: Tensor) -> Any:
        raise RuntimeError(f"{name} expected {kind} layout but got Strided")

    refuse.__name__ = refuse.__qualname__ = name
    return refuse


def _to_dense(self: Tensor, dtype: dtype | None = None) -> Tensor:
    """A dense tensor is already dense: itself (or converted to ``dtype``)."""
    return self if dtype is None else self.to(dtype)


def _sparse_dim(self: Tensor) -> int:
    return 0


def _dense_dim(self: Tensor) -> int:
    return self.dim()


DENSE_METHODS: dict[str, Any] = {
    "to_sparse": to_sparse,
    "to_dense": _to_dense,
    "is_sparse": property(lambda self: False),
    "layout": property(lambda self: strided),
    "indices": _expects_sparse("indices"),
    "values": _expects_sparse("values"),
    "coalesce": _expects_sparse("coalesce"),
    "is_coalesced": _expects_sparse("is_coalesced"),
    "sparse_dim": _sparse_dim,
    "dense_dim": _dense_dim,
}


def _sparse_first(dense_function: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """``torch.mm``/``torch.matmul`` that hand a sparse first argument to
    :func:`spmm` and anything else to the dense function."""

    @functools.wraps(dense_function)
    def function(*args: Any, **kwargs: Any) -> Tensor:
        if len(args) == 2 and not kwargs and isinstance(args[0], SparseTensor):
            return spmm(*args)
        return dense_function(*args, **kwargs)

    return function


def install(package: types.ModuleType, tensor: type[Tensor]) -> None:
    """Adds the sparse names to ``package`` (``torch.sparse_coo_tensor``...),
    makes its ``mm`` and ``matmul`` accept a sparse first argument, and gives
    ``tensor`` the methods of :data:`DENSE_METHODS`."""
    for name, value in TOP_LEVEL.items():
        setattr(package, name, value)
    for name in ("mm", "matmul"):
        setattr(package, name, _sparse_first(getattr(package, name)))
    for name, method in DENSE_METHODS.items():
        setattr(tensor, name, method)
