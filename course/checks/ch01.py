"""Chapter 1, "From arrays to tensors": hidden cases and reference answers."""

from __future__ import annotations

from collections.abc import Sequence

from course.checking import Exercise, case
from slowtorch_lib._strides import broadcast_shapes, contiguous_strides, index_to_position


def transpose_layout(
    shape: Sequence[int], strides: Sequence[int], dim0: int, dim1: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    ndim = len(shape)
    dim0, dim1 = dim0 % ndim, dim1 % ndim
    new_shape, new_strides = list(shape), list(strides)
    new_shape[dim0], new_shape[dim1] = shape[dim1], shape[dim0]
    new_strides[dim0], new_strides[dim1] = strides[dim1], strides[dim0]
    return tuple(new_shape), tuple(new_strides)


def sum_dim(
    storage: Sequence[float], shape: Sequence[int], strides: Sequence[int], offset: int, dim: int
) -> list[float]:
    dim = dim % len(shape)
    kept = [i for i in range(len(shape)) if i != dim]
    indices: list[list[int]] = [[]]
    for d in kept:
        indices = [index + [i] for index in indices for i in range(shape[d])]
    sums = []
    for index in indices:
        total: float = 0
        for j in range(shape[dim]):
            full = index[:dim] + [j] + index[dim:]
            total += storage[index_to_position(full, strides, offset)]
        sums.append(total)
    return sums


def matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    n, k, m = len(a), len(b), len(b[0])
    if len(a[0]) != k:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({n}x{len(a[0])} and {k}x{m})"
        )
    return [[sum(a[i][p] * b[p][j] for p in range(k)) for j in range(m)] for i in range(n)]


EXERCISES = {
    "1.1": Exercise(
        title="strides of a shape",
        name="contiguous_strides",
        reference=contiguous_strides,
        cases=[
            case((5,)),
            case((2, 3)),
            case((2, 3, 4)),
            case(()),
            case((4, 1, 3)),
            case((1, 1)),
            case((2, 3, 4, 5)),
            case(
                (2, 0, 3),
                hint="a dimension of size 0 counts as size 1 for the "
                "strides of the dimensions before it, as in PyTorch.",
            ),
        ],
        hint="walk the shape from the last dimension to the first: the last stride "
        "is 1, each earlier one is the next stride times the next size.",
    ),
    "1.2": Exercise(
        title="index to storage position",
        name="index_to_position",
        reference=index_to_position,
        cases=[
            case((1, 2), (3, 1), 0),
            case((0, 0), (3, 1), 0),
            case((2,), (1,), 5, hint="the offset is where element (0, ..., 0) lives: add it."),
            case((), (), 7, hint="a 0-d tensor has no index: its element is at the offset."),
            case((1, 2), (1, 2), 0),
            case((1, 0, 3), (12, 4, 1), 2),
            case(
                (3, 1),
                (0, 1),
                0,
                hint="a stride of 0 means the index along that "
                "dimension does not move the position.",
            ),
        ],
        hint="the position is offset + index[0] * strides[0] + index[1] * strides[1] + ...",
    ),
    "1.3": Exercise(
        title="broadcast_shapes",
        name="broadcast_shapes",
        reference=broadcast_shapes,
        cases=[
            case((3,), (3,)),
            case((3, 1), (4,)),
            case((5, 4), (1,)),
            case((), (2, 3), hint="a 0-d shape broadcasts with anything."),
            case((2, 1, 4), (3, 1)),
            case((1,), (0,), hint="a size-1 dimension stretches even to size 0."),
            case((2, 3), (3, 2), hint="sizes 3 and 2 cannot be matched: raise RuntimeError."),
            case(
                (3,),
                (4, 1, 2),
                hint="align the shapes at their last dimension; "
                "sizes 3 and 2 do not match: raise RuntimeError.",
            ),
        ],
        hint="align the shapes on the right; missing dimensions count as 1; each pair of "
        "sizes must be equal or contain a 1.",
    ),
    "1.4": Exercise(
        title="transpose as a view",
        name="transpose_layout",
        reference=transpose_layout,
        cases=[
            case((2, 3), (3, 1), 0, 1),
            case((2, 3, 4), (12, 4, 1), 0, 2),
            case((2, 3, 4), (12, 4, 1), 1, 1),
            case((2, 3, 4), (12, 4, 1), 0, -1, hint="dim -1 is the last dimension."),
            case(
                (3, 2),
                (1, 3),
                1,
                0,
                hint="the input may already be a view: swap whatever strides it has.",
            ),
            case((5, 1, 2), (2, 2, 1), -3, -2),
        ],
        hint="a transpose copies nothing: swap the two sizes and the two strides.",
    ),
    "1.5": Exercise(
        title="sum along a dimension",
        name="sum_dim",
        reference=sum_dim,
        cases=[
            case([1, 2, 3, 4, 5, 6], (2, 3), (3, 1), 0, 1),
            case([1, 2, 3, 4, 5, 6], (2, 3), (3, 1), 0, 0),
            case([1, 2, 3, 4, 5, 6], (2, 3), (3, 1), 0, -1),
            case(
                [1, 2, 3, 4, 5, 6],
                (3, 2),
                (1, 3),
                0,
                1,
                hint="the strides are not "
                "row-major here (a transposed view): use them to find each element.",
            ),
            case([9, 9, 1, 2, 3, 4], (2, 2), (2, 1), 2, 0, hint="start from the offset."),
            case(list(range(24)), (2, 3, 4), (12, 4, 1), 0, 1),
            case([5, 7], (2, 3), (1, 0), 0, 1, hint="a stride of 0 repeats an element."),
            case([], (2, 0), (1, 1), 0, 1, hint="summing over an empty dimension gives 0."),
        ],
        hint="for each index of the result (row-major, without `dim`), add up the "
        "elements along `dim`, finding each with offset + sum of index * stride.",
    ),
    "1.6": Exercise(
        title="matmul by three loops",
        name="matmul",
        reference=matmul,
        cases=[
            case([[2]], [[3]]),
            case([[1, 2], [3, 4]], [[5, 6], [7, 8]]),
            case([[1, 2, 3], [4, 5, 6]], [[1, 0], [0, 1], [1, 1]]),
            case([[1], [2], [3]], [[4, 5]], hint="a (3, 1) times a (1, 2) matrix is (3, 2)."),
            case([[1, 2, 3]], [[4], [5], [6]]),
            case(
                [[1, 2], [3, 4]],
                [[1, 2], [3, 4], [5, 6]],
                hint="a (2, 2) and a (3, 2) matrix cannot be multiplied: raise RuntimeError.",
            ),
        ],
        hint="result[i][j] is the sum over p of a[i][p] * b[p][j]; the result has as many "
        "rows as a and as many columns as b.",
    ),
}
