"""Autocast: matrix products in a 16-bit float type inside ``torch.autocast``.

Inside ``with torch.autocast("cpu"):`` PyTorch runs a short list of
operations, those that gain most from it (matrix products, linear layers,
convolutions, attention), in *lower precision*: bfloat16 unless another
dtype is asked for. Each floating input of such an operation (float64
excepted) is first converted, with an ordinary recorded cast
(``ToCopyBackward0``), so the backward pass converts the gradient back and
a float32 leaf receives a float32 gradient. Every other operation runs as
usual, in the dtype of its inputs.

This module holds the switch (per device, as PyTorch keeps it) and the
decorators the listed operations wear: :func:`lower_precision`, and
:func:`full_precision` for the few (the losses, ``prod``) that PyTorch
runs in float32 under autocast whatever their inputs. The RNN and LSTM
layers, which PyTorch casts as a whole, use :func:`autocast_lower` (see
``nn/modules/rnn.py``).

The cast of a leaf that requires grad (a parameter) is made once per
``autocast`` region and reused, as PyTorch does: a weight used at every
step of a loop is converted once, and its gradient flows through one
``ToCopyBackward0``.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.ops.copying import to_dtype

__all__ = [
    "autocast_decrement_nesting",
    "autocast_increment_nesting",
    "autocast_lower",
    "clear_autocast_cache",
    "get_autocast_cpu_dtype",
    "get_autocast_dtype",
    "is_autocast_cpu_enabled",
    "is_autocast_cache_enabled",
    "is_autocast_enabled",
    "full_precision",
    "lower_precision",
    "set_autocast_cache_enabled",
    "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class AutocastState:
    """What ``torch.autocast`` switched on: per device, whether and in which
    dtype; how many regions are open; the casts of leaves made so far."""

    enabled: dict[str, bool] = field(default_factory=dict)
    dtype_of: dict[str, dtypes.dtype] = field(
        default_factory=lambda: {"cpu": dtypes.bfloat16, "cuda": dtypes.float16}
    )
    nesting: int = 0
    cache_enabled: bool = True
    cache: dict[int, tuple[Tensor, Tensor]] = field(default_factory=dict)
    busy: bool = False  # inside a listed operation: its own steps do not cast


AUTOCAST = AutocastState()


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    """Whether autocast is on for ``device_type`` (CUDA if not given)."""
    return AUTOCAST.enabled.get(device_type, False)


def set_autocast_enabled(device_type: str, enabled: bool) -> None:
    """Switches autocast on or off for ``device_type``."""
    AUTOCAST.enabled[device_type] = bool(enabled)


def get_autocast_dtype(device_type: str) -> dtypes.dtype:
    """The lower-precision dtype of ``device_type`` (bfloat16 for the CPU)."""
    return AUTOCAST.dtype_of.get(device_type, dtypes.float16)


def set_autocast_dtype(device_type: str, dtype: dtypes.dtype) -> None:
    """Sets the lower-precision dtype of ``device_type``."""
    AUTOCAST.dtype_of[device_type] = dtype


def autocast_increment_nesting() -> int:
    """One more ``autocast`` region open; returns how many are."""
    AUTOCAST.nesting += 1
    return AUTOCAST.nesting


def autocast_decrement_nesting() -> int:
    """One ``autocast`` region closed; returns how many remain open."""
    AUTOCAST.nesting -= 1
    return AUTOCAST.nesting


def is_autocast_cache_enabled() -> bool:
    """Whether the casts of leaves are kept for reuse within a region."""
    return AUTOCAST.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Keeps (or stops keeping) the casts of leaves within a region."""
    AUTOCAST.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    """Forgets the casts of leaves (done when the outermost region ends)."""
    AUTOCAST.cache.clear()


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"torch.{old}() is deprecated. Please use torch.{new} instead.",
        DeprecationWarning,
        stacklevel=3,
    )


def is_autocast_cpu_enabled() -> bool:
    """Deprecated: ``is_autocast_enabled("cpu")``."""
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Deprecated: ``set_autocast_enabled("cpu", enabled)``."""
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype() -> dtypes.dtype:
    """Deprecated: ``get_autocast_dtype("cpu")``."""
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype: dtypes.dtype) -> None:
    """Deprecated: ``set_autocast_dtype("cpu", dtype)``."""
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def _cast(tensor: Any, dtype: dtypes.dtype) -> Any:
    """``tensor`` in ``dtype`` if it is a floating tensor other than float64
    (the one floating dtype autocast leaves alone); other arguments as they
    are. The cast of a float32 leaf that requires grad (and is not a view)
    to the lower precision is made once per region and reused."""
    if not isinstance(tensor, Tensor) or not tensor.dtype.is_floating_point:
        return tensor
    if tensor.dtype == dtypes.float64:
        return tensor
    reuse = (
        dtype == AUTOCAST.dtype_of["cpu"]
        and tensor.is_leaf
        and tensor.requires_grad
        and tensor._base is None
        and AUTOCAST.cache_enabled
    )
    if reuse and id(tensor) in AUTOCAST.cache:
        return AUTOCAST.cache[id(tensor)][1]
    if tensor.dtype == dtype:
        return tensor
    cast = to_dtype(tensor, dtype)
    if reuse and tensor.dtype == dtypes.float32:
        AUTOCAST.cache[id(tensor)] = (tensor, cast)  # holding tensor keeps the id
    return cast


def autocast_lower(tensor: Any) -> Any:
    """``tensor`` as an operation in the lower precision receives it: cast
    under CPU autocast, unchanged outside it (or if not a tensor)."""
    if AUTOCAST.busy or not AUTOCAST.enabled.get("cpu"):
        return tensor
    return _cast(tensor, AUTOCAST.dtype_of["cpu"])


def _autocasting(function: F, lower: bool) -> F:
    """``function``, its tensor arguments cast first under CPU autocast: to
    the lower precision if ``lower``, else to float32. The operations it
    calls do not cast again; with ``out=`` nothing is cast, as in PyTorch."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        state = AUTOCAST
        if state.busy or not state.enabled.get("cpu") or kwargs.get("out") is not None:
            return function(*args, **kwargs)
        dtype = state.dtype_of["cpu"] if lower else dtypes.float32
        args = tuple(_cast(arg, dtype) for arg in args)
        kwargs = {name: _cast(arg, dtype) for name, arg in kwargs.items()}
        state.busy = True
        try:
            return function(*args, **kwargs)
        finally:
            state.busy = False

    return wrapper  # type: ignore[return-value]


def lower_precision(function: F) -> F:
    """Marks an operation PyTorch runs in the lower precision under CPU
    autocast (matrix products, ``linear``, convolutions, attention)."""
    return _autocasting(function, lower=True)


def full_precision(function: F) -> F:
    """Marks an operation PyTorch runs in float32 under CPU autocast, even
    given bfloat16 inputs (the losses, ``prod``)."""
    return _autocasting(function, lower=False)
