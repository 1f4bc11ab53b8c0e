"""Fetchers: from what the sampler gives to one batch, for both kinds of data set.

A *map-style* data set is indexed: the batch sampler's list of indices says
which samples make the batch. An *iterable* data set is a stream: the
sampler gives only placeholders, and their number says how many samples
to take from the stream. The same fetcher runs in the main process and in
each worker process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from slowtorch_lib.utils.data.sampler import Sampler

__all__ = ["Fetcher", "InfiniteConstantSampler", "make_fetcher"]


class InfiniteConstantSampler(Sampler):
    """The sampler of an iterable data set: ``None``, forever."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


class Fetcher:
    """Makes batches from a map-style data set: ``collate([dataset[i] ...])``."""

    def __init__(
        self,
        dataset: Any,
        auto_collation: bool,
        collate_fn: Callable[[Any], Any],
        drop_last: bool,
    ) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last

    def fetch(self, index: Any) -> Any:
        """The batch (or, without auto-collation, the sample) for ``index``."""
        if self.auto_collation:
            return self.collate_fn([self.dataset[i] for i in index])
        return self.collate_fn(self.dataset[index])


class IterableFetcher(Fetcher):
    """Makes batches from an iterable data set, taking samples in turn.

    ``fetch`` raises ``StopIteration`` once the stream has nothing left (or,
    with ``drop_last``, less than a full batch).
    """

    def __init__(
        self,
        dataset: Any,
        auto_collation: bool,
        collate_fn: Callable[[Any], Any],
        drop_last: bool,
    ) -> None:
        super().__init__(dataset, auto_collation, collate_fn, drop_last)
        self.stream = iter(dataset)
        self.ended = False

    def fetch(self, index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.stream))
        samples = []
        for _ in index:
            try:
                samples.append(next(self.stream))
            except StopIteration:
                self.ended = True
                break
        if not samples or (self.drop_last and len(samples) < len(index)):
            raise StopIteration
        return self.collate_fn(samples)


def make_fetcher(
    dataset: Any,
    iterable: bool,
    auto_collation: bool,
    collate_fn: Callable[[Any], Any],
    drop_last: bool,
) -> Fetcher:
    """The fetcher for a data set of either kind."""
    kind = IterableFetcher if iterable else Fetcher
    return kind(dataset, auto_collation, collate_fn, drop_last)
