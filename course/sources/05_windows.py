# ruff: noqa: F821, F811  (setup-cell names; each answer cell imports its own)

# %% [markdown]
# # Chapter 5 exercises: windows
#
# Two predictions first (shapes and strides of window views; where the
# gradient of a pooling goes), checked against PyTorch's recorded answers.
# Then pieces of the engine: the number of windows along a dimension, the
# 6-d window view, `as_strided`'s backward, the convolution as windows @
# weight with groups, max pooling that routes ties as PyTorch does, average
# pooling's backward and adaptive pooling's windows; then a whole layer,
# `nn.Conv2d`. Each check puts your piece **into the engine in place of its
# own** and runs real convolutions and poolings through it, comparing values
# and gradients with PyTorch's. Keep everything an answer needs inside its
# cell: the grader runs each answer cell on its own.

# %% [markdown]
# ## Exercise 5.1: window views
#
# `x` is `torch.arange(20.).reshape(4, 5)` and `F` is `torch.nn.functional`.
# Predict each value: shapes and strides as tuples, values as lists.

# %% tags=["exercise-5.1"]
answers_5_1 = {
    "torch.arange(10.).unfold(0, 4, 2).shape": (4, 4),  # ANSWER
    "torch.arange(10.).unfold(0, 4, 2).stride()": (2, 1),  # ANSWER
    "x.unfold(1, 3, 1).shape": (4, 3, 3),  # ANSWER
    "x.unfold(1, 3, 1).stride()": (5, 1, 1),  # ANSWER
    "x.unfold(0, 2, 2).unfold(1, 2, 1).shape": (2, 4, 2, 2),  # ANSWER
    "x.unfold(0, 2, 2).unfold(1, 2, 1).stride()": (10, 1, 5, 1),  # ANSWER
    "x.as_strided((2, 3, 3, 3), (5, 1, 5, 1))"
    "[1, 2, 0].tolist()": [7.0, 8.0, 9.0],  # ANSWER
    "F.unfold(torch.zeros(2, 3, 6, 6), 3).shape": (2, 27, 16),  # ANSWER
    "F.unfold(torch.zeros(1, 2, 7, 7), 3, stride=2, "
    "padding=1).shape": (1, 18, 16),  # ANSWER
    "F.conv2d(torch.zeros(1, 4, 9, 9), torch.zeros(6, 2, 3, 3), groups=2, "
    "dilation=2).shape": (1, 6, 5, 5),  # ANSWER
    "F.max_pool2d(torch.zeros(1, 1, 7, 7), 2, "
    "ceil_mode=True).shape": (1, 1, 4, 4),  # ANSWER
}

# %% tags=["check-5.1"]
check("5.1", answers_5_1)

# %% [markdown]
# ## Exercise 5.2: where the gradient goes
#
# For each expression, the input `t` (or `u`) requires a gradient, the
# result is summed and `.backward()` is called. Predict the input's
# gradient, as nested lists of the input's shape: `t` and `u` are
# `(1, 1, H, W)` images (four levels of lists), the last input is 1-d.

# %% tags=["exercise-5.2"]
answers_5_2 = {
    "max_pool2d(t, 2), t = [[1, 3], [3, 2]]": [[[[0.0, 1.0], [0.0, 0.0]]]],  # ANSWER
    "t.amax((-2, -1)), t = [[1, 3], [3, 2]]": [[[[0.0, 0.5], [0.5, 0.0]]]],  # ANSWER
    "max_pool2d(u, 2, stride=1), u = [[1, 5, 1], [1, 1, 1], [1, 1, 1]]":
        [[[[0.0, 2.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 0.0]]]],  # ANSWER
    "avg_pool2d(u, 2, stride=1), u as above":
        [[[[0.25, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 0.25]]]],  # ANSWER
    "adaptive_avg_pool2d(ones(1, 1, 1, 5), (1, 3))":
        [[[[1 / 2, 1 / 2 + 1 / 3, 1 / 3, 1 / 3 + 1 / 2, 1 / 2]]]],  # ANSWER
    "max_pool2d(v, 2), v = [[2, 2], [2, 2]]": [[[[1.0, 0.0], [0.0, 0.0]]]],  # ANSWER
    "arange(4.).as_strided((2, 2), (1, 1))": [1.0, 2.0, 1.0, 0.0],  # ANSWER
}

# %% tags=["check-5.2"]
check("5.2", answers_5_2)

# %% [markdown]
# ## Exercise 5.3: how many windows fit
#
# Along one dimension of `size` elements, padded with `padding` zeros on
# each side, windows of `kernel` elements spread `dilation` apart start
# `stride` elements apart. How many fit? The engine's convolutions and
# `F.unfold` use your count for the size of their output.


# %% tags=["exercise-5.3"]
def blocks(size, kernel, dilation, padding, stride):
    """How many windows fit along one dimension."""
    # BEGIN SOLUTION
    span = dilation * (kernel - 1) + 1
    return (size + 2 * padding - span) // stride + 1
    # END SOLUTION


# %% tags=["check-5.3"]
check("5.3", blocks)

# %% [markdown]
# ## Exercise 5.4: every window, one view
#
# Write `windows(x, kernel, dilation, stride)`: every `kernel` window of an
# `(N, C, H, W)` tensor `x` (already padded) as one view of shape
# `(N, C, out_h, out_w, kh, kw)`, made with `x.as_strided`, nothing copied.
# `kernel`, `dilation` and `stride` are pairs (rows, columns). `x` may be any
# view (transposed, sliced): start from its strides and its storage offset.
# `F.unfold` and every convolution of the engine read their windows through
# your view.


# %% tags=["exercise-5.4"]
def windows(x, kernel, dilation, stride):
    """Every window of x, as a 6-d view."""
    # BEGIN SOLUTION
    sizes, steps = list(x.shape[:2]), list(x.stride()[:2])
    inside = []
    for d in range(2):
        extent, step = x.shape[2 + d], x.stride()[2 + d]
        span = dilation[d] * (kernel[d] - 1) + 1
        sizes.append((extent - span) // stride[d] + 1)
        steps.append(step * stride[d])
        inside.append(step * dilation[d])
    sizes += list(kernel)
    return x.as_strided(sizes, steps + inside, x.storage_offset())
    # END SOLUTION


# %% tags=["check-5.4"]
check("5.4", windows)

# %% [markdown]
# ## Exercise 5.5: the backward of `as_strided`
#
# `as_strided_backward(ctx, grad_output)`, the engine's `AsStrided.backward`,
# receives the gradient of the view. The forward saved two geometries, each
# `(shape, strides, offset)`: `ctx.geometry` (the view's) and
# `ctx.input_geometry` (the input's). The function
# `position_list(shape, strides, offset)` (from `slowtorch_lib._strides`)
# gives the storage cell of every element of a geometry, in row-major order.
#
# Each element of the view was read from one cell: add its gradient into
# that cell (cells read by overlapping windows add up). Each element of the
# input then gets the total of its cell, except that an input which shows
# one cell at several elements (an expanded tensor) shares the total evenly
# among them, as PyTorch does. Cells the input does not show get nothing.
# Return a tensor of the input's shape, built with tensor operations
# (`torch.zeros`, `index_add`, indexing, `/`) so that it has a backward.


# %% tags=["exercise-5.5"]
def as_strided_backward(ctx, grad_output):
    """The gradient of as_strided's input: each cell's total."""
    # BEGIN SOLUTION
    from collections import Counter

    from slowtorch_lib._strides import position_list

    shape = ctx.input_geometry[0]
    input_cells = position_list(*ctx.input_geometry)
    output_cells = position_list(*ctx.geometry)
    slot = {cell: i for i, cell in enumerate(sorted(set(input_cells)))}
    slots = torch.tensor([slot.get(c, len(slot)) for c in output_cells])
    totals = torch.zeros(len(slot) + 1, dtype=grad_output.dtype)
    totals = totals.index_add(0, slots, grad_output.reshape(-1))
    picked = totals[torch.tensor([slot[c] for c in input_cells])]
    shown = Counter(input_cells)
    counts = [float(shown[c]) for c in input_cells]
    if max(counts, default=1.0) > 1:
        picked = picked / torch.tensor(counts, dtype=grad_output.dtype)
    return picked.reshape(shape)
    # END SOLUTION


# %% tags=["check-5.5"]
check("5.5", as_strided_backward)

# %% [markdown]
# ## Exercise 5.6: windows @ weight, with groups
#
# Write `weight_times_columns(weight, columns, size, s)`: the filters times
# the window columns. `weight` is `(O, C / g, kh, kw)`, `columns` is
# `F.unfold`'s `(N, C * kh * kw, L)`, `size` is the input's `(H, W)` and `s`
# holds the settings (`s.stride`, `s.padding`, `s.dilation` as pairs,
# `s.groups`). Return `(N, O, out_h, out_w)`. With `g` groups, filter block
# `i` (of `O / g` filters) sees only the rows of channel block `i`. Make the
# groups a batch dimension of one `@`, not a loop.


# %% tags=["exercise-5.6"]
def weight_times_columns(weight, columns, size, s):
    """The convolution's output: filters times window columns, per group."""
    # BEGIN SOLUTION
    n, rows, count = columns.shape
    filters = weight.shape[0]
    g = s.groups
    per_group = weight.reshape(g, filters // g, rows // g)
    out = per_group @ columns.reshape(n, g, rows // g, count)  # (N, g, O/g, L)
    shape = []
    for d in range(2):
        span = s.dilation[d] * (weight.shape[2 + d] - 1) + 1
        shape.append((size[d] + 2 * s.padding[d] - span) // s.stride[d] + 1)
    return out.reshape(n, filters, shape[0], shape[1])
    # END SOLUTION


# %% tags=["check-5.6"]
check("5.6", weight_times_columns)

# %% [markdown]
# ## Exercise 5.7: max pooling, ties as PyTorch routes them
#
# Write `max_pool_forward`, the forward of `MaxPool2DWithIndices`: for every
# channel of `x` (all dimensions but the last two) and every window, the
# largest element and its flat position `r * W + c` in the channel.
# `cells[w]` lists the flat
# positions of window `w`'s elements in one `H x W` channel (padding left
# out), in row-major order; `out_size` is `(out_h, out_w)`.
#
# PyTorch picks the **first** largest element of the window's scan: a later
# element wins only if it is strictly larger, or if it is NaN (a NaN is the
# maximum of any window it is in; the last NaN wins). Return
# `(values, indices)` of shape `x.shape[:-2] + out_size` (values in `x`'s
# dtype, indices int64), mark the indices non-differentiable
# (`ctx.mark_non_differentiable`), and save for the chapter's backward
# `ctx.input_shape` (`x`'s shape) and `ctx.positions` (for each output
# element, in order, the flat position in the **whole** input that it took).


# %% tags=["exercise-5.7"]
def max_pool_forward(ctx, x, *, cells, out_size):
    """The first largest element of each window, and where it is."""
    # BEGIN SOLUTION
    plane = x.shape[-2] * x.shape[-1]
    channels = x.reshape(-1, plane).tolist() if plane else []
    picked, where, positions = [], [], []
    for k, channel in enumerate(channels):
        for cell in cells:
            best = cell[0]
            for p in cell[1:]:
                if channel[p] > channel[best] or channel[p] != channel[p]:
                    best = p
            picked.append(channel[best])
            where.append(best)
            positions.append(k * plane + best)
    shape = tuple(x.shape[:-2]) + tuple(out_size)
    values = torch.tensor(picked, dtype=x.dtype).reshape(shape)
    indices = torch.tensor(where, dtype=torch.int64).reshape(shape)
    ctx.input_shape = x.shape
    ctx.positions = positions
    ctx.mark_non_differentiable(indices)
    return values, indices
    # END SOLUTION


# %% tags=["check-5.7"]
check("5.7", max_pool_forward)

# %% [markdown]
# ## Exercise 5.8: average pooling's backward
#
# The forward of `AvgPool2D` (in the chapter) saved `ctx.input_shape` and
# `ctx.layout = (cells, divisors, plane)`: for window `w`, `cells[w]` lists
# its flat positions in one channel and `divisors[w]` what its sum was
# divided by; `plane` is `H * W`. `grad_output` has the output's shape,
# `x.shape[:-2] + (out_h, out_w)`. Each element of window `w` of channel
# `k` gets `grad_output[k, w] / divisors[w]`, added over every window that
# covers it. Build the result with tensor operations (indexing, `index_add`)
# so that it has a backward of its own.


# %% tags=["exercise-5.8"]
def avg_pool_backward(ctx, grad_output):
    """Each window's gradient shared evenly by its elements."""
    # BEGIN SOLUTION
    cells, divisors, plane = ctx.layout
    flat = grad_output.reshape(-1)
    windows = max(len(cells), 1)
    source, target, scale = [], [], []
    for k in range(flat.numel()):
        cell = cells[k % windows]
        source += [k] * len(cell)
        target += [(k // windows) * plane + p for p in cell]
        scale += [1 / divisors[k % windows]] * len(cell)
    dtype = grad_output.dtype
    shared = flat[torch.tensor(source, dtype=torch.int64)]
    shared = shared * torch.tensor(scale, dtype=dtype)
    total = 1
    for size in ctx.input_shape:
        total *= size
    grad = torch.zeros(total, dtype=dtype)
    grad = grad.index_add(0, torch.tensor(target, dtype=torch.int64), shared)
    return grad.reshape(ctx.input_shape)
    # END SOLUTION


# %% tags=["check-5.8"]
check("5.8", avg_pool_backward)

# %% [markdown]
# ## Exercise 5.9: adaptive pooling's windows
#
# Adaptive pooling turns `size` elements into `out`: window `i` runs from
# `floor(i * size / out)` up to, not including, `ceil((i + 1) * size / out)`.
# Return the list of every window's indices.


# %% tags=["exercise-5.9"]
def adaptive_ranges(size, out):
    """The indices each of the out windows covers."""
    # BEGIN SOLUTION
    ranges = []
    for i in range(out):
        ranges.append(list(range(i * size // out, -(-(i + 1) * size // out))))
    return ranges
    # END SOLUTION


# %% tags=["check-5.9"]
check("5.9", adaptive_ranges)

# %% [markdown]
# ## Exercise 5.10 (build): `nn.Conv2d`, the whole layer
#
# Write `Conv2d(torch.nn.Module)` as PyTorch's, with the signature
# `Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0,
# dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
# dtype=None)`.
#
# - **Settings.** `kernel_size`, `stride` and `dilation` are stored as pairs
#   (`3` becomes `(3, 3)`); `padding` too, unless it is the string `"same"`
#   or `"valid"`, which is stored as it is. Refuse with `ValueError`, and
#   PyTorch's messages: `groups must be a positive integer`,
#   `in_channels must be divisible by groups`,
#   `out_channels must be divisible by groups`,
#   `padding='same' is not supported for strided convolutions`, and for a
#   padding string or a `padding_mode` it does not know.
# - **Parameters.** `weight` of shape `(out, in / groups, kh, kw)`, `bias` of
#   `(out,)` or `None` (`register_parameter("bias", None)`), drawn by
#   `reset_parameters()`: `torch.nn.init.kaiming_uniform_(weight,
#   a=math.sqrt(5))`, and the bias from `U(-b, b)` with
#   `b = 1 / sqrt(fan_in)`, `fan_in = in / groups * kh * kw`.
# - **Forward.** `F.conv2d` with the settings. With a `padding_mode` other
#   than `"zeros"`, pad first with `F.pad(input, amounts, mode=padding_mode)`
#   (amounts for the last dimension first: `(left, right, top, bottom)`;
#   for `"same"`, a total of `dilation * (k - 1)`, the smaller half first),
#   then convolve with no padding.
# - **Repr.** `Conv2d(3, 8, kernel_size=(3, 3), stride=(2, 2),
#   padding=(1, 1))`: after the channels, `kernel_size` and `stride` always,
#   then only what differs from the default, in this order: `padding`,
#   `dilation`, `groups`, `bias=False`, `padding_mode=...` (the mode
#   without quotes).


# %% tags=["exercise-5.10"]
import math


class Conv2d(torch.nn.Module):
    """A 2-d convolution layer."""

    def __init__(
        self, in_channels, out_channels, kernel_size, stride=1, padding=0,
        dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
        dtype=None,
    ):
        # BEGIN SOLUTION
        super().__init__()

        def pair(value):
            return tuple(value) if isinstance(value, (tuple, list)) else (value,) * 2

        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = pair(kernel_size), pair(stride)
        self.dilation, self.groups = pair(dilation), groups
        self.padding_mode = padding_mode
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(
                "padding_mode must be one of {'zeros', 'reflect', 'replicate', "
                f"'circular'}}, but got padding_mode='{padding_mode}'"
            )
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string {padding!r}, should be "
                             "one of {'valid', 'same'}")
        if padding == "same" and self.stride != (1, 1):
            raise ValueError("padding='same' is not supported for strided convolutions")
        self.padding = padding if isinstance(padding, str) else pair(padding)
        shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = torch.nn.Parameter(torch.empty(shape, dtype=dtype))
        self.register_parameter("bias", None)
        if bias:
            self.bias = torch.nn.Parameter(torch.empty(out_channels, dtype=dtype))
        self.reset_parameters()
        # END SOLUTION

    def reset_parameters(self):
        # BEGIN SOLUTION
        torch.nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.weight[0].numel())
            torch.nn.init.uniform_(self.bias, -bound, bound)
        # END SOLUTION

    def forward(self, input):
        # BEGIN SOLUTION
        F = torch.nn.functional
        settings = (self.stride, self.padding, self.dilation, self.groups)
        if self.padding_mode == "zeros":
            return F.conv2d(input, self.weight, self.bias, *settings)
        amounts = []
        for d in (1, 0):
            if self.padding == "same":
                total = self.dilation[d] * (self.kernel_size[d] - 1)
                amounts += [total // 2, total - total // 2]
            elif self.padding == "valid":
                amounts += [0, 0]
            else:
                amounts += [self.padding[d]] * 2
        padded = F.pad(input, amounts, mode=self.padding_mode)
        return F.conv2d(padded, self.weight, self.bias, self.stride, 0,
                        self.dilation, self.groups)
        # END SOLUTION

    def extra_repr(self):
        # BEGIN SOLUTION
        parts = [str(self.in_channels), str(self.out_channels),
                 f"kernel_size={self.kernel_size}", f"stride={self.stride}"]
        defaults = {"padding": (0, 0), "dilation": (1, 1), "groups": 1}
        for name, default in defaults.items():
            if getattr(self, name) != default:
                parts.append(f"{name}={getattr(self, name)}")
        if self.bias is None:
            parts.append("bias=False")
        if self.padding_mode != "zeros":
            parts.append(f"padding_mode={self.padding_mode}")
        return ", ".join(parts)
        # END SOLUTION


# %% tags=["check-5.10"]
check("5.10", Conv2d)

# %% [markdown]
# ## Your CNN
#
# Your `Conv2d` now runs in chapter 5's CNN (convolution, ReLU, max pooling,
# a linear layer), trained with Adam for a few steps on the digits, on your
# engine. PyTorch trained the same model (with its own `nn.Conv2d`) from the
# same weights on the same batches, and its run is recorded: every step's
# loss must equal PyTorch's to within 1e-5. If it does not, the cell says
# where to look.

# %%
from course import model_runs

run = model_runs.train_cnn(
    torch, Conv2d, model_runs.printed_progress, say_missing=True
)
print(run.report())
