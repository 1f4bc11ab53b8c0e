"""The layers of :mod:`slowtorch_lib.nn`, one kind per file, as in PyTorch.

This ``__all__`` is the one list of them: :mod:`slowtorch_lib.nn` exports
what it names.
"""

from slowtorch_lib.nn.modules.activation import (
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
from slowtorch_lib.nn.modules.attention import (
    MultiheadAttention,
    NonDynamicallyQuantizableLinear,
)
from slowtorch_lib.nn.modules.batchnorm import BatchNorm1d
from slowtorch_lib.nn.modules.container import ModuleDict, ModuleList, Sequential
from slowtorch_lib.nn.modules.conv import (
    AvgPool1d,
    AvgPool2d,
    Conv1d,
    Conv2d,
    Conv3d,
    MaxPool1d,
    MaxPool2d,
)
from slowtorch_lib.nn.modules.dropout import Dropout
from slowtorch_lib.nn.modules.flatten import Flatten, Unflatten
from slowtorch_lib.nn.modules.linear import Identity, Linear
from slowtorch_lib.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.modules.normalization import LayerNorm
from slowtorch_lib.nn.modules.sparse import Embedding
from slowtorch_lib.nn.modules.transformer import (
    Transformer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = [
    "AvgPool1d",
    "AvgPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "Conv1d",
    "Conv2d",
    "Conv3d",
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
    "MaxPool1d",
    "MaxPool2d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ReLU",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Tanh",
    "Unflatten",
    "MultiheadAttention",
    "NonDynamicallyQuantizableLinear",
    "Transformer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
]
