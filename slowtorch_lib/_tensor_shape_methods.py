"""Tensor's methods for new tensors, copies, and the operations that work
along dimensions: reductions, views, gathering and indexing, rearranging,
sorting, scans, matrix products, and the random fills.

Each calls the function of the same name in ``ops/`` (or ``_creation``,
``_legacy_constructors``, ``_rng``), reached as
:mod:`slowtorch_lib._tensor_methods` explains; there too are the other
methods ``Tensor`` inherits, those that work element by element.
"""

# Each method's ``self`` is annotated as a ``Tensor``, the class that inherits
# it, so that mypy checks the body against what ``self`` always is. mypy
# reports such a ``self`` (it expects the class or one above it) under
# "misc", which is switched off here, and only here:
# mypy: disable-error-code="misc"
from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib import _strides
from slowtorch_lib._dtype import Scalar
from slowtorch_lib._storage import stored_array

if TYPE_CHECKING:
    # The layers above, which the methods reach: see OPS_MODULES and bind_ops.
    from slowtorch_lib import _creation, _legacy_constructors, _rng
    from slowtorch_lib._tensor import ShapeArg, Tensor, TensorOrScalar
    from slowtorch_lib.nn.functional import activation as _activation
    from slowtorch_lib.ops import common as _common
    from slowtorch_lib.ops import complex_parts as _complex_parts
    from slowtorch_lib.ops import copying as _copying
    from slowtorch_lib.ops import diagonals as _diagonals
    from slowtorch_lib.ops import gather_scatter as _gather_scatter
    from slowtorch_lib.ops import histograms as _histograms
    from slowtorch_lib.ops import indexing as _indexing
    from slowtorch_lib.ops import linalg as _linalg
    from slowtorch_lib.ops import order_statistics as _order_statistics
    from slowtorch_lib.ops import products as _products
    from slowtorch_lib.ops import rearrange as _rearrange
    from slowtorch_lib.ops import reduction as _reduction
    from slowtorch_lib.ops import reordering as _reordering
    from slowtorch_lib.ops import scan as _scan
    from slowtorch_lib.ops import sorting as _sorting
    from slowtorch_lib.ops import splitting as _splitting
    from slowtorch_lib.ops import statistics as _statistics
    from slowtorch_lib.ops import unique as _unique
    from slowtorch_lib.ops import views as _views

__all__ = ["ShapeMethods"]


def _options(d: dtypes.dtype) -> str:
    """How PyTorch's C++ prints a CPU tensor's options, in its errors."""
    return (
        f"TensorOptions(dtype={d.cpp_type_name}, device=cpu, layout=Strided, "
        "requires_grad=false (default), pinned_memory=false (default), "
        "memory_format=(nullopt))"
    )


def _dim_given(function: str, dim: Any) -> None:
    """A method's ``dim`` that may not be None (the function's may be)."""
    if dim is None:
        raise TypeError(
            f"{function}(): argument 'dim' (position 1) must be int, not NoneType"
        )


class ShapeMethods:
    """``Tensor``'s methods for new tensors, copies and casts, and the
    operations that work along dimensions: each calls the function of the
    same name in ``ops/``."""

    __slots__ = ()

    # ------------------------------------------------------------------
    # New tensors with this tensor's dtype (creation)
    # ------------------------------------------------------------------

    def new(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        """The legacy constructor for this tensor's dtype: ``x.new(2, 3)``,
        ``x.new([1, 2])``; see :func:`slowtorch_lib._legacy_constructors.legacy_new`.
        Prefer ``new_zeros`` and ``new_tensor``, which say what they make.

        Raises:
            TypeError: For a tensor of another dtype, as PyTorch does.
        """
        given = args[0] if len(args) == 1 else None
        if isinstance(given, type(self)) and given.dtype is not self.dtype:
            raise TypeError(
                f"expected {_options(self.dtype)} (got {_options(given.dtype)})"
            )
        return _legacy_constructors.legacy_new(self.dtype, args, kwargs)

    def new_tensor(
        self: Tensor,
        data: Any,
        *,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """A copy of ``data``, of this tensor's dtype and device by default."""
        factory = _creation.tensor
        return _new(self, "new_tensor", factory, (data,), dtype, device, requires_grad)

    def new_zeros(
        self: Tensor,
        *size: Any,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """Zeros, of this tensor's dtype and device by default."""
        factory = _creation.zeros
        return _new(self, "new_zeros", factory, size, dtype, device, requires_grad)

    def new_ones(
        self: Tensor,
        *size: Any,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """Ones, of this tensor's dtype and device by default."""
        factory = _creation.ones
        return _new(self, "new_ones", factory, size, dtype, device, requires_grad)

    def new_empty(
        self: Tensor,
        *size: Any,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """A tensor to be filled, of this tensor's dtype and device by default."""
        factory = _creation.empty
        return _new(self, "new_empty", factory, size, dtype, device, requires_grad)

    def new_full(
        self: Tensor,
        size: Any,
        fill_value: Scalar,
        *,
        dtype: dtypes.dtype | None = None,
        device: Any = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """``fill_value`` everywhere, of this tensor's dtype and device by
        default."""
        factory = _creation.full
        arguments = (size, fill_value)
        return _new(self, "new_full", factory, arguments, dtype, device, requires_grad)

    # ------------------------------------------------------------------
    # Copies, casts and fills (ops/copying.py)
    # ------------------------------------------------------------------

    def clone(self: Tensor) -> Tensor:
        """A copy with its own storage (recorded as ``CloneBackward0``)."""
        return _copying.clone(self)

    def float(self: Tensor) -> Tensor:
        return self.to(dtypes.float32)

    def double(self: Tensor) -> Tensor:
        return self.to(dtypes.float64)

    def long(self: Tensor) -> Tensor:
        return self.to(dtypes.int64)

    def bool(self: Tensor) -> Tensor:
        return self.to(dtypes.bool_)

    def half(self: Tensor) -> Tensor:
        return self.to(dtypes.float16)

    def bfloat16(self: Tensor) -> Tensor:
        return self.to(dtypes.bfloat16)

    def copy_(self: Tensor, source: Tensor) -> Tensor:
        """Copies ``source`` (broadcast to this shape) into this tensor."""
        # Copying a tensor into itself changes nothing, even if it is expanded.
        return self._inplace(_copying.copy_into, source, overlap_ok=source is self)

    def fill_(self: Tensor, value: Scalar) -> Tensor:
        """Sets every element to ``value``."""
        return self._inplace(_copying.filled, value, overlap_ok=True)

    def zero_(self: Tensor) -> Tensor:
        """Sets every element to zero."""
        return self._inplace(_copying.zeroed, overlap_ok=True)

    # ------------------------------------------------------------------
    # Reductions (ops/reduction.py)
    # ------------------------------------------------------------------

    def sum_to_size(self: Tensor, *size: Any) -> Tensor:
        """Sums down to ``size``: the reverse of broadcasting to this shape."""
        return _reduction.sum_to_size(
            self, _strides.sizes_arg(size, "sum_to_size", "size")
        )

    def sum(
        self: Tensor,
        dim: ShapeArg | None = None,
        keepdim: builtins.bool = False,
        *,
        dtype: dtypes.dtype | None = None,
    ) -> Tensor:
        return _reduction.sum(self, dim, keepdim, dtype=dtype)

    def bincount(
        self: Tensor, weights: Tensor | None = None, minlength: int = 0
    ) -> Tensor:
        return _histograms.bincount(self, weights, minlength)

    def histc(
        self: Tensor,
        bins: int = 100,
        min: builtins.float = 0,
        max: builtins.float = 0,
    ) -> Tensor:
        return _histograms.histc(self, bins, min, max)

    def histogram(self: Tensor, bins: Any = 100, **options: Any) -> Any:
        return _histograms.histogram(self, bins, **options)

    def logsumexp(
        self: Tensor, dim: ShapeArg, keepdim: builtins.bool = False
    ) -> Tensor:
        return _reduction.logsumexp(self, dim, keepdim)

    def mean(
        self: Tensor,
        dim: ShapeArg | None = None,
        keepdim: builtins.bool = False,
        *,
        dtype: dtypes.dtype | None = None,
    ) -> Tensor:
        return _reduction.mean(self, dim, keepdim, dtype=dtype)

    def softmax(self: Tensor, dim: int, dtype: dtypes.dtype | None = None) -> Tensor:
        _dim_given("softmax", dim)
        return _activation.softmax(self, dim, dtype=dtype)

    def log_softmax(
        self: Tensor, dim: int, dtype: dtypes.dtype | None = None
    ) -> Tensor:
        _dim_given("log_softmax", dim)
        return _activation.log_softmax(self, dim, dtype=dtype)

    def unique(
        self: Tensor,
        sorted: builtins.bool = True,
        return_inverse: builtins.bool = False,
        return_counts: builtins.bool = False,
        dim: int | None = None,
    ) -> Any:
        return _unique.unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(
        self: Tensor,
        return_inverse: builtins.bool = False,
        return_counts: builtins.bool = False,
        dim: int | None = None,
    ) -> Any:
        return _unique.unique_consecutive(self, return_inverse, return_counts, dim)

    def prod(
        self: Tensor,
        dim: int | None = None,
        keepdim: builtins.bool = False,
        *,
        dtype: dtypes.dtype | None = None,
    ) -> Tensor:
        return _products.prod(self, dim, keepdim, dtype=dtype)

    def max(self: Tensor, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        return _reduction.max(self, dim, keepdim)

    def min(self: Tensor, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        return _reduction.min(self, dim, keepdim)

    def median(self: Tensor, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        return _order_statistics.median(self, dim, keepdim)

    def kthvalue(
        self: Tensor, k: int, dim: int = -1, keepdim: builtins.bool = False
    ) -> Any:
        return _order_statistics.kthvalue(self, k, dim, keepdim)

    def amax(
        self: Tensor, dim: ShapeArg = (), keepdim: builtins.bool = False
    ) -> Tensor:
        return _reduction.amax(self, dim, keepdim)

    def amin(
        self: Tensor, dim: ShapeArg = (), keepdim: builtins.bool = False
    ) -> Tensor:
        return _reduction.amin(self, dim, keepdim)

    def argmax(
        self: Tensor, dim: int | None = None, keepdim: builtins.bool = False
    ) -> Tensor:
        return _reduction.argmax(self, dim, keepdim)

    def argmin(
        self: Tensor, dim: int | None = None, keepdim: builtins.bool = False
    ) -> Tensor:
        return _reduction.argmin(self, dim, keepdim)

    def var(
        self: Tensor,
        dim: ShapeArg | None = None,
        unbiased: builtins.bool | None = None,
        keepdim: builtins.bool = False,
        *,
        correction: int | None = None,
    ) -> Tensor:
        return _statistics.var(self, dim, unbiased, keepdim, correction=correction)

    def std(
        self: Tensor,
        dim: ShapeArg | None = None,
        unbiased: builtins.bool | None = None,
        keepdim: builtins.bool = False,
        *,
        correction: int | None = None,
    ) -> Tensor:
        return _statistics.std(self, dim, unbiased, keepdim, correction=correction)

    def all(
        self: Tensor, dim: int | None = None, keepdim: builtins.bool = False
    ) -> Tensor:
        return _reduction.all(self, dim, keepdim)

    def any(
        self: Tensor, dim: int | None = None, keepdim: builtins.bool = False
    ) -> Tensor:
        return _reduction.any(self, dim, keepdim)

    # ------------------------------------------------------------------
    # Views and shape changes (ops/views.py)
    # ------------------------------------------------------------------

    def _as_strided(
        self: Tensor,
        shape: tuple[int, ...],
        stride: tuple[int, ...],
        offset: int,
        parts: builtins.bool = False,
    ) -> Tensor:
        """A view of this storage with exactly this geometry (not checked);
        with ``parts``, of the real and imaginary parts of this complex
        tensor's storage (a view of ``view_as_real(self)``)."""
        source = _complex_parts.view_as_real(self) if parts else self
        return _views.AsStrided.apply(source, shape=shape, stride=stride, offset=offset)

    def as_strided(
        self: Tensor,
        size: Sequence[int],
        stride: Sequence[int],
        storage_offset: int | None = None,
    ) -> Tensor:
        return _views.as_strided(self, size, stride, storage_offset)

    def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
        return _splitting.unfold(self, dimension, size, step)

    def view(self: Tensor, *shape: Any) -> Tensor:
        if not shape:
            raise TypeError(
                "view() received an invalid combination of arguments - got ()"
            )
        return _views.view(self, _strides.sizes_arg(shape, "view", "size"))

    def view_as(self: Tensor, other: Tensor) -> Tensor:
        return _views.view(self, other._shape)

    def reshape(self: Tensor, *shape: Any) -> Tensor:
        if not shape:
            raise TypeError(
                'reshape() missing 1 required positional arguments: "shape"'
            )
        return _views.reshape(self, _strides.sizes_arg(shape, "reshape", "shape"))

    def reshape_as(self: Tensor, other: Tensor) -> Tensor:
        return _views.reshape(self, other._shape)

    def resize_(self: Tensor, *size: Any, memory_format: Any = None) -> Tensor:
        """Gives this tensor another shape in place, with contiguous strides,
        over the same storage, which grows if it holds too few elements (with
        zeros here; PyTorch leaves them uninitialised). A legacy method:
        prefer ``reshape``, or a new tensor.

        Raises:
            RuntimeError: If the tensor requires grad, or a size is negative.
        """
        if not size:
            raise TypeError('resize_() missing 1 required positional arguments: "size"')
        shape = _strides.sizes_arg(size, "resize_", "size")
        if self.requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        if any(n < 0 for n in shape):
            raise RuntimeError("numel: integer multiplication overflow")
        if shape != self._shape:
            needed = self._offset + _strides.numel(shape) - len(self._storage)
            if needed > 0:
                grown = stored_array([0] * needed, self.dtype)
                self._storage.data.extend(grown)
            self._shape = shape
            self._stride = _strides.contiguous_strides(shape)
        return self

    def contiguous(self: Tensor) -> Tensor:
        return _views.contiguous(self)

    def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
        return _reordering.transpose(self, dim0, dim1)

    def t(self: Tensor) -> Tensor:
        return _reordering.t(self)

    def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
        return _reordering.transpose_(self, dim0, dim1)

    def t_(self: Tensor) -> Tensor:
        return _reordering.t_(self)

    def swapaxes(self: Tensor, axis0: int, axis1: int) -> Tensor:
        return _reordering.swapaxes(self, axis0, axis1)

    def swapdims(self: Tensor, dim0: int, dim1: int) -> Tensor:
        return _reordering.swapdims(self, dim0, dim1)

    def swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
        return _reordering.transpose_(self, axis0, axis1)

    def swapdims_(self: Tensor, dim0: int, dim1: int) -> Tensor:
        return _reordering.transpose_(self, dim0, dim1)

    @property
    def T(self: Tensor) -> Tensor:
        """All dimensions reversed (for a matrix: the transpose)."""
        return _reordering.permute(self, tuple(reversed(range(len(self._shape)))))

    @property
    def mT(self: Tensor) -> Tensor:
        """The last two dimensions swapped.

        Raises:
            RuntimeError: For a 1-d tensor (a 0-d tensor is returned as it is).
        """
        if self.dim() == 0:
            return self
        if self.dim() == 1:
            raise RuntimeError(
                "tensor.mT is only supported on matrices or batches of matrices. "
                "Got 1-D tensor."
            )
        return _reordering.transpose(self, -2, -1)

    def permute(self: Tensor, *dims: Any) -> Tensor:
        if not dims:
            raise TypeError('permute() missing 1 required positional arguments: "dims"')
        return _reordering.permute(self, _strides.sizes_arg(dims, "permute", "dims"))

    def unsqueeze(self: Tensor, dim: int) -> Tensor:
        return _views.unsqueeze(self, dim)

    def squeeze(self: Tensor, dim: ShapeArg | None = None) -> Tensor:
        return _views.squeeze(self, dim)

    def expand(self: Tensor, *sizes: Any) -> Tensor:
        return _views.expand(self, _strides.sizes_arg(sizes, "expand", "size"))

    def unflatten(self: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
        return _views.unflatten(self, dim, sizes)

    def type_as(self: Tensor, other: Tensor) -> Tensor:
        """This tensor converted to ``other``'s dtype (itself if it has it)."""
        _common.check_tensor("type_as", other, position=1)
        return self.to(other.dtype)

    def expand_as(self: Tensor, other: Tensor) -> Tensor:
        _common.check_tensor("expand_as", other, position=1)
        return _views.expand(self, other._shape)

    def narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
        return _views.narrow(self, dim, start, length)

    def select(self: Tensor, dim: int, index: int) -> Tensor:
        return _views.select(self, dim, index)

    def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        return _views.flatten(self, start_dim, end_dim)

    def split(self: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
        return _splitting.split(self, split_size, dim)

    def chunk(self: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
        return _splitting.chunk(self, chunks, dim)

    def unbind(self: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
        return _splitting.unbind(self, dim)

    # ------------------------------------------------------------------
    # Gathering and scattering (ops/gather_scatter.py)
    # ------------------------------------------------------------------

    def gather(self: Tensor, dim: int, index: Tensor) -> Tensor:
        return _gather_scatter.gather(self, dim, index)

    def scatter(
        self: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None
    ) -> Tensor:
        return _gather_scatter.scatter(self, dim, index, src, value=value)

    def scatter_add(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
        return _gather_scatter.scatter_add(self, dim, index, src)

    def index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
        return _gather_scatter.index_select(self, dim, index)

    def index_add(
        self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Scalar = 1
    ) -> Tensor:
        return _gather_scatter.index_add(self, dim, index, source, alpha=alpha)

    def index_add_(
        self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Scalar = 1
    ) -> Tensor:
        return self._inplace(_gather_scatter.index_add, dim, index, source, alpha=alpha)

    def masked_select(self: Tensor, mask: Tensor) -> Tensor:
        return _gather_scatter.masked_select(self, mask)

    def nonzero(self: Tensor, *, as_tuple: builtins.bool = False) -> Any:
        return _gather_scatter.nonzero(self, as_tuple=as_tuple)

    def scatter_(
        self: Tensor, dim: int, index: Tensor, src: Any = None, *, value: Any = None
    ) -> Tensor:
        return self._inplace(_gather_scatter.scatter, dim, index, src, value=value)

    def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
        return self._inplace(_gather_scatter.scatter_add, dim, index, src)

    # ------------------------------------------------------------------
    # Indexing: x[i] and x[i] = v (ops/indexing.py)
    # ------------------------------------------------------------------

    def __getitem__(self: Tensor, index: Any) -> Tensor:
        return _indexing.getitem(self, index)

    def __setitem__(self: Tensor, index: Any, value: TensorOrScalar) -> None:
        _indexing.setitem(self, index, value)

    # ------------------------------------------------------------------
    # Rearranging (ops/rearrange.py)
    # ------------------------------------------------------------------

    def roll(self: Tensor, shifts: Any, dims: Any = None) -> Tensor:
        return _rearrange.roll(self, shifts, dims)

    def flip(self: Tensor, *dims: Any) -> Tensor:
        return _rearrange.flip(self, _strides.sizes_arg(dims, "flip", "dims"))

    def repeat(self: Tensor, *sizes: Any) -> Tensor:
        return _rearrange.repeat(self, *sizes)

    def repeat_interleave(
        self: Tensor,
        repeats: Any = None,
        dim: int | None = None,
        *,
        output_size: int | None = None,
    ) -> Tensor:
        return _rearrange.repeat_interleave(self, repeats, dim, output_size=output_size)

    def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        return _diagonals.diagonal(self, offset, dim1, dim2)

    def diag_embed(
        self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1
    ) -> Tensor:
        return _diagonals.diag_embed(self, offset, dim1, dim2)

    def diag(self: Tensor, diagonal: int = 0) -> Tensor:
        return _diagonals.diag(self, diagonal)

    def tril(self: Tensor, diagonal: int = 0) -> Tensor:
        return _rearrange.tril(self, diagonal)

    def triu(self: Tensor, diagonal: int = 0) -> Tensor:
        return _rearrange.triu(self, diagonal)

    def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
        return self._inplace(_rearrange.tril, diagonal)

    def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
        return self._inplace(_rearrange.triu, diagonal)

    # ------------------------------------------------------------------
    # Sorting (ops/sorting.py)
    # ------------------------------------------------------------------

    def sort(
        self: Tensor,
        dim: int = -1,
        descending: builtins.bool = False,
        *,
        stable: builtins.bool | None = None,
    ) -> _sorting.SortResult:
        return _sorting.sort(self, dim, descending, stable=stable)

    def argsort(
        self: Tensor,
        dim: int = -1,
        descending: builtins.bool = False,
        *,
        stable: builtins.bool = False,
    ) -> Tensor:
        return _sorting.argsort(self, dim, descending, stable=stable)

    def topk(
        self: Tensor,
        k: int,
        dim: int = -1,
        largest: builtins.bool = True,
        sorted: builtins.bool = True,
    ) -> _sorting.TopkResult:
        return _sorting.topk(self, k, dim, largest, sorted)

    # ------------------------------------------------------------------
    # Scans (ops/scan.py)
    # ------------------------------------------------------------------

    def cumsum(self: Tensor, dim: int, *, dtype: dtypes.dtype | None = None) -> Tensor:
        return _scan.cumsum(self, dim, dtype=dtype)

    def cumprod(self: Tensor, dim: int, *, dtype: dtypes.dtype | None = None) -> Tensor:
        return _scan.cumprod(self, dim, dtype=dtype)

    def cumsum_(self: Tensor, dim: int) -> Tensor:
        return self._inplace(_scan.cumsum, dim)

    # ------------------------------------------------------------------
    # Matrix products (ops/linalg.py)
    # ------------------------------------------------------------------

    def __matmul__(self: Tensor, other: Tensor) -> Tensor:
        return _linalg.matmul(self, other)

    def __rmatmul__(self: Tensor, other: Tensor) -> Tensor:
        return _linalg.matmul(other, self)

    def matmul(self: Tensor, other: Tensor) -> Tensor:
        return _linalg.matmul(self, other)

    def mm(self: Tensor, mat2: Tensor) -> Tensor:
        return _linalg.mm(self, mat2)

    def bmm(self: Tensor, mat2: Tensor) -> Tensor:
        return _linalg.bmm(self, mat2)

    def mv(self: Tensor, vec: Tensor) -> Tensor:
        return _linalg.mv(self, vec)

    def dot(self: Tensor, other: Tensor) -> Tensor:
        return _linalg.dot(self, other)

    def outer(self: Tensor, vec2: Tensor) -> Tensor:
        return _linalg.outer(self, vec2)

    def norm(
        self: Tensor, p: Any = "fro", dim: Any = None, keepdim: builtins.bool = False
    ) -> Tensor:
        return _statistics.norm(self, p, dim, keepdim)

    # ------------------------------------------------------------------
    # Random fills (_rng.py)
    # ------------------------------------------------------------------

    def uniform_(
        self: Tensor,
        from_: builtins.float = 0.0,
        to: builtins.float = 1.0,
        *,
        generator: Any = None,
    ) -> Tensor:
        """Fills with uniform random numbers in ``[from_, to)``."""
        return _rng.uniform_(self, from_, to, generator=generator)

    def normal_(
        self: Tensor,
        mean: builtins.float = 0.0,
        std: builtins.float = 1.0,
        *,
        generator: Any = None,
    ) -> Tensor:
        """Fills with normal random numbers of this mean and std."""
        return _rng.normal_(self, mean, std, generator=generator)

    def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
        """Fills with 1 (probability ``p``) or 0 (see :mod:`slowtorch_lib._rng`)."""
        return _rng.bernoulli_(self, p, generator=generator)

    def multinomial(
        self: Tensor,
        num_samples: int,
        replacement: builtins.bool = False,
        *,
        generator: Any = None,
    ) -> Tensor:
        return _rng.multinomial(self, num_samples, replacement, generator=generator)

    def bernoulli(self: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
        """0 or 1 for each element, 1 with the element's probability (or ``p``)."""
        return _rng.bernoulli(self, p, generator=generator)

    # ------------------------------------------------------------------
    # Casts named after C types. They come last: a method named ``int``
    # hides the built-in ``int`` from the annotations written after it.
    # ------------------------------------------------------------------

    def int(self: Tensor) -> Tensor:
        return self.to(dtypes.int32)

    def short(self: Tensor) -> Tensor:
        return self.to(dtypes.int16)

    def char(self: Tensor) -> Tensor:
        return self.to(dtypes.int8)

    def byte(self: Tensor) -> Tensor:
        return self.to(dtypes.uint8)


def _new(
    tensor: Tensor,
    name: str,
    make: Callable[..., Tensor],
    arguments: tuple[Any, ...],
    dtype: dtypes.dtype | None,
    device: Any,
    requires_grad: builtins.bool,
) -> Tensor:
    """What ``tensor.new_zeros(...)`` and the other ``new_*`` methods make:
    ``make(*arguments)`` with ``tensor``'s dtype and device unless others are
    given.

    Raises:
        TypeError: If ``dtype`` is no dtype (the message names ``name``).
    """
    return make(
        *arguments,
        dtype=dtypes.dtype_arg(dtype, name) or tensor.dtype,
        device=device or tensor.device,
        requires_grad=requires_grad,
    )
