"""Data sets: anything with ``__getitem__`` (and usually ``__len__``)."""

from __future__ import annotations

import math
import warnings
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import Any, Generic, TypeVar

from slowtorch_lib._rng import Generator, default_generator, randperm
from slowtorch_lib._tensor import Tensor

__all__ = [
    "ChainDataset",
    "ConcatDataset",
    "Dataset",
    "IterableDataset",
    "Subset",
    "TensorDataset",
    "random_split",
]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A collection of samples, indexed ``0 ... len - 1``.

    Subclasses define ``__getitem__(index)`` and ``__len__()``.
    """

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[Any]) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A stream of samples: subclasses define ``__iter__`` instead of indexing.

    A DataLoader asks it for an iterator and takes samples from it in turn.
    With worker processes, *every* worker iterates over its own copy, so a
    data set that should not repeat itself splits the work using
    :func:`~slowtorch_lib.utils.data.get_worker_info`::

        def __iter__(self):
            info = get_worker_info()
            if info is None:  # in the main process: everything
                return iter(range(self.start, self.end))
            return iter(range(self.start + info.id, self.end, info.num_workers))
    """

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError(
            "Subclasses of IterableDataset should implement __iter__."
        )

    def __add__(self, other: Dataset[Any]) -> Any:
        return ChainDataset([self, other])


class ChainDataset(IterableDataset[Any]):
    """Iterable data sets one after the other."""

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from dataset


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples taken along the first dimension of tensors of the same length:
    sample ``i`` is ``(tensors[0][i], tensors[1][i], ...)``.

    Raises:
        AssertionError: If the tensors' first sizes differ (as PyTorch).
    """

    tensors: tuple[Tensor, ...]

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at the given ``indices``, in that order."""

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index: Any) -> T_co:
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset[Any]):
    """Several data sets one after the other.

    Raises:
        AssertionError: If there are none.
    """

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        sizes = [len(d) for d in self.datasets]  # type: ignore[arg-type]
        self.cumulative_sizes = list(accumulate(sizes))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            if -index > len(self):
                raise ValueError(
                    "absolute value of index should not exceed dataset length"
                )
            index = len(self) + index
        which = bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


def random_split(
    dataset: Dataset[T_co],
    lengths: Sequence[int | float],
    generator: Generator | None = default_generator,
) -> list[Subset[T_co]]:
    """Splits a data set at random into parts of the given lengths.

    Args:
        dataset: The data set to split.
        lengths: The parts' lengths, or fractions that add up to 1 (the
            samples left over by rounding down go one each to the first
            parts).
        generator: The random generator that shuffles the indices.

    Raises:
        ValueError: If the lengths do not add up to the data set's length.
    """
    total = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = [int(math.floor(total * fraction)) for fraction in lengths]
        for index in range(total - sum(sizes)):
            sizes[index % len(sizes)] += 1
        for index, size in enumerate(sizes):
            if size == 0:
                warnings.warn(
                    f"Length of split at index {index} is 0. "
                    f"This might result in an empty dataset.",
                    UserWarning,
                    stacklevel=2,
                )
        lengths = sizes
    if sum(lengths) != total:
        raise ValueError(
            "Sum of input lengths does not equal the length of the input dataset!"
        )
    order = randperm(int(sum(lengths)), generator=generator).tolist()
    ends = list(accumulate(int(n) for n in lengths))
    return [
        Subset(dataset, order[end - int(length) : end])
        for end, length in zip(ends, lengths)
    ]
