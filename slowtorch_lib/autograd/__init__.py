"""Automatic differentiation, one idea per module.

* :mod:`.function`: ``Function`` and the graph nodes; ``Function.apply`` is
  where history is recorded.
* :mod:`.history`: where in-place operations rewrite it.
* :mod:`.engine`: the backward pass that walks it.
* :mod:`.grad_mode`: the switch that turns recording off.
* :mod:`.gradcheck`: finite-difference checks of backward rules.
* :mod:`.variable`: ``Variable``, kept for programs older than PyTorch 0.4.
"""

from slowtorch_lib.autograd.engine import backward, grad
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.grad_mode import (
    enable_grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from slowtorch_lib.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from slowtorch_lib.autograd.variable import Variable

__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "backward",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
    "Variable",
]
