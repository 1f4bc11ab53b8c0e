"""``Embedding`` and ``EmbeddingBag``: learned lookup tables from integers to
vectors (``EmbeddingBag`` pools the vectors of each bag of integers)."""

from __future__ import annotations

from typing import Any

from slowtorch_lib._creation import empty
from slowtorch_lib._dtype import dtype as Dtype
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.nn import functional as F
from slowtorch_lib.nn import init
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.parameter import Parameter

__all__ = ["Embedding", "EmbeddingBag"]


class Embedding(Module):
    """Row ``i`` of ``weight`` for each integer ``i`` of the input.

    Args:
        num_embeddings: Rows of the table (the number of distinct indices).
        embedding_dim: Length of each vector.
        padding_idx: A row kept at zero that receives no gradient.
        max_norm: Rows looked up with a larger norm are scaled down to it.

    Attributes:
        weight: ``(num_embeddings, embedding_dim)``, initialised from
            ``N(0, 1)`` (the padding row to zeros).
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
        _weight: Tensor | None = None,
        _freeze: bool = False,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _padding_row(
            padding_idx, num_embeddings, "Padding_idx must be within num_embeddings"
        )
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        self.weight = _table(num_embeddings, embedding_dim, _weight, dtype, device)
        self.weight.requires_grad = not _freeze
        if _weight is None:
            self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draws the table from ``N(0, 1)`` and zeroes the padding row."""
        _draw_table(self.weight, self.padding_idx)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(
            input,
            self.weight,
            self.padding_idx,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.sparse,
        )

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            text += ", scale_grad_by_freq=True"
        if self.sparse:
            text += ", sparse=True"
        return text

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Tensor,
        freeze: bool = True,
        padding_idx: int | None = None,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        sparse: bool = False,
    ) -> Embedding:
        """An embedding whose table is ``embeddings`` (frozen by default)."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(
            rows,
            cols,
            padding_idx,
            max_norm,
            norm_type,
            scale_grad_by_freq,
            sparse,
            _weight=embeddings,
            _freeze=freeze,
        )


class EmbeddingBag(Module):
    """The sum, mean or maximum of the rows picked by each bag of integers.

    Args:
        num_embeddings: Rows of the table.
        embedding_dim: Length of each vector.
        mode: ``'sum'``, ``'mean'`` or ``'max'`` (see ``F.embedding_bag``).
        include_last_offset: ``offsets`` end with the end of the last bag.
        padding_idx: A row left out of every bag, kept at zero.

    Attributes:
        weight: ``(num_embeddings, embedding_dim)``, initialised from
            ``N(0, 1)`` (the padding row to zeros).
    """

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        _weight: Tensor | None = None,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.padding_idx = _padding_row(
            padding_idx, num_embeddings, "padding_idx must be within num_embeddings"
        )
        self.weight = _table(num_embeddings, embedding_dim, _weight, dtype, device)
        if _weight is None:
            self.reset_parameters()
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self) -> None:
        """Draws the table from ``N(0, 1)`` and zeroes the padding row."""
        _draw_table(self.weight, self.padding_idx)

    def forward(
        self,
        input: Tensor,
        offsets: Tensor | None = None,
        per_sample_weights: Tensor | None = None,
    ) -> Tensor:
        return F.embedding_bag(
            input,
            self.weight,
            offsets,
            self.max_norm,
            self.norm_type,
            self.scale_grad_by_freq,
            self.mode,
            self.sparse,
            per_sample_weights,
            self.include_last_offset,
            self.padding_idx,
        )

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings!r}, {self.embedding_dim!r}"
        if self.max_norm is not None:
            text += f", max_norm={self.max_norm!r}"
        if self.norm_type != 2:
            text += f", norm_type={self.norm_type!r}"
        if self.scale_grad_by_freq:
            text += f", scale_grad_by_freq={self.scale_grad_by_freq!r}"
        text += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx!r}"
        return text

    @classmethod
    def from_pretrained(
        cls,
        embeddings: Tensor,
        freeze: bool = True,
        max_norm: float | None = None,
        norm_type: float = 2.0,
        scale_grad_by_freq: bool = False,
        mode: str = "mean",
        sparse: bool = False,
        include_last_offset: bool = False,
        padding_idx: int | None = None,
    ) -> EmbeddingBag:
        """A bag embedding whose table is ``embeddings`` (frozen by default)."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(
            rows,
            cols,
            max_norm,
            norm_type,
            scale_grad_by_freq,
            mode,
            sparse,
            _weight=embeddings,
            include_last_offset=include_last_offset,
            padding_idx=padding_idx,
        )
        bag.weight.requires_grad = not freeze
        return bag


def _padding_row(padding_idx: int | None, rows: int, message: str) -> int | None:
    """``padding_idx`` counted from the start of ``rows`` rows, or None.

    Raises:
        AssertionError: With ``message``, for a row outside the table.
    """
    if padding_idx is None:
        return None
    if not -rows <= padding_idx < rows:
        raise AssertionError(message)
    return padding_idx % rows


def _table(
    rows: int, columns: int, given: Tensor | None, dtype: Dtype | None, device: Any
) -> Parameter:
    """The table as a parameter: ``given``, or an empty one to be drawn.

    Raises:
        AssertionError: If ``given`` is not ``(rows, columns)``.
    """
    if given is None:
        return Parameter(empty(rows, columns, dtype=dtype, device=device))
    if list(given.shape) != [rows, columns]:
        raise AssertionError(
            "Shape of weight does not match num_embeddings and embedding_dim"
        )
    return Parameter(given)


def _draw_table(weight: Tensor, padding_idx: int | None) -> None:
    """Draws ``weight`` from ``N(0, 1)`` and zeroes its padding row."""
    init.normal_(weight)
    if padding_idx is not None:
        with no_grad():
            weight[padding_idx].fill_(0)
