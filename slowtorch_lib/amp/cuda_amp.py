"""``torch.cuda.amp``: the older names, deprecated in PyTorch for ``torch.amp``."""

from __future__ import annotations

import warnings
from typing import Any

from slowtorch_lib.amp import autocast_mode, grad_scaler

__all__ = ["GradScaler", "autocast"]


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`torch.cuda.amp.{name}(args...)` is deprecated. Please use "
        f"`torch.amp.{name}('cuda', args...)` instead.",
        FutureWarning,
        stacklevel=3,
    )


class GradScaler(grad_scaler.GradScaler):
    """``torch.amp.GradScaler("cuda", ...)``, with PyTorch's FutureWarning."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _deprecated("GradScaler")
        super().__init__("cuda", *args, **kwargs)


class autocast(autocast_mode.autocast):  # noqa: N801 (PyTorch's name)
    """``torch.amp.autocast("cuda", ...)``, with PyTorch's FutureWarning."""

    def __init__(self, enabled: bool = True, dtype: Any = None, **kwargs: Any) -> None:
        _deprecated("autocast")
        super().__init__("cuda", dtype=dtype, enabled=enabled, **kwargs)
