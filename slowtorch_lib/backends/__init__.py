"""``torch.backends``: the switches of the libraries PyTorch runs on.

On a machine with only a CPU, the GPU libraries (cuDNN, CUDA, Apple's MPS)
are absent; their flags can still be read and set, as programs written for
a GPU do at the top (``torch.backends.cudnn.benchmark = True``), and change
nothing here, as in PyTorch on such a machine.
"""

from slowtorch_lib.backends import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
