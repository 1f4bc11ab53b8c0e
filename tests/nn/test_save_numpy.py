"""``torch.save`` of NumPy arrays: files that load in both libraries.

A NumPy array is pickled as NumPy pickles it (a call to its
``_reconstruct``), so the file loads with ``weights_only=False`` in both
libraries, and the default weights-only loader refuses it in both, with the
same error type and PyTorch's words. The engine writes it without importing
NumPy; only loading the array needs NumPy.
"""

from __future__ import annotations

import io
import pickle
import subprocess
import sys
from typing import Any

import pytest

import slowtorch_lib as st

np = pytest.importorskip("numpy")


def numpy_objects() -> dict[str, Any]:
    grid = np.arange(6, dtype=np.float32).reshape(2, 3)
    return {
        "grid": grid,
        "again": [grid, (np.int64(3), np.float32(2.5))],
        "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
        "bytes": np.array([0, 255], dtype=np.uint8),
        "flags": np.array([True, False]),
        "empty": np.zeros((0, 2), dtype=np.int16),
        "half": np.array([1.5, -2.0], dtype=np.float16),
        "complex": np.array([1 + 2j]),
        "scalar_array": np.array(7),
        "dtype": np.dtype("int32"),
        "strided": np.arange(10)[::3],
    }


def saved(lib: Any, obj: Any) -> bytes:
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    return buffer.getvalue()


def check_same(loaded: dict[str, Any], original: dict[str, Any]) -> None:
    for key, value in original.items():
        if isinstance(value, np.ndarray):
            got = loaded[key]
            assert type(got) is np.ndarray and got.dtype == value.dtype, key
            assert got.shape == value.shape and np.array_equal(got, value), key
    assert loaded["fortran"].flags.f_contiguous  # the layout comes back too
    assert loaded["dtype"] == original["dtype"]
    number, single = loaded["again"][1]
    assert (type(number), number) == (np.int64, 3)
    assert (type(single), single) == (np.float32, 2.5)
    assert loaded["again"][0] is loaded["grid"]  # one array, as it was saved


def test_a_file_saved_here_loads_in_torch() -> None:
    torch = pytest.importorskip("torch")
    original = {**numpy_objects(), "weights": st.tensor([[1.0, 2.0]])}
    loaded = torch.load(io.BytesIO(saved(st, original)), weights_only=False)
    check_same(loaded, original)
    assert loaded["weights"].tolist() == [[1.0, 2.0]]


def test_a_file_saved_by_torch_loads_here() -> None:
    torch = pytest.importorskip("torch")
    original = {**numpy_objects(), "weights": torch.tensor([[1.0, 2.0]])}
    loaded = st.load(io.BytesIO(saved(torch, original)), weights_only=False)
    check_same(loaded, original)
    assert isinstance(loaded["weights"], st.Tensor)


def test_a_file_saved_here_loads_here() -> None:
    original = {**numpy_objects(), "weights": st.ones(2)}
    loaded = st.load(io.BytesIO(saved(st, original)), weights_only=False)
    check_same(loaded, original)
    assert loaded["weights"].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("writer", ["engine", "torch"])
def test_the_weights_only_loader_refuses_numpy_as_torch_does(writer: str) -> None:
    torch = pytest.importorskip("torch")
    data = saved(st if writer == "engine" else torch, [np.arange(3)])
    errors = []
    for lib in (st, torch):
        with pytest.raises(pickle.UnpicklingError) as caught:
            lib.load(io.BytesIO(data))
        errors.append(str(caught.value))
    ours, theirs = errors
    refusal = (
        "WeightsUnpickler error: Unsupported global: GLOBAL "
        f"{np.arange(3).__reduce__()[0].__module__}._reconstruct was not an "
        "allowed global by default"
    )
    for message in errors:
        assert message.startswith("Weights only load failed. This file can still")
        assert refusal in message and "weights_only` set to `False`" in message
        assert message.endswith("generated/torch.load.html.")


def test_saving_an_array_does_not_import_numpy_into_the_engine() -> None:
    code = (
        "import sys, io, slowtorch_lib as st\n"
        "assert 'numpy' not in sys.modules\n"
        "st.save({'w': st.ones(2)}, io.BytesIO())\n"
        "assert 'numpy' not in sys.modules\n"
        "print('ok')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "ok"
