# ruff: noqa: F821  (torch and check come from the setup cell of every notebook)

# %% [markdown]
# # Chapter 1 exercises: from arrays to tensors
#
# A tensor is a flat *storage* plus three numbers that say how to read it: a
# **shape**, **strides** (how many storage cells one step along each dimension
# jumps) and an **offset** (where element `(0, ..., 0)` lives). These exercises
# rebuild that index maths with plain Python lists and tuples.
#
# Each exercise has a stub to complete (replace `raise NotImplementedError`)
# and a check cell after it. Run the check cell: it tries your code on hidden
# cases and prints one line, either that it passed or the first case it got
# wrong, with a hint.

# %% [markdown]
# The engine, imported as `torch`, already knows all of this. For example, a
# tensor of shape `(2, 3, 4)` moves 12 cells per step along dimension 0:

# %%
x = torch.zeros(2, 3, 4)
print(x.shape, x.stride())

# %% [markdown]
# ## Exercise 1.1: strides of a shape
#
# Write `contiguous_strides(shape)`: the strides of a row-major tensor of
# `shape`, as a tuple. The last dimension has stride 1; each earlier dimension
# jumps over everything after it. Example: `(2, 3, 4)` gives `(12, 4, 1)`, and
# `()` gives `()`.


# %% tags=["exercise-1.1"]
def contiguous_strides(shape):
    """The strides of a row-major tensor of this shape."""
    # BEGIN SOLUTION
    strides = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))
    # END SOLUTION


# %% tags=["check-1.1"]
check("1.1", contiguous_strides)

# %% [markdown]
# ## Exercise 1.2: from an index to a storage position
#
# Write `index_to_position(index, strides, offset)`: where in the storage the
# element at `index` lives. Example: in a `(2, 3)` tensor with strides
# `(3, 1)` and offset 0, element `(1, 2)` is at position `1 * 3 + 2 * 1 = 5`.


# %% tags=["exercise-1.2"]
def index_to_position(index, strides, offset):
    """The storage position of the element at ``index``."""
    # BEGIN SOLUTION
    position = offset
    for i, stride in zip(index, strides):
        position += i * stride
    return position
    # END SOLUTION


# %% tags=["check-1.2"]
check("1.2", index_to_position)

# %% [markdown]
# ## Exercise 1.3: broadcasting two shapes
#
# Write `broadcast_shapes(shape_a, shape_b)`: the shape that an elementwise
# operation on tensors of these shapes produces. Line the shapes up at their
# last dimension; a missing dimension counts as size 1; two sizes match if they
# are equal or one of them is 1 (it stretches). When they do not match, raise
# `RuntimeError`, as PyTorch does. Example: `(3, 1)` and `(4,)` give `(3, 4)`.

# %%
print(tuple(torch.broadcast_shapes((3, 1), (4,))))


# %% tags=["exercise-1.3"]
def broadcast_shapes(shape_a, shape_b):
    """The shape both shapes broadcast to."""
    # BEGIN SOLUTION
    ndim = max(len(shape_a), len(shape_b))
    a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
    b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
    result = []
    for size_a, size_b in zip(a, b):
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(f"sizes {size_a} and {size_b} do not broadcast")
        result.append(size_b if size_a == 1 else size_a)
    return tuple(result)
    # END SOLUTION


# %% tags=["check-1.3"]
check("1.3", broadcast_shapes)

# %% [markdown]
# ## Exercise 1.4: transpose is a view
#
# `x.transpose(dim0, dim1)` copies nothing: the result shares `x`'s storage and
# only reads it in another order. Write `transpose_layout(shape, strides, dim0,
# dim1)`, returning the new `(shape, strides)` pair. Dimensions may be
# negative (`-1` is the last one).

# %%
x = torch.zeros(2, 3)
y = x.transpose(0, 1)
print(y.shape, y.stride())


# %% tags=["exercise-1.4"]
def transpose_layout(shape, strides, dim0, dim1):
    """The (shape, strides) of the transposed view."""
    # BEGIN SOLUTION
    dim0, dim1 = dim0 % len(shape), dim1 % len(shape)
    new_shape, new_strides = list(shape), list(strides)
    new_shape[dim0], new_shape[dim1] = shape[dim1], shape[dim0]
    new_strides[dim0], new_strides[dim1] = strides[dim1], strides[dim0]
    return tuple(new_shape), tuple(new_strides)
    # END SOLUTION


# %% tags=["check-1.4"]
check("1.4", transpose_layout)

# %% [markdown]
# ## Exercise 1.5: summing along a dimension of a flat storage
#
# Write `sum_dim(storage, shape, strides, offset, dim)`. `storage` is a flat
# list; `shape`, `strides` and `offset` say how to read it (they need not be
# row-major: the tensor may be a view). Return the sums along `dim` as a flat
# list, in row-major order of the result's shape (the shape without `dim`).
# Example: storage `[1, 2, 3, 4, 5, 6]` read as shape `(2, 3)`, strides
# `(3, 1)`, summed along dim 1, gives `[6, 15]`. You may call your
# `index_to_position`.


# %% tags=["exercise-1.5"]
def sum_dim(storage, shape, strides, offset, dim):
    """The sums along ``dim``, row-major, as a flat list."""
    # BEGIN SOLUTION
    dim = dim % len(shape)
    indices = [[]]
    for d, size in enumerate(shape):
        if d != dim:
            indices = [index + [i] for index in indices for i in range(size)]
    sums = []
    for index in indices:
        total = 0
        for j in range(shape[dim]):
            full = index[:dim] + [j] + index[dim:]
            total += storage[index_to_position(full, strides, offset)]
        sums.append(total)
    return sums
    # END SOLUTION


# %% tags=["check-1.5"]
check("1.5", sum_dim)

# %% [markdown]
# ## Exercise 1.6: matrix multiplication by three loops
#
# Write `matmul(a, b)` for matrices given as lists of rows:
# `result[i][j]` is the sum over `p` of `a[i][p] * b[p][j]`. If the number of
# columns of `a` differs from the number of rows of `b`, raise `RuntimeError`
# (PyTorch says "mat1 and mat2 shapes cannot be multiplied").


# %% tags=["exercise-1.6"]
def matmul(a, b):
    """The matrix product of ``a`` (n x k) and ``b`` (k x m), as lists of rows."""
    # BEGIN SOLUTION
    n, k, m = len(a), len(b), len(b[0])
    if len(a[0]) != k:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({n}x{len(a[0])} and {k}x{m})"
        )
    result = [[0] * m for _ in range(n)]
    for i in range(n):
        for j in range(m):
            for p in range(k):
                result[i][j] += a[i][p] * b[p][j]
    return result
    # END SOLUTION


# %% tags=["check-1.6"]
check("1.6", matmul)
