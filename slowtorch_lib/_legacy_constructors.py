"""The legacy constructors: ``torch.Tensor(...)``, ``torch.FloatTensor(...)``.

Before ``torch.tensor`` and ``torch.zeros``, tensors were made by calling a
class per dtype: ``torch.FloatTensor(2, 3)`` (sizes), ``torch.IntTensor([1,
2])`` (data). PyTorch keeps them, and ``isinstance(x, torch.FloatTensor)``
still asks a tensor's dtype; so does this engine, through
:func:`legacy_new` and the classes :func:`legacy_type` makes. Prefer the
functions of :mod:`slowtorch_lib._creation`, which say what they make.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import tensor, zeros
from slowtorch_lib._dtype import dtype
from slowtorch_lib._tensor import CPU, Size, Tensor, check_device, invalid_arguments

__all__ = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
]


def legacy_new(
    d: dtype | None, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Tensor:
    """What ``torch.Tensor(...)`` and ``torch.FloatTensor(...)`` make.

    Three forms, as in PyTorch: sizes (``Tensor(2, 3)`` or a ``Size``),
    data (``Tensor([1, 2])``), or nothing (an empty tensor). PyTorch leaves
    a tensor made from sizes uninitialised; here it is zeros. A tensor
    given as data is returned as it is if its dtype is ``d``. ``d`` is None
    for ``torch.Tensor``: the default dtype, and a tensor of any dtype.

    Raises:
        TypeError: For keywords other than ``device``, a lone number, or a
            tensor of another dtype.
    """
    given = dict(kwargs)
    check_device(kwargs.pop("device", None))
    if kwargs:
        raise invalid_arguments("new", args, given)
    if d is None and len(args) == 1 and isinstance(args[0], Tensor):
        return args[0]
    d = d or dtypes.get_default_dtype()
    if not args:  # the legacy constructors ignore the default device
        return tensor([], dtype=d, device=CPU)
    sizes = args[0] if len(args) == 1 and isinstance(args[0], Size) else args
    if all(isinstance(n, int) and not isinstance(n, bool) for n in sizes):
        return zeros(*sizes, dtype=d, device=CPU)
    if len(args) > 1 or isinstance(args[0], (int, float, bool)):
        raise TypeError(
            f"new(): data must be a sequence (got {type(args[0]).__name__})"
        )
    if isinstance(args[0], Tensor):
        if args[0].dtype is not d:
            raise TypeError(
                f"expected {d.cpp_type_name} (got {args[0].dtype.cpp_type_name})"
            )
        return args[0]
    return tensor(args[0], dtype=d, device=CPU)


class LegacyTensorType(type):
    """The type of ``torch.FloatTensor`` and its kin: one class per dtype.

    Calling it makes a tensor of its dtype (:func:`legacy_new`), and
    ``isinstance(x, torch.FloatTensor)`` asks whether ``x`` is a float32
    tensor, as in PyTorch.
    """

    dtype: dtype

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
        return legacy_new(cls.dtype, args, kwargs)

    def __instancecheck__(cls, value: Any) -> bool:
        return isinstance(value, Tensor) and value.dtype is cls.dtype

    def __repr__(cls) -> str:
        return f"<class '{cls.dtype.legacy_type_name}'>"


def legacy_type(d: dtype) -> LegacyTensorType:
    """The legacy class of dtype ``d``: ``torch.FloatTensor`` for float32."""
    name = d.legacy_type_name.removeprefix("torch.")
    return LegacyTensorType(name, (), {"dtype": d, "__module__": "torch"})


BFloat16Tensor = legacy_type(dtypes.bfloat16)
BoolTensor = legacy_type(dtypes.bool_)
ByteTensor = legacy_type(dtypes.uint8)
CharTensor = legacy_type(dtypes.int8)
DoubleTensor = legacy_type(dtypes.float64)
FloatTensor = legacy_type(dtypes.float32)
HalfTensor = legacy_type(dtypes.float16)
IntTensor = legacy_type(dtypes.int32)
LongTensor = legacy_type(dtypes.int64)
ShortTensor = legacy_type(dtypes.int16)
