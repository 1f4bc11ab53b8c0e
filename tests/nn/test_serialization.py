"""save/load in torch's zip format: files torch reads and writes, and the
weights-only loader refusing hostile files without running anything."""

from __future__ import annotations

import io
import math
import os
import pickle
import pickletools
import random
import struct
import tracemalloc
import zipfile
from collections import OrderedDict, defaultdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as hs

import slowtorch_lib as st
from slowtorch_lib._weights_only_unpickler import MAX_NESTING, rebuild_tensor_v2
from slowtorch_lib.serialization import zip_archive
from tests.nn.test_safetensors import state_dict_model, tensors, to_torch_view
from tests.parity import require_torch

try:
    import torch
except ImportError:  # the tests of the engine alone still run
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs torch")

# What the attacks below try to run. A test passes only if it stays empty.
RAN: list[str] = []


def sentinel(*args: Any) -> None:
    RAN.append("sentinel ran")


@pytest.fixture(autouse=True)
def nothing_ran() -> Any:
    RAN.clear()
    yield
    assert RAN == [], "a hostile file ran code"


# ----------------------------------------------------------------------
# The same objects in both libraries, and a description to compare them
# ----------------------------------------------------------------------


def sample(lib: Any) -> dict[Any, Any]:
    """Every kind of object save() stores, built the same way in ``lib``."""
    matrix = lib.arange(12.0).reshape(3, 4)
    inf, nan = float("inf"), float("nan")
    return {
        "f32": lib.tensor([0.1, -0.0, inf, -inf, nan, 3e38]),
        "f64": lib.tensor([[1e-300, -1e300], [math.pi, 2.0**-1074]], dtype=lib.float64),
        "i64": lib.tensor([2**63 - 1, -(2**63), 0, -1]),
        "bool": lib.tensor([[True, False, True]]),
        "scalar": lib.tensor(2.5),
        "empty": lib.zeros(0, 3),
        "empty_past_the_end": lib.zeros(2, 0)[1:],  # offset 1 in an empty storage
        "matrix": matrix,
        "transposed": matrix.t(),
        "row": matrix[1],
        "column": matrix[:, 2],
        "strided": matrix[::2, 1::2],
        "expanded": lib.tensor([[1.0], [2.0]]).expand(2, 3),
        "requires_grad": lib.ones(2, requires_grad=True),
        "computed": lib.ones(2, requires_grad=True) * 2,  # saved as a leaf
        "param": lib.nn.Parameter(lib.tensor([1.0, 2.0])),
        "frozen": lib.nn.Parameter(lib.ones(1), requires_grad=False),
        "state_dict": state_dict_model(lib).state_dict(),
        "nested": [1, -7, 2**40, -(2**70), 2.5, "text", "ünï", None, True],
        "tuple": (matrix, [matrix[0], {"k": (), 3: []}], False),
        "dtype": lib.float64,
        "size": matrix.shape,
        7: "an int key",
    }


def describe(obj: Any, storages: dict[Any, int]) -> Any:
    """What must survive a save and a load, in plain values: each tensor's
    class, dtype, geometry, requires_grad and storage bytes, and which
    storage it uses (numbered in order of appearance, so sharing shows)."""
    if hasattr(obj, "untyped_storage"):
        storage = obj.untyped_storage()
        if isinstance(storage, st._storage.Storage):
            key: Any = id(storage)
            raw = storage.data.tobytes()
        else:
            key, raw = storage._cdata, bytes(storage.tolist())  # its StorageImpl
        number = storages.setdefault(key, len(storages))
        geometry = (tuple(obj.shape), tuple(obj.stride()), obj.storage_offset())
        kind = (type(obj).__name__, str(obj.dtype), obj.requires_grad)
        return ("tensor", kind, geometry, number, raw)
    if isinstance(obj, dict):
        items = [(describe(k, storages), describe(v, storages)) for k, v in obj.items()]
        return (type(obj).__name__, items)
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [describe(item, storages) for item in obj])
    return (type(obj).__name__, repr(obj))


def assert_same_objects(ours: Any, theirs: Any) -> None:
    assert describe(ours, {}) == describe(theirs, {})


def saved(obj: Any, name: str = "model.pt") -> bytes:
    buffer = io.BytesIO()
    st.save(obj, buffer)
    return buffer.getvalue()


# ----------------------------------------------------------------------
# Files torch reads, and files torch wrote
# ----------------------------------------------------------------------


@needs_torch
def test_engine_files_load_in_torch_with_weights_only(tmp_path: Path) -> None:
    ours = sample(st)
    st.save(ours, tmp_path / "ours.pt")
    theirs = torch.load(tmp_path / "ours.pt")  # weights_only=True by default
    assert_same_objects(ours, theirs)
    assert_same_objects(sample(st), sample(torch))  # the sample itself agrees


@needs_torch
def test_torch_files_load_in_the_engine(tmp_path: Path) -> None:
    theirs = sample(torch)
    torch.save(theirs, tmp_path / "theirs.pt")
    ours = st.load(tmp_path / "theirs.pt")
    assert_same_objects(ours, theirs)
    assert isinstance(ours["param"], st.nn.Parameter)
    assert isinstance(ours["state_dict"], OrderedDict)


def test_engine_files_load_in_the_engine() -> None:
    ours = sample(st)
    assert_same_objects(st.load(io.BytesIO(saved(ours))), ours)


@needs_torch
def test_torch_state_dict_loads_into_an_engine_model(tmp_path: Path) -> None:
    theirs = state_dict_model(torch)
    with torch.no_grad():
        for p in theirs.parameters():
            p.mul_(-3.0)
    torch.save(theirs.state_dict(), tmp_path / "model.pt")
    ours = state_dict_model(st)
    result = ours.load_state_dict(st.load(tmp_path / "model.pt"))
    assert repr(result) == "<All keys matched successfully>"
    assert_same_objects(ours.state_dict(), theirs.state_dict())


def test_views_come_back_sharing_their_storage() -> None:
    base = st.arange(6.0)
    loaded = st.load(io.BytesIO(saved({"base": base, "tail": base[3:]})))
    assert loaded["tail"].untyped_storage() is loaded["base"].untyped_storage()
    with st.no_grad():
        loaded["base"][4] = 99.0
    assert loaded["tail"].tolist() == [3.0, 99.0, 5.0]


@needs_torch
def test_an_object_saved_twice_comes_back_as_one(tmp_path: Path) -> None:
    tensor, inner = st.ones(2), [1, 2]
    st.save([tensor, tensor, inner, inner], tmp_path / "same.pt")
    for loaded in (st.load(tmp_path / "same.pt"), torch.load(tmp_path / "same.pt")):
        assert loaded[0] is loaded[1] and loaded[2] is loaded[3]


@hs.composite
def views(draw: Any) -> st.Tensor:
    """A tensor, or a view of it: transposed, narrowed or strided."""
    tensor = draw(tensors())
    if tensor.dim() >= 2 and draw(hs.booleans()):
        tensor = tensor.transpose(0, tensor.dim() - 1)
    if tensor.dim() >= 1 and tensor.shape[0] > 1 and draw(hs.booleans()):
        tensor = tensor[draw(hs.integers(0, 1)) :: draw(hs.integers(1, 2))]
    return tensor


leaves = hs.one_of(views(), hs.integers(-(2**70), 2**70), hs.text(max_size=5))
nests = hs.recursive(
    leaves,
    lambda inner: hs.one_of(
        hs.lists(inner, max_size=3),
        hs.dictionaries(hs.text(max_size=4), inner, max_size=3),
    ),
    max_leaves=6,
)


@needs_torch
@given(nests)
def test_any_nest_of_views_round_trips_through_torch_both_ways(obj: Any) -> None:
    theirs = torch.load(io.BytesIO(saved(obj)))
    assert_same_objects(obj, theirs)
    storages: dict[int, Any] = {}
    buffer = io.BytesIO()
    torch.save(to_torch(obj, storages), buffer)
    buffer.seek(0)
    assert_same_objects(st.load(buffer), obj)


def to_torch(obj: Any, storages: dict[int, Any]) -> Any:
    """The same nest in torch, views sharing storage as in ``obj``."""
    if isinstance(obj, list):
        return [to_torch(item, storages) for item in obj]
    if isinstance(obj, dict):
        return {key: to_torch(value, storages) for key, value in obj.items()}
    return to_torch_view(obj, storages)


# ----------------------------------------------------------------------
# The archive, record by record, as torch writes it
# ----------------------------------------------------------------------


def records(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def data_offsets(data: bytes) -> list[int]:
    """Where each record's bytes start, from its local header."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
    starts = []
    for info in infos:
        name_length, extra_length = struct.unpack_from(
            "<HH", data, info.header_offset + 26
        )
        starts.append(info.header_offset + 30 + name_length + extra_length)
    return starts


@needs_torch
@pytest.mark.parametrize("target", ["path", "buffer"])
def test_the_records_are_torchs(target: str, tmp_path: Path) -> None:
    ours, theirs = sample(st), sample(torch)
    if target == "path":
        st.save(ours, tmp_path / "ours.pt")
        torch.save(theirs, tmp_path / "ours.pth")  # same folder name: "ours"
        mine = (tmp_path / "ours.pt").read_bytes()
        other = (tmp_path / "ours.pth").read_bytes()
    else:
        mine = saved(ours)
        buffer = io.BytesIO()
        torch.save(theirs, buffer)
        other = buffer.getvalue()
    folder = "ours" if target == "path" else "archive"
    mine_records, their_records = records(mine), records(other)
    assert list(mine_records) == list(their_records)
    assert all(name.startswith(folder + "/") for name in mine_records)
    for name in ("version", "byteorder", ".format_version", ".storage_alignment"):
        assert mine_records[f"{folder}/{name}"] == their_records[f"{folder}/{name}"]
    serial_id = mine_records[f"{folder}/.data/serialization_id"]
    assert len(serial_id) == 40 and serial_id.isdigit()
    with zipfile.ZipFile(io.BytesIO(mine)) as archive:
        assert {i.compress_type for i in archive.infolist()} == {zipfile.ZIP_STORED}
    assert all(start % 64 == 0 for start in data_offsets(mine))


def globals_in(pickled: bytes) -> set[str]:
    return {
        str(arg) for op, arg, _ in pickletools.genops(pickled) if op.name == "GLOBAL"
    }


@needs_torch
def test_the_pickle_names_what_torchs_names() -> None:
    buffer = io.BytesIO()
    torch.save(sample(torch), buffer)
    mine = records(saved(sample(st)))["archive/data.pkl"]
    theirs = records(buffer.getvalue())["archive/data.pkl"]
    assert mine[:2] == theirs[:2] == b"\x80\x02"  # protocol 2
    assert globals_in(mine) == globals_in(theirs)


@needs_torch
def test_torch_memory_maps_engine_files(tmp_path: Path) -> None:
    ours = sample(st)
    st.save(ours, tmp_path / "mapped.pt")
    assert_same_objects(ours, torch.load(tmp_path / "mapped.pt", mmap=True))


def test_saving_twice_writes_the_same_bytes() -> None:
    assert saved(sample(st)) == saved(sample(st))


# ----------------------------------------------------------------------
# What save() refuses (torch.load(weights_only=True) would refuse it)
# ----------------------------------------------------------------------


def deep_list(depth: int) -> list[Any]:
    result: list[Any] = []
    for _ in range(depth - 1):
        result = [result]
    return result


def self_containing_list() -> list[Any]:
    loop: list[Any] = []
    loop.append(loop)
    return loop


@pytest.mark.parametrize(
    "obj",
    [
        {"nested": deep_list(MAX_NESTING + 1)},
        self_containing_list(),
        [lambda: 1],
    ],
    ids=["too deep", "cycle", "lambda"],
)
def test_save_refuses_what_no_loader_could_read(obj: Any, tmp_path: Path) -> None:
    with pytest.raises(pickle.PicklingError):
        st.save(obj, tmp_path / "bad.pt")
    assert not (tmp_path / "bad.pt").exists()


def local_function() -> Any:
    def inner() -> None:
        pass

    return inner


def test_save_refuses_a_local_function_as_pickle_does(tmp_path: Path) -> None:
    torch = require_torch()
    for lib in (st, torch):
        with pytest.raises(AttributeError, match="Can't pickle local object"):
            lib.save(local_function(), tmp_path / "bad.pt")


OBJECTS = {
    "function": lambda lib: sentinel,
    "set": lambda lib: {1, 2.5, "three"},
    "bytes": lambda lib: [b"\x00\xffbytes"],
    "no bytes": lambda lib: [b""],
    "object": lambda lib: [object()],
    "defaultdict": lambda lib: defaultdict(list, {"a": [1]}),
    "class": lambda lib: lib.nn.Linear,
}


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_any_object_saves_and_loads_only_without_weights_only(name: str) -> None:
    """As in PyTorch: what pickle can store is saved; ``weights_only=True``
    reads only sets and bytes of them, the rest needs ``weights_only=False``."""
    torch = require_torch()
    refused = {}
    for lib in (st, torch):
        buffer = io.BytesIO()
        lib.save(OBJECTS[name](lib), buffer)
        buffer.seek(0)
        loaded = lib.load(buffer, weights_only=False)
        original = OBJECTS[name](lib)
        if name == "object":
            assert type(loaded[0]) is object
        elif name == "class":
            assert loaded is original
        else:
            assert loaded == original
        buffer.seek(0)
        try:
            lib.load(buffer, weights_only=True)
            refused[lib] = False
        except pickle.UnpicklingError:
            refused[lib] = True
    assert refused[st] == refused[torch]


def test_a_whole_module_saves_and_loads() -> None:
    """``torch.save(model)``: the module, its submodules and parameters come
    back with ``weights_only=False``; the default refuses it, as PyTorch's."""
    torch = require_torch()
    st.manual_seed(0)
    model = st.nn.Sequential(st.nn.Linear(2, 3), st.nn.Tanh(), st.nn.Linear(3, 1))
    buffer = io.BytesIO()
    st.save(model, buffer)
    buffer.seek(0)
    loaded = st.load(buffer, weights_only=False)
    assert type(loaded) is st.nn.Sequential
    x = st.tensor([[0.5, -1.0], [2.0, 0.25]])
    assert loaded(x).tolist() == model(x).tolist()
    names = [name for name, _ in loaded.named_parameters()]
    assert names == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert all(type(p) is st.nn.Parameter for p in loaded.parameters())
    for lib, saved in ((st, buffer), (torch, io.BytesIO())):
        if lib is torch:
            torch.save(torch.nn.Linear(2, 1), saved)
        saved.seek(0)
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
            lib.load(saved)


def test_a_module_torch_saved_loads_whole() -> None:
    torch = require_torch()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
    buffer = io.BytesIO()
    torch.save(model, buffer)
    buffer.seek(0)
    loaded = st.load(buffer, weights_only=False)
    x = [[0.5, -1.0], [2.0, 0.25]]
    assert loaded(st.tensor(x)).tolist() == model(torch.tensor(x)).tolist()


def test_save_nests_up_to_the_limit() -> None:
    deep = deep_list(MAX_NESTING)
    assert st.load(io.BytesIO(saved(deep))) == deep


@pytest.mark.parametrize(
    "options",
    [
        {"pickle_protocol": 4},
        {"_use_new_zipfile_serialization": False},
        {"pickle_module": pickletools},
    ],
)
def test_save_refuses_other_options(options: dict[str, Any]) -> None:
    with pytest.raises(NotImplementedError):
        st.save(st.ones(1), io.BytesIO(), **options)


# ----------------------------------------------------------------------
# load()'s options
# ----------------------------------------------------------------------


def test_weights_only_false_runs_the_full_unpickler() -> None:
    data = saved({"w": st.ones(1)})
    assert st.load(io.BytesIO(data), weights_only=False)["w"].tolist() == [1.0]
    assert st.load(io.BytesIO(data), weights_only=None)["w"].tolist() == [1.0]


@needs_torch
def test_weights_only_false_reads_what_torch_saves_beyond_weights() -> None:
    numpy = pytest.importorskip("numpy")
    buffer = io.BytesIO()
    checkpoint = {
        "array": numpy.arange(3.0),
        "weights": torch.tensor([[1.0, 2.0]]),
        "epoch": 3,
        "dtype": torch.float64,
        "model": torch.nn.Linear(2, 1),
    }
    torch.save(checkpoint, buffer)
    with pytest.raises(pickle.UnpicklingError, match="numpy"):
        st.load(io.BytesIO(buffer.getvalue()))
    with pytest.raises(pickle.UnpicklingError, match="numpy"):
        torch.load(io.BytesIO(buffer.getvalue()))
    loaded = st.load(io.BytesIO(buffer.getvalue()), weights_only=False)
    assert loaded["array"].tolist() == [0.0, 1.0, 2.0]
    assert isinstance(loaded["weights"], st.Tensor)
    assert loaded["weights"].tolist() == [[1.0, 2.0]]
    assert loaded["dtype"] is st.float64 and loaded["epoch"] == 3
    assert type(loaded["model"]) is st.nn.Linear
    # and torch reads the engine's file with its full unpickler too
    ours = saved({"w": st.ones(2)})
    assert torch.load(io.BytesIO(ours), weights_only=False)["w"].tolist() == [1, 1]


@needs_torch
def test_a_pickle_module_is_refused_as_torch_refuses_it() -> None:
    data = saved({"w": st.ones(1)})
    with pytest.raises(RuntimeError) as theirs:
        torch.load(io.BytesIO(data), pickle_module=pickle, weights_only=True)
    with pytest.raises(RuntimeError) as ours:
        st.load(io.BytesIO(data), pickle_module=pickle, weights_only=True)
    assert str(ours.value) == str(theirs.value)
    # Without weights_only, a pickle module means a full unpickler in torch.
    assert st.load(io.BytesIO(data), pickle_module=pickle)["w"].tolist() == [1.0]


def test_other_options() -> None:
    data = saved({"w": st.ones(1)})
    for options in ({"map_location": "cpu"}, {"map_location": {"cuda:0": "cpu"}}):
        assert st.load(io.BytesIO(data), **options)["w"].tolist() == [1.0]
    assert st.load(io.BytesIO(data), mmap=True, encoding="latin1")["w"].tolist() == [
        1.0
    ]
    with pytest.raises(AssertionError, match="CPU only"):
        st.load(io.BytesIO(data), map_location="cuda")
    with pytest.raises(NotImplementedError):
        st.load(io.BytesIO(data), map_location=lambda storage, location: storage)
    with pytest.raises(TypeError, match="unexpected keyword"):
        st.load(io.BytesIO(data), fix_imports=True)


def test_text_mode_and_missing_files(tmp_path: Path) -> None:
    st.save(st.ones(1), tmp_path / "t.pt")
    with (
        open(tmp_path / "t.pt", encoding="latin-1") as text,
        pytest.raises(TypeError, match="mode 'rb'"),
    ):
        st.load(text)
    with pytest.raises(FileNotFoundError):
        st.load(tmp_path / "nothing.pt")


@needs_torch
@pytest.mark.parametrize("name", ["complex64", "complex128"])
def test_complex_tensors_load(name: str) -> None:
    buffer = io.BytesIO()
    values = [1 + 2j, -0.5j]
    torch.save({"w": torch.tensor(values, dtype=getattr(torch, name))}, buffer)
    buffer.seek(0)
    loaded = st.load(buffer)["w"]
    assert loaded.dtype is getattr(st, name) and loaded.tolist() == values


# ----------------------------------------------------------------------
# Hostile files. Pickles are written by hand, instruction by instruction.
# ----------------------------------------------------------------------

P = pickle
HEAD = P.PROTO + b"\x02"


def text(value: str) -> bytes:
    encoded = value.encode()
    return P.BINUNICODE + struct.pack("<I", len(encoded)) + encoded


def number(value: int) -> bytes:
    if -(2**31) <= value < 2**31:
        return P.BININT + struct.pack("<i", value)
    encoded = pickle.encode_long(value)  # type: ignore[attr-defined]
    return P.LONG1 + bytes([len(encoded)]) + encoded


def tup(*parts: bytes) -> bytes:
    return P.MARK + b"".join(parts) + P.TUPLE


def glob(module: str, name: str) -> bytes:
    return P.GLOBAL + f"{module}\n{name}\n".encode()


def storage_id(
    key: str = "0", numel: int = 2, kind: str = "FloatStorage", where: str = "cpu"
) -> bytes:
    """The persistent id of a storage: ('storage', type, key, location, numel)."""
    return (
        tup(text("storage"), glob("torch", kind), text(key), text(where), number(numel))
        + P.BINPERSID
    )


def tensor_pickle(
    pid: bytes | None = None,
    offset: int = 0,
    size: tuple[int, ...] = (2,),
    stride: tuple[int, ...] = (1,),
    requires_grad: bool = False,
) -> bytes:
    """``_rebuild_tensor_v2(storage, offset, size, stride, requires_grad, {})``."""
    return (
        glob("torch._utils", "_rebuild_tensor_v2")
        + tup(
            pid if pid is not None else storage_id(),
            number(offset),
            tup(*map(number, size)),
            tup(*map(number, stride)),
            P.NEWTRUE if requires_grad else P.NEWFALSE,
            glob("collections", "OrderedDict") + P.EMPTY_TUPLE + P.REDUCE,
        )
        + P.REDUCE
    )


TWO_FLOATS = struct.pack("<2f", 1.5, -2.0)


def archive(
    pickled: bytes, storages: dict[str, bytes] | None = None, folder: str = "archive"
) -> bytes:
    """A torch-format archive holding this pickle and these storage records."""
    contents = {"data.pkl": pickled, "byteorder": b"little"}
    for key, data in (storages if storages is not None else {"0": TWO_FLOATS}).items():
        contents[f"data/{key}"] = data
    contents["version"] = b"3\n"
    return zip_archive(folder, contents)


def evil_reduce() -> bytes:
    """What pickle.dumps writes for an object whose __reduce__ runs a shell."""

    class Evil:
        def __reduce__(self) -> Any:
            return (os.system, ("echo owned > owned.txt",))

    return pickle.dumps(Evil(), protocol=2)


SENTINEL = glob("tests.nn.test_serialization", "sentinel")
CODE = "__import__('tests.nn.test_serialization').nn.test_serialization.sentinel()"

# Each attack: the pickle, and whether torch's own loader refuses it too.
PICKLE_ATTACKS: dict[str, tuple[bytes, bool]] = {
    "GLOBAL of a function, then REDUCE": (
        HEAD + SENTINEL + P.EMPTY_TUPLE + P.REDUCE + P.STOP,
        True,
    ),
    "os.system through __reduce__": (evil_reduce(), True),
    "builtins.eval": (
        HEAD + glob("builtins", "eval") + text(CODE) + P.TUPLE1 + P.REDUCE + P.STOP,
        True,
    ),
    "builtins.exec through STACK_GLOBAL": (
        HEAD
        + text("builtins")
        + text("exec")
        + P.STACK_GLOBAL
        + text(CODE)
        + P.TUPLE1
        + P.REDUCE
        + P.STOP,
        True,
    ),
    "INST": (
        HEAD + P.MARK + P.INST + b"tests.nn.test_serialization\nsentinel\n" + P.STOP,
        True,
    ),
    "OBJ of an allowed class": (
        HEAD + P.MARK + glob("collections", "OrderedDict") + P.OBJ + P.STOP,
        True,
    ),
    "NEWOBJ of an allowed class": (
        HEAD + glob("collections", "OrderedDict") + P.EMPTY_TUPLE + P.NEWOBJ + P.STOP,
        False,
    ),
    "REDUCE of a storage type": (
        HEAD + glob("torch", "FloatStorage") + P.EMPTY_TUPLE + P.REDUCE + P.STOP,
        False,
    ),
    "REDUCE of OrderedDict with arguments": (
        HEAD
        + glob("collections", "OrderedDict")
        + tup(P.EMPTY_LIST)
        + P.REDUCE
        + P.STOP,
        False,
    ),
    "BUILD on a rebuild function": (
        HEAD
        + glob("torch._utils", "_rebuild_tensor_v2")
        + tup(P.NONE, P.EMPTY_DICT + text("__defaults__") + tup(P.NONE) + P.SETITEM)
        + P.BUILD
        + P.STOP,
        True,
    ),
    "BUILD on a tensor": (
        HEAD
        + tensor_pickle()
        + P.EMPTY_DICT
        + text("_shape")
        + tup(number(9))
        + P.SETITEM
        + P.BUILD
        + P.STOP,
        False,
    ),
    "EXT1 (the copyreg registry)": (HEAD + P.EXT1 + b"\x01" + P.STOP, True),
    "a persistent id that is not a storage": (
        HEAD + tup(text("module"), text("os")) + P.BINPERSID + P.STOP,
        True,
    ),
    "a text persistent id": (HEAD + P.PERSID + b"0\n" + P.STOP, True),
    "a memo entry never stored": (HEAD + P.BINGET + b"\x05" + P.STOP, True),
    "an empty stack": (HEAD + P.REDUCE + P.STOP, True),
    "no STOP": (HEAD + P.NONE, True),
    "a string claiming 4 GB": (HEAD + P.BINUNICODE + b"\xff\xff\xff\xff" + b"x", True),
    "bytes claiming 2**62 (BINBYTES8)": (
        P.PROTO + b"\x04" + P.BINBYTES8 + struct.pack("<Q", 2**62) + b"x" + P.STOP,
        True,
    ),
    "lists nested 100,000 deep": (
        HEAD + P.EMPTY_LIST * 100_000 + P.APPEND * 99_999 + P.STOP,
        False,
    ),
    "tuples nested 100,000 deep (hashing them would crash)": (
        HEAD + P.NONE + P.TUPLE1 * 100_000 + P.STOP,
        False,
    ),
    "100,000 open MARKs": (HEAD + P.MARK * 100_000 + P.STOP, False),
    "BUILD hiding an OrderedDict's method": (
        HEAD
        + glob("collections", "OrderedDict")
        + P.EMPTY_TUPLE
        + P.REDUCE
        + P.EMPTY_DICT
        + text("items")
        + glob("collections", "OrderedDict")
        + P.SETITEM
        + P.BUILD
        + P.STOP,
        False,
    ),
    "a list inside itself": (
        HEAD
        + P.EMPTY_LIST
        + P.BINPUT
        + b"\x00"
        + P.BINGET
        + b"\x00"
        + P.APPEND
        + P.STOP,
        False,
    ),
    "a tensor larger than its storage": (
        HEAD + tensor_pickle(size=(3,)) + P.STOP,
        True,
    ),
    "strides past the end of the storage": (
        HEAD + tensor_pickle(size=(2, 2), stride=(1, 1), offset=1) + P.STOP,
        True,
    ),
    "a torch.Size of a list": (
        HEAD + glob("torch", "Size") + tup(P.EMPTY_LIST) + P.REDUCE + P.STOP,
        False,
    ),
    "a negative size": (HEAD + tensor_pickle(size=(-2,)) + P.STOP, True),
    "requires_grad on int64": (
        HEAD
        + tensor_pickle(
            storage_id(numel=1, kind="LongStorage"), size=(1,), requires_grad=True
        )
        + P.STOP,
        True,
    ),
    "a storage with two dtypes": (
        HEAD
        + tup(
            tensor_pickle(),
            tensor_pickle(storage_id(kind="LongStorage", numel=1), size=(1,)),
        )
        + P.STOP,
        False,
    ),
}


@pytest.mark.parametrize("name", list(PICKLE_ATTACKS))
def test_hostile_pickles_are_refused_before_anything_runs(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    pickled, _ = PICKLE_ATTACKS[name]
    defaults = rebuild_tensor_v2.__defaults__
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        st.load(io.BytesIO(archive(pickled)))
    assert not (tmp_path / "owned.txt").exists()
    assert rebuild_tensor_v2.__defaults__ == defaults


@pytest.mark.parametrize(
    "name",
    [
        "GLOBAL of a function, then REDUCE",
        "builtins.eval",
        "builtins.exec through STACK_GLOBAL",
        "INST",
    ],
)
def test_the_attacks_run_code_under_a_plain_unpickler(name: str) -> None:
    """The sentinel notices when they run: pickle.loads runs every one."""
    pickle.loads(PICKLE_ATTACKS[name][0])
    assert RAN == ["sentinel ran"]
    RAN.clear()


@needs_torch
@pytest.mark.filterwarnings("ignore:Detected pickle protocol 4")
@pytest.mark.parametrize(
    "name", [name for name, (_, refused) in PICKLE_ATTACKS.items() if refused]
)
def test_torch_refuses_them_too(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(Exception):  # noqa: B017  (some are torch's RuntimeError)
        torch.load(io.BytesIO(archive(PICKLE_ATTACKS[name][0])))
    assert not (tmp_path / "owned.txt").exists()


def test_a_valid_hand_written_pickle_loads() -> None:
    """The attacks above are refused for what they do, not for their form."""
    loaded = st.load(io.BytesIO(archive(HEAD + tensor_pickle() + P.STOP)))
    assert loaded.tolist() == [1.5, -2.0]


def test_metadata_and_python_2_strings_load() -> None:
    metadata = P.EMPTY_DICT + text("_metadata") + P.EMPTY_DICT + P.SETITEM
    pickled = (
        HEAD
        + glob("collections", "OrderedDict")
        + P.EMPTY_TUPLE
        + P.REDUCE
        + P.SHORT_BINSTRING
        + b"\x04caf\xe9"
        + tensor_pickle()
        + P.SETITEM
        + metadata
        + P.BUILD
        + P.STOP
    )
    loaded = st.load(io.BytesIO(archive(pickled)), encoding="latin1")
    assert list(loaded) == ["café"] and loaded._metadata == {}
    with pytest.raises(pickle.UnpicklingError, match="damaged"):
        st.load(io.BytesIO(archive(pickled)))  # not ASCII


def test_a_cuda_storage_needs_map_location() -> None:
    data = archive(HEAD + tensor_pickle(storage_id(where="cuda:0")) + P.STOP)
    with pytest.raises(RuntimeError, match="map_location"):
        st.load(io.BytesIO(data))
    assert st.load(io.BytesIO(data), map_location="cpu").tolist() == [1.5, -2.0]


def peak_memory(action: Any) -> int:
    tracemalloc.start()
    try:
        action()
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


def refused(data: bytes) -> type[BaseException]:
    """The exception load() raises for ``data`` (it must raise one)."""
    with pytest.raises((RuntimeError, pickle.UnpicklingError)) as error:
        st.load(io.BytesIO(data))
    return error.type


ARCHIVE_ATTACKS = {
    "empty input": b"",
    "not a zip": b"hello, this is not a checkpoint",
    "a bare pickle": pickle.dumps({"w": 1.0}, protocol=2),
    "a safetensors file": b"\x08\x00\x00\x00\x00\x00\x00\x00{}      ",
    "an empty zip": b"PK\x05\x06" + b"\x00" * 18,
    "a truncated zip": saved({"w": st.ones(2)})[:-30],
    "no data.pkl": zip_archive("archive", {"version": b"3\n"}),
    "a storage record missing": archive(HEAD + tensor_pickle() + P.STOP, {}),
    "a storage record shorter than its id claims": archive(
        HEAD + tensor_pickle() + P.STOP, {"0": TWO_FLOATS[:4]}
    ),
    "a storage record longer than its id claims": archive(
        HEAD + tensor_pickle() + P.STOP, {"0": TWO_FLOATS * 2}
    ),
    "a bool storage holding 2": archive(
        HEAD + tensor_pickle(storage_id(kind="BoolStorage")) + P.STOP,
        {"0": b"\x01\x02"},
    ),
    "a byteorder that is neither": zip_archive(
        "archive", {"data.pkl": HEAD + P.NONE + P.STOP, "byteorder": b"middle"}
    ),
}


def two_folders() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive_file:
        archive_file.writestr("a/data.pkl", HEAD + P.NONE + P.STOP)
        archive_file.writestr("b/data.pkl", HEAD + P.NONE + P.STOP)
    return buffer.getvalue()


def one_record_twice() -> bytes:
    buffer = io.BytesIO()
    with (
        pytest.warns(UserWarning, match="Duplicate name"),
        zipfile.ZipFile(buffer, "w") as archive_file,
    ):
        archive_file.writestr("a/data.pkl", HEAD + P.NONE + P.STOP)
        archive_file.writestr("a/data.pkl", HEAD + SENTINEL + P.STOP)
    return buffer.getvalue()


@pytest.mark.parametrize("name", list(ARCHIVE_ATTACKS))
def test_broken_archives_are_refused(name: str) -> None:
    refused(ARCHIVE_ATTACKS[name])


def test_records_outside_one_folder_or_twice_are_refused() -> None:
    assert refused(two_folders()) is RuntimeError
    assert refused(one_record_twice()) is RuntimeError


def test_a_compressed_record_is_refused_before_it_expands() -> None:
    """A zip bomb: 50 MB of zeros deflate to 50 kB."""
    zeros = bytes(50_000_000)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive_file:
        archive_file.writestr("archive/data.pkl", HEAD + tensor_pickle() + P.STOP)
        archive_file.writestr("archive/data/0", zeros)
    data = buffer.getvalue()
    del zeros
    assert len(data) < 200_000
    peak = peak_memory(lambda: pytest.raises(RuntimeError, st.load, io.BytesIO(data)))
    assert peak < 2_000_000


def with_claimed_size(data: bytes, record: str, size: int) -> bytes:
    """``data`` with the sizes of ``record`` in its headers replaced by ``size``."""
    patched = bytearray(data)
    name = record.encode()
    central = 0
    while True:
        central = data.index(b"PK\x01\x02", central)
        length = struct.unpack_from("<H", data, central + 28)[0]
        if data[central + 46 : central + 46 + length] == name:
            break
        central += 4
    struct.pack_into("<II", patched, central + 20, size, size)
    local = struct.unpack_from("<I", data, central + 42)[0]
    struct.pack_into("<II", patched, local + 18, size, size)
    return bytes(patched)


def test_a_record_claiming_a_huge_size_is_refused_unread() -> None:
    data = with_claimed_size(saved({"w": st.ones(4)}), "archive/data/0", 2**31 - 1)
    peak = peak_memory(lambda: pytest.raises(RuntimeError, st.load, io.BytesIO(data)))
    assert peak < 1_000_000


def test_a_storage_claiming_a_terabyte_is_refused_unread() -> None:
    data = archive(HEAD + tensor_pickle(storage_id(numel=2**38), size=(2,)) + P.STOP)
    peak = peak_memory(lambda: pytest.raises(RuntimeError, st.load, io.BytesIO(data)))
    assert peak < 1_000_000


def test_a_string_claiming_4_gb_allocates_nothing() -> None:
    data = archive(PICKLE_ATTACKS["a string claiming 4 GB"][0])
    peak = peak_memory(
        lambda: pytest.raises(pickle.UnpicklingError, st.load, io.BytesIO(data))
    )
    assert peak < 1_000_000


def test_every_truncation_is_refused() -> None:
    data = saved({"w": st.arange(6.0).reshape(2, 3), "n": [1, "x"]})
    for cut in range(len(data)):
        refused(data[:cut])
    assert st.load(io.BytesIO(data))["n"] == [1, "x"]


def test_random_corruption_never_escapes_as_another_error() -> None:
    data = saved(sample(st))
    rng = random.Random(16)
    outcomes = {"refused": 0, "loaded": 0}
    for _ in range(300):
        corrupted = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            corrupted[rng.randrange(len(corrupted))] = rng.randrange(256)
        try:
            st.load(io.BytesIO(bytes(corrupted)))
            outcomes["loaded"] += 1  # a changed id or unused byte: harmless
        except (RuntimeError, pickle.UnpicklingError):
            outcomes["refused"] += 1
    assert outcomes["refused"] > 200
