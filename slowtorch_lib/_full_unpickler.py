"""The full unpickler, for ``load(f, weights_only=False)``.

It is :class:`pickle.Unpickler` itself, which carries out every instruction
of the file: it imports what ``GLOBAL`` names and calls what ``REDUCE``
asks, so a file can run any code while it loads. ``torch.load`` does this
only when the caller asks for it with ``weights_only=False``, for files
from a trusted source that hold more than weights (NumPy arrays, a
program's own classes, an optimiser's whole object...).

Two things differ from plain ``pickle``: names under ``torch`` are looked up
in this engine (``torch._utils._rebuild_tensor_v2`` is the engine's
rebuilder, ``torch.nn.Linear`` the engine's ``Linear``), and persistent ids
name the archive's storages.
"""

from __future__ import annotations

import importlib
import io
import pickle
from typing import Any

from slowtorch_lib._weights_only_unpickler import (
    ALLOWED_GLOBALS,
    OTHER_STORAGES,
    PersistentLoad,
    StorageType,
)

__all__ = ["FullUnpickler"]


class FullUnpickler(pickle.Unpickler):
    """``pickle.Unpickler`` reading torch's names as the engine's.

    Args:
        data: The pickle (the archive's ``data.pkl``).
        persistent_load: Reads a storage, as for the weights-only loader.
        encoding: For byte strings pickled by Python 2.
    """

    def __init__(self, data: bytes, persistent: PersistentLoad, encoding: str) -> None:
        super().__init__(io.BytesIO(data), encoding=encoding)
        self._storage = persistent

    def find_class(self, module: str, name: str) -> Any:
        full_name = f"{module}.{name}"
        if full_name in ALLOWED_GLOBALS:
            return ALLOWED_GLOBALS[full_name]
        if full_name in OTHER_STORAGES:
            raise pickle.UnpicklingError(
                f"the file holds {OTHER_STORAGES[full_name]} tensors, and this "
                "engine has no such dtype"
            )
        if module == "torch" or module.startswith("torch."):
            return _engine_name(module, name)
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        if not (
            type(pid) is tuple
            and len(pid) == 5
            and pid[0] == "storage"
            and type(pid[1]) is StorageType
        ):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        _, storage_type, key, location, numel = pid
        return self._storage(storage_type, key, location, numel)


def _engine_name(module: str, name: str) -> Any:
    """The engine's object for ``torch.<...>.<name>``.

    Raises:
        pickle.UnpicklingError: If the engine has no such name.
    """
    engine_module = "slowtorch_lib" + module.removeprefix("torch")
    try:
        found: Any = importlib.import_module(engine_module)
        for part in name.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        raise pickle.UnpicklingError(
            f"the file names {module}.{name}, which this engine does not have"
        ) from None
    return found
