"""What a module does to all its tensors at once: convert them to another
dtype (``to``, ``double``, ``float``).

``Module`` inherits these methods from :class:`ModuleTensors`, so that
``module.py`` keeps what the chapter reads: how a module files its state,
walks it, saves it and loads it.
"""

# Each method's ``self`` is annotated as a ``Module``, the class that inherits
# it, so that mypy checks the body against what ``self`` always is (see
# _tensor_shape_methods, which does the same).
# mypy: disable-error-code="misc"
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from slowtorch_lib._dtype import dtype
from slowtorch_lib._tensor import Tensor, check_device
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.nn.parameter import is_lazy

if TYPE_CHECKING:
    from slowtorch_lib.nn.modules.module import Module

__all__ = ["ModuleTensors"]


class ModuleTensors:
    """``Module``'s methods that convert all its tensors."""

    def _apply_to_tensors(self: Module, convert: Callable[[Tensor], Tensor]) -> Module:
        """Replaces the values of every parameter and buffer by ``convert``'s.

        Parameters keep their identity (an optimiser holding them still
        works): only what they look at changes.
        """
        for module in self.modules():
            for param in module._parameters.values():
                if param is not None:
                    with no_grad():
                        param.data = convert(param)
                    if param.grad is not None:
                        param.grad.data = convert(param.grad)
            for name, buffer in module._buffers.items():
                if buffer is None:
                    continue
                if is_lazy(buffer):  # stays uninitialised, of the new dtype
                    with no_grad():
                        buffer.data = convert(buffer)
                else:
                    module._buffers[name] = convert(buffer)
        return self

    def to(self: Module, *args: Any, **kwargs: Any) -> Module:
        """Converts floating-point parameters and buffers to a dtype.

        ``model.to(torch.float64)``; integer buffers keep their dtype. A
        device other than the CPU is refused.

        Raises:
            TypeError: For a dtype that is not a floating-point type.
        """
        target: dtype | None = kwargs.pop("dtype", None)
        for arg in args:
            if isinstance(arg, dtype):
                target = arg
            elif isinstance(arg, Tensor):
                target = arg.dtype
            else:
                check_device(arg)
        check_device(kwargs.pop("device", None))
        if target is None:
            return self
        if not target.is_floating_point:
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got "
                f"desired dtype={target}"
            )
        return self._apply_to_tensors(
            lambda t: t.to(target) if t.is_floating_point() else t
        )

    def double(self: Module) -> Module:
        """Converts floating-point parameters and buffers to float64."""
        return self._apply_to_tensors(
            lambda t: t.double() if t.is_floating_point() else t
        )

    def float(self: Module) -> Module:
        """Converts floating-point parameters and buffers to float32."""
        return self._apply_to_tensors(
            lambda t: t.float() if t.is_floating_point() else t
        )

    def cpu(self: Module) -> Module:
        """Does nothing: everything is on the CPU already."""
        return self

    def cuda(self: Module, device: int | str | None = None) -> Module:
        """Refused as PyTorch refuses it on a machine without a GPU."""
        check_device("cuda")
        return self
