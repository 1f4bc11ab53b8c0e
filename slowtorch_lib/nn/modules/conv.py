"""Convolution layers: ``Conv1d``, ``Conv2d`` and their transposed versions.

A layer holds the weight (and bias) and calls :mod:`.functional`; the
weight is ``(out_channels, in_channels / groups, *kernel_size)``, or
``(in_channels, out_channels / groups, *kernel_size)`` for a transposed
convolution, initialised as PyTorch does.
"""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib._creation import empty
from slowtorch_lib._dtype import dtype as Dtype
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.nn import functional as F
from slowtorch_lib.nn import init
from slowtorch_lib.nn.functional.convolution import not_yet
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.parameter import Parameter

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
]

PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _tuple(value: Any, dims: int) -> tuple[int, ...]:
    """``value`` as ``dims`` numbers (one number stands for all)."""
    if isinstance(value, int):
        return (value,) * dims
    return tuple(int(v) for v in value)


class _ConvNd(Module):
    """What every convolution layer holds and checks.

    Args:
        in_channels: Channels of the input.
        out_channels: Channels of the output (filters).
        kernel_size: The window: a number or one per dimension.
        stride: Steps between windows.
        padding: Zeros (or ``padding_mode``) around the input: numbers,
            ``"valid"`` or ``"same"``.
        dilation: Steps between the elements of a window.
        groups: Separate convolutions over as many groups of channels.
        bias: Whether to learn a bias for each output channel.
        padding_mode: ``"zeros"``, ``"reflect"``, ``"replicate"`` or
            ``"circular"``: what the padding holds.

    Attributes:
        weight: Drawn from ``U(-b, b)`` with ``b = 1 / sqrt(fan_in)``, where
            ``fan_in`` is the number of inputs of one output element
            (``kaiming_uniform_`` with ``a=sqrt(5)``, as in PyTorch).
        bias: Drawn from the same ``U(-b, b)``, or None.
    """

    dims = 2
    transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Dtype | None = None,
        output_padding: Any = 0,
    ) -> None:
        super().__init__()
        dims = self.dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _tuple(kernel_size, dims)
        self.stride = _tuple(stride, dims)
        self.dilation = _tuple(dilation, dims)
        self.output_padding = _tuple(output_padding, dims)
        self.groups = groups
        self.padding_mode = padding_mode
        self.padding: Any
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of "
                    "{'valid', 'same'}"
                )
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError(
                    "padding='same' is not supported for strided convolutions"
                )
            self.padding = padding
        else:
            self.padding = _tuple(padding, dims)
        if padding_mode not in PADDING_MODES:
            raise ValueError(
                "padding_mode must be one of {'zeros', 'reflect', 'replicate', "
                f"'circular'}}, but got padding_mode='{padding_mode}'"
            )
        self._reversed_padding_repeated_twice = self._pad_amounts()
        if self.transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(empty(shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _pad_amounts(self) -> list[int]:
        """``F.pad``'s amounts for ``padding_mode``: last dimension first."""
        amounts: list[int] = []
        if self.padding == "valid":
            return [0] * (2 * self.dims)
        if self.padding == "same":
            for d, k in zip(reversed(self.dilation), reversed(self.kernel_size)):
                total = d * (k - 1)
                amounts += [total // 2, total - total // 2]
            return amounts
        for p in reversed(self.padding):
            amounts += [p, p]
        return amounts

    def reset_parameters(self) -> None:
        """Draws the weight and bias afresh, as PyTorch does."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        text = (
            f"{self.in_channels}, {self.out_channels}, "
            f"kernel_size={self.kernel_size}, stride={self.stride}"
        )
        if self.padding != (0,) * self.dims:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * self.dims:
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self.dims:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class _Conv(_ConvNd):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, dilation,
            groups, bias, padding_mode, device, dtype,
        )  # fmt: skip

    def forward(self, input: Tensor) -> Tensor:
        conv = F.conv2d if self.dims == 2 else F.conv1d
        if self.padding_mode == "zeros":
            return conv(
                input, self.weight, self.bias, self.stride, self.padding,
                self.dilation, self.groups,
            )  # fmt: skip
        padded = F.pad(input, self._reversed_padding_repeated_twice, self.padding_mode)
        return conv(
            padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups
        )


class Conv2d(_Conv):
    """A 2-d convolution of ``(N, C, H, W)`` input (see :class:`_ConvNd`)."""


class Conv1d(_Conv):
    """A 1-d convolution of ``(N, C, L)`` input (see :class:`_ConvNd`)."""

    dims = 1


class _ConvTranspose(_ConvNd):
    transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {type(self).__name__}'
            )
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, dilation,
            groups, bias, padding_mode, device, dtype, output_padding,
        )  # fmt: skip

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple[int, ...]:
        """The output padding that gives ``output_size`` (if given)."""
        if output_size is None:
            return self.output_padding
        sizes = list(output_size)[-self.dims :]
        extras = []
        for i, wanted in enumerate(sizes):
            smallest = (
                (input.shape[i - self.dims] - 1) * self.stride[i]
                - 2 * self.padding[i]
                + self.dilation[i] * (self.kernel_size[i] - 1)
                + 1
            )
            if not smallest <= wanted < smallest + self.stride[i]:
                raise ValueError(
                    f"requested an output size of {sizes}, but valid sizes range "
                    f"from {smallest} to {smallest + self.stride[i] - 1} (for an "
                    f"input of {list(input.shape[2:])})"
                )
            extras.append(wanted - smallest)
        return tuple(extras)

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        conv = F.conv_transpose2d if self.dims == 2 else F.conv_transpose1d
        extra = self._output_padding(input, output_size)
        return conv(
            input, self.weight, self.bias, self.stride, self.padding, extra,
            self.groups, self.dilation,
        )  # fmt: skip


class ConvTranspose2d(_ConvTranspose):
    """A transposed 2-d convolution (the input gradient of :class:`Conv2d`)."""


class ConvTranspose1d(_ConvTranspose):
    """A transposed 1-d convolution."""

    dims = 1


class Conv3d(Module):
    """Not implemented: making one raises ``NotImplementedError``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise not_yet("nn.Conv3d")
