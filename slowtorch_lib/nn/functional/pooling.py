"""Pooling: the largest or the average element of each window.

A pooling layer slides a window over each channel of an image, as a
convolution does, but has no weights: it keeps the window's largest element
(max pooling) or its mean (average pooling). The windows of one ``H x W``
channel are the same for every channel, so they are worked out once, as
lists of flat positions (:func:`window_cells`), padding left out.

Where the gradient goes is the lesson of each:

- max pooling sends each window's gradient to the one element that was
  the largest. When several elements tie, PyTorch picks the first in the
  window's row-major scan (a NaN wins over any number), and so does this;
  ``amax`` would share it among the tied elements instead.
- average pooling shares the gradient evenly: each element of a window
  gets ``grad / divisor``, added up over the windows that cover it.

Adaptive pooling chooses the windows from the output size: window ``i`` of
``out`` along a dimension of ``n`` covers ``floor(i * n / out)`` up to
``ceil((i + 1) * n / out)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import not_implemented
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.nn.functional.fold import Pair, pair
from slowtorch_lib.ops.common import tensor_input
from slowtorch_lib.ops.gather_scatter import index, index_add_into_zeros

__all__ = [
    "avg_pool1d",
    "avg_pool2d",
    "max_pool1d",
    "max_pool2d",
]

Cells = list[list[int]]


# ----------------------------------------------------------------------
# The windows of one channel
# ----------------------------------------------------------------------


def pooled_size(
    size: int, kernel: int, stride: int, padding: int, dilation: int, ceil_mode: bool
) -> int:
    """How many windows fit along one dimension.

    With ``ceil_mode`` a last, partial window counts too, as long as it
    starts inside the input or its left padding.

    >>> pooled_size(5, 2, 2, 0, 1, False), pooled_size(5, 2, 2, 0, 1, True)
    (2, 3)
    """
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    count = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (count - 1) * stride >= size + padding:
        count -= 1
    return count


def _starts(
    size: int, kernel: int, stride: int, padding: int, dilation: int, count: int
) -> list[list[int]]:
    """For each window along one dimension, the input indices it covers."""
    windows = []
    for o in range(count):
        first = o * stride - padding
        covered = range(first, first + kernel * dilation, dilation)
        windows.append([i for i in covered if 0 <= i < size])
    return windows


def window_cells(rows: list[list[int]], columns: list[list[int]], width: int) -> Cells:
    """The flat positions ``r * width + c`` of every window, row by row."""
    return [
        [r * width + c for r in row for c in column]
        for row in rows
        for column in columns
    ]


def adaptive_ranges(size: int, out: int) -> list[list[int]]:
    """Window ``i`` covers ``floor(i * size / out)`` to ``ceil((i + 1) * size / out)``.

    >>> adaptive_ranges(5, 3)
    [[0, 1], [1, 2, 3], [3, 4]]
    """
    return [list(range(i * size // out, -(-(i + 1) * size // out))) for i in range(out)]


# ----------------------------------------------------------------------
# Max pooling: the first largest element of each window
# ----------------------------------------------------------------------


def lowest(d: dtypes.dtype) -> float:
    """What max pooling gives a window that covers no element of the input."""
    return -math.inf if d.is_floating_point else d.min


def first_max(window: Sequence[float]) -> int:
    """Where PyTorch's scan finds the maximum: the first largest element,
    or, if there is a NaN, the last NaN (a NaN replaces any maximum).

    >>> first_max([1.0, 3.0, 3.0]), first_max([1.0, float("nan"), 3.0])
    (1, 1)
    """
    best = 0
    for i in range(1, len(window)):
        value = window[i]
        if value > window[best] or value != value:
            best = i
    return best


class MaxPool2DWithIndices(Function):
    """The largest element of each window, and its flat position in the channel.

    The backward adds each window's gradient to the one element it picked.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, x: Tensor, *, cells: Cells, out_size: Pair
    ) -> tuple[Tensor, Tensor]:
        values = x._values()
        plane = math.prod(x.shape[-len(out_size) :])
        total = sum(values)
        exact = total != total  # a NaN (or inf - inf): scan as PyTorch does
        reads = [itemgetter(*cell, cell[0]) for cell in cells]  # always a tuple
        picked: list[Any] = []
        where: list[int] = []
        for start in range(0, len(values), plane or 1):
            channel = values[start : start + plane]
            for cell, read in zip(cells, reads):
                window = read(channel)[:-1]
                best = first_max(window) if exact else window.index(max(window))
                picked.append(window[best])
                where.append(cell[best])
        ctx.input_shape = x._shape
        count = len(cells) or 1
        ctx.positions = [(i // count) * plane + p for i, p in enumerate(where)]
        shape = tuple(x.shape[:-2]) + out_size
        indices = from_values(where, shape, dtypes.int64)
        ctx.mark_non_differentiable(indices)
        return from_values(picked, shape, x.dtype), indices

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor, _: Any) -> Tensor:
        return index_add_into_zeros(grad_output, ctx.positions, ctx.input_shape)


class MaxPool2DOverPadding(MaxPool2DWithIndices):
    """Max pooling where some windows lie wholly in the padding (a dilated
    kernel can step over every input element). As PyTorch, such a window
    gives the dtype's lowest value and, as its index, the position of its
    first step into the input's rows and columns (``first``); the backward
    passes its gradient there when that position is in the channel (past the
    channel's end, PyTorch writes into the next one; the engine does not)."""

    grad_fn_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        *,
        cells: Cells,
        out_size: Pair,
        first: Sequence[int] = (),
    ) -> tuple[Tensor, Tensor]:
        plane = x.shape[-2] * x.shape[-1]
        inside = [[p] if p < plane else [0] for p in first]
        values, indices = MaxPool2DWithIndices.forward(
            ctx, x, cells=[c or i for c, i in zip(cells, inside)], out_size=out_size
        )
        windows = values.numel() // max(len(cells), 1)
        empty = [not cell for cell in cells] * windows
        firsts = list(first) * windows
        ctx.kept = [float(not e or f < plane) for e, f in zip(empty, firsts)]
        low = lowest(x.dtype)
        picked = [low if e else v for v, e in zip(values._values(), empty)]
        where = [f if e else i for i, e, f in zip(indices._values(), empty, firsts)]
        indices = from_values(where, values._shape, dtypes.int64)
        ctx.mark_non_differentiable(indices)
        return from_values(picked, values._shape, x.dtype), indices

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor, _: Any) -> Tensor:
        kept = from_values(ctx.kept, grad_output._shape, grad_output.dtype)
        return MaxPool2DWithIndices.backward(ctx, grad_output * kept, _)


# ----------------------------------------------------------------------
# Average pooling: each window's sum over a divisor
# ----------------------------------------------------------------------


def _divided(total: float, divisor: int) -> float:
    return total / divisor


def _truncated(total: int, divisor: int) -> int:
    """Integer division rounding toward zero, as C's ``/`` (``int64`` input).

    >>> _truncated(-5, 2), _truncated(5, 2)
    (-2, 2)
    """
    quotient = abs(total) // abs(divisor)
    return quotient if (total < 0) == (divisor < 0) else -quotient


class AvgPool2D(Function):
    """Each window's sum divided by its divisor.

    The backward gives each element of a window ``grad / divisor``, added up
    over the windows that cover it: a gather of the gradient, a division, and
    an add into zeros, so that it has a backward of its own.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        *,
        cells: Cells,
        divisors: list[int],
        out_size: Pair,
    ) -> Tensor:
        values = x._values()
        plane = math.prod(x.shape[-len(out_size) :])
        divide = _truncated if not x.dtype.is_floating_point else _divided
        means = [
            divide(sum([values[start + p] for p in cell]), divisor)
            for start in range(0, len(values), plane or 1)
            for cell, divisor in zip(cells, divisors)
        ]
        ctx.input_shape = x._shape
        ctx.layout = (cells, divisors, plane)
        return from_values(means, tuple(x.shape[: -len(out_size)]) + out_size, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        cells, divisors, plane = ctx.layout
        planes = grad_output.numel() // max(len(cells), 1)
        flat = grad_output.reshape(-1)
        scale = from_values(
            [1 / d for d in divisors] * planes, flat._shape, grad_output.dtype
        )
        shared = flat * scale
        # Window w of each plane, once for each element it covers.
        window_of: list[int] = []
        position: list[int] = []
        for k in range(planes):
            for w, cell in enumerate(cells):
                window_of += [k * len(cells) + w] * len(cell)
                position += [k * plane + p for p in cell]
        spread = index(shared, window_of, (len(window_of),))
        return index_add_into_zeros(spread, position, ctx.input_shape)


# ----------------------------------------------------------------------
# The functions
# ----------------------------------------------------------------------


def check_planes(name: str, input: Tensor) -> None:
    if input.dim() not in (3, 4) or 0 in input.shape[-2:]:
        raise RuntimeError(
            f"{name}: Expected 3D or 4D (batch mode) tensor with optional 0 dim "
            f"batch size for input, but got:{list(input.shape)}"
        )


def _window_settings(
    name: str, kernel_size: Any, stride: Any, padding: Any, dilation: Any
) -> tuple[Pair, Pair, Pair, Pair]:
    """Kernel, stride (the kernel by default), padding and dilation, checked."""
    kernel = pair(kernel_size, f"{name}: kernel_size")
    empty = stride is None or (not isinstance(stride, int) and len(stride) == 0)
    step = kernel if empty else pair(stride, f"{name}: stride")
    pads = pair(padding, f"{name}: padding")
    dils = pair(dilation, f"{name}: dilation")
    if 0 in step:
        raise RuntimeError("stride should not be zero")
    for p in pads:
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    for p, k, d in zip(pads, kernel, dils):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                "pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={d}"
            )
    if pads[0] > kernel[0] // 2 or pads[1] > kernel[1] // 2:
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"padW = {pads[1]}, padH = {pads[0]}, kW = {kernel[1]}, kH = {kernel[0]}"
        )
    if min(kernel) < 1:
        raise RuntimeError(
            "kernel size should be greater than zero, but got "
            f"kH: {kernel[0]} kW: {kernel[1]}"
        )
    if min(dils) < 1:
        raise RuntimeError(
            "dilation should be greater than zero, but got "
            f"dilationH: {dils[0]} dilationW: {dils[1]}"
        )
    return kernel, step, pads, dils


def refuse_dtype(kernel: str, input: Tensor, allowed: Sequence[dtypes.dtype]) -> None:
    """PyTorch's error for a dtype its pooling loop ``kernel`` lacks: it has
    loops for floating types and for those in ``allowed``."""
    if not (input.dtype.is_floating_point or input.dtype in allowed):
        raise not_implemented(kernel, input.dtype)


#: The integer types max pooling has loops for (not ``bool``).
INTEGERS = (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)


def _sliding_cells(
    input: Tensor,
    kernel: Pair,
    stride: Pair,
    padding: Pair,
    dilation: Pair,
    ceil_mode: bool,
) -> tuple[Cells, Pair, list[list[int]], list[list[int]]]:
    h, w = input.shape[-2:]
    out_h = pooled_size(h, kernel[0], stride[0], padding[0], dilation[0], ceil_mode)
    out_w = pooled_size(w, kernel[1], stride[1], padding[1], dilation[1], ceil_mode)
    if out_h < 1 or out_w < 1:
        channels = input.shape[-3]
        raise RuntimeError(
            f"Given input size: ({channels}x{h}x{w}). Calculated output size: "
            f"({channels}x{out_h}x{out_w}). Output size is too small"
        )
    rows = _starts(h, kernel[0], stride[0], padding[0], dilation[0], out_h)
    columns = _starts(w, kernel[1], stride[1], padding[1], dilation[1], out_w)
    return window_cells(rows, columns, w), (out_h, out_w), rows, columns


@tensor_input
def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The largest element of each window of each channel.

    Args:
        input: ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size: The window: a number or ``(kh, kw)``.
        stride: Steps between windows; the kernel size by default.
        padding: Implicit ``-inf`` around the input (at most half a window).
        dilation: Steps between the elements of a window.
        ceil_mode: Keep a last, partial window.
        return_indices: Also return where each maximum was, as a flat
            position in its ``H x W`` channel.
    """
    check_planes("max_pool2d", input)
    refuse_dtype("max_pool2d", input, INTEGERS)
    settings = _window_settings("max_pool2d", kernel_size, stride, padding, dilation)
    cells, out_size, _, _ = _sliding_cells(input, *settings, ceil_mode)
    if all(cells):
        values, indices = MaxPool2DWithIndices.apply(
            input, cells=cells, out_size=out_size
        )
    else:
        first = _first_steps(input.shape[-1], settings, out_size)
        values, indices = MaxPool2DOverPadding.apply(
            input, cells=cells, out_size=out_size, first=first
        )
    return (values, indices) if return_indices else values


def _first_steps(width: int, settings: tuple[Pair, ...], out_size: Pair) -> list[int]:
    """For each window, the flat position of its first row and column at or
    past the input's start (PyTorch's index for a window of padding only)."""
    _, step, pads, dils = settings

    def first(start: int, dilation: int) -> int:
        return start + -(start // dilation) * dilation if start < 0 else start

    rows = [first(i * step[0] - pads[0], dils[0]) for i in range(out_size[0])]
    columns = [first(j * step[1] - pads[1], dils[1]) for j in range(out_size[1])]
    return [r * width + c for r in rows for c in columns]


@tensor_input
def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """:func:`max_pool2d` of ``(N, C, L)`` or ``(C, L)``, as rows of height 1."""
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"max_pool1d() Expected 2D or 3D input tensor, but got {list(input.shape)}"
        )
    kernel, step, pads, dils = _one(kernel_size, stride, padding, dilation)
    if not return_indices:
        _check_max_pool1d(input, kernel[1], step[1], pads[1], dils[1], ceil_mode)
    result = max_pool2d(
        input.unsqueeze(-2), kernel, step, pads, dils, ceil_mode, return_indices=True
    )
    values, indices = result[0].squeeze(-2), result[1].squeeze(-2)
    return (values, indices) if return_indices else values


def _check_max_pool1d(
    input: Tensor, kernel: int, stride: int, padding: int, dilation: int, ceil: bool
) -> None:
    """The checks PyTorch's own 1-d loop makes (without indices)."""
    for name, value, least in (("kernel_size", kernel, 1), ("stride", stride, 1)):
        if value < least:
            raise RuntimeError(
                f"max_pool1d() {name} must be greater than zero, but got {value}"
            )
    if padding < 0:
        raise RuntimeError(
            f"max_pool1d() padding must be non-negative, but got {padding}"
        )
    if padding > kernel // 2:
        raise RuntimeError(
            "max_pool1d() padding should be at most half of kernel size, but got "
            f"padding={padding} and kernel_size={kernel}"
        )
    if dilation < 1:
        raise RuntimeError(
            f"max_pool1d() dilation must be greater than zero, but got {dilation}"
        )
    size = pooled_size(input.shape[-1], kernel, stride, padding, dilation, ceil)
    if size <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {size}")
    if not input.requires_grad:
        refuse_dtype("max_pool1d_impl", input, ())


def _one(kernel_size: Any, stride: Any, padding: Any, dilation: Any) -> list[Any]:
    """1-d settings as the 2-d ones of a row of height 1."""

    def single(value: Any) -> int:
        return value if isinstance(value, int) else int(tuple(value)[0])

    empty = stride is None or (not isinstance(stride, int) and len(stride) == 0)
    step = single(kernel_size) if empty else single(stride)
    return [
        (1, single(kernel_size)),
        (1, step),
        (0, single(padding)),
        (1, single(dilation)),
    ]


@tensor_input
def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """The mean of each window of each channel.

    Args:
        count_include_pad: Divide by the window's size including the zero
            padding (not the part past it in ``ceil_mode``); otherwise by the
            number of input elements in the window.
        divisor_override: Divide every sum by this instead.

    The other arguments are those of :func:`max_pool2d`.
    """
    check_planes("avg_pool2d", input)
    refuse_dtype("avg_pool2d", input, (dtypes.int64,))
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, step, pads, dils = _window_settings(
        "avg_pool2d", kernel_size, stride, padding, 1
    )
    cells, out_size, rows, columns = _sliding_cells(
        input, kernel, step, pads, dils, ceil_mode
    )
    h, w = input.shape[-2:]
    spans_h = _padded_spans(h, kernel[0], step[0], pads[0], out_size[0])
    spans_w = _padded_spans(w, kernel[1], step[1], pads[1], out_size[1])
    divisors = []
    for row, span_h in zip(rows, spans_h):
        for column, span_w in zip(columns, spans_w):
            if divisor_override is not None:
                divisors.append(divisor_override)
            elif count_include_pad:
                divisors.append(span_h * span_w)
            else:
                divisors.append(len(row) * len(column))
    return AvgPool2D.apply(input, cells=cells, divisors=divisors, out_size=out_size)


def _padded_spans(
    size: int, kernel: int, stride: int, padding: int, count: int
) -> list[int]:
    """How much of each window lies inside the input and its padding."""
    return [
        min(o * stride - padding + kernel, size + padding) - (o * stride - padding)
        for o in range(count)
    ]


@tensor_input
def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """:func:`avg_pool2d` of ``(N, C, L)`` or ``(C, L)``, as rows of height 1."""
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"avg_pool1d() Expected 2D or 3D input tensor, but got {list(input.shape)}"
        )
    kernel, step, pads, _ = _one(kernel_size, stride, padding, 1)
    pooled = avg_pool2d(
        input.unsqueeze(-2), kernel, step, pads, ceil_mode, count_include_pad
    )
    return pooled.squeeze(-2)
