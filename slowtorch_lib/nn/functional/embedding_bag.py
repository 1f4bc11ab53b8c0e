"""``embedding_bag``: the rows of a table picked by a bag of indices, pooled.

A bag is a run of indices; each bag gives one vector, the sum, the mean or
the element-wise maximum of the rows it picks. It is ``embedding``
followed by a reduction, done at once without building the picked rows::

    input   = [1, 4, 4, 2, 0]      offsets = [0, 3]
    bags    = [1, 4, 4] and [2, 0]
    result  = [w1 + w4 + w4, w2 + w0]      (mode='sum')

A 2-d input is a batch of bags of equal length, one per row.
"""

from __future__ import annotations

from dataclasses import dataclass

from slowtorch_lib import _cephes32
from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.nn.functional.layers import _renormalize
from slowtorch_lib.ops.gather_scatter import index_add_into_zeros

__all__ = ["embedding_bag"]

MODES = ("sum", "mean", "max")
INDEX_TYPES = (dtypes.int64, dtypes.int32)
FLOAT32_SUMS = (dtypes.float32, dtypes.float16, dtypes.bfloat16)


@dataclass
class Bags:
    """Where each bag starts and stops in the flat list of indices.

    Attributes:
        indices: The flat indices (a 1-d input, or a 2-d one flattened).
        spans: ``(start, stop)`` of each bag in ``indices``.
        padding_idx: A row that no bag picks, or None.
    """

    indices: list[int]
    spans: list[tuple[int, int]]
    padding_idx: int | None

    def members(self, bag: int) -> list[int]:
        """Positions in ``indices`` of the bag's members (padding left out)."""
        start, stop = self.spans[bag]
        return [k for k in range(start, stop) if self.indices[k] != self.padding_idx]


# ----------------------------------------------------------------------
# The operation: forward and backward
# ----------------------------------------------------------------------


class EmbeddingBag(Function):
    """One pooled row of ``weight`` per bag (``EmbeddingBagBackward0``).

    For ``'sum'`` (with per-sample weights ``p``, else ``p = 1``) and
    ``'mean'`` (``p = 1 / bag size``) a bag's result is
    ``sum_k p_k * weight[i_k]``: the gradient of row ``i_k`` gets
    ``p_k * grad_output[bag]`` from each place it was picked, and
    ``p_k`` gets ``grad_output[bag] . weight[i_k]``. For ``'max'`` each
    column's gradient goes to the one row that held the maximum.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        weight: Tensor,
        per_sample_weights: Tensor | None,
        *,
        bags: Bags,
        mode: str,
        scale_grad_by_freq: bool,
    ) -> Tensor:
        ctx.save_for_backward(weight, per_sample_weights)
        ctx.bags, ctx.mode = bags, mode
        ctx.scale_grad_by_freq = scale_grad_by_freq
        if mode == "max":
            values, ctx.argmax = _max_bags(weight, bags)
        else:
            scales = _member_scales(bags, "sum", per_sample_weights)
            fused = fused_sum(weight, bags.padding_idx, per_sample_weights)
            values = _weighted_sums(weight, bags, scales, fused)
        shape = (len(bags.spans), weight._shape[1])
        if mode == "mean":  # PyTorch stores the sums, then divides them
            sums = from_values(values, shape, weight.dtype)._values()
            values = _divided_by_sizes(sums, bags, weight._shape[1])
        return from_values(values, shape, weight.dtype)

    @staticmethod
    def backward(
        ctx: FunctionCtx, grad_output: Tensor
    ) -> tuple[Tensor | None, Tensor | None]:
        weight, per_sample_weights = ctx.saved_tensors
        bags: Bags = ctx.bags
        if ctx.mode == "max":
            return _max_backward(ctx.argmax, weight, grad_output), None
        grad_weight = grad_samples = None
        if ctx.needs_input_grad[0]:
            grad_weight = _sum_backward(ctx, weight, per_sample_weights, grad_output)
        if per_sample_weights is not None and ctx.needs_input_grad[1]:
            grad_samples = _sample_weights_backward(bags, weight, grad_output)
        return grad_weight, grad_samples


def _member_scales(
    bags: Bags, mode: str, per_sample_weights: Tensor | None
) -> list[float]:
    """The factor of each index's row: its sample weight, 1, or 1 / bag size.

    Padding indices get 0: they are not in any bag.
    """
    scales = [0.0] * len(bags.indices)
    samples = None if per_sample_weights is None else per_sample_weights._values()
    for bag in range(len(bags.spans)):
        members = bags.members(bag)
        for k in members:
            if samples is not None:
                scales[k] = samples[k]
            else:
                scales[k] = 1.0 / len(members) if mode == "mean" else 1.0
    return scales


def _weighted_sums(
    weight: Tensor, bags: Bags, scales: list[float], fused: bool
) -> list[float]:
    """``sum_k scales[k] * weight[indices[k]]`` over each bag, flattened.

    Float32, float16 and bfloat16 tables are summed in float32 as PyTorch's
    kernel sums them: each weighted row is added and rounded, in one
    rounding on its fast path (``fused``, a fused multiply-add), else after
    the product is rounded too.
    """
    width = weight._shape[1]
    table = weight._values()
    single = weight.dtype in FLOAT32_SUMS
    out: list[float] = []
    for bag in range(len(bags.spans)):
        total = [0.0] * width
        for k in bags.members(bag):
            row = table[bags.indices[k] * width : (bags.indices[k] + 1) * width]
            scale = [scales[k]] * width
            if not single:
                total = [t + s * v for t, s, v in zip(total, scale, row)]
            elif fused:
                total = _cephes32.fma(scale, row, total)
            else:
                total = _cephes32.add(total, _cephes32.mul(scale, row))
        out.extend(total)
    return out


def fused_sum(
    weight: Tensor, padding_idx: int | None, per_sample_weights: Tensor | None
) -> bool:
    """Whether PyTorch sums these bags on its fast path: a float32, float16
    or bfloat16 table with contiguous rows, no padding, and per-sample
    weights (if any) side by side. That path makes no ``offset2bag``."""
    return (
        weight.dtype in FLOAT32_SUMS
        and weight.stride(1) == 1
        and padding_idx is None
        and (per_sample_weights is None or per_sample_weights.stride(0) == 1)
    )


def _divided_by_sizes(values: list[float], bags: Bags, width: int) -> list[float]:
    """Each bag's row of ``values`` divided by its size (an empty bag by 1)."""
    out = list(values)
    for bag in range(len(bags.spans)):
        size = max(len(bags.members(bag)), 1)
        row = slice(bag * width, (bag + 1) * width)
        out[row] = [v / size for v in values[row]]
    return out


def _max_bags(weight: Tensor, bags: Bags) -> tuple[list[float], list[int]]:
    """Each bag's column-wise maximum, and the flat position of each maximum.

    An empty bag gives zeros and the position -1 (no gradient).
    """
    width = weight._shape[1]
    table = weight._values()
    values: list[float] = []
    argmax: list[int] = []
    for bag in range(len(bags.spans)):
        rows = [bags.indices[k] * width for k in bags.members(bag)]
        for j in range(width):
            if not rows:
                values.append(0.0)
                argmax.append(-1)
                continue
            best = rows[0] + j
            for row in rows[1:]:
                if table[row + j] > table[best]:
                    best = row + j
            values.append(table[best])
            argmax.append(best)
    return values, argmax


def _sum_backward(
    ctx: FunctionCtx,
    weight: Tensor,
    per_sample_weights: Tensor | None,
    grad_output: Tensor,
) -> Tensor:
    """The gradient of ``weight`` for ``'sum'`` and ``'mean'``.

    Each member ``k`` of bag ``b`` adds ``p_k * grad_output[b]`` to row
    ``indices[k]``: ``p_k`` is 1 (``'sum'``), ``1 / bag size`` (``'mean'``)
    or the sample weight, a tensor, so that this gradient can itself be
    differentiated with respect to it.
    """
    bags: Bags = ctx.bags
    members = [(b, k) for b in range(len(bags.spans)) for k in bags.members(b)]
    factors = _member_scales(bags, ctx.mode, None)
    if ctx.scale_grad_by_freq:
        divisors = _frequency_divisors(bags.indices)
        factors = [f / divisors[i] for f, i in zip(factors, bags.indices)]
    scales = from_values(
        [factors[k] for _, k in members], (len(members),), weight.dtype
    )
    if per_sample_weights is not None:
        scales = scales * per_sample_weights.index_select(
            0, _long([k for _, k in members])
        )
    rows = grad_output.index_select(0, _long([b for b, _ in members]))
    width = weight._shape[1]
    positions = [bags.indices[k] * width + j for _, k in members for j in range(width)]
    return index_add_into_zeros(rows * scales.unsqueeze(1), positions, weight._shape)


def _sample_weights_backward(bags: Bags, weight: Tensor, grad_output: Tensor) -> Tensor:
    """``grad_output[bag] . weight[indices[k]]`` for each index ``k`` (0 for
    padding)."""
    bag_of = [-1] * len(bags.indices)
    for bag in range(len(bags.spans)):
        for k in bags.members(bag):
            bag_of[k] = bag
    kept = [k for k, bag in enumerate(bag_of) if bag >= 0]
    rows = grad_output.index_select(0, _long([bag_of[k] for k in kept]))
    picked = weight.index_select(0, _long([bags.indices[k] for k in kept]))
    dots = (rows * picked).sum(1)
    return index_add_into_zeros(dots, kept, (len(bags.indices),))


def _max_backward(argmax: list[int], weight: Tensor, grad_output: Tensor) -> Tensor:
    """Each column's gradient, added to the element that held the maximum."""
    kept = [n for n, position in enumerate(argmax) if position >= 0]
    gradients = grad_output.reshape(-1).index_select(0, _long(kept))
    return index_add_into_zeros(gradients, [argmax[n] for n in kept], weight._shape)


def _frequency_divisors(indices: list[int]) -> dict[int, int]:
    """What PyTorch's CPU kernel divides each index's gradient by, with
    ``scale_grad_by_freq``.

    It sorts the indices and divides the gradient of the ``n``-th distinct
    index by the count of the index at *position* ``n`` of the sorted list,
    which is not always that index's own count: for ``[0, 0, 1]`` both
    divisors are 2 (the count of 0). This engine gives the same numbers.
    """
    counts: dict[int, int] = {}
    for i in indices:
        counts[i] = counts.get(i, 0) + 1
    ordered = sorted(indices)
    return {index: counts[ordered[n]] for n, index in enumerate(sorted(counts))}


def _long(values: list[int]) -> Tensor:
    return from_values(values, (len(values),), dtypes.int64)


# ----------------------------------------------------------------------
# Checks: PyTorch's, in its order
# ----------------------------------------------------------------------


def _check_index_type(tensor: Tensor) -> None:
    if tensor.dtype not in INDEX_TYPES:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following "
            f"scalar types: Long, Int; but got {tensor.dtype.legacy_type_name} "
            "instead (while checking arguments for embedding_bag)"
        )


def _check_weight_types(weight: Tensor, per_sample_weights: Tensor | None) -> None:
    if not weight.dtype.is_floating_point or weight.dtype.is_complex:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the following "
            "scalar types: Half, BFloat16, Float, Double; but got "
            f"{weight.dtype.legacy_type_name} instead (while checking arguments "
            "for embedding_bag)"
        )
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have the same type as "
            "tensor for argument #1 'per_sample_weights'; but type "
            f"{weight.dtype.legacy_type_name} does not equal "
            f"{per_sample_weights.dtype.legacy_type_name} (while checking "
            "arguments for embedding_bag)"
        )


def padding_index(padding_idx: int | None, rows: int) -> int | None:
    """``padding_idx`` made non-negative (None stays None)."""
    if padding_idx is None:
        return None
    if not -rows <= padding_idx < rows:
        raise RuntimeError(
            "padding_idx must be within the number of embeddings, "
            f"-{rows} through {rows - 1}, but got {padding_idx}"
        )
    return padding_idx % rows


def _spans(
    offsets: Tensor, count: int, include_last_offset: bool
) -> list[tuple[int, int]]:
    """``(start, stop)`` of each bag, from ``offsets`` into ``count`` indices.

    Raises:
        RuntimeError: If the first offset is not 0, an offset is past the
            end or the offsets decrease.
        IndexError: For a negative offset.
    """
    starts = offsets._values()
    if include_last_offset:
        if not starts:
            raise RuntimeError(
                "include_last_offset: number of offset should be at least 1"
            )
        if starts[-1] < 0:
            raise RuntimeError(
                "Your input appears to be incorrect: the last offset value should "
                "be the size of the indices tensor, but it seems not to be the case."
            )
    if not starts:
        return []
    if starts[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has "
            f"to start from position 0. However, got {starts[0]}\n"
            f"[ {offsets.dtype.legacy_type_name}{{}} ]"
        )
    if starts[-1] > count:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {count} but got "
            f"offsets[-1] of {starts[-1]}"
        )
    if min(starts) < 0:
        raise IndexError("index out of range in self")
    stops = starts[1:] if include_last_offset else [*starts[1:], count]
    starts = starts[:-1] if include_last_offset else starts
    if any(stop < start for start, stop in zip(starts, stops)):
        raise RuntimeError(
            "Expected i < index_size to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to "
            "PyTorch.)"
        )
    return list(zip(starts, stops))


def _check_indices(bags: Bags, rows: int, mode: str) -> None:
    """Every index of a bag must pick a row of the table."""
    for start, stop in bags.spans:
        for i in bags.indices[start:stop]:
            if 0 <= i < rows:
                continue
            if mode == "max":
                raise RuntimeError(
                    "embedding_bag: Expected idx >= 0 && idx < num_embeddings but "
                    f"found idx to be {i}"
                )
            raise RuntimeError(
                "Expected i < index_size to be true, but got false.  (Could this "
                "error message be improved?  If so, please report an enhancement "
                "request to PyTorch.)"
            )


def _flatten_input(
    input: Tensor,
    offsets: Tensor | None,
    per_sample_weights: Tensor | None,
    include_last_offset: bool,
) -> tuple[Tensor, Tensor, Tensor | None, bool]:
    """A 2-d input as one row per bag: flat indices with offsets of its rows."""
    if input.dim() == 2:
        if offsets is not None:
            kind = (
                "<class 'torch.Tensor'>"
                if isinstance(offsets, Tensor)
                else type(offsets)
            )
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is "
                "a mini-batch of fixed length sequences. However, found offsets of "
                f"type {kind}"
            )
        length = input._shape[1]
        if length == 0:
            raise RuntimeError("step must be nonzero")
        starts = list(range(0, input.numel(), length))
        offsets = from_values(starts, (len(starts),), input.dtype)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        return input.reshape(-1), offsets, per_sample_weights, False
    if input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        return input, offsets, per_sample_weights, include_last_offset
    raise ValueError(
        f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
    )


def _check_mode(mode: str, scale_grad_by_freq: bool, sparse: bool) -> None:
    if mode not in MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError(
            "max mode does not support scaling the gradient by the frequency"
        )
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")


# ----------------------------------------------------------------------
# The function
# ----------------------------------------------------------------------


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """The sum, mean or maximum of the rows of ``weight`` picked by each bag.

    Args:
        input: Indices (int64 or int32): 1-d, cut into bags by ``offsets``,
            or 2-d, one bag per row.
        weight: The table, ``(num_embeddings, embedding_dim)``.
        offsets: Where each bag starts in a 1-d ``input`` (the first is 0).
        max_norm: Rows picked with a larger norm are scaled down to it first.
        norm_type: The norm of ``max_norm``.
        scale_grad_by_freq: Divide each gradient by the number of times its
            index occurs in ``input``.
        mode: ``'sum'``, ``'mean'`` or ``'max'``.
        sparse: A sparse gradient for ``weight`` (not in this engine).
        per_sample_weights: A weight for each index, same shape as ``input``
            (``'sum'`` only).
        include_last_offset: ``offsets`` ends with one more entry, the end
            of the last bag.
        padding_idx: Indices equal to it are left out of their bag (and of
            the mean's count).

    Returns:
        ``(number of bags, embedding_dim)``; an empty bag gives zeros.

    Raises:
        ValueError: For wrong dimensions, a 2-d input with offsets, or an
            unknown mode.
        NotImplementedError: For per-sample weights outside ``'sum'``, or
            ``sparse=True``.
        RuntimeError: For bad offsets, an index outside the table or
            non-integer indices.
    """
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
            f"not None, then it must have the same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    input, offsets, per_sample_weights, include_last_offset = _flatten_input(
        input, offsets, per_sample_weights, include_last_offset
    )
    _check_mode(mode, scale_grad_by_freq, sparse)
    if max_norm is not None:
        _renormalize(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is "
            f"only supported for mode='sum' (got mode='{mode}'). Please open a "
            "feature request on GitHub."
        )
    if sparse:
        raise NotImplementedError("sparse gradients are not supported")
    pooled, _ = pool_bags(
        input,
        weight,
        offsets,
        scale_grad_by_freq,
        mode,
        per_sample_weights,
        include_last_offset,
        padding_idx,
    )
    return pooled


def pool_bags(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool,
    mode: str,
    per_sample_weights: Tensor | None,
    include_last_offset: bool,
    padding_idx: int | None,
) -> tuple[Tensor, Bags]:
    """The checked arguments, cut into bags and pooled; and the bags."""
    _check_index_type(input)
    _check_index_type(offsets)
    _check_weight_types(weight, per_sample_weights)
    rows = weight._shape[0]
    padding = padding_index(padding_idx, rows)
    spans = _spans(offsets, input.numel(), include_last_offset)
    bags = Bags(input._values(), spans, padding)
    _check_indices(bags, rows, mode)
    pooled = EmbeddingBag.apply(
        weight,
        per_sample_weights,
        bags=bags,
        mode=mode,
        scale_grad_by_freq=scale_grad_by_freq,
    )
    return pooled, bags


# ----------------------------------------------------------------------
# What PyTorch's kernel records beside the result
# ----------------------------------------------------------------------


@dataclass
class BagRecords:
    """What ``torch.embedding_bag`` returns beside the pooled rows, for its
    backward.

    Attributes:
        offset2bag: The bag of each index (empty where PyTorch's fast
            ``'sum'`` path skips it).
        bag_size: The indices of each bag, padding left out (zeros for
            ``'sum'``).
        max_indices: For ``'max'``, ``(bags, embedding_dim)``: the row that
            gave each maximum (0 for an empty bag); otherwise ``bag_size``.
        max_shape: The shape of ``max_indices``.
    """

    offset2bag: list[int]
    bag_size: list[int]
    max_indices: list[int]
    max_shape: tuple[int, ...]


def bag_records(
    weight: Tensor,
    bags: Bags,
    offsets: list[int],
    mode: str,
    fast_sum: bool,
    requires_grad: bool,
) -> BagRecords:
    """The bag of each index, the size of each bag and the rows of the
    maxima, as PyTorch's CPU kernel fills them.

    Args:
        weight: The table.
        bags: The checked bags.
        offsets: The offsets as given (with the last one for
            ``include_last_offset``).
        mode: ``'sum'``, ``'mean'`` or ``'max'``.
        fast_sum: PyTorch's fast ``'sum'`` path, which makes no
            ``offset2bag``.
        requires_grad: Whether ``weight`` or the per-sample weights
            require a gradient (a ``'sum'`` without has one ``bag_size`` per
            offset).
    """
    count = len(bags.indices)
    starts = [start for start, _ in bags.spans]
    bag_of = [sum(1 for s in starts if s <= k) - 1 for k in range(count)]
    sizes = [stop - start for start, stop in bags.spans]
    if sizes:
        sizes[-1] = count - starts[-1]
    for k, index in enumerate(bags.indices):
        if index == bags.padding_idx:
            sizes[bag_of[k]] -= 1
    if mode == "sum":
        sizes = [0] * (len(sizes) if requires_grad else len(offsets))
    offset2bag = [] if mode == "sum" and fast_sum else bag_of
    if mode != "max":
        return BagRecords(offset2bag, sizes, sizes, (len(sizes),))
    width = weight._shape[1]
    _, argmax = _max_bags(weight, bags)
    rows = [max(position, 0) // width for position in argmax]
    return BagRecords(offset2bag, sizes, rows, (len(bags.spans), width))
