"""Neural networks: ``Module``, ``Parameter``, layers, losses and ``init``.

Import it as you would import ``torch.nn``::

    import slowtorch_lib as torch
    from slowtorch_lib import nn

    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
"""

from slowtorch_lib.nn import init
from slowtorch_lib.nn.modules import Module, ModuleDict, ModuleList, Sequential
from slowtorch_lib.nn.parameter import Parameter

__all__ = [
    "Module",
    "ModuleDict",
    "ModuleList",
    "Parameter",
    "Sequential",
    "init",
]

# ----------------------------------------------------------------------
# Layers, activations, losses and nn.functional are added below.
# ----------------------------------------------------------------------
from slowtorch_lib.nn import functional  # noqa: E402
from slowtorch_lib.nn.modules import (  # noqa: E402
    ELU,
    GELU,
    BatchNorm1d,
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    HuberLoss,
    Identity,
    L1Loss,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSoftmax,
    MSELoss,
    NLLLoss,
    ReLU,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
    Softmax,
    Tanh,
    Unflatten,
)

__all__ += [
    "functional",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "CrossEntropyLoss",
    "Dropout",
    "ELU",
    "Embedding",
    "Flatten",
    "GELU",
    "HuberLoss",
    "Identity",
    "L1Loss",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "NLLLoss",
    "ReLU",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Tanh",
    "Unflatten",
]
