"""Data sets and loaders (``slowtorch_lib.utils.data``), as ``torch.utils.data``.

A :class:`Dataset` answers two questions: how many samples there are, and
what sample ``i`` is. A :class:`DataLoader` turns a data set into batches:
a *sampler* chooses the order of the indices, a *batch sampler* groups them,
and a *collate function* stacks the samples of a group into tensors.
"""

from slowtorch_lib.utils.data._worker import WorkerInfo, get_worker_info
from slowtorch_lib.utils.data.collate import default_collate, default_convert
from slowtorch_lib.utils.data.dataloader import DataLoader
from slowtorch_lib.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from slowtorch_lib.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "default_collate",
    "default_convert",
    "random_split",
    "get_worker_info",
    "WorkerInfo",
]
