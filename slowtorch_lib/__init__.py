"""slowtorch_lib: PyTorch's core rebuilt in pure Python, to be read.

Import it as you would import torch::

    import slowtorch_lib as torch

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    x.grad          # tensor([2., 4., 6.])

What is matched with PyTorch, and what is not:

* Matched, and tested against real PyTorch: the names and signatures of
  the functions, methods and classes the engine has; result dtypes (type
  promotion included), shapes and values (float32 computed in float32,
  IEEE ``inf`` and ``nan`` where PyTorch gives them); gradients and the
  ``grad_fn`` names of the graph (``MulBackward0``); the exception type of
  every error, and its message where a learner would read it.
* Random numbers: the same seed gives PyTorch's numbers, bit for bit, as
  PyTorch draws them on an x86-64 CPU (see ``_rng``).
* Not matched: speed and memory; the devices (the CPU only: ``cuda``
  can be named, and putting a tensor there raises as PyTorch does on a
  machine without a GPU; ``torch.cuda.is_available()`` is False); the
  parts of a complex tensor (``z.real``, ``z.imag``, ``view_as_real``),
  which are copies here and views in PyTorch; the last bit or two of
  float16 and bfloat16 results that PyTorch computes in one fused float32
  kernel and the engine in several steps (``log_softmax``, most backward
  rules); what memory PyTorch leaves uninitialised (``torch.Tensor(2, 3)``
  is zeros here); the C++ internals (hooks on storages, dispatch keys,
  ``torch.compile``).
* NumPy is optional: it is imported only by the functions that exchange
  data with it (``from_numpy``, ``Tensor.numpy``, ``numpy.array(t)``),
  which raise ``RuntimeError: Numpy is not available`` without it.
  ``Tensor.numpy()`` shares memory as in PyTorch; ``from_numpy`` copies
  (a Python ``array`` cannot point into NumPy's memory).
* An option that PyTorch accepts and this engine does not support raises
  ``NotImplementedError`` rather than being ignored
  (``differentiable=True`` in an optimiser). An option is accepted
  silently only where PyTorch on a CPU would give the same results
  (``foreach``, ``fused``, ``pin_memory``).

The layers, bottom to top, each importing only from those below it:
dtypes and index maths (``_dtype``, ``_strides``), storage (``_storage``),
kernels on values, shapes and strides (``_kernels``), the ``Tensor`` type
(``_tensor``, ``_tensor_methods``, ``_tensor_shape_methods``,
``_tensor_python``, ``_tensor_autograd``, ``_tensor_logic_methods``,
``_tensor_kernels``, ``_creation``, ``_ranges``, ``_legacy_constructors``,
``_numpy_in``, ``_printing``), autograd (``autograd``), the operations
(``ops``, ``_rng``), sparse COO tensors beside the dense core
(``sparse``), then ``nn``, ``optim`` and ``utils.data``. ``Tensor``'s methods
reach the operations through
``_tensor.bind_ops``, called once below. The dtypes beyond the ten the
chapters teach bring their rules from ``_fidelity``, imported here, which
registers them in the core's tables (its loop modules, which name the ops'
scalar functions, once the ops are loaded). ``tests/test_layering.py``
checks it.
"""

import sys
from math import e, inf, nan, pi

from slowtorch_lib import (
    _creation,
    _fidelity,  # noqa: F401 (it registers the rules of the dtypes beyond the ten)
    _legacy_constructors,
    _numpy_in,
    _ranges,
    _rng,
    _tensor,
    accelerator,
    amp,
    autograd,
    backends,
    cpu,
    cuda,
    distributed,
    distributions,
    nn,
    onnx,
    optim,
    sparse,
    utils,
)
from slowtorch_lib import _rng as random
from slowtorch_lib._activation_functions import log_softmax, softmax
from slowtorch_lib._creation import *  # noqa: F403
from slowtorch_lib._dtype import (
    bfloat16,
    can_cast,
    double,
    dtype,
    finfo,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    long,
    promote_types,
    set_default_dtype,
    short,
    uint8,
)
from slowtorch_lib._dtype import (
    bool_ as bool,
)
from slowtorch_lib._dtype import (
    int_ as int,
)
from slowtorch_lib._fidelity import (  # noqa: F401 (they register the loops)
    complex_numbers,
    few_loops,
    numpy_keywords,
)
from slowtorch_lib._fidelity.complex_types import (
    cdouble,
    cfloat,
    chalf,
    complex32,
    complex64,
    complex128,
)
from slowtorch_lib._fidelity.float8 import (
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
)
from slowtorch_lib._fidelity.wide_uint import uint16, uint32, uint64
from slowtorch_lib._legacy_constructors import *  # noqa: F403
from slowtorch_lib._numpy_in import *  # noqa: F403
from slowtorch_lib._printing import get_printoptions, set_printoptions
from slowtorch_lib._ranges import *  # noqa: F403
from slowtorch_lib._rng import *  # noqa: F403
from slowtorch_lib._strides import broadcast_shapes
from slowtorch_lib._tensor import Size, Tensor, device
from slowtorch_lib.amp import autocast
from slowtorch_lib.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from slowtorch_lib.nn.functional import native as _native
from slowtorch_lib.nn.functional.native import *  # noqa: F403
from slowtorch_lib.ops import (
    bitwise,
    common,
    comparison,
    copying,
    fused,
    gather_scatter,
    histograms,
    joining,
    linalg,
    logarithms,
    order_statistics,
    pointwise,
    powers,
    products,
    rearrange,
    reduction,
    reordering,
    rounding,
    scan,
    selecting,
    sorting,
    splitting,
    trigonometry,
    views,
)
from slowtorch_lib.ops.autocast import (
    autocast_decrement_nesting,
    autocast_increment_nesting,
    clear_autocast_cache,
    get_autocast_cpu_dtype,
    get_autocast_dtype,
    is_autocast_cache_enabled,
    is_autocast_cpu_enabled,
    is_autocast_enabled,
    set_autocast_cache_enabled,
    set_autocast_cpu_dtype,
    set_autocast_cpu_enabled,
    set_autocast_dtype,
    set_autocast_enabled,
)
from slowtorch_lib.ops.bitwise import *  # noqa: F403
from slowtorch_lib.ops.common import *  # noqa: F403
from slowtorch_lib.ops.comparison import *  # noqa: F403
from slowtorch_lib.ops.complex_parts import *  # noqa: F403
from slowtorch_lib.ops.copying import *  # noqa: F403
from slowtorch_lib.ops.diagonals import diag, diag_embed, diagonal
from slowtorch_lib.ops.distance import cdist, pdist
from slowtorch_lib.ops.einsum import einsum
from slowtorch_lib.ops.fused import *  # noqa: F403
from slowtorch_lib.ops.gather_scatter import *  # noqa: F403
from slowtorch_lib.ops.histograms import *  # noqa: F403
from slowtorch_lib.ops.joining import *  # noqa: F403
from slowtorch_lib.ops.linalg import *  # noqa: F403
from slowtorch_lib.ops.logarithms import *  # noqa: F403
from slowtorch_lib.ops.meshgrid import meshgrid
from slowtorch_lib.ops.normal import normal
from slowtorch_lib.ops.order_statistics import *  # noqa: F403
from slowtorch_lib.ops.pointwise import *  # noqa: F403
from slowtorch_lib.ops.powers import *  # noqa: F403
from slowtorch_lib.ops.products import *  # noqa: F403
from slowtorch_lib.ops.ranges import range
from slowtorch_lib.ops.rearrange import *  # noqa: F403
from slowtorch_lib.ops.reduction import *  # noqa: F403
from slowtorch_lib.ops.reordering import *  # noqa: F403
from slowtorch_lib.ops.rounding import *  # noqa: F403
from slowtorch_lib.ops.scan import *  # noqa: F403
from slowtorch_lib.ops.selecting import *  # noqa: F403
from slowtorch_lib.ops.sorting import *  # noqa: F403
from slowtorch_lib.ops.splitting import *  # noqa: F403
from slowtorch_lib.ops.statistics import *  # noqa: F403
from slowtorch_lib.ops.trigonometry import *  # noqa: F403
from slowtorch_lib.ops.unique import unique as unique  # not in __all__, as in torch
from slowtorch_lib.ops.unique import unique_consecutive
from slowtorch_lib.ops.views import *  # noqa: F403
from slowtorch_lib.serialization import load, save

# Tensor's methods call the ops above it; they are connected once, here.
_tensor.bind_ops()

# The functions come from each module's own __all__: a new operation is
# exported by adding it to the __all__ of the module that defines it.
__all__ = [
    "Size",
    "Tensor",
    "autograd",
    "bfloat16",
    "bool",
    "broadcast_shapes",
    "can_cast",
    "cdouble",
    "cfloat",
    "chalf",
    "complex32",
    "complex64",
    "complex128",
    "cuda",
    "device",
    "double",
    "dtype",
    "enable_grad",
    "finfo",
    "float",
    "float16",
    "float32",
    "float64",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "get_default_dtype",
    "half",
    "iinfo",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "long",
    "no_grad",
    "promote_types",
    "random",
    "set_default_dtype",
    "set_grad_enabled",
    "short",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    *_creation.__all__,
    *_legacy_constructors.__all__,
    *_numpy_in.__all__,
    *_ranges.__all__,
    *_rng.__all__,
    *bitwise.__all__,
    *common.__all__,
    *comparison.__all__,
    *copying.__all__,
    "cdist",
    "einsum",
    "pdist",
    "diag",
    "diag_embed",
    "diagonal",
    *fused.__all__,
    *gather_scatter.__all__,
    *histograms.__all__,
    *joining.__all__,
    *linalg.__all__,
    *logarithms.__all__,
    *order_statistics.__all__,
    *pointwise.__all__,
    *powers.__all__,
    *products.__all__,
    *rearrange.__all__,
    *reduction.__all__,
    *reordering.__all__,
    *rounding.__all__,
    *scan.__all__,
    *selecting.__all__,
    *sorting.__all__,
    *splitting.__all__,
    *trigonometry.__all__,
    *views.__all__,
    *_native.__all__,
    "load",
    "nn",
    "e",
    "inf",
    "log_softmax",
    "nan",
    "pi",
    "softmax",
    "meshgrid",
    "normal",
    "range",
    "unique_consecutive",
    "optim",
    "save",
    "utils",
]
__all__ += [
    "accelerator",
    "amp",
    "autocast",
    "backends",
    "distributed",
    "distributions",
    "onnx",
]
__all__ += [
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "clear_autocast_cache",
    "cpu",
    "get_autocast_cpu_dtype",
    "get_autocast_dtype",
    "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled",
    "is_autocast_enabled",
    "set_autocast_cache_enabled",
    "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
]
__all__ += ["get_printoptions", "set_printoptions"]

__version__ = "0.1.0"

# Sparse COO tensors, beside the dense core: torch.sparse_coo_tensor, the
# layouts, torch.spmm, a sparse first argument of torch.mm, and the methods
# every tensor has (to_sparse, is_sparse, layout...): see sparse.install.
sparse.install(sys.modules[__name__], Tensor)
__all__ += ["sparse", *sparse.TOP_LEVEL]

# NumPy's keyword names (``axis=``...), which PyTorch's C++ functions take:
# one wrapper each, added beside the core (see _fidelity.numpy_keywords).
numpy_keywords.install(sys.modules[__name__], Tensor)
