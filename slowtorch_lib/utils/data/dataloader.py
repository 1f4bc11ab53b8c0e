"""The DataLoader: a data set, served in (shuffled) batches."""

from __future__ import annotations

import math
import multiprocessing
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Sized
from typing import Any, cast

from slowtorch_lib._rng import Generator
from slowtorch_lib.utils.data._fetch import InfiniteConstantSampler, make_fetcher
from slowtorch_lib.utils.data._workers import WorkerIterator, draw_base_seed
from slowtorch_lib.utils.data.collate import default_collate, default_convert
from slowtorch_lib.utils.data.dataset import Dataset, IterableDataset
from slowtorch_lib.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
)

__all__ = ["DataLoader"]


class DataLoader:
    """Iterates over a data set in batches.

    Each pass (``for batch in loader``) asks the batch sampler for lists of
    indices, fetches those samples from the data set and collates them::

        for indices in batch_sampler:
            yield collate_fn([dataset[i] for i in indices])

    Args:
        dataset: The data set.
        batch_size: Samples per batch; None to give samples one by one,
            unbatched.
        shuffle: Visit the samples in a new random order at each pass.
        sampler: A sampler to choose the order instead.
        batch_sampler: A sampler of whole lists of indices instead.
        num_workers: How many worker processes prepare batches (0: all
            in the main process). See ``_workers`` for how they work.
        collate_fn: Makes a batch from a list of samples
            (:func:`default_collate` by default).
        pin_memory: Accepted, with PyTorch's warning when iterating: there
            is no GPU to pin memory for.
        drop_last: Leave out a last batch smaller than ``batch_size``.
        timeout: Seconds to wait for a worker's batch (0: no limit).
        worker_init_fn: Called as ``worker_init_fn(worker_id)`` in each
            worker, after seeding and before loading.
        multiprocessing_context: How to start workers: a start method's name
            (``"fork"``, ``"spawn"``, ``"forkserver"``) or a context from
            :mod:`multiprocessing`; the platform's default if None.
        generator: The random generator for shuffling (and the workers'
            base seed). Both are drawn as PyTorch draws them, so the same
            seed gives PyTorch's order, with or without workers.
        prefetch_factor: Batches each worker keeps ready ahead (2 by
            default with workers; only with workers).
        persistent_workers: Keep the workers alive from one pass to the
            next instead of starting new ones.
        in_order: Give batches in the sampler's order (else as they come).

    Raises:
        ValueError: For contradictory options, as in PyTorch.
    """

    def __init__(
        self,
        dataset: Dataset[Any],
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler | Iterable[int] | None = None,
        batch_sampler: Sampler | Iterable[list[int]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to "
                "disable multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        prefetch_factor = _check_worker_options(
            num_workers, prefetch_factor, persistent_workers
        )
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            _check_iterable_options(shuffle, sampler, batch_sampler)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, "
                    "shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually "
                "exclusive with drop_last"
            )
        if sampler is None and self._iterable:
            sampler = InfiniteConstantSampler()
        if sampler is None:
            sized = cast(Sized, dataset)  # a sampler needs the data set's length
            if shuffle:
                sampler = RandomSampler(sized, generator=generator)
            else:
                sampler = SequentialSampler(sized)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.generator = generator
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self.multiprocessing_context = _start_context(
            multiprocessing_context, num_workers
        )
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self._iterator: WorkerIterator | None = None
        warn_about_worker_count(num_workers)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> Iterator[Any]:
        if self.pin_memory:
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, "
                "then device pinned memory won't be used.",
                stacklevel=2,
            )
        if self.num_workers == 0:
            if self.timeout != 0:
                raise AssertionError(
                    "_SingleProcessDataLoaderIter requires timeout == 0"
                )
            # PyTorch draws a base seed for workers even with none, so the
            # generator is in the same place for the order either way.
            draw_base_seed(self.generator)
            return self._in_this_process()
        warn_about_worker_count(self.num_workers)
        if not self.persistent_workers:
            return WorkerIterator(self)
        if self._iterator is None:
            self._iterator = WorkerIterator(self)
        else:
            self._iterator.reset()
        return self._iterator

    def _in_this_process(self) -> Iterator[Any]:
        """Every batch loaded here, one after the other (``num_workers=0``)."""
        fetcher = make_fetcher(
            self.dataset,
            self._iterable,
            self._auto_collation,
            self.collate_fn,
            self.drop_last,
        )
        for index in self._index_sampler:
            try:
                batch = fetcher.fetch(index)
            except StopIteration:
                return
            yield batch

    def __len__(self) -> int:
        if not self._iterable:
            return len(self._index_sampler)
        length = len(cast(Sized, self.dataset))
        if self.batch_size is None:
            return length
        if self.drop_last:
            return length // self.batch_size
        return math.ceil(length / self.batch_size)


def _check_worker_options(
    num_workers: int, prefetch_factor: int | None, persistent_workers: bool
) -> int | None:
    """PyTorch's checks of the worker options; the prefetch factor to use."""
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing."
            "let num_workers > 0 to enable multiprocessing, otherwise set "
            "prefetch_factor to None."
        )
    if num_workers > 0 and prefetch_factor is None:
        prefetch_factor = 2
    elif prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    return prefetch_factor


def _check_iterable_options(shuffle: Any, sampler: Any, batch_sampler: Any) -> None:
    """An iterable data set chooses its own order: PyTorch's refusals."""
    prefix = "DataLoader with IterableDataset: expected unspecified"
    if shuffle not in {False, None}:
        raise ValueError(f"{prefix} shuffle option, but got shuffle={shuffle}")
    if sampler is not None:
        raise ValueError(f"{prefix} sampler option, but got sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError(
            f"{prefix} batch_sampler option, but got batch_sampler={batch_sampler}"
        )


def _start_context(context: Any, num_workers: int) -> Any:
    """The multiprocessing context for a start method's name, checked."""
    if context is None:
        return None
    if num_workers == 0:
        raise ValueError(
            "multiprocessing_context can only be used with multi-process loading "
            f"(num_workers > 0), but got num_workers={num_workers}"
        )
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError(
                "multiprocessing_context option should specify a valid start "
                f"method in {methods!r}, but got multiprocessing_context={context!r}"
            )
        context = multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError(
            "multiprocessing_context option should be a valid context object or a "
            "string specifying the start method, but got "
            f"multiprocessing_context={context}"
        )
    return context


def warn_about_worker_count(num_workers: int) -> None:
    """PyTorch's warning when there are more workers than usable CPUs."""
    if num_workers == 0:
        return
    checked = hasattr(os, "sched_getaffinity")
    cpus = len(os.sched_getaffinity(0)) if checked else os.cpu_count()
    if cpus is not None and num_workers <= cpus:
        return
    if cpus is None:
        suggestion = (
            "DataLoader is not able to compute a suggested max number of worker "
            "in current system."
        )
    else:
        unchecked = "" if checked else " (`cpuset` is not taken into account)"
        suggestion = (
            f"Our suggested max number of worker in current system is {cpus}"
            f"{unchecked}, which is smaller than what this DataLoader is going "
            "to create."
        )
    warnings.warn(
        f"This DataLoader will create {num_workers} worker processes in total. "
        f"{suggestion} Please be aware that excessive worker creation might get "
        "DataLoader running slow or even freeze, lower the worker number to avoid "
        "potential slowness/freeze if necessary.",
        stacklevel=3,
    )
