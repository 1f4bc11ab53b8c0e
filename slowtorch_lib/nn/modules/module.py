"""``Module``: the base class of every layer and every model.

A module holds state (parameters, buffers and other modules) and computes
with it in :meth:`Module.forward`. Its one trick is :meth:`Module.__setattr__`:
assigning an attribute files the value in one of three dictionaries, by
what it is::

    self.weight = Parameter(...)   # -> self._parameters["weight"]
    self.fc = Linear(2, 3)         # -> self._modules["fc"]
    self.register_buffer("mean", torch.zeros(3))  # -> self._buffers["mean"]
    self.name = "mlp"              # -> an ordinary attribute

Everything else (``parameters()``, ``state_dict()``, ``train()``, the
repr) walks those dictionaries, recursing into the submodules and joining
names with dots: ``"fc.weight"``. Converting all of a module's tensors at
once (``to``, ``double``, ``float``) is in ``module_tensors.py``.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from slowtorch_lib._hooks import RemovableHandle, add_hook
from slowtorch_lib._tensor import Tensor, typename
from slowtorch_lib.autograd.function import clear_grads
from slowtorch_lib.autograd.grad_mode import no_grad
from slowtorch_lib.nn.modules.module_tensors import ModuleTensors
from slowtorch_lib.nn.parameter import Parameter

__all__ = ["Module", "RemovableHandle"]

ForwardPreHook = Callable[["Module", tuple[Any, ...]], Any]
ForwardHook = Callable[["Module", tuple[Any, ...], Any], Any]


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


class Module(ModuleTensors):
    """Base class for all neural network modules.

    Subclasses call ``super().__init__()`` first, assign their parameters
    and submodules as attributes, and define :meth:`forward`::

        class TwoLayers(nn.Module):
            def __init__(self):
                super().__init__()
                self.hidden = nn.Linear(2, 8)
                self.out = nn.Linear(8, 1)

            def forward(self, x):
                return self.out(self.hidden(x).tanh())

    Calling the module, ``model(x)``, runs :meth:`forward` (and any hooks).

    Attributes:
        training: Whether the module is in training mode (see :meth:`train`).
    """

    training: bool
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Module | None]
    _forward_hooks: dict[int, ForwardHook]
    _forward_pre_hooks: dict[int, ForwardPreHook]

    def __init__(self) -> None:
        # Plain object.__setattr__: our own __setattr__ needs these to exist.
        set_attribute = object.__setattr__
        set_attribute(self, "training", True)
        set_attribute(self, "_parameters", {})
        set_attribute(self, "_buffers", {})
        set_attribute(self, "_non_persistent_buffers_set", set())
        set_attribute(self, "_modules", {})
        set_attribute(self, "_forward_hooks", {})
        set_attribute(self, "_forward_pre_hooks", {})

    # ------------------------------------------------------------------
    # Computing
    # ------------------------------------------------------------------

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation; every subclass defines its own.

        Raises:
            NotImplementedError: If the subclass did not define it.
        """
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the forward pre-hooks, :meth:`forward`, then the forward hooks."""
        for pre_hook in list(self._forward_pre_hooks.values()):
            new_args = pre_hook(self, args)
            if new_args is not None:
                args = new_args if isinstance(new_args, tuple) else (new_args,)
        result = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            new_result = hook(self, args, result)
            if new_result is not None:
                result = new_result
        return result

    def register_forward_pre_hook(self, hook: ForwardPreHook) -> RemovableHandle:
        """Calls ``hook(module, args)`` before each forward.

        The hook may return new arguments (a tuple, or one value) to use
        instead of ``args``.
        """
        return add_hook(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook: ForwardHook) -> RemovableHandle:
        """Calls ``hook(module, args, output)`` after each forward.

        The hook may return a value to use instead of ``output``.
        """
        return add_hook(self._forward_hooks, hook)

    # ------------------------------------------------------------------
    # Registering state: assignment routes each value to one home
    # ------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        """Files ``value`` by what it is: parameter, submodule, buffer or plain.

        A name already registered as a parameter (or submodule) accepts only
        another parameter (or module) or ``None``, which keeps the name but
        leaves it empty. A plain tensor registers nothing unless ``name`` is
        already a buffer.

        Raises:
            TypeError: For a value of the wrong kind under a registered name.
            AttributeError: If ``Module.__init__`` has not run yet.
        """
        if isinstance(value, Parameter):
            self._check_initialised("parameters", "_parameters")
            _check_leaf(name, value)
            self._forget(name, keep="_parameters")
            self.register_parameter(name, value)
        elif name in self.__dict__.get("_parameters", ()):
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self._parameters[name] = None
        elif isinstance(value, Module):
            self._check_initialised("module", "_modules")
            self._forget(name, keep="_modules")
            self._modules[name] = value
        elif name in self.__dict__.get("_modules", ()):
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            self._modules[name] = None
        elif name in self.__dict__.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _check_initialised(self, what: str, home: str) -> None:
        if home not in self.__dict__:
            raise AttributeError(f"cannot assign {what} before Module.__init__() call")

    def _forget(self, name: str, keep: str) -> None:
        """Removes ``name`` from every home but ``keep``, where it is about to
        be filed (keeping its place in the order if it was there already)."""
        self.__dict__.pop(name, None)
        if keep != "_parameters":
            self._parameters.pop(name, None)
        if keep != "_modules":
            self._modules.pop(name, None)
        self._buffers.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def _check_new_name(self, kind: str, name: Any, home: Mapping[str, Any]) -> None:
        """Refuses a name that is not a string, is empty, has a dot, or is taken."""
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in home:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Adds a parameter (or an empty slot, for ``None``) under ``name``.

        Raises:
            TypeError: If ``param`` is not a :class:`Parameter` or ``None``,
                or ``name`` is not a string.
            KeyError: If ``name`` is empty, contains ``"."`` or is already an
                attribute that is not a parameter.
            ValueError: If ``param`` is not a leaf of the graph.
        """
        self._check_initialised("parameter", "_parameters")
        self._check_new_name("parameter", name, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param is not None:
            _check_leaf(name, param)
        self._parameters[name] = param

    def register_buffer(
        self, name: str, tensor: Tensor | None, persistent: bool = True
    ) -> None:
        """Adds a buffer: a tensor that is state but not learned.

        A running mean is the usual example. Buffers are in ``state_dict``
        unless ``persistent=False``.

        Raises:
            TypeError: If ``tensor`` is not a tensor or ``None``, or ``name``
                is not a string.
            KeyError: If ``name`` is empty, contains ``"."`` or is already an
                attribute that is not a buffer.
        """
        self._check_initialised("buffer", "_buffers")
        self._check_new_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Adds a submodule under ``name`` (what ``self.name = module`` does).

        Raises:
            TypeError: If ``module`` is not a module or ``None``, or ``name``
                is not a string.
            KeyError: If ``name`` is empty, contains ``"."`` or is already an
                attribute that is not a submodule.
        """
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if isinstance(name, str) and "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        self._check_new_name("module", name, self._modules)
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name: str) -> Any:
        """Finds parameters, buffers and submodules (called only when the
        ordinary lookup fails).

        Raises:
            AttributeError: If ``name`` is none of them.
        """
        for home in ("_parameters", "_buffers", "_modules"):
            registered = self.__dict__.get(home, {})
            if name in registered:
                return registered[name]
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute '{name}'"
        )

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        names = itertools.chain(
            dir(type(self)),
            self.__dict__,
            self._parameters,
            self._buffers,
            self._modules,
        )
        return sorted({name for name in names if not name[0].isdigit()})

    def get_submodule(self, target: str) -> Module:
        """The submodule at a dotted path such as ``"encoder.0"`` (``""``: self).

        Raises:
            AttributeError: If a step of the path is missing or not a module.
        """
        module = self
        for step in target.split(".") if target else []:
            if not hasattr(module, step):
                raise AttributeError(f"{module._get_name()} has no attribute `{step}`")
            module = getattr(module, step)
            if not isinstance(module, Module):
                raise AttributeError(f"`{step}` is not an nn.Module")
        return module

    # ------------------------------------------------------------------
    # Walking the tree
    # ------------------------------------------------------------------

    def named_modules(
        self,
        memo: set[Module] | None = None,
        prefix: str = "",
        remove_duplicate: bool = True,
    ) -> Iterator[tuple[str, Module]]:
        """This module and every module below it, depth first, with dotted names.

        A module reachable along two paths is yielded once, under the first
        name, unless ``remove_duplicate=False``.
        """
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                child_prefix = f"{prefix}.{name}" if prefix else name
                yield from module.named_modules(memo, child_prefix, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        """This module and every module below it (see :meth:`named_modules`)."""
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct submodules with their names, each module once."""
        seen: set[Module] = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        """The direct submodules (see :meth:`named_children`)."""
        for _, module in self.named_children():
            yield module

    def _named_members(
        self, home: str, prefix: str, recurse: bool, remove_duplicate: bool
    ) -> Iterator[tuple[str, Tensor]]:
        """The tensors in dictionary ``home`` of each module, with dotted names."""
        if recurse:
            modules = self.named_modules(
                prefix=prefix, remove_duplicate=remove_duplicate
            )
        else:
            modules = iter([(prefix, self)])
        seen: set[Tensor] = set()
        for module_prefix, module in modules:
            for name, tensor in getattr(module, home).items():
                if tensor is None or tensor in seen:
                    continue
                if remove_duplicate:
                    seen.add(tensor)
                yield (f"{module_prefix}.{name}" if module_prefix else name), tensor

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """Every parameter with its dotted name, such as ``"0.weight"``.

        Args:
            prefix: Put before every name.
            recurse: Include the parameters of submodules (default ``True``).
            remove_duplicate: Yield a parameter shared by several modules once.
        """
        members = self._named_members("_parameters", prefix, recurse, remove_duplicate)
        for name, tensor in members:
            assert isinstance(tensor, Parameter)
            yield name, tensor

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter, each once (see :meth:`named_parameters`)."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """Every buffer with its dotted name (persistent or not)."""
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer, each once (see :meth:`named_buffers`)."""
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    # ------------------------------------------------------------------
    # Changing every module or parameter at once
    # ------------------------------------------------------------------

    def train(self, mode: bool = True) -> Module:
        """Sets training mode (``True``) or evaluation mode, recursively.

        Only some layers behave differently (``Dropout``, ``BatchNorm1d``).

        Raises:
            ValueError: If ``mode`` is not a bool.
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Evaluation mode: the same as ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Sets ``requires_grad`` on every parameter; returns ``self``."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clears the gradients of every parameter before the next backward.

        Args:
            set_to_none: Set ``.grad`` to ``None`` (the default) rather than
                filling it with zeros.
        """
        clear_grads(self.parameters(), set_to_none)

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Calls ``fn`` on every submodule (children first), then on ``self``.

        The usual use is custom initialisation::

            def init(m):
                if isinstance(m, nn.Linear):
                    nn.init.zeros_(m.bias)
            model.apply(init)
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------
    # Saving and loading state
    # ------------------------------------------------------------------

    def state_dict(
        self,
        *,
        destination: dict[str, Tensor] | None = None,
        prefix: str = "",
        keep_vars: bool = False,
    ) -> dict[str, Tensor]:
        """Every parameter and persistent buffer by dotted name, in order.

        The tensors are detached (they share storage with the module but are
        out of the graph) unless ``keep_vars=True``. A module reachable by
        two names appears under both.
        """
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination,
                    prefix=f"{prefix}{name}.",
                    keep_vars=keep_vars,
                )
        return destination

    def _save_to_state_dict(
        self, destination: dict[str, Tensor], prefix: str, keep_vars: bool
    ) -> None:
        """Puts this module's own parameters and persistent buffers (not its
        submodules') into ``destination``, detached unless ``keep_vars``."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()

    def _before_load(self, state_dict: Mapping[str, Any], prefix: str) -> None:
        """Called by :meth:`load_state_dict` on each module before its keys
        are checked; a lazy module gives its parameters their shapes here."""

    def _local_state(self) -> dict[str, Tensor]:
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
        self, state_dict: Mapping[str, Any], strict: bool = True
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

    # ------------------------------------------------------------------
    # Printing
    # ------------------------------------------------------------------

    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside the parentheses of the repr; layers override it,
        as ``Linear`` does with ``in_features=2, out_features=3, bias=True``."""
        return ""

    def __repr__(self) -> str:
        """``Name(extra)`` on one line, or one line per child, indented::

        Sequential(
          (0): Linear(in_features=2, out_features=3, bias=True)
          (1): ReLU()
        )
        """
        lines = self.extra_repr().split("\n") if self.extra_repr() else []
        children = [
            f"({name}): " + indent(repr(module), 2)
            for name, module in self._modules.items()
        ]
        if not children and len(lines) <= 1:
            return f"{self._get_name()}({''.join(lines)})"
        body = "\n".join("  " + line for line in lines + children)
        return f"{self._get_name()}(\n{body}\n)"


def _check_leaf(name: str, param: Parameter) -> None:
    if param.grad_fn is not None:
        raise ValueError(
            f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
            f"parameters must be created explicitly. To express '{name}' as a "
            "function of another Tensor, compute the value in the forward() "
            "method."
        )


def indent(text: str, spaces: int) -> str:
    """Indents every line of ``text`` but the first by ``spaces`` spaces."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [" " * spaces + line for line in rest])


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
