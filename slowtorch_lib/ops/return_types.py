"""The named pairs that ``max(dim)``, ``min(dim)``, ``median(dim)``,
``kthvalue``, ``sort`` and ``topk`` return.

Each is a ``(values, indices)`` tuple whose fields can also be read by
name, and which prints as PyTorch's ``torch.return_types.max(...)``.
"""

from __future__ import annotations

from typing import NamedTuple

from slowtorch_lib._tensor import Tensor

__all__ = [
    "HistogramResult",
    "KthvalueResult",
    "MaxResult",
    "MedianResult",
    "MinResult",
    "SortResult",
    "TopkResult",
    "ValuesIndices",
]


class ValuesIndices(NamedTuple):
    """Values picked from a tensor, and the indices they were found at."""

    values: Tensor
    indices: Tensor

    def __repr__(self) -> str:
        name = getattr(self, "op_name", "values_indices")
        return (
            f"torch.return_types.{name}(\nvalues={self.values!r},\n"
            f"indices={self.indices!r})"
        )


class MaxResult(ValuesIndices):
    """What ``x.max(dim)`` returns."""

    __slots__ = ()
    op_name = "max"


class MinResult(ValuesIndices):
    """What ``x.min(dim)`` returns."""

    __slots__ = ()
    op_name = "min"


class MedianResult(ValuesIndices):
    """What ``x.median(dim)`` returns."""

    __slots__ = ()
    op_name = "median"


class KthvalueResult(ValuesIndices):
    """What ``x.kthvalue(k, dim)`` returns."""

    __slots__ = ()
    op_name = "kthvalue"


class SortResult(ValuesIndices):
    """What ``sort`` returns: the sorted values and where they came from."""

    __slots__ = ()
    op_name = "sort"


class TopkResult(ValuesIndices):
    """What ``topk`` returns: the ``k`` values and where they came from."""

    __slots__ = ()
    op_name = "topk"


class HistogramResult(NamedTuple):
    """What ``histogram`` returns: the counts, and the edges of the bins."""

    hist: Tensor
    bin_edges: Tensor

    def __repr__(self) -> str:
        return (
            f"torch.return_types.histogram(\nhist={self.hist!r},\n"
            f"bin_edges={self.bin_edges!r})"
        )
