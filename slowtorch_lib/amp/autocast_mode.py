"""``torch.autocast``: lower precision inside a ``with`` block, where available.

On the CPU, the operations PyTorch lists (matrix products, ``linear``,
convolutions, attention) then run in bfloat16 (or float16 if asked), see
:mod:`slowtorch_lib.ops.autocast`; elsewhere autocast warns and does
nothing, as PyTorch does on a machine without such a device.
"""

from __future__ import annotations

import warnings
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib.ops import autocast as state

__all__ = ["autocast"]

DEVICE_TYPES = (
    "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
    "xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone"
)
CPU_DTYPES = (dtypes.bfloat16, dtypes.float16)


class autocast:  # noqa: N801 (PyTorch's name)
    """A context manager (or decorator) that lowers the precision.

    Args:
        device_type: ``"cpu"`` (``"cuda"`` and the others warn and do
            nothing here: there is no such device).
        dtype: The lower precision: bfloat16 (the CPU's default) or float16.
            Another dtype warns and disables autocast, as in PyTorch.
        enabled: False makes the block a no-op (and switches autocast off
            inside an enclosing one).
        cache_enabled: Whether a parameter's cast is made once per region.

    Raises:
        RuntimeError: For a device type PyTorch does not know.
    """

    def __init__(
        self,
        device_type: str,
        dtype: dtypes.dtype | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str) or device_type not in DEVICE_TYPES:
            raise RuntimeError(
                f"Expected one of {DEVICE_TYPES} device type at start of device "
                f"string: {device_type}"
            )
        self.device = device_type
        if dtype is None:
            dtype = state.get_autocast_dtype(device_type)
        self.fast_dtype = dtype
        if cache_enabled is None:
            cache_enabled = state.is_autocast_cache_enabled()
        self._cache_enabled = cache_enabled
        if enabled and device_type == "cuda":
            warnings.warn(
                "CUDA is not available or torch_xla is imported. Disabling autocast.",
                stacklevel=2,
            )
            enabled = False
        elif enabled and device_type == "cpu" and dtype not in CPU_DTYPES:
            warnings.warn(
                "In CPU autocast, but the target dtype is not supported. Disabling "
                "autocast.\nCPU Autocast only supports dtypes of torch.bfloat16, "
                "torch.float16 currently.",
                stacklevel=2,
            )
            enabled = False
        elif enabled and device_type != "cpu":
            warnings.warn(
                f"User specified an unsupported autocast device_type "
                f"'{device_type}'. Disabling autocast.",
                stacklevel=2,
            )
            enabled = False
        self._enabled = enabled

    def __enter__(self) -> autocast:
        self.prev_cache_enabled = state.is_autocast_cache_enabled()
        self.prev = state.is_autocast_enabled(self.device)
        self.prev_fastdtype = state.get_autocast_dtype(self.device)
        state.set_autocast_enabled(self.device, self._enabled)
        state.set_autocast_dtype(self.device, self.fast_dtype)
        state.autocast_increment_nesting()
        state.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if state.autocast_decrement_nesting() == 0:
            state.clear_autocast_cache()
        state.set_autocast_enabled(self.device, self.prev)
        state.set_autocast_dtype(self.device, self.prev_fastdtype)
        state.set_autocast_cache_enabled(self.prev_cache_enabled)

    def __call__(self, function: Any) -> Any:
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with self:
                return function(*args, **kwargs)

        return decorated
