"""Samplers: the order in which a DataLoader visits a data set's indices."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any

from slowtorch_lib._rng import Generator, default_generator, randint, randperm
from slowtorch_lib._sampling import random_int64

__all__ = [
    "BatchSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
]


class Sampler:
    """Base class: iterating over a sampler gives indices (or lists of them)."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, 2, ...``: the data set in order."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """The indices in a random order, a new one at each pass.

    Args:
        data_source: The data set.
        replacement: Draw indices independently (some twice, some never).
        num_samples: How many indices to give (default: the data set's length).
        generator: The random generator; by default each pass seeds a new one
            from the global generator, as PyTorch does.

    Raises:
        ValueError: If ``num_samples`` is not a positive integer.
    """

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(
                "replacement should be a boolean value, but got replacement="
                f"{self.replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                "num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        if self._num_samples is None:
            return len(self.data_source)
        return self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            # PyTorch: torch.empty((), dtype=torch.int64).random_().item()
            seed = random_int64(default_generator, 1)[0]
            generator = Generator().manual_seed(seed)
        if self.replacement:
            # Drawn lazily, 32 at a time as PyTorch does: num_samples may be
            # huge (10**10) for a loop that stops early.
            for _ in range(self.num_samples // 32):
                yield from randint(0, n, (32,), generator=generator).tolist()
            rest = self.num_samples % 32
            yield from randint(0, n, (rest,), generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=generator).tolist()
        yield from randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order."""

    def __init__(
        self, indices: Sequence[int], generator: Generator | None = None
    ) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for position in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[position]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups the indices of another sampler into lists of ``batch_size``.

    Args:
        sampler: Where the indices come from.
        batch_size: The size of each batch (the last may be smaller).
        drop_last: Leave out a last batch smaller than ``batch_size``.

    Raises:
        ValueError: If ``batch_size`` is not a positive integer or ``drop_last``
            not a bool.
    """

    def __init__(
        self, sampler: Iterable[int], batch_size: int, drop_last: bool
    ) -> None:
        if (
            not isinstance(batch_size, int)
            or isinstance(batch_size, bool)
            or batch_size <= 0
        ):
            raise ValueError(
                "batch_size should be a positive integer value, but got "
                f"batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(
                f"drop_last should be a boolean value, but got drop_last={drop_last}"
            )
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        count = len(self.sampler)  # type: ignore[arg-type]
        if self.drop_last:
            return count // self.batch_size
        return (count + self.batch_size - 1) // self.batch_size
