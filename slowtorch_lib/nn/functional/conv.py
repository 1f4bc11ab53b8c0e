"""Convolutions: every window of the input times a weight matrix.

A 2-d convolution with ``O`` filters of ``C x kh x kw`` weights takes the
dot product of each filter with each window of the input. With the windows
as columns (:func:`~slowtorch_lib.nn.functional.fold.unfold`), that is one
matrix product::

    columns = F.unfold(x, (kh, kw))          # (N, C * kh * kw, L)
    out = weight.view(O, -1) @ columns       # (N, O, L)

and ``out`` viewed as ``(N, O, out_h, out_w)``. Groups split the channels
into independent convolutions, a batch dimension of the product. A
transposed convolution goes the other way: the weight matrix makes columns
from each input element, and ``fold`` adds them into their windows.

The backward of each is the other: the gradient of a convolution's input
is a transposed convolution of the output's gradient (the window sum that
autograd would give for the view), and the gradient of its weight is the
output's gradient times the columns. :class:`Convolution` records both as
one node, ``ConvolutionBackward0``, as PyTorch does.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from slowtorch_lib._dtype import bfloat16, bool_, float16, int64
from slowtorch_lib._tensor import Tensor
from slowtorch_lib._tensor_kernels import not_implemented
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.grad_mode import is_grad_enabled
from slowtorch_lib.nn.functional.fold import Pair, blocks, owned
from slowtorch_lib.nn.functional.fold import added_columns as fold
from slowtorch_lib.nn.functional.fold import sliding_columns as unfold
from slowtorch_lib.nn.functional.layers import pad
from slowtorch_lib.ops.autocast import lower_precision
from slowtorch_lib.ops.common import check_tensor, tensor_input

__all__ = [
    "conv1d",
    "conv2d",
    "conv_transpose1d",
    "conv_transpose2d",
]


@dataclass(frozen=True)
class Settings:
    """How the windows of a 2-d convolution are laid out."""

    stride: Pair = (1, 1)
    padding: Pair = (0, 0)
    dilation: Pair = (1, 1)
    groups: int = 1
    transposed: bool = False
    output_padding: Pair = (0, 0)


def convolve(x: Tensor, weight: Tensor, s: Settings) -> Tensor:
    """The convolution: every window of ``x`` times the weight matrix.

    Args:
        x: ``(N, C, H, W)``.
        weight: ``(O, C / groups, kh, kw)``.
        s: Stride, padding, dilation, groups.

    Returns:
        ``(N, O, out_h, out_w)``.
    """
    kernel = (weight.shape[2], weight.shape[3])
    columns = unfold(x, kernel, s.dilation, s.padding, s.stride)
    return weight_times_columns(weight, columns, x.shape[2:], s)


def weight_times_columns(
    weight: Tensor, columns: Tensor, size: Sequence[int], s: Settings
) -> Tensor:
    """The filters times the window columns (``(N, C * kh * kw, L)``), one
    product per group, laid out as ``(N, O, out_h, out_w)`` for an input of
    ``size``."""
    n, rows, count = columns.shape
    out_channels, _, kh, kw = weight.shape
    matrices = weight.reshape(s.groups, out_channels // s.groups, -1)
    out = matrices @ columns.view(n, s.groups, rows // s.groups, count)
    out_h = blocks(size[0], kh, s.dilation[0], s.padding[0], s.stride[0])
    out_w = blocks(size[1], kw, s.dilation[1], s.padding[1], s.stride[1])
    return out.view(n, out_channels, out_h, out_w)


def convolve_transposed(x: Tensor, weight: Tensor, s: Settings, size: Pair) -> Tensor:
    """The transposed convolution: each element of ``x`` spreads into a window.

    Args:
        x: ``(N, C, H, W)``.
        weight: ``(C, O / groups, kh, kw)``.
        s: Stride, padding, dilation, groups.
        size: ``(out_h, out_w)`` of the result.

    Returns:
        ``(N, O, out_h, out_w)``: the columns ``weight.T @ x``, folded.
    """
    n, in_channels, h, w = x.shape
    kh, kw = weight.shape[2:]
    matrices = weight.reshape(s.groups, in_channels // s.groups, -1).transpose(1, 2)
    columns = matrices @ x.reshape(n, s.groups, in_channels // s.groups, h * w)
    columns = columns.reshape(n, -1, h * w)
    full = full_size(x, (kh, kw), s)
    image = fold(columns, full, (kh, kw), s.dilation, 0, s.stride)
    return cropped(image, s.padding, size)


def full_size(x: Tensor, kernel: Pair, s: Settings) -> Pair:
    """The size of the image the windows of ``x`` spread into, unpadded."""
    h, w = x.shape[2:]
    return (
        (h - 1) * s.stride[0] + s.dilation[0] * (kernel[0] - 1) + 1,
        (w - 1) * s.stride[1] + s.dilation[1] * (kernel[1] - 1) + 1,
    )


def cropped(image: Tensor, padding: Pair, size: Pair) -> Tensor:
    """``size`` rows and columns of ``image`` from ``padding`` on, with zeros
    past its end (where ``output_padding`` reaches beyond the windows)."""
    top, left = padding
    kept = image[:, :, top : top + size[0], left : left + size[1]]
    short_h, short_w = size[0] - kept.shape[2], size[1] - kept.shape[3]
    if short_h or short_w:
        kept = pad(kept, (0, short_w, 0, short_h))
    return kept


def uncropped(grad: Tensor, padding: Pair, full: Pair) -> Tensor:
    """The gradient of :func:`cropped`: ``grad`` put back into a zero image
    of size ``full``, leaving out what lay past its end."""
    top, left = padding
    kept = grad[:, :, : max(full[0] - top, 0), : max(full[1] - left, 0)]
    below = full[0] - top - kept.shape[2]
    right = full[1] - left - kept.shape[3]
    return pad(kept, (left, right, top, below))


def weight_gradient(columns: Tensor, grad: Tensor, s: Settings) -> Tensor:
    """``grad @ columns.T``, added over the batch: ``(groups, O/g, C/g * k)``.

    ``columns`` are the windows of the tensor the filters were applied to,
    and ``grad`` the gradient of the product (for a transposed convolution,
    the roles swap).
    """
    n, channels = grad.shape[:2]
    rows, count = columns.shape[1:]
    columns = columns.view(n, s.groups, rows // s.groups, count)
    grads = grad.reshape(n, s.groups, channels // s.groups, columns.shape[-1])
    return (grads @ columns.transpose(-1, -2)).sum(0)


def rounded_once(step: Callable[..., Any]) -> Callable[..., Any]:
    """Runs a forward or backward on bfloat16 or float16 tensors in float32,
    rounding each result once at the end.

    PyTorch's convolution kernels add in float32; computed in the narrow
    dtype, the bias and every overlap of windows would round on the way.
    The tensors saved for backward stay the caller's (so that changing one
    in place is still caught); the backward reads them widened. Other
    dtypes pass straight through.
    """

    backward = step.__name__ == "backward"

    @functools.wraps(step)
    def run(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        narrow = next((a.dtype for a in args if _is_narrow(a)), None)
        if narrow is None:
            return step(ctx, *args, **kwargs)
        wide = [_widened(a) for a in args]
        if backward:  # read the saved tensors widened
            ctx.saved_tensors  # noqa: B018  (raises if one changed in place)
            saved = ctx._saved
            assert saved is not None
            ctx._saved = tuple((_widened(t), v) for t, v in saved)
            try:
                results = step(ctx, *wide, **kwargs)
            finally:
                ctx._saved = saved
            return tuple(None if r is None else r.to(narrow) for r in results)
        result = step(ctx, *wide, **kwargs)
        callers = {id(w): a for w, a in zip(wide, args) if w is not a}
        assert ctx._saved is not None
        ctx._saved = tuple(
            (callers[id(t)], callers[id(t)]._storage.version) if id(t) in callers
            else (t, v)
            for t, v in ctx._saved
        )  # fmt: skip
        return result.to(narrow)

    return run


def _is_narrow(value: Any) -> bool:
    return isinstance(value, Tensor) and value.dtype in (bfloat16, float16)


def _widened(value: Any) -> Any:
    return value.float() if _is_narrow(value) else value


class Convolution(Function):
    """A convolution or transposed convolution of 1-d or 2-d inputs.

    The forward is :func:`convolve` (or :func:`convolve_transposed`) plus the
    bias. With ``G`` the gradient of the result:

    - the input's gradient is the other one of the two applied to ``G``:
      each window's gradient added back where the window was read;
    - the weight's gradient is ``G`` times the window columns, added over
      the batch;
    - the bias's gradient is ``G`` summed over all but the channels.

    A 1-d input is a 2-d input of height 1.
    """

    holomorphic = True

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        weight: Tensor,
        bias: Tensor | None,
        *,
        settings: Settings,
    ) -> Tensor:
        ctx.save_for_backward(x, weight)
        ctx.settings = settings
        flat = x.dim() == 3  # 1-d: (N, C, L) is (N, C, 1, L)
        if flat:
            x, weight = x.unsqueeze(2), weight.unsqueeze(2)
        kernel = (weight.shape[2], weight.shape[3])
        if settings.transposed:
            size = _transposed_size(x, weight, settings)
            out = convolve_transposed(x, weight, settings, size)
        else:
            s = settings
            columns = unfold(x, kernel, s.dilation, s.padding, s.stride)
            out = weight_times_columns(weight, columns, x.shape[2:], s)
            if ctx.needs_input_grad[1]:
                ctx.columns = columns  # for the weight's gradient
        if bias is not None:
            out = out + bias.view(-1, 1, 1)
        return owned(out.squeeze(2) if flat else out, x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any, Any]:
        x, weight = ctx.saved_tensors
        s = ctx.settings
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad
        flat = x.dim() == 3
        if flat:
            x, weight = x.unsqueeze(2), weight.unsqueeze(2)
            grad_output = grad_output.unsqueeze(2)
        kernel = (weight.shape[2], weight.shape[3])
        grad_x = grad_weight = grad_bias = None
        if s.transposed:  # the gradient of the whole image, before cropping
            image_grad = uncropped(grad_output, s.padding, full_size(x, kernel, s))
            whole = replace(s, padding=(0, 0))
        if needs_x and s.transposed:
            grad_x = convolve(image_grad, weight, whole)
        elif needs_x:
            grad_x = convolve_transposed(grad_output, weight, s, tuple(x.shape[2:]))
        if needs_weight and s.transposed:
            windows = unfold(image_grad, kernel, s.dilation, 0, s.stride)
            grad_weight = weight_gradient(windows, x, whole)
        elif needs_weight:
            # The forward's columns, unless the gradient needs a graph itself.
            columns = ctx.columns
            if is_grad_enabled():
                columns = unfold(x, kernel, s.dilation, s.padding, s.stride)
            grad_weight = weight_gradient(columns, grad_output, s)
        if grad_weight is not None:
            grad_weight = grad_weight.reshape(weight.shape)
        if needs_bias:
            grad_bias = grad_output.sum((0, 2, 3))
        if flat:
            grad_x = None if grad_x is None else grad_x.squeeze(2)
            grad_weight = None if grad_weight is None else grad_weight.squeeze(2)
        return grad_x, grad_weight, grad_bias


# In bfloat16 and float16 both directions add in float32 and round once, as
# PyTorch's kernels do; put on here, out of the class that the book quotes.
for _step in ("forward", "backward"):
    setattr(Convolution, _step, staticmethod(rounded_once(getattr(Convolution, _step))))


def _transposed_size(x: Tensor, weight: Tensor, s: Settings) -> Pair:
    """``(H - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``."""
    sizes = []
    for i in range(2):
        sizes.append(
            (x.shape[2 + i] - 1) * s.stride[i]
            - 2 * s.padding[i]
            + s.dilation[i] * (weight.shape[2 + i] - 1)
            + s.output_padding[i]
            + 1
        )
    return (sizes[0], sizes[1])


# ----------------------------------------------------------------------
# The functions: arguments checked as PyTorch checks them
# ----------------------------------------------------------------------


def _numbers(value: Any, dims: int, name: str) -> tuple[int, ...]:
    """``value`` as ``dims`` integers (one number stands for all)."""
    if isinstance(value, int):
        return (value,) * dims
    values = tuple(int(v) for v in value)
    if len(values) == 1:
        return values * dims
    if len(values) != dims:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {dims} "
            f"values to match the convolution dimensions, but got {name}="
            f"{list(values)}"
        )
    return values


def _as_pair(values: tuple[int, ...], fill: int) -> Pair:
    """A 1-d setting as the 2-d one of height 1 (``fill`` for the height)."""
    return (fill, values[0]) if len(values) == 1 else (values[0], values[1])


def _check_shapes(
    x: Tensor, weight: Tensor, bias: Tensor | None, groups: int, transposed: bool
) -> None:
    """PyTorch's refusals of mismatched input, weight, bias and groups."""
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    shape = list(weight.shape)
    if not transposed and weight.shape[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at "
            f"dimension 0, but got weight of size [{shape}] instead"
        )
    channels = weight.shape[0] if transposed else weight.shape[1] * groups
    if x.shape[1] != channels:
        expected = "of shape" if transposed else f"to have {channels} channels,"
        raise RuntimeError(
            f"Given {'transposed=1, ' if transposed else ''}groups={groups}, "
            f"weight of size {shape}, expected input{list(x.shape)} {expected} "
            f"but got {x.shape[1]} channels instead"
        )
    out_channels = weight.shape[1] * groups if transposed else weight.shape[0]
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(
            f"Given weight of size {shape}, expected bias to be 1-dimensional with "
            f"{out_channels} elements, but got bias of size {list(bias.shape)} "
            "instead"
        )
    if x.dtype is not weight.dtype:
        raise RuntimeError(
            f"expected scalar type {x.dtype.c_name} but found {weight.dtype.c_name}"
        )


def _same_padding(
    x: Tensor, weight: Tensor, dilation: tuple[int, ...]
) -> tuple[Tensor, tuple[int, ...]]:
    """Pads so that the output has the input's size (``padding="same"``).

    A window spans ``dilation * (k - 1)`` more elements than it steps; half
    of that goes on each side, and an odd one out on the right, as a
    separate zero pad of the input.
    """
    totals = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
    extra: list[int] = []
    for total in reversed(totals):
        extra += [0, total % 2]
    if any(extra):
        warnings.warn(
            "Using padding='same' with even kernel lengths and odd dilation may "
            "require a zero-padded copy of the input be created",
            stacklevel=4,
        )
        x = pad(x, tuple(extra))
    return x, tuple(total // 2 for total in totals)


def _conv(
    name: str,
    dims: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
) -> Tensor:
    check_tensor(name, weight, 2, "weight")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to "
            f"{name}, but got input of size: {list(input.shape)}"
        )
    if input.dim() == dims + 1:
        batched = input.unsqueeze(0)
        return _conv(
            name, dims, batched, weight, bias, stride, padding, dilation, groups
        ).squeeze(0)
    _check_shapes(input, weight, bias, groups, transposed=False)
    steps = _numbers(stride, dims, "stride")
    dilations = _numbers(dilation, dims, "dilation")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(s != 1 for s in steps):
            raise RuntimeError(
                "padding='same' is not supported for strided convolutions"
            )
        if padding == "same":
            input, pads = _same_padding(input, weight, dilations)
        else:
            pads = (0,) * dims
    else:
        pads = _numbers(padding, dims, "padding")
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in steps):
        raise RuntimeError("non-positive stride is not supported")
    if min(dilations) < 1:  # PyTorch's 1-d convolutions are 2-d ones of height 1
        shown = [1, *dilations] if dims == 1 else list(dilations)
        raise RuntimeError(f"dilation should be greater than zero, but got {shown}")
    _check_kernel_fits(input, weight, pads, dilations)
    if input.dtype == bool_:
        raise not_implemented("slow_conv2d_cpu", input.dtype)
    settings = Settings(
        stride=_as_pair(steps, 1),
        padding=_as_pair(pads, 0),
        dilation=_as_pair(dilations, 1),
        groups=groups,
    )
    return Convolution.apply(input, weight, bias, settings=settings)


def _check_kernel_fits(
    x: Tensor, weight: Tensor, pads: tuple[int, ...], dilations: tuple[int, ...]
) -> None:
    sizes = [n + 2 * p for n, p in zip(x.shape[2:], pads)]
    kernel = [d * (k - 1) + 1 for d, k in zip(dilations, weight.shape[2:])]
    if any(k > n for k, n in zip(kernel, sizes)):
        padded = " x ".join(map(str, sizes))
        window = " x ".join(map(str, kernel))
        raise RuntimeError(
            f"Calculated padded input size per channel: ({padded}). Kernel size: "
            f"({window}). Kernel size can't be greater than actual input size"
        )


@lower_precision
@tensor_input
def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """A 2-d convolution of ``(N, C, H, W)`` (or ``(C, H, W)``) input.

    Args:
        weight: ``(O, C / groups, kh, kw)``.
        bias: ``(O,)`` or None.
        stride: Steps between windows: a number or ``(sh, sw)``.
        padding: Zeros around the input: a number, a pair, ``"valid"`` (none)
            or ``"same"`` (as much as keeps the size; stride 1 only).
        dilation: Steps between the elements of a window.
        groups: Splits the channels into this many separate convolutions.

    Raises:
        RuntimeError: For shapes that do not fit together, as PyTorch does.
    """
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@lower_precision
@tensor_input
def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """A 1-d convolution of ``(N, C, L)`` (or ``(C, L)``) input.

    The arguments are those of :func:`conv2d`, with one number each;
    ``weight`` is ``(O, C / groups, k)``.
    """
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def _conv_transpose(
    name: str,
    dims: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    output_padding: Any,
    groups: int,
    dilation: Any,
) -> Tensor:
    check_tensor(name, weight, 2, "weight")
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to "
            f"{name}, but got input of size: {list(input.shape)}"
        )
    if input.dim() == dims + 1:
        return _conv_transpose(
            name, dims, input.unsqueeze(0), weight, bias, stride, padding,
            output_padding, groups, dilation,
        ).squeeze(0)  # fmt: skip
    _check_shapes(input, weight, bias, groups, transposed=True)
    steps = _numbers(stride, dims, "stride")
    pads = _numbers(padding, dims, "padding")
    extras = _numbers(output_padding, dims, "output_padding")
    dilations = _numbers(dilation, dims, "dilation")
    if any(p < 0 for p in pads):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in steps):
        raise RuntimeError("non-positive stride is not supported")
    if any(e >= max(s, d) for e, s, d in zip(extras, steps, dilations)):
        raise RuntimeError(_output_padding_message(extras, steps, dilations))
    if min(dilations) < 1:
        shown = (1, *dilations) if dims == 1 else dilations
        named = zip(("depth", "height", "width")[-len(shown) :], shown)
        raise RuntimeError(
            "dilation should be greater than zero, but got "
            + ", ".join(f"dilation_{name}: {d}" for name, d in named)
        )
    _check_output_size(input, weight, steps, pads, extras, dilations)
    if not (input.dtype.is_floating_point or input.dtype == int64):
        raise not_implemented("slow_conv_transpose2d_out_cpu", input.dtype)
    settings = Settings(
        stride=_as_pair(steps, 1),
        padding=_as_pair(pads, 0),
        dilation=_as_pair(dilations, 1),
        groups=groups,
        transposed=True,
        output_padding=_as_pair(extras, 0),
    )
    return Convolution.apply(input, weight, bias, settings=settings)


def _check_output_size(
    x: Tensor,
    weight: Tensor,
    steps: tuple[int, ...],
    pads: tuple[int, ...],
    extras: tuple[int, ...],
    dilations: tuple[int, ...],
) -> None:
    """PyTorch's refusal of a transposed convolution with an empty result."""
    settings = Settings(
        stride=_as_pair(steps, 1),
        padding=_as_pair(pads, 0),
        dilation=_as_pair(dilations, 1),
        output_padding=_as_pair(extras, 0),
    )
    kernel = weight if weight.dim() == 4 else weight.unsqueeze(2)
    image = x if x.dim() == 4 else x.unsqueeze(2)
    size = _transposed_size(image, kernel, settings)
    if min(size) < 1:
        given = " x ".join(str(n) for n in image.shape[2:])
        raise RuntimeError(
            f"Given input size per channel: ({given}). Calculated output size per "
            f"channel: ({size[0]} x {size[1]}). Output size is too small"
        )


def _output_padding_message(
    extras: tuple[int, ...], steps: tuple[int, ...], dilations: tuple[int, ...]
) -> str:
    names = ("height", "width") if len(extras) == 2 else ("width",)
    parts = [f"output_padding_{n}: {e}" for n, e in zip(names, extras)]
    parts += [f"stride_{n}: {s}" for n, s in zip(names, steps)]
    parts += [f"dilation_{n}: {d}" for n, d in zip(names, dilations)]
    return (
        "output padding must be smaller than either stride or dilation, but got "
        + " ".join(parts)
    )


@lower_precision
@tensor_input
def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """A transposed 2-d convolution: the input's gradient of :func:`conv2d`.

    Args:
        weight: ``(C, O / groups, kh, kw)``.
        output_padding: Extra rows and columns on one side of the result,
            to pick one of the sizes a strided :func:`conv2d` maps to ``H``.
    """
    return _conv_transpose(
        "conv_transpose2d", 2, input, weight, bias, stride, padding,
        output_padding, groups, dilation,
    )  # fmt: skip


@lower_precision
@tensor_input
def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """A transposed 1-d convolution; ``weight`` is ``(C, O / groups, k)``."""
    return _conv_transpose(
        "conv_transpose1d", 1, input, weight, bias, stride, padding,
        output_padding, groups, dilation,
    )  # fmt: skip
