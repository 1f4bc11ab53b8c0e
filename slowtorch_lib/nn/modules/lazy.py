"""Lazy modules: layers that learn their input size from the first batch.

``nn.LazyLinear(10)`` needs no ``in_features``: its weight starts as an
:class:`~slowtorch_lib.nn.parameter.UninitializedParameter`, and the first
call looks at the input, gives the weight its shape, initialises it, and
turns the module into an ordinary ``Linear``. A forward pre-hook does that
work, and removes itself.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixed into a module class (before it) to make its parameters lazy.

    The class defines ``initialize_parameters(input)``, which materialises
    every uninitialised parameter, and may name ``cls_to_become``, the
    class the module turns into once that is done.

    Until the first forward:

    - ``state_dict()`` holds the uninitialised parameters themselves;
    - ``load_state_dict()`` gives them the shapes of the loaded tensors;
    - an optimiser may already hold them: they stay the same objects.
    """

    cls_to_become: type[Module] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        module: Any = self
        module._initialize_hook = module.register_forward_pre_hook(
            module._infer_parameters
        )

    def _save_to_state_dict(
        self, destination: dict[str, Tensor], prefix: str, keep_vars: bool
    ) -> None:
        """As :meth:`Module._save_to_state_dict`, but an uninitialised
        parameter is saved as it is (it has no values to detach)."""
        module: Any = self
        persistent = itertools.chain(
            module._parameters.items(),
            (
                (name, buffer)
                for name, buffer in module._buffers.items()
                if name not in module._non_persistent_buffers_set
            ),
        )
        for name, tensor in persistent:
            if tensor is None:
                continue
            keep = keep_vars or is_lazy(tensor)
            destination[prefix + name] = tensor if keep else tensor.detach()

    def _before_load(self, state_dict: Mapping[str, Any], prefix: str) -> None:
        """Gives each uninitialised parameter the shape of its loaded value."""
        module: Any = self
        tensors = itertools.chain(module._parameters.items(), module._buffers.items())
        for name, param in tensors:
            value = state_dict.get(prefix + name)
            if is_lazy(param) and isinstance(value, Tensor) and not is_lazy(value):
                with no_grad():
                    param.materialize(value._shape)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materialises the parameters from the first input (each lazy class
        defines it)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {type(self).__name__}"
        )

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer is still uninitialised."""
        module: Any = self
        tensors = itertools.chain(module._parameters.values(), module._buffers.values())
        return any(is_lazy(tensor) for tensor in tensors)

    def _infer_parameters(self, module: Any, args: tuple[Any, ...]) -> None:
        """The forward pre-hook: initialise, check, remove the hook, and
        become ``cls_to_become``."""
        module.initialize_parameters(*args)
        if module.has_uninitialized_params():
            raise RuntimeError(
                f"module {module._get_name()} has not been fully initialized"
            )
        module._initialize_hook.remove()
        delattr(module, "_initialize_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become
