"""slowtorch_lib.safetensors, the engine's safetensors.torch: round trips,
interop with the safetensors package and torch, bad files."""

from __future__ import annotations

import json
import math
import random
import struct
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as hs

import slowtorch_lib as st
from slowtorch_lib.safetensors import (
    SafetensorError,
    load,
    load_file,
    save,
    save_file,
    tensor_bytes,
)
from tests.parity import assert_same

try:
    import torch
except ImportError:  # the tests of the engine alone still run
    torch = None
try:
    import safetensors.torch as safetensors_torch
except ImportError:
    safetensors_torch = None

needs_torch = pytest.mark.skipif(
    torch is None or safetensors_torch is None,
    reason="needs torch and the safetensors package (requirements-test.txt)",
)


def bits(tensor: st.Tensor) -> bytes:
    """The exact bytes of the elements (so nan, -0.0 and inf compare exactly)."""
    return tensor_bytes(tensor)


def to_torch(tensor: st.Tensor) -> Any:
    result = torch.tensor(tensor.tolist(), dtype=getattr(torch, tensor.dtype.name))
    return result.reshape(tuple(tensor.shape))


def samples() -> dict[str, st.Tensor]:
    """Tensors of every dtype and awkward shape, and awkward values."""
    matrix = st.tensor([[1.5, -2.0, 3.25], [4.0, 5.0, -6.5]])
    return {
        "f32": st.tensor([0.1, -0.0, float("inf"), float("-inf"), float("nan"), 3e38]),
        "f64": st.tensor([[1e-300, -1e300], [math.pi, 2.0**-1074]], dtype=st.float64),
        "i64": st.tensor([2**63 - 1, -(2**63), 0, -1]),
        "bool": st.tensor([[True, False, True]]),
        "scalar": st.tensor(2.5),
        "empty": st.zeros(0, 3),
        "empty_i64": st.zeros(2, 0, dtype=st.int64),
        "transposed": matrix.t(),
        "strided": st.arange(10.0)[::3],
        "expanded": st.tensor([[1.0], [2.0]]).expand(2, 3),
        "narrowed": matrix[1, 1:],
        "param": st.nn.Parameter(st.tensor([1.0, 2.0])),
    }


def contiguous_samples() -> dict[str, st.Tensor]:
    """The samples made contiguous, as safetensors only saves those."""
    return {name: tensor.contiguous() for name, tensor in samples().items()}


@pytest.mark.parametrize("name", list(samples()))
def test_one_tensor_round_trip(name: str, tmp_path: Path) -> None:
    tensor = samples()[name].contiguous()
    path = tmp_path / "t.safetensors"
    save_file({"t": tensor}, path)
    loaded = load_file(path)["t"]
    assert type(loaded) is st.Tensor
    assert loaded.shape == tensor.shape and loaded.dtype is tensor.dtype
    assert bits(loaded) == bits(tensor)
    assert loaded.is_contiguous() and not loaded.requires_grad


def test_dict_round_trip_keeps_every_tensor(tmp_path: Path) -> None:
    tensors = contiguous_samples()
    path = str(tmp_path / "d.safetensors")
    save_file(tensors, path, metadata={"format": "pt"})
    loaded = load_file(path)
    assert type(loaded) is dict
    assert sorted(loaded) == sorted(tensors)
    for key, tensor in tensors.items():
        assert loaded[key].shape == tensor.shape
        assert bits(loaded[key]) == bits(tensor)


def test_disjoint_views_of_one_storage_are_saved_as_separate_copies() -> None:
    base = st.tensor([1.0, 2.0, 3.0, 4.0])
    data = save({"low": base[:2], "high": base[2:]})
    loaded = load(data)
    with st.no_grad():
        loaded["low"][1] = 99.0
    assert loaded["high"].tolist() == [3.0, 4.0]
    assert len(data) - 8 - int.from_bytes(data[:8], "little") == 4 * 4


def test_bytes_round_trip() -> None:
    data = save({"w": st.ones(2, 2)})
    assert isinstance(data, bytes)
    loaded = load(data)
    assert isinstance(loaded, dict) and loaded["w"].tolist() == [[1.0, 1.0]] * 2


def state_dict_model(lib: Any) -> Any:
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = nn.Parameter(lib.tensor([[0.5, -1.0], [2.0, 0.25]]))
            self.bias = nn.Parameter(lib.tensor([0.1, 0.2]))
            self.register_buffer("steps", lib.tensor(7))
            self.register_buffer("mask", lib.tensor([True, False]))

    model = nn.Module()
    model.first = Block()
    model.rest = nn.ModuleList([Block(), Block()])
    return model


def test_state_dict_round_trip_through_a_file(tmp_path: Path) -> None:
    source = state_dict_model(st)
    with st.no_grad():
        for p in source.parameters():
            p.mul_(-3.0)
    save_file(source.state_dict(), tmp_path / "model.safetensors")
    target = state_dict_model(st)
    result = target.load_state_dict(load_file(tmp_path / "model.safetensors"))
    assert repr(result) == "<All keys matched successfully>"
    for key, value in source.state_dict().items():
        assert bits(target.state_dict()[key]) == bits(value)


# ----------------------------------------------------------------------
# Interoperability with the safetensors package and real torch
# ----------------------------------------------------------------------


@needs_torch
def test_engine_file_loads_in_torch(tmp_path: Path) -> None:
    tensors = contiguous_samples()
    path = tmp_path / "ours.safetensors"
    save_file(tensors, path)
    theirs = safetensors_torch.load_file(str(path))
    assert sorted(theirs) == sorted(tensors)
    for key, tensor in tensors.items():
        assert_same(tensor, theirs[key], exact=True)
        assert bits(tensor) == theirs[key].contiguous().numpy().tobytes()


@needs_torch
def test_torch_state_dict_loads_into_the_engine(tmp_path: Path) -> None:
    theirs = state_dict_model(torch)
    with torch.no_grad():
        for p in theirs.parameters():
            p.add_(torch.randn(p.shape))
    path = tmp_path / "torch.safetensors"
    safetensors_torch.save_file(
        theirs.state_dict(), str(path), metadata={"format": "pt"}
    )
    loaded = load_file(path)
    assert type(loaded) is dict
    ours = state_dict_model(st)
    ours.load_state_dict(loaded)
    for key, value in theirs.state_dict().items():
        assert_same(ours.state_dict()[key], value, exact=True)


@needs_torch
def test_torch_tensors_of_every_dtype_load_exactly(tmp_path: Path) -> None:
    tensors = {
        "f32": torch.randn(3, 4),
        "f64": torch.randn(5, dtype=torch.float64),
        "i64": torch.randint(-(2**62), 2**62, (2, 3)),
        "bool": torch.rand(4, 2) > 0.5,
        "scalar": torch.tensor(-1.5),
        "empty": torch.zeros(0, 2),
    }
    path = tmp_path / "torch.safetensors"
    safetensors_torch.save_file(tensors, str(path))
    loaded = load_file(path)
    for key, value in tensors.items():
        assert_same(loaded[key], value, exact=True)
        assert bits(loaded[key]) == value.numpy().tobytes()


@needs_torch
def test_files_are_byte_identical_to_the_reference_writer(tmp_path: Path) -> None:
    tensors = {k: v for k, v in contiguous_samples().items() if k != "param"}
    tensors["z_last"] = st.ones(1, dtype=st.int64)
    tensors["a_first"] = st.zeros(2, dtype=st.bool)
    path = tmp_path / "reference.safetensors"
    safetensors_torch.save_file({k: to_torch(v) for k, v in tensors.items()}, str(path))
    assert save(tensors) == path.read_bytes()


def test_header_layout() -> None:
    data = save({"w": st.ones(3)}, {"format": "pt"})
    length = int.from_bytes(data[:8], "little")
    assert length % 8 == 0
    header = data[8 : 8 + length]
    assert header.startswith(b'{"__metadata__":{"format":"pt"},"w":')
    assert json.loads(header) == {
        "__metadata__": {"format": "pt"},
        "w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 12]},
    }
    assert data[8 + length :] == struct.pack("<3f", 1.0, 1.0, 1.0)


# ----------------------------------------------------------------------
# Saving bad objects
# ----------------------------------------------------------------------


def unsaveable() -> dict[str, tuple[Any, type]]:
    """What safetensors refuses to save, and the exception it raises."""
    matrix = st.arange(6.0).reshape(2, 3)
    return {
        "a list": ([st.ones(1)], ValueError),
        "a lone tensor": (st.ones(2), ValueError),
        "a number": (3.0, ValueError),
        "an int key": ({1: st.ones(1)}, TypeError),
        "a list value": ({"w": [1.0]}, ValueError),
        "a transposed tensor": ({"w": matrix.t()}, ValueError),
        "an expanded tensor": ({"w": st.ones(2, 1).expand(2, 3)}, ValueError),
        "a strided view": ({"w": st.arange(6.0)[::2]}, ValueError),
        "one tensor twice": ({"a": matrix, "b": matrix}, RuntimeError),
        "overlapping views": ({"a": matrix, "b": matrix[1]}, RuntimeError),
    }


@pytest.mark.parametrize("name", list(unsaveable()))
def test_save_refuses_what_safetensors_refuses(name: str, tmp_path: Path) -> None:
    obj, error = unsaveable()[name]
    path = tmp_path / "bad.safetensors"
    with pytest.raises(error):
        save_file(obj, path)
    assert not path.exists()


@needs_torch
@pytest.mark.parametrize("name", list(unsaveable()))
def test_safetensors_refuses_them_with_the_same_exception(name: str) -> None:
    obj, error = unsaveable()[name]
    storages: dict[int, Any] = {}
    if isinstance(obj, dict):
        obj = {k: to_torch_view(v, storages) for k, v in obj.items()}
    else:
        obj = to_torch_view(obj, storages)
    with pytest.raises(error):
        safetensors_torch.save(obj)


def to_torch_view(value: Any, storages: dict[int, Any]) -> Any:
    """The same view in torch (same storage, offset, shape and strides), its
    storage shared with the other views made with the same ``storages``."""
    if not isinstance(value, st.Tensor):
        return value
    storage = value.untyped_storage()
    if id(storage) not in storages:
        kind = getattr(torch, storage.dtype.name)
        raw = bytearray(storage.data.tobytes())  # the exact bits, nan included
        copy = torch.frombuffer(raw, dtype=kind) if raw else torch.empty(0, dtype=kind)
        storages[id(storage)] = copy
    return storages[id(storage)].as_strided(
        tuple(value.shape), value.stride(), value.storage_offset()
    )


def test_reserved_name_and_bad_metadata_are_refused() -> None:
    with pytest.raises(ValueError, match="reserved"):
        save({"__metadata__": st.ones(1)})
    with pytest.raises(TypeError, match="metadata"):
        save({"w": st.ones(1)}, metadata={"epoch": 3})  # type: ignore[dict-item]


# ----------------------------------------------------------------------
# Loading bad files: always SafetensorError (a RuntimeError), nothing else
# ----------------------------------------------------------------------


def build(
    header: Any,
    buffer: bytes = b"",
    raw_header: bytes | None = None,
    length: int | None = None,
) -> bytes:
    """A file with this header (a dict, or raw bytes) and this buffer."""
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    declared = len(text) if length is None else length
    return struct.pack("<Q", declared) + text + buffer


F32_ENTRY = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
EIGHT = struct.pack("<2f", 1.0, 2.0)

BAD_FILES = {
    "empty file": b"",
    "seven bytes": b"\x10\x00\x00\x00\x00\x00\x00",
    "huge header length": struct.pack("<Q", 2**63) + b"{}",
    "header longer than file": build({"w": F32_ENTRY}, EIGHT, length=10_000),
    "header over the limit": struct.pack("<Q", 200_000_000) + b"{" * 100,
    "not utf-8": build(None, raw_header=b"{\xff\xfe}"),
    "not json object": build(None, raw_header=b"[1, 2]  "),
    "zip file": b"PK\x03\x04" + b"\x00" * 60,
    "pickle": b"\x80\x04\x95" + b"\x00" * 60,
    "invalid json": build(None, raw_header=b'{"w": {"dtype": "F32",'),
    "trailing garbage": build(None, raw_header=b'{"w": 1} xyz'),
    "duplicate name": build(
        None,
        EIGHT + EIGHT,
        raw_header=(
            b'{"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},'
            b' "w": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}'
        ),
    ),
    "nan in header": build(None, raw_header=b'{"w": NaN}'),
    "metadata not strings": build({"__metadata__": {"a": 1}}),
    "metadata a list": build({"__metadata__": ["a"]}),
    "entry not an object": build({"w": [1, 2]}),
    "entry missing offsets": build({"w": {"dtype": "F32", "shape": [2]}}, EIGHT),
    "entry with extra field": build({"w": {**F32_ENTRY, "extra": 1}}, EIGHT),
    "unknown dtype": build({"w": {**F32_ENTRY, "dtype": "F33"}}, EIGHT),
    "lower-case dtype": build({"w": {**F32_ENTRY, "dtype": "f32"}}, EIGHT),
    "unsupported dtype": build(
        {"w": {**F32_ENTRY, "dtype": "U16", "data_offsets": [0, 4]}}, EIGHT[:4]
    ),
    "negative dimension": build({"w": {**F32_ENTRY, "shape": [-2]}}, EIGHT),
    "float dimension": build({"w": {**F32_ENTRY, "shape": [2.0]}}, EIGHT),
    "bool dimension": build({"w": {**F32_ENTRY, "shape": [True, True]}}, EIGHT),
    "shape not a list": build({"w": {**F32_ENTRY, "shape": 2}}, EIGHT),
    "offsets reversed": build({"w": {**F32_ENTRY, "data_offsets": [8, 0]}}, EIGHT),
    "three offsets": build({"w": {**F32_ENTRY, "data_offsets": [0, 4, 8]}}, EIGHT),
    "negative offset": build({"w": {**F32_ENTRY, "data_offsets": [-8, 0]}}, EIGHT),
    "offset past the end": build({"w": {**F32_ENTRY, "data_offsets": [0, 16]}}, EIGHT),
    "shape too big for bytes": build({"w": {**F32_ENTRY, "shape": [3]}}, EIGHT),
    "shape too small for bytes": build({"w": {**F32_ENTRY, "shape": [1]}}, EIGHT),
    "shape claims a terabyte": build(
        {"w": {**F32_ENTRY, "shape": [10**6, 10**6], "data_offsets": [0, 4 * 10**12]}},
        EIGHT,
    ),
    "overlapping tensors": build(
        {"a": F32_ENTRY, "b": {**F32_ENTRY, "data_offsets": [4, 12]}}, EIGHT + EIGHT
    ),
    "same bytes twice": build({"a": F32_ENTRY, "b": F32_ENTRY}, EIGHT),
    "gap between tensors": build(
        {"a": F32_ENTRY, "b": {**F32_ENTRY, "data_offsets": [12, 20]}}, EIGHT * 3
    ),
    "gap at the start": build(
        {"w": {**F32_ENTRY, "data_offsets": [4, 12]}}, EIGHT + EIGHT[:4]
    ),
    "bytes after the tensors": build({"w": F32_ENTRY}, EIGHT + b"\x00" * 4),
    "no tensors but bytes": build({}, EIGHT),
    "bool byte 2": build(
        {"w": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}}, b"\x01\x02"
    ),
}


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_bad_files_are_refused_clearly(name: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.safetensors"
    path.write_bytes(BAD_FILES[name])
    with pytest.raises(SafetensorError) as error:
        load_file(path)
    assert isinstance(error.value, RuntimeError)
    assert len(str(error.value)) > 20


# Lies that the reference reader refuses too (the rest it cannot see, or
# allows: other dtypes, extra fields, bool bytes, our own metadata).
REFERENCE_REFUSES = [
    "empty file",
    "seven bytes",
    "huge header length",
    "header longer than file",
    "header over the limit",
    "not utf-8",
    "invalid json",
    "offsets reversed",
    "offset past the end",
    "shape too big for bytes",
    "shape too small for bytes",
    "shape claims a terabyte",
    "overlapping tensors",
    "gap between tensors",
    "gap at the start",
    "bytes after the tensors",
    "unknown dtype",
]


@needs_torch
@pytest.mark.parametrize("name", REFERENCE_REFUSES)
def test_the_reference_reader_refuses_them_too(name: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.safetensors"
    path.write_bytes(BAD_FILES[name])
    with pytest.raises(Exception):  # noqa: B017  (safetensors' own error type)
        safetensors_torch.load_file(str(path))


def test_no_allocation_for_what_the_header_claims() -> None:
    data = BAD_FILES["shape claims a terabyte"]
    tracemalloc.start()
    try:
        with pytest.raises(SafetensorError, match="buffer"):
            load(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000


def test_every_truncation_of_a_valid_file_is_refused() -> None:
    data = save({"a": st.ones(2, 3), "b": st.tensor([1, 2]), "c": st.tensor(True)})
    for cut in range(len(data)):
        with pytest.raises(SafetensorError):
            load(data[:cut])
    load(data)  # the whole file is fine


def test_random_corruption_never_escapes_as_another_error() -> None:
    data = bytearray(save(contiguous_samples()))
    length = int.from_bytes(data[:8], "little")
    rng = random.Random(8)
    refused = 0
    for _ in range(400):
        corrupted = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            position = rng.randrange(0, 8 + length)
            corrupted[position] = rng.randrange(256)
        try:
            load(bytes(corrupted))
        except SafetensorError:
            refused += 1
    assert refused > 200


def test_text_is_refused() -> None:
    with pytest.raises(TypeError, match="bytes"):
        load("{}")  # type: ignore[arg-type]


def test_missing_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_file(tmp_path / "nothing.safetensors")


def test_load_file_runs_on_the_cpu_only(tmp_path: Path) -> None:
    path = tmp_path / "w.safetensors"
    save_file({"w": st.ones(1)}, path)
    assert load_file(path, device="cpu")["w"].tolist() == [1.0]
    with pytest.raises(AssertionError, match="CPU only"):
        load_file(path, device="cuda")


# ----------------------------------------------------------------------
# Property: any tensors, any names, round trip exactly (and through torch)
# ----------------------------------------------------------------------

shapes = hs.lists(hs.integers(0, 3), min_size=0, max_size=3)
names = hs.text(min_size=1, max_size=8).filter(lambda n: n != "__metadata__")


@hs.composite
def tensors(draw: Any) -> st.Tensor:
    shape = tuple(draw(shapes))
    count = math.prod(shape)
    kind = draw(hs.sampled_from(["float32", "float64", "int64", "bool"]))
    if kind == "bool":
        values: list[Any] = draw(
            hs.lists(hs.booleans(), min_size=count, max_size=count)
        )
    elif kind == "int64":
        values = draw(
            hs.lists(hs.integers(-(2**63), 2**63 - 1), min_size=count, max_size=count)
        )
    else:
        width = 32 if kind == "float32" else 64
        values = draw(hs.lists(hs.floats(width=width), min_size=count, max_size=count))
    flat = (
        st.tensor(values, dtype=getattr(st, kind))
        if values
        else st.zeros(0, dtype=getattr(st, kind))
    )
    return flat.reshape(shape)


@needs_torch
@given(hs.dictionaries(names, tensors(), max_size=4))
def test_any_state_dict_round_trips(state: dict[str, st.Tensor]) -> None:
    data = save(state)
    loaded = load(data)
    assert isinstance(loaded, dict) and sorted(loaded) == sorted(state)
    for key, tensor in state.items():
        assert loaded[key].dtype is tensor.dtype
        assert loaded[key].shape == tensor.shape
        assert bits(loaded[key]) == bits(tensor)
    theirs = safetensors_torch.load(data)
    for key, tensor in state.items():
        assert theirs[key].contiguous().numpy().tobytes() == bits(tensor)
    assert safetensors_torch.save({k: to_torch(v) for k, v in state.items()}) == data
