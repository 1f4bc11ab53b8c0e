"""``torch.backends.mps``: Apple's GPU back end, absent here."""

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """Whether an Apple GPU can be used: no."""
    return False


def is_built() -> bool:
    """Whether this build knows Apple GPUs: no."""
    return False
