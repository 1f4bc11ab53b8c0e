r"""Checking a backward pass against finite differences.

A function ``f`` from inputs to outputs has a *Jacobian* for each pair
(output, input): the matrix of partial derivatives

    J[j][k] = d out[j] / d in[k]

with one row per output element and one column per input element. There
are two independent ways to get it:

* Analytically, from the backward pass. ``backward`` computes ``v @ J``
  for a vector ``v`` (the gradient of the output). With ``v`` the one-hot
  vector of output element ``j``, it gives row ``j`` of ``J``. So one
  backward pass per output element gives the whole matrix.
* Numerically, by nudging each input element by plus and minus ``eps`` and
  watching the outputs move (central differences)::

      J[j][k] ~ (f(x + eps * e_k)[j] - f(x - eps * e_k)[j]) / (2 * eps)

  The error of this estimate shrinks like ``eps ** 2``, but rounding errors
  grow like ``1 / eps``, which is why the check is done in float64 (about
  16 significant digits) with ``eps = 1e-6``.

If backward is right, the two agree: for every element,
``|J_analytical - J_numerical| <= atol + rtol * |J_numerical|``.

:func:`gradgradcheck` applies the same test to the backward pass itself,
which checks second derivatives (backward of backward, ``create_graph=True``).
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._strides import numel, position_list
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.engine import grad

__all__ = [
    "GradcheckError",
    "analytical_jacobian",
    "gradcheck",
    "gradgradcheck",
    "numerical_jacobian",
]

Matrix = list[list[float]]
Inputs = Tensor | Sequence[Any]


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when backward disagrees with finite differences."""


def _as_tuple(values: Any) -> tuple[Any, ...]:
    return (
        values
        if isinstance(values, tuple)
        else (tuple(values) if isinstance(values, list) else (values,))
    )


def _differentiable_inputs(inputs: tuple[Any, ...]) -> list[int]:
    """Positions of the inputs that are tensors requiring grad."""
    return [
        i for i, a in enumerate(inputs) if isinstance(a, Tensor) and a.requires_grad
    ]


def _float_outputs(outputs: tuple[Any, ...]) -> list[Tensor]:
    """The outputs that can have a gradient: floating-point tensors."""
    return [o for o in outputs if isinstance(o, Tensor) and o.dtype.differentiable]


def _output_values(fn: Callable[..., Any], inputs: tuple[Any, ...]) -> list[list[Any]]:
    """Calls ``fn`` and returns the elements of each floating-point output."""
    return [o._values() for o in _float_outputs(_as_tuple(fn(*inputs)))]


def numerical_jacobian(
    fn: Callable[..., Any], inputs: Inputs, eps: float = 1e-6
) -> list[list[Matrix]]:
    r"""Estimates the Jacobians of ``fn`` by central finite differences.

    For each element ``k`` of each input that requires grad, the element
    is set to ``x[k] + eps``, then ``x[k] - eps``, directly in the storage
    (no version bump, no graph), and column ``k`` of the Jacobian is
    ``(f(x + eps * e_k) - f(x - eps * e_k)) / (2 * eps)``.
    The element is put back afterwards.

    Returns:
        ``result[o][i]``: the Jacobian of output ``o`` with respect to the
        ``i``-th input that requires grad, as a list of rows (one per output
        element), each a list of floats (one per input element).
    """
    args = _as_tuple(inputs)
    out_sizes = [len(v) for v in _output_values(fn, args)]
    result = [[] for _ in out_sizes]  # type: list[list[Matrix]]
    for position in _differentiable_inputs(args):
        tensor: Tensor = args[position]
        data = tensor._storage.data
        cells = position_list(tensor._shape, tensor._stride, tensor._offset)
        columns: list[list[list[float]]] = [[] for _ in out_sizes]
        for cell in cells:
            original = data[cell]
            data[cell] = original + eps
            plus = _output_values(fn, args)
            data[cell] = original - eps
            minus = _output_values(fn, args)
            data[cell] = original
            for o, (high, low) in enumerate(zip(plus, minus)):
                columns[o].append([(h - m) / (2 * eps) for h, m in zip(high, low)])
        for o, size in enumerate(out_sizes):
            # columns[o][k][j] is d out_j / d in_k; the Jacobian is indexed [j][k].
            matrix = [[column[j] for column in columns[o]] for j in range(size)]
            result[o].append(matrix)
    return result


def analytical_jacobian(fn: Callable[..., Any], inputs: Inputs) -> list[list[Matrix]]:
    r"""The Jacobians of ``fn`` as the backward pass computes them.

    Row ``j`` of the Jacobian of an output is the gradient that backward
    gives when the output's gradient is the one-hot tensor ``e_j``
    (1 at element ``j``, 0 elsewhere): ``e_j @ J``. So there is
    one backward pass per output element, each with ``retain_graph=True``.

    Returns:
        The same layout as :func:`numerical_jacobian`.
    """
    args = _as_tuple(inputs)
    wrt = [args[i] for i in _differentiable_inputs(args)]
    outputs = _float_outputs(_as_tuple(fn(*args)))
    result: list[list[Matrix]] = []
    for output in outputs:
        size = output.numel()
        rows: list[list[list[float]]] = [[] for _ in wrt]
        for j in range(size):
            if output.requires_grad:
                one_hot = [0.0] * size
                one_hot[j] = 1.0
                seed = from_values(one_hot, output._shape, output.dtype)
                grads = grad(output, wrt, seed, retain_graph=True, allow_unused=True)
            else:
                grads = tuple(None for _ in wrt)  # the output does not depend on them
            for i, (tensor, g) in enumerate(zip(wrt, grads)):
                rows[i].append([0.0] * tensor.numel() if g is None else g._values())
        result.append(rows)
    return result


def _close(analytical: float, numerical: float, atol: float, rtol: float) -> bool:
    return abs(analytical - numerical) <= atol + rtol * abs(numerical)


def _format_matrix(matrix: Matrix) -> str:
    return "\n".join("  [" + ", ".join(f"{v:.6g}" for v in row) + "]" for row in matrix)


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The multi-index of element number ``flat`` in row-major order."""
    index = []
    for size in reversed(shape):
        index.append(flat % size if size else 0)
        flat = flat // size if size else 0
    return tuple(reversed(index))


def _mismatch_message(
    o: int,
    i: int,
    j: int,
    k: int,
    out_shape: tuple[int, ...],
    input: Tensor,
    analytical: Matrix,
    numerical: Matrix,
    atol: float,
    rtol: float,
) -> str:
    a, n = analytical[j][k], numerical[j][k]
    lines = [
        f"Jacobian mismatch for output {o} with respect to input {i},",
        (
            f"at output element {_unravel(j, out_shape)} and input element "
            f"{_unravel(k, input._shape)}:"
        ),
        f"  analytical (backward):          {a!r}",
        f"  numerical (finite differences): {n!r}",
        (
            f"  difference {abs(a - n):.3g} > atol + rtol * |numerical| = "
            f"{atol + rtol * abs(n):.3g}"
        ),
    ]
    if len(analytical) * (len(analytical[0]) if analytical else 0) <= 64:
        lines += [
            "numerical:",
            _format_matrix(numerical),
            "analytical:",
            _format_matrix(analytical),
        ]
    return "\n".join(lines)


def gradcheck(
    func: Callable[..., Any],
    inputs: Inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Checks the backward pass of ``func`` against finite differences.

    Args:
        func: Takes the ``inputs`` and returns a tensor or a tuple of tensors.
        inputs: A tensor or a tuple of arguments. The tensors that require
            grad are checked; they should be float64.
        eps: The step of the finite differences.
        atol: Absolute tolerance.
        rtol: Relative tolerance.
        raise_exception: Raise :class:`GradcheckError` on a mismatch (True)
            or return False (False).

    Returns:
        True if every analytical derivative matches the numerical one.

    Raises:
        GradcheckError: On the first element that differs (if
            ``raise_exception``), naming the output, input and elements.
        ValueError: If no input requires grad.
    """
    args = _as_tuple(inputs)
    positions = _differentiable_inputs(args)
    if not positions:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of the them have requires_grad=True."
        )
    for number, position in enumerate(positions):
        if args[position].dtype is not dtypes.float64:
            warnings.warn(
                f"Input #{number} requires gradient and is not a double precision "
                "floating point. The finite differences are too imprecise in "
                "float32: pass float64 inputs (x.double()).",
                UserWarning,
                stacklevel=2,
            )
    numerical = numerical_jacobian(func, args, eps)
    analytical = analytical_jacobian(func, args)
    out_shapes = [o._shape for o in _float_outputs(_as_tuple(func(*args)))]
    for o, (per_input_a, per_input_n) in enumerate(zip(analytical, numerical)):
        for i, (a_matrix, n_matrix) in enumerate(zip(per_input_a, per_input_n)):
            for j, (a_row, n_row) in enumerate(zip(a_matrix, n_matrix)):
                for k, (a, n) in enumerate(zip(a_row, n_row)):
                    if _close(a, n, atol, rtol):
                        continue
                    if not raise_exception:
                        return False
                    raise GradcheckError(
                        _mismatch_message(
                            o,
                            i,
                            j,
                            k,
                            out_shapes[o],
                            args[positions[i]],
                            a_matrix,
                            n_matrix,
                            atol,
                            rtol,
                        )
                    )
    return True


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Inputs,
    grad_outputs: Sequence[Tensor] | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    r"""Checks second derivatives: :func:`gradcheck` applied to the backward pass.

    The backward pass of ``func`` is itself a function of the inputs and of
    the output gradients ``v``: ``g(x, v) = v @ (df / dx)``. It is computed with
    ``create_graph=True``, so it has a backward of its own, and
    :func:`gradcheck` compares that with finite differences of ``g``.

    Args:
        func, inputs, eps, atol, rtol, raise_exception: As :func:`gradcheck`.
        grad_outputs: The gradients ``v`` of the outputs. By default,
            fixed pseudo-random float64 tensors (the same on every run).
    """
    args = _as_tuple(inputs)
    positions = _differentiable_inputs(args)
    outputs = _float_outputs(_as_tuple(func(*args)))
    if grad_outputs is None:
        rng = random.Random(0)
        grad_outputs = [
            from_values(
                [rng.uniform(-1.0, 1.0) for _ in range(numel(o._shape))],
                o._shape,
                dtypes.float64,
            ).requires_grad_()
            for o in outputs
        ]
    count = len(args)

    def backward_pass(*all_args: Any) -> tuple[Tensor, ...]:
        own_args, seeds = all_args[:count], all_args[count:]
        pairs = [
            (out, seed)
            for out, seed in zip(_float_outputs(_as_tuple(func(*own_args))), seeds)
            if out.requires_grad
        ]
        wrt = [own_args[p] for p in positions]
        grads = grad(
            [out for out, _ in pairs],
            wrt,
            [seed for _, seed in pairs],
            create_graph=True,
            allow_unused=True,
        )
        return tuple(
            from_values([0.0] * t.numel(), t._shape, t.dtype) if g is None else g
            for t, g in zip(wrt, grads)
        )

    return gradcheck(
        backward_pass,
        args + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
