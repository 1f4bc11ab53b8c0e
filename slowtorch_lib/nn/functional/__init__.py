"""``slowtorch_lib.nn.functional``: the computations behind the layers, as functions.

Import it as PyTorch's::

    import slowtorch_lib.nn.functional as F

    F.cross_entropy(F.linear(x, weight, bias), target)

The functions live in four modules, by kind: :mod:`.activation`,
:mod:`.layers`, :mod:`.normalization` and :mod:`.loss`.
"""

from slowtorch_lib.nn.functional.activation import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    sigmoid,
    silu,
    softmax,
    tanh,
)
from slowtorch_lib.nn.functional.adaptive_pooling import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
)
from slowtorch_lib.nn.functional.attention import scaled_dot_product_attention
from slowtorch_lib.nn.functional.conv import (
    conv1d,
    conv2d,
    conv_transpose1d,
    conv_transpose2d,
)
from slowtorch_lib.nn.functional.convolution import (
    avg_pool3d,
    conv3d,
    conv_transpose3d,
    max_pool3d,
)
from slowtorch_lib.nn.functional.cross_entropy import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    nll_loss,
)
from slowtorch_lib.nn.functional.ctc import ctc_loss
from slowtorch_lib.nn.functional.embedding_bag import embedding_bag
from slowtorch_lib.nn.functional.fold import fold, unfold
from slowtorch_lib.nn.functional.grid_sample import affine_grid, grid_sample
from slowtorch_lib.nn.functional.layers import (
    dropout,
    embedding,
    linear,
    one_hot,
    pad,
)
from slowtorch_lib.nn.functional.loss import (
    huber_loss,
    l1_loss,
    mse_loss,
    smooth_l1_loss,
)
from slowtorch_lib.nn.functional.multi_head_attention import (
    multi_head_attention_forward,
)
from slowtorch_lib.nn.functional.normalization import (
    batch_norm,
    group_norm,
    layer_norm,
)
from slowtorch_lib.nn.functional.pooling import (
    avg_pool1d,
    avg_pool2d,
    max_pool1d,
    max_pool2d,
)
from slowtorch_lib.nn.functional.sampling import dropout2d, interpolate
from slowtorch_lib.ops.distance import pdist

__all__ = [
    "avg_pool1d",
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "conv1d",
    "conv2d",
    "conv3d",
    "cross_entropy",
    "ctc_loss",
    "dropout",
    "elu",
    "embedding",
    "embedding_bag",
    "gelu",
    "huber_loss",
    "l1_loss",
    "group_norm",
    "layer_norm",
    "leaky_relu",
    "linear",
    "log_softmax",
    "max_pool1d",
    "max_pool2d",
    "mse_loss",
    "multi_head_attention_forward",
    "nll_loss",
    "one_hot",
    "pad",
    "pdist",
    "relu",
    "sigmoid",
    "silu",
    "scaled_dot_product_attention",
    "smooth_l1_loss",
    "softmax",
    "tanh",
    # windows: convolution, pooling, folding, sampling
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "affine_grid",
    "grid_sample",
    "avg_pool3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "dropout2d",
    "fold",
    "interpolate",
    "max_pool3d",
    "unfold",
]
