"""Layers as functions: ``linear``, ``embedding``, ``dropout``, ``one_hot``, ``pad``.

These are what the modules of :mod:`slowtorch_lib.nn` call in ``forward``:
the module holds the weights, the function does the computation.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib import _rng
from slowtorch_lib._sampling import bernoulli, rounded
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import not_implemented
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.ops.autocast import lower_precision
from slowtorch_lib.ops.common import check_tensor, tensor_input
from slowtorch_lib.ops.gather_scatter import Index, index_add_into_zeros
from slowtorch_lib.ops.linalg import addmm, matmul

__all__ = ["dropout", "dropout_mask", "embedding", "linear", "one_hot", "pad"]


# ----------------------------------------------------------------------
# linear
# ----------------------------------------------------------------------


@lower_precision
@tensor_input
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``: the affine map of ``nn.Linear``.

    Args:
        input: ``(*, in_features)``.
        weight: ``(out_features, in_features)``.
        bias: ``(out_features,)`` or None.

    A batch of vectors (2-d input) with a bias is one :func:`addmm`
    (``AddmmBackward0``). Other inputs are flattened to a batch first and the
    result viewed back; without a bias it is :func:`matmul`, as in PyTorch.
    """
    check_tensor("linear", weight, 2, "weight")
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are "
            f"{input.dim()}D and {weight.dim()}D"
        )
    if bias is None:
        return matmul(input, weight.t())
    if input.dim() == 2:
        return addmm(bias, input, weight.t())
    rows = input.reshape(-1, input._shape[-1])
    result = addmm(bias, rows, weight.t())
    return result.view(*input._shape[:-1], weight._shape[0])


# ----------------------------------------------------------------------
# embedding
# ----------------------------------------------------------------------


class Embedding(Function):
    """Row ``i`` of ``weight`` for each index ``i``: a lookup table.

    The gradient of ``weight`` adds up the gradients of every place a row
    was picked (a row picked twice gets both); the row at ``padding_idx``
    gets none. With ``scale_grad_by_freq``, each place's gradient is first
    divided by the number of times its index occurs.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        weight: Tensor,
        *,
        indices: Tensor,
        padding_idx: int | None,
        scale_grad_by_freq: bool = False,
    ) -> Tensor:
        rows, width = weight._shape
        values = weight._values()
        picked: list[float] = []
        for i in indices._values():
            if not 0 <= i < rows:
                raise IndexError("index out of range in self")
            picked.extend(values[i * width : (i + 1) * width])
        ctx.save_for_backward(indices)
        ctx.weight_shape, ctx.padding_idx = weight._shape, padding_idx
        ctx.scale_grad_by_freq = scale_grad_by_freq
        return from_values(picked, (*indices._shape, width), weight.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        (indices,) = ctx.saved_tensors
        width = ctx.weight_shape[1]
        positions = [i * width + j for i in indices._values() for j in range(width)]
        if ctx.padding_idx is not None:
            padding = (indices == ctx.padding_idx).unsqueeze(-1)
            grad_output = grad_output.masked_fill(padding, 0.0)
        if ctx.scale_grad_by_freq:
            flat = indices.reshape(-1)
            counts = (flat.unsqueeze(-1) == flat).sum(-1).reshape(indices._shape)
            grad_output = grad_output / counts.unsqueeze(-1)
        return index_add_into_zeros(grad_output, positions, ctx.weight_shape)


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows of ``weight`` picked by the integer tensor ``input``.

    Args:
        input: Indices (int64 or int32) of any shape.
        weight: The table, ``(num_embeddings, embedding_dim)``.
        padding_idx: A row that receives no gradient.
        max_norm: If given, rows that are looked up and longer than this
            (in the ``norm_type`` norm) are scaled down in place first.
        scale_grad_by_freq: Divide the gradient of each place by the number
            of times its index occurs in ``input``.

    Raises:
        RuntimeError: If ``input`` is not an integer tensor.
        IndexError: For an index outside the table.
    """
    check_lookup(weight, input, sparse)
    if padding_idx is not None:
        rows = weight._shape[0]
        if not -rows <= padding_idx < rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= rows
    if max_norm is not None:
        _renormalize(weight, input, max_norm, norm_type)
    return Embedding.apply(
        weight,
        indices=input,
        padding_idx=padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
    )


def check_lookup(weight: Tensor, indices: Tensor, sparse: bool) -> None:
    """PyTorch's checks of a lookup: integer indices, a 2-d table, no
    sparse gradient (which this engine does not make).

    Raises:
        RuntimeError: For indices neither int64 nor int32, or a table that
            is not 2-d.
        NotImplementedError: For ``sparse=True``.
    """
    if indices.dtype not in (dtypes.int64, dtypes.int32):
        name = indices.dtype.c_name
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following "
            f"scalar types: Long, Int; but got torch.{name}Tensor instead (while "
            "checking arguments for embedding)"
        )
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if sparse:
        raise NotImplementedError("sparse gradients are not supported")


def _renormalize(
    weight: Tensor, indices: Tensor, max_norm: float, norm_type: float
) -> None:
    """Scales each looked-up row whose norm exceeds ``max_norm`` down to it."""
    rows, width = weight._shape
    values = weight._values()
    changed = False
    for i in sorted(set(indices._values())):
        if not 0 <= i < rows:
            raise IndexError("index out of range in self")
        row = values[i * width : (i + 1) * width]
        norm = sum(abs(v) ** norm_type for v in row) ** (1.0 / norm_type)
        if norm > max_norm:
            scale = max_norm / (norm + 1e-7)
            values[i * width : (i + 1) * width] = [v * scale for v in row]
            changed = True
    if changed:
        with no_grad():
            weight.copy_(from_values(values, weight._shape, weight.dtype))


# ----------------------------------------------------------------------
# dropout
# ----------------------------------------------------------------------


def dropout(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zeroes each element with probability ``p`` and scales the rest by
    ``1 / (1 - p)``, so that the expected value stays the same.

    Outside training (or with ``p=0``) it returns ``input`` unchanged. The
    coin flips come from the engine's default generator, so
    ``manual_seed`` makes them repeatable. The result is
    ``input * mask`` (``MulBackward0``): the gradient is the mask.

    Raises:
        ValueError: If ``p`` is not in [0, 1].
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "result type Float can't be cast to the desired output type "
            f"{input.dtype.c_name}"
        )
    mask = dropout_mask(input, p)
    if inplace:
        return input.mul_(mask)
    return input * mask


def dropout_mask(input: Tensor, p: float) -> Tensor:
    """``1 / (1 - p)`` with probability ``1 - p``, else 0, for each element.

    As PyTorch makes it on the CPU: coin flips ``bernoulli_(1 - p)``, then
    divided by ``1 - p`` in the input's dtype.
    """
    keep = 1.0 - p
    if keep == 0:  # PyTorch multiplies by zero and draws nothing
        return from_values([0.0] * input.numel(), input._shape, input.dtype)
    kind = _rng._kind(input.dtype)
    scale = rounded([1.0 / rounded([keep], kind)[0]], kind)[0]
    g = _rng.default_generator
    flips = bernoulli(g, [keep] * input.numel(), "float64")
    return from_values([scale * f for f in flips], input._shape, input.dtype)


# ----------------------------------------------------------------------
# one_hot
# ----------------------------------------------------------------------


@tensor_input
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """A new last dimension of ``num_classes`` with a 1 at each index.

    ``num_classes=-1`` means one more than the largest index.

    Raises:
        RuntimeError: For a non-int64 tensor, a negative index, an index
            too large, or an empty tensor with ``num_classes=-1``.
    """
    if tensor.dtype is not dtypes.int64:
        raise RuntimeError(
            "one_hot is only applicable to index tensor of type LongTensor."
        )
    values = tensor._values()
    if num_classes == -1:
        if not values:
            raise RuntimeError(
                "Can not infer total number of classes from empty tensor."
            )
        num_classes = max(values) + 1
    if values and min(values) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if values and max(values) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = [0] * (len(values) * num_classes)
    for row, index in enumerate(values):
        out[row * num_classes + index] = 1
    return from_values(out, (*tensor._shape, num_classes), dtypes.int64)


# ----------------------------------------------------------------------
# pad
# ----------------------------------------------------------------------


def _source_index(mode: str, index: int, size: int) -> int:
    """Which input index output ``index`` copies (-1: the fill value)."""
    if 0 <= index < size:
        return index
    if mode == "constant":
        return -1
    if mode == "replicate":
        return 0 if index < 0 else size - 1
    # reflect: mirror around the first and the last element
    return -index if index < 0 else 2 * (size - 1) - index


def _circular_sources(size: int, left: int, right: int) -> list[int]:
    """Which input index each output index copies, wrapping around.

    A negative amount first cuts elements off; the rest wraps around what
    is left (``[0, 1, 2, 3]`` padded by ``(-1, 2)``: ``1 2 3 1 2``).
    """
    start, stop = max(-left, 0), size - max(-right, 0)
    kept = stop - start
    if left > kept or right > kept:  # PyTorch would copy onto its own source
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the "
            "written-to tensor refer to a single memory location. Please clone() "
            "the tensor before performing the operation."
        )
    return [start + (o - max(left, 0)) % kept for o in range(size + left + right)]


def _pad_positions(
    shape: tuple[int, ...], pad: tuple[int, ...], mode: str
) -> tuple[list[int], tuple[int, ...]]:
    """For each output element, the flat input position it copies (-1: fill).

    ``pad`` is ``(left, right)`` pairs from the last dimension backwards,
    as in PyTorch; a negative amount removes elements.
    """
    out_shape = list(shape)
    maps: list[list[int]] = [list(range(size)) for size in shape]
    for pair in range(len(pad) // 2):
        dim = len(shape) - 1 - pair
        left, right = pad[2 * pair], pad[2 * pair + 1]
        size = shape[dim]
        new_size = size + left + right
        if new_size < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        out_shape[dim] = new_size
        if mode == "circular":
            maps[dim] = _circular_sources(size, left, right)
        else:
            maps[dim] = [_source_index(mode, o - left, size) for o in range(new_size)]
    positions = [0]
    for dim, size in enumerate(shape):
        positions = [
            p * size + i if p >= 0 and i >= 0 else -1
            for p in positions
            for i in maps[dim]
        ]
    return positions, tuple(out_shape)


class ConstantPadNd(Function):
    """``x`` with ``value`` added around (or elements cut off, for negative pads).

    The gradient is the gradient of the output with the padding cut off
    again: a constant pad with the amounts negated.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, pad: tuple[int, ...], value: Any
    ) -> Tensor:
        ctx.pad = pad
        positions, shape = _pad_positions(x._shape, pad, "constant")
        values = x._values()
        fill = value if x.dtype.is_floating_point else int(value)
        return from_values(
            [values[p] if p >= 0 else fill for p in positions], shape, x.dtype
        )

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return ConstantPadNd.apply(
            grad_output, pad=tuple(-amount for amount in ctx.pad), value=0
        )


class ReflectionPad1d(Index):
    """A mirror image of the edge (``[1, 2, 3]`` padded by 2: ``3 2 1 2 3 2 1``).

    The gradient of an element copied several times adds up, as for any
    gather by positions (:class:`~slowtorch_lib.ops.gather_scatter.Index`).
    """

    grad_fn_name = "ReflectionPad1DBackward0"


class ReflectionPad2d(Index):
    grad_fn_name = "ReflectionPad2DBackward0"


class ReflectionPad3d(Index):
    grad_fn_name = "ReflectionPad3DBackward0"


class ReplicationPad1d(Index):
    """The edge element repeated (``[1, 2, 3]`` padded by 2: ``1 1 1 2 3 3 3``)."""

    grad_fn_name = "ReplicationPad1DBackward0"


class ReplicationPad2d(Index):
    grad_fn_name = "ReplicationPad2DBackward0"


class ReplicationPad3d(Index):
    grad_fn_name = "ReplicationPad3DBackward0"


class CircularPad(Index):
    """The other end continued (``[1, 2, 3]`` padded by 2: ``2 3 1 2 3 1 2``).

    PyTorch copies the slices into place, so its node is a ``CopySlices``.
    """

    grad_fn_name = "torch::autograd::CopySlices"


GATHER_PADS = {
    "reflect": (ReflectionPad1d, ReflectionPad2d, ReflectionPad3d),
    "replicate": (ReplicationPad1d, ReplicationPad2d, ReplicationPad3d),
    "circular": (CircularPad, CircularPad, CircularPad),
}


def pad(
    input: Tensor, pad: Any, mode: str = "constant", value: float | None = None
) -> Tensor:
    """Pads (or, with negative amounts, crops) the last dimensions.

    Args:
        input: The tensor.
        pad: ``(left, right)`` for the last dimension, then optionally
            ``(top, bottom)`` for the one before, and so on.
        mode: ``'constant'`` (fill with ``value``, default 0),
            ``'reflect'`` (mirror the edge), ``'replicate'`` (repeat it) or
            ``'circular'`` (continue from the other end).
        value: The fill value of ``'constant'``.

    Raises:
        RuntimeError: For an odd or too long ``pad``, or a reflection as
            wide as the input.
        NotImplementedError: For an unknown mode or a combination of
            dimensions PyTorch does not support.
    """
    pad = tuple(int(amount) for amount in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input "
            f"dimension but got padding length {len(pad)} and input of dimension "
            f"{input.dim()}"
        )
    if mode == "constant":
        return ConstantPadNd.apply(input, pad=pad, value=0 if value is None else value)
    if mode not in GATHER_PADS:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    padded = len(pad) // 2
    if padded not in (1, 2, 3) or input.dim() not in (padded + 1, padded + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input "
            "tensor.\nSupported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    if mode in ("reflect", "replicate"):
        _check_edges(input, mode, padded)
    if mode == "reflect":
        _check_reflection(input, pad)
    if mode == "circular" and any(
        amount > input._shape[input.dim() - 1 - i // 2] for i, amount in enumerate(pad)
    ):
        raise RuntimeError("Padding value causes wrapping around more than once.")
    positions, shape = _pad_positions(input._shape, pad, mode)
    function = GATHER_PADS[mode][padded - 1]
    return function.apply(input, positions=positions, shape=shape)


def _check_edges(input: Tensor, mode: str, padded: int) -> None:
    """A mirror or a copy of an edge needs an edge, and is not for ``bool``."""
    batched = input.dim() == padded + 2
    if 0 in (input._shape[1:] if batched else input._shape):
        raise RuntimeError(
            f"Expected {padded + 1}D or {padded + 2}D (batch mode) tensor with "
            "possibly 0 batch size and other non-zero dimensions for input, but "
            f"got: {list(input._shape)}"
        )
    if input.dtype == dtypes.bool_:
        kernel = "reflection" if mode == "reflect" else "replication"
        raise not_implemented(f"{kernel}_pad{padded}d", input.dtype)


def _check_reflection(input: Tensor, pad: tuple[int, ...]) -> None:
    for pair in range(len(pad) // 2):
        dim = input.dim() - 1 - pair
        left, right = pad[2 * pair], pad[2 * pair + 1]
        if left >= input._shape[dim] or right >= input._shape[dim]:
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding "
                f"input dimension, but got: padding ({left}, {right}) at dimension "
                f"{dim} of input {list(input._shape)}"
            )
