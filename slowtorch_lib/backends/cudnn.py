"""``torch.backends.cudnn``: NVIDIA's library of GPU kernels, absent here.

The flags are plain module attributes, with PyTorch's defaults.
"""

__all__ = ["allow_tf32", "benchmark", "deterministic", "enabled", "is_available"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """Whether cuDNN can be used: no."""
    return False


def version() -> None:
    """cuDNN's version: ``None``, as it is not there."""
    return None
