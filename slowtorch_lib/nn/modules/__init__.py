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
from slowtorch_lib.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d
from slowtorch_lib.nn.modules.container import ModuleDict, ModuleList, Sequential
from slowtorch_lib.nn.modules.conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
)
from slowtorch_lib.nn.modules.dropout import Dropout, Dropout2d
from slowtorch_lib.nn.modules.flatten import Flatten, Unflatten
from slowtorch_lib.nn.modules.fold import Fold, Unfold
from slowtorch_lib.nn.modules.lazy import LazyModuleMixin
from slowtorch_lib.nn.modules.lazy_layers import (
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyConv1d,
    LazyConv2d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
)
from slowtorch_lib.nn.modules.linear import Identity, LazyLinear, Linear
from slowtorch_lib.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    CTCLoss,
    HuberLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.modules.normalization import GroupNorm, LayerNorm
from slowtorch_lib.nn.modules.pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AdaptiveMaxPool3d,
    AvgPool1d,
    AvgPool2d,
    AvgPool3d,
    MaxPool1d,
    MaxPool2d,
    MaxPool3d,
)
from slowtorch_lib.nn.modules.rnn import (
    GRU,
    LSTM,
    RNN,
    GRUCell,
    LSTMCell,
    RNNBase,
    RNNCell,
    RNNCellBase,
)
from slowtorch_lib.nn.modules.sparse import Embedding, EmbeddingBag
from slowtorch_lib.nn.modules.transformer import (
    TransformerEncoder,
    TransformerEncoderLayer,
)
from slowtorch_lib.nn.modules.transformer_decoder import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
)
from slowtorch_lib.nn.modules.upsampling import (
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
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
    "CTCLoss",
    "Dropout",
    "ELU",
    "Embedding",
    "EmbeddingBag",
    "Flatten",
    "GELU",
    "HuberLoss",
    "Identity",
    "L1Loss",
    "GroupNorm",
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
    # windows: convolution, pooling, folding, sampling
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool3d",
    "BatchNorm2d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "Dropout2d",
    "Fold",
    "MaxPool3d",
    "Unfold",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
    "MultiheadAttention",
    "NonDynamicallyQuantizableLinear",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "RNN",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyLinear",
    "LazyModuleMixin",
]
