"""Neural networks: ``Module``, ``Parameter``, layers, losses and ``init``.

Import it as you would import ``torch.nn``::

    import slowtorch_lib as torch
    from slowtorch_lib import nn

    model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))

The layers are listed once, in :mod:`slowtorch_lib.nn.modules`.
"""

from slowtorch_lib.nn import functional, init, modules, parallel, utils
from slowtorch_lib.nn.modules import *  # noqa: F403
from slowtorch_lib.nn.parallel import DataParallel
from slowtorch_lib.nn.parameter import Parameter

__all__ = [*modules.__all__, "Parameter", "functional", "init", "utils"]
__all__ += ["DataParallel", "parallel"]
