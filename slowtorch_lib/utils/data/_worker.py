"""What runs inside a DataLoader worker process.

Each worker is a separate Python process with its own copy of the data set.
It seeds its random generators, runs ``worker_init_fn``, then loops: take a
task ``(task number, indices)`` from its own queue, fetch that batch, put
``(task number, batch)`` on the queue shared by all workers. An exception
is caught and sent back wrapped, to be raised again in the main process.
``None`` on its queue tells the worker to stop at once (the main process
shuts the loader down and reads nothing more); :class:`Retire` tells it to
finish after its last messages have left (the main process still reads).
"""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from slowtorch_lib._rng import manual_seed
from slowtorch_lib.utils.data._fetch import make_fetcher

__all__ = ["WorkerInfo", "get_worker_info", "numpy_seed", "worker_loop"]

# How often (seconds) a waiting worker checks that the main process lives.
STATUS_CHECK_INTERVAL = 5.0
MASK32 = 0xFFFFFFFF


@dataclass(frozen=True)
class WorkerInfo:
    """Who the current worker is.

    Attributes:
        id: This worker's number, ``0`` to ``num_workers - 1``.
        num_workers: How many workers the loader runs.
        seed: The seed this worker's generators were given:
            ``base_seed + id``, where the loader draws ``base_seed`` from the
            main process's generator at each pass.
        dataset: This process's copy of the data set.
    """

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker, who it is (:class:`WorkerInfo`); else ``None``."""
    return _worker_info


@dataclass(frozen=True)
class StreamEnded:
    """A worker's message: its iterable data set has nothing left."""

    worker_id: int


@dataclass(frozen=True)
class Retire:
    """The main process's message to a worker whose stream ended, when the
    pass goes on without it: finish, once the messages sent have left."""


@dataclass(frozen=True)
class Resume:
    """The main process's message to persistent workers: a new pass begins."""


class WorkerError:
    """An exception caught in a worker, carried to the main process.

    Args:
        where: Where it was caught, as in "in DataLoader worker process 0".
    """

    def __init__(self, where: str) -> None:
        error_type, error, trace = sys.exc_info()
        self.error_type = error_type or RuntimeError
        self.where = where
        self.trace = "".join(traceback.format_exception(error_type, error, trace))

    def reraise(self) -> NoReturn:
        """Raises an exception of the same type, saying where it came from."""
        message = (
            f"Caught {self.error_type.__name__} {self.where}.\nOriginal {self.trace}"
        )
        if self.error_type is KeyError:
            message = KeyErrorMessage(message)
        try:
            error = self.error_type(message)
        except Exception:
            raise RuntimeError(message) from None
        raise error


class KeyErrorMessage(str):
    """A KeyError's message that prints as written (KeyError shows its repr)."""

    def __repr__(self) -> str:
        return str(self)


def _hasher(constant: int, multiplier: int) -> Callable[[int], int]:
    """A 32-bit hash whose constant changes at each call (NumPy's SeedSequence)."""

    def hash_word(value: int) -> int:
        nonlocal constant
        value = (value ^ constant) & MASK32
        constant = (constant * multiplier) & MASK32
        value = (value * constant) & MASK32
        return value ^ (value >> 16)

    return hash_word


def _mix(x: int, y: int) -> int:
    mixed = (0xCA01F9DD * x - 0x4973F715 * y) & MASK32
    return mixed ^ (mixed >> 16)


def numpy_seed(base_seed: int, worker_id: int) -> list[int]:
    """The four 32-bit words a worker seeds NumPy's global generator with.

    NumPy's ``SeedSequence`` recipe: the worker id and the two halves of the
    base seed are hashed into a pool, every word of the pool is mixed into
    every other, and the pool is hashed again. This way NumPy's numbers do
    not repeat those of Python's ``random``, seeded with ``base_seed + id``.
    """
    hash_in = _hasher(0x43B0D7E5, 0x931E8875)
    pool = [hash_in(w) for w in (worker_id, base_seed & MASK32, base_seed >> 32, 0)]
    for source in range(4):
        for target in range(4):
            if source != target:
                pool[target] = _mix(pool[target], hash_in(pool[source]))
    hash_out = _hasher(0x8B51F9DD, 0x58F38DED)
    return [hash_out(word) for word in pool]


def seed_worker(base_seed: int, worker_id: int) -> int:
    """Seeds Python's ``random``, the engine and (if loaded) NumPy; the seed."""
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    numpy = sys.modules.get("numpy")  # NumPy stays optional: seeded if in use
    if numpy is not None:
        numpy.random.seed(numpy_seed(base_seed, worker_id))
    return seed


def worker_loop(
    iterable: bool,
    dataset: Any,
    index_queue: Any,
    data_queue: Any,
    auto_collation: bool,
    collate_fn: Callable[[Any], Any],
    drop_last: bool,
    base_seed: int,
    init_fn: Callable[[int], None] | None,
    worker_id: int,
    num_workers: int,
) -> None:
    """A worker process's whole life (see the module docstring)."""
    global _worker_info
    seed = seed_worker(base_seed, worker_id)
    _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
    where = f"in DataLoader worker process {worker_id}"
    setup_error: WorkerError | None = None

    def new_fetcher() -> Any:
        return make_fetcher(dataset, iterable, auto_collation, collate_fn, drop_last)

    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = new_fetcher()
    except Exception:
        setup_error = WorkerError(where)
    parent, ended, flush = os.getppid(), False, False
    while os.getppid() == parent:
        try:
            task = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
        except queue.Empty:
            continue
        if task is None:
            break
        if isinstance(task, Retire):
            flush = True
            break
        if isinstance(task, Resume):
            data_queue.put((task, None))
            fetcher, ended = new_fetcher(), False
            continue
        if ended:
            continue
        number, index = task
        result: Any
        if setup_error is not None:
            result, setup_error = setup_error, None
        else:
            result = _fetched(fetcher, index, iterable, worker_id, where)
            ended = isinstance(result, StreamEnded)
        data_queue.put((number, result))
    _finish(data_queue, flush)


def _finish(data_queue: Any, flush: bool) -> None:
    """Closes the worker's end of the shared queue. Leaving while a message is
    still being written would keep the queue's write lock held for good,
    and the other workers could never send again: so a retiring worker
    waits for its messages to leave. At shutdown nothing is read any more,
    and waiting could last for ever: what is unsent is dropped."""
    if not flush:
        data_queue.cancel_join_thread()
    data_queue.close()
    if flush:
        data_queue.join_thread()


def _fetched(
    fetcher: Any, index: Any, iterable: bool, worker_id: int, where: str
) -> Any:
    """A batch, or what the main process re-raises (or, for a stream, stops on)."""
    try:
        return fetcher.fetch(index)
    except Exception as error:
        ended = iterable and isinstance(error, StopIteration)
        return StreamEnded(worker_id) if ended else WorkerError(where)
