"""``save`` and ``load`` in PyTorch's own file format, with a weights-only loader.

``torch.save`` writes a zip archive whose records are *stored* (not
compressed), each record's bytes starting at a multiple of 64 bytes from the
start of the file. Every record sits in one folder, named after the file
(``model`` for ``model.pt``; ``archive`` for a file object)::

    model/data.pkl                 the object, as a pickle (protocol 2)
    model/.format_version          "1"
    model/.storage_alignment       "64"
    model/byteorder                "little" (the byte order of the storages)
    model/data/0, model/data/1...  one record per storage: its raw elements
    model/version                  "3"
    model/.data/serialization_id   40 digits that name this save

The pickle holds everything but the numbers. A tensor is pickled as a call
``torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, OrderedDict())``, and its storage as a *persistent id*, the
tuple ``("storage", torch.FloatStorage, "0", "cpu", numel)``: the loader
fetches record ``data/0`` for it. Views of one storage name the same record,
so they come back sharing storage. A ``Parameter`` is pickled as
``torch._utils._rebuild_parameter(tensor, requires_grad, OrderedDict())``.

A pickle is a program: its ``GLOBAL`` instruction imports any function and
``REDUCE`` calls it, so unpickling a hostile file can run any code. That is
why ``torch.load`` uses a *weights-only* unpickler by default (since PyTorch
2.6), and why :func:`load` has only that one (see
:mod:`slowtorch_lib._weights_only_unpickler`): it runs the pickle one
instruction at a time, knows only the instructions that build data, and
imports nothing. Anything else is refused with :class:`pickle.UnpicklingError`
before it runs: a NumPy array, for one, is pickled as a call to NumPy's
``_reconstruct``, so a file holding one loads only with ``weights_only=False``.
The archive is checked as carefully: every record must be stored and lie
inside the file, and every storage must hold exactly the bytes its persistent
id claims, so nothing larger than the file is ever allocated.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import struct
import sys
import types
import zipfile
from collections import OrderedDict
from collections.abc import Callable
from typing import IO, Any, Union

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._full_unpickler import FullUnpickler
from slowtorch_lib._storage import Storage, array_from_bytes, array_to_bytes
from slowtorch_lib._tensor import Size, Tensor, check_device
from slowtorch_lib._weights_only_unpickler import (
    MAX_NESTING,
    STORAGE_NAMES,
    StorageType,
    WeightsUnpickler,
    nested_too_deep,
)
from slowtorch_lib.nn.parameter import Parameter

__all__ = ["load", "save"]

PathOrFile = Union[str, "os.PathLike[str]", IO[bytes]]  # noqa: UP007

ALIGNMENT = 64  # bytes: where each record's data starts (torch.save's default)
FORMAT_VERSION = "3"  # the ``version`` record torch 2.x writes


# ----------------------------------------------------------------------
# Saving
# ----------------------------------------------------------------------


def save(
    obj: Any,
    f: PathOrFile,
    pickle_module: Any = pickle,
    pickle_protocol: int = 2,
    _use_new_zipfile_serialization: bool = True,
) -> None:
    """Writes ``obj`` to ``f`` in ``torch.save``'s format.

    ``obj`` is usually a tensor (or ``Parameter``), a ``state_dict``, or dicts,
    lists and tuples of tensors, ints, floats, strings, bools, ``None`` and
    dtypes: what ``torch.load(f)`` reads with its default ``weights_only=True``.
    Anything else pickle can store (a whole module, a NumPy array, an object
    of the program's own class) is written as pickle writes it, by its class
    and state, and loads only with ``weights_only=False``, in PyTorch too.
    Tensors keep their dtype, shape, strides, offset and ``requires_grad``;
    tensors that share a storage (views) are saved with one copy of it and
    come back sharing it. A ``grad`` and a ``grad_fn`` are not saved.

    Args:
        obj: What to save.
        f: A file name, a path, or a file opened for binary writing.
        pickle_module: Only :mod:`pickle` (the default).
        pickle_protocol: Only 2, torch's default.
        _use_new_zipfile_serialization: Only ``True``: the zip format.

    Raises:
        pickle.PicklingError: For what no loader could read back: a lambda,
            containers nested more than ``MAX_NESTING`` deep (or inside
            themselves).
        AttributeError: For a function defined inside another, as pickle.
        NotImplementedError: For other options than the defaults above.
    """
    if pickle_module is not pickle or pickle_protocol != 2:
        raise NotImplementedError(
            "save() writes pickle protocol 2 with the standard pickle module, as "
            "torch.save does by default; other pickle options are not supported"
        )
    if not _use_new_zipfile_serialization:
        raise NotImplementedError(
            "save() writes only the zip format; the legacy format is not supported"
        )
    writer = WeightsPickler()
    records = {"data.pkl": writer.dumps(obj)}
    records[".format_version"] = b"1"
    records[".storage_alignment"] = str(ALIGNMENT).encode()
    records["byteorder"] = sys.byteorder.encode()
    for key, storage in writer.storages.items():
        records[f"data/{key}"] = array_to_bytes(
            storage.data, storage.dtype, sys.byteorder
        )
    records["version"] = FORMAT_VERSION.encode() + b"\n"
    records[".data/serialization_id"] = _serialization_id(records)
    data = zip_archive(_archive_name(f), records)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            file.write(data)
    else:
        f.write(data)


class WeightsPickler:
    """Writes a pickle (protocol 2) of weights, as ``torch.save`` writes it,
    and of any other object as :mod:`pickle` would (:meth:`_object`).

    Tensors are written as calls to ``torch._utils._rebuild_tensor_v2`` and
    their storages as persistent ids; :attr:`storages` collects the storages
    met, under their record keys ``"0"``, ``"1"``... Lists, dicts and tensors
    are memoised, so an object met twice is loaded as one object.
    """

    def __init__(self) -> None:
        self.out = bytearray()
        self.storages: dict[str, Storage] = {}
        self._keys: dict[int, str] = {}  # id(storage) -> its record key
        self._memo: dict[int, int] = {}  # id(object) -> its memo index
        self._kept: list[Any] = []  # the memoised objects, kept alive

    def dumps(self, obj: Any) -> bytes:
        """The pickle of ``obj``."""
        if nested_too_deep(obj):
            raise pickle.PicklingError(
                f"save() stores containers nested at most {MAX_NESTING} deep, "
                "and none inside itself"
            )
        self.out += pickle.PROTO + bytes([2])
        self.write(obj)
        self.out += pickle.STOP
        return bytes(self.out)

    def write(self, obj: Any) -> None:
        """Appends the instructions that rebuild ``obj``."""
        if id(obj) in self._memo:
            self._get(self._memo[id(obj)])
        elif obj is None:
            self.out += pickle.NONE
        elif isinstance(obj, bool):
            self.out += pickle.NEWTRUE if obj else pickle.NEWFALSE
        elif isinstance(obj, int):
            self._int(obj)
        elif isinstance(obj, float):
            self.out += pickle.BINFLOAT + struct.pack(">d", obj)
        elif isinstance(obj, str):
            self._str(obj)
        elif isinstance(obj, dtype):
            self._global("torch", obj.name)
        elif isinstance(obj, Tensor):
            self._tensor(obj)
        elif type(obj) is Size:
            self._size(obj)
        elif type(obj) is tuple:
            self._tuple(obj)
        elif type(obj) is list:
            self._list(obj)
        elif type(obj) in (dict, OrderedDict):
            self._dict(obj)
        elif type(obj) is bytes:
            self._bytes(obj)
        elif is_numpy(obj):
            self._numpy(obj)
        else:
            self._object(obj)

    def _int(self, value: int) -> None:
        if 0 <= value < 2**8:
            self.out += pickle.BININT1 + bytes([value])
        elif 0 <= value < 2**16:
            self.out += pickle.BININT2 + struct.pack("<H", value)
        elif -(2**31) <= value < 2**31:
            self.out += pickle.BININT + struct.pack("<i", value)
        else:
            encoded = pickle.encode_long(value)  # type: ignore[attr-defined]
            if len(encoded) > 255:
                raise pickle.PicklingError("save() stores ints of at most 255 bytes")
            self.out += pickle.LONG1 + bytes([len(encoded)]) + encoded

    def _str(self, text: str) -> None:
        encoded = text.encode("utf-8", "surrogatepass")
        self.out += pickle.BINUNICODE + struct.pack("<I", len(encoded)) + encoded

    def _global(self, module: str, name: str) -> None:
        self.out += pickle.GLOBAL + f"{module}\n{name}\n".encode()

    def _size(self, size: Size) -> None:
        """``torch.Size((2, 3))``."""
        self._global("torch", "Size")
        self.out += pickle.MARK
        self._tuple(tuple(size))
        self.out += pickle.TUPLE + pickle.REDUCE

    def _tuple(self, items: tuple[Any, ...]) -> None:
        self.out += pickle.MARK
        for item in items:
            self.write(item)
        self.out += pickle.TUPLE

    def _list(self, items: list[Any]) -> None:
        self.out += pickle.EMPTY_LIST
        self._put(items)
        if items:
            self.out += pickle.MARK
            for item in items:
                self.write(item)
            self.out += pickle.APPENDS

    def _dict(self, items: dict[Any, Any]) -> None:
        if isinstance(items, OrderedDict):
            self._empty_ordered_dict()
        else:
            self.out += pickle.EMPTY_DICT
        self._put(items)
        if items:
            self.out += pickle.MARK
            for key, value in items.items():
                self.write(key)
                self.write(value)
            self.out += pickle.SETITEMS

    def _empty_ordered_dict(self) -> None:
        self._global("collections", "OrderedDict")
        self.out += pickle.EMPTY_TUPLE + pickle.REDUCE

    def _tensor(self, tensor: Tensor) -> None:
        """``_rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
        OrderedDict())``, or for a ``Parameter``, ``_rebuild_parameter`` of it."""
        parameter = isinstance(tensor, Parameter)
        if parameter:
            self._global("torch._utils", "_rebuild_parameter")
            self.out += pickle.MARK
        self._global("torch._utils", "_rebuild_tensor_v2")
        self.out += pickle.MARK
        self._persistent_id(tensor.untyped_storage())
        self._int(tensor.storage_offset())
        self._tuple(tuple(tensor.shape))
        self._tuple(tensor.stride())
        self.write(tensor.requires_grad and not parameter)
        self._empty_ordered_dict()
        self.out += pickle.TUPLE + pickle.REDUCE
        if parameter:
            self.write(tensor.requires_grad)
            self._empty_ordered_dict()
            self.out += pickle.TUPLE + pickle.REDUCE
        self._put(tensor)

    def _persistent_id(self, storage: Storage) -> None:
        """``("storage", torch.FloatStorage, key, "cpu", numel)``, then BINPERSID."""
        key = self._keys.get(id(storage))
        if key is None:
            key = self._keys[id(storage)] = str(len(self.storages))
            self.storages[key] = storage
        self.out += pickle.MARK
        self._str("storage")
        self._global("torch", STORAGE_NAMES[storage.dtype])
        self._str(key)
        self._str("cpu")
        self._int(len(storage))
        self.out += pickle.TUPLE + pickle.BINPERSID

    def _numpy(self, obj: Any) -> None:
        """A NumPy array, scalar or dtype, as :mod:`pickle` writes it: the
        call its ``__reduce_ex__(2)`` names (``_reconstruct``, ``scalar``,
        ``dtype``), then ``BUILD`` with its state. NumPy itself is not
        imported: the object describes itself. ``load`` reads such a file
        with ``weights_only=False`` only, as ``torch.load`` does."""
        function, args, *rest = obj.__reduce_ex__(2)
        self._reduce_part(function)
        self._reduce_part(args)
        self.out += pickle.REDUCE
        self._put(obj)
        if rest and rest[0] is not None:
            self._reduce_part(rest[0])
            self.out += pickle.BUILD

    def _object(self, obj: Any) -> None:
        """Any other object (a whole module, an optimiser...) as :mod:`pickle`
        writes it: a class or function by its name; an instance as its class
        and arguments (``NEWOBJ``), then its state (``BUILD``). The engine's
        names are written as torch's (``torch.nn.modules.linear.Linear``).
        Such a file loads only with ``weights_only=False``, as in PyTorch.

        Raises:
            pickle.PicklingError: For an object pickle cannot store (a
                lambda, a generator...).
        """
        if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
            _check_importable(obj)
            self._global(_torch_module(obj.__module__), obj.__qualname__)
            return
        try:
            reduced = obj.__reduce_ex__(2)
        except TypeError as error:
            raise pickle.PicklingError(f"save() cannot store {error}") from None
        if isinstance(reduced, str):
            self._global(_torch_module(type(obj).__module__), reduced)
            return
        function, args, state, items, pairs = (*reduced, None, None, None)[:5]
        if getattr(function, "__name__", "") == "__newobj__":
            self._reduce_part(args[0])
            self._reduce_part(tuple(args[1:]))
            self.out += pickle.NEWOBJ
        else:
            self._reduce_part(function)
            self._reduce_part(args)
            self.out += pickle.REDUCE
        self._put(obj)
        if items is not None:
            self._tuple_items(list(items), pickle.APPENDS)
        if pairs is not None:
            self._tuple_items(
                [part for pair in pairs for part in pair], pickle.SETITEMS
            )
        if state is not None:
            self.write(state)
            self.out += pickle.BUILD

    def _tuple_items(self, parts: list[Any], instruction: bytes) -> None:
        """``MARK``, each part, then ``instruction`` (``APPENDS``, ``SETITEMS``)."""
        if parts:
            self.out += pickle.MARK
            for part in parts:
                self.write(part)
            self.out += instruction

    def _reduce_part(self, part: Any) -> None:
        """A piece of a NumPy object's reduction: also classes, functions
        and raw bytes, which nothing else saved here holds."""
        if isinstance(part, type) or callable(part) and not is_numpy(part):
            self._global(_torch_module(part.__module__), part.__qualname__)
        elif isinstance(part, bytes):
            self._bytes(part)
        elif type(part) is tuple:
            self.out += pickle.MARK
            for item in part:
                self._reduce_part(item)
            self.out += pickle.TUPLE
        else:
            self.write(part)

    def _bytes(self, data: bytes) -> None:
        """Protocol 2 has no bytes: ``_codecs.encode(latin-1 text, "latin1")``,
        or for no bytes, ``bytes()``."""
        if not data:
            self._global("__builtin__", "bytes")
            self.out += pickle.EMPTY_TUPLE + pickle.REDUCE
            return
        self._global("_codecs", "encode")
        self.out += pickle.MARK
        self._str(data.decode("latin1"))
        self._str("latin1")
        self.out += pickle.TUPLE + pickle.REDUCE

    def _put(self, obj: Any) -> None:
        index = self._memo[id(obj)] = len(self._memo)
        self._kept.append(obj)
        if index < 256:
            self.out += pickle.BINPUT + bytes([index])
        else:
            self.out += pickle.LONG_BINPUT + struct.pack("<I", index)

    def _get(self, index: int) -> None:
        if index < 256:
            self.out += pickle.BINGET + bytes([index])
        else:
            self.out += pickle.LONG_BINGET + struct.pack("<I", index)


def _check_importable(obj: Any) -> None:
    """Refuses a function or class a loader could not import by its name.

    Raises:
        AttributeError: For a function defined inside another, as
            :mod:`pickle` refuses it.
        pickle.PicklingError: For a lambda, or anything else not found
            under its name.
    """
    if "<locals>" in obj.__qualname__:
        raise AttributeError(f"Can't pickle local object '{obj.__qualname__}'")
    found: Any = sys.modules.get(obj.__module__)
    for part in obj.__qualname__.split("."):
        found = getattr(found, part, None)
    if found is not obj:
        raise pickle.PicklingError(
            f"Can't pickle {obj!r}: attribute lookup {obj.__qualname__} on "
            f"{obj.__module__} failed"
        )


def _torch_module(module: str) -> str:
    """``torch.nn.modules.linear`` for the engine's ``slowtorch_lib.nn...``."""
    if module == "slowtorch_lib" or module.startswith("slowtorch_lib."):
        return "torch" + module.removeprefix("slowtorch_lib")
    return module


def is_numpy(obj: Any) -> bool:
    """Whether ``obj`` is a NumPy object (found without importing NumPy)."""
    return type(obj).__module__.split(".")[0] == "numpy"


def zip_archive(folder: str, records: dict[str, bytes]) -> bytes:
    """A zip archive of ``records``, stored, each one's data 64-byte aligned."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, data in records.items():
            info = zipfile.ZipInfo(f"{folder}/{name}")
            big = len(data) >= zipfile.ZIP64_LIMIT
            # The local header: 30 bytes, the name, our extra field (4 bytes
            # and padding), and zipfile's 20-byte zip64 field if the record
            # is big. The padding makes the data start at a multiple of 64.
            header = 30 + len(info.filename.encode()) + 4 + (20 if big else 0)
            padding = -(buffer.tell() + header) % ALIGNMENT
            info.extra = b"FB" + struct.pack("<H", padding) + b"Z" * padding
            with archive.open(info, "w", force_zip64=big) as record:
                record.write(data)
    return buffer.getvalue()


def _archive_name(f: PathOrFile) -> str:
    """The folder of the records: the file's name without its extension."""
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fspath(f)))[0]
        return stem or "archive"
    return "archive"


def _serialization_id(records: dict[str, bytes]) -> bytes:
    """40 digits that name this save (torch draws them at random; here they
    come from the contents, so that saving the same thing twice gives the
    same file)."""
    digest = hashlib.sha256()
    for name, data in records.items():
        digest.update(name.encode() + b"\0" + data)
    number = int.from_bytes(digest.digest()[:16], "big")
    return str(number).zfill(40).encode()


# ----------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------


def load(
    f: PathOrFile,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Reads a file that ``torch.save`` (or :func:`save`) wrote.

    Only weights are loaded, as ``torch.load`` does by default: tensors and
    parameters, dicts (plain or ordered), lists and tuples of them, numbers,
    strings, ``None`` and dtypes. Tensors that shared a storage when saved
    share one again. The pickle is run by ``WeightsUnpickler``, which refuses
    anything else before running it.

    Args:
        f: A file name, a path, or a file opened for binary reading.
        map_location: ``None``, ``"cpu"`` or a dict mapping saved locations to
            ``"cpu"``; with it, storages saved on another device come to the CPU.
        pickle_module: ``None`` or :mod:`pickle`. (``torch.load`` refuses
            one with ``weights_only=True``, and given one without
            ``weights_only`` runs the full unpickler.)
        weights_only: ``True``, or ``None`` (the default), which means
            ``True`` unless ``pickle_module`` is given, as in ``torch.load``.
            ``False`` runs the full unpickler
            (:class:`~slowtorch_lib._full_unpickler.FullUnpickler`), which
            imports and calls whatever the file names: only for files you
            trust, as in PyTorch.
        mmap: Accepted for compatibility; the file is always read into memory.
        pickle_load_args: Only ``encoding``, used for Python 2 byte strings.

    Raises:
        pickle.UnpicklingError: If the pickle asks for anything but weights
            (a global outside :data:`ALLOWED_GLOBALS`, an instruction that is
            not for data), is malformed, nests containers too deep, or holds
            dtypes this engine does not have.
        RuntimeError: If the archive is not torch's zip format, is truncated,
            has compressed records or records that do not fit in it, or
            storages of another size than their tensors need.
        NotImplementedError: For a ``pickle_module`` other than pickle.
    """
    full = _check_load_options(pickle_module, weights_only, pickle_load_args)
    locations = _location_map(map_location)
    archive = TorchArchive(_read_all(f))
    storages = StorageReader(archive, locations)
    encoding = pickle_load_args.get("encoding", "ASCII")
    if full:
        return FullUnpickler(archive.read("data.pkl"), storages.load, encoding).load()
    unpickler = WeightsUnpickler(archive.read("data.pkl"), storages.load, encoding)
    try:
        return unpickler.load()
    except pickle.UnpicklingError as error:
        raise pickle.UnpicklingError(weights_only_message(str(error))) from None


UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument "
    "in `torch.load` from `False` to `True`. Re-running `torch.load` with "
    "`weights_only` set to `False` will likely succeed, but it can result in "
    "arbitrary code execution. Do it only if you got the file from a trusted source."
)


def weights_only_message(message: str) -> str:
    """The error for a file the weights-only loader refused.

    For a global it does not allow (a NumPy array's ``_reconstruct``, a
    program's own class), PyTorch's advice: load with ``weights_only=False``
    if the file is trusted. PyTorch's other way, an allowlist
    (``torch.serialization.add_safe_globals``), is not in this engine.
    """
    if "was not an allowed global by default" not in message:
        return f"Weights only load failed. {message}"
    return (
        "Weights only load failed. This file can still be loaded, to do so you "
        "have one option, \033[1mdo it only if you trust the source of the "
        f"checkpoint\033[0m. \n\t(1) {UNSAFE_MESSAGE}\n\tWeightsUnpickler error: "
        f"{message}.\n\nCheck the documentation of torch.load to learn more about "
        "types accepted by default with weights_only "
        "https://pytorch.org/docs/stable/generated/torch.load.html."
    )


def _check_load_options(
    pickle_module: Any, weights_only: bool | None, extra: dict[str, Any]
) -> bool:
    """Checks the options; whether to run the full unpickler."""
    if weights_only is None:
        weights_only = pickle_module is None
    if pickle_module not in (None, pickle):
        raise NotImplementedError("load() takes pickle_module=pickle only")
    if not weights_only:
        _check_extra(extra)
        return True
    if pickle_module is not None:
        raise RuntimeError(
            "Can not safely load weights when explicit pickle_module is specified"
        )
    _check_extra(extra)
    return False


def _check_extra(extra: dict[str, Any]) -> None:
    unknown = set(extra) - {"encoding"}
    if unknown:
        raise TypeError(f"load() got an unexpected keyword argument {min(unknown)!r}")


def _location_map(map_location: Any) -> Callable[[str], str]:
    """The location each saved location loads to (only the CPU exists here)."""
    if map_location is None:
        return _saved_location
    if isinstance(map_location, dict):
        for target in map_location.values():
            check_device(target)
        return lambda location: "cpu"
    if callable(map_location):
        raise NotImplementedError("load() takes map_location as a device or a dict")
    check_device(map_location)
    return lambda location: "cpu"


def _saved_location(location: str) -> str:
    if location != "cpu":
        raise RuntimeError(
            f"Attempting to deserialize object on device '{location}', but this "
            "engine has only the CPU: use load(f, map_location='cpu') to map the "
            "storages to the CPU."
        )
    return location


def _read_all(f: PathOrFile) -> bytes:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return file.read()
    data = f.read()
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(
            "load() needs a file opened for reading bytes (mode 'rb'), but read() "
            f"gave {type(data).__name__}"
        )
    return bytes(data)


class TorchArchive:
    """The records of a ``torch.save`` zip archive, checked before any is read.

    Every record must be stored (a compressed record could expand to any
    size), lie inside the file, and sit in the one top folder.

    Raises:
        RuntimeError: Naming what is wrong with the archive.
    """

    def __init__(self, data: bytes) -> None:
        if not data.startswith(b"PK\x03\x04"):
            raise RuntimeError(
                "not a file written by torch.save: it does not start as a zip "
                "archive (the legacy format of PyTorch before 1.6 is not read)"
            )
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
        except (zipfile.BadZipFile, ValueError, EOFError, struct.error) as error:
            raise RuntimeError(
                f"the zip archive is damaged or truncated ({error})"
            ) from None
        self.records = self._check_records(len(data))

    def _check_records(self, size: int) -> dict[str, zipfile.ZipInfo]:
        infos = self._zip.infolist()
        if not infos:
            raise RuntimeError("the zip archive is empty")
        folder = infos[0].filename.split("/")[0] + "/"
        records: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            name = info.filename
            if not name.startswith(folder) or name[len(folder) :] in records:
                raise RuntimeError(f"record {name!r} is outside {folder!r} or twice")
            if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 1:
                raise RuntimeError(
                    f"record {name!r} is compressed or encrypted; torch.save "
                    "stores its records, and a compressed one could expand to "
                    "any size"
                )
            if info.file_size != info.compress_size or (
                info.header_offset + info.file_size > size
            ):
                raise RuntimeError(
                    f"record {name!r} claims {info.file_size} bytes, more than the "
                    "archive holds for it"
                )
            records[name[len(folder) :]] = info
        return records

    def size(self, name: str) -> int:
        """The size of a record, in bytes, read from the archive's directory."""
        return self._info(name).file_size

    def read(self, name: str) -> bytes:
        """The bytes of a record (checked against its CRC)."""
        try:
            return self._zip.read(self._info(name))
        except (zipfile.BadZipFile, EOFError, ValueError, struct.error) as error:
            raise RuntimeError(f"record {name!r} is damaged ({error})") from None

    def _info(self, name: str) -> zipfile.ZipInfo:
        if name not in self.records:
            raise RuntimeError(f"the archive has no record {name!r}")
        return self.records[name]


class StorageReader:
    """Reads the storages that the pickle's persistent ids name, each once.

    A storage's record must hold exactly the bytes its persistent id claims
    (``numel`` elements of its dtype): the size is checked in the archive's
    directory before the record is read, so a lying id allocates nothing.
    """

    def __init__(self, archive: TorchArchive, location: Callable[[str], str]) -> None:
        self.archive = archive
        self.location = location
        self.byteorder = self._byteorder()
        self.storages: dict[str, Storage] = {}

    def _byteorder(self) -> str:
        if "byteorder" not in self.archive.records:
            return "little"  # files from before the record existed
        order = self.archive.read("byteorder").decode("ascii", "replace")
        if order not in ("little", "big"):
            raise RuntimeError(f"the byteorder record says {order!r}")
        return order

    def load(self, kind: StorageType, key: str, location: str, numel: int) -> Storage:
        """The storage in record ``data/<key>``, read once and then shared."""
        self.location(location)
        d = kind.dtype
        if key in self.storages:
            storage = self.storages[key]
            if storage.dtype is not d or len(storage) != numel:
                raise pickle.UnpicklingError(
                    f"storage {key} is named with two dtypes or sizes"
                )
            return storage
        record = f"data/{key}"
        expected = numel * d.itemsize
        if self.archive.size(record) != expected:  # checked before reading
            raise RuntimeError(
                f"record {record} has {self.archive.size(record)} bytes, but its "
                f"storage of {numel} {d} elements needs {expected}"
            )
        data = self.archive.read(record)
        storage = self.storages[key] = _storage_from_bytes(data, d, self.byteorder)
        return storage


def _storage_from_bytes(data: bytes, d: dtype, byteorder: str) -> Storage:
    values = array_from_bytes(data, d, byteorder)
    if d is dtypes.bool_ and any(v > 1 for v in values):
        raise pickle.UnpicklingError("a bool storage holds bytes other than 0 and 1")
    return Storage(values, d)
