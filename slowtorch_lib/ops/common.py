"""What the ops share: type promotion, checks and errors.

``result_type`` is PyTorch's type promotion for operands of an operation
(tensors and Python numbers). The checks and errors here are the ones
several kinds of op raise with the same words, and ``NoDerivative`` is the
base of the ops PyTorch does not differentiate.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, overload

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import checked_fill
from slowtorch_lib._dtype import dtype
from slowtorch_lib._storage import Storage
from slowtorch_lib._strides import broadcast_shapes, contiguous_strides, numel
from slowtorch_lib._tensor import Tensor, TensorOrScalar, from_values, invalid_arguments
from slowtorch_lib._tensor_kernels import not_implemented
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.autograd.grad_mode import GRAD_MODE, no_grad
from slowtorch_lib.autograd.history import check_inplace, check_no_partial_overlap

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "result_type",
]


def result_type(*operands: TensorOrScalar) -> dtype:
    """The dtype of an operation on these operands, by PyTorch's promotion rules.

    >>> result_type(tensor([1, 2]), 2.5)
    torch.float32
    """
    dimensioned: list[dtype] = []
    zero_dim: list[dtype] = []
    scalars: list[Any] = []
    for operand in operands:
        if isinstance(operand, Tensor):
            (dimensioned if operand._shape else zero_dim).append(operand.dtype)
        else:
            scalars.append(operand)
    return dtypes.result_dtype(dimensioned, zero_dim, scalars)


def float_type(d: dtype) -> dtype:
    """``d`` if it is floating point or complex, else the default float dtype."""
    return d if d.differentiable else dtypes.get_default_dtype()


def is_bool(operand: TensorOrScalar) -> bool:
    if isinstance(operand, Tensor):
        return operand.dtype is dtypes.bool_
    return isinstance(operand, bool)


def check_alpha(alpha: Any, d: dtype) -> None:
    """``alpha`` must not be a float for an integer result, as in PyTorch."""
    if not d.differentiable and isinstance(alpha, float):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating "
            "point number."
        )
    if isinstance(alpha, bool) and d is not dtypes.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    checked_fill(alpha, d)  # alpha must fit the result's dtype


def no_loop(kernel: str, d: dtype, *operands: TensorOrScalar) -> NotImplementedError:
    """:func:`not_implemented`, once the operands are known to broadcast.

    PyTorch broadcasts before it looks for a loop, so a shape mismatch is
    the error a user sees first.
    """
    broadcast_shapes(*[t._shape for t in operands if isinstance(t, Tensor)])
    return not_implemented(kernel, d)


def check_inplace_result(
    target: Tensor, other: TensorOrScalar, d: dtype | None = None
) -> None:
    """Checks, before computing, that ``target op= other`` can be stored.

    PyTorch checks the result's shape and dtype before it looks for a loop,
    so an integer ``t &= 0.5`` is a casting error, not a missing kernel.
    Autograd's checks (:func:`check_inplace`) and the one for operands that
    share cells with ``target`` come before both. ``d`` is
    the result's dtype where it is not the two operands' promoted one.

    Raises:
        RuntimeError: If the result would not fit ``target``, or autograd
            refuses the change.
    """
    check_inplace(target, False, isinstance(other, Tensor) and other.requires_grad)
    check_no_partial_overlap(target, other)
    check_inplace_shape(target, other)
    d = d or result_type(target, other)
    if not dtypes.can_cast(d, target.dtype):
        raise RuntimeError(
            f"result type {d.c_name} can't be cast to the desired "
            f"output type {target.dtype.c_name}"
        )


def check_inplace_shape(target: Tensor, other: TensorOrScalar) -> None:
    """Refuses an ``other`` that would broadcast ``target`` to a larger shape."""
    if isinstance(other, Tensor):
        shape = broadcast_shapes(target._shape, other._shape)
        if shape != target._shape:
            raise RuntimeError(
                f"output with shape {list(target._shape)} doesn't match the "
                f"broadcast shape {list(shape)}"
            )


class NoDerivative(Function):
    """An operation PyTorch records but cannot differentiate.

    Its output requires grad, so that the graph stays honest, but calling
    backward through it raises, as in PyTorch (whose node is named
    ``NotImplemented``). ``aten_name`` names the operation in the message.
    """

    grad_fn_name = "torch::autograd::NotImplemented"
    aten_name = ""

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Any:
        name = ctx._function.aten_name  # type: ignore[attr-defined]
        raise RuntimeError(f"derivative for aten::{name} is not implemented")


def refuse_complex_grad(name: str, input: Tensor) -> None:
    """Refuses to record ``name`` on a complex input that requires grad.

    PyTorch has no derivative of the orderings (``amax``, ``amin``...) for
    complex numbers; it computes, then refuses to record the result.
    """
    if GRAD_MODE.enabled and input.requires_grad and input.dtype.is_complex:
        raise RuntimeError(
            f"{name} does not support automatic differentiation for outputs "
            "with complex dtype."
        )


def wrapped_number(value: TensorOrScalar | None) -> Tensor | None:
    """A Python number as a 0-d tensor of its own dtype (None stays None)."""
    if value is None or isinstance(value, Tensor):
        return value
    return from_values([value], (), dtypes.scalar_dtype(value))


def check_tensor(
    name: str, other: Any, position: int = 2, argument: str = "other"
) -> None:
    """Refuses an argument that must be a tensor, with PyTorch's message."""
    if not isinstance(other, Tensor):
        raise TypeError(
            f"{name}(): argument '{argument}' (position {position}) must be Tensor, "
            f"not {type(other).__name__}"
        )


def tensor_input(function: F) -> F:
    """Refuses a first argument that is not a tensor, as PyTorch's argument
    parser does: ``torch.exp(2.5)`` is a TypeError, not an error from inside
    the operation."""
    name = function.__name__

    @functools.wraps(function)
    def operation(input: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, not "
                f"{type(input).__name__}"
            )
        return function(input, *args, **kwargs)

    return operation  # type: ignore[return-value]


def check_some_tensor(name: str, *operands: Any) -> None:
    """Refuses an operation on Python numbers alone, which PyTorch has no
    form of (``torch.eq(2, 3)``; ``torch.add(2, 3)`` it has)."""
    if not any(isinstance(operand, Tensor) for operand in operands):
        raise invalid_arguments(name, operands, {})


# PyTorch's words when ``out`` is not of the result's dtype ({d}: the
# result's dtype, {out}: out's), for the operations that refuse it.
EXACT = "Expected out tensor to have dtype {d.cpp_type_name}, but got "
EXACT += "{out.cpp_type_name} instead"
SAME = "Found dtype {out.c_name} but expected {d.c_name}"

OutCheck = Callable[[tuple[Any, ...], dict[str, Any], Tensor], None]


@dataclass(frozen=True)
class OutRules:
    """What an operation says about its ``out=``, where it is defined:
    ``@accepts_out(dtype_refusal=SAME)``.

    Attributes:
        dtype_refusal: PyTorch's words for an ``out`` that is not of the
            result's dtype; empty if the result is cast into ``out``.
        sets_dtype: Whether the result is computed in ``out``'s dtype, as
            if ``dtype=out.dtype`` were given (sum, prod and the scans).
        needs_dim: For a reduction whose form without ``dim`` takes no
            ``out``, how PyTorch's refusal names its ``dim``.
        cast_first: Whether the operands' promoted dtype is checked against
            ``out`` before a loop is looked for.
        differentiable: False for an operation without a derivative that
            may write a float ``out``: its refusal of an ``out`` that
            requires grad names it as an ``aten::`` op.
        check_first: Any other check of ``out`` made before computing,
            given the call's arguments.
    """

    dtype_refusal: str = ""
    sets_dtype: bool = False
    needs_dim: str = ""
    cast_first: bool = False
    differentiable: bool = True
    check_first: OutCheck | None = None


@overload
def accepts_out(function: F, /) -> F: ...


@overload
def accepts_out(
    function: None = None,
    /,
    *,
    dtype_refusal: str = "",
    sets_dtype: bool = False,
    needs_dim: str = "",
    cast_first: bool = False,
    differentiable: bool = True,
    check_first: OutCheck | None = None,
) -> Callable[[F], F]: ...


def accepts_out(function: F | None = None, /, **rules: Any) -> Any:
    """Gives an operation PyTorch's ``out=`` keyword: ``add(a, b, out=c)``.

    The result is computed as usual, then written into ``out`` (see
    :func:`write_out`), and ``out`` is returned. Used bare (``@accepts_out``)
    or with the operation's rules (:class:`OutRules`):
    ``@accepts_out(dtype_refusal=SAME)``.
    """
    if function is None:
        return lambda function: _with_out(function, OutRules(**rules))
    return _with_out(function, OutRules())


def _with_out(function: F, rules: OutRules) -> F:
    """``function`` taking ``out=`` by ``rules``."""
    name = function.__name__

    @functools.wraps(function)
    def operation(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
        if out is None:
            return function(*args, **kwargs)
        _check_out_first(name, rules, args, kwargs, out)
        if rules.sets_dtype and kwargs.get("dtype") is None:
            kwargs["dtype"] = out.dtype
        return write_out(name, function(*args, **kwargs), out, rules)

    return operation  # type: ignore[return-value]


def _check_out_first(
    name: str,
    rules: OutRules,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    out: Tensor,
) -> None:
    """The checks of ``out`` that PyTorch makes before computing anything.

    Raises:
        TypeError: For ``sum(x, out=y)`` or ``prod(x, out=y)`` without a
            ``dim`` (that form of them takes no ``out``).
        RuntimeError: If ``out`` cannot hold a bitwise result's dtype, or
            fails the operation's own check.
    """
    if rules.needs_dim and len(args) < 2 and kwargs.get("dim") is None:
        if kwargs:  # read as the form with dim, which misses it
            raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got (Tensor, "
            "out=Tensor), but expected one of:\n"
            " * (Tensor input, *, torch.dtype dtype = None)\n"
            f" * (Tensor input, {rules.needs_dim}, bool keepdim = False, *, "
            "torch.dtype dtype = None, Tensor out = None)\n"
        )
    if rules.cast_first and len(args) == 2:
        d = result_type(*args)
        if not dtypes.can_cast(d, out.dtype):
            raise RuntimeError(
                f"result type {d.c_name} can't be cast to the desired "
                f"output type {out.dtype.c_name}"
            )
    if rules.check_first is not None:
        rules.check_first(args, kwargs, out)


def out_of_input_dtype(input: Any, out: Tensor) -> None:
    """Refuses an ``out`` that is not of tensor ``input``'s dtype."""
    if isinstance(input, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(SAME.format(d=input.dtype, out=out.dtype))


def _resize(out: Tensor, shape: tuple[int, ...]) -> None:
    """``out`` made row-major of ``shape``, as PyTorch's ``resize_``: in its
    own storage if that has room from its offset (so that a view's base
    sees what is written), else in new zeroed storage."""
    needed = numel(shape)
    if out._offset + needed > len(out._storage):
        out._storage = Storage([0] * needed, out.dtype)
        out._offset = 0
    out._shape, out._stride = shape, contiguous_strides(shape)


def write_out(
    name: str, result: Tensor, out: Tensor, rules: OutRules = OutRules()
) -> Tensor:
    """Writes ``result`` into ``out`` as PyTorch does for ``out=``.

    ``out`` of another shape is resized (with PyTorch's warning unless it
    was empty); ``out`` keeps its dtype.

    Raises:
        RuntimeError: If an input or ``out`` requires grad (no autograd
            through ``out=``), or the result's dtype cannot be cast to
            ``out``'s.
    """
    aten = "" if rules.differentiable else "aten::"
    if GRAD_MODE.enabled and (result.requires_grad or out.requires_grad):
        raise RuntimeError(
            f"{aten}{name}(): functions with out=... arguments don't support "
            "automatic differentiation, but one of the arguments requires grad."
        )
    if rules.dtype_refusal and out.dtype is not result.dtype:
        raise RuntimeError(rules.dtype_refusal.format(d=result.dtype, out=out.dtype))
    if not dtypes.can_cast(result.dtype, out.dtype):
        raise RuntimeError(
            f"result type {result.dtype.c_name} can't be cast to the desired "
            f"output type {out.dtype.c_name}"
        )
    if out._shape != result._shape:
        if out.numel():
            warnings.warn(
                "An output with one or more elements was resized since it had "
                f"shape {list(out._shape)}, which does not match the required "
                f"output shape {list(result._shape)}.",
                UserWarning,
                stacklevel=3,
            )
        out._check_inplace()
        _resize(out, result._shape)
    with no_grad():
        out.copy_(result)
    return out
