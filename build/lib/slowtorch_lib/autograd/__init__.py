"""Automatic differentiation: the graph, the backward pass, grad mode, checks."""

from slowtorch_lib.autograd.engine import backward, grad
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.grad_mode import (
    enable_grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from slowtorch_lib.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck

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
]
