"""``torch.amp``: mixed precision, as PyTorch behaves on a CPU-only machine.

Mixed-precision training runs some operations in a 16-bit float type and
multiplies the loss by a large *scale* so that small gradients do not
round to zero in it. On a machine without a GPU, PyTorch disables the
``"cuda"`` versions with a warning and the program trains in float32;
this engine does the same. The ``"cpu"`` :class:`GradScaler` really scales
and unscales. ``autocast("cpu")`` would run matrix products in bfloat16;
this engine refuses it plainly (``NotImplementedError``) rather than
compute in another precision than PyTorch would.
"""

from slowtorch_lib.amp.autocast_mode import autocast
from slowtorch_lib.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast"]
