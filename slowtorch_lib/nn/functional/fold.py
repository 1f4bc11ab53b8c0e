"""``unfold`` (im2col) and ``fold`` (col2im): every window of an image as a column.

A window of a ``(N, C, H, W)`` image is a ``kh x kw`` patch of every
channel. Each one starts ``stride`` elements after the previous, so all of
them together are one strided view of the image, with no copy::

    windows = x.as_strided(
        (N, C, out_h, out_w, kh, kw),
        (sN, sC, sH * stride_h, sW * stride_w, sH * dilation_h, sW * dilation_w),
    )

``unfold`` lays that view out as ``(N, C * kh * kw, out_h * out_w)``: one
column per window. That reshape is the only copy. ``fold`` goes back: it
adds each column into the window it came from, so that an element covered
by several windows gets the sum. Each is the other's backward.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._strides import position_list
from slowtorch_lib._tensor import Tensor
from slowtorch_lib._tensor_kernels import not_implemented
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.nn.functional.layers import pad
from slowtorch_lib.ops.common import tensor_input
from slowtorch_lib.ops.gather_scatter import index_add_into_zeros
from slowtorch_lib.ops.views import detach

__all__ = ["fold", "unfold"]

Pair = tuple[int, int]


def owned(result: Tensor, source: Tensor) -> Tensor:
    """``result`` as the new tensor an operation returns: not a view of the
    forward's intermediate tensors (for autograd), nor sharing ``source``'s
    storage (a 1x1 window view reshapes without a copy)."""
    if result._storage is source._storage:
        return result.clone()
    return detach(result)


def pair(value: Any, name: str = "argument") -> Pair:
    """``3`` as ``(3, 3)``; a pair stays a pair.

    >>> pair(3), pair((1, 2))
    ((3, 3), (1, 2))
    """
    if isinstance(value, int):
        return (value, value)
    values = tuple(value)
    if len(values) == 1:
        return (int(values[0]), int(values[0]))
    if len(values) != 2:
        raise RuntimeError(
            f"{name} must either be a single int, or a tuple of two ints"
        )
    return (int(values[0]), int(values[1]))


def blocks(size: int, kernel: int, dilation: int, padding: int, stride: int) -> int:
    """How many windows fit along one dimension.

    A window spans ``dilation * (kernel - 1) + 1`` elements of the padded
    input, and windows start ``stride`` apart.

    >>> blocks(8, kernel=3, dilation=1, padding=1, stride=1)
    8
    """
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def windows(x: Tensor, kernel: Pair, dilation: Pair, stride: Pair) -> Tensor:
    """Every ``kernel`` window of an ``(N, C, H, W)`` tensor: a 6-d view.

    The result is ``(N, C, out_h, out_w, kh, kw)``. Moving to the next
    window skips ``stride`` rows or columns; moving inside a window skips
    ``dilation``. Windows that overlap read the same storage cells.
    """
    n, c, h, w = x.shape
    s_n, s_c, s_h, s_w = x.stride()
    out_h = blocks(h, kernel[0], dilation[0], 0, stride[0])
    out_w = blocks(w, kernel[1], dilation[1], 0, stride[1])
    return x.as_strided(
        (n, c, out_h, out_w, kernel[0], kernel[1]),
        (
            s_n,
            s_c,
            s_h * stride[0],
            s_w * stride[1],
            s_h * dilation[0],
            s_w * dilation[1],
        ),
        x.storage_offset(),
    )


def im2col(
    x: Tensor, kernel: Pair, dilation: Pair, padding: Pair, stride: Pair
) -> Tensor:
    """The windows of ``x`` (padded with zeros) as columns of a matrix.

    ``(N, C, H, W)`` becomes ``(N, C * kh * kw, out_h * out_w)``: the window
    view, its window dimensions moved next to the channels, then one reshape,
    which copies.
    """
    n, c = x.shape[:2]
    if padding != (0, 0):
        x = pad(x, (padding[1], padding[1], padding[0], padding[0]))
    view = windows(x, kernel, dilation, stride)  # (N, C, oh, ow, kh, kw)
    out_h, out_w = view.shape[2:4]
    columns = view.permute(0, 1, 4, 5, 2, 3)  # (N, C, kh, kw, oh, ow)
    return columns.reshape(n, c * kernel[0] * kernel[1], out_h * out_w)


def col2im(
    columns: Tensor,
    output_size: Pair,
    kernel: Pair,
    dilation: Pair,
    padding: Pair,
    stride: Pair,
) -> Tensor:
    """Adds each column back into its window of an ``output_size`` image.

    The storage positions of the window view of a zero, padded image say
    where each column element goes; elements of overlapping windows add up.
    The padding is cut off at the end.
    """
    n, rows, _ = columns.shape
    c = rows // (kernel[0] * kernel[1])
    height = output_size[0] + 2 * padding[0]
    width = output_size[1] + 2 * padding[1]
    out_h = blocks(height, kernel[0], dilation[0], 0, stride[0])
    out_w = blocks(width, kernel[1], dilation[1], 0, stride[1])
    # The window view of a row-major (N, C, height, width) image, with the
    # dimensions in the order of the columns: (N, C, kh, kw, oh, ow).
    positions = position_list(
        (n, c, kernel[0], kernel[1], out_h, out_w),
        (
            c * height * width,
            height * width,
            dilation[0] * width,
            dilation[1],
            stride[0] * width,
            stride[1],
        ),
        0,
    )
    image = index_add_into_zeros(columns, positions, (n, c, height, width))
    top, left = padding
    cropped = image[:, :, top : top + output_size[0], left : left + output_size[1]]
    return cropped.contiguous()


class Im2Col(Function):
    """``F.unfold``: the windows as columns; the backward folds them back."""

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        *,
        kernel: Pair,
        dilation: Pair,
        padding: Pair,
        stride: Pair,
    ) -> Tensor:
        ctx.settings = (kernel, dilation, padding, stride)
        ctx.input_size = tuple(x.shape[-2:])
        batch = x if x.dim() == 4 else x.unsqueeze(0)  # one image: a batch of 1
        columns = im2col(batch, kernel, dilation, padding, stride)
        return owned(columns if x.dim() == 4 else columns.squeeze(0), x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return Col2Im.apply(
            grad_output, output_size=ctx.input_size, settings=ctx.settings
        )


class Col2Im(Function):
    """``F.fold``: columns added into their windows; the backward unfolds."""

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        columns: Tensor,
        *,
        output_size: Pair,
        settings: tuple[Pair, Pair, Pair, Pair],
    ) -> Tensor:
        ctx.settings = settings
        batch = columns if columns.dim() == 3 else columns.unsqueeze(0)
        image = col2im(batch, output_size, *settings)
        return owned(image if columns.dim() == 3 else image.squeeze(0), columns)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        kernel, dilation, padding, stride = ctx.settings
        return Im2Col.apply(
            grad_output,
            kernel=kernel,
            dilation=dilation,
            padding=padding,
            stride=stride,
        )


def _settings(
    kernel_size: Any, dilation: Any, padding: Any, stride: Any
) -> tuple[Pair, Pair, Pair, Pair]:
    return (
        pair(kernel_size, "kernel_size"),
        pair(dilation, "dilation"),
        pair(padding, "padding"),
        pair(stride, "stride"),
    )


#: PyTorch's checks of the window settings, each as (what it says, the name
#: its message gives the sizes, the setting's index in ``_settings``, the
#: least value allowed).
SETTING_CHECKS = {
    "kernel": ("kernel size should be greater than zero", "kernel", 0, 1),
    "dilation": ("dilation should be greater than zero", "dilation", 1, 1),
    "padding": ("padding should be non-negative", "pad", 2, 0),
    "stride": ("stride should be greater than zero", "stride", 3, 1),
}


def _check_settings(settings: tuple[Pair, ...], order: tuple[str, ...]) -> None:
    """PyTorch's checks of kernel, dilation, padding and stride, in ``order``
    (unfold and fold check them in different orders)."""
    for name in order:
        says, label, index, least = SETTING_CHECKS[name]
        h, w = settings[index]
        if min(h, w) < least:
            raise RuntimeError(
                f"{says}, but got {label}_height: {h} {label}_width: {w}"
            )


def sliding_columns(
    input: Tensor,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """:func:`unfold` of any dtype (convolutions take integers too)."""
    settings = _settings(kernel_size, dilation, padding, stride)
    _check_settings(settings, ("kernel", "dilation", "padding", "stride"))
    kernel, dil, pad_, step = settings
    if 0 < input.dim() < 3:  # PyTorch reads size(dim) of a missing dimension
        d = input.dim()
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-d}, {d - 1}], "
            f"but got {d})"
        )
    if input.dim() not in (3, 4):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
            "other non-zero dimensions for input, but got: "
            f"{list(input.shape)}"
        )
    h, w = input.shape[-2:]
    out = (
        blocks(h, kernel[0], dil[0], pad_[0], step[0]),
        blocks(w, kernel[1], dil[1], pad_[1], step[1]),
    )
    if out[0] < 1 or out[1] < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size={kernel}, "
            f"dilation={dil}, padding={pad_}, calculated shape of the array of "
            f"sliding blocks as {out}, but its components must be at least one."
        )
    return Im2Col.apply(input, kernel=kernel, dilation=dil, padding=pad_, stride=step)


@tensor_input
def unfold(
    input: Tensor,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """Every window of a ``(N, C, H, W)`` batch as a column (im2col).

    Returns:
        ``(N, C * kh * kw, L)``, ``L`` the number of windows, row by row.

    Raises:
        RuntimeError: If no window fits, or ``input`` is not 3-d or 4-d.
        NotImplementedError: For integer input, as PyTorch.
    """
    columns = sliding_columns(input, kernel_size, dilation, padding, stride)
    _refuse_integers("im2col_out_cpu", input)
    return columns


def _refuse_integers(kernel: str, input: Tensor) -> None:
    """PyTorch's loops for windows take floating types and ``bool`` only."""
    d = input.dtype
    if not (d.is_floating_point or d.is_complex or d == dtypes.bool_):
        raise not_implemented(kernel, d)


@tensor_input
def added_columns(
    input: Tensor,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """:func:`fold` of any dtype (transposed convolutions take ``int64``)."""
    size = pair(output_size, "output_size")
    settings = _settings(kernel_size, dilation, padding, stride)
    _check_settings(settings, ("kernel", "stride", "dilation", "padding"))
    kernel, dil, pad_, step = settings
    if input.dim() not in (2, 3) or 0 in input.shape[input.dim() - 2 :]:
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch "
            "size and non-zero dimensions for input, but got: "
            f"{list(input.shape)}"
        )
    rows, count = input.shape[-2:]
    if rows % (kernel[0] * kernel[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product "
            f"of kernel_size, but got input.size(1)={rows} and "
            f"kernel_size={kernel}."
        )
    out_h = blocks(size[0], kernel[0], dil[0], pad_[0], step[0])
    out_w = blocks(size[1], kernel[1], dil[1], pad_[1], step[1])
    if out_h * out_w != count:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={kernel}, dilation={dil}, "
            f"padding={pad_}, stride={step}, expected size of input's dimension 2 "
            f"to match the calculated number of sliding blocks {out_h} * {out_w} = "
            f"{out_h * out_w}, but got input.size(2)={count}."
        )
    return Col2Im.apply(input, output_size=size, settings=settings)


@tensor_input
def fold(
    input: Tensor,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """Adds columns back into their windows of an image (col2im).

    Args:
        input: ``(N, C * kh * kw, L)``, as :func:`unfold` makes.
        output_size: ``(H, W)`` of the image.

    Raises:
        RuntimeError: If the sizes do not match a number of windows.
        NotImplementedError: For integer input, as PyTorch.
    """
    image = added_columns(input, output_size, kernel_size, dilation, padding, stride)
    _refuse_integers("col2im_out_cpu", input)
    return image
