# ruff: noqa: F821  (torch and check come from the setup cell of every notebook)

# %% [markdown]
# # Chapter 1 exercises: from arrays to tensors
#
# Two kinds of exercise. In the first four you **predict**: fill in a dict
# from expressions to what you think PyTorch gives, and the check compares
# each entry with PyTorch's real answer (recorded once; no PyTorch needed
# here). In the others you **build the engine**: you write a function that
# the engine has too, and the check puts yours *into the engine in place of
# its own*, then runs real tensor operations through it and compares them with
# PyTorch's answers.
#
# Run the setup cell first. Each check prints "k of N right" and a hint that
# says a little more each time the check fails. For a prediction it lists
# the items you got wrong, without PyTorch's answer: think again, or ask for
# the answers with `check("1.1", answers_1_1, reveal=True)`. For a piece of
# the engine it shows the first cases that went wrong (what ran, what
# PyTorch gave, what yours gave). What your code prints stays visible. Keep
# everything an answer needs inside its cell: the grader runs each answer
# cell on its own.

# %% [markdown]
# ## Exercise 1.1: view or copy?
#
# With `x = torch.arange(12.).reshape(3, 4)`, does each expression return a
# **view** of `x` (same storage, read another way) or a **copy** (new
# storage)? Replace each `...` with `"view"` or `"copy"`.

# %% tags=["exercise-1.1"]
answers_1_1 = {
    "x.t()": "view",  # ANSWER
    "x[1]": "view",  # ANSWER
    "x[:, 1]": "view",  # ANSWER
    "x[:, ::2]": "view",  # ANSWER
    "x.reshape(4, 3)": "view",  # ANSWER
    "x.t().reshape(12)": "copy",  # ANSWER
    "x.t().contiguous()": "copy",  # ANSWER
    "x.contiguous()": "view",  # ANSWER
    "x.clone()": "copy",  # ANSWER
    "x.unsqueeze(0).expand(2, 3, 4)": "view",  # ANSWER
    "x + 0": "copy",  # ANSWER
    "x.flatten()": "view",  # ANSWER
    "x.t().flatten()": "copy",  # ANSWER
}

# %% tags=["check-1.1"]
check("1.1", answers_1_1)

# %% [markdown]
# ## Exercise 1.2: which dtype?
#
# With `i = torch.tensor([1, 2])` (int64), `f = torch.tensor([1.0, 2.0])`
# (float32), `b = torch.tensor([True, False])` and
# `d = torch.tensor([1.0, 2.0], dtype=torch.float64)`, which dtype does each
# result have? Write `"float32"`, `"int64"`, `"bool"`... or `"error"` if
# PyTorch refuses.

# %% tags=["exercise-1.2"]
answers_1_2 = {
    "i + f": "float32",  # ANSWER
    "i / i": "float32",  # ANSWER
    "i + 2.5": "float32",  # ANSWER
    "i // 2": "int64",  # ANSWER
    "b + b": "bool",  # ANSWER
    "b + 1": "int64",  # ANSWER
    "b * 2.0": "float32",  # ANSWER
    "i + True": "int64",  # ANSWER
    "f + d": "float64",  # ANSWER
    "f + torch.tensor(1.0, dtype=torch.float64)": "float32",  # ANSWER
    "i * torch.tensor(2.5, dtype=torch.float64)": "float64",  # ANSWER
    "d.sum() + f": "float32",  # ANSWER
    "torch.tensor(3) + torch.tensor(2.5)": "float32",  # ANSWER
    "b.sum()": "int64",  # ANSWER
    "i.mean()": "error",  # ANSWER
}

# %% tags=["check-1.2"]
check("1.2", answers_1_2)

# %% [markdown]
# ## Exercise 1.3: broadcast shapes
#
# What is the shape of each result? Write a list such as `[3, 4]`, or
# `"error"` if the shapes do not broadcast.

# %% tags=["exercise-1.3"]
answers_1_3 = {
    "torch.zeros(3, 1) + torch.zeros(4)": [3, 4],  # ANSWER
    "torch.zeros(2, 1, 5) * torch.zeros(3, 1)": [2, 3, 5],  # ANSWER
    "torch.zeros(3) + torch.zeros(4)": "error",  # ANSWER
    "torch.zeros(()) + torch.zeros(2, 3)": [2, 3],  # ANSWER
    "torch.zeros(2, 3).sum(0, keepdim=True) - torch.zeros(2, 3)": [2, 3],  # ANSWER
    "torch.zeros(2, 3).sum(0) - torch.zeros(2, 3)": [2, 3],  # ANSWER
    "torch.zeros(4, 1, 3) + torch.zeros(4, 3)": [4, 4, 3],  # ANSWER
    "torch.zeros(1) + torch.zeros(0)": [0],  # ANSWER
}

# %% tags=["check-1.3"]
check("1.3", answers_1_3)

# %% [markdown]
# ## Exercise 1.4: strides and contiguity
#
# With `x = torch.zeros(2, 3, 4)`, predict each stride (as a list) and each
# `is_contiguous()` (`True` or `False`).

# %% tags=["exercise-1.4"]
answers_1_4 = {
    "x.stride()": [12, 4, 1],  # ANSWER
    "x.transpose(0, 2).stride()": [1, 4, 12],  # ANSWER
    "x[:, 1].stride()": [12, 1],  # ANSWER
    "x[:, :, ::2].stride()": [12, 4, 2],  # ANSWER
    "x.permute(1, 0, 2).stride()": [4, 12, 1],  # ANSWER
    "x[1:, 1:].stride()": [12, 4, 1],  # ANSWER
    "torch.zeros(3, 1).expand(3, 4).stride()": [1, 0],  # ANSWER
    "x.transpose(0, 1).is_contiguous()": False,  # ANSWER
    "x[:, :, 1:3].is_contiguous()": False,  # ANSWER
    "x[1].is_contiguous()": True,  # ANSWER
    "x[:, :2].is_contiguous()": False,  # ANSWER
    "torch.zeros(3, 1).expand(3, 4).is_contiguous()": False,  # ANSWER
    "x.transpose(0, 1).contiguous().stride()": [8, 4, 1],  # ANSWER
}

# %% tags=["check-1.4"]
check("1.4", answers_1_4)

# %% [markdown]
# ## Exercise 1.5: the strides of a fresh tensor
#
# Write `contiguous_strides(shape)`: the strides, as a tuple, of a row-major
# tensor of `shape` (the chapter derives the recurrence). The check makes the
# engine use your function for every tensor it creates (`zeros`, `reshape`,
# results of arithmetic, `contiguous`...) and compares shapes, strides and
# values with PyTorch's.

# %% tags=["exercise-1.5"]
def contiguous_strides(shape):
    """The strides of a row-major tensor of this shape."""
    # BEGIN SOLUTION
    result = [0] * len(shape)
    block = 1
    for dim in range(len(shape) - 1, -1, -1):
        result[dim] = block
        block = block * shape[dim] if shape[dim] else block
    return tuple(result)
    # END SOLUTION


# %% tags=["check-1.5"]
check("1.5", contiguous_strides)

# %% [markdown]
# ## Exercise 1.6: the `-1` of `reshape`
#
# `x.reshape(3, -1)` lets PyTorch work out one size. Write
# `infer_shape(shape, count)`: `shape` as a tuple with the `-1` replaced, for a
# tensor of `count` elements. Raise `RuntimeError` (as PyTorch does) when
# there is more than one `-1`, a size below -1, or no way to hold exactly
# `count` elements. The engine's `reshape` and `view` will call yours.

# %% tags=["exercise-1.6"]
def infer_shape(shape, count):
    """``shape`` with its -1 filled in, for ``count`` elements."""
    # BEGIN SOLUTION
    shape = tuple(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if any(size < -1 for size in shape):
        raise RuntimeError(f"invalid shape {list(shape)}")
    known = 1
    for size in shape:
        if size != -1:
            known *= size
    if -1 not in shape:
        if known != count:
            raise RuntimeError(f"shape {list(shape)} is invalid for size {count}")
        return shape
    if known == 0 or count % known:
        raise RuntimeError(f"shape {list(shape)} is invalid for size {count}")
    where = shape.index(-1)
    return shape[:where] + (count // known,) + shape[where + 1 :]
    # END SOLUTION


# %% tags=["check-1.6"]
check("1.6", infer_shape)

# %% [markdown]
# ## Exercise 1.7: every position of a strided view
#
# Write `position_list(shape, strides, offset)`: the storage position of every
# element, in row-major order of the index (last dimension fastest). The
# engine reads every strided view through it: `tolist`, arithmetic on
# transposed tensors, `contiguous`... Build the list one dimension at a time,
# without making index tuples (a chapter-1 kernel must be quick).

# %% tags=["exercise-1.7"]
def position_list(shape, strides, offset):
    """The storage positions of every element, row-major."""
    # BEGIN SOLUTION
    found = [offset]
    for size, stride in zip(shape, strides):
        found = [start + i * stride for start in found for i in range(size)]
    return found
    # END SOLUTION


# %% tags=["check-1.7"]
check("1.7", position_list)

# %% [markdown]
# ## Exercise 1.8: when can `view` avoid a copy?
#
# `x.view(new_shape)` must read the *same storage* in the new shape; `reshape`
# does the same when it can and copies otherwise. Write
# `view_strides(shape, strides, new_shape)`: strides that read the elements of
# a tensor with this `shape` and `strides`, in row-major order, as a tensor of
# `new_shape` — or `None` when no strides can (then `view` raises and
# `reshape` copies). You may assume both shapes hold the same number of
# elements.
#
# The idea: old dimensions that "chain" (the stride of dimension `d - 1` is
# the size times the stride of dimension `d`) behave as one evenly spaced
# block; a new shape can cut each block into any sizes with the same product,
# never across two blocks. The check runs `view` and `reshape` on transposed,
# sliced and permuted tensors through your function.

# %% tags=["exercise-1.8"]
def view_strides(shape, strides, new_shape):
    """Strides that read the same elements in ``new_shape``, or None."""
    # BEGIN SOLUTION
    total = 1
    for size in shape:
        total *= size
    if total == 0:
        if tuple(shape) == tuple(new_shape):
            return tuple(strides)
        block, fresh = 1, []
        for size in reversed(new_shape):
            fresh.insert(0, block)
            block *= max(size, 1)
        return tuple(fresh)
    blocks = []  # (elements, innermost stride), innermost block first
    elements, inner = 1, strides[-1] if strides else 1
    for dim in reversed(range(len(shape))):
        elements *= shape[dim]
        chained = strides[dim - 1] == elements * inner if dim > 0 else False
        joins = dim > 0 and (shape[dim - 1] == 1 or chained)
        if not joins:
            blocks.append((elements, inner))
            elements = 1
            if dim > 0:  # the next block starts at the dimension before
                inner = strides[dim - 1]
    result = [1] * len(new_shape)
    dim = len(new_shape) - 1
    for elements, inner in blocks:
        placed = 1
        while dim >= 0 and (placed < elements or new_shape[dim] == 1):
            result[dim] = placed * inner
            placed *= new_shape[dim]
            dim -= 1
        if placed != elements:
            return None
    # A 0-d tensor has no block: every new size must be 1.
    return tuple(result) if all(s == 1 for s in new_shape[: dim + 1]) else None
    # END SOLUTION


# %% tags=["check-1.8"]
check("1.8", view_strides)

# %% [markdown]
# ## Exercise 1.9: broadcasting as a view
#
# `x.expand(*sizes)` shows `x` broadcast to `sizes` without copying a
# single element: the chapter's stride 0 reads the same cell again at every
# step along a stretched dimension. Write `expanded_layout(shape, strides,
# sizes)`: the shape and the strides (two tuples) of that view of a tensor
# with this `shape` and these `strides`. The engine's `expand` calls yours,
# and the check runs it on fresh, sliced and transposed tensors.
#
# **The contract** (PyTorch's, as for broadcasting in exercise 1.3):
# - `sizes` is lined up with `shape` on the right; it may have more
#   dimensions than `shape`, which then come first (new dimensions).
# - Along an existing dimension, a size equal to the old one, or `-1`, keeps
#   the old size and stride. An old size 1 can become any other size (a
#   stretched dimension). Any other size raises `RuntimeError`.
# - A new dimension takes its size from `sizes` and is stretched, except
#   that a new dimension of size 1 reads nothing twice: PyTorch gives it the
#   stride a contiguous layout would (the size times the stride of the
#   dimension after it). A negative size there raises `RuntimeError`.
# - (That `sizes` has at least as many dimensions as `shape` is checked
#   before your function is called.)

# %% tags=["exercise-1.9"]
def expanded_layout(shape, strides, sizes):
    """Shape and strides of the view of a tensor broadcast to ``sizes``."""
    # BEGIN SOLUTION
    new = len(sizes) - len(shape)  # leading dimensions that do not exist yet
    out_shape = [0] * len(sizes)
    out_strides = [0] * len(sizes)
    for dim in range(len(sizes) - 1, -1, -1):
        size = sizes[dim]
        if dim >= new:
            have, step = shape[dim - new], strides[dim - new]
            if size in (-1, have):
                out_shape[dim], out_strides[dim] = have, step
            elif have == 1:
                out_shape[dim], out_strides[dim] = size, 0
            else:
                raise RuntimeError(
                    f"The expanded size of the tensor ({size}) must match the "
                    f"existing size ({have}) at non-singleton dimension {dim}.  "
                    f"Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}"
                )
        elif size < 0:
            raise RuntimeError(
                f"The expanded size of the tensor ({size}) isn't allowed in a "
                "leading, non-existing dimension"
            )
        else:
            out_shape[dim] = size
            if size == 1 and dim + 1 < len(sizes):  # read once: no stretch
                out_strides[dim] = out_shape[dim + 1] * out_strides[dim + 1]
    return tuple(out_shape), tuple(out_strides)
    # END SOLUTION


# %% tags=["check-1.9"]
check("1.9", expanded_layout)

# %% [markdown]
# ## Exercise 1.10 (build): basic indexing
#
# `x[1, ::2, None, ...]` reads the same storage as `x`, in another shape:
# every *basic* item (an integer, a slice, `None`, `...`) gives a view. Write
# `basic_index(tensor, items, skip_full)`, the engine's reading of an index:
# it returns the view the basic items give and the *advanced* items (lists,
# integer and bool tensors), which it leaves for exercise 1.11. The engine
# calls it for every `x[...]` and every `x[...] = value`; the check compares
# shapes, strides, storage offsets, `grad_fn`s, written values and gradients
# with PyTorch's.
#
# **The maths.** A tensor of shape $(n_0, \dots, n_{d-1})$, strides
# $(s_0, \dots, s_{d-1})$ and offset $o$ holds element $(i_0, \dots)$ at
# $o + \sum_k i_k s_k$. Fixing $i_k = j$ adds $j s_k$ to the offset and
# removes dimension $k$; keeping $i_k = a + b\,t$ for $t = 0, 1, \dots$ adds
# $a s_k$ to the offset and makes the stride $b s_k$; a new dimension of size
# 1 can have any stride. The views that do this exist: `x.select(dim, j)`,
# `slice_dim(x, dim, start, stop, step)` (from `slowtorch_lib.ops.views`;
# it clamps `start` and `stop` as Python's slices do, and raises `ValueError`
# for a step that is not positive) and `x.unsqueeze(dim)`. The result's
# `grad_fn` is the last view taken.
#
# **The contract.** `items` is the index as a tuple, one entry per item,
# read from left to right.
# - An integer $j$ picks element $j$ of its dimension, which goes away
#   ($-n \le j < n$, counted from the end when negative; else `IndexError`).
#   A 0-d integer tensor is that integer; a 0-d floating-point tensor, a
#   float or any other object is an `IndexError`, a string a `TypeError`.
# - A slice keeps its dimension. With `skip_full`, a slice with step 1 that
#   covers the whole dimension (`:`, `0:`, `:n` or beyond) takes no view, so
#   that `h[:] = v` writes into `h` itself (its `grad_fn` is then the copy's,
#   not `CopySlices`). The engine passes `skip_full=False` only for a lone
#   slice (`x[:]`, which is a `SliceBackward0` view in PyTorch).
# - `None` inserts a dimension of size 1 where it stands. `True` and `False`
#   do too, and are then advanced items: an index tensor `[0]` or `[]` (int64)
#   into that new dimension; a 0-d bool tensor is the same.
# - `...` stands for as many `:` as the tensor has dimensions that no other
#   item indexes (a $k$-dimensional bool mask indexes $k$).
# - Every other item is advanced: a list or tensor (`_index_tensor(item)`
#   makes it an index tensor, raising where PyTorch raises). It is collected
#   as `(dimension of the view, index tensor)` and indexes one dimension, or
#   $k$ for a bool mask. Return `view, _masks_to_indices(view, collected)`.
# - More indexed dimensions than the tensor has raise `IndexError`. An
#   integer into a 0-d tensor raises PyTorch's own message, which
#   `tensor.select(0, j)` gives.
#
# When the result is the tensor itself (`x[...]`, `x[:, :]`), the engine
# makes an alias of it: that is not your concern.

# %% tags=["exercise-1.10"]
from slowtorch_lib.ops.indexing import _index_tensor, _masks_to_indices
from slowtorch_lib.ops.views import slice_dim


def basic_index(tensor, items, skip_full):
    """Applies the basic items as views; collects the advanced ones."""
    # BEGIN SOLUTION
    def width(item):  # how many dimensions of ``tensor`` the item indexes
        if item is None or item is Ellipsis or isinstance(item, bool):
            return 0
        if isinstance(item, torch.Tensor) and item.dtype == torch.bool:
            return item.dim()
        return 1

    ndim = tensor.dim()
    taken = sum(width(item) for item in items)
    if taken > ndim:
        first = next(i for i in items if i is not None and i is not Ellipsis)
        if ndim == 0 and isinstance(first, int) and not isinstance(first, bool):
            return tensor.select(0, first), []  # raises PyTorch's message
        if ndim == 0 and isinstance(first, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    view, dim, named = tensor, 0, 0  # view's next dimension, tensor's
    collected, spread = [], False
    for item in items:
        if isinstance(item, torch.Tensor) and item.dim() == 0:  # a number
            if item.dtype.is_floating_point:
                raise IndexError("tensors used as indices must be long, int, "
                                 "byte or bool tensors")
            is_bool = item.dtype == torch.bool
            item = bool(item.item()) if is_bool else int(item.item())
        if item is Ellipsis:
            if not spread:
                dim, named = dim + ndim - taken, named + ndim - taken
            spread = True
        elif item is None or isinstance(item, bool):
            view = view.unsqueeze(dim)
            if item is not None:  # True picks the one element, False none
                chosen = [0] if bool(item) else []
                collected.append((dim, torch.tensor(chosen, dtype=torch.int64)))
            dim, named = dim + 1, named + 1
        elif isinstance(item, int):
            size = view.shape[dim]
            if not -size <= item < size:
                raise IndexError(f"index {item} is out of bounds for dimension "
                                 f"{named} with size {size}")
            view, named = view.select(dim, item), named + 1
        elif isinstance(item, slice):
            step = 1 if item.step is None else int(item.step)
            whole = item.start in (None, 0) and (
                item.stop is None or item.stop >= view.shape[dim]
            )
            if not (skip_full and step == 1 and whole):
                view = slice_dim(view, dim, item.start, item.stop, step)
            dim, named = dim + 1, named + 1
        else:
            if isinstance(item, (str, bytes)):
                raise TypeError(f"new(): invalid data type '{type(item).__name__}'")
            index = _index_tensor(item)
            if index is None:
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), "
                                 "None and long or byte Variables are valid indices")
            collected.append((dim, index))
            spans = index.dim() if index.dtype == torch.bool else 1
            dim, named = dim + spans, named + spans
    return view, _masks_to_indices(view, collected)
    # END SOLUTION


# %% tags=["check-1.10"]
check("1.10", basic_index)

# %% [markdown]
# ## Exercise 1.11 (build): advanced indexing
#
# Indexing with integers and slices gives a view. Indexing with **tensors or
# lists of integers** (advanced indexing) cannot: the elements it picks are
# not evenly spaced, so `x[[0, 2, 2]]` copies them into a new tensor. Write
# the heart of it, `advanced_positions(tensor, advanced)`: which elements of
# `tensor` the result holds, and in which shape. The engine applies the
# basic items (integers, slices, `None`, `...`) first, as views (exercise
# 1.10), and calls
# your function with that view and `advanced`, a list of
# `(dimension, index tensor)` pairs (int64 tensors, in increasing order of
# dimension). The check runs `x[...]`, `x[...] = v` and their gradients
# through your function.
#
# **The rules (PyTorch's, and NumPy's).**
# - The index tensors are broadcast together to one shape `I`; a value
#   `-size <= v < size` picks element `v % size` along its dimension, and
#   any other value raises `IndexError` (as does a set of index shapes that
#   do not broadcast, and any index into a dimension of size 0, unless the
#   broadcast index holds no element).
# - The dimensions that are not indexed stay. When the indexed dimensions
#   are next to each other, `I` takes their place: `x` of shape
#   `(A, B, C, D)` indexed in dimensions 1 and 2 gives `(A,) + I + (D,)`.
#   When they are not (dimensions 0 and 2 of it), `I` comes first:
#   `I + (B, D)`.
# - Return `(positions, shape)`: `shape` is the result's shape and
#   `positions` the row-major position, in `tensor` laid out contiguously
#   (strides as in exercise 1.5), of each element of the result, in the
#   result's row-major order. When a dimension that stays has size 0 the
#   result is empty, and no index value is checked.


# %% tags=["exercise-1.11"]
def advanced_positions(tensor, advanced):
    """The row-major positions in ``tensor`` picked by the advanced indices,
    and the result's shape."""
    # BEGIN SOLUTION
    shape = tuple(tensor.shape)
    try:
        index_shape = tuple(torch.broadcast_shapes(*(i.shape for _, i in advanced)))
    except RuntimeError:
        shapes = ", ".join(str(list(i.shape)) for _, i in advanced)
        raise IndexError(
            "shape mismatch: indexing tensors could not be broadcast together "
            f"with shapes {shapes}"
        ) from None
    step = [1] * len(shape)  # the strides of the contiguous layout
    for dim in range(len(shape) - 2, -1, -1):
        step[dim] = step[dim + 1] * shape[dim + 1]
    dims = [dim for dim, _ in advanced]
    if 0 in (shape[dim] for dim in dims) and 0 not in index_shape:
        raise IndexError("index is out of bounds for dimension with size 0")
    kept = [dim for dim in range(len(shape)) if dim not in dims]
    count = 1
    for size in index_shape:
        count *= size
    picked = [0] * count
    if all(shape[dim] > 0 for dim in kept):
        for number, (dim, index) in enumerate(advanced):
            size = shape[dim]
            values = index.expand(index_shape).reshape(-1).tolist()
            for i, value in enumerate(values):
                if not -size <= value < size:
                    raise IndexError(
                        f"index {value} is out of bounds for dimension {number} "
                        f"with size {size}"
                    )
                picked[i] += (value % size) * step[dim]
    together = dims == list(range(dims[0], dims[-1] + 1))
    before = [dim for dim in kept if together and dim < dims[0]]
    after = [dim for dim in kept if dim not in before]

    def every(chosen):
        found = [0]
        for dim in chosen:
            found = [f + k * step[dim] for f in found for k in range(shape[dim])]
        return found

    positions = [b + p + a for b in every(before) for p in picked for a in every(after)]
    sizes = tuple(shape[dim] for dim in before) + index_shape
    return positions, sizes + tuple(shape[dim] for dim in after)
    # END SOLUTION


# %% tags=["check-1.11"]
check("1.11", advanced_positions)
