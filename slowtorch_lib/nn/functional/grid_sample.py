"""``affine_grid`` and ``grid_sample``: reading an image at given points.

``grid_sample(input, grid)`` reads each channel of ``input`` at the points
of ``grid``, ``(N, H_out, W_out, 2)`` pairs ``(x, y)`` in ``[-1, 1]`` (for a
volume, ``(N, D_out, H_out, W_out, 3)`` triples ``(x, y, z)``): -1 is
the left (top) edge and 1 the right (bottom) one, at the centres of the
corner pixels with ``align_corners=True``, at their outer edges without.
A point between pixels is interpolated (``'bilinear'``, trilinear in a
volume: each pixel's weight is the product of ``1 - f`` or ``f`` along each
axis, ``f`` the point's fraction past the lower pixel; ``'bicubic'``, from
the 4 x 4 pixels around it, in images only) or takes its
nearest pixel (``'nearest'``); a point outside reads zeros (``'zeros'``),
the nearest border pixel (``'border'``), or the image mirrored at its
edges (``'reflection'``).

``affine_grid(theta, size)`` makes such a grid: the points of an output of
``size`` moved by the affine map ``theta`` (``(N, 2, 3)``). Together they
are a spatial transformer: a network can learn ``theta`` and warp its input.

The gradient reaches the image (each point's interpolation weights, sent
back to the pixels it read) and the grid (how the interpolated value
changes as the point moves), as in PyTorch.
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass
from typing import Any

from slowtorch_lib import _cephes32
from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_kernels import not_implemented
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.nn.functional.interpolation import CUBIC_A, cubic_weights
from slowtorch_lib.ops.common import tensor_input

__all__ = ["affine_grid", "grid_sample"]


MODES = ("bilinear", "nearest", "bicubic")
PADDING_MODES = ("zeros", "border", "reflection")
ALIGN_CORNERS_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to "
    "align_corners=False since 1.3.0. Please specify align_corners=True if the "
    "old behavior is desired. See the documentation of grid_sample for details."
)


# ----------------------------------------------------------------------
# affine_grid
# ----------------------------------------------------------------------


def _steps(count: int, align_corners: bool, single: bool) -> list[float]:
    """The coordinates of ``count`` pixel centres in ``[-1, 1]``, as
    PyTorch's ``linspace`` makes them (each step rounded to float32 if
    ``single``)."""
    if count <= 1:
        return [0.0] * count

    def rounded(values: list[float]) -> list[float]:
        return _cephes32.f32(values) if single else values

    [step] = rounded([2.0 / (count - 1)])
    half = count // 2
    points = rounded(
        [
            -1.0 + step * i if i < half else 1.0 - step * (count - 1 - i)
            for i in range(count)
        ]
    )
    if not align_corners:  # the outer edges, not the centres, at -1 and 1
        points = rounded([p * (count - 1) for p in points])
        points = rounded([p / count for p in points])
    return points


def _base_grid(
    spatial: list[int], align_corners: bool, single: bool
) -> list[list[float]]:
    """``(x, y[, z], 1)`` of each output point, in row-major order."""
    axes = [_steps(n, align_corners, single) for n in spatial]
    points: list[list[float]] = [[]]
    for axis in axes:  # depth, then rows, then columns
        points = [point + [value] for point in points for value in axis]
    return [list(reversed(point)) + [1.0] for point in points]


class AffineGridGenerator(Function):
    """``grid[n, p, i] = sum_j base[p, j] * theta[n, i, j]``.

    The gradient of ``theta`` is ``grad^T @ base`` for each batch element.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        theta: Tensor,
        *,
        base: list[list[float]],
        shape: tuple[int, ...],
    ) -> Tensor:
        batch, dims, width = theta._shape
        matrices = theta._values()
        values = []
        for n in range(batch):
            rows = [
                matrices[(n * dims + i) * width : (n * dims + i + 1) * width]
                for i in range(dims)
            ]
            for point in base:
                values += [math.fsum(map(float.__mul__, point, row)) for row in rows]
        ctx.base = from_values(
            [v for point in base for v in point], (len(base), width), theta.dtype
        )
        ctx.points = (batch, len(base), dims)
        return from_values(values, shape, theta.dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> Tensor:
        batch, points, dims = ctx.points
        flat = grad_output.reshape(batch, points, dims)
        result: Tensor = flat.transpose(1, 2).matmul(ctx.base)
        return result


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid of an affine map, for :func:`grid_sample`.

    Args:
        theta: ``(N, 2, 3)`` maps for 2-d images (``(N, 3, 4)`` for 3-d).
        size: The output's size, ``(N, C, H, W)`` (or ``(N, C, D, H, W)``).
        align_corners: Whether -1 and 1 are the centres of the corner
            pixels (else their outer edges). None means False, with
            PyTorch's warning.

    Returns:
        ``(N, H, W, 2)`` (or ``(N, D, H, W, 3)``): the map applied to each
        output point's ``(x, y[, z], 1)`` (``AffineGridGeneratorBackward0``).

    Raises:
        ValueError: For integer ``theta``, a wrong shape of ``theta`` or an
            empty size.
        NotImplementedError: For a size of neither 4 nor 5 numbers.
        RuntimeError: For a batch size other than ``theta``'s.
    """
    if align_corners is None:
        warnings.warn(ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(
            f"Expected theta to have floating point type, but got {theta.dtype}"
        )
    _check_theta(theta, size)
    if align_corners and min(size[2:]) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size "
            "grids when align_corners=True. This is not an intended use case of "
            "affine_grid. See the documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return generate_grid(theta, size, align_corners)


def generate_grid(theta: Tensor, size: Any, align_corners: bool) -> Tensor:
    """The grid of :func:`affine_grid` once its arguments are checked in
    Python (``torch.affine_grid_generator``): the checks of the product."""
    if len(size) not in (4, 5):
        raise RuntimeError(
            "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs."
        )
    spatial = [int(n) for n in size[2:]]
    batch, columns = int(size[0]), len(spatial) + 1
    if theta._shape[0] != batch or theta._shape[-1] != columns:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{batch}, {columns}] but got: [{theta._shape[0]}, {theta._shape[-1]}]."
        )
    if theta._shape[1] != len(spatial):
        view = [batch, *spatial, len(spatial)]
        count = batch * math.prod(spatial) * theta._shape[1]
        raise RuntimeError(f"shape '{view}' is invalid for input of size {count}")
    single = theta.dtype is not dtypes.float64
    base = _base_grid(spatial, align_corners, single)
    shape = (batch, *spatial, len(spatial))
    return AffineGridGenerator.apply(theta, base=base, shape=shape)


def _check_theta(theta: Tensor, size: Any) -> None:
    if len(size) == 4:
        kind, rows, columns = "2D", 2, 3
    elif len(size) == 5:
        kind, rows, columns = "3D", 3, 4
    else:
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine "
            f"transforms, respectively. Got size {size}."
        )
    if theta.dim() != 3 or theta._shape[1:] != (rows, columns):
        raise ValueError(
            f"Expected a batch of {kind} affine matrices of shape Nx{rows}x{columns} "
            f"for size {size}. Got {theta.shape}."
        )


# ----------------------------------------------------------------------
# grid_sample: where each point reads
# ----------------------------------------------------------------------


def _clip(x: float, size: int) -> tuple[float, float]:
    """``x`` clipped to ``[0, size - 1]``, and its derivative (the borders
    count as outside, as in PyTorch)."""
    if x <= 0:
        return 0.0, 0.0
    if x >= size - 1:
        return float(size - 1), 0.0
    return x, 1.0


def _reflect(x: float, twice_low: int, twice_high: int) -> tuple[float, float]:
    """``x`` mirrored into ``[twice_low / 2, twice_high / 2]``, and its
    derivative (1 or -1)."""
    if twice_low == twice_high:
        return 0.0, 0.0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    x -= low
    sign = -1.0 if x < 0 else 1.0
    x = abs(x)
    extra = math.fmod(x, span)
    if math.floor(x / span) % 2 == 0:
        return extra + low, sign
    return span - extra + low, -sign


def _unnormalized(x: float, size: int, align_corners: bool) -> tuple[float, float]:
    """A grid coordinate in ``[-1, 1]`` as a pixel coordinate, and the
    derivative of the one by the other."""
    if align_corners:
        scale = (size - 1) / 2
        return (x + 1) * scale, scale
    scale = size / 2
    return (x + 1) * scale - 0.5, scale


def _padded(
    x: float, size: int, padding_mode: str, align_corners: bool
) -> tuple[float, float]:
    """A pixel coordinate moved inside by the padding mode, and its slope."""
    if padding_mode == "border":
        return _clip(x, size)
    if padding_mode == "reflection":
        twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        x, mirror = _reflect(x, *twice)
        x, slope = _clip(x, size)
        return x, mirror * slope
    return x, 1.0


def source_coordinate(
    x: float, size: int, padding_mode: str, align_corners: bool
) -> tuple[float, float]:
    """Where a grid coordinate in ``[-1, 1]`` reads along a dimension of
    ``size`` pixels, and the derivative of that place by the coordinate."""
    x, scale = _unnormalized(x, size, align_corners)
    x, slope = _padded(x, size, padding_mode, align_corners)
    return x, scale * slope


@dataclass
class Point:
    """What one grid point reads in an ``H x W`` plane (or ``D x H x W``
    volume).

    Attributes:
        taps: ``(flat position, weight)`` of each pixel it reads (pixels
            outside left out).
        slopes: For each tap, the derivative of its weight by each of the
            point's source coordinates, ``x`` first (zeros for nearest).
        scales: The derivatives of the source coordinates by the grid's.
    """

    taps: list[tuple[int, float]]
    slopes: list[tuple[float, ...]]
    scales: tuple[float, ...]


def _point(
    coordinates: tuple[float, ...],
    spatial: tuple[int, ...],
    mode: str,
    padding: str,
    align: bool,
) -> Point:
    """The taps of the point ``(x, y[, z])`` in an image of ``spatial``
    ``(H, W)`` (or ``(D, H, W)``): x runs along the last dimension."""
    if mode == "bicubic":
        gx, gy = coordinates
        return _bicubic_point(gx, gy, (spatial[0], spatial[1]), padding, align)
    sizes = spatial[::-1]  # W, H[, D]: the grid's order
    sources = [
        source_coordinate(g, n, padding, align) for g, n in zip(coordinates, sizes)
    ]
    scales = tuple(scale for _, scale in sources)
    if mode == "nearest":
        nearest = [round(x) for x, _ in sources]  # half to even, as nearbyint
        if not all(0 <= i < n for i, n in zip(nearest, sizes)):
            return Point([], [], scales)
        zeros = (0.0,) * len(sizes)
        return Point([(_flat(nearest, sizes), 1.0)], [zeros], scales)
    lows = [math.floor(x) for x, _ in sources]
    fractions = [x - low for (x, _), low in zip(sources, lows)]
    taps, slopes = [], []
    for corner in itertools.product((0, 1), repeat=len(sizes)):
        index = [low + step for low, step in zip(lows, corner)]
        if not all(0 <= i < n for i, n in zip(index, sizes)):
            continue
        # Along each axis the weight is 1 - f (near) or f (far).
        factors = [f if step else 1 - f for f, step in zip(fractions, corner)]
        signs = [1.0 if step else -1.0 for step in corner]
        taps.append((_flat(index, sizes), math.prod(factors)))
        slopes.append(
            tuple(
                signs[a] * math.prod(factors[:a] + factors[a + 1 :])
                for a in range(len(sizes))
            )
        )
    return Point(taps, slopes, scales)


def _flat(index: list[int], sizes: tuple[int, ...]) -> int:
    """The flat position of ``(x, y[, z])`` in a row-major image."""
    position = 0
    for i, n in zip(reversed(index), reversed(sizes)):
        position = position * n + i
    return position


def _cubic_slopes(t: float) -> list[float]:
    """The derivatives by ``t`` of :func:`.interpolation.cubic_weights`."""
    a = CUBIC_A

    def near(x: float) -> float:  # of ((a + 2) x - (a + 3)) x^2 + 1
        return (3 * (a + 2) * x - 2 * (a + 3)) * x

    def far(x: float) -> float:  # of ((a x - 5 a) x + 8 a) x - 4 a
        return (3 * a * x - 10 * a) * x + 8 * a

    return [far(t + 1), near(t), -near(1 - t), -far(2 - t)]


def _bicubic_point(
    gx: float, gy: float, plane: tuple[int, int], padding: str, align: bool
) -> Point:
    """The 16 pixels around ``(gx, gy)``, each moved inside by the padding
    mode on its own (so one pixel may be read twice), weighted by Keys'
    cubic convolution along x times along y."""
    height, width = plane
    x, x_scale = _unnormalized(gx, width, align)
    y, y_scale = _unnormalized(gy, height, align)
    left, top = math.floor(x), math.floor(y)
    x_weights, x_slopes = cubic_weights(x - left), _cubic_slopes(x - left)
    y_weights, y_slopes = cubic_weights(y - top), _cubic_slopes(y - top)
    taps: list[tuple[int, float]] = []
    slopes: list[tuple[float, ...]] = []
    for j in range(4):
        row = _padded(float(top - 1 + j), height, padding, align)[0]
        for i in range(4):
            column = _padded(float(left - 1 + i), width, padding, align)[0]
            if not (0 <= row < height and 0 <= column < width):
                continue
            taps.append((int(row) * width + int(column), x_weights[i] * y_weights[j]))
            slopes.append((x_slopes[i] * y_weights[j], x_weights[i] * y_slopes[j]))
    return Point(taps, slopes, (x_scale, y_scale))


# ----------------------------------------------------------------------
# grid_sample: the operation
# ----------------------------------------------------------------------


class GridSampler2D(Function):
    """Each channel read at each grid point: ``sum weight * pixel``.

    The input's gradient sends ``weight * grad`` back to each pixel read;
    the grid's gradient is, summed over the channels, ``grad * sum pixel *
    d weight / d coordinate``, times the coordinate's own derivative
    (zero for ``'nearest'``).
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx, input: Tensor, grid: Tensor, *, points: list[Point]
    ) -> Tensor:
        batch, channels = input._shape[:2]
        plane = math.prod(input._shape[2:])
        per_sample = len(points) // max(batch, 1)
        values = input._values()
        out = []
        for n in range(batch):
            for c in range(channels):
                start = (n * channels + c) * plane
                for point in points[n * per_sample : (n + 1) * per_sample]:
                    out.append(math.fsum(w * values[start + p] for p, w in point.taps))
        ctx.save_for_backward(input)
        ctx.points = points
        ctx.grid_shape = grid._shape
        shape = (batch, channels, *grid._shape[1:-1])
        return from_values(out, shape, input.dtype)

    @staticmethod
    def backward(
        ctx: FunctionCtx, grad_output: Tensor
    ) -> tuple[Tensor | None, Tensor | None]:
        (input,) = ctx.saved_tensors
        batch, channels = input._shape[:2]
        plane, axes = math.prod(input._shape[2:]), input.dim() - 2
        points: list[Point] = ctx.points
        per_sample = len(points) // max(batch, 1)
        grads, values = grad_output._values(), input._values()
        grad_input = [0.0] * len(values)
        grad_grid = [0.0] * (axes * len(points))
        for n in range(batch):
            for c in range(channels):
                start = (n * channels + c) * plane
                out_start = (n * channels + c) * per_sample
                for k in range(per_sample):
                    point, grad = points[n * per_sample + k], grads[out_start + k]
                    at = axes * (n * per_sample + k)
                    for (p, weight), slope in zip(point.taps, point.slopes):
                        grad_input[start + p] += weight * grad
                        for a in range(axes):
                            grad_grid[at + a] += values[start + p] * slope[a] * grad
        for k, point in enumerate(points):
            for a in range(axes):
                grad_grid[axes * k + a] *= point.scales[a]
        return (
            from_values(grad_input, input._shape, input.dtype),
            from_values(grad_grid, ctx.grid_shape, input.dtype),
        )


class GridSampler3D(GridSampler2D):
    """The same in ``(D, H, W)`` volumes, reading 8 voxels a point."""


def _check_grid(input: Tensor, grid: Tensor, dims: int | None) -> None:
    """PyTorch's checks of an input and its grid, in its order."""
    if input._shape[0] != grid._shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but "
            f"got input with sizes {list(input.shape)} and grid with sizes "
            f"{list(grid.shape)}"
        )
    if grid._shape[-1] != input.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.dim() - 2} in last "
            f"dimension, but got grid with sizes {list(grid.shape)}"
        )
    for dim in range(2, input.dim()):
        if input._shape[dim] == 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, "
                f"but input has sizes {list(input.shape)} with dimension {dim} being "
                "empty"
            )
    expected = input.dim() if dims is None else dims
    if input.dim() != grid.dim() or input.dim() != expected or expected not in (4, 5):
        raise RuntimeError(
            f"grid_sampler(): expected {expected}D input and grid with same number "
            f"of dimensions, but got input with sizes {list(input.shape)} and grid "
            f"with sizes {list(grid.shape)}"
        )


@tensor_input
def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """``input`` ``(N, C, H, W)`` read at the points of ``grid``
    ``(N, H_out, W_out, 2)``, giving ``(N, C, H_out, W_out)``; or a volume
    ``(N, C, D, H, W)`` at ``(N, D_out, H_out, W_out, 3)`` points.

    Args:
        input: The images.
        grid: ``(x, y[, z])`` points in ``[-1, 1]`` (x across the columns).
        mode: ``'bilinear'``, ``'nearest'`` or ``'bicubic'`` (4-d only).
        padding_mode: What a point outside reads: ``'zeros'``, ``'border'``
            or ``'reflection'``.
        align_corners: Whether -1 and 1 are the centres of the corner
            pixels (else their outer edges). None means False, with
            PyTorch's warning.

    Raises:
        ValueError: For an unknown mode or padding mode.
        RuntimeError: For shapes that do not fit, dtypes that differ, or
            ``'bicubic'`` of a volume.
        NotImplementedError: For an input that is not floating point.
    """
    if mode not in MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' "
            f"or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in PADDING_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
            f"'border', or 'reflection', but got: '{padding_mode}'"
        )
    if align_corners is None:  # the caller, past tensor_input's wrapper
        warnings.warn(ALIGN_CORNERS_WARNING, stacklevel=3)
        align_corners = False
    return sample_grid(input, grid, mode, padding_mode, align_corners)


def sample_grid(
    input: Tensor,
    grid: Tensor,
    mode: str,
    padding_mode: str,
    align_corners: bool,
    dims: int | None = None,
) -> Tensor:
    """:func:`grid_sample` once its arguments are checked in Python
    (``torch.grid_sampler``): the checks of the tensors, then the reading.

    Args:
        dims: The number of dimensions the input must have (4 or 5), or
            None for either.
    """
    _check_grid(input, grid, dims)
    if mode == "bicubic" and input.dim() == 5:
        raise RuntimeError(
            "grid_sampler(): bicubic interpolation only supports 4D input"
        )
    if not input.dtype.is_floating_point or input.dtype.is_complex:
        kernel = "grid_sampler_2d_cpu_kernel_impl"
        if input.dim() == 5:
            kernel = "grid_sampler3d_cpu"
        raise not_implemented(kernel, input.dtype)
    if grid.dtype != input.dtype:
        raise RuntimeError(
            f"expected scalar type {input.dtype.c_name} but found {grid.dtype.c_name}"
        )
    spatial, axes = input._shape[2:], input.dim() - 2
    coordinates = grid._values()
    points = [
        _point(
            tuple(coordinates[k : k + axes]), spatial, mode, padding_mode, align_corners
        )
        for k in range(0, len(coordinates), axes)
    ]
    sampler = GridSampler3D if axes == 3 else GridSampler2D
    return sampler.apply(input, grid, points=points)
