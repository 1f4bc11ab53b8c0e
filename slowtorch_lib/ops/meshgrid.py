"""``meshgrid``: coordinate grids from 1-d tensors, as views.

For tensors of sizes ``n0, n1, ...`` every output has the shape
``(n0, n1, ...)`` (``indexing="ij"``, matrix indexing); output ``i`` holds
tensor ``i``'s values along dimension ``i`` and repeats them along the
others. Nothing is copied: each output is its tensor viewed with one
non-1 dimension and expanded (stride 0 along the repeats).

``indexing="xy"`` (Cartesian, as NumPy's default) swaps the first two
dimensions: the x coordinate runs along the columns.
"""

from __future__ import annotations

import warnings
from typing import Any

from slowtorch_lib._tensor import Tensor

__all__ = ["meshgrid"]


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Grids of coordinates: ``meshgrid(x, y, indexing="ij")``.

    Args:
        *tensors: 0-d or 1-d tensors of one dtype (or one list of them).
        indexing: ``"ij"`` or ``"xy"``. Without it, ``"ij"``, with
            PyTorch's warning that it will be required.

    Raises:
        TypeError: For an element that is not a tensor.
        RuntimeError: For no tensors, a tensor of 2 or more dimensions,
            mixed dtypes or an unknown ``indexing``.
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for position, tensor in enumerate(tensors):
        if not isinstance(tensor, Tensor):
            raise TypeError(
                f"expected Tensor as element {position} in argument 0, but got "
                f"{type(tensor).__name__}"
            )
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass "
            "the indexing argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    _check(tensors, indexing)
    if indexing == "xy" and len(tensors) >= 2:
        first, second, *rest = _grids([tensors[1], tensors[0], *tensors[2:]])
        return (second, first, *rest)
    return _grids(list(tensors))


def _check(tensors: tuple[Tensor, ...], indexing: str) -> None:
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            'torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
            f"{indexing}"
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for tensor in tensors:
        if tensor.dim() > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                f"got a {tensor.dim()}-d tensor"
            )
        if tensor.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")


def _grids(tensors: list[Tensor]) -> tuple[Tensor, ...]:
    """The ``"ij"`` grids: tensor ``i`` viewed along dim ``i``, then expanded."""
    shape = [t.numel() for t in tensors]
    grids = []
    for i, tensor in enumerate(tensors):
        along = [1] * len(tensors)
        along[i] = -1
        grids.append(tensor.view(along).expand(shape))
    return tuple(grids)
