"""Lazy convolutions and batch norms: channels learned from the first batch.

``nn.LazyConv2d(16, 3)`` is a ``Conv2d`` whose ``in_channels`` is read off
its first input (``input.shape[1]``, or ``shape[0]`` for an unbatched
input); ``nn.LazyBatchNorm2d()`` reads ``num_features`` the same way. Until
then their parameters (and a batch norm's running statistics) are
uninitialised; the first call shapes and draws them, as the eager layer's
constructor would have, and the module becomes that eager layer (see
:class:`~slowtorch_lib.nn.modules.lazy.LazyModuleMixin`).
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib._creation import tensor
from slowtorch_lib._dtype import dtype as Dtype
from slowtorch_lib._dtype import int64
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d
from slowtorch_lib.nn.modules.conv import (
    Conv1d,
    Conv2d,
    ConvTranspose1d,
    ConvTranspose2d,
)
from slowtorch_lib.nn.modules.lazy import LazyModuleMixin
from slowtorch_lib.nn.parameter import UninitializedBuffer, UninitializedParameter

__all__ = [
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
]


class _LazyConv(LazyModuleMixin):
    """What the lazy convolutions share: finding ``in_channels``."""

    cls_to_become: type[Any] | None = None

    def _lazy_init(
        self, out_channels: int, bias: bool, factory: dict[str, Any]
    ) -> None:
        conv: Any = self
        conv.weight = UninitializedParameter(**factory)
        conv.out_channels = out_channels
        if bias:
            conv.bias = UninitializedParameter(**factory)

    def reset_parameters(self) -> None:
        conv: Any = self
        if not self.has_uninitialized_params() and conv.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Tensor) -> None:  # type: ignore[override]
        """Shapes and draws the weight and bias for ``input``'s channels."""
        conv: Any = self
        if not self.has_uninitialized_params():
            return
        conv.in_channels = self._in_channels(input)
        if conv.in_channels % conv.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        inputs, outputs = conv.in_channels, conv.out_channels // conv.groups
        if not conv.transposed:
            inputs, outputs = conv.out_channels, conv.in_channels // conv.groups
        with no_grad():
            conv.weight.materialize((inputs, outputs, *conv.kernel_size))
            if conv.bias is not None:
                conv.bias.materialize((conv.out_channels,))
            self.reset_parameters()

    def _in_channels(self, input: Tensor) -> int:
        """The channels of a batched or unbatched input.

        Raises:
            RuntimeError: For an input of another number of dimensions.
        """
        conv: Any = self
        unbatched = conv.dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(
                f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) "
                f"input to {type(self).__name__}, but got input of size: "
                f"{input.shape}"
            )
        return input._shape[1] if input.dim() == unbatched + 1 else input._shape[0]


class LazyConv2d(_LazyConv, Conv2d):
    """A :class:`Conv2d` whose ``in_channels`` comes from its first input."""

    cls_to_become: type[Any] = Conv2d

    def __init__(
        self,
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
            0, 0, kernel_size, stride, padding, dilation, groups, False,
            padding_mode, device, dtype,
        )  # fmt: skip
        self._lazy_init(out_channels, bias, {"device": device, "dtype": dtype})


class LazyConv1d(LazyConv2d):
    """A :class:`Conv1d` whose ``in_channels`` comes from its first input."""

    cls_to_become = Conv1d
    dims = 1


class LazyConvTranspose2d(_LazyConv, ConvTranspose2d):
    """A :class:`ConvTranspose2d` whose ``in_channels`` comes from its first
    input."""

    cls_to_become: type[Any] = ConvTranspose2d

    def __init__(
        self,
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
        super().__init__(
            0, 0, kernel_size, stride, padding, output_padding, groups, False,
            dilation, padding_mode, device, dtype,
        )  # fmt: skip
        self._lazy_init(out_channels, bias, {"device": device, "dtype": dtype})


class LazyConvTranspose1d(LazyConvTranspose2d):
    """A :class:`ConvTranspose1d` whose ``in_channels`` comes from its first
    input."""

    cls_to_become = ConvTranspose1d
    dims = 1


class LazyBatchNorm1d(LazyModuleMixin, BatchNorm1d):
    """A :class:`BatchNorm1d` whose ``num_features`` comes from its first
    input's second dimension."""

    cls_to_become = BatchNorm1d

    def __init__(
        self,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype)
        factory = {"device": device, "dtype": dtype}
        self.affine, self.has_bias = affine, affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(**factory)
            self.bias = UninitializedParameter(**factory)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**factory)
            self.running_var = UninitializedBuffer(**factory)
            self.num_batches_tracked = tensor(0, dtype=int64)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:  # type: ignore[override]
        """Shapes the weight, bias and statistics for ``input.shape[1]``."""
        if not self.has_uninitialized_params():
            return
        self.num_features = input._shape[1]
        shape = (self.num_features,)
        lazy: Any = (self.weight, self.bias, self.running_mean, self.running_var)
        with no_grad():
            for tensor_ in lazy:
                if tensor_ is not None:
                    tensor_.materialize(shape)
            self.reset_parameters()


class LazyBatchNorm2d(LazyBatchNorm1d):
    """A :class:`BatchNorm2d` whose ``num_features`` comes from its first
    input's second dimension."""

    cls_to_become = BatchNorm2d

    def _check_input_dim(self, input: Tensor) -> None:
        BatchNorm2d._check_input_dim(self, input)  # type: ignore[arg-type]
