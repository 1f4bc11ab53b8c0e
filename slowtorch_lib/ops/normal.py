"""``torch.normal``: normal random numbers whose mean and std may be tensors.

Four forms, as in PyTorch:

* ``normal(mean, std)`` with two tensors (they broadcast);
* ``normal(mean, std=1.0)`` with a tensor mean and a number;
* ``normal(mean_number, std)`` with a tensor std;
* ``normal(mean_number, std_number, size)``: a new tensor of ``size``.

Element ``i`` is ``mean[i] + std[i] * z[i]`` with ``z`` standard normal
numbers drawn as PyTorch draws them: with a tensor ``std``, ``z`` is
standard normal, multiplied by ``std`` then added to ``mean`` (each step
rounded to the dtype); with a number ``std``, ``z`` is drawn with that std
and ``mean`` added; with numbers only, the tensor is filled by
``normal_(mean, std)``. So the same seed gives PyTorch's numbers.

The result has a gradient of zeros with respect to ``mean`` and ``std``,
as PyTorch defines it (``NormalBackward1``, ``2`` and ``3``): sampling is
not differentiated through; write ``mean + std * randn_like(mean)`` for
that.
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import zeros_like
from slowtorch_lib._rng import (
    Generator,
    _check_float,
    _generator,
    _kind,
    normal_values,
)
from slowtorch_lib._sampling import rounded
from slowtorch_lib._strides import broadcast_shapes, numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import expanded_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.common import write_out

__all__ = ["normal"]


def _draw(
    means: list[float],
    stds: list[float] | float,
    d: dtypes.dtype,
    generator: Generator,
) -> list[float]:
    """``z * std + mean`` for each element, rounded to ``d`` at each step.

    A number ``std`` is given to the sampler (``normal_(0, std)``); a list
    multiplies standard normal numbers afterwards (``mul_(std)``).
    """
    kind = _kind(d)
    if isinstance(stds, float):
        z = rounded(normal_values(len(means), d, generator, 0.0, stds), kind)
    else:
        z = rounded(normal_values(len(means), d, generator), kind)
        z = rounded([n * s for n, s in zip(z, stds)], kind)
    return rounded([n + m for n, m in zip(z, means)], kind)


def _check_std(stds: list[float]) -> None:
    if any(s < 0 for s in stds):
        raise RuntimeError("normal expects all elements of std >= 0.0")


def _sample(mean: Tensor | float, std: Tensor | float, generator: Generator) -> Tensor:
    """The forward of the three tensor forms: means and stds broadcast."""
    shape = broadcast_shapes(*[t._shape for t in (mean, std) if isinstance(t, Tensor)])
    d = next(t.dtype for t in (mean, std) if isinstance(t, Tensor))
    _check_float(d, "normal_kernel_cpu")
    means = _values_of(mean, shape)
    stds: list[float] | float = float(std) if _is_number(std) else 0.0
    if isinstance(std, Tensor):
        std_values = _values_of(std, shape)
        _check_std(std_values)
        stds = std_values
    return from_values(_draw(means, stds, d, generator), shape, d)


def _values_of(value: Tensor | float, shape: tuple[int, ...]) -> list[float]:
    if isinstance(value, Tensor):
        return expanded_values(value, shape)
    return [float(value)] * numel(shape)


class Normal1(Function):
    """``normal(mean_tensor, std_number)``; gradient zero (``NormalBackward1``)."""

    grad_fn_name = "NormalBackward1"

    @staticmethod
    def forward(
        ctx: FunctionCtx, mean: Tensor, *, std: float, generator: Generator
    ) -> Tensor:
        return _sample(mean, std, generator)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return zeros_like(grad_output)


class Normal2(Function):
    """``normal(mean_number, std_tensor)``; gradient zero (``NormalBackward2``)."""

    grad_fn_name = "NormalBackward2"

    @staticmethod
    def forward(
        ctx: FunctionCtx, std: Tensor, *, mean: float, generator: Generator
    ) -> Tensor:
        return _sample(mean, std, generator)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return zeros_like(grad_output)


class Normal3(Function):
    """``normal(mean_tensor, std_tensor)``; gradients zero (``NormalBackward3``)."""

    grad_fn_name = "NormalBackward3"

    @staticmethod
    def forward(
        ctx: FunctionCtx, mean: Tensor, std: Tensor, *, generator: Generator
    ) -> Tensor:
        return _sample(mean, std, generator)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Tensor, Tensor]:
        return zeros_like(grad_output), zeros_like(grad_output)


def _bad_call(*args: Any) -> TypeError:
    got = ", ".join(
        type(a).__name__ if not isinstance(a, Tensor) else "Tensor" for a in args
    )
    return TypeError(
        f"normal() received an invalid combination of arguments - got ({got}), but "
        "expected one of:\n"
        " * (Tensor mean, Tensor std, *, torch.Generator generator = None, "
        "Tensor out = None)\n"
        " * (Tensor mean, float std = 1, *, torch.Generator generator = None, "
        "Tensor out = None)\n"
        " * (float mean, Tensor std, *, torch.Generator generator = None, "
        "Tensor out = None)\n"
        " * (float mean, float std, tuple of ints size, *, torch.Generator "
        "generator = None, Tensor out = None, torch.dtype dtype = None, "
        "torch.layout layout = None, torch.device device = None, bool pin_memory "
        "= False, bool requires_grad = False)\n"
    )


_NO_STD: Any = object()


def normal(
    mean: Any,
    std: Any = _NO_STD,
    size: Any = None,
    *,
    generator: Generator | None = None,
    out: Tensor | None = None,
    dtype: dtypes.dtype | None = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """Normal random numbers of mean ``mean`` and standard deviation ``std``.

    Raises:
        TypeError: For a combination of arguments PyTorch has no form for.
        RuntimeError: For a negative ``std``.
        NotImplementedError: For an integer mean or std tensor.
    """
    g = _generator(generator)
    if size is not None:
        result = _from_numbers(mean, std, size, g, dtype, requires_grad and out is None)
    elif isinstance(mean, Tensor) and isinstance(std, Tensor):
        result = Normal3.apply(mean, std, generator=g)
    elif isinstance(mean, Tensor) and (std is _NO_STD or _is_number(std)):
        std = 1.0 if std is _NO_STD else float(std)
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        result = Normal1.apply(mean, std=std, generator=g)
    elif _is_number(mean) and isinstance(std, Tensor):
        result = Normal2.apply(std, mean=float(mean), generator=g)
    else:
        raise _bad_call(mean, *(() if std is _NO_STD else (std,)))
    if out is not None:
        return write_out("normal", result, out)
    return result


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _from_numbers(
    mean: Any,
    std: Any,
    size: Any,
    generator: Generator,
    dtype: dtypes.dtype | None,
    requires_grad: bool,
) -> Tensor:
    """The fourth form: ``size`` numbers of one mean and std."""
    if not (_is_number(mean) and _is_number(std)) or isinstance(size, int):
        raise _bad_call(mean, std, size)
    shape = tuple(int(s) for s in size)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    if std != std:
        raise RuntimeError("normal expects std >= 0.0, but found std nan")
    d = dtype or dtypes.get_default_dtype()
    _check_float(d, "normal_kernel_cpu")
    count = numel(shape)
    values = normal_values(count, d, generator, float(mean), float(std))
    return from_values(values, shape, d).requires_grad_(requires_grad)
