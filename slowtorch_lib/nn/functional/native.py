"""``torch.embedding``, ``torch.embedding_bag``, ``torch.ctc_loss`` and
others: the plain forms under the functional layers.

In PyTorch, ``F.embedding``, ``F.embedding_bag``, ``F.ctc_loss``,
``F.grid_sample``, ``F.affine_grid`` and others are Python functions that
check their arguments and call functions of the ``torch`` namespace, which
take plain positional values: the padding row as an int (``-1`` for none),
modes and reductions as numbers. ``torch.embedding_bag`` also returns what
its backward keeps beside the pooled rows. Programs call these forms too;
here each one converts its arguments and calls the operation its
functional form calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.nn.functional import adaptive_pooling
from slowtorch_lib.nn.functional.ctc import reduced_ctc_loss
from slowtorch_lib.nn.functional.embedding_bag import (
    MODES,
    bag_records,
    fused_sum,
    padding_index,
    pool_bags,
)
from slowtorch_lib.nn.functional.grid_sample import (
    MODES as SAMPLING_MODES,
)
from slowtorch_lib.nn.functional.grid_sample import (
    PADDING_MODES,
    generate_grid,
    sample_grid,
)
from slowtorch_lib.nn.functional.layers import Embedding, check_lookup

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_max_pool1d",
    "affine_grid_generator",
    "ctc_loss",
    "embedding",
    "embedding_bag",
    "grid_sampler",
    "grid_sampler_2d",
    "grid_sampler_3d",
]

# The reduction of losses by its number (``at::Reduction``); others: none.
REDUCTIONS = {1: "mean", 2: "sum"}


def _argument(function: str, name: str, position: int, value: Any, kind: str) -> None:
    """PyTorch's ``TypeError`` for an argument of the wrong type.

    ``kind`` is ``'int'``, ``'bool'`` or ``'Tensor'``.
    """
    accepted = {"int": int, "bool": bool, "Tensor": Tensor}[kind]
    if isinstance(value, accepted) and not (kind == "int" and isinstance(value, bool)):
        return
    raise TypeError(
        f"{function}(): argument '{name}' (position {position}) must be {kind}, "
        f"not {type(value).__name__}"
    )


def embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows of ``weight`` picked by ``indices`` (``EmbeddingBackward0``).

    Args:
        weight: The table, ``(num_embeddings, embedding_dim)``.
        indices: int64 or int32 indices of any shape.
        padding_idx: The row that gets no gradient; one outside the table
            (``-1``) means none. Not wrapped: ``F.embedding`` wraps it.
        scale_grad_by_freq: Divide each gradient by its index's count.
        sparse: A sparse gradient (not in this engine).

    Raises:
        TypeError: For arguments of the wrong type.
        RuntimeError: For indices that are not integers, or a table that is
            not 2-d.
        IndexError: For an index outside the table.
    """
    _argument("embedding", "weight", 1, weight, "Tensor")
    _argument("embedding", "indices", 2, indices, "Tensor")
    _argument("embedding", "padding_idx", 3, padding_idx, "int")
    _argument("embedding", "scale_grad_by_freq", 4, scale_grad_by_freq, "bool")
    _argument("embedding", "sparse", 5, sparse, "bool")
    check_lookup(weight, indices, sparse)
    in_table = 0 <= padding_idx < weight._shape[0]
    return Embedding.apply(
        weight,
        indices=indices,
        padding_idx=padding_idx if in_table else None,
        scale_grad_by_freq=scale_grad_by_freq,
    )


def embedding_bag(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Pooled rows of ``weight``, one per bag, and what the backward keeps.

    Args:
        weight: The table, ``(num_embeddings, embedding_dim)``.
        indices: 1-d int64 or int32 indices, cut into bags by ``offsets``.
        offsets: Where each bag starts (the first is 0).
        scale_grad_by_freq: Divide each gradient by its index's count.
        mode: 0 (sum), 1 (mean) or 2 (max).
        sparse: A sparse gradient (not in this engine).
        per_sample_weights: A weight for each index (mode 0 only).
        include_last_offset: ``offsets`` ends with the end of the last bag.
        padding_idx: A row left out of every bag (negative counts from the
            end), or None.

    Returns:
        ``(output, offset2bag, bag_size, max_indices)``: the pooled rows
        (``EmbeddingBagBackward0``); the bag of each index (empty for a
        float32, float16 or bfloat16 sum without padding, which PyTorch
        computes without it); the size of each bag without its padding
        (zeros for a sum); for max, the row that gave each maximum, else
        ``bag_size`` again. The last three have the indices' dtype.

    Raises:
        TypeError: For arguments of the wrong type.
        RuntimeError: For bad dimensions, dtypes, offsets, indices, mode or
            per-sample weights.
        NotImplementedError: For ``sparse=True``.
    """
    _check_bag_arguments(
        weight, indices, offsets, mode, per_sample_weights, padding_idx
    )
    if sparse:
        raise NotImplementedError("sparse gradients are not supported")
    index_type = dtypes.promote_types(indices.dtype, offsets.dtype)
    output, bags = pool_bags(
        indices.reshape(-1).to(index_type),
        weight,
        offsets.to(index_type),
        scale_grad_by_freq,
        MODES[mode],
        per_sample_weights,
        include_last_offset,
        padding_idx,
    )
    fast_sum = fused_sum(weight, bags.padding_idx, per_sample_weights)
    needs_grad = weight.requires_grad or (
        per_sample_weights is not None and per_sample_weights.requires_grad
    )
    records = bag_records(
        weight, bags, offsets._values(), MODES[mode], fast_sum, needs_grad
    )
    return (
        output,
        from_values(records.offset2bag, (len(records.offset2bag),), index_type),
        from_values(records.bag_size, (len(records.bag_size),), index_type),
        from_values(records.max_indices, records.max_shape, index_type),
    )


def _check_bag_arguments(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    mode: int,
    per_sample_weights: Tensor | None,
    padding_idx: int | None,
) -> None:
    """The checks of ``torch.embedding_bag`` that ``F.embedding_bag`` makes
    in Python before it (or that its Python arguments make needless), in
    PyTorch's order: the types, the padding row, the dimensions."""
    _argument("embedding_bag", "weight", 1, weight, "Tensor")
    _argument("embedding_bag", "indices", 2, indices, "Tensor")
    _argument("embedding_bag", "offsets", 3, offsets, "Tensor")
    _argument("embedding_bag", "mode", 5, mode, "int")
    if weight.dim() > 0:
        padding_index(padding_idx, weight._shape[0])
    if weight.dim() != 2:
        raise RuntimeError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    if indices.dim() not in (1, 2):
        raise RuntimeError(
            "input has to be a 1D or 2D Tensor, but got Tensor of dimension "
            f"{indices.dim()}"
        )
    if indices.dim() == 1 and offsets.dim() != 1:
        raise RuntimeError(
            "offsets has to be a 1D Tensor, but got Tensor of dimension "
            f"{offsets.dim()}"
        )
    if mode not in (0, 1, 2):
        raise RuntimeError("`mode` must be sum, mean, or max.")
    if per_sample_weights is None:
        return
    if mode != 0:
        raise RuntimeError(
            "embedding_bag: per_sample_weights only supported with mode='sum'"
        )
    _expect(per_sample_weights.dim() == 1, "dim() == 1")
    _expect(per_sample_weights.numel() == indices.numel(), "numel() == indices.numel()")


def _expect(holds: bool, condition: str) -> None:
    """PyTorch's message for a failed check of ``per_sample_weights``."""
    if not holds:
        raise RuntimeError(
            f"Expected per_sample_weights.value().{condition} to be true, but got "
            "false.  (Could this error message be improved?  If so, please report "
            "an enhancement request to PyTorch.)"
        )


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor | Sequence[int],
    target_lengths: Tensor | Sequence[int],
    blank: int = 0,
    reduction: int = 1,
    zero_infinity: bool = False,
) -> Tensor:
    """The CTC loss, as ``F.ctc_loss`` computes it, with the reduction as a
    number: 0 none, 1 mean, 2 sum (any other number: none, as in PyTorch).

    Raises:
        TypeError: For arguments of the wrong type.
        RuntimeError: As ``F.ctc_loss``.
    """
    for position, value in ((5, blank), (6, reduction), (7, zero_infinity)):
        kind = "bool" if position == 7 else "int"
        if not isinstance(value, int) or (kind == "int" and isinstance(value, bool)):
            raise TypeError(
                "ctc_loss() received an invalid combination of arguments - got an "
                f"argument {position} of type {type(value).__name__}, but expected "
                f"{kind}"
            )
    return reduced_ctc_loss(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        blank,
        REDUCTIONS.get(reduction, "none"),
        zero_infinity,
    )


# ----------------------------------------------------------------------
# Sampling grids and adaptive pooling
# ----------------------------------------------------------------------


def affine_grid_generator(
    theta: Tensor, size: Sequence[int], align_corners: bool
) -> Tensor:
    """:func:`F.affine_grid` without its Python checks (a 4-d or 5-d size)."""
    _argument("affine_grid_generator", "theta", 1, theta, "Tensor")
    _argument("affine_grid_generator", "align_corners", 3, align_corners, "bool")
    return generate_grid(theta, list(size), align_corners)


def grid_sampler(
    input: Tensor,
    grid: Tensor,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
) -> Tensor:
    """:func:`F.grid_sample` with its modes as numbers: interpolation 0
    bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection.

    Raises:
        RuntimeError: For another number (PyTorch reads uninitialised memory
            then), and as ``F.grid_sample``.
    """
    return _sampler(
        "grid_sampler",
        input,
        grid,
        interpolation_mode,
        padding_mode,
        align_corners,
        None,
    )


def grid_sampler_2d(
    input: Tensor,
    grid: Tensor,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
) -> Tensor:
    """:func:`grid_sampler` of 4-d input only."""
    return _sampler(
        "grid_sampler_2d",
        input,
        grid,
        interpolation_mode,
        padding_mode,
        align_corners,
        4,
    )


def grid_sampler_3d(
    input: Tensor,
    grid: Tensor,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
) -> Tensor:
    """:func:`grid_sampler` of 5-d input only."""
    return _sampler(
        "grid_sampler_3d",
        input,
        grid,
        interpolation_mode,
        padding_mode,
        align_corners,
        5,
    )


def _sampler(
    name: str,
    input: Tensor,
    grid: Tensor,
    interpolation_mode: int,
    padding_mode: int,
    align_corners: bool,
    dims: int | None,
) -> Tensor:
    _argument(name, "input", 1, input, "Tensor")
    _argument(name, "grid", 2, grid, "Tensor")
    _argument(name, "interpolation_mode", 3, interpolation_mode, "int")
    _argument(name, "padding_mode", 4, padding_mode, "int")
    _argument(name, "align_corners", 5, align_corners, "bool")
    for kind, number, names in (
        ("interpolation_mode", interpolation_mode, SAMPLING_MODES),
        ("padding_mode", padding_mode, PADDING_MODES),
    ):
        if not 0 <= number < len(names):
            raise RuntimeError(f"{name}(): unknown {kind} {number}")
    return sample_grid(
        input,
        grid,
        SAMPLING_MODES[interpolation_mode],
        PADDING_MODES[padding_mode],
        align_corners,
        dims,
    )


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """:func:`F.adaptive_avg_pool1d`."""
    result: Tensor = adaptive_pooling.adaptive_avg_pool1d(input, output_size)
    return result


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """:func:`F.adaptive_max_pool1d` with its indices, always."""
    return adaptive_pooling.adaptive_max_pool1d_with_indices(input, output_size)
