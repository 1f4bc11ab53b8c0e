"""``ctc_loss``: Connectionist Temporal Classification.

A network reads ``T`` frames and gives, for each frame, log-probabilities of
``C`` classes, one of them the *blank*. A target ``l_1 ... l_S`` (shorter
than ``T``) can be spelled by many frame-by-frame paths: repeat a label over
several frames, put blanks anywhere, and read the path by merging repeats
and dropping blanks (``a a - b - b`` reads ``a b b``). The loss is minus the
log of the total probability of those paths.

The paths are counted with the *extended* target, a blank around every
label (``- a - b - b -``), and two tables in log space:

* ``alpha[t][s]``: the log-probability of the paths through frames
  ``0..t`` that are at position ``s`` of the extended target at frame ``t``;
* ``beta[t][s]``: the same for the frames ``t..T-1``, read backwards.

The gradient is PyTorch's: for each frame and class,
``exp(log_probs) - exp(log(sum of alpha * beta over the positions of that
class) + loss - log_probs)``, which is the derivative through a
``log_softmax`` that made ``log_probs``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.nn.functional.loss import _reduction
from slowtorch_lib.ops.selecting import where

__all__ = ["ctc_loss"]

CHECKED_FROM = "(while checking arguments for ctc_loss_allocate_outputs)"
Table = list[list[float]]


# ----------------------------------------------------------------------
# The two recursions
# ----------------------------------------------------------------------


def _log_add(*terms: float) -> float:
    """``log(sum(exp(term)))``, without overflow; ``-inf`` if all are."""
    largest = max(terms)
    if largest == -math.inf:
        return -math.inf
    return largest + math.log(sum(math.exp(term - largest) for term in terms))


def _extended(target: list[int], blank: int) -> list[int]:
    """The target with a blank before, between and after its labels."""
    extended = [blank]
    for label in target:
        extended += [label, blank]
    return extended


def _can_skip(extended: list[int], s: int, blank: int) -> bool:
    """Whether a path may jump to position ``s`` from ``s - 2``.

    It may skip the blank between two labels, unless the two labels are
    the same (``a a`` needs the blank in between to read as two).
    """
    return s >= 2 and extended[s] != blank and extended[s] != extended[s - 2]


def _log_alpha(log_probs: Table, extended: list[int], blank: int) -> Table:
    """``alpha[t][s]``, forward over the frames of ``log_probs``.

    A path starts at the first blank or the first label, and reaches ``s``
    from ``s`` (stay), ``s - 1`` (move on) or ``s - 2`` (skip a blank).
    """
    width = len(extended)
    alpha = [[-math.inf] * width for _ in log_probs]
    alpha[0][0] = log_probs[0][blank]
    if width > 1:
        alpha[0][1] = log_probs[0][extended[1]]
    for t in range(1, len(log_probs)):
        for s in range(width):
            terms = [alpha[t - 1][s]]
            if s >= 1:
                terms.append(alpha[t - 1][s - 1])
            if _can_skip(extended, s, blank):
                terms.append(alpha[t - 1][s - 2])
            alpha[t][s] = _log_add(*terms) + log_probs[t][extended[s]]
    return alpha


def _log_beta(log_probs: Table, extended: list[int], blank: int) -> Table:
    """``beta[t][s]``, backward from the last frame: the mirror of alpha.

    A path ends at the last blank or the last label.
    """
    width, last = len(extended), len(log_probs) - 1
    beta = [[-math.inf] * width for _ in log_probs]
    beta[last][width - 1] = log_probs[last][blank]
    if width > 1:
        beta[last][width - 2] = log_probs[last][extended[width - 2]]
    for t in range(last - 1, -1, -1):
        for s in range(width):
            terms = [beta[t + 1][s]]
            if s + 1 < width:
                terms.append(beta[t + 1][s + 1])
            if s + 2 < width and _can_skip(extended, s + 2, blank):
                terms.append(beta[t + 1][s + 2])
            beta[t][s] = _log_add(*terms) + log_probs[t][extended[s]]
    return beta


def _negative_log_likelihood(alpha: Table, width: int) -> float:
    """Minus the log-probability of the paths ending at the last label or
    the last blank."""
    last = alpha[-1]
    ends = [last[width - 1], last[width - 2]] if width > 1 else [last[0]]
    return -_log_add(*ends)


def _exp(value: float) -> float:
    """``exp`` that gives ``inf`` instead of raising on overflow."""
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def _gradient(log_probs: Table, extended: list[int], blank: int, nll: float) -> Table:
    """PyTorch's gradient of the loss with respect to ``log_probs``.

    ``sum over positions s of class c of alpha[t][s] * beta[t][s]`` is the
    probability of the paths through class ``c`` at frame ``t`` (times the
    probability of that class once more, since both tables count it).
    """
    alpha = _log_alpha(log_probs, extended, blank)
    beta = _log_beta(log_probs, extended, blank)
    grad: Table = []
    for t, row in enumerate(log_probs):
        through = [-math.inf] * len(row)
        for s, label in enumerate(extended):
            through[label] = _log_add(through[label], alpha[t][s] + beta[t][s])
        grad.append(
            [_exp(lp) - _exp(through[c] + nll - lp) for c, lp in enumerate(row)]
        )
    return grad


def _sample_loss(log_probs: Table, target: list[int], blank: int) -> float:
    """The loss of one sample: ``log_probs`` are its first frames only."""
    if not log_probs:
        return 0.0 if not target else math.inf
    extended = _extended(target, blank)
    return _negative_log_likelihood(
        _log_alpha(log_probs, extended, blank), len(extended)
    )


# ----------------------------------------------------------------------
# The operation
# ----------------------------------------------------------------------


class CtcLoss(Function):
    """One loss per sample of ``log_probs`` ``(T, N, C)`` (``CtcLossBackward0``).

    The gradient is zero after each sample's input length, NaN for a sample
    whose loss is infinite, and zero for it with ``zero_infinity``.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        log_probs: Tensor,
        *,
        targets: list[list[int]],
        input_lengths: list[int],
        blank: int,
        zero_infinity: bool,
    ) -> Tensor:
        frames = _frames(log_probs)
        losses = [
            _sample_loss(frames[b][:length], targets[b], blank)
            for b, length in enumerate(input_lengths)
        ]
        ctx.frames, ctx.targets, ctx.losses = frames, targets, losses
        ctx.input_lengths, ctx.blank = input_lengths, blank
        ctx.zero_infinity, ctx.shape = zero_infinity, log_probs._shape
        return from_values(losses, (len(losses),), log_probs.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        length, batch, classes = ctx.shape
        values = [0.0] * (length * batch * classes)
        for b, frames in enumerate(ctx.frames):
            used = frames[: ctx.input_lengths[b]]
            if not used or (ctx.zero_infinity and ctx.losses[b] == math.inf):
                continue
            extended = _extended(ctx.targets[b], ctx.blank)
            grad = _gradient(used, extended, ctx.blank, ctx.losses[b])
            for t, row in enumerate(grad):
                start = (t * batch + b) * classes
                values[start : start + classes] = row
        unit = from_values(values, ctx.shape, grad_output.dtype)
        return unit * grad_output.view(1, batch, 1)


def _frames(log_probs: Tensor) -> list[Table]:
    """``log_probs`` ``(T, N, C)`` as, for each sample, its ``T`` rows."""
    length, batch, classes = log_probs._shape
    values = log_probs._values()
    return [
        [
            values[(t * batch + b) * classes : (t * batch + b + 1) * classes]
            for t in range(length)
        ]
        for b in range(batch)
    ]


# ----------------------------------------------------------------------
# Arguments and checks, in PyTorch's order
# ----------------------------------------------------------------------


def _lengths(lengths: Any, name: str) -> list[int]:
    """A tensor, list or tuple of lengths as a list of ints."""
    if isinstance(lengths, Tensor):
        if lengths.dtype.is_floating_point or lengths.dtype.is_complex:
            raise RuntimeError(f"{name} must be integral")
        return [int(v) for v in lengths.reshape(-1)._values()]
    if isinstance(lengths, Sequence) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in lengths
    ):
        return list(lengths)
    raise TypeError(
        "ctc_loss() received an invalid combination of arguments - "
        f"{name} must be a tensor or a tuple of ints, not "
        f"{type(lengths).__name__}"
    )


def _check_shapes(log_probs: Tensor, targets: Tensor, blank: int) -> None:
    if log_probs.dim() != 3:
        raise RuntimeError(
            f"Expected 3-dimensional tensor, but got {log_probs.dim()}-dimensional "
            f"tensor for argument #1 'log_probs' {CHECKED_FROM}"
        )
    if not 1 <= targets.dim() <= 2:
        raise RuntimeError(
            f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional "
            f"tensor for argument #2 'targets' {CHECKED_FROM}"
        )
    if not 0 <= blank < log_probs._shape[2]:
        raise RuntimeError("blank must be in label range")


def _check_target_lengths(target_lengths: list[int]) -> None:
    for length in target_lengths:
        if length < 0:
            raise RuntimeError(
                "Expected target_lengths to have value at least 0, but got value "
                f"{length} {CHECKED_FROM}"
            )


def _wrong_size(size: int, dim: int, actual: int, at_least: bool = False) -> None:
    bound = "at least " if at_least else ""
    raise RuntimeError(
        f"Expected tensor to have size {bound}{size} at dimension {dim}, but got "
        f"size {actual} for argument #2 'targets' {CHECKED_FROM}"
    )


def _split_targets(targets: Tensor, target_lengths: list[int]) -> list[list[int]]:
    """Each sample's labels, from padded ``(N, S)`` or concatenated targets."""
    _check_target_lengths(target_lengths)
    labels = [int(v) for v in targets._values()]
    if targets.dim() == 1:
        if len(labels) != sum(target_lengths):
            _wrong_size(sum(target_lengths), 0, len(labels))
        starts = [sum(target_lengths[:b]) for b in range(len(target_lengths))]
        return [labels[s : s + n] for s, n in zip(starts, target_lengths)]
    rows, width = targets._shape
    if rows != len(target_lengths):
        _wrong_size(len(target_lengths), 0, rows)
    longest = max(target_lengths, default=0)
    if width < longest:
        _wrong_size(longest, 1, width, at_least=True)
    return [labels[b * width : b * width + n] for b, n in enumerate(target_lengths)]


def _check_input_lengths(input_lengths: list[int], frames: int) -> None:
    for length in input_lengths:
        if length < 0:
            raise RuntimeError(
                "Expected input_lengths to have value at least 0, but got value "
                f"{length} {CHECKED_FROM}"
            )
        if length > frames:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {frames}, but got "
                f"value {length} {CHECKED_FROM}"
            )


def _sample_losses(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: list[int],
    target_lengths: list[int],
    blank: int,
    zero_infinity: bool,
) -> Tensor:
    """The checked arguments, one loss per sample (``(N,)``)."""
    if not log_probs.dtype.is_floating_point or log_probs.dtype.is_complex:
        raise NotImplementedError(
            f"\"ctc_loss_cpu\" not implemented for '{log_probs.dtype.c_name}'"
        )
    _check_shapes(log_probs, targets, blank)
    batch = log_probs._shape[1]
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    split = _split_targets(targets, target_lengths)
    _check_input_lengths(input_lengths, log_probs._shape[0])
    return CtcLoss.apply(
        log_probs,
        targets=split,
        input_lengths=input_lengths,
        blank=blank,
        zero_infinity=zero_infinity,
    )


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor | Sequence[int],
    target_lengths: Tensor | Sequence[int],
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The CTC loss of frame-wise log-probabilities against label sequences.

    Args:
        log_probs: ``(T, N, C)``, or ``(T, C)`` for one sample: the
            ``log_softmax`` of each frame over ``C`` classes.
        targets: Labels (not the blank): padded ``(N, S)``, or all targets
            concatenated in one 1-d tensor.
        input_lengths: The number of frames of each sample (``<= T``).
        target_lengths: The number of labels of each sample.
        blank: The class of the blank.
        reduction: ``'none'`` (one loss per sample), ``'sum'``, or
            ``'mean'``: each loss divided by its target length, then averaged.
        zero_infinity: Infinite losses (targets no path can spell in the
            frames given) and their gradients become zero.

    Raises:
        ValueError: For an unknown reduction.
        RuntimeError: For wrong shapes, lengths or blank, or non-integer
            lengths.
        NotImplementedError: For integer ``log_probs``.
    """
    return reduced_ctc_loss(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        blank,
        _reduction(reduction),
        zero_infinity,
    )


def reduced_ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Tensor | Sequence[int],
    target_lengths: Tensor | Sequence[int],
    blank: int,
    reduction: str,
    zero_infinity: bool,
) -> Tensor:
    """:func:`ctc_loss` with a checked ``reduction``: what both
    ``F.ctc_loss`` and ``torch.ctc_loss`` compute."""
    if isinstance(input_lengths, Tensor) != isinstance(target_lengths, Tensor):
        raise TypeError(
            "ctc_loss() received an invalid combination of arguments - "
            "input_lengths and target_lengths must both be tensors or both "
            "tuples of ints"
        )
    inputs = _lengths(input_lengths, "input_lengths")
    labels = _lengths(target_lengths, "target_lengths")
    batched = log_probs.dim() == 3
    frames = log_probs if batched else log_probs.unsqueeze(1)
    losses = _sample_losses(
        frames, targets.to(dtypes.int64), inputs, labels, blank, zero_infinity
    )
    if zero_infinity:
        losses = where(losses == math.inf, _zero(losses), losses)
    if reduction == "mean":
        divisors = from_values(labels, (len(labels),), losses.dtype).clamp_min(1)
        return (losses / divisors).mean()
    if reduction == "sum":
        return losses.sum()
    return losses if batched else losses.squeeze(0)


def _zero(like: Tensor) -> Tensor:
    return from_values([0.0], (), like.dtype)
