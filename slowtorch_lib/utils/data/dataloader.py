"""The DataLoader: a data set, served in (shuffled) batches."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sized
from typing import Any, cast

from slowtorch_lib._rng import Generator
from slowtorch_lib.utils.data.collate import default_collate, default_convert
from slowtorch_lib.utils.data.dataset import Dataset
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
        num_workers: Must be 0: this engine loads every batch in the main
            process, and more workers raise NotImplementedError.
        collate_fn: Makes a batch from a list of samples
            (:func:`default_collate` by default).
        pin_memory: Accepted for compatibility (there is no GPU).
        drop_last: Leave out a last batch smaller than ``batch_size``.
        generator: The random generator for shuffling. The engine's random
            numbers are not PyTorch's, so the same seed gives a different
            (but, run after run, the same) order than under PyTorch.

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
        if num_workers > 0:
            raise NotImplementedError(
                "num_workers > 0 is not supported by slowtorch: batches are always "
                "loaded in the main process. Use num_workers=0."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
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
        self.timeout = timeout
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> Iterator[Any]:
        dataset = self.dataset
        if not self._auto_collation:
            for index in self.sampler:
                yield self.collate_fn(dataset[index])
            return
        for indices in self.batch_sampler:  # type: ignore[union-attr]
            yield self.collate_fn([dataset[i] for i in indices])

    def __len__(self) -> int:
        return len(self._index_sampler)
