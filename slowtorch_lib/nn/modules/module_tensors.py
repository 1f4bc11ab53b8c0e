"""What a module does to all its tensors at once: convert them to another
dtype (``to``, ``double``, ``float``) and load them from a state dict.

``Module`` inherits these methods from :class:`ModuleTensors`, so that
``module.py`` keeps what the chapter reads: how a module files its state
and walks it.
"""

# Each method's ``self`` is annotated as a ``Module``, the class that inherits
# it, so that mypy checks the body against what ``self`` always is (see
# _tensor_shape_methods, which does the same).
# mypy: disable-error-code="misc"
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from slowtorch_lib._dtype import dtype
from slowtorch_lib._tensor import Tensor, check_device
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.nn.parameter import is_lazy

if TYPE_CHECKING:
    from slowtorch_lib.nn.modules.module import Module

__all__ = ["ModuleTensors"]


class _IncompatibleKeys(NamedTuple):
    """What ``load_state_dict`` returns: the keys that did not match."""

    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
            f"unexpected_keys={self.unexpected_keys})"
        )


class ModuleTensors:
    """``Module``'s methods that convert or load all its tensors."""

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

    def _before_load(self: Module, state_dict: Mapping[str, Any], prefix: str) -> None:
        """Called by :meth:`load_state_dict` on each module before its keys
        are checked; a lazy module gives its parameters their shapes here."""

    def _local_state(self: Module) -> dict[str, Tensor]:
        """This module's own parameters and persistent buffers (not None)."""
        state: dict[str, Tensor] = {}
        for name, param in self._parameters.items():
            if param is not None:
                state[name] = param
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                state[name] = buffer
        return state

    def load_state_dict(
        self: Module, state_dict: Mapping[str, Any], strict: bool = True
    ) -> _IncompatibleKeys:
        """Copies the values of ``state_dict`` into the parameters and buffers.

        The values are copied in place (under ``no_grad``), so parameters keep
        their identity. Every key is checked before anything is copied: if
        the load fails, the module is left as it was. (PyTorch copies the
        matching entries before it raises.)

        Args:
            state_dict: Names to tensors, as :meth:`state_dict` returns.
            strict: Whether a missing or unexpected key is an error.

        Returns:
            The missing and unexpected keys (both empty when ``strict``).

        Raises:
            TypeError: If ``state_dict`` is not a mapping.
            RuntimeError: For a missing or unexpected key (when ``strict``),
                for a shape mismatch, or for a value that is not a tensor.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(
                f"Expected state_dict to be dict-like, got {type(state_dict)}."
            )
        missing: list[str] = []
        unexpected: list[str] = []
        found: list[tuple[str, Tensor, Any]] = []  # (key, tensor, its new value)
        for prefix, module in self.named_modules(prefix="", remove_duplicate=False):
            prefix = f"{prefix}." if prefix else ""
            module._before_load(state_dict, prefix)
            local = module._local_state()
            for name, target in local.items():
                key = prefix + name
                if key in state_dict:
                    found.append((key, target, state_dict[key]))
                else:
                    missing.append(key)
            unexpected += _unexpected_keys(module, local, prefix, state_dict)
        errors = [error for error in (_copy_error(*entry) for entry in found) if error]
        if strict:
            if unexpected:
                listed = ", ".join(f'"{key}"' for key in unexpected)
                errors.insert(0, f"Unexpected key(s) in state_dict: {listed}. ")
            if missing:
                listed = ", ".join(f'"{key}"' for key in missing)
                errors.insert(0, f"Missing key(s) in state_dict: {listed}. ")
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        with no_grad():
            for _, target, value in found:
                target.copy_(value)
        return _IncompatibleKeys(missing, unexpected)


def _copy_error(key: str, target: Tensor, value: Any) -> str:
    """Why ``value`` cannot be copied into ``target`` ('' if it can)."""
    if not isinstance(value, Tensor):
        return (
            f'While copying the parameter named "{key}", expected torch.Tensor or '
            f"Tensor-like object from checkpoint but received {type(value)}"
        )
    if value.shape != target.shape:
        return (
            f"size mismatch for {key}: copying a param with shape {value.shape} "
            f"from checkpoint, the shape in current model is {target.shape}."
        )
    return ""


def _unexpected_keys(
    module: Module,
    local: dict[str, Tensor],
    prefix: str,
    state_dict: Mapping[str, Any],
) -> list[str]:
    """Keys under ``prefix`` that name nothing of ``module``.

    A key ``prefix + "a"`` must be one of ``module``'s own tensors; a key
    ``prefix + "a.b"`` must go down to a child ``a``, which checks the rest.
    """
    unexpected = []
    for key in state_dict:
        if not isinstance(key, str) or not key.startswith(prefix):
            continue
        head, dot, _ = key[len(prefix) :].partition(".")
        known = module._modules if dot else local
        if head not in known:
            unexpected.append(key)
    return unexpected
