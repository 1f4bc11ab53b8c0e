"""The kernels of ``interpolate``: which input elements each output reads.

Every mode of ``interpolate`` works one spatial dimension at a time. Along
a dimension of ``size`` input elements resized to ``out``, output index
``i`` sits at an input coordinate ``src``: ``i * size / out`` for the
nearest modes, ``(i + 0.5) * size / out - 0.5`` for the others (the centre
of output element ``i``, measured in input elements), or, with
``align_corners=True``, ``i * (size - 1) / (out - 1)``, which puts the
first and last elements of input and output on each other. When a scale
factor was given (and ``recompute_scale_factor`` was not), PyTorch uses
``1 / scale_factor`` instead of ``size / out``.

- ``nearest`` reads the element at ``floor(src)``; ``nearest-exact`` at
  ``floor((i + 0.5) * size / out)``, the element under the output's
  centre.
- ``linear`` mixes the two elements around ``src``, weighted by how near
  each is; ``bicubic`` the four around it, with the weights of Keys' cubic
  convolution (``A = -0.75``, as PyTorch), reading the edge element for
  the positions past either end.

A several-dimensional mode reads, for each output element, every
combination of its dimensions' elements, with the product of their
weights: bilinear reads four, trilinear eight, bicubic sixteen. Such a
fixed linear map (:class:`Resample`) has the transposed map as backward;
the nearest modes, which only copy, are gathers (:class:`Index`).
"""

from __future__ import annotations

import itertools
import math
from array import array

from slowtorch_lib._strides import numel
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.ops.gather_scatter import Index

__all__ = [
    "Resample",
    "cubic_sources",
    "linear_sources",
    "nearest_exact_sources",
    "nearest_sources",
    "separable_taps",
]

#: PyTorch's coefficient of cubic convolution.
CUBIC_A = -0.75

#: What one output index reads along one dimension: input indices, weights.
Stencil = tuple[list[int], list[float]]

#: One term of a resampling: for each output element of a plane, the input
#: position it reads and the weight it gives it.
Taps = list[tuple[list[int], list[float]]]


def float32(value: float) -> float:
    """``value`` rounded to float32, as PyTorch's index arithmetic is."""
    return array("f", [value])[0]


def _ratio(size: int, out: int, scale: float | None, single: bool) -> float:
    """Input elements per output element: ``1 / scale``, or ``size / out``."""
    rounded = float32 if single else float
    if scale is not None and scale > 0:
        return rounded(1.0 / scale)
    return rounded(rounded(size) / out)


def nearest_sources(
    size: int, out: int, scale: float | None, shortcuts: bool = True
) -> list[int]:
    """The input index each of ``out`` output indices reads (PyTorch's rule).

    The ratio is ``1 / scale`` if a scale factor was given, else
    ``size / out``; both are float32, as in PyTorch's kernel. PyTorch's
    2-d kernel and every backward (``shortcuts``) copy when
    ``out == size`` and take every index twice when ``out == 2 * size``,
    whatever the scale; its 1-d and 3-d forward kernels always use the
    ratio.

    >>> nearest_sources(3, 6, None), nearest_sources(4, 3, None)
    ([0, 0, 1, 1, 2, 2], [0, 1, 2])
    >>> nearest_sources(3, 6, 2.3), nearest_sources(3, 6, 2.3, shortcuts=False)
    ([0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 1, 2])
    """
    if shortcuts and out == size:
        return list(range(out))
    if shortcuts and out == 2 * size:
        return [i >> 1 for i in range(out)]
    ratio = _ratio(size, out, scale, single=True)
    return [min(math.floor(float32(i * ratio)), size - 1) for i in range(out)]


def nearest_exact_sources(size: int, out: int, scale: float | None) -> list[int]:
    """The input index under the centre of each output index (``nearest-exact``).

    >>> nearest_exact_sources(3, 6, 2.3), nearest_exact_sources(5, 2, None)
    ([0, 0, 1, 1, 1, 2], [1, 3])
    """
    ratio = _ratio(size, out, scale, single=True)
    return [min(math.floor(float32((i + 0.5) * ratio)), size - 1) for i in range(out)]


def _source_coordinate(
    i: int, ratio: float, align_corners: bool, single: bool
) -> float:
    """Where output index ``i`` sits on the input axis (may be negative)."""
    rounded = float32 if single else float
    if align_corners:
        return rounded(ratio * i)
    return rounded(rounded(ratio * (i + 0.5)) - 0.5)


def _axis_ratio(
    size: int, out: int, align_corners: bool, scale: float | None, single: bool
) -> float:
    """The ratio of the linear and cubic modes, by ``align_corners``."""
    if not align_corners:
        return _ratio(size, out, scale, single)
    rounded = float32 if single else float
    return rounded((size - 1) / (out - 1)) if out > 1 else 0.0


def linear_sources(
    size: int, out: int, align_corners: bool, scale: float | None, single: bool
) -> list[Stencil]:
    """For each output index: the two input indices around it and their
    weights, by PyTorch's rule (a copy when ``out == size``).

    ``single`` rounds the arithmetic to float32, as PyTorch does for
    float32 input.

    >>> linear_sources(2, 4, True, None, False)[1]
    ([0, 1], [0.6666666666666667, 0.3333333333333333])
    """
    if out == size:
        return [([i, i], [1.0, 0.0]) for i in range(out)]
    rounded = float32 if single else float
    ratio = _axis_ratio(size, out, align_corners, scale, single)
    sources = []
    for i in range(out):
        src = max(_source_coordinate(i, ratio, align_corners, single), 0.0)
        low = min(math.floor(src), size - 1)
        weight = min(max(rounded(src - low), 0.0), 1.0)
        high = low + (1 if low < size - 1 else 0)
        sources.append(([low, high], [rounded(1 - weight), weight]))
    return sources


def cubic_weights(t: float) -> list[float]:
    """Keys' cubic convolution weights of the four elements around a point
    ``t`` past the second of them (``0 <= t < 1``).

    >>> cubic_weights(0.0), cubic_weights(0.5)
    ([0.0, 1.0, 0.0, 0.0], [-0.09375, 0.59375, 0.59375, -0.09375])
    """
    a = CUBIC_A

    def near(x: float) -> float:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: float) -> float:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def cubic_sources(
    size: int, out: int, align_corners: bool, scale: float | None, single: bool
) -> list[Stencil]:
    """For each output index: the four input indices around it (clamped
    to the edges) and their cubic weights.

    >>> cubic_sources(3, 3, True, None, False)[0]
    ([0, 0, 1, 2], [0.0, 1.0, 0.0, 0.0])
    """
    rounded = float32 if single else float
    ratio = _axis_ratio(size, out, align_corners, scale, single)
    sources = []
    for i in range(out):
        src = _source_coordinate(i, ratio, align_corners, single)
        low = min(math.floor(src), size - 1)
        t = min(max(rounded(src - low), 0.0), 1.0)
        indices = [min(max(low + k, 0), size - 1) for k in (-1, 0, 1, 2)]
        sources.append((indices, [rounded(w) for w in cubic_weights(t)]))
    return sources


def separable_taps(per_dim: list[list[Stencil]], plane_in: tuple[int, ...]) -> Taps:
    """The taps of a resampling done by ``per_dim[d]`` along dimension ``d``.

    Each tap picks one stencil entry per dimension; output element
    ``(o_0, o_1, ...)`` reads the input element at those entries' indices,
    with the product of their weights.
    """
    strides = [numel(plane_in[d + 1 :]) for d in range(len(plane_in))]
    widths = [len(stencils[0][0]) for stencils in per_dim]
    taps: Taps = []
    for picks in itertools.product(*(range(w) for w in widths)):
        positions, weights = [], []
        for output in itertools.product(*per_dim):
            position, weight = 0, 1.0
            for (indices, dim_weights), pick, stride in zip(output, picks, strides):
                position += indices[pick] * stride
                weight *= dim_weights[pick]
            positions.append(position)
            weights.append(weight)
        taps.append((positions, weights))
    return taps


def plane_positions(per_dim: list[list[int]], plane_in: tuple[int, ...]) -> list[int]:
    """The row-major positions in a plane of the index combinations read."""
    strides = [numel(plane_in[d + 1 :]) for d in range(len(plane_in))]
    return [
        sum(i * s for i, s in zip(indices, strides))
        for indices in itertools.product(*per_dim)
    ]


class Resample(Function):
    """``out[o] = sum over taps of weight[o] * x[position[o]]``, per plane: a
    fixed linear map, whose backward is :class:`ResampleTranspose`.

    ``grad_taps`` are the taps of the backward's map when PyTorch's
    backward is not the transpose of its forward (bicubic of an unchanged
    size copies the gradient).
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        *,
        taps: Taps,
        shape: tuple[int, ...],
        grad_taps: Taps | None = None,
    ) -> Tensor:
        ctx.taps = grad_taps if grad_taps is not None else taps
        ctx.input_shape = x._shape
        values, size = x._values(), numel(x._shape[2:])
        plane = len(taps[0][0])
        out: list[float] = []
        for start in range(0, len(values), size or 1):
            sums = [0.0] * plane
            for positions, weights in taps:
                for o, (p, w) in enumerate(zip(positions, weights)):
                    sums[o] += w * values[start + p]
            out.extend(sums)
        return from_values(out, shape, x.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return ResampleTranspose.apply(
            grad_output, taps=ctx.taps, shape=ctx.input_shape
        )


class ResampleTranspose(Function):
    """The transpose of :class:`Resample`: each element of ``g`` is added,
    times each tap's weight, at the tap's input position."""

    @staticmethod
    def forward(
        ctx: FunctionCtx, g: Tensor, *, taps: Taps, shape: tuple[int, ...]
    ) -> Tensor:
        ctx.taps, ctx.g_shape = taps, g._shape
        values, size = g._values(), numel(g._shape[2:])
        plane = numel(shape[2:])
        out = [0.0] * numel(shape)
        for k, start in enumerate(range(0, len(values), size or 1)):
            base = k * plane
            for positions, weights in taps:
                for o, (p, w) in enumerate(zip(positions, weights)):
                    out[base + p] += w * values[start + o]
        return from_values(out, shape, g.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        return Resample.apply(grad_output, taps=ctx.taps, shape=ctx.g_shape)


class UpsampleLinear1d(Resample):
    grad_fn_name = "UpsampleLinear1DBackward0"


class UpsampleBilinear2d(Resample):
    grad_fn_name = "UpsampleBilinear2DBackward0"


class UpsampleTrilinear3d(Resample):
    grad_fn_name = "UpsampleTrilinear3DBackward0"


class UpsampleBicubic2d(Resample):
    grad_fn_name = "UpsampleBicubic2DBackward0"


class UpsampleNearest(Index):
    """A gather by positions whose backward may read other positions.

    PyTorch's 1-d and 3-d backward find the positions by the 2-d kernel's
    rule (:func:`nearest_sources` with ``shortcuts``), which differs from
    their forward's when a scale factor gives ``out == size`` or
    ``2 * size``; ``grad_positions`` are those, so that the gradients are
    PyTorch's too.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        x: Tensor,
        *,
        positions: list[int],
        shape: tuple[int, ...],
        grad_positions: list[int] | None = None,
    ) -> Tensor:
        out = Index.forward(ctx, x, positions=positions, shape=shape)
        ctx.positions = grad_positions if grad_positions is not None else positions
        return out


class UpsampleNearest1d(UpsampleNearest):
    grad_fn_name = "UpsampleNearest1DBackward0"


class UpsampleNearest2d(UpsampleNearest):
    grad_fn_name = "UpsampleNearest2DBackward0"


class UpsampleNearest3d(UpsampleNearest):
    grad_fn_name = "UpsampleNearest3DBackward0"


class UpsampleNearestExact1d(UpsampleNearest):
    grad_fn_name = "UpsampleNearestExact1DBackward0"


class UpsampleNearestExact2d(UpsampleNearest):
    grad_fn_name = "UpsampleNearestExact2DBackward0"


class UpsampleNearestExact3d(UpsampleNearest):
    grad_fn_name = "UpsampleNearestExact3DBackward0"
