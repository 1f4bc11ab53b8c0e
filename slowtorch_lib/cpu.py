"""``torch.cpu``: the one device of this engine; ``torch.cpu.amp`` as PyTorch has it."""

from __future__ import annotations

from slowtorch_lib.amp import cpu_amp as amp

__all__ = ["amp", "device_count", "is_available"]


def is_available() -> bool:
    """Always True: the CPU is always there."""
    return True


def device_count() -> int:
    """1, as in PyTorch."""
    return 1
