"""DataLoader worker processes against torch's: batches, order, seeds, errors.

Each test runs the same loader under both libraries with two workers (this
machine's CPUs are few) and compares what comes out.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import warnings
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.utils.data import DataLoader
from slowtorch_lib.utils.data._worker import _finish, numpy_seed
from tests.data.worker_samples import (
    Failing,
    Slow,
    Squares,
    WhoLoads,
    lib_named,
    set_init,
)
from tests.parity import require_torch

torch = require_torch()
LIBS = [st, torch]


def batches(loader: Any) -> list[Any]:
    """Every batch as plain Python values."""
    return [_plain(batch) for batch in loader]


def _plain(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def make_stream(lib: Any, start: int, end: int) -> Any:
    """The range data set of torch's IterableDataset documentation."""

    class Range(lib.utils.data.IterableDataset):
        def __iter__(self) -> Any:
            info = lib.utils.data.get_worker_info()
            if info is None:
                return iter(range(start, end))
            per_worker = -(-(end - start) // info.num_workers)
            first = start + info.id * per_worker
            return iter(range(first, min(first + per_worker, end)))

    return Range()


@pytest.mark.parametrize(
    "options",
    [
        {"batch_size": 3},
        {"batch_size": 3, "drop_last": True},
        {"batch_size": 4, "prefetch_factor": 1},
        {"batch_size": None},
        {"batch_size": 2, "in_order": False},
    ],
)
def test_batches_come_in_the_sampler_order(options: dict[str, Any]) -> None:
    got = [
        batches(
            lib.utils.data.DataLoader(Squares(lib.__name__), num_workers=2, **options)
        )
        for lib in LIBS
    ]
    if options.get("in_order") is False:
        got = [sorted(map(repr, each)) for each in got]
    assert got[0] == got[1]


def test_shuffled_batches_are_a_permutation() -> None:
    loader = DataLoader(
        Squares("slowtorch_lib"), batch_size=4, shuffle=True, num_workers=2
    )
    indices = [i for index, _ in loader for i in index.tolist()]
    assert sorted(indices) == list(range(11))


def test_worker_info_and_seeds_match_torch() -> None:
    results = []
    for lib in LIBS:
        dataset = WhoLoads(lib.__name__)
        loader = lib.utils.data.DataLoader(
            dataset, batch_size=2, num_workers=2, worker_init_fn=set_init
        )
        samples = [sample for batch in batches(loader) for sample in _samples(batch)]
        bases = {sample.pop("base") for sample in samples}
        assert len(bases) == 1  # seed = base_seed + worker id
        assert dataset.touched == 0  # the workers have their own copies
        results.append(samples)
    assert results[0] == results[1]
    assert [s["worker"] for s in results[0]] == [0, 0, 1, 1, 0, 0, 1, 1]
    assert all(s["torch_seeded"] and s["random_seeded"] for s in results[0])
    assert lib_named("slowtorch_lib").utils.data.get_worker_info() is None


def _samples(batch: dict[str, Any]) -> list[dict[str, Any]]:
    return [dict(zip(batch, values)) for values in zip(*batch.values())]


def test_a_new_pass_draws_a_new_base_seed_from_the_generator() -> None:
    for lib in LIBS:
        generator = lib.Generator().manual_seed(3)
        loader = lib.utils.data.DataLoader(
            WhoLoads(lib.__name__), batch_size=4, num_workers=2, generator=generator
        )
        first, second = (batches(loader)[0]["base"][0] for _ in range(2))
        assert first != second
        generator.manual_seed(3)
        assert batches(loader)[0]["base"][0] == first


def test_persistent_workers_keep_their_state_between_passes() -> None:
    results = []
    for lib in LIBS:
        loader = lib.utils.data.DataLoader(
            WhoLoads(lib.__name__), batch_size=2, num_workers=2, persistent_workers=True
        )
        passes = [batches(loader) for _ in range(2)]
        partial = next(iter(loader))  # a pass left unfinished...
        passes.append(batches(loader))  # ...does not disturb the next
        for one_pass in passes:
            for batch in one_pass:
                batch.pop("base")
        results.append((passes, _plain(partial)["index"]))
    assert results[0][0] == results[1][0]
    assert results[0][1] == results[1][1] == [0, 1]
    touched = [b["touched"] for b in results[0][0][1]]
    assert touched == [[5, 6], [5, 6], [7, 8], [7, 8]]


@pytest.mark.parametrize("persistent", [False, True])
def test_iterable_dataset_split_by_worker_info(persistent: bool) -> None:
    got = []
    for lib in LIBS:
        loader = lib.utils.data.DataLoader(
            make_stream(lib, 3, 10),
            batch_size=2,
            num_workers=2,
            persistent_workers=persistent,
        )
        got.append(
            [batches(loader), batches(loader), len(list(make_stream(lib, 3, 10)))]
        )
    assert got[0] == got[1]
    assert got[0][0] == [[3, 4], [7, 8], [5, 6], [9]]


@pytest.mark.parametrize("error", [ValueError, KeyError, IndexError])
def test_an_error_in_a_worker_is_raised_again_here(error: type[Exception]) -> None:
    messages = []
    for lib in LIBS:
        loader = lib.utils.data.DataLoader(Failing(error), batch_size=2, num_workers=2)
        with pytest.raises(error) as caught:
            batches(loader)
        messages.append(str(caught.value))
    for message in messages:
        first, second = message.splitlines()[:2]
        assert first == f"Caught {error.__name__} in DataLoader worker process 1."
        assert second == "Original Traceback (most recent call last):"
        assert "bad sample 3" in message.splitlines()[-1]


def test_timeout_matches_torch() -> None:
    for lib in LIBS:
        loader = lib.utils.data.DataLoader(Slow(), num_workers=1, timeout=0.3)
        with pytest.raises(
            RuntimeError, match=r"^DataLoader timed out after 0.3 seconds$"
        ):
            next(iter(loader))


def test_worker_init_fn_and_spawn_context() -> None:
    loader = DataLoader(
        WhoLoads("slowtorch_lib"),
        batch_size=8,
        num_workers=1,
        worker_init_fn=set_init,
        multiprocessing_context="spawn",
    )
    (batch,) = batches(loader)
    assert batch["init"] == [0] * 8 and batch["worker"] == [0] * 8


def _error(call: Any, *args: Any, **kwargs: Any) -> tuple[type[Exception], str] | None:
    try:
        call(*args, **kwargs)
    except Exception as error:
        return type(error), str(error)
    return None


@pytest.mark.parametrize(
    "options",
    [
        {"num_workers": 0, "prefetch_factor": 2},
        {"num_workers": 2, "prefetch_factor": -1},
        {"num_workers": 0, "persistent_workers": True},
        {"num_workers": -1},
        {"num_workers": 0, "multiprocessing_context": "spawn"},
        {"num_workers": 2, "multiprocessing_context": "threads"},
        {"num_workers": 2, "multiprocessing_context": 3},
        {"num_workers": 2, "timeout": -1},
    ],
)
def test_option_errors_match_torch(options: dict[str, Any]) -> None:
    errors = [
        _error(lib.utils.data.DataLoader, Squares(lib.__name__), **options)
        for lib in LIBS
    ]
    assert errors[0] is not None and errors[0] == errors[1]


def test_iterable_dataset_refuses_an_order_as_torch() -> None:
    for options in [{"shuffle": True}, {"sampler": [0, 1]}, {"batch_sampler": [[0]]}]:
        errors = [
            _error(lib.utils.data.DataLoader, make_stream(lib, 0, 3), **options)
            for lib in LIBS
        ]
        assert errors[0] is not None and errors[0][0] is errors[1][0] is ValueError
        assert errors[0][1].split(", but")[0] == errors[1][1].split(", but")[0]


def test_pin_memory_and_worker_count_warn_as_torch() -> None:
    for lib in LIBS:
        loader = lib.utils.data.DataLoader(Squares(lib.__name__), pin_memory=True)
        with pytest.warns(UserWarning, match="'pin_memory' argument is set as true"):
            iter(loader)
    too_many = len(os.sched_getaffinity(0)) + 1
    messages = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.utils.data.DataLoader(Squares(lib.__name__), num_workers=too_many)
        messages.append([(w.category, str(w.message)) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


def test_numpy_seed_is_torch_recipe() -> None:
    from torch.utils.data._utils.worker import _generate_state

    for base, worker in [(0, 0), (12345678901234, 3), (2**63 - 1, 7)]:
        assert numpy_seed(base, worker) == _generate_state(base, worker)


def test_numpy_is_seeded_in_workers_when_in_use() -> None:
    numpy = pytest.importorskip("numpy")

    class Draws:
        def __len__(self) -> int:
            return 2

        def __getitem__(self, i: int) -> float:
            return float(numpy.random.rand())

    draws = [batches(lib.utils.data.DataLoader(Draws(), num_workers=2)) for lib in LIBS]
    assert draws[0][0] != draws[0][1]  # each worker its own stream
    assert all(isinstance(d, list) for d in draws[1])


def test_the_browser_gets_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    loader = DataLoader(Squares("slowtorch_lib"), num_workers=2)
    monkeypatch.setattr(sys, "platform", "emscripten")
    with pytest.raises(NotImplementedError, match="cannot start processes"):
        iter(loader)


@pytest.mark.parametrize("flush", [True, False])
def test_a_retiring_worker_waits_for_its_messages_to_leave(flush: bool) -> None:
    """A worker that left while its last message was being written would keep
    the shared queue's write lock for good, and every other worker would
    wait on it for ever. So a worker retired mid-pass waits until its
    messages have left; at shutdown (nothing read any more) it does not."""
    shared = multiprocessing.get_context().Queue()
    shared._wlock.acquire()  # another worker is writing
    shared.put("last batch")
    finishing = threading.Thread(target=_finish, args=(shared, flush))
    finishing.start()
    finishing.join(timeout=1.0)
    assert finishing.is_alive() == flush  # waits while the message cannot leave
    shared._wlock.release()
    finishing.join(timeout=10.0)
    assert not finishing.is_alive()
    if flush:
        assert not shared._buffer  # written to the pipe, the lock released
