"""``range``: the deprecated inclusive ``arange``.

``torch.range(1, 4)`` is ``[1., 2., 3., 4.]``: unlike Python's ``range``
and ``torch.arange`` it includes ``end``, and it makes floats by default.
PyTorch keeps it with a warning; use ``arange(start, end + step, step)``.
"""

from __future__ import annotations

import builtins
import math
import warnings
from typing import Any

from slowtorch_lib._creation import tensor
from slowtorch_lib._dtype import dtype, get_default_dtype
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.ops.common import write_out

__all__ = ["range"]

_MISSING: Any = object()


def range(
    start: Any = _MISSING,
    end: Any = _MISSING,
    step: Any = 1,
    *,
    out: Tensor | None = None,
    dtype: dtype | None = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``start, start + step, ...`` up to and including ``end`` (deprecated).

    Raises:
        TypeError: Without ``start`` and ``end``.
        RuntimeError: For a zero ``step`` or one pointing away from ``end``.
    """
    for name, value in (("start", start), ("end", end)):
        if value is _MISSING:
            raise TypeError(
                f'range() missing 1 required positional arguments: "{name}"'
            )
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because "
        "its behavior is inconsistent with Python's range builtin. Instead, use "
        "torch.arange, which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = math.floor((end - start) / step) + 1
    values = [start + i * step for i in builtins.range(count)]
    result = tensor(values, dtype=dtype or get_default_dtype(), device=device)
    if out is not None:
        return write_out("range", result, out)
    return result.requires_grad_(requires_grad)
