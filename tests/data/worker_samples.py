"""Data sets for the worker tests, in a module that does not import torch.

A worker started by "spawn" imports the module of its data set afresh; this
one stays light so that such a worker starts quickly.
"""

from __future__ import annotations

import importlib
import random
import sys
import time
from typing import Any


def lib_named(name: str) -> Any:
    return importlib.import_module(name)


class Squares:
    """Map-style: sample ``i`` is ``(i, i * i)`` as tensors."""

    def __init__(self, lib: str, count: int = 11) -> None:
        self.lib, self.count = lib, count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int) -> Any:
        lib = lib_named(self.lib)
        return lib.tensor(i), lib.tensor([float(i * i), -1.0])


class WhoLoads:
    """Each sample says which worker loaded it and what that worker's seeds are."""

    def __init__(self, lib: str) -> None:
        self.lib = lib
        self.touched = 0

    def __len__(self) -> int:
        return 8

    def __getitem__(self, i: int) -> Any:
        lib = lib_named(self.lib)
        info = lib.utils.data.get_worker_info()
        info.dataset.touched += 1
        first_random = random.Random(info.seed).random()
        return {
            "index": i,
            "worker": info.id,
            "workers": info.num_workers,
            "base": info.seed - info.id,
            "torch_seeded": lib.initial_seed() == info.seed,
            # the worker's first draw is the first of random.seed(seed)
            "random_seeded": info.dataset.touched > 1
            or random.random() == first_random,
            "same_dataset": info.dataset is self,
            "touched": info.dataset.touched,
            "init": getattr(self, "init", -1),
        }


class Failing:
    def __init__(self, error: type[Exception]) -> None:
        self.error = error

    def __len__(self) -> int:
        return 6

    def __getitem__(self, i: int) -> int:
        if i == 3:
            raise self.error("bad sample 3")
        return i


class Slow:
    def __len__(self) -> int:
        return 2

    def __getitem__(self, i: int) -> int:
        time.sleep(1.5)
        return i


def set_init(worker_id: int) -> None:
    infos = [
        sys.modules[name].utils.data.get_worker_info()
        for name in ("slowtorch_lib", "torch")
        if name in sys.modules
    ]
    info = next(info for info in infos if info is not None)
    info.dataset.init = worker_id * 10


class Draws:
    """Sample ``i`` is ``i``, the loading worker's seed and a random number."""

    def __init__(self, lib: str, count: int = 12) -> None:
        self.lib, self.count = lib, count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i: int) -> Any:
        lib = lib_named(self.lib)
        info = lib.utils.data.get_worker_info()
        seed = -1 if info is None else info.seed
        return [i, seed, lib.rand(1).item(), lib.randn(2, dtype=lib.float64).tolist()]
