"""``LayerNorm`` and ``GroupNorm``: normalization within each sample."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slowtorch_lib._creation import empty
from slowtorch_lib._dtype import dtype as Dtype
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.nn import functional as F
from slowtorch_lib.nn import init
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.parameter import Parameter

__all__ = ["GroupNorm", "LayerNorm"]


class LayerNorm(Module):
    """Normalizes each sample over ``normalized_shape`` (its last dimensions),
    then scales by ``weight`` and shifts by ``bias`` (ones and zeros at first).

    Args:
        normalized_shape: The shape of the last dimensions (an int for one).
        eps: Added to the variance before the square root.
        elementwise_affine: Whether to learn ``weight`` (and ``bias``).
        bias: Whether to learn ``bias`` (if ``elementwise_affine``).
    """

    def __init__(
        self,
        normalized_shape: int | Sequence[int],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        add_affine(self, self.normalized_shape, elementwise_affine, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets ``weight`` to ones and ``bias`` to zeros."""
        reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(
            input, self.normalized_shape, self.weight, self.bias, self.eps
        )

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, "
            f"bias={self.bias is not None}"
        )


class GroupNorm(Module):
    """Normalizes each sample's channels in ``num_groups`` groups, then scales
    by ``weight`` and shifts by ``bias`` per channel (ones and zeros at first).

    Args:
        num_groups: How many groups the channels are split into.
        num_channels: ``C``, the size of dimension 1 of the input.
        eps: Added to the variance before the square root.
        affine: Whether to learn ``weight`` (and ``bias``).
        bias: Whether to learn ``bias`` (if ``affine``).

    Raises:
        ValueError: If ``num_channels`` is not divisible by ``num_groups``.
    """

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device: Any = None,
        dtype: Dtype | None = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups "
                f"({num_groups})"
            )
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        add_affine(self, (num_channels,), affine, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets ``weight`` to ones and ``bias`` to zeros."""
        reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
            f"affine={self.affine}, bias={self.bias is not None}"
        )


def add_affine(
    module: Module,
    shape: tuple[int, ...],
    affine: bool,
    bias: bool,
    dtype: Dtype | None,
    device: Any,
) -> None:
    """A norm's ``weight`` and ``bias`` of ``shape`` (``bias`` only with
    ``bias``; neither without ``affine``), registered as PyTorch's norms
    register them (``reset_parameters`` then sets them)."""
    if affine:
        module.weight = Parameter(empty(shape, dtype=dtype, device=device))
        if bias:
            module.bias = Parameter(empty(shape, dtype=dtype, device=device))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def reset_affine(module: Module) -> None:
    """Sets a norm's ``weight`` to ones and its ``bias`` to zeros."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)
