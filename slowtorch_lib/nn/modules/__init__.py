"""The layers of :mod:`slowtorch_lib.nn`, one kind per file, as in PyTorch."""

from slowtorch_lib.nn.modules.container import ModuleDict, ModuleList, Sequential
from slowtorch_lib.nn.modules.module import Module

__all__ = [
    "Module",
    "ModuleDict",
    "ModuleList",
    "Sequential",
]

# ----------------------------------------------------------------------
# Layers, activations and losses (nn.functional's modules) are added below.
# ----------------------------------------------------------------------
