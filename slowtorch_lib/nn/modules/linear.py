"""``Linear`` (an affine map with learned weights), ``LazyLinear``, ``Identity``."""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib._creation import empty
from slowtorch_lib._dtype import dtype as Dtype
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.nn import functional as F
from slowtorch_lib.nn import init
from slowtorch_lib.nn.modules.lazy import LazyModuleMixin
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.parameter import Parameter, UninitializedParameter

__all__ = ["Identity", "LazyLinear", "Linear"]


class Identity(Module):
    """Returns its input unchanged; any arguments are ignored.

    Useful as a placeholder, for example to remove a layer from a model.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``.

    Args:
        in_features: Size of each input sample (the last dimension).
        out_features: Size of each output sample.
        bias: Whether to learn an additive bias.

    Attributes:
        weight: ``(out_features, in_features)``, initialised from
            ``U(-1/sqrt(in_features), 1/sqrt(in_features))`` (that is what
            ``kaiming_uniform_`` with ``a=sqrt(5)`` gives).
        bias: ``(out_features,)``, from the same distribution, or None.
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(
            empty(out_features, in_features, dtype=dtype, device=device)
        )
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draws the weights and bias afresh, as PyTorch does."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class LazyLinear(LazyModuleMixin, Linear):
    """A :class:`Linear` whose ``in_features`` is the last size of its first
    input.

    Until the first call, ``weight`` and ``bias`` are
    :class:`~slowtorch_lib.nn.parameter.UninitializedParameter` and
    ``in_features`` is 0; the first call gives them their shapes, draws them
    as ``Linear`` does, and turns the module into a ``Linear``.

    Args:
        out_features: Size of each output sample.
        bias: Whether to learn an additive bias.
    """

    cls_to_become = Linear

    def __init__(
        self,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:  # type: ignore[override]
        """Shapes and draws the parameters for inputs of ``input``'s last size."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input._shape[-1]
                weight: Any = self.weight
                weight.materialize((self.out_features, self.in_features))
                bias: Any = self.bias
                if bias is not None:
                    bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # loaded from a state_dict
            if input._shape[-1] != self.weight._shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input._shape[-1]} is not "
                    "equal to in_features from self.weight: "
                    f"{self.weight._shape[-1]}"
                )
            self.in_features = input._shape[-1]
