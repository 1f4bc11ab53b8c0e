"""Pooling layers: the largest or the average element of each window.

Each layer keeps its settings and calls :mod:`.functional.pooling`.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib._tensor import Tensor
from slowtorch_lib.nn import functional as F
from slowtorch_lib.nn.functional.convolution import not_yet
from slowtorch_lib.nn.modules.module import Module

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
]


class _MaxPoolNd(Module):
    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, "
            f"padding={self.padding}, dilation={self.dilation}, "
            f"ceil_mode={self.ceil_mode}"
        )


class MaxPool2d(_MaxPoolNd):
    """The largest element of each window (see :func:`F.max_pool2d`)."""

    def forward(self, input: Tensor) -> Any:
        return F.max_pool2d(
            input, self.kernel_size, self.stride, self.padding, self.dilation,
            ceil_mode=self.ceil_mode, return_indices=self.return_indices,
        )  # fmt: skip


class MaxPool1d(_MaxPoolNd):
    """The largest element of each window of ``(N, C, L)`` input."""

    def forward(self, input: Tensor) -> Any:
        return F.max_pool1d(
            input, self.kernel_size, self.stride, self.padding, self.dilation,
            ceil_mode=self.ceil_mode, return_indices=self.return_indices,
        )  # fmt: skip


class AvgPool2d(Module):
    """The mean of each window (see :func:`F.avg_pool2d`)."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
            self.count_include_pad, self.divisor_override,
        )  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, "
            f"padding={self.padding}"
        )


def _single(value: Any) -> tuple[int, ...]:
    return (value,) if isinstance(value, int) else tuple(value)


class AvgPool1d(Module):
    """The mean of each window of ``(N, C, L)`` input."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
            self.count_include_pad,
        )  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, "
            f"padding={self.padding}"
        )


class _AdaptivePool(Module):
    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptivePool):
    """Average pooling to a given output size (``1``: the mean of each map)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool3d(_AdaptivePool):
    """Average pooling of ``(N, C, D, H, W)`` input to a given output size."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptivePool):
    """Average pooling of ``(N, C, L)`` input to a given length."""

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool1d(input, self.output_size)


class _AdaptiveMaxPool(_AdaptivePool):
    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool2d(_AdaptiveMaxPool):
    """Max pooling to a given output size."""

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    """Max pooling of ``(N, C, L)`` input to a given length."""

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    """Max pooling of ``(N, C, D, H, W)`` input to a given output size."""

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class MaxPool3d(Module):
    """Not implemented: making one raises ``NotImplementedError``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise not_yet("nn.MaxPool3d")


class AvgPool3d(Module):
    """Not implemented: making one raises ``NotImplementedError``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise not_yet("nn.AvgPool3d")
