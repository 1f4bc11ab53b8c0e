"""NumPy arrays where torch takes them: indices, from_numpy of any owned or
mapped array (memmap), against torch."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import (
    assert_same,
    both,
    require_torch,
    same_error,
)

numpy = pytest.importorskip("numpy")
torch = require_torch()


@pytest.mark.parametrize(
    "index",
    [
        lambda: numpy.array([0, 2]),
        lambda: numpy.array([True, False, True, False, True]),
        lambda: numpy.int64(1),
        lambda: numpy.array(2),
        lambda: (numpy.array([1, 3]), numpy.array([0, 1])),
        lambda: (slice(None), numpy.array([1])),
        lambda: numpy.array([[0], [4]], dtype=numpy.int32),
    ],
)
def test_numpy_indices_select_as_torch(index: object) -> None:
    ours = st.arange(10).reshape(5, 2)
    theirs = torch.arange(10).reshape(5, 2)
    assert ours[index()].tolist() == theirs[index()].tolist()  # type: ignore[operator]
    ours[index()] = -1  # type: ignore[operator]
    theirs[index()] = -1  # type: ignore[operator]
    assert ours.tolist() == theirs.tolist()


def test_from_numpy_takes_a_memmap(tmp_path: Path) -> None:
    mapped = numpy.memmap(tmp_path / "m.dat", dtype="float32", mode="w+", shape=(2, 3))
    mapped[:] = [[1, 2, 3], [4, 5, 6]]
    for part in (mapped, mapped[1:], mapped.T):
        ours, theirs = st.from_numpy(part), torch.from_numpy(part)
        assert ours.tolist() == theirs.tolist() and str(ours.dtype) == str(theirs.dtype)


# ---------------------------------------------------------------- NumPy


def test_numpy_round_trips() -> None:
    np = pytest.importorskip("numpy")
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    for make in (lambda L: L.from_numpy(array), lambda L: L.tensor(array)):
        assert_same(*both(make))
    for dtype in (np.float64, np.int64, np.bool_):
        assert_same(*both(lambda L, d=dtype: L.as_tensor(np.ones(3, dtype=d))))
    assert_same(*both(lambda L: L.tensor(np.float64(2.5))))
    ours, theirs = both(lambda L: L.tensor([[1, 2], [3, 4]]).t().numpy())
    assert ours.dtype == theirs.dtype and ours.tolist() == theirs.tolist()
    assert np.array(st.tensor([1.0, 2.0])).tolist() == [1.0, 2.0]
    assert np.asarray(st.tensor([True])).dtype == np.bool_


def test_numpy_shares_memory_and_from_numpy_copies() -> None:
    np = pytest.importorskip("numpy")
    tensor = st.arange(6.0).view(2, 3)
    array = tensor.t().numpy()
    array[0, 1] = 100.0
    assert tensor[1, 0].item() == 100.0
    tensor.add_(1)
    assert array[0, 1] == 101.0
    source = np.zeros(2, dtype=np.float32)
    copy = st.from_numpy(source)
    source[0] = 5
    assert copy.tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(2, requires_grad=True).numpy(),
        lambda L: L.from_numpy([1.0]),
    ],
)
def test_numpy_refuses_as_torch(call: Callable[[Any], Any]) -> None:
    pytest.importorskip("numpy")
    same_error(call)


def test_from_numpy_refuses_an_unknown_dtype() -> None:
    np = pytest.importorskip("numpy")
    with pytest.raises(TypeError, match="can't convert np.ndarray"):
        st.from_numpy(np.array([object()]))


def test_without_numpy_the_error_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(RuntimeError, match="Numpy is not available"):
        st.ones(2).numpy()
    assert st.ones(2).tolist() == [1.0, 1.0]
