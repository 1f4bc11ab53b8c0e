"""``Upsample`` and its two fixed forms: resizing by :func:`F.interpolate`."""

from __future__ import annotations

from typing import Any

from slowtorch_lib._tensor import Tensor
from slowtorch_lib.nn import functional as F
from slowtorch_lib.nn.modules.module import Module

__all__ = ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"]


class Upsample(Module):
    """Resizes ``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)`` input
    to ``size`` or by ``scale_factor``, in a ``mode`` of :func:`F.interpolate`
    (``"nearest"``, ``"nearest-exact"``, ``"linear"``, ``"bilinear"``,
    ``"bicubic"``, ``"trilinear"`` or ``"area"``)."""

    def __init__(
        self,
        size: Any = None,
        scale_factor: Any = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor: Any = tuple(float(s) for s in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(
            input, self.size, self.scale_factor, self.mode, self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )  # fmt: skip

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    """``Upsample`` of ``(N, C, H, W)`` input by nearest neighbours."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample`` of ``(N, C, H, W)`` input, bilinear with aligned corners."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
