"""The safetensors format, in plain Python: this engine's ``safetensors.torch``.

PyTorch's own ``torch.save`` writes a pickle (see
:mod:`slowtorch_lib.serialization`). The ``safetensors`` package writes a
format that is only numbers and a description of them, so that loading a
file can never run code::

    [8 bytes]  N, the length of the header, as a little-endian unsigned int
    [N bytes]  the header: JSON text, padded with spaces to a multiple of 8
    [the rest] the buffer: every tensor's elements, little-endian, row-major

The header maps each tensor's name to its dtype, shape and place in the
buffer, and may hold string metadata::

    {"__metadata__": {"format": "pt"},
     "weight": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}

``data_offsets`` are ``[begin, end)`` byte positions counted from the start
of the buffer. The tensors tile the buffer exactly: no gaps, no overlaps.
The functions here have the names and arguments of ``safetensors.torch``
(``save_file``, ``load_file``, ``save``, ``load``), and the files are byte
for byte those that the ``safetensors`` package writes for the same tensors
(tensors ordered by dtype, then by name), so each side reads the other's.

Loading trusts nothing in the file. Every number in the header is checked
against the file's real size before any byte of the buffer is converted, so
a file that lies (a huge header length, offsets past the end, overlapping
tensors, a shape that does not match its bytes) is refused with a
:class:`SafetensorError`, and nothing beyond the file's own bytes is ever
allocated for it.
"""

from __future__ import annotations

import json
import math
import os
from array import array
from collections.abc import Mapping
from typing import Any, Union

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._storage import array_from_bytes, array_to_bytes
from slowtorch_lib._tensor import Tensor, check_device, from_values

__all__ = ["SafetensorError", "load", "load_file", "save", "save_file"]

PathLike = Union[str, "os.PathLike[str]"]  # noqa: UP007

# safetensors' names for the dtypes this engine has, in the order the
# reference writer sorts them (larger alignment first).
DTYPE_NAMES = {
    dtypes.int64: "I64",
    dtypes.float64: "F64",
    dtypes.float32: "F32",
    dtypes.int32: "I32",
    dtypes.bfloat16: "BF16",
    dtypes.float16: "F16",
    dtypes.int16: "I16",
    dtypes.int8: "I8",
    dtypes.uint8: "U8",
    dtypes.bool_: "BOOL",
}
DTYPES_BY_NAME = {name: d for d, name in DTYPE_NAMES.items()}
# Valid in safetensors, but not dtypes of this engine.
OTHER_DTYPE_NAMES = {
    "U16",
    "U32",
    "U64",
    "F8_E4M3",
    "F8_E5M2",
    "F8_E8M0",
    "F4",
    "F6_E2M3",
    "F6_E3M2",
    "C64",
}

# The largest header accepted (the reference implementation's limit).
MAX_HEADER_BYTES = 100_000_000


class SafetensorError(RuntimeError):
    """A file that is not a valid safetensors file (or not one we can read)."""


# ----------------------------------------------------------------------
# Saving
# ----------------------------------------------------------------------


def save_file(
    tensors: Mapping[str, Tensor],
    filename: PathLike,
    metadata: Mapping[str, str] | None = None,
) -> None:
    """Writes a dict of named tensors (a ``state_dict``) to a safetensors file.

    Args:
        tensors: A mapping from names (strings) to contiguous tensors, no two
            of them on the same elements of one storage.
        filename: Where to write.
        metadata: Strings to keep in the header's ``__metadata__``.

    Raises:
        ValueError: If ``tensors`` is not a mapping, a value is not a tensor
            or a tensor is not contiguous, as ``safetensors.torch`` does.
        TypeError: If a key or a metadata entry is not a string.
        RuntimeError: If two tensors overlap in one storage (save one, or
            clone the others), as ``safetensors.torch`` does.
    """
    data = save(tensors, metadata)
    with open(filename, "wb") as file:
        file.write(data)


def save(
    tensors: Mapping[str, Tensor], metadata: Mapping[str, str] | None = None
) -> bytes:
    """The bytes of a safetensors file holding ``tensors`` (see :func:`save_file`).

    The tensors are laid out by dtype (8-byte ones first, so each stays
    aligned) and then by name, as the reference writer does.
    """
    _check_tensors(tensors)
    _check_metadata(metadata)
    order = sorted(tensors, key=lambda name: (_rank(tensors[name].dtype), name))
    header: dict[str, Any] = {}
    if metadata is not None:
        header["__metadata__"] = dict(metadata)
    chunks = []
    offset = 0
    for name in order:
        tensor = tensors[name]
        chunk = tensor_bytes(tensor)
        header[name] = {
            "dtype": DTYPE_NAMES[tensor.dtype],
            "shape": list(tensor.shape),
            "data_offsets": [offset, offset + len(chunk)],
        }
        chunks.append(chunk)
        offset += len(chunk)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
    text += b" " * (-len(text) % 8)  # pad to a multiple of 8 bytes
    return len(text).to_bytes(8, "little") + text + b"".join(chunks)


def _check_tensors(tensors: Any) -> None:
    """Refuses what ``safetensors.torch.save`` refuses, with its exceptions."""
    if not isinstance(tensors, Mapping):
        raise ValueError(
            "Expected a dict of [str, torch.Tensor] but received "
            f"{type(tensors).__name__}"
        )
    for name, tensor in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"a tensor's name must be a str, not {name!r}")
        if name == "__metadata__":
            raise ValueError("the name '__metadata__' is reserved by safetensors")
        if not isinstance(tensor, Tensor):
            raise ValueError(
                f"Key `{name}` is invalid, expected torch.Tensor but received "
                f"{type(tensor).__name__}"
            )
        if not tensor.is_contiguous():
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{name}`, which "
                "is not allowed: call .contiguous() (or .clone()) first"
            )
    _check_no_overlap(tensors)


def _check_no_overlap(tensors: Mapping[str, Tensor]) -> None:
    """Refuses two tensors on the same elements of one storage (views of each
    other), which would be saved twice and come back as two copies."""
    spans: dict[int, list[tuple[int, int, str]]] = {}
    for name, tensor in tensors.items():
        begin = tensor.storage_offset()
        if tensor.numel():
            span = (begin, begin + tensor.numel(), name)
            spans.setdefault(id(tensor.untyped_storage()), []).append(span)
    for group in spans.values():
        group.sort()
        for (_, end, first), (begin, _, second) in zip(group, group[1:]):
            if begin < end:
                raise RuntimeError(
                    f"Some tensors share memory: {{{first!r}, {second!r}}}; save "
                    "one of them, or .clone() the others"
                )


def _check_metadata(metadata: Any) -> None:
    if metadata is None:
        return
    if not isinstance(metadata, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()
    ):
        raise TypeError("metadata must be a dict of str to str")


def _rank(d: dtype) -> int:
    return list(DTYPE_NAMES).index(d)


def tensor_bytes(tensor: Tensor) -> bytes:
    """The elements of ``tensor`` in row-major order, as little-endian bytes."""
    values = array(tensor.dtype.typecode, tensor._values())
    return array_to_bytes(values, tensor.dtype, "little")


# ----------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------


def load_file(filename: PathLike, device: str = "cpu") -> dict[str, Tensor]:
    """Reads the tensors of a safetensors file written by :func:`save_file`.

    Nothing in the file is ever executed: it is parsed as JSON and numbers.

    Args:
        filename: The file to read.
        device: Only ``"cpu"``, the engine's one device.

    Returns:
        A dict from each name to a new tensor, in the order of the file (by
        dtype, then by name, for files that the reference writer wrote).

    Raises:
        SafetensorError: If the file is truncated, is not a safetensors file,
            or its header does not describe its contents exactly.
        FileNotFoundError: If there is no such file.
    """
    check_device(device)
    with open(filename, "rb") as file:
        return load(file.read())


def load(data: bytes) -> dict[str, Tensor]:
    """The tensors held in the bytes of a safetensors file (see :func:`load_file`)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"load() takes bytes, not {type(data).__name__}")
    data = bytes(data)
    length = _header_length(data)
    header, _ = read_header(data[8 : 8 + length])
    buffer = memoryview(data)[8 + length :]
    entries = check_entries(header, len(buffer))
    return {
        name: tensor_from_bytes(name, buffer[begin:end], d, shape)
        for name, (d, shape, (begin, end)) in entries.items()
    }


def _header_length(data: bytes) -> int:
    """The header's length, checked against the size of the file."""
    if len(data) < 8:
        raise SafetensorError(
            f"not a safetensors file: it has {len(data)} bytes, fewer than the "
            "8 that give the header's length"
        )
    length = int.from_bytes(data[:8], "little")
    if length > MAX_HEADER_BYTES:
        raise SafetensorError(
            f"not a safetensors file, or a corrupted one: the header length "
            f"{length} is larger than the limit of {MAX_HEADER_BYTES} bytes"
        )
    if 8 + length > len(data):
        raise SafetensorError(
            f"the header should be {length} bytes, but only {len(data) - 8} "
            "bytes follow its length: the file is truncated, or it is not a "
            "safetensors file"
        )
    return length


def read_header(raw: bytes) -> tuple[dict[str, Any], dict[str, str] | None]:
    """The header's tensor entries and its ``__metadata__`` (or ``None``).

    Raises:
        SafetensorError: If the header is not a JSON object of the right form.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SafetensorError(
            "not a safetensors file: the header is not UTF-8 text"
        ) from None
    if not text.startswith("{"):
        raise SafetensorError(
            "not a safetensors file: the header does not start with '{'"
        )
    try:
        header = json.loads(
            text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants
        )
    except (ValueError, RecursionError) as error:
        raise SafetensorError(f"the header is not valid JSON: {error}") from None
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (
        isinstance(metadata, dict)
        and all(isinstance(v, str) for v in metadata.values())
    ):
        raise SafetensorError("'__metadata__' must map strings to strings")
    return header, metadata


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise SafetensorError(f"the header names '{key}' twice")
            seen.add(key)
    return result


def _no_constants(name: str) -> None:
    raise SafetensorError(f"the header contains {name}, which JSON does not allow")


Entry = tuple[dtype, tuple[int, ...], tuple[int, int]]


def check_entries(header: dict[str, Any], buffer_length: int) -> dict[str, Entry]:
    """Checks every tensor's description against the others and the buffer.

    Each entry needs a known dtype, a shape of non-negative integers, and
    offsets ``[begin, end]`` inside the buffer holding exactly
    ``numel * itemsize`` bytes; together the entries must cover the buffer
    with no gap and no overlap.

    Raises:
        SafetensorError: Naming the first entry that breaks a rule.
    """
    entries = {
        name: _check_entry(name, info, buffer_length) for name, info in header.items()
    }
    position = 0
    by_offset = sorted(entries.items(), key=lambda item: item[1][2])
    for number, (name, (_, _, (begin, end))) in enumerate(by_offset):
        if begin != position:
            problem = "overlaps another" if begin < position else "leaves a gap"
            before = "the tensor before it ends" if number else "the buffer starts"
            raise SafetensorError(
                f"tensor '{name}' starts at byte {begin} of the buffer, but "
                f"{before} at byte {position}: it {problem}"
            )
        position = end
    if position != buffer_length:
        raise SafetensorError(
            f"the tensors cover {position} bytes, but the buffer after the header "
            f"has {buffer_length} bytes"
        )
    return entries


def _check_entry(name: str, info: Any, buffer_length: int) -> Entry:
    if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
        raise SafetensorError(
            f"tensor '{name}' must be described by exactly 'dtype', 'shape' and "
            "'data_offsets'"
        )
    kind = info["dtype"]
    if kind not in DTYPES_BY_NAME:
        what = "not supported" if kind in OTHER_DTYPE_NAMES else "unknown"
        raise SafetensorError(
            f"tensor '{name}' has dtype {kind!r}, which is {what}; this engine "
            f"reads {', '.join(DTYPES_BY_NAME)}"
        )
    d = DTYPES_BY_NAME[kind]
    shape, offsets = info["shape"], info["data_offsets"]
    if not _naturals(shape):
        raise SafetensorError(
            f"tensor '{name}' has shape {shape!r}: expected a list of "
            "non-negative integers"
        )
    if not (_naturals(offsets) and len(offsets) == 2 and offsets[0] <= offsets[1]):
        raise SafetensorError(
            f"tensor '{name}' has data_offsets {offsets!r}: expected [begin, end] "
            "with 0 <= begin <= end"
        )
    begin, end = offsets
    if end > buffer_length:
        raise SafetensorError(
            f"tensor '{name}' ends at byte {end}, past the end of the buffer "
            f"({buffer_length} bytes): the file is truncated or corrupted"
        )
    expected = math.prod(shape) * d.itemsize
    if end - begin != expected:
        raise SafetensorError(
            f"tensor '{name}' of shape {shape} and dtype {kind} needs {expected} "
            f"bytes, but its data_offsets give {end - begin}"
        )
    return d, tuple(shape), (begin, end)


def _naturals(values: Any) -> bool:
    """Whether ``values`` is a list of non-negative ints (bools excluded)."""
    return isinstance(values, list) and all(type(v) is int and v >= 0 for v in values)


def tensor_from_bytes(
    name: str, chunk: memoryview, d: dtype, shape: tuple[int, ...]
) -> Tensor:
    """A new tensor holding the little-endian elements in ``chunk``."""
    values = array_from_bytes(bytes(chunk), d, "little")
    if d is dtypes.bool_ and any(v > 1 for v in values):
        raise SafetensorError(
            f"tensor '{name}' has dtype BOOL but holds bytes other than 0 and 1"
        )
    return from_values(values, shape, d)
