"""``torch.amp``: mixed precision, as PyTorch behaves on a CPU-only machine.

Mixed-precision training runs some operations in a 16-bit float type and
multiplies the loss by a large *scale* so that small gradients do not
round to zero in it. On a machine without a GPU, PyTorch disables the
``"cuda"`` versions with a warning and the program trains in float32;
this engine does the same. The ``"cpu"`` :class:`GradScaler` really scales
and unscales, and ``autocast("cpu")`` runs matrix products, linear
layers, convolutions and attention in bfloat16 (or float16), as PyTorch
does on the CPU.
"""

from slowtorch_lib.amp.autocast_mode import autocast
from slowtorch_lib.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "is_autocast_available"]


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can run on ``device_type``: here the CPU only."""
    return device_type == "cpu"
