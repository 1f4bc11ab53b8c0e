"""How tensors print (placeholder: being rewritten to match PyTorch exactly)."""

from __future__ import annotations

from slowtorch_lib._tensor import Tensor


def tensor_repr(tensor: Tensor) -> str:
    """The text ``repr(tensor)`` shows."""
    suffix = ""
    if tensor.grad_fn is not None:
        suffix = f", grad_fn=<{tensor.grad_fn.name()}>"
    elif tensor.requires_grad:
        suffix = ", requires_grad=True"
    return f"tensor({tensor.tolist()}{suffix})"
