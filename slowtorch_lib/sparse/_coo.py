"""Sparse COO tensors: the nonzero elements only, as coordinates and values.

A sparse tensor of size ``(n, m)`` keeps ``nnz`` elements: ``indices``, a
``(2, nnz)`` int64 tensor whose column ``k`` is the coordinate of element
``k``, and ``values``, a 1-d tensor of the ``nnz`` elements. Every other
element is zero. The same coordinate may appear more than once; the
elements there add up. :meth:`SparseTensor.coalesce` adds them, and sorts
the coordinates in row-major order; the result *is coalesced*.

:class:`SparseTensor` is a :class:`Tensor` (``isinstance`` says so, as in
PyTorch) that has no storage of its own: the dense operations, which read
a storage, refuse it with ``NotImplementedError``. What it has is here:
making one (:func:`sparse_coo_tensor`, ``Tensor.to_sparse``), reading it
(``indices``, ``values``, ``to_dense``, ``repr``) and coalescing it. Its
matrix product is in :mod:`slowtorch_lib.sparse._mm`. Only sparse
dimensions are supported: ``values`` is 1-d (no "hybrid" tensors).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib import _printing
from slowtorch_lib._creation import tensor
from slowtorch_lib._dtype import dtype
from slowtorch_lib._tensor import Tensor, check_device, from_values
from slowtorch_lib._tensor_autograd import INFERENCE_MODE
from slowtorch_lib.autograd.function import AccumulateGrad, Function, FunctionCtx
from slowtorch_lib.sparse._layout import layout, sparse_coo

__all__ = ["SparseTensor", "sparse_coo_tensor"]

# The attributes of a dense tensor that a sparse one has not: reading one
# means a dense operation was given a sparse tensor.
DENSE_ONLY = ("_storage", "_stride", "_offset")

NO_DENSE_KERNEL = (
    "Could not run this operation with arguments from the 'SparseCPU' backend: "
    "this engine's sparse tensors support torch.sparse.mm, torch.mm, "
    "to_dense, coalesce, indices and values (call .to_dense() first)"
)


class SparseTensor(Tensor):
    """A sparse COO tensor: ``indices`` ``(sparse_dim, nnz)`` and ``values``.

    Unlike PyTorch's, ``_values()`` is refused: in this engine that name is
    the list of elements every dense kernel starts from, so a dense kernel
    given a sparse tensor stops there. Read ``values()`` (or ``_indices()``)
    of a tensor made coalesced with ``coalesce()``.
    """

    __slots__ = ("_coo_indices", "_coo_values", "_coalesced")

    _coo_indices: Tensor
    _coo_values: Tensor
    _coalesced: bool

    @classmethod
    def _from_parts(
        cls,
        indices: Tensor,
        values: Tensor,
        size: tuple[int, ...],
        coalesced: bool,
    ) -> SparseTensor:
        """Wraps ``indices`` and ``values``, not copied: how sparse tensors are made."""
        self = object.__new__(cls)
        self._coo_indices, self._coo_values = indices, values
        self._coalesced = coalesced or values._shape[0] <= 1  # nothing to add
        self._shape = tuple(size)
        self._requires_grad = False
        self._grad = None
        self._grad_fn = None
        self._output_nr = 0
        self._grad_accumulator = None
        self._retains_grad = False
        self._base = None
        self._view_version = 0
        self._views = None
        self._one_of_many = None
        self._inference = INFERENCE_MODE.enabled
        return self

    def __getattr__(self, name: str) -> Any:
        """Only called for what a sparse tensor lacks: a dense op's storage."""
        if name in DENSE_ONLY:
            raise NotImplementedError(NO_DENSE_KERNEL)
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute '{name}'"
        )

    @property
    def dtype(self) -> dtype:
        """The dtype of the values."""
        return self._coo_values.dtype

    @property
    def is_sparse(self) -> bool:
        return True

    @property
    def layout(self) -> layout:
        return sparse_coo

    def _indices(self) -> Tensor:  # type: ignore[override]
        """The coordinates, ``(sparse_dim, nnz)``, coalesced or not."""
        return self._coo_indices

    def indices(self) -> Tensor:
        """The coordinates of a coalesced tensor.

        Raises:
            RuntimeError: If the tensor is not coalesced.
        """
        self._check_coalesced("indices")
        return self._coo_indices

    def values(self) -> Tensor:
        """The elements of a coalesced tensor (with gradients to it).

        Raises:
            RuntimeError: If the tensor is not coalesced.
        """
        self._check_coalesced("values")
        return apply_to_sparse(Values, self)

    def _check_coalesced(self, what: str) -> None:
        """Refuses to give ``what`` of an uncoalesced tensor, as PyTorch does.

        Raises:
            RuntimeError: If the tensor is not coalesced.
        """
        if not self._coalesced:
            raise RuntimeError(
                f"Cannot get {what} on an uncoalesced tensor, please call "
                ".coalesce() first"
            )

    def _nnz(self) -> int:
        """How many elements are stored (duplicates counted)."""
        return self._coo_values._shape[0]

    def sparse_dim(self) -> int:
        return self._coo_indices._shape[0]

    def dense_dim(self) -> int:
        return self._coo_values.dim() - 1

    def is_coalesced(self) -> bool:
        return self._coalesced

    def coalesce(self) -> SparseTensor:
        """The same tensor with duplicates added up and coordinates sorted."""
        if self._coalesced:
            return self
        return apply_to_sparse(Coalesce, self)

    def to_dense(self, dtype: dtypes.dtype | None = None) -> Tensor:
        """The dense tensor: zeros, and the values (added up) at their places."""
        result = apply_to_sparse(ToDense, self)
        return result if dtype is None else result.to(dtype)

    def to_sparse(self, sparse_dim: int | None = None) -> SparseTensor:
        return self

    def detach(self) -> SparseTensor:
        """The same indices and values, outside the graph."""
        return SparseTensor._from_parts(
            self._coo_indices, self._coo_values, self._shape, self._coalesced
        )

    def is_contiguous(self, memory_format: Any = None) -> bool:
        return False

    def tolist(self) -> Any:
        raise RuntimeError(
            "Cannot access data pointer of Tensor that doesn't have storage"
        )

    def numpy(self, *, force: bool = False) -> Any:
        raise TypeError(
            "can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first."
        )

    def __repr__(self) -> str:
        return sparse_repr(self)

    __str__ = __repr__


# ----------------------------------------------------------------------
# Making one
# ----------------------------------------------------------------------


def sparse_coo_tensor(
    indices: Any,
    values: Any,
    size: Sequence[int] | None = None,
    *,
    dtype: dtype | None = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
    check_invariants: bool | None = None,
    is_coalesced: bool | None = None,
) -> SparseTensor:
    """A sparse COO tensor with ``values`` at the coordinates ``indices``.

    Args:
        indices: ``(sparse_dim, nnz)`` coordinates (converted to int64).
        values: The ``nnz`` elements (a tensor or a list).
        size: The tensor's size; by default, one more than the largest
            coordinate along each dimension.
        dtype: The values' dtype (by default, that of ``values``).
        requires_grad: Whether the result is a leaf that requires grad.
        check_invariants: Left out, PyTorch's warning that it does not
            check the coordinates is given (once); the engine checks them.
        is_coalesced: Declares the indices coalesced (unchecked, as PyTorch).

    Raises:
        RuntimeError: If indices and values differ in number, ``size`` has
            not one entry per dimension, or a coordinate is outside it.
        NotImplementedError: For values of more than one dimension.
    """
    check_device(device)
    index_tensor = _as_tensor(indices, dtypes.int64).detach()
    value_tensor = _as_tensor(values, dtype)
    if index_tensor.dim() != 2:
        raise RuntimeError(
            f"indices must be sparse_dim x nnz, but got: {list(index_tensor.shape)}"
        )
    sparse_dim, nnz = index_tensor._shape
    if value_tensor.dim() == 0 or value_tensor._shape[0] != nnz:
        got = value_tensor._shape[0] if value_tensor.dim() else 0
        raise RuntimeError(
            "indices and values must have same nnz, but got nnz from indices: "
            f"{nnz}, nnz from values: {got}"
        )
    if value_tensor.dim() != 1:
        raise NotImplementedError(
            "sparse tensors with dense dimensions (values of more than one "
            "dimension) are not supported by this engine"
        )
    shape = _inferred_size(index_tensor) if size is None else tuple(size)
    if len(shape) != sparse_dim:
        raise RuntimeError(
            "'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = "
            f"{len(shape)}, sparse_dim = {sparse_dim}, dense_dim = 0"
        )
    if check_invariants is None:
        _warn_unchecked()
    _check_bounds(index_tensor, shape)
    coalesced = bool(is_coalesced)
    if value_tensor.requires_grad:
        return FromValues.apply(value_tensor, index_tensor, shape, coalesced)
    result = SparseTensor._from_parts(index_tensor, value_tensor, shape, coalesced)
    if requires_grad and not value_tensor.dtype.differentiable:
        raise RuntimeError(
            "Only Tensors of floating point and complex dtype can require gradients"
        )
    if requires_grad:
        result.requires_grad_(True)
    return result


def _check_bounds(indices: Tensor, size: tuple[int, ...]) -> None:
    """Refuses a coordinate outside ``size``.

    PyTorch checks this only when asked (``check_invariants=True``) and
    otherwise may read outside its memory; the engine always checks, with
    PyTorch's messages.

    Raises:
        RuntimeError: For a negative coordinate or one past the size.
    """
    for dim, (row, length) in enumerate(zip(_rows(indices), size)):
        if row and min(row) < 0:
            raise RuntimeError(f"found negative index {min(row)} for dim {dim}")
        if row and max(row) >= length:
            raise RuntimeError(
                f"size is inconsistent with indices: for dim {dim}, size is "
                f"{length} but found index {max(row)}"
            )


# PyTorch warns once per process that it does not check the coordinates.
_UNCHECKED_WARNING = [True]


def _warn_unchecked() -> None:
    if _UNCHECKED_WARNING[0]:
        _UNCHECKED_WARNING[0] = False
        warnings.warn(
            "Sparse invariant checks are implicitly disabled. Memory errors "
            "(e.g. SEGFAULT) will occur when operating on a sparse tensor which "
            "violates the invariants, but checks incur performance overhead. To "
            "silence this warning, explicitly opt in or out. See "
            "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance.",
            UserWarning,
            stacklevel=3,
        )


def _as_tensor(data: Any, d: dtype | None) -> Tensor:
    """``data`` as a tensor, of dtype ``d`` if given."""
    if not isinstance(data, Tensor):
        return tensor(data, dtype=d)
    return data if d is None or data.dtype is d else data.to(d)


class FromValues(Function):
    """A sparse tensor made of values that require grad.

    Each value is an element of the result at its coordinate (added to
    any other there), so its gradient is the gradient at that coordinate.
    """

    grad_fn_name = "SparseCooTensorWithDimsAndTensorsBackward0"

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        values: Tensor,
        indices: Tensor,
        size: tuple[int, ...],
        coalesced: bool,
    ) -> SparseTensor:
        result = SparseTensor._from_parts(indices, values.detach(), size, coalesced)
        ctx.positions = positions(result)
        return result

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: SparseTensor) -> tuple[Any, ...]:
        at = summed(grad_output)
        grads = [at.get(p, 0) for p in ctx.positions]
        grad_values = from_values(grads, (len(grads),), grad_output.dtype)
        return grad_values, None, None, None


def _inferred_size(indices: Tensor) -> tuple[int, ...]:
    """One more than the largest coordinate along each dimension."""
    rows = _rows(indices)
    return tuple(max(row) + 1 if row else 0 for row in rows)


def _rows(indices: Tensor) -> list[list[int]]:
    """The coordinates along each sparse dimension, as lists."""
    flat = indices._values()
    nnz = indices._shape[1]
    return [flat[d * nnz : (d + 1) * nnz] for d in range(indices._shape[0])]


def _linear(coordinate: Sequence[int], size: Sequence[int]) -> int:
    """The row-major position of ``coordinate`` in a dense tensor of ``size``."""
    position = 0
    for index, length in zip(coordinate, size):
        position = position * length + index
    return position


def _coordinate(position: int, size: Sequence[int]) -> list[int]:
    """The coordinate of row-major ``position`` in a tensor of ``size``."""
    coordinate = []
    for length in reversed(size):
        position, index = divmod(position, length)
        coordinate.append(index)
    return coordinate[::-1]


def from_positions(
    positions: Sequence[int],
    values: Sequence[Any],
    size: tuple[int, ...],
    d: dtype,
    coalesced: bool,
) -> SparseTensor:
    """The sparse tensor with ``values`` at row-major ``positions``."""
    columns = [_coordinate(p, size) for p in positions]
    flat = [column[dim] for dim in range(len(size)) for column in columns]
    indices = from_values(flat, (len(size), len(positions)), dtypes.int64)
    value_tensor = from_values(list(values), (len(positions),), d)
    return SparseTensor._from_parts(indices, value_tensor, size, coalesced)


def positions(sparse: SparseTensor) -> list[int]:
    """The row-major position of each stored element, in stored order."""
    return [_linear(c, sparse._shape) for c in zip(*_rows(sparse._coo_indices))]


def summed(sparse: SparseTensor) -> dict[int, Any]:
    """The elements by sorted position, duplicates added up (in stored order)."""
    totals: dict[int, Any] = {}
    for position, value in zip(positions(sparse), sparse._coo_values._values()):
        totals[position] = totals.get(position, 0) + value
    return dict(sorted(totals.items()))


# ----------------------------------------------------------------------
# Coalescing, values, to_dense, to_sparse: each with its gradient
# ----------------------------------------------------------------------


class Coalesce(Function):
    """Adds up duplicates and sorts the coordinates.

    An element of the result is the sum of the stored elements at its
    coordinate, so the gradient of each of them is the gradient there:
    the sparse gradient passes through unchanged.
    """

    @staticmethod
    def forward(ctx: FunctionCtx, sparse: SparseTensor) -> SparseTensor:
        totals = summed(sparse)
        return from_positions(
            list(totals), list(totals.values()), sparse._shape, sparse.dtype, True
        )

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: SparseTensor) -> SparseTensor:
        return grad_output


class Values(Function):
    """The values of a coalesced tensor; the gradient is a sparse tensor of
    the same coordinates holding the values' gradient."""

    @staticmethod
    def forward(ctx: FunctionCtx, sparse: SparseTensor) -> Tensor:
        ctx.sparse = sparse
        return sparse._coo_values.detach()

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> SparseTensor:
        sparse = ctx.sparse
        return SparseTensor._from_parts(
            sparse._coo_indices, grad_output, sparse._shape, True
        )


class ToDense(Function):
    """The dense tensor. Its gradient, for a sparse input, is the dense
    gradient at the input's coordinates (a sparse tensor)."""

    @staticmethod
    def forward(ctx: FunctionCtx, sparse: SparseTensor) -> Tensor:
        ctx.sparse = sparse
        cells: list[Any] = [0] * _numel(sparse._shape)
        for position, value in summed(sparse).items():
            cells[position] = value
        return from_values(cells, sparse._shape, sparse.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> SparseTensor:
        return masked(grad_output, ctx.sparse)


class ToSparse(Function):
    """A dense tensor's nonzero elements; the gradient is made dense again."""

    grad_fn_name = "ToSparseBackward1"  # PyTorch's, without ``sparse_dim``

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> SparseTensor:
        found = [(p, v) for p, v in enumerate(x._values()) if v != 0]
        return from_positions(
            [p for p, _ in found], [v for _, v in found], x._shape, x.dtype, True
        )

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: SparseTensor) -> Tensor:
        return grad_output.to_dense()


def to_sparse(x: Tensor, sparse_dim: int | None = None) -> SparseTensor:
    """A dense tensor as a coalesced sparse COO tensor of its nonzero elements.

    Raises:
        NotImplementedError: For ``sparse_dim`` other than ``x.dim()``.
    """
    if sparse_dim is not None and sparse_dim != x.dim():
        raise NotImplementedError(
            "to_sparse(sparse_dim) with dense dimensions is not supported by "
            "this engine"
        )
    return ToSparse.apply(x)


def masked(dense: Tensor, mask: SparseTensor, coalesced: bool = False) -> SparseTensor:
    """The elements of ``dense`` at ``mask``'s coordinates (duplicates once).

    This is the gradient PyTorch gives a sparse input: its coordinates are
    sorted, and yet most of PyTorch's backward rules do not mark it
    coalesced (``coalesced`` says whether to).
    """
    cells = dense.detach()._values()
    places = list(summed(mask))
    shown = [cells[p] for p in places]
    return from_positions(places, shown, mask._shape, dense.dtype, coalesced)


def add(a: SparseTensor, b: SparseTensor) -> SparseTensor:
    """The sum of two sparse tensors of one size (no graph), its coordinates
    sorted; marked coalesced if both were, as PyTorch's sum of gradients."""
    totals = summed(a)
    for position, value in summed(b).items():
        totals[position] = totals.get(position, 0) + value
    ordered = dict(sorted(totals.items()))
    coalesced = a._coalesced and b._coalesced
    return from_positions(
        list(ordered), list(ordered.values()), a._shape, a.dtype, coalesced
    )


def _numel(size: Sequence[int]) -> int:
    count = 1
    for length in size:
        count *= length
    return count


class SparseAccumulateGrad(AccumulateGrad):
    """The node at a sparse leaf: its ``.grad`` is a sparse tensor, or a
    dense one once a dense gradient (from ``torch.mm``) has reached it."""

    __slots__ = ()

    def apply(self, *grad_outputs: Tensor | None) -> tuple[Tensor | None, ...]:
        """Sets or adds the gradient to the leaf's ``.grad``."""
        (gradient,) = grad_outputs
        assert gradient is not None  # the engine only runs nodes it reached
        current = self.variable._grad
        if current is None:
            self.variable._grad = gradient
        elif isinstance(current, SparseTensor) and isinstance(gradient, SparseTensor):
            self.variable._grad = add(current, gradient)
        else:
            self.variable._grad = _dense(current) + _dense(gradient)
        return ()


def _dense(gradient: Tensor) -> Tensor:
    return gradient.to_dense() if isinstance(gradient, SparseTensor) else gradient


def apply_to_sparse(function: type[Function], sparse: SparseTensor, *rest: Any) -> Any:
    """``function.apply(sparse, *rest)``, a sparse leaf that requires grad
    first given its :class:`SparseAccumulateGrad` (the engine would give it
    the dense one)."""
    if sparse._requires_grad and sparse._grad_fn is None:
        if sparse._grad_accumulator is None:
            sparse._grad_accumulator = SparseAccumulateGrad(sparse)
    return function.apply(sparse, *rest)


# ----------------------------------------------------------------------
# Printing
# ----------------------------------------------------------------------


def sparse_repr(sparse: SparseTensor) -> str:
    """The text PyTorch prints: indices, values, then size, nnz and layout.

    The indices and values are printed as dense tensors are, indented to
    stand under their own ``[``.
    """
    prefix = _printing.PREFIX
    indices_prefix, values_prefix = "indices=tensor(", "values=tensor("
    indices_text = _part(sparse._coo_indices, len(prefix) + len(indices_prefix))
    values_text = _part(sparse._coo_values, len(prefix) + len(values_prefix))
    text = (
        f"{prefix}{indices_prefix}{indices_text}),\n"
        f"{' ' * len(prefix)}{values_prefix}{values_text})"
    )
    parts = [f"size={tuple(sparse._shape)}", f"nnz={sparse._nnz()}"]
    default = dtypes.get_default_dtype()
    if sparse.dtype not in (default, dtypes.COMPLEX_OF[default], dtypes.int64):
        if sparse.dtype is not dtypes.bool_:
            parts.append(f"dtype={sparse.dtype!r}")
    parts.append("layout=torch.sparse_coo")
    if sparse.grad_fn is not None:
        parts.append(f"grad_fn=<{sparse.grad_fn.name()}>")
    elif sparse.requires_grad:
        parts.append("requires_grad=True")
    return _with_parts(text, parts, len(prefix)) + ")"


def _with_parts(text: str, parts: list[str], indent: int) -> str:
    """Appends the parts, the first on a line of its own, the others on
    the same line while it stays within the width (PyTorch's rule)."""
    text += ",\n" + " " * indent + parts[0]
    line_length = indent + len(parts[0])
    for part in parts[1:]:
        if line_length + len(", ") + len(part) > _printing.LINE_WIDTH:
            text += ",\n" + " " * indent + part
            line_length = indent + len(part)
        else:
            text += ", " + part
            line_length += len(", ") + len(part)
    return text


def _part(part: Tensor, column: int) -> str:
    """A dense part's numbers, with ``size=`` if it is empty."""
    body = _printing.tensor_body(part, column)
    if part.numel() == 0:
        body += f", size={tuple(part._shape)}"
    return body
