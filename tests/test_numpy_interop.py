"""NumPy arrays where torch takes them: indices, from_numpy of any owned or
mapped array (memmap), against torch."""

from __future__ import annotations

from pathlib import Path

import pytest

import slowtorch_lib as st
from tests.parity import require_torch

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
