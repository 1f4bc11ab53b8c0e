"""``torch.cuda`` as it behaves on a machine without a GPU.

Programs written for a GPU ask first: ``device = "cuda" if
torch.cuda.is_available() else "cpu"``. Here the answer is always no. The
seeding functions do nothing, silently, as PyTorch's do where there is no
GPU to seed; the functions that need a GPU raise PyTorch's error.
"""

from __future__ import annotations

from slowtorch_lib._tensor import NO_CUDA
from slowtorch_lib.amp import cuda_amp as amp

__all__ = [
    "amp",
    "current_device",
    "device_count",
    "get_device_name",
    "is_available",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "synchronize",
]


def _no_cuda() -> AssertionError:
    """The error PyTorch raises when a GPU is needed and it has none."""
    return AssertionError(NO_CUDA)


def is_available() -> bool:
    """Whether a GPU can be used: never, in this engine."""
    return False


def device_count() -> int:
    """The number of GPUs: 0."""
    return 0


def is_initialized() -> bool:
    """Whether the GPU runtime has started: never."""
    return False


def manual_seed(seed: int) -> None:
    """Seeds the current GPU's generator: with no GPU, does nothing."""


def manual_seed_all(seed: int) -> None:
    """Seeds every GPU's generator: with no GPU, does nothing."""


def seed() -> None:
    """Seeds the current GPU's generator randomly: with no GPU, does nothing."""


def seed_all() -> None:
    """Seeds every GPU's generator randomly: with no GPU, does nothing."""


def current_device() -> int:
    """The index of the current GPU.

    Raises:
        AssertionError: Always, as PyTorch without CUDA.
    """
    raise _no_cuda()


def synchronize(device: object = None) -> None:
    """Waits for the GPU to finish.

    Raises:
        AssertionError: Always, as PyTorch without CUDA.
    """
    raise _no_cuda()


def get_device_name(device: object = None) -> str:
    """The name of a GPU.

    Raises:
        AssertionError: Always, as PyTorch without CUDA.
    """
    raise _no_cuda()
