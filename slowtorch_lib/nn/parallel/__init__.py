"""``torch.nn.parallel``: one model over several devices, with one device here.

Without a GPU, PyTorch's ``DataParallel`` simply runs the model it wraps;
so does this one (its parameters are named ``module.…``, as in PyTorch).
``DistributedDataParallel`` needs a process group, which this engine never
has: constructing one raises PyTorch's error for that case.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib.nn.modules.module import Module

__all__ = ["DataParallel", "DistributedDataParallel"]


class DataParallel(Module):
    """Runs ``module`` (on the CPU, the only device).

    Args:
        module: The model to run.
        device_ids, output_device, dim: Accepted; there is one device.
    """

    def __init__(
        self,
        module: Module,
        device_ids: Any = None,
        output_device: Any = None,
        dim: int = 0,
    ) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list[Any] = []
        self.dim = dim

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    """Would replicate a model over processes; raises PyTorch's error here.

    Raises:
        ValueError: Always, as PyTorch without an initialised process group.
    """

    def __init__(self, module: Module, *args: Any, **kwargs: Any) -> None:
        raise ValueError(
            "Default process group has not been initialized, please make sure to "
            "call init_process_group."
        )
