"""slowtorch_lib: PyTorch's core rebuilt in pure Python, to be read.

Import it as you would import torch::

    import slowtorch_lib as torch

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad          # tensor([2., 4., 6.])
"""

from slowtorch_lib import (
    _creation,
    _printing,
    _rng,
    _tensor,
    autograd,
    nn,
    optim,
    utils,
)
from slowtorch_lib import _rng as random
from slowtorch_lib._creation import *  # noqa: F403
from slowtorch_lib._dtype import (
    bool_ as bool,
)
from slowtorch_lib._dtype import (
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
from slowtorch_lib._rng import *  # noqa: F403
from slowtorch_lib._strides import broadcast_shapes
from slowtorch_lib._tensor import Size, Tensor, device
from slowtorch_lib.autograd import engine, history
from slowtorch_lib.autograd.grad_mode import (
    enable_grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from slowtorch_lib.ops import (
    comparison,
    gather_scatter,
    indexing,
    joining,
    linalg,
    pointwise,
    rearrange,
    reduction,
    scan,
    sorting,
    views,
)
from slowtorch_lib.ops.comparison import *  # noqa: F403
from slowtorch_lib.ops.gather_scatter import *  # noqa: F403
from slowtorch_lib.ops.joining import *  # noqa: F403
from slowtorch_lib.ops.linalg import *  # noqa: F403
from slowtorch_lib.ops.pointwise import *  # noqa: F403
from slowtorch_lib.ops.rearrange import *  # noqa: F403
from slowtorch_lib.ops.reduction import *  # noqa: F403
from slowtorch_lib.ops.scan import *  # noqa: F403
from slowtorch_lib.ops.sorting import *  # noqa: F403
from slowtorch_lib.ops.views import *  # noqa: F403
from slowtorch_lib.serialization import load, save

# Tensor's methods call the ops above it; they are connected once, here.
_tensor.bind_ops(
    creation=_creation,
    printing=_printing,
    rng=_rng,
    engine=engine,
    history=history,
    comparison=comparison,
    gather_scatter=gather_scatter,
    indexing=indexing,
    linalg=linalg,
    pointwise=pointwise,
    rearrange=rearrange,
    reduction=reduction,
    scan=scan,
    sorting=sorting,
    views=views,
)

# The functions come from each module's own __all__: a new operation is
# exported by adding it to the __all__ of the module that defines it.
__all__ = [
    "Size",
    "Tensor",
    "autograd",
    "bool",
    "broadcast_shapes",
    "can_cast",
    "device",
    "double",
    "dtype",
    "enable_grad",
    "float",
    "float32",
    "float64",
    "get_default_dtype",
    "int64",
    "is_grad_enabled",
    "long",
    "no_grad",
    "promote_types",
    "random",
    "set_default_dtype",
    "set_grad_enabled",
    *_creation.__all__,
    *_rng.__all__,
    *comparison.__all__,
    *gather_scatter.__all__,
    *joining.__all__,
    *linalg.__all__,
    *pointwise.__all__,
    *rearrange.__all__,
    *reduction.__all__,
    *scan.__all__,
    *sorting.__all__,
    *views.__all__,
    "load",
    "nn",
    "optim",
    "save",
    "utils",
]

__version__ = "0.1.0"
