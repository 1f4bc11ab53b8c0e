"""Sequences of different lengths in one batch: padding and packing.

A batch of sentences rarely has one length. Two ways to hold it:

- **Padded**: one tensor ``(T, B, *)`` (or ``(B, T, *)`` with
  ``batch_first``), each sequence followed by filler up to the longest,
  ``T``. Simple, but a recurrent layer would read the filler as input.
- **Packed** (:class:`PackedSequence`): only the real elements, time step
  by time step. With the sequences sorted longest first, step ``t`` holds
  the ``batch_sizes[t]`` sequences still running, so the rows of ``data``
  are step 0 of every sequence, then step 1 of those long enough, and so
  on::

      lengths 3, 2, 1:   a0 b0 c0 | a1 b1 | a2      batch_sizes = [3, 2, 1]

  A recurrent layer given a packed sequence runs each step on a shrinking
  batch and never sees padding.

``sorted_indices`` remembers how the batch was reordered (longest first)
when ``enforce_sorted=False``, and ``unsorted_indices`` puts it back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import as_tensor, empty_like
from slowtorch_lib._ranges import arange
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.gather_scatter import index_add_into_zeros
from slowtorch_lib.ops.sorting import sort

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """A batch of sequences of different lengths, packed (a named tuple).

    Made by :func:`pack_padded_sequence` or :func:`pack_sequence`, never by
    hand; the recurrent layers accept one as input and return one.

    Attributes:
        data: ``(sum of lengths, *)``: the elements, time step by time step.
        batch_sizes: int64, how many sequences run at each time step.
        sorted_indices: The order the batch was sorted into, or None.
        unsorted_indices: The inverse of ``sorted_indices``, or None.
    """

    def __new__(
        cls,
        data: Tensor,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence((data, batch_sizes), ...)
            data, batch_sizes = data
        return super().__new__(  # type: ignore[no-any-return]
            cls, data, batch_sizes, sorted_indices, unsorted_indices
        )

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The same sequence with ``data`` converted (``batch_sizes`` is kept)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(
            data, self.batch_sizes, self.sorted_indices, self.unsorted_indices
        )

    def double(self) -> PackedSequence:
        return self.to(dtype=dtypes.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=dtypes.float32)

    def cpu(self) -> PackedSequence:
        return self

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (None for None)."""
    if permutation is None:
        return None
    output = empty_like(permutation)
    output.scatter_(0, permutation, arange(permutation.numel()))
    return output


# ----------------------------------------------------------------------
# Packing: padded (T, B, *) -> the real rows, step by step
# ----------------------------------------------------------------------


class PackPaddedSequence(Function):
    """Picks the rows of the real elements out of a padded ``(T, B, *)``.

    The gradient goes back to the rows that were picked; padding gets 0.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, input: Tensor, *, rows: list[int], width: int
    ) -> Tensor:
        values = input.contiguous()._values()
        picked = [values[r * width + j] for r in rows for j in range(width)]
        ctx.rows, ctx.width, ctx.input_shape = rows, width, input._shape
        return from_values(picked, (len(rows), *input._shape[2:]), input.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        width = ctx.width
        positions = [r * width + j for r in ctx.rows for j in range(width)]
        return index_add_into_zeros(grad_output, positions, ctx.input_shape)


def _batch_sizes(lengths: list[int]) -> list[int]:
    """How many of the (longest-first) sequences are still running at each step."""
    return [sum(1 for n in lengths if n > t) for t in range(lengths[0])]


def pack_padded_sequence(
    input: Tensor,
    lengths: Tensor | list[int],
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Packs a padded batch, given each sequence's length.

    Args:
        input: ``(T, B, *)``, or ``(B, T, *)`` with ``batch_first``.
        lengths: The length of each sequence (a list or a 1-d tensor).
        batch_first: Whether the batch is the first dimension.
        enforce_sorted: Require ``lengths`` to be in decreasing order. With
            False, the batch is sorted here and the order remembered in
            ``sorted_indices``.

    Raises:
        RuntimeError: For lengths that are unsorted (when required), not
            positive, not one per sequence, or longer than ``T``.
    """
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtypes.int64)
    else:
        lengths = as_tensor(lengths, dtype=dtypes.int64)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = sort(lengths, descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    sizes = [int(n) for n in lengths.tolist()]
    _check_lengths(sizes, input._shape[1], input._shape[0])
    batch = input._shape[1]
    steps = _batch_sizes(sizes)
    rows = [t * batch + b for t, size in enumerate(steps) for b in range(size)]
    width = input.numel() // max(1, input._shape[0] * batch)
    data = PackPaddedSequence.apply(input, rows=rows, width=width)
    batch_sizes = as_tensor(steps, dtype=dtypes.int64)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _check_lengths(lengths: list[int], batch: int, steps: int) -> None:
    if any(n <= 0 for n in lengths):
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element "
            "in 'lengths' that is <= 0"
        )
    if len(lengths) != batch:
        raise RuntimeError(
            "Expected `len(lengths)` to be equal to batch_size, but got "
            f"{len(lengths)} (batch_size={batch})"
        )
    if any(a < b for a, b in zip(lengths, lengths[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when "
            "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
            "pack_padded_sequence and/or pack_sequence to sidestep this "
            "requirement if you do not need ONNX exportability."
        )
    if lengths[0] > steps:
        raise RuntimeError(
            f"a length of {lengths[0]} is longer than the padded sequences, "
            f"which have {steps} steps"
        )


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Undoes :func:`pack_padded_sequence`: a padded batch and the lengths.

    Args:
        sequence: The packed batch.
        batch_first: Return ``(B, T, *)`` instead of ``(T, B, *)``.
        padding_value: What fills the steps past each sequence's end.
        total_length: Pad to this many steps instead of the longest length.

    Returns:
        The padded tensor (in the original order of the batch) and an int64
        tensor of the lengths.

    Raises:
        ValueError: If ``total_length`` is shorter than the longest sequence.
    """
    steps = [int(n) for n in sequence.batch_sizes.tolist()]
    length = len(steps)
    if total_length is not None:
        if total_length < length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest "
                f"sequence in input, but got total_length={total_length} and max "
                f"sequence length being {length}"
            )
        length = total_length
    data = sequence.data
    padded = data.new_full((length, steps[0], *data._shape[1:]), padding_value)
    start = 0
    for t, size in enumerate(steps):
        padded[t, :size].copy_(data[start : start + size])
        start += size
    lengths = as_tensor(
        [sum(1 for size in steps if size > b) for b in range(steps[0])],
        dtype=dtypes.int64,
    )
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    return padded, lengths


# ----------------------------------------------------------------------
# Padding a list of sequences, and the inverses
# ----------------------------------------------------------------------


def pad_sequence(
    sequences: Tensor | Iterable[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stacks sequences ``(L_i, *)`` into one padded ``(T, B, *)`` tensor.

    Args:
        sequences: Tensors whose trailing dimensions agree.
        batch_first: Return ``(B, T, *)`` instead.
        padding_value: What fills the missing steps.
        padding_side: ``"right"`` (padding after each sequence) or ``"left"``.

    Raises:
        RuntimeError: For no sequences, trailing sizes that differ, or an
            unknown ``padding_side``.
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of "
            f"type: {type(sequences)}"
        )
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    first = sequences[0]
    longest = max(s._shape[0] for s in sequences)
    shape = (longest, len(sequences), *first._shape[1:])
    if batch_first:
        shape = (len(sequences), longest, *first._shape[1:])
    padded = first.new_full(shape, padding_value)
    for b, sequence in enumerate(sequences):
        size = sequence._shape[0]
        start = 0 if padding_side == "right" else longest - size
        row = padded[b] if batch_first else padded[:, b]
        row[start : start + size].copy_(sequence)
    return padded


def pack_sequence(
    sequences: list[Tensor], enforce_sorted: bool = True
) -> PackedSequence:
    """Packs a list of sequences ``(L_i, *)`` (pads, then packs)."""
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(
        pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted
    )


def unpad_sequence(
    padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False
) -> list[Tensor]:
    """The list of sequences in a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [
        sequence[: int(length)]
        for sequence, length in zip(padded_sequences.unbind(0), lengths.tolist())
    ]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences in a packed batch, in the batch's order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
