"""The kernels applied to tensors: the bridge from ``Tensor`` to the loops.

:mod:`slowtorch_lib._kernels` works on values, shapes and strides and never
sees a tensor. The ops work on tensors. The few functions here connect the
two: each one takes tensors apart into what a kernel reads, runs the kernel
and wraps its values in a new contiguous tensor. No graph is recorded; the
ops call these inside their ``Function.forward``.

The loops here are those of the ten dtypes the chapters teach. A dtype
family beyond them (complex numbers, the 8-bit floats, uint16 to uint64)
brings its own loop rules from its module in :mod:`slowtorch_lib._fidelity`
and registers them in :data:`FAMILIES`; each function here asks that table
once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import repeat
from typing import Any, Protocol

from slowtorch_lib import _kernels
from slowtorch_lib._dtype import dtype
from slowtorch_lib._kernels import cast_scalar, cast_values, map_values
from slowtorch_lib._strides import broadcast_shapes, numel
from slowtorch_lib._tensor import Tensor, TensorOrScalar, from_values

__all__ = [
    "binary",
    "broadcast_map",
    "FAMILIES",
    "Family",
    "check_loop",
    "check_real",
    "contiguous_copy",
    "expanded_values",
    "not_implemented",
    "reduction_groups",
    "unary",
]

Loop = Callable[..., Any]


class Family(Protocol):
    """The loop rules of a family of dtypes the chapters do not teach."""

    def unary(self, function: Loop, tensor: Tensor, d: dtype) -> Tensor:
        """:func:`unary` for an input or a result of the family."""

    def binary_loop(
        self,
        function: Loop,
        careful: Loop | None,
        d: dtype,
        a: TensorOrScalar,
        b: TensorOrScalar,
        shape: tuple[int, ...],
    ) -> tuple[Loop, Loop | None]:
        """The loop (and its careful version) :func:`binary` runs for ``d``."""

    def map_loop(
        self, function: Loop, careful: Loop | None, d: dtype
    ) -> tuple[Loop, Loop | None]:
        """The loop (and its careful version) :func:`broadcast_map` runs."""

    def check_loop(
        self, kernel: str, d: dtype, kinds: Sequence[str], elements: int
    ) -> None:
        """Raises PyTorch's error if it has no loop ``kernel`` for ``d``."""

    def refuse(self, name: str, d: dtype) -> None:
        """Raises PyTorch's refusal of operation ``name`` for ``d``, if any."""


#: The loop rules of each dtype beyond the ten, registered by its family's
#: module in :mod:`slowtorch_lib._fidelity` when the package is imported.
FAMILIES: dict[dtype, Family] = {}


def not_implemented(kernel: str, d: dtype) -> NotImplementedError:
    """PyTorch's error for a dtype that an operation has no loop for."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{d.c_name}'")


def check_loop(
    kernel: str, d: dtype, kinds: Sequence[str] = (), elements: int = 1
) -> None:
    """Raises PyTorch's error for ``kernel`` unless ``d`` has it.

    Every dtype the chapters teach has every loop. Of the others, a few
    lack some: their family says which (``kinds`` names the kinds of the
    types with few kernels that have this one: ``"unsigned"``,
    ``"float8"``, ``"e8m0"``). Many operations look for their loop only
    when there are ``elements`` to compute: the callers pass 0 for an
    empty input.
    """
    family = FAMILIES.get(d)
    if family is not None:
        family.check_loop(kernel, d, kinds, elements)


def check_real(name: str, d: dtype) -> None:
    """Raises PyTorch's refusal of operation ``name`` for ``d`` where it
    refuses it before it looks for a loop (``floor`` of a complex tensor)."""
    family = FAMILIES.get(d)
    if family is not None:
        family.refuse(name, d)


def expanded_values(tensor: Tensor, shape: tuple[int, ...]) -> list[Any]:
    """The elements of ``tensor`` broadcast to ``shape``, in row-major order.

    Two shortcuts: a tensor whose storage is one cell (a scalar, or the
    gradient of a sum expanded back) is that value repeated, and a tensor
    already of the shape is read as it is.
    """
    data = tensor._storage.data
    if len(data) == 1:
        return [data[0]] * numel(shape)
    if tensor._shape == shape:
        return tensor._values()
    return _kernels.broadcast_values(
        data, tensor._shape, tensor._stride, tensor._offset, shape
    )


def unary(
    function: Callable[[Any], Any],
    tensor: Tensor,
    out_dtype: dtype | None = None,
) -> Tensor:
    """Applies ``function`` to every element: ``[f(x) for x in tensor]``.

    Args:
        function: A scalar function, such as ``math.exp``.
        tensor: The input.
        out_dtype: The result's dtype; the input's by default.
    """
    d = out_dtype or tensor.dtype
    family = FAMILIES.get(tensor.dtype) or FAMILIES.get(d)
    if family is not None:
        return family.unary(function, tensor, d)
    values = tensor._values()
    if d.is_floating_point:
        values = cast_values(values, tensor.dtype, d)
    return from_values(map_values(function, values), tensor._shape, d)


def broadcast_map(
    function: Callable[..., Any],
    operands: Sequence[TensorOrScalar],
    compute_dtype: dtype,
    out_dtype: dtype | None = None,
    careful: Callable[..., Any] | None = None,
) -> Tensor:
    """Applies ``function`` to matching elements of ``operands``, broadcasting.

    Any operand may be a Python number. Tensors are broadcast to a common
    shape; every value is first converted to ``compute_dtype`` (so a
    float32 computation sees ``0.1`` as the float32 nearest to 0.1, as in
    PyTorch).

    Args:
        function: A scalar function of ``len(operands)`` arguments, such as
            ``operator.add``.
        operands: Tensors and Python numbers.
        compute_dtype: The promoted dtype the computation happens in.
        out_dtype: The result's dtype (``bool`` for comparisons); defaults to
            ``compute_dtype``.
        careful: A slower IEEE-safe version of ``function``, used if the fast
            loop raises (for example ``ieee_div`` for ``operator.truediv``).
    """
    shape = broadcast_shapes(*(t._shape for t in operands if isinstance(t, Tensor)))
    family = FAMILIES.get(compute_dtype)
    if family is not None:
        function, careful = family.map_loop(function, careful, compute_dtype)
    columns = [_column(operand, shape, compute_dtype) for operand in operands]
    result = map_values(function, *columns, careful=careful)
    return from_values(result, shape, out_dtype or compute_dtype)


def binary(
    function: Callable[[Any, Any], Any],
    a: TensorOrScalar,
    b: TensorOrScalar,
    compute_dtype: dtype,
    out_dtype: dtype | None = None,
    careful: Callable[[Any, Any], Any] | None = None,
) -> Tensor:
    """:func:`broadcast_map` of two operands, the case almost every op is.

    Written out for speed (this runs once per operation): the shapes are
    compared before they are broadcast, and ``x * x`` reads the elements of
    ``x`` once. Two Python numbers give a 0-d result, as ``torch.add(2, 3)``.
    """
    d = compute_dtype
    if isinstance(a, Tensor):
        shape = a._shape
        if isinstance(b, Tensor) and b._shape != shape:
            shape = broadcast_shapes(shape, b._shape)
    else:
        shape = b._shape if isinstance(b, Tensor) else ()
    family = FAMILIES.get(d)
    if family is not None:
        function, careful = family.binary_loop(function, careful, d, a, b, shape)
    if isinstance(a, Tensor):
        left: Any = cast_values(expanded_values(a, shape), a.dtype, d)
    elif isinstance(b, Tensor):
        left = repeat(cast_scalar(a, d))
    else:  # two numbers: one element
        left = [cast_scalar(a, d)]
    if b is a:
        right: Any = left
    elif isinstance(b, Tensor):
        right = cast_values(expanded_values(b, shape), b.dtype, d)
    else:
        right = repeat(cast_scalar(b, d))
    result = map_values(function, left, right, careful=careful)
    return from_values(result, shape, out_dtype or d)


def _column(operand: TensorOrScalar, shape: tuple[int, ...], d: dtype) -> Any:
    """One operand's values, broadcast to ``shape`` and converted to ``d``.

    A Python number is the same value, repeated without end.
    """
    if isinstance(operand, Tensor):
        return cast_values(expanded_values(operand, shape), operand.dtype, d)
    return repeat(cast_scalar(operand, d))


def contiguous_copy(tensor: Tensor) -> Tensor:
    """A new row-major tensor with the same values (no graph recorded)."""
    if tensor.is_contiguous():
        run = _kernels.contiguous_run(
            tensor._storage.data, tensor._offset, numel(tensor._shape)
        )
        return from_values(run, tensor._shape, tensor.dtype)
    return from_values(tensor._values(), tensor._shape, tensor.dtype)


def reduction_groups(tensor: Tensor, dims: tuple[int, ...]) -> list[Sequence[Any]]:
    """The elements of ``tensor`` grouped for a reduction over ``dims``.

    See :func:`slowtorch_lib._kernels.reduction_groups`.
    """
    strides = None if tensor.is_contiguous() else tensor._stride
    return _kernels.reduction_groups(
        tensor._storage.data, tensor._shape, dims, strides, tensor._offset
    )
