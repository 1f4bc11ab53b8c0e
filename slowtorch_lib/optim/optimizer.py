"""The optimiser base class: parameter groups, per-parameter state, one step.

An optimiser changes parameters in the direction their gradients say. It
keeps them in ``param_groups``, a list of dicts; each group holds a list of
tensors under ``"params"`` and its own settings (``lr``, ``momentum``...), so
that, say, the last layer can learn faster than the rest. What an optimiser
remembers between steps (a momentum buffer, running averages) lives in
``state``, a dict per parameter.

A subclass writes the update rule for one parameter in ``_update``; the base
class finds the parameters that have a gradient and calls it, with autograd
switched off, so that the update itself is not recorded.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from slowtorch_lib._tensor import Tensor, typename
from slowtorch_lib.autograd.function import clear_grads
from slowtorch_lib.autograd.grad_mode import enable_grad, no_grad
from slowtorch_lib.ops.complex_parts import view_as_real

__all__ = ["Optimizer", "as_real", "required"]

ParamGroup = dict[str, Any]


def as_real(*tensors: Tensor) -> list[Tensor]:
    """Complex tensors as views of their parts (:func:`view_as_real`), real
    ones as they are.

    PyTorch's Adam, AdamW, RMSprop and Adagrad update a complex parameter
    as two real numbers per element: on these views, ``grad * grad`` is
    each part squared, and writing into a view changes the complex state.
    """
    return [view_as_real(t) if t.is_complex() else t for t in tensors]


class _RequiredParameter:
    """Marks a setting that has no default: every group must give it."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class of all optimisers, shaped as ``torch.optim.Optimizer``.

    Args:
        params: The tensors to optimise, or dicts that each give a
            ``"params"`` list and settings that differ from ``defaults``.
        defaults: Each setting's default value, for groups that leave it out.

    Attributes:
        defaults: The settings given to the constructor.
        param_groups: One dict per group: ``"params"`` and every setting.
        state: For each parameter, a dict of what the optimiser remembers.

    Raises:
        TypeError: If ``params`` is a single tensor rather than a collection.
        ValueError: If ``params`` is empty.
    """

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[ParamGroup] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of "
                f"Tensors or dicts, but got {typename(params)}"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: ParamGroup) -> None:
        """Adds a group of parameters, with its settings, to ``param_groups``.

        Settings the group leaves out are taken from ``defaults``.

        Raises:
            TypeError: If the group is not a dict, its params are a set, or a
                param is not a tensor.
            ValueError: For a non-leaf tensor, a missing required setting, or
                a parameter that is already in another group.
            NotImplementedError: For ``differentiable=True``, which PyTorch
                supports and this engine does not.
        """
        if not isinstance(param_group, dict):
            raise TypeError(
                f"param_group must be a dict, but got {type(param_group).__name__}"
            )
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, "
                "but the ordering of tensors in sets will change between runs. "
                "Please use a list instead."
            )
        param_group["params"] = params = list(params)
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + typename(param)
                )
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        if param_group.get("differentiable"):
            raise NotImplementedError(
                "differentiable=True is not supported by slowtorch: the optimiser's "
                "step is never recorded in the graph. Leave differentiable=False."
            )
        if len({id(p) for p in params}) != len(params):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; see "
                "github.com/pytorch/pytorch/issues/40967 for more information",
                UserWarning,
                stacklevel=3,
            )
        known = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in known for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears the gradients of all parameters before the next backward.

        Args:
            set_to_none: Set ``.grad`` to ``None`` (the default, and cheaper)
                rather than filling it with zeros.
        """
        params = [p for group in self.param_groups for p in group["params"]]
        clear_grads(params, set_to_none)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Updates every parameter that has a gradient, once.

        Args:
            closure: Optional function that recomputes the loss (zeroing the
                gradients and calling ``backward``); it runs first, with
                autograd on, and its loss is returned.

        Returns:
            The closure's loss, or ``None`` without a closure.
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        self._update(param, param.grad, self.state[param], group)
        return loss

    def _update(
        self, param: Tensor, grad: Tensor, state: dict[str, Any], group: ParamGroup
    ) -> None:
        """Changes ``param`` in place, given its gradient, state and settings."""
        raise NotImplementedError(
            f"{type(self).__name__} must define _update (or override step)"
        )

    def state_dict(self) -> dict[str, Any]:
        """The optimiser's state and settings, with parameters as numbers.

        Parameters are numbered in order across all groups, so the dict does
        not hold the parameters themselves and can be loaded into a new
        optimiser over other tensors of the same shapes.

        Returns:
            ``{"state": {index: {...}}, "param_groups": [{..., "params":
            [indices]}]}``, as PyTorch's.
        """
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            for param in group["params"]:
                index.setdefault(id(param), len(index))
            packed["params"] = [index[id(param)] for param in group["params"]]
            groups.append(packed)
        state = {
            index[id(param)]: value
            for param, value in self.state.items()
            if id(param) in index
        }
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restores state and settings saved by :meth:`state_dict`.

        The tensors in the state are copied, so the two optimisers do not
        share buffers afterwards.

        Raises:
            ValueError: If the number of groups, or of parameters in a group,
                differs from this optimiser's.
        """
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(
                "loaded state dict has a different number of parameter groups"
            )
        for group, saved in zip(self.param_groups, saved_groups):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match "
                    "the size of optimizer's group"
                )
        param_of = {
            saved_index: param
            for group, saved in zip(self.param_groups, saved_groups)
            for saved_index, param in zip(saved["params"], group["params"])
        }
        self.state = defaultdict(dict)
        for saved_index, saved_state in state_dict["state"].items():
            param = param_of[saved_index]
            self.state[param] = {
                key: _copy_value(value, param) for key, value in saved_state.items()
            }
        self.param_groups = [
            {**saved, "params": group["params"]}
            for group, saved in zip(self.param_groups, saved_groups)
        ]

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for number, group in enumerate(self.param_groups):
            if number:
                lines.append("")
            lines.append(f"Parameter Group {number}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        return "\n".join(lines) + "\n)"


def _copy_value(value: Any, param: Tensor) -> Any:
    """A loaded state value: a tensor is copied (to the param's float dtype)."""
    if not isinstance(value, Tensor):
        return value
    copy = value.detach().clone()
    if copy.dtype.is_floating_point and copy.dim() > 0:
        copy = copy.to(param.dtype)
    return copy
