"""Containers: modules whose job is to hold other modules.

- :class:`Sequential` runs its modules one after another.
- :class:`ModuleList` is a list of modules, registered so that
  ``parameters()`` finds theirs (a plain Python list would hide them).
- :class:`ModuleDict` is the same as a dictionary.

Each stores its modules in ``_modules`` like any other module: the list
and sequence kinds under the names ``"0"``, ``"1"``, ...
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, overload

from slowtorch_lib.nn.modules.module import Module, indent

__all__ = ["ModuleDict", "ModuleList", "Sequential"]


def _position(index: Any, length: int) -> int:
    """``index`` as a position in ``range(length)``, counting back if negative.

    Raises:
        TypeError: If ``index`` is not an integer.
        IndexError: If it is out of range.
    """
    index = operator.index(index)
    if not -length <= index < length:
        raise IndexError(f"index {index} is out of range")
    return index % length


def _renumber(container: Module) -> None:
    """Names the modules ``"0"``, ``"1"``, ... again after a deletion."""
    modules = list(container._modules.values())
    container._modules.clear()
    for position, module in enumerate(modules):
        container._modules[str(position)] = module


class Sequential(Module):
    """Modules applied in order: the output of each is the input of the next.

    Built from modules, ``Sequential(nn.Linear(2, 3), nn.ReLU())``, which are
    named ``"0"``, ``"1"``, ...; or from an ``OrderedDict`` of named modules.
    Indexing gives a module, slicing a new ``Sequential`` of the same modules.
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for position, module in enumerate(args):
                self.add_module(str(position), module)

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input

    def _key(self, index: Any) -> str:
        keys = list(self._modules)
        return keys[_position(index, len(keys))]

    @overload
    def __getitem__(self, index: slice) -> Sequential: ...
    @overload
    def __getitem__(self, index: int) -> Module: ...

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return type(self)(OrderedDict(list(self._modules.items())[index]))
        return self._modules[self._key(index)]

    def __setitem__(self, index: int, module: Module) -> None:
        setattr(self, self._key(index), module)

    def __delitem__(self, index: int | slice) -> None:
        if isinstance(index, slice):
            for key in list(self._modules)[index]:
                delattr(self, key)
        else:
            delattr(self, self._key(index))
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())  # type: ignore[arg-type]

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        return Sequential(*self, *other)

    def __iadd__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        return self.extend(other)

    def append(self, module: Module) -> Sequential:
        """Adds ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        """Appends every module of ``modules``; returns ``self``."""
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Puts ``module`` before position ``index``; returns ``self``.

        Raises:
            AssertionError: If ``module`` is not a module (as in PyTorch).
            IndexError: If ``index`` is out of range.
        """
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        length = len(self)
        if not -length <= index <= length:
            raise IndexError(f"Index out of range: {index}")
        index = index + length if index < 0 else index
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        for position, each in enumerate(modules):
            self.add_module(str(position), each)
        return self

    def pop(self, index: int) -> Module:
        """Removes the module at ``index`` and returns it."""
        module = self[index]
        del self[index]
        return module


class ModuleList(Module):
    """A list of modules whose parameters the parent module can see.

    ``ModuleList([nn.Linear(2, 2) for _ in range(3)])`` supports indexing,
    slicing (giving a new ``ModuleList``), ``len``, iteration, ``append``,
    ``extend``, ``insert``, ``pop`` and ``+=``. It has no ``forward``: the
    parent decides how to use the modules.
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key(self, index: Any) -> str:
        return str(_position(index, len(self)))

    @overload
    def __getitem__(self, index: slice) -> ModuleList: ...
    @overload
    def __getitem__(self, index: int) -> Module: ...

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            modules = list(self._modules.values())[index]
            return type(self)(modules)  # type: ignore[arg-type]
        return self._modules[self._key(index)]

    def __setitem__(self, index: int, module: Module) -> None:
        setattr(self, self._key(index), module)

    def __delitem__(self, index: int | slice) -> None:
        if isinstance(index, slice):
            for position in range(len(self))[index]:
                delattr(self, str(position))
        else:
            delattr(self, self._key(index))
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())  # type: ignore[arg-type]

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return ModuleList([*self, *other])

    def append(self, module: Module) -> ModuleList:
        """Adds ``module`` at the end; returns ``self``."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Appends every module of ``modules``; returns ``self``.

        Raises:
            TypeError: If ``modules`` is not iterable.
        """
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        for module in list(modules):
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Puts ``module`` before position ``index``."""
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        for position, each in enumerate(modules):
            self.add_module(str(position), each)

    def pop(self, index: int | str) -> Module:
        """Removes the module at ``index`` and returns it."""
        module = self[int(index)]
        del self[int(index)]
        return module

    def __repr__(self) -> str:
        """One line per run of equal children: ``(0-2): 3 x Linear(...)``."""
        if not self._modules:
            return self._get_name() + "()"
        runs: list[list[Any]] = []  # [first, last, repr] of each run
        for position, module in enumerate(self):
            text = repr(module)
            if runs and runs[-1][2] == text:
                runs[-1][1] = position
            else:
                runs.append([position, position, text])
        lines = []
        for first, last, text in runs:
            if first == last:
                lines.append(f"({first}): " + indent(text, 2))
            else:
                count = last - first + 1
                lines.append(f"({first}-{last}): {count} x " + indent(text, 2))
        body = "\n".join("  " + line for line in lines)
        return f"{self._get_name()}(\n{body}\n)"


class ModuleDict(Module):
    """A dictionary of modules whose parameters the parent module can see.

    Keys are strings; order is insertion order. ``ModuleDict({"enc": ...})``
    supports ``d[key]``, ``d[key] = module``, ``del``, ``len``, ``in``,
    iteration over keys, ``keys``, ``values``, ``items``, ``update``,
    ``pop`` and ``clear``.
    """

    def __init__(
        self, modules: Mapping[str, Module] | Iterable[Any] | None = None
    ) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]  # type: ignore[return-value]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def values(self) -> Iterable[Module]:
        return self._modules.values()  # type: ignore[return-value]

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()  # type: ignore[return-value]

    def clear(self) -> None:
        """Removes every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Removes the module under ``key`` and returns it."""
        module = self[key]
        del self[key]
        return module

    def update(self, modules: Mapping[str, Module] | Iterable[Any]) -> None:
        """Adds modules from a mapping or from an iterable of (key, module) pairs.

        Raises:
            TypeError: If ``modules`` is not iterable, or an item is not a pair.
            ValueError: If an item of the iterable is not of length 2.
        """
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value "
                "pairs, but got " + type(modules).__name__
            )
        if isinstance(modules, (Mapping, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        for number, pair in enumerate(modules):
            if not isinstance(pair, Iterable):
                raise TypeError(
                    f"ModuleDict update sequence element #{number} should be "
                    f"Iterable; is{type(pair).__name__}"
                )
            pair = list(pair)
            if len(pair) != 2:
                raise ValueError(
                    f"ModuleDict update sequence element #{number} has length "
                    f"{len(pair)}; 2 is required"
                )
            self[pair[0]] = pair[1]
