"""The main process's side of loading with worker processes.

The loader starts ``num_workers`` processes (see ``_worker``), each with a
queue of tasks; all send their batches back on one shared queue. Tasks go
to the workers in turn, and ``prefetch_factor`` tasks per worker are kept
in flight, so the workers prepare the next batches while the main process
trains on this one. Batches come back in whatever order the workers finish
them; each carries its task number, and the iterator hands them out in the
sampler's order (holding early arrivals until their turn), unless the
loader was made with ``in_order=False``.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import sys
from collections.abc import Iterator
from typing import Any

from slowtorch_lib._rng import _generator
from slowtorch_lib._sampling import random_int64
from slowtorch_lib.utils.data._worker import (
    STATUS_CHECK_INTERVAL,
    Resume,
    Retire,
    StreamEnded,
    WorkerError,
    worker_loop,
)

__all__ = ["WorkerIterator", "draw_base_seed"]


def draw_base_seed(generator: Any) -> int:
    """A 63-bit seed from the loader's generator (or the default one).

    As PyTorch draws it: ``torch.empty((), dtype=torch.int64).random_()``,
    a 64-bit draw modulo ``2**63``.
    """
    return random_int64(_generator(generator), 1)[0]


def refuse_in_browser(num_workers: int) -> None:
    """Where no process can be started (Pyodide), says so plainly."""
    if sys.platform == "emscripten":
        raise NotImplementedError(
            f"DataLoader(num_workers={num_workers}) starts worker processes, and "
            "this Python (in the browser) cannot start processes. "
            "Use num_workers=0 here."
        )


class WorkerIterator(Iterator[Any]):
    """One or more passes over a DataLoader with worker processes.

    Args:
        loader: The DataLoader (its options say how many workers, which
            start method, how many tasks in flight...).
    """

    def __init__(self, loader: Any) -> None:
        refuse_in_browser(loader.num_workers)
        context = loader.multiprocessing_context or multiprocessing.get_context()
        self.loader = loader
        self.num_workers = loader.num_workers
        self.persistent = loader.persistent_workers
        self.base_seed = draw_base_seed(loader.generator)
        self.results = context.Queue()
        self.task_queues: list[Any] = []
        self.workers: list[Any] = []
        self.shut = False
        self.owner = os.getpid()  # a forked child must not stop its siblings
        for worker_id in range(self.num_workers):
            tasks = context.Queue()
            tasks.cancel_join_thread()
            worker = context.Process(
                target=worker_loop,
                args=(
                    loader._iterable,
                    loader.dataset,
                    tasks,
                    self.results,
                    loader._auto_collation,
                    loader.collate_fn,
                    loader.drop_last,
                    self.base_seed,
                    loader.worker_init_fn,
                    worker_id,
                    self.num_workers,
                ),
                daemon=True,
            )
            worker.start()
            self.task_queues.append(tasks)
            self.workers.append(worker)
        self.reset(first=True)

    def reset(self, first: bool = False) -> None:
        """Starts a pass: a new sampler pass, and the first tasks sent."""
        self.indices = iter(self.loader._index_sampler)
        self.sent = 0  # task numbers handed out so far
        self.received = 0  # the task whose batch is yielded next
        self.tasks: dict[int, tuple[Any, ...]] = {}  # number -> (worker[, batch])
        self.per_worker = [0] * self.num_workers
        self.active = [True] * self.num_workers
        self.turns = itertools.cycle(range(self.num_workers))
        if not first:
            self._resume_workers()
        for _ in range(self.loader.prefetch_factor * self.num_workers):
            self._send_task()

    def _resume_workers(self) -> None:
        """Tells persistent workers a pass begins; drops stale batches."""
        for tasks in self.task_queues:
            tasks.put(Resume())
        waiting = self.num_workers
        while waiting:
            number, _ = self._get()
            if isinstance(number, Resume):
                waiting -= 1

    def _send_task(self) -> None:
        """Gives the next batch's indices to the next worker that takes work."""
        try:
            index = next(self.indices)
        except StopIteration:
            return
        for _ in range(self.num_workers):
            worker = next(self.turns)
            ready = self.loader.in_order or (
                self.per_worker[worker] < self.loader.prefetch_factor
            )
            if self.active[worker] and ready:
                break
        else:
            return
        self.task_queues[worker].put((self.sent, index))
        self.tasks[self.sent] = (worker,)
        self.per_worker[worker] += 1
        self.sent += 1

    def _get(self) -> tuple[Any, Any]:
        """The next result any worker sends, waiting as ``timeout`` allows."""
        timeout = self.loader.timeout
        while True:
            try:
                return self.results.get(timeout=timeout or STATUS_CHECK_INTERVAL)
            except queue.Empty:
                dead = [
                    worker
                    for worker, active in zip(self.workers, self.active)
                    if active and not worker.is_alive()
                ]
                if dead:
                    pids = ", ".join(str(w.pid) for w in dead)
                    self.shutdown()
                    raise RuntimeError(
                        f"DataLoader worker (pid(s) {pids}) exited unexpectedly"
                    ) from None
                if timeout:
                    raise RuntimeError(
                        f"DataLoader timed out after {timeout} seconds"
                    ) from None

    def _next_task_waited_for(self) -> bool:
        """Skips tasks that will never come back; False when none is left."""
        while self.received < self.sent:
            task = self.tasks.get(self.received)
            if task is not None and (len(task) == 2 or self.active[task[0]]):
                return True
            self.tasks.pop(self.received, None)
            self.received += 1
        return False

    def __next__(self) -> Any:
        while True:
            if not self._next_task_waited_for():
                if not self.persistent:
                    self.shutdown()
                raise StopIteration
            if len(self.tasks[self.received]) == 2:
                worker, batch = self.tasks.pop(self.received)
                self.received += 1
                return self._deliver(batch, worker)
            number, batch = self._get()
            if isinstance(batch, StreamEnded):
                self._retire(batch.worker_id)
                self._send_task()
                continue
            worker = self.tasks[number][0]
            if number == self.received or not self.loader.in_order:
                del self.tasks[number]
                self.received += number == self.received
                return self._deliver(batch, worker)
            self.tasks[number] = (worker, batch)  # early: held until its turn

    def _deliver(self, batch: Any, worker: int) -> Any:
        self.per_worker[worker] -= 1
        self._send_task()
        if isinstance(batch, WorkerError):
            batch.reraise()
        return batch

    def _retire(self, worker: int) -> None:
        """A worker whose stream ended gets no more tasks in this pass."""
        self.active[worker] = False
        if not self.persistent:
            self.task_queues[worker].put(Retire())

    def __iter__(self) -> WorkerIterator:
        return self

    def __len__(self) -> int:
        return len(self.loader)

    def shutdown(self, politely: bool = True) -> None:
        """Stops the workers (asking first, if ``politely``), closes the queues."""
        if self.shut or os.getpid() != self.owner:
            return
        self.shut = True
        if politely:
            for worker, tasks in zip(self.workers, self.task_queues):
                if worker.is_alive():
                    tasks.put(None)
        for worker in self.workers:
            if politely:
                worker.join(timeout=STATUS_CHECK_INTERVAL)
            if worker.is_alive():
                worker.terminate()
                worker.join()
        for tasks in [*self.task_queues, self.results]:
            tasks.cancel_join_thread()
            tasks.close()

    def __del__(self) -> None:
        # The garbage collector may already have closed the task queues (their
        # messages would never leave), and nothing else reads the results.
        if hasattr(self, "shut"):
            self.shutdown(politely=False)
