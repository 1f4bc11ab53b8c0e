"""``torch.cpu.amp``: the older name, deprecated in PyTorch for ``torch.amp``."""

from __future__ import annotations

import warnings

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib.amp import autocast_mode

__all__ = ["autocast"]


class autocast(autocast_mode.autocast):  # noqa: N801 (PyTorch's name)
    """``torch.amp.autocast("cpu", ...)``, with PyTorch's FutureWarning."""

    def __init__(
        self,
        enabled: bool = True,
        dtype: dtypes.dtype = dtypes.bfloat16,
        cache_enabled: bool = True,
    ) -> None:
        warnings.warn(
            "`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
            "`torch.amp.autocast('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(
            "cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled
        )
