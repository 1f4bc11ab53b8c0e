# ruff: noqa: F821  (torch and check come from the setup cell of every notebook)

# %% [markdown]
# # Chapter 3 exercises: building blocks
#
# First three predictions (what a model holds and names, which `grad_fn` a
# layer or a loss records, what changes between `train()` and `eval()` and
# in a training step), checked against PyTorch's recorded answers. Then
# pieces of the engine's `nn`: backward rules of an activation, of the
# linear layer and of `log_softmax`; Kaiming's initialisation;
# `cross_entropy`; the walk that finds a model's parameters and buffers; the check
# that makes loading a safetensors file safe; the embedding lookup and its
# backward; and `load_state_dict`. Each check puts your piece
# **into the engine in place of its own** and runs real models, losses and
# files through it.
#
# As in chapter 2, a backward rule is a function `backward(ctx, grad_output)`
# that returns d(loss)/d(input) for each input, written with tensor
# operations. Keep everything an answer needs inside its cell: the grader
# runs each answer cell on its own.

# %% [markdown]
# ## Exercise 3.1: names in a model
#
# The check builds, with seeded weights:
#
# ```python
# class Block(nn.Module):
#     def __init__(self):
#         super().__init__()
#         self.fc = nn.Linear(2, 3)
#         self.scale = nn.Parameter(torch.ones(3))
#         self.register_buffer("steps", torch.zeros((), dtype=torch.int64))
#         self.cache = torch.zeros(3)
#         self.act = nn.ReLU()
#
#
# block = Block()
# net = nn.Sequential(block, nn.Linear(3, 1))
# lin = nn.Linear(2, 2)
# ```
#
# What does each expression give? Write names as strings, lists as lists, a
# shape as a list of ints. An entry with `;` runs its statements first, on a
# fresh `block`, and gives the value of its last expression.

# %% tags=["exercise-3.1"]
answers_3_1 = {
    "[name for name, _ in block.named_parameters()]":
        ["scale", "fc.weight", "fc.bias"],  # ANSWER
    "list(block.state_dict())": ["scale", "steps", "fc.weight", "fc.bias"],  # ANSWER
    "[name for name, _ in block.named_children()]": ["fc", "act"],  # ANSWER
    "[name for name, _ in block.named_buffers()]": ["steps"],  # ANSWER
    "'cache' in block.state_dict()": False,  # ANSWER
    "type(block.fc.weight).__name__": "Parameter",  # ANSWER
    "block.fc.weight.shape": [3, 2],  # ANSWER
    "[name for name, _ in net.named_modules()]":
        ["", "0", "0.fc", "0.act", "1"],  # ANSWER
    "[name for name, _ in net.named_parameters()]":
        ["0.scale", "0.fc.weight", "0.fc.bias", "1.weight", "1.bias"],  # ANSWER
    "sum(p.numel() for p in net.parameters())": 16,  # ANSWER
    "len(list(nn.Sequential(lin, lin).parameters()))": 2,  # ANSWER
    "list(nn.Sequential(lin, lin).state_dict())":
        ["0.weight", "0.bias", "1.weight", "1.bias"],  # ANSWER
    "list(nn.Linear(2, 3, bias=False).state_dict())": ["weight"],  # ANSWER
    "list(nn.BatchNorm1d(3).state_dict())":
        "weight bias running_mean running_var num_batches_tracked".split(),  # ANSWER
    "block.fc = None; [name for name, _ in block.named_parameters()]":
        ["scale"],  # ANSWER
    "block.cache = nn.Parameter(torch.zeros(3)); list(block.state_dict())":
        ["scale", "cache", "steps", "fc.weight", "fc.bias"],  # ANSWER
    "block.extra = nn.Linear(3, 3); [name for name, _ in block.named_children()]":
        ["fc", "act", "extra"],  # ANSWER
}

# %% tags=["check-3.1"]
check("3.1", answers_3_1)

# %% [markdown]
# ## Exercise 3.2: which `grad_fn`, for layers and losses?
#
# With `x`, a 4 × 3 tensor that requires grad, `t = torch.tensor([0, 2, 1, 2])`
# and `F = torch.nn.functional`, what is `result.grad_fn.name()` for each
# expression? Write the name as a string, or `None` when the result has no
# `grad_fn`. (The one ending in `[0][0]` is already a node.)

# %% tags=["exercise-3.2"]
answers_3_2 = {
    "nn.Linear(3, 2)(x)": "AddmmBackward0",  # ANSWER
    "nn.Linear(3, 2, bias=False)(x)": "MmBackward0",  # ANSWER
    "nn.Linear(3, 2).weight": None,  # ANSWER
    "F.relu(x)": "ReluBackward0",  # ANSWER
    "nn.Tanh()(x)": "TanhBackward0",  # ANSWER
    "F.gelu(x)": "GeluBackward0",  # ANSWER
    "F.softmax(x, dim=1)": "SoftmaxBackward0",  # ANSWER
    "F.log_softmax(x, dim=1)": "LogSoftmaxBackward0",  # ANSWER
    "F.cross_entropy(x, t)": "NllLossBackward0",  # ANSWER
    "F.cross_entropy(x, t).grad_fn.next_functions[0][0]":
        "LogSoftmaxBackward0",  # ANSWER
    "F.mse_loss(x, torch.zeros(4, 3))": "MseLossBackward0",  # ANSWER
    "nn.Sequential(nn.Linear(3, 2), nn.ReLU())(x)": "ReluBackward0",  # ANSWER
    "nn.Dropout(0.5).eval()(x)": None,  # ANSWER
    "nn.Embedding(5, 2)(torch.tensor([1, 3]))": "EmbeddingBackward0",  # ANSWER
    "nn.LayerNorm(3)(x)": "NativeLayerNormBackward0",  # ANSWER
    "F.binary_cross_entropy_with_logits(x, torch.ones(4, 3))":
        "BinaryCrossEntropyWithLogitsBackward0",  # ANSWER
}

# %% tags=["check-3.2"]
check("3.2", answers_3_2)

# %% [markdown]
# ## Exercise 3.3: train, eval and a training step
#
# With `x = torch.tensor([[1.0, 2.0], [3.0, 6.0]])` (two samples of two
# features), what does each little program give (the last three are pieces
# of a training loop)? Write a tensor as a nested
# list of floats, and feel free to write arithmetic (`0.5 / 3**0.5`): a
# float is right when it agrees with PyTorch to about 6 digits. `BatchNorm1d`
# uses `eps=1e-5` and `momentum=0.1`, which you may leave out of your sums.

# %% tags=["exercise-3.3"]
answers_3_3 = {
    "d = nn.Dropout(0.5); d.training": True,  # ANSWER
    "d = nn.Dropout(0.5); d.eval(); d(x)": [[1.0, 2.0], [3.0, 6.0]],  # ANSWER
    "nn.Dropout(p=1.0)(x)": [[0.0, 0.0], [0.0, 0.0]],  # ANSWER
    "sorted(set(nn.Dropout(0.5)(torch.ones(100)).tolist()))": [0.0, 2.0],  # ANSWER
    "m = nn.Sequential(nn.Linear(2, 2), nn.Dropout()); m.eval(); m[1].training":
        False,  # ANSWER
    "m = nn.Sequential(nn.Linear(2, 2), nn.Dropout()); m.eval(); m.train(); "
    "m[1].training": True,  # ANSWER
    "bn = nn.BatchNorm1d(2); bn(x)": [[-1.0, -1.0], [1.0, 1.0]],  # ANSWER
    "bn = nn.BatchNorm1d(2); bn(x); bn.running_mean": [0.2, 0.4],  # ANSWER
    "bn = nn.BatchNorm1d(2); bn(x); bn.running_var": [1.1, 1.7],  # ANSWER
    "bn = nn.BatchNorm1d(2); bn(x); bn.num_batches_tracked.item()": 1,  # ANSWER
    "bn = nn.BatchNorm1d(2); bn.eval(); bn(x)": [[1.0, 2.0], [3.0, 6.0]],  # ANSWER
    "bn = nn.BatchNorm1d(2); bn.eval(); bn(x); bn.running_mean": [0.0, 0.0],  # ANSWER
    "bn = nn.BatchNorm1d(2); bn(x); bn.eval(); bn(x)":
        [[0.8 / 1.1**0.5, 1.6 / 1.7**0.5], [2.8 / 1.1**0.5, 5.6 / 1.7**0.5]],  # ANSWER
    "w = nn.Parameter(torch.tensor([1.0, 2.0])); (w * w).sum().backward(); "
    "(w * w).sum().backward(); w.grad": [4.0, 8.0],  # ANSWER
    "w = nn.Parameter(torch.tensor([1.0, 2.0])); (w * w).sum().backward(); "
    "with torch.no_grad(): w -= 0.25 * w.grad; w": [0.5, 1.0],  # ANSWER
    "m = nn.Linear(2, 1); m(x).sum().backward(); m.zero_grad(); m.bias.grad":
        None,  # ANSWER
}

# %% tags=["check-3.3"]
check("3.3", answers_3_3)

# %% [markdown]
# ## Exercise 3.4: the backward rule of ELU
#
# `F.elu(x, alpha)` is `x` where `x > 0` and `alpha * (e^x - 1)` elsewhere.
# The engine's `Elu.forward(ctx, x, *, alpha)` keeps `ctx.alpha` and saves
# `ctx.save_for_backward(x, result)`. Write its backward. (The chapter's table
# gives the derivative; can you write it without computing `e^x` again?)


# %% tags=["exercise-3.4"]
def elu_backward(ctx, grad_output):
    """d(loss)/dx for y = elu(x, alpha), given d(loss)/dy."""
    # BEGIN SOLUTION
    x, result = ctx.saved_tensors
    return torch.where(x > 0, grad_output, grad_output * (result + ctx.alpha))
    # END SOLUTION


# %% tags=["check-3.4"]
check("3.4", elu_backward)

# %% [markdown]
# ## Exercise 3.5: Kaiming's standard deviation
#
# `kaiming_uniform_` and `kaiming_normal_` both ask one function for the
# standard deviation of He initialisation, `gain / sqrt(fan)`, then draw
# (uniform on `[-sqrt(3) std, sqrt(3) std]`, or normal). Write it:
# `kaiming_std(tensor, a, mode, nonlinearity)`, where `mode` is `"fan_in"` or
# `"fan_out"` (any other mode is a `ValueError`), and the gain is that of
# `nonlinearity`, with `a` the slope of a leaky ReLU. The chapter's
# `torch.nn.init._calculate_fan_in_and_fan_out` and
# `torch.nn.init.calculate_gain` are yours to use. The check measures the
# spread of what the engine then draws (and of `nn.Linear`'s weights).

# %% tags=["exercise-3.5"]
import math


def kaiming_std(tensor, a, mode, nonlinearity):
    """He initialisation's standard deviation: gain / sqrt(fan)."""
    # BEGIN SOLUTION
    fan_in, fan_out = torch.nn.init._calculate_fan_in_and_fan_out(tensor)
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, use 'fan_in' or 'fan_out'")
    fan = fan_in if mode == "fan_in" else fan_out
    return torch.nn.init.calculate_gain(nonlinearity, a) / math.sqrt(fan)
    # END SOLUTION


# %% tags=["check-3.5"]
check("3.5", kaiming_std)

# %% [markdown]
# ## Exercise 3.6: `cross_entropy`
#
# Write `F.cross_entropy(input, target, ...)` from the engine's own
# `F.log_softmax` and `F.nll_loss`. `input` holds logits: `(C,)` for one
# sample, `(N, C)`, or `(N, C, d)`; the classes are along dimension 1 (0 for
# one sample). `target` is either the class of each sample (int64, passed
# with `weight`, `ignore_index` and `reduction` to `nll_loss`), or class
# probabilities: a float tensor of the input's shape, for which the loss of a
# sample is `-sum(p * log_softmax(input))` over the classes (times
# `weight[c]` for class `c`, if given), and `'mean'` divides the total by the
# number of samples. `label_smoothing` stays 0 here. The check makes
# `F.cross_entropy` (and so `nn.CrossEntropyLoss`) yours.


# %% tags=["exercise-3.6"]
def cross_entropy(
    input,
    target,
    weight=None,
    *,
    ignore_index=-100,
    reduction="mean",
    label_smoothing=0.0,
):
    """The cross-entropy between softmax(input) and the target."""
    # BEGIN SOLUTION
    F = torch.nn.functional
    class_dim = 0 if input.dim() == 1 else 1
    log_p = F.log_softmax(input, dim=class_dim)
    if target.shape != input.shape:
        return F.nll_loss(
            log_p, target, weight, ignore_index=ignore_index, reduction=reduction
        )
    products = log_p * target
    if weight is not None:
        along = [1] * input.dim()
        along[class_dim] = -1
        products = products * weight.reshape(along)
    losses = -products.sum(class_dim)
    if reduction == "none":
        return losses
    total = losses.sum()
    return total if reduction == "sum" else total / losses.numel()
    # END SOLUTION


# %% tags=["check-3.6"]
check("3.6", cross_entropy)

# %% [markdown]
# ## Exercise 3.7: `named_parameters` and `named_buffers`
#
# `parameters()`, `zero_grad()`, `requires_grad_()`, every optimiser and
# `buffers()` find a model's tensors through one walk, which
# `named_parameters` and `named_buffers` share. Write it:
# `named_members(self, home, prefix, recurse, remove_duplicate)`, a generator
# of `(dotted name, tensor)` pairs taken from the dictionary named `home`
# (`"_parameters"` or `"_buffers"`) of each module, where a value may be
# `None` (skipped). The modules come in the order of `named_modules`, and
# names are prefixed with `prefix` and a dot if `prefix` is not empty. A
# tensor held by two modules comes once (unless `remove_duplicate=False`);
# `recurse=False` lists this module's own tensors only. The check makes it
# the engine's `Module._named_members`, which
# `model.named_parameters(prefix="", recurse=True, remove_duplicate=True)`
# calls with `"_parameters"` and `model.named_buffers(...)` with
# `"_buffers"`.


# %% tags=["exercise-3.7"]
def named_members(self, home, prefix, recurse, remove_duplicate):
    """The tensors in the dictionary ``home`` of each module, with dotted names."""
    # BEGIN SOLUTION
    if recurse:
        walk = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
    else:
        walk = [(prefix, self)]
    yielded = set()
    for path, module in walk:
        for name, tensor in getattr(module, home).items():
            if tensor is None or tensor in yielded:
                continue
            if remove_duplicate:
                yielded.add(tensor)
            yield (f"{path}.{name}" if path else name), tensor
    # END SOLUTION


# %% tags=["check-3.7"]
check("3.7", named_members)

# %% [markdown]
# ## Exercise 3.8: the backward rule of a linear layer
#
# On a batch, `nn.Linear` runs one operation, `torch.addmm(bias, x, W.t())`:
# `out = beta * bias + alpha * (m1 @ m2)` (with `beta = alpha = 1` there).
# The engine's `Addmm.forward(ctx, bias, m1, m2, *, beta, alpha)` keeps
# `ctx.beta` and `ctx.alpha`, and saves `ctx.save_for_backward(m1_or_None,
# m2_or_None)`: `m1` only if `m2` needs a gradient, `m2` only if `m1` does.
# Write the backward: the triple `(grad_bias, grad_m1, grad_m2)`, with `None`
# for an input that needs none (`ctx.needs_input_grad`). Return the bias's
# gradient in the shape of `out`: the engine sums it back to the bias's
# shape, as chapter 2 showed. The chapter derived all three for `Linear`.


# %% tags=["exercise-3.8"]
def addmm_backward(ctx, grad_output):
    """(d loss/d bias, d loss/d m1, d loss/d m2) for beta*bias + alpha*(m1 @ m2)."""
    # BEGIN SOLUTION
    m1, m2 = ctx.saved_tensors
    wants_bias, wants_m1, wants_m2 = ctx.needs_input_grad[:3]
    grad_bias = grad_output * ctx.beta if wants_bias else None
    grad_m1 = grad_output.mm(m2.t()) * ctx.alpha if wants_m1 else None
    grad_m2 = m1.t().mm(grad_output) * ctx.alpha if wants_m2 else None
    return grad_bias, grad_m1, grad_m2
    # END SOLUTION


# %% tags=["check-3.8"]
check("3.8", addmm_backward)

# %% [markdown]
# ## Exercise 3.9: the backward rule of `log_softmax`
#
# `LogSoftmax.forward(ctx, x, *, dim)` computes `y = x - log(sum(exp(x)))`
# along `dim`, stably, keeps `ctx.dim` and saves its **result** `y`. Derive
# d(y_i)/d(x_j) for one row (it involves the softmax, and the softmax can be
# had from `y` without overflow), then write the backward. The check runs
# `log_softmax`, `nn.LogSoftmax` and `cross_entropy` backward passes, with
# logits of 1000 too, and a second derivative.


# %% tags=["exercise-3.9"]
def log_softmax_backward(ctx, grad_output):
    """d(loss)/dx for y = log_softmax(x, dim), given d(loss)/dy."""
    # BEGIN SOLUTION
    (result,) = ctx.saved_tensors
    probabilities = result.exp()
    return grad_output - probabilities * grad_output.sum(ctx.dim, keepdim=True)
    # END SOLUTION


# %% tags=["check-3.9"]
check("3.9", log_softmax_backward)

# %% [markdown]
# ## Exercise 3.10: checking a safetensors header
#
# (A stretch exercise on the book's appendix on model files: read it first.)
#
# `safetensors.load` (the engine's is `slowtorch_lib.safetensors.load`)
# reads the 8-byte length and the JSON header, then asks one
# function whether the header tells the truth before it converts a single
# byte: `check_entries(header, buffer_length)`, where `header` maps each
# tensor's name to what the file claims, such as
# `{"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}`, and
# `buffer_length` is the number of bytes after the header. Return a dict
# from each name to `(dtype, shape, (begin, end))`: the engine's dtype
# (`DTYPES_BY_NAME["F32"]` is `torch.float32`), the shape as a tuple, the
# offsets as a pair. Raise `SafetensorError` for an entry without exactly
# those three keys, an unknown dtype, a shape or offsets that are not lists
# of non-negative ints, offsets that are not `[begin, end]` with
# `begin <= end <= buffer_length`, a byte count other than
# `numel * dtype.itemsize`, and tensors that do not tile the buffer exactly
# (no gap, no overlap, nothing left over). `naturals` is given. Test what you
# write on files that lie, as the check will.

# %% tags=["exercise-3.10"]
from math import prod

from slowtorch_lib.safetensors import DTYPES_BY_NAME, SafetensorError


def naturals(values):
    """Whether ``values`` is a list of non-negative ints (bools excluded)."""
    return isinstance(values, list) and all(type(v) is int and v >= 0 for v in values)


def check_entries(header, buffer_length):
    """Each tensor's (dtype, shape, (begin, end)), checked against the buffer."""
    # BEGIN SOLUTION
    keys = {"dtype", "shape", "data_offsets"}
    entries = {}
    for name, info in header.items():
        if not isinstance(info, dict) or set(info) != keys:
            raise SafetensorError(f"{name}: needs dtype, shape and data_offsets")
        if info["dtype"] not in DTYPES_BY_NAME:
            raise SafetensorError(f"{name}: unknown dtype {info['dtype']!r}")
        dtype = DTYPES_BY_NAME[info["dtype"]]
        shape, offsets = info["shape"], info["data_offsets"]
        if not (naturals(shape) and naturals(offsets) and len(offsets) == 2):
            raise SafetensorError(f"{name}: bad shape {shape} or offsets {offsets}")
        begin, end = offsets
        if not begin <= end <= buffer_length:
            raise SafetensorError(f"{name}: offsets {offsets} outside the buffer")
        if end - begin != prod(shape) * dtype.itemsize:
            raise SafetensorError(f"{name}: {end - begin} bytes for shape {shape}")
        entries[name] = (dtype, tuple(shape), (begin, end))
    position = 0
    for name, (_, _, (begin, end)) in sorted(entries.items(), key=lambda e: e[1][2]):
        if begin != position:
            raise SafetensorError(f"{name} starts at {begin}, not at {position}")
        position = end
    if position != buffer_length:
        raise SafetensorError(f"{buffer_length - position} bytes left over")
    return entries
    # END SOLUTION


# %% tags=["check-3.10"]
check("3.10", check_entries)

# %% [markdown]
# ## Exercise 3.11: the embedding lookup and its backward
#
# Write the Function behind `torch.nn.functional.embedding` (and so behind
# `nn.Embedding`, which calls it, and the name generator of the epilogue,
# built on that): the check makes yours the engine's and compares outputs
# and gradients with PyTorch's.
#
# **The idea.** An embedding is a table `weight` of shape
# `(num_embeddings, embedding_dim)`: an integer tensor of indices of any
# shape `S` picks rows, and the result has shape `S + (embedding_dim,)`.
# Flatten the indices to $n$ of them and write $H$ for their one-hot rows,
# an $n \times$ `num_embeddings` matrix: the lookup is $Y = H W$, which
# picks the rows without multiplying anything. Its gradient is then that of
# a matrix product, $\bar W = H^\top \bar Y = \sum_p h_p \bar y_p^\top$: a
# sum of outer products, one per place $p$, each of which adds the row
# $\bar y_p$ into the row of the table that $p$ picked. A row picked twice
# gets both; a row nobody picked gets zeros.
#
# **The contract.** `Embedding.apply(weight, indices=..., padding_idx=...,
# scale_grad_by_freq=...)` is how `F.embedding` calls it, after checking the
# arguments and making a negative `padding_idx` non-negative:
# - `forward(ctx, weight, *, indices, padding_idx, scale_grad_by_freq=False)`
#   returns the picked rows, of shape `indices.shape + (embedding_dim,)` and
#   of `weight`'s dtype, and raises `IndexError("index out of range in
#   self")` for an index outside `[0, num_embeddings)`. Keep in `ctx` what
#   backward needs.
# - `backward(ctx, grad_output)` returns the gradient of `weight`. Places
#   that picked `padding_idx` send nothing. With `scale_grad_by_freq`, the
#   gradient of each place is first divided by the number of times its index
#   occurs in `indices`.
# - Write backward with tensor operations, so that it can be differentiated
#   again.


# %% tags=["exercise-3.11"]
class Embedding(torch.autograd.Function):
    """Row ``i`` of ``weight`` for each index ``i``: a lookup table."""

    @staticmethod
    def forward(ctx, weight, *, indices, padding_idx, scale_grad_by_freq=False):
        # BEGIN SOLUTION
        count, width = weight.shape
        flat = indices.reshape(-1)
        if flat.numel() and not (0 <= flat.min().item() and flat.max().item() < count):
            raise IndexError("index out of range in self")
        ctx.save_for_backward(indices)
        ctx.count, ctx.width = count, width
        ctx.padding_idx, ctx.scale_grad_by_freq = padding_idx, scale_grad_by_freq
        return weight.index_select(0, flat).reshape(*indices.shape, width)
        # END SOLUTION

    @staticmethod
    def backward(ctx, grad_output):
        # BEGIN SOLUTION
        (indices,) = ctx.saved_tensors
        flat = indices.reshape(-1)
        grad = grad_output.reshape(-1, ctx.width)
        if ctx.padding_idx is not None:
            grad = grad.masked_fill((flat == ctx.padding_idx).unsqueeze(-1), 0.0)
        if ctx.scale_grad_by_freq:
            times = (flat.unsqueeze(-1) == flat).sum(-1)
            grad = grad / times.unsqueeze(-1)
        one_hot = torch.nn.functional.one_hot(flat, ctx.count).to(grad.dtype)
        return one_hot.t() @ grad
        # END SOLUTION


# %% tags=["check-3.11"]
check("3.11", Embedding)

# %% [markdown]
# ## Exercise 3.12 (build): `load_state_dict`
#
# `state_dict()` turns a model into a dictionary of named tensors; write the
# way back, `load_state_dict(self, state_dict, strict=True)`, whole. The
# check makes it `nn.Module`'s method (the epilogue's name generator starts
# by loading its weights with it) and compares what it copies, returns and
# raises with PyTorch's.
#
# **The rule.** The tensors a module expects are, for each module of the
# tree in the order of `named_modules(remove_duplicate=False)` (a module
# reachable by two names is visited under both), its own parameters and
# then its persistent buffers (those not in
# `module._non_persistent_buffers_set`), skipping a `None`, each under its
# dotted name, as `state_dict()` lists them. An expected key absent from
# `state_dict` is *missing*. A key of `state_dict` is *unexpected* when it
# names nothing: for a module with prefix `p`, a key `p + "a"` must be one of
# its expected tensors and a key `p + "a.rest"` must go down to a child `a`
# (which checks the rest in turn).
#
# **The contract.**
# - Each value is copied **into** the existing tensor (`copy_`, under
#   `torch.no_grad()`): parameters keep their identity, dtype and
#   `requires_grad`, so that an optimiser holding them sees the new values.
# - It returns `torch.nn.modules.module._IncompatibleKeys(missing_keys,
#   unexpected_keys)`, a named tuple of two lists of keys in the order
#   met (modules in the walk's order; for each, its missing keys in its
#   tensors' order, then its unexpected keys in `state_dict`'s order). Its
#   repr is `<All keys matched successfully>` when both are empty.
# - Errors: a `state_dict` that is not a mapping (`collections.abc.Mapping`)
#   raises `TypeError("Expected state_dict to be dict-like, got <type>.")`.
#   A value that is not a tensor, or whose shape differs from the tensor it
#   would go into, is an error whatever `strict`, with PyTorch's messages:
#   `While copying the parameter named "<key>", expected torch.Tensor or
#   Tensor-like object from checkpoint but received <type>` and
#   `size mismatch for <key>: copying a param with shape <its shape> from
#   checkpoint, the shape in current model is <shape>.` With `strict=True`,
#   missing and unexpected keys are errors too, listed first:
#   `Missing key(s) in state_dict: "a", "b". ` then
#   `Unexpected key(s) in state_dict: "c". ` (each ends with a space). All
#   the errors are raised together as one `RuntimeError` whose message is
#   `Error(s) in loading state_dict for <class name>:` followed by each
#   error on its own line, after a newline and a tab.
# - Check everything before copying anything, so that a load that raises
#   leaves the model as it was. (PyTorch copies the matching entries first;
#   the engine does not.)


# %% tags=["exercise-3.12"]
from collections.abc import Mapping


def load_state_dict(self, state_dict, strict=True):
    """Copies the tensors of ``state_dict`` into the parameters and buffers."""
    # BEGIN SOLUTION
    if not isinstance(state_dict, Mapping):
        kind = type(state_dict)
        raise TypeError(f"Expected state_dict to be dict-like, got {kind}.")
    missing, unexpected, errors, copies = [], [], [], []
    for path, module in self.named_modules(remove_duplicate=False):
        prefix = f"{path}." if path else ""
        expected = {n: p for n, p in module._parameters.items() if p is not None}
        for name, buffer in module._buffers.items():
            if buffer is not None and name not in module._non_persistent_buffers_set:
                expected[name] = buffer
        for name, tensor in expected.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, torch.Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected '
                    "torch.Tensor or Tensor-like object from checkpoint but "
                    f"received {type(value)}"
                )
            elif value.shape != tensor.shape:
                errors.append(
                    f"size mismatch for {key}: copying a param with shape "
                    f"{value.shape} from checkpoint, the shape in current model "
                    f"is {tensor.shape}."
                )
            else:
                copies.append((tensor, value))
        for key in state_dict:
            if isinstance(key, str) and key.startswith(prefix):
                head, dot, _ = key[len(prefix) :].partition(".")
                if head not in (module._modules if dot else expected):
                    unexpected.append(key)
    if strict and unexpected:
        listed = ", ".join(f'"{key}"' for key in unexpected)
        errors.insert(0, f"Unexpected key(s) in state_dict: {listed}. ")
    if strict and missing:
        listed = ", ".join(f'"{key}"' for key in missing)
        errors.insert(0, f"Missing key(s) in state_dict: {listed}. ")
    if errors:
        raise RuntimeError(
            f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
            + "\n\t".join(errors)
        )
    with torch.no_grad():
        for tensor, value in copies:
            tensor.copy_(value)
    return torch.nn.modules.module._IncompatibleKeys(missing, unexpected)
    # END SOLUTION


# %% tags=["check-3.12"]
check("3.12", load_state_dict)
