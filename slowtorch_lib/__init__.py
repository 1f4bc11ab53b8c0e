"""slowtorch_lib: PyTorch's core rebuilt in pure Python, to be read.

Import it as you would import torch::

    import slowtorch_lib as torch

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad          # tensor([2., 4., 6.])
"""

from slowtorch_lib._tensor import Size, Tensor, device  # noqa: I001  (Tensor first)
from slowtorch_lib._dtype import (
    bool_ as bool,
    can_cast,
    double,
    dtype,
    float,
    float32,
    float64,
    get_default_dtype,
    int64,
    long,
    promote_types,
    set_default_dtype,
)
from slowtorch_lib import autograd
from slowtorch_lib.autograd.grad_mode import (
    enable_grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from slowtorch_lib._creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from slowtorch_lib import _random as random
from slowtorch_lib._random import (
    Generator,
    bernoulli,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)
from slowtorch_lib._strides import broadcast_shapes
from slowtorch_lib.ops.indexing import getitem as _getitem  # noqa: F401
from slowtorch_lib.ops.joining import cat, concat, concatenate, stack
from slowtorch_lib.ops.linalg import bmm, dot, matmul, mm, mv
from slowtorch_lib.ops.pointwise import (
    abs,
    add,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    clamp,
    clamp_max,
    clamp_min,
    clip,
    clone,
    cos,
    div,
    eq,
    exp,
    floor_divide,
    ge,
    gt,
    isnan,
    le,
    log,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    maximum,
    minimum,
    mul,
    ne,
    neg,
    pow,
    reciprocal,
    relu,
    remainder,
    result_type,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    sub,
    tanh,
    true_divide,
    where,
)
from slowtorch_lib.ops.reduction import (
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)
from slowtorch_lib.ops.views import (
    chunk,
    flatten,
    narrow,
    permute,
    reshape,
    select,
    split,
    squeeze,
    t,
    transpose,
    unbind,
    unsqueeze,
)

__version__ = "0.1.0"
