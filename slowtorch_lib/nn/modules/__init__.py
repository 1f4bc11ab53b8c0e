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
from slowtorch_lib.nn.modules.activation import (  # noqa: E402
    ELU,
    GELU,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Tanh,
)
from slowtorch_lib.nn.modules.batchnorm import BatchNorm1d  # noqa: E402
from slowtorch_lib.nn.modules.dropout import Dropout  # noqa: E402
from slowtorch_lib.nn.modules.flatten import Flatten, Unflatten  # noqa: E402
from slowtorch_lib.nn.modules.linear import Identity, Linear  # noqa: E402
from slowtorch_lib.nn.modules.loss import (  # noqa: E402
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from slowtorch_lib.nn.modules.normalization import LayerNorm  # noqa: E402
from slowtorch_lib.nn.modules.sparse import Embedding  # noqa: E402

__all__ += [
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
