"""``torch.autocast``: lower precision inside a ``with`` block, where available."""

from __future__ import annotations

import warnings
from typing import Any

from slowtorch_lib._dtype import dtype

__all__ = ["autocast"]

DEVICE_TYPES = (
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
    "xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone"
)


class autocast:  # noqa: N801 (PyTorch's name)
    """A context manager (or decorator) that would lower the precision.

    On ``"cuda"`` (and other absent devices) it warns and does nothing, as
    PyTorch does without such a device. Enabled on ``"cpu"`` it raises
    NotImplementedError: this engine does not run operations in bfloat16
    behind the program's back. ``enabled=False`` is accepted everywhere.

    Raises:
        RuntimeError: For a device type PyTorch does not know.
        NotImplementedError: For ``autocast("cpu")`` enabled.
    """

    def __init__(
        self,
        device_type: str,
        dtype: dtype | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str) or device_type not in DEVICE_TYPES:
            raise RuntimeError(
                f"Expected one of {DEVICE_TYPES} device type at start of device "
                f"string: {device_type}"
            )
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = enabled
        if enabled and device_type == "cuda":
            warnings.warn(
                "CUDA is not available or torch_xla is imported. Disabling autocast.",
                stacklevel=2,
            )
            self._enabled = False
        elif enabled and device_type == "cpu":
            raise NotImplementedError(
                "autocast('cpu') runs matrix products in bfloat16 in PyTorch; this "
                "engine does not lower precision behind the program's back. Use "
                "enabled=False, or cast explicitly (tensor.to(torch.bfloat16))."
            )
        elif enabled:
            warnings.warn(
                f"User specified an unsupported autocast device_type "
                f"'{device_type}'. Disabling autocast.",
                stacklevel=2,
            )
            self._enabled = False

    def __enter__(self) -> autocast:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        return None

    def __call__(self, function: Any) -> Any:
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with self:
                return function(*args, **kwargs)

        return decorated
