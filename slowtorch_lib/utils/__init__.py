"""Utilities, as ``torch.utils``: for now, :mod:`slowtorch_lib.utils.data`."""

from slowtorch_lib.utils import data

__all__ = ["data"]
