"""utils.data against torch.utils.data: batches, collate, samplers, splits."""

from __future__ import annotations

import collections
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    random_split,
)
from tests.parity import require_torch

Point = collections.namedtuple("Point", ["x", "y"])


def _describe(batch: Any) -> Any:
    """A batch as plain Python: tensors become (type, shape, dtype, values)."""
    if hasattr(batch, "tolist") and hasattr(batch, "dtype"):
        return ("tensor", tuple(batch.shape), str(batch.dtype), batch.tolist())
    if isinstance(batch, dict):
        return {key: _describe(value) for key, value in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return (type(batch).__name__, [_describe(v) for v in batch])
    if isinstance(batch, (list, tuple)):
        return (type(batch).__name__, [_describe(v) for v in batch])
    return batch


class Samples:
    """A map-style data set whose samples have every kind of structure."""

    def __init__(self, lib: Any, kind: str, count: int = 7) -> None:
        self.lib, self.kind, self.count = lib, kind, count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int) -> Any:
        lib = self.lib
        x = lib.tensor([[float(i), i * 0.5], [1.0, -float(i)]])
        if self.kind == "tensor":
            return x
        if self.kind == "tuple":
            return x, i
        if self.kind == "numbers":
            return [i, i * 0.25, i % 2 == 0]
        if self.kind == "dict":
            return {"image": x, "label": i, "name": f"n{i}", "weight": 0.5 * i}
        if self.kind == "nested":
            return {"pair": (x[0], [i, float(i)]), "point": Point(i, x[1])}
        raise AssertionError(self.kind)


def _batches(lib: Any, kind: str, **options: Any) -> list[Any]:
    data = lib.utils.data if lib is st else __import__("torch.utils.data").utils.data
    loader = data.DataLoader(Samples(lib, kind), **options)
    return [len(loader), [_describe(batch) for batch in loader]]


@pytest.mark.parametrize("kind", ["tensor", "tuple", "numbers", "dict", "nested"])
@pytest.mark.parametrize(
    "options",
    [
        {"batch_size": 3},
        {"batch_size": 3, "drop_last": True},
        {"batch_size": 7},
        {"batch_size": 10},
        {"batch_size": 1},
        {"batch_size": None},
    ],
    ids=str,
)
def test_batches_match_torch(kind: str, options: dict[str, Any]) -> None:
    torch = require_torch()
    assert _batches(st, kind, **options) == _batches(torch, kind, **options)


def test_collate_fn_and_batch_sampler_match_torch() -> None:
    torch = require_torch()

    def first_labels(batch: list[Any]) -> list[int]:
        return [label for _, label in batch]

    for options in [
        {"batch_size": 2, "collate_fn": first_labels},
        {"batch_sampler": [[0, 3], [6, 1, 2]]},
        {"sampler": [6, 5, 4, 0], "batch_size": 3},
    ]:
        assert _batches(st, "tuple", **options) == _batches(torch, "tuple", **options)


def test_tensor_dataset_matches_torch() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        x = lib.arange(20, dtype=lib.float32).reshape(10, 2)
        y = lib.arange(10)
        dataset = (TensorDataset if lib is st else torch.utils.data.TensorDataset)(x, y)
        loader = (DataLoader if lib is st else torch.utils.data.DataLoader)(
            dataset, batch_size=4
        )
        results.append(
            [
                len(dataset),
                _describe(dataset[3]),
                len(loader),
                [_describe(b) for b in loader],
            ]
        )
    assert results[0] == results[1]


def test_shuffle_is_a_permutation_reproducible_by_seed() -> None:
    x = st.arange(50)
    dataset = TensorDataset(x)

    def order(seed: int) -> list[list[int]]:
        generator = st.Generator().manual_seed(seed)
        loader = DataLoader(dataset, batch_size=8, shuffle=True, generator=generator)
        return [[v for (batch,) in loader for v in batch.tolist()] for _ in range(2)]

    first, second = order(3)
    assert sorted(first) == list(range(50)) and sorted(second) == list(range(50))
    assert first != list(range(50))
    assert first != second  # a new order for each pass
    assert order(3) == [first, second]  # the same seed, the same orders
    assert order(4)[0] != first
    # Without a generator, the global seed decides.
    st.manual_seed(0)
    a = [int(b[0][0]) for b in DataLoader(dataset, batch_size=1, shuffle=True)]
    st.manual_seed(0)
    b = [int(b[0][0]) for b in DataLoader(dataset, batch_size=1, shuffle=True)]
    assert a == b and sorted(a) == list(range(50))


def test_shuffled_batches_have_torch_shapes() -> None:
    torch = require_torch()
    shapes = []
    for lib in (st, torch):
        data = st.utils.data if lib is st else torch.utils.data
        dataset = data.TensorDataset(lib.zeros(23, 3), lib.zeros(23, dtype=lib.int64))
        generator = lib.Generator().manual_seed(1)
        loader = data.DataLoader(
            dataset, batch_size=5, shuffle=True, generator=generator
        )
        shapes.append(
            [(tuple(x.shape), tuple(y.shape), str(y.dtype)) for x, y in loader]
        )
    assert shapes[0] == shapes[1]


def test_samplers() -> None:
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    generator = st.Generator().manual_seed(5)
    drawn = list(RandomSampler(range(6), generator=generator))
    assert sorted(drawn) == list(range(6))
    many = list(RandomSampler(range(4), num_samples=10, generator=generator))
    assert len(many) == 10 and set(many) <= set(range(4))
    with_replacement = RandomSampler(range(3), replacement=True, num_samples=20)
    assert len(list(with_replacement)) == 20
    batches = BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)
    assert list(batches) == [[0, 1, 2], [3, 4, 5], [6]] and len(batches) == 3
    assert len(BatchSampler(range(7), 3, drop_last=True)) == 2


def test_random_split() -> None:
    dataset = TensorDataset(st.arange(10))
    parts = random_split(dataset, [7, 3], generator=st.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [7, 3]
    seen = sorted(int(p[i][0]) for p in parts for i in range(len(p)))
    assert seen == list(range(10))
    again = random_split(dataset, [7, 3], generator=st.Generator().manual_seed(0))
    assert again[0].indices == parts[0].indices
    fractions = random_split(dataset, [0.5, 0.3, 0.2])
    assert [len(p) for p in fractions] == [5, 3, 2]
    uneven = random_split(TensorDataset(st.arange(11)), [0.5, 0.5])
    assert [len(p) for p in uneven] == [6, 5]


def test_random_split_fraction_lengths_match_torch() -> None:
    torch = require_torch()
    for total, fractions in [
        (11, [0.5, 0.5]),
        (10, [0.34, 0.33, 0.33]),
        (7, [0.8, 0.2]),
    ]:
        ours = [
            len(p) for p in random_split(TensorDataset(st.arange(total)), fractions)
        ]
        theirs = [
            len(p)
            for p in torch.utils.data.random_split(
                torch.utils.data.TensorDataset(torch.arange(total)), fractions
            )
        ]
        assert ours == theirs


def test_subset_and_concat() -> None:
    dataset = TensorDataset(st.arange(10))
    subset = Subset(dataset, [9, 2, 4])
    assert [int(subset[i][0]) for i in range(3)] == [9, 2, 4]
    both = dataset + subset
    assert len(both) == 13 and int(both[11][0]) == 2 and int(both[-1][0]) == 4


def _error(function: Any) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        function()
    return type(info.value), str(info.value)


def test_errors_match_torch() -> None:
    torch = require_torch()
    for make in [
        lambda data, lib: data.DataLoader(
            Samples(lib, "tensor"), sampler=[0], shuffle=True
        ),
        lambda data, lib: data.DataLoader(
            Samples(lib, "tensor"), batch_sampler=[[0]], batch_size=2
        ),
        lambda data, lib: data.DataLoader(
            Samples(lib, "tensor"), batch_size=None, drop_last=True
        ),
        lambda data, lib: data.DataLoader(Samples(lib, "tensor"), num_workers=-1),
        lambda data, lib: data.BatchSampler(range(3), 0, False),
        lambda data, lib: data.TensorDataset(lib.zeros(3), lib.zeros(4)),
        lambda data, lib: data.random_split(data.TensorDataset(lib.zeros(5)), [2, 2]),
        lambda data, lib: data.default_collate([[1, 2], [3]]),
        lambda data, lib: data.default_collate([object()]),
        lambda data, lib: data.Dataset()[0],
    ]:
        ours = _error(lambda make=make: make(st.utils.data, st))
        theirs = _error(lambda make=make: make(torch.utils.data, torch))
        assert ours[0] is theirs[0]
        assert ours[1] == theirs[1] or "object" in ours[1]


def test_dataset_without_len_still_loads_with_a_sampler() -> None:
    class Squares(Dataset[int]):
        def __getitem__(self, index: int) -> int:
            return index * index

    loader = DataLoader(Squares(), sampler=[3, 1, 2], batch_size=2)
    assert [b.tolist() for b in loader] == [[9, 1], [4]]


def test_random_split_warns_about_an_empty_part() -> None:
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        parts = random_split(TensorDataset(st.arange(7)), [0.9, 0.1])
    assert [len(p) for p in parts] == [7, 0]


def test_worker_processes_load_the_same_batches() -> None:
    data = TensorDataset(st.arange(4))
    with_workers = DataLoader(data, batch_size=2, num_workers=2)
    assert [b.tolist() for (b,) in with_workers] == [[0, 1], [2, 3]]
