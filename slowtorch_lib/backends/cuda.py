"""``torch.backends.cuda``: switches of NVIDIA's GPU maths, absent here."""

from types import SimpleNamespace

__all__ = ["is_built", "matmul"]

# ``torch.backends.cuda.matmul.allow_tf32 = True`` is read and set as in PyTorch.
matmul = SimpleNamespace(
    allow_tf32=False,
    allow_fp16_reduced_precision_reduction=True,
    allow_bf16_reduced_precision_reduction=True,
)


def is_built() -> bool:
    """Whether this build knows CUDA: no."""
    return False
