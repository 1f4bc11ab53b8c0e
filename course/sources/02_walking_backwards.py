# ruff: noqa: F821, F811  (setup-cell names; each answer cell imports its own)

# %% [markdown]
# # Chapter 2 exercises: walking backwards
#
# First two predictions (which `grad_fn`, which gradients), checked against
# PyTorch's recorded answers. Then pieces of the engine's autograd: whole
# Functions and backward rules, `no_grad`, un-broadcasting, the topological
# order, the backward pass itself, the two Jacobians and `gradcheck`. Each check
# puts your piece **into the engine in place of its own** and runs real
# backward passes through it, comparing every gradient with PyTorch's.
#
# A backward rule is a function `backward(ctx, grad_output)`: `ctx` is the
# graph node, holding what `forward` saved (`ctx.saved_tensors`, and plain
# attributes), and `grad_output` is d(loss)/d(output). It returns
# d(loss)/d(input) for each input. Write it with tensor operations, so that
# the engine can record it too (`create_graph=True`). Keep everything an
# answer needs inside its cell: the grader runs each answer cell on its own.

# %% [markdown]
# ## Exercise 2.1: which `grad_fn`?
#
# With `a = torch.tensor([1., 2., 3.], requires_grad=True)`,
# `b = torch.tensor([4., 5., 6.], requires_grad=True)` and
# `c = torch.tensor([1., 2., 3.])`, what is `result.grad_fn.name()` for each
# expression? Write the name as a string (`"AddBackward0"`), or `None` when
# the result has no `grad_fn`. (The last one is already a node.)

# %% tags=["exercise-2.1"]
answers_2_1 = {
    "a * b": "MulBackward0",  # ANSWER
    "a + c": "AddBackward0",  # ANSWER
    "c * 2": None,  # ANSWER
    "a.sum()": "SumBackward0",  # ANSWER
    "a.sum(0)": "SumBackward1",  # ANSWER
    "a.exp()": "ExpBackward0",  # ANSWER
    "a[1:]": "SliceBackward0",  # ANSWER
    "a.view(3, 1)": "ViewBackward0",  # ANSWER
    "a.reshape(3, 1)": "ViewBackward0",  # ANSWER
    "a.detach() * 2": None,  # ANSWER
    "a ** 2": "PowBackward0",  # ANSWER
    "a / 2": "DivBackward0",  # ANSWER
    "a.max()": "MaxBackward1",  # ANSWER
    "a.max(0).values": "MaxBackward0",  # ANSWER
    "a.mean()": "MeanBackward0",  # ANSWER
    "a.unsqueeze(0) @ b.unsqueeze(1)": "MmBackward0",  # ANSWER
    "(a * b).sum().grad_fn.next_functions[0][0]": "MulBackward0",  # ANSWER
}

# %% tags=["check-2.1"]
check("2.1", answers_2_1)

# %% [markdown]
# ## Exercise 2.2: what are the gradients?
#
# Each entry is a little program that starts from fresh `a` and `b` as in 2.1
# (statements separated by `;`). What is the value of its last expression?
# Write a gradient as a list of floats (`[2.0, 4.0, 6.0]`), a 0-d one as a
# float, `None` for no gradient, and `True`/`False` for `requires_grad`.

# %% tags=["exercise-2.2"]
answers_2_2 = {
    "(a * a).sum().backward(); a.grad": [2.0, 4.0, 6.0],  # ANSWER
    "(a * 3).sum().backward(); (a * 3).sum().backward(); a.grad":
        [6.0, 6.0, 6.0],  # ANSWER
    "(a + a.sum()).sum().backward(); a.grad": [4.0, 4.0, 4.0],  # ANSWER
    "(a.detach() * a).sum().backward(); a.grad": [1.0, 2.0, 3.0],  # ANSWER
    "y = a * 2; a.grad": None,  # ANSWER
    "with torch.no_grad(): y = a * 2; y.requires_grad": False,  # ANSWER
    "a.detach().requires_grad": False,  # ANSWER
    "s = torch.tensor(2.0, requires_grad=True); (s * a).sum().backward(); s.grad":
        6.0,  # ANSWER
    "p = torch.ones(3, 1, requires_grad=True); "
    "(p + torch.zeros(2, 3, 4)).sum().backward(); p.grad":
        [[8.0], [8.0], [8.0]],  # ANSWER
    "(g,) = torch.autograd.grad((a ** 3).sum(), a, create_graph=True); "
    "g.sum().backward(); a.grad": [6.0, 12.0, 18.0],  # ANSWER
    "(g,) = torch.autograd.grad((a ** 3).sum(), a); g.requires_grad": False,  # ANSWER
}

# %% tags=["check-2.2"]
check("2.2", answers_2_2)

# %% [markdown]
# ## Exercise 2.3: the Function of `log`
#
# Write the whole `Log` Function, as the chapter's `Mul` and `Exp` are
# written: `forward(ctx, x)` computes $y = \log x$ element by element, and
# `backward(ctx, grad_output)` turns $\bar y = \partial L / \partial y$ into
# $\bar x = \partial L / \partial x$. The check makes `torch.log` and
# `x.log()` use your class.
#
# **The tools.** `unary(function, x, dtype)` applies a function of one Python
# number (such as `math.log`) to every element of `x` and returns a new
# tensor of `dtype`; where the function fails (`log` of 0 or of a negative
# number) it takes the IEEE 754 answer instead (`-inf`, `nan`), as PyTorch.
# `float_type(dtype)` is the dtype a floating-point result of an input of
# `dtype` has.
#
# **The contract.**
# - The result is floating point: an integer or bool input gives the default
#   `float32`, a `float64` input stays `float64`.
# - `backward` is written in tensor operations, so that it can be
#   differentiated again (the check takes second derivatives).
# - Keep what `backward` needs and nothing more, as PyTorch does. What you keep
#   is visible: a tensor saved with `ctx.save_for_backward` and then changed in
#   place makes `backward` raise `RuntimeError`. The check changes the input
#   in place after the call, and then the result, and expects `backward` to
#   raise exactly when PyTorch's does.

# %% tags=["exercise-2.3"]
import math

from slowtorch_lib._tensor_kernels import unary
from slowtorch_lib.autograd.function import Function
from slowtorch_lib.ops.common import float_type


class Log(Function):
    """Natural logarithm, elementwise."""

    @staticmethod
    def forward(ctx, x):
        # BEGIN SOLUTION
        ctx.save_for_backward(x)
        return unary(math.log, x, float_type(x.dtype))
        # END SOLUTION

    @staticmethod
    def backward(ctx, grad_output):
        # BEGIN SOLUTION
        (x,) = ctx.saved_tensors
        return grad_output / x  # d log(x) / dx = 1 / x
        # END SOLUTION


# %% tags=["check-2.3"]
check("2.3", Log)

# %% [markdown]
# ## Exercise 2.4: the Function of `tanh`
#
# The same for $y = \tanh x = \dfrac{e^x - e^{-x}}{e^x + e^{-x}}$: write the
# whole `Tanh` Function (the scalar function is `math.tanh`). Differentiate
# it first, on paper; the derivative can be written in more than one way, and
# the way you choose decides what `forward` must keep. The contract is 2.3's:
# a floating-point result (`float32` for integer or bool inputs), a
# `backward` in tensor operations that can be differentiated again, and only
# what `backward` needs kept, as PyTorch keeps it: PyTorch keeps the one
# tensor from which the derivative is cheapest to compute. The check changes
# the input in place after the call, and then the result, and expects
# `backward` to raise `RuntimeError` exactly when PyTorch's does.

# %% tags=["exercise-2.4"]
import math

from slowtorch_lib._tensor_kernels import unary
from slowtorch_lib.autograd.function import Function
from slowtorch_lib.ops.common import float_type


class Tanh(Function):
    """Hyperbolic tangent, elementwise."""

    @staticmethod
    def forward(ctx, x):
        # BEGIN SOLUTION
        y = unary(math.tanh, x, float_type(x.dtype))
        ctx.save_for_backward(y)  # the derivative is 1 - y ** 2
        return y
        # END SOLUTION

    @staticmethod
    def backward(ctx, grad_output):
        # BEGIN SOLUTION
        (y,) = ctx.saved_tensors
        return grad_output * (1 - y * y)
        # END SOLUTION


# %% tags=["check-2.4"]
check("2.4", Tanh)

# %% [markdown]
# ## Exercise 2.5: your own `no_grad`
#
# Every operation asks one switch, `GRAD_MODE.enabled`, whether to record the
# graph. Write the class `no_grad`, a context manager that turns recording off
# inside its `with` block and restores the previous mode afterwards, even if
# the block raises, when blocks are nested, and when one object is used
# twice. As in PyTorch, `no_grad()` also works as a decorator: calling the
# object on a function returns a function that runs with recording off. The
# check makes `torch.no_grad` your class.

# %% tags=["exercise-2.5"]
from slowtorch_lib.autograd.grad_mode import GRAD_MODE


class no_grad:
    """Switches graph recording off inside a ``with`` block."""

    def __init__(self):
        # BEGIN SOLUTION | pass
        self.before = []
        # END SOLUTION

    def __enter__(self):
        # BEGIN SOLUTION
        self.before.append(GRAD_MODE.enabled)
        GRAD_MODE.enabled = False
        # END SOLUTION

    def __exit__(self, *error):
        # BEGIN SOLUTION
        GRAD_MODE.enabled = self.before.pop()
        # END SOLUTION

    def __call__(self, function):
        # BEGIN SOLUTION
        def without_graph(*args, **kwargs):
            with self:
                return function(*args, **kwargs)

        return without_graph
        # END SOLUTION


# %% tags=["check-2.5"]
check("2.5", no_grad)

# %% [markdown]
# ## Exercise 2.6: the backward rule of division
#
# `Div.forward(ctx, a, b)` computes `a / b`, where `b` may be a tensor or a
# Python number. It saves `ctx.save_for_backward(a_or_None, b_or_None)`: `a`
# only if `b` needs a gradient, `b` only if it is a tensor; it also keeps the
# divisor as given in `ctx.scalar_b`. `ctx.needs_input_grad` says which
# inputs need a gradient. Return the pair `(grad_a, grad_b)`, with `None` for
# an input that needs none. (Shapes: return gradients of the output's shape;
# the engine sums them back to each input's shape, as the chapter shows.)

# %% tags=["exercise-2.6"]
def div_backward(ctx, grad_output):
    """(d loss/d a, d loss/d b) for out = a / b."""
    # BEGIN SOLUTION
    numerator, saved_b = ctx.saved_tensors
    b = ctx.scalar_b if saved_b is None else saved_b
    wants_a, wants_b = ctx.needs_input_grad[:2]
    grad_a = grad_output / b if wants_a else None
    grad_b = -grad_output * numerator / (b * b) if wants_b else None
    return grad_a, grad_b
    # END SOLUTION


# %% tags=["check-2.6"]
check("2.6", div_backward)

# %% [markdown]
# ## Exercise 2.7: un-broadcasting
#
# When `h` of shape `(4, 3)` plus `b` of shape `(3,)` is differentiated, the
# gradient arriving for `b` has shape `(4, 3)`: the engine calls
# `sum_to_size(gradient, b.shape)` to bring it back. Write
# `sum_to_size(input, shape)`: `input` summed over every dimension that
# broadcasting added (leading ones) or stretched (size 1 in `shape`), with the
# result of exactly `shape`. Raise `RuntimeError` when `input` could not have
# been broadcast from `shape`.

# %% tags=["exercise-2.7"]
def sum_to_size(input, shape):
    """``input`` summed down to ``shape``: broadcasting undone."""
    # BEGIN SOLUTION
    shape = tuple(shape)
    extra = input.dim() - len(shape)
    message = f"size {list(shape)} is not expandable to {list(input.shape)}"
    if extra < 0:
        raise RuntimeError(message)
    stretched = list(range(extra))
    for dim, size in enumerate(shape, start=extra):
        if size == 1 and input.shape[dim] != 1:
            stretched.append(dim)
        elif size != input.shape[dim]:
            raise RuntimeError(message)
    if stretched:
        input = input.sum(tuple(stretched), keepdim=True)
    return input.reshape(shape)
    # END SOLUTION


# %% tags=["check-2.7"]
check("2.7", sum_to_size)

# %% [markdown]
# ## Exercise 2.8: the backward rule of `max(dim)`
#
# `values, indices = x.max(dim)` sends the gradient of each value to the one
# element that was the maximum (the index `max` returned); every other element
# gets 0. The engine's `MaxDim.forward` saved the indices
# (`ctx.saved_tensors`), and keeps `ctx.dims` (a tuple with the one
# dimension, non-negative), `ctx.keepdim` and `ctx.input_shape`. Its backward
# receives two gradients, one for the values and one for the indices (which
# is `None`: indices are not differentiable). Return the gradient for `x`.

# %% tags=["exercise-2.8"]
def max_dim_backward(ctx, grad_values, grad_indices):
    """d(loss)/dx for values, indices = x.max(dim)."""
    # BEGIN SOLUTION
    (indices,) = ctx.saved_tensors
    (dim,) = ctx.dims
    if not ctx.keepdim:
        grad_values = grad_values.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    size = ctx.input_shape[dim]
    along = [1] * len(ctx.input_shape)
    along[dim] = size
    chosen = torch.arange(size).reshape(along) == indices
    return torch.where(chosen, grad_values, 0.0)
    # END SOLUTION


# %% tags=["check-2.8"]
check("2.8", max_dim_backward)

# %% [markdown]
# ## Exercise 2.9: the topological order
#
# The backward loop may run a node only once every gradient meant for it has
# arrived, that is after every node that sends it one. Write
# `topological_order(roots)`: every node reachable from the nodes in `roots`
# (following `next_functions`, a tuple of `(node, output_number)` pairs, where
# `node` may be `None`), each exactly once, ordered so that each node comes
# before every node in its `next_functions`. Such an order exists because the
# graph has no cycle; your task is to find one for any graph the engine makes.
#
# Two limits make this harder than it looks. Graphs are deep: the check
# sorts a chain of 10,000 operations, ten times more than Python's recursion
# allows. And graphs are wide: the check sorts 12,000 nodes and allows a
# quarter of a second of CPU time for it, so the cost of each node must not
# grow with the size of the graph. The check looks at the order itself (every
# node once, each before the nodes it feeds) on graphs with shared nodes,
# several outputs and a node with two outputs; the backward loop that uses it
# is exercise 2.10.

# %% tags=["exercise-2.9"]
def topological_order(roots):
    """Every node reachable from ``roots``, each before the nodes it feeds."""
    # BEGIN SOLUTION
    finished = []
    seen = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        todo = [(root, iter(root.next_functions))]
        while todo:
            node, edges = todo[-1]
            child = next((n for n, _ in edges if n is not None and n not in seen), None)
            if child is None:
                todo.pop()
                finished.append(node)
            else:
                seen.add(child)
                todo.append((child, iter(child.next_functions)))
    return finished[::-1]
    # END SOLUTION


# %% tags=["check-2.9"]
check("2.9", topological_order)

# %% [markdown]
# ## Exercise 2.10 (build): the backward pass
#
# Now the loop that uses your order: `run_backward(roots, root_grads, order,
# retain_graph)`, the heart of the engine's autograd. `loss.backward()`,
# `torch.autograd.backward` and `torch.autograd.grad` all end here; the check
# puts your function in place of the engine's and runs real backward passes.
#
# **The maths.** A node $f$ that made the outputs $y_1, \dots, y_m$ from the
# inputs $x_1, \dots, x_n$ turns $\bar y_k = \partial L / \partial y_k$ into
# $\bar x_i = \sum_k \bar y_k \, \partial y_k / \partial x_i$ (its
# `apply`). A tensor used by several nodes receives one contribution along
# each path, and its gradient is their sum; so a node may run only once
# every contribution for its outputs has arrived, which is what the order
# guarantees. A gradient for an input that broadcasting stretched has the
# broadcast shape: each element was used once per position it was copied to,
# so its gradient is the sum over the stretched dimensions.
#
# **What you get.**
# - `roots`: one edge `(node, output_number)` per output differentiated, and
#   `root_grads` the gradient each output starts with.
# - `order`: nodes, each before every node in its `next_functions`. It may
#   hold only part of the graph (`autograd.grad` leaves out what does not lead
#   to the inputs asked for).
# - A node has `num_outputs`, `next_functions` (one edge per input, `(None,
#   0)` for an input that needs no gradient), `input_meta` (`(shape, dtype)`
#   of each input that needs one), `apply(*gradients)` (one gradient per
#   output in, one per input out, `None` for "no gradient"), `name()` and
#   `release_saved()`.
# - Hooks: `call_tensor_hooks(node, gradients)` runs the hooks of the tensors
#   the node made (`register_hook`, `retain_grad`) and returns the gradients
#   they leave. A node's own hooks are yours: `node.pre_hooks` and
#   `node.post_hooks` are `None` or a dict of functions, in the order they
#   were registered.
#
# **The contract.**
# - Each node of `order` that some gradient reached runs exactly once, on the
#   sum of the gradients sent to each of its outputs (an output nothing was
#   sent to gets `None`); a node nothing reached does not run. Before it
#   runs, its tensor hooks see the gradients, and then each pre-hook is
#   called with the tuple of gradients; after it ran, each post-hook is called
#   with the tuple it returned and the tuple it ran on. A hook that returns
#   something other than `None` replaces that tuple. What the node returns
#   for input $i$ goes along its edge $i$, unless the edge or the gradient is
#   `None`.
# - Before it is sent on, a gradient takes its input's shape (summed over the
#   broadcast dimensions) and dtype. A gradient that no broadcasting of the
#   input could give raises `RuntimeError`.
# - Unless `retain_graph`, each node drops its saved tensors after it ran (a
#   second walk of the graph then raises).
# - Return the gradients that were sent to nodes outside `order`, as a dict
#   from node to its list of slots, one per output.
# - Work in tensor operations: with `create_graph=True` the caller records
#   the pass, and the gradients can be differentiated again.

# %% tags=["exercise-2.10"]
from slowtorch_lib.autograd.engine import call_tensor_hooks


def run_backward(roots, root_grads, order, retain_graph):
    """Runs every node of ``order`` that a gradient reaches, once, and returns
    the gradients sent to nodes outside ``order``."""
    # BEGIN SOLUTION
    inbox = {}  # node -> one gradient (or None) per output, summed

    def deliver(node, number, gradient):
        if node not in inbox:
            inbox[node] = [None] * node.num_outputs
        earlier = inbox[node][number]
        inbox[node][number] = gradient if earlier is None else earlier + gradient

    def like_input(gradient, meta, node, number):
        shape, dtype = meta
        if tuple(gradient.shape) != tuple(shape):
            try:
                gradient = gradient.sum_to_size(*shape)
            except RuntimeError:
                raise RuntimeError(
                    f"Function {node.name()} returned an invalid gradient at "
                    f"index {number} - got {list(gradient.shape)} but expected "
                    f"shape compatible with {list(shape)}"
                ) from None
        if gradient.dtype != dtype:
            gradient = gradient.to(dtype)
        return gradient

    def hooked(hooks, gradients, *more):
        for hook in list(hooks.values()) if hooks else []:
            replaced = hook(tuple(gradients), *more)
            if replaced is not None:
                gradients = replaced
        return tuple(gradients)

    for (node, number), gradient in zip(roots, root_grads):
        deliver(node, number, gradient)
    for node in order:
        if node not in inbox:
            continue  # nothing reached this node
        received = call_tensor_hooks(node, inbox.pop(node))
        received = hooked(node.pre_hooks, received)
        sent = hooked(node.post_hooks, node.apply(*received), received)
        if not retain_graph:
            node.release_saved()
        edges = zip(node.next_functions, sent, node.input_meta)
        for number, ((target, slot), gradient, meta) in enumerate(edges):
            if target is None or gradient is None:
                continue
            deliver(target, slot, like_input(gradient, meta, node, number))
    return inbox
    # END SOLUTION


# %% tags=["check-2.10"]
check("2.10", run_backward)

# %% [markdown]
# ## Exercise 2.11: the numerical Jacobian
#
# Every backward rule you wrote in this chapter was checked against PyTorch.
# Without PyTorch, a backward rule can still be checked against the
# definition of the derivative. That takes two Jacobians, computed two
# independent ways; this exercise and the next write them, and 2.13 compares
# them.
#
# **The maths.** For an output $y$ of `fn` and an input $x$ that requires
# grad, the Jacobian $J_{jk} = \partial y_j / \partial x_k$ has one row per
# output element and one column per input element. Column $k$ is how all
# the outputs move when element $k$ alone moves. Central differences
# estimate it:
# $J_{:,k} \approx \big(f(x + \varepsilon e_k) - f(x - \varepsilon e_k)\big)
# / 2\varepsilon$, whose error shrinks as $\varepsilon^2$ (the one-sided
# $\big(f(x + \varepsilon e_k) - f(x)\big) / \varepsilon$ only as
# $\varepsilon$: the chapter measures both).
#
# **The contract.** Write `numerical_jacobian(fn, inputs, eps=1e-6)`, the
# engine's own (the check puts yours in its place, so `gradcheck` uses it):
# - `inputs` is a tensor or a tuple (or list) of arguments, and `fn(*inputs)`
#   returns a tensor or a tuple of results. The inputs to nudge are the
#   tensors that require grad; the outputs to watch are the floating-point
#   tensors among the results (skip the others).
# - Return `result[o][i]`: the Jacobian of the `o`-th watched output with
#   respect to the `i`-th nudged input, as a list of rows (one per output
#   element, in row-major order), each a list of floats (one per input
#   element, in row-major order of the input's *shape*, whatever its
#   strides).
# - Nudge an element by writing into the input itself: `x.detach()` shares
#   `x`'s storage and has no history, so `x.detach()[index] = value` moves
#   `x` without recording anything. Put every element back as it was.


# %% tags=["exercise-2.11"]
import itertools


def numerical_jacobian(fn, inputs, eps=1e-6):
    """The Jacobians of ``fn`` by central differences, ``result[o][i]``."""
    # BEGIN SOLUTION
    args = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)

    def watched():
        results = fn(*args)
        results = results if isinstance(results, tuple) else (results,)
        return [
            out.detach().reshape(-1).tolist()
            for out in results
            if isinstance(out, torch.Tensor) and out.is_floating_point()
        ]

    sizes = [len(values) for values in watched()]
    result = [[] for _ in sizes]
    for x in args:
        if not (isinstance(x, torch.Tensor) and x.requires_grad):
            continue
        data = x.detach()
        columns = []  # columns[k][o]: how output o moves with element k
        for index in itertools.product(*[range(size) for size in x.shape]):
            original = data[index].item()
            data[index] = original + eps
            plus = watched()
            data[index] = original - eps
            minus = watched()
            data[index] = original
            columns.append(
                [
                    [(high - low) / (2 * eps) for high, low in zip(up, down)]
                    for up, down in zip(plus, minus)
                ]
            )
        for o, size in enumerate(sizes):
            rows = [[column[o][j] for column in columns] for j in range(size)]
            result[o].append(rows)
    return result
    # END SOLUTION


# %% tags=["check-2.11"]
check("2.11", numerical_jacobian)

# %% [markdown]
# ## Exercise 2.12: the analytical Jacobian
#
# The backward pass computes $v^\top J$ for the vector $v$ it is given as
# the output's gradient, without ever forming $J$. Seed it with the one-hot
# $e_j$ (1 at output element $j$, 0 elsewhere) and what comes back is
# $e_j^\top J$: row $j$ of the Jacobian. One backward pass per output
# element gives every row.
#
# **The contract.** Write `analytical_jacobian(fn, inputs)`, the engine's
# own, with the same arguments and the same layout of the result as
# `numerical_jacobian` (`result[o][i]`, rows of floats):
# - Call `fn` once, and run one backward pass per element of each watched
#   output with `torch.autograd.grad`, with the one-hot seed shaped like the
#   output. The graph is walked once per row: keep it
#   (`retain_graph=True`).
# - An input that the output does not depend on gets no gradient from
#   `torch.autograd.grad` (ask for `allow_unused=True`): its rows are zeros.
#   So are all the rows of an output that does not require grad.


# %% tags=["exercise-2.12"]
def analytical_jacobian(fn, inputs):
    """The Jacobians of ``fn`` as the backward pass computes them."""
    # BEGIN SOLUTION
    args = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    wrt = [x for x in args if isinstance(x, torch.Tensor) and x.requires_grad]
    results = fn(*args)
    results = results if isinstance(results, tuple) else (results,)
    jacobians = []
    for out in results:
        if not (isinstance(out, torch.Tensor) and out.is_floating_point()):
            continue
        rows = [[] for _ in wrt]
        for j in range(out.numel()):
            grads = [None] * len(wrt)
            if out.requires_grad:
                seed = torch.zeros(out.numel(), dtype=out.dtype)
                seed[j] = 1.0
                seed = seed.reshape(out.shape)
                grads = torch.autograd.grad(
                    out, wrt, seed, retain_graph=True, allow_unused=True
                )
            for i, (x, g) in enumerate(zip(wrt, grads)):
                row = [0.0] * x.numel() if g is None else g.reshape(-1).tolist()
                rows[i].append(row)
        jacobians.append(rows)
    return jacobians
    # END SOLUTION


# %% tags=["check-2.12"]
check("2.12", analytical_jacobian)

# %% [markdown]
# ## Exercise 2.13 (build): `gradcheck`
#
# With both Jacobians, a backward rule can be checked with no PyTorch at
# all. Write `gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3,
# raise_exception=True)`, the engine's `torch.autograd.gradcheck`; the check
# puts it in place of the engine's own and runs it on right and on
# deliberately wrong backward rules.
#
# Import the two Jacobians from `slowtorch_lib.autograd.gradcheck` in your
# cell, under other names (`by_differences` and `by_backward`), so that the
# import does not replace your answers to 2.11 and 2.12 in the notebook; once
# those pass their checks, the engine's are yours. Two numbers agree when
# $|a - n| \le \text{atol} + \text{rtol}\,|n|$.
#
# **The contract.**
# - `inputs` is a tensor or a tuple (or list) of arguments; the checked ones
#   are the tensors that require grad. If there are none, raise
#   `ValueError`.
# - Finite differences in float32 are too coarse: for each checked input
#   that is not `torch.float64`, warn with a `UserWarning` (and go on).
# - Return `True` when every element of every Jacobian agrees. At the first
#   element that does not, raise `GradcheckError` (from the same module), a
#   message that names the output, the input and the two values; or, with
#   `raise_exception=False`, return `False`.
# - The message names the input element by its multi-index, such as
#   `(1, 0)` for a 2-d input.


# %% tags=["exercise-2.13"]
import warnings

from slowtorch_lib.autograd.gradcheck import GradcheckError
from slowtorch_lib.autograd.gradcheck import analytical_jacobian as by_backward
from slowtorch_lib.autograd.gradcheck import numerical_jacobian as by_differences


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """Checks the backward pass of ``func`` against finite differences."""
    # BEGIN SOLUTION
    if isinstance(inputs, list):
        inputs = tuple(inputs)
    elif not isinstance(inputs, tuple):
        inputs = (inputs,)
    checked = [
        arg
        for arg in inputs
        if isinstance(arg, torch.Tensor) and arg.requires_grad
    ]
    if not checked:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, "
            "but none of the them have requires_grad=True."
        )
    for number, arg in enumerate(checked):
        if arg.dtype is not torch.float64:
            warnings.warn(
                f"Input #{number} requires gradient and is not a double precision "
                "floating point: use float64 inputs.",
                UserWarning,
                stacklevel=2,
            )
    numerical = by_differences(func, inputs, eps)
    analytical = by_backward(func, inputs)
    for o, (by_input_a, by_input_n) in enumerate(zip(analytical, numerical)):
        for i, (a_rows, n_rows) in enumerate(zip(by_input_a, by_input_n)):
            for j, (a_row, n_row) in enumerate(zip(a_rows, n_rows)):
                for k, (a, n) in enumerate(zip(a_row, n_row)):
                    if abs(a - n) <= atol + rtol * abs(n):
                        continue
                    if not raise_exception:
                        return False
                    where, rest = [], k  # the input element's multi-index
                    for size in reversed(checked[i].shape):
                        where.insert(0, rest % size)
                        rest //= size
                    raise GradcheckError(
                        f"Jacobian mismatch for output {o} with respect to input "
                        f"{i}, at output element {j} (flattened) and input element "
                        f"{tuple(where)}: analytical {a!r}, numerical {n!r}"
                    )
    return True
    # END SOLUTION


# %% tags=["check-2.13"]
check("2.13", gradcheck)
