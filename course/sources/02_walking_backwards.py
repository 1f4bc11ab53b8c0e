# ruff: noqa: F821  (torch and check come from the setup cell of every notebook)

# %% [markdown]
# # Chapter 2 exercises: walking backwards
#
# Autograd records, for each result, the operation that made it and its
# inputs: a graph. `backward()` walks that graph from the loss back to the
# leaves, and at each step applies a *backward rule*: given d(loss)/d(output),
# it returns d(loss)/d(input) for each input. These exercises rebuild the
# pieces: rules, the walk, and the bookkeeping around it.
#
# Each exercise has a stub to complete (replace `raise NotImplementedError`)
# and a check cell after it that prints one line.

# %%
from slowtorch_lib.autograd import Function

# %% [markdown]
# ## Exercise 2.1: the backward rule of division
#
# For `out = a * b` the rule is: `grad_a = grad_output * b` and
# `grad_b = grad_output * a`.


# %%
def mul_backward(a, b, grad_output):
    return grad_output * b, grad_output * a


print(mul_backward(2.0, 5.0, 1.0))

# %% [markdown]
# Write the rule for `out = a / b`, on plain floats: return the pair
# `(grad_a, grad_b)`.


# %% tags=["exercise-2.1"]
def div_backward(a, b, grad_output):
    """(d loss/d a, d loss/d b) for out = a / b, given d loss/d out."""
    # BEGIN SOLUTION
    return grad_output / b, -grad_output * a / (b * b)
    # END SOLUTION


# %% tags=["check-2.1"]
check("2.1", div_backward)

# %% [markdown]
# ## Exercise 2.2: `exp` as a `Function`
#
# In the engine each operation is a `Function` subclass with a `forward` and a
# `backward` side by side. `forward(ctx, x)` may keep tensors for later with
# `ctx.save_for_backward(...)`; `backward(ctx, grad_output)` reads them back
# from `ctx.saved_tensors` and returns the gradient for the input. Since
# d exp(x)/dx = exp(x), the result itself is all `backward` needs.
#
# Complete `Exp`: save what `backward` needs, then write `backward`.


# %% tags=["exercise-2.2"]
class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        # BEGIN SOLUTION | pass  # save what backward will need
        ctx.save_for_backward(result)
        # END SOLUTION
        return result

    @staticmethod
    def backward(ctx, grad_output):
        # BEGIN SOLUTION
        (result,) = ctx.saved_tensors
        return grad_output * result
        # END SOLUTION


# %% tags=["check-2.2"]
check("2.2", Exp)

# %% [markdown]
# Once it passes, `Exp` works like any operation of the engine:
# `y = Exp.apply(x)` gives a `y` whose `grad_fn.name()` is `'ExpBackward'`, and
# `y.sum().backward()` fills `x.grad`.

# %% [markdown]
# ## Exercise 2.3: `pow` with a constant exponent
#
# `Pow.apply(x, exponent=n)` computes `x ** n`. Keyword arguments of `apply`
# are constants, not inputs: `backward` returns one gradient, for `x`. Keep
# the exponent on `ctx` as a plain attribute (`ctx.exponent = exponent`).
# The rule: d x**n/dx = n * x**(n - 1).


# %% tags=["exercise-2.3"]
class Pow(Function):
    @staticmethod
    def forward(ctx, x, exponent):
        # BEGIN SOLUTION
        ctx.save_for_backward(x)
        ctx.exponent = exponent
        return x**exponent
        # END SOLUTION

    @staticmethod
    def backward(ctx, grad_output):
        # BEGIN SOLUTION
        (x,) = ctx.saved_tensors
        return grad_output * ctx.exponent * x ** (ctx.exponent - 1)
        # END SOLUTION


# %% tags=["check-2.3"]
check("2.3", Pow)

# %% [markdown]
# ## Exercise 2.4: putting the graph in order
#
# Before `backward` can run a node, every node that sends it a gradient must
# have run. Here a graph is a dict from a node's name to the names of its
# inputs (the nodes it sends gradients to), for example
# `{"loss": ["b", "c"], "b": ["a"], "c": ["a"], "a": []}`.
#
# Write `topological_sort(graph, root)`: every node reachable from `root`,
# once each, every node before its inputs. Do it with a loop and a list as a
# stack, not recursion: real graphs are thousands of nodes deep.


# %% tags=["exercise-2.4"]
def topological_sort(graph, root):
    """The nodes reachable from ``root``, each before its inputs."""
    # BEGIN SOLUTION
    order = []
    seen = {root}
    stack = [(root, iter(graph[root]))]
    while stack:
        node, inputs = stack[-1]
        for child in inputs:
            if child not in seen:
                seen.add(child)
                stack.append((child, iter(graph[child])))
                break
        else:
            stack.pop()
            order.append(node)
    order.reverse()
    return order
    # END SOLUTION


# %% tags=["check-2.4"]
check("2.4", topological_sort)

# %% [markdown]
# ## Exercise 2.5: un-broadcasting a gradient
#
# In `x + b` with `x` of shape `(2, 3)` and `b` of shape `(3,)`, `b` was
# stretched to `(2, 3)`: each of its elements was used twice, so its gradient
# is the sum of the two. The gradient that comes back has the broadcast shape
# and must be summed down to the input's shape.
#
# Write `sum_to_shape(grad, shape)` for a tensor `grad`: sum away the leading
# dimensions that `shape` does not have, then sum (with `keepdim=True`) every
# dimension where `shape` has size 1 and `grad` does not.


# %% tags=["exercise-2.5"]
def sum_to_shape(grad, shape):
    """``grad`` summed down to ``shape``."""
    # BEGIN SOLUTION
    while grad.dim() > len(shape):
        grad = grad.sum(0)
    for dim, size in enumerate(shape):
        if size == 1 and grad.shape[dim] != 1:
            grad = grad.sum(dim, keepdim=True)
    return grad
    # END SOLUTION


# %% tags=["check-2.5"]
check("2.5", sum_to_shape)

# %% [markdown]
# ## Exercise 2.6: checking a gradient with finite differences
#
# A gradient can be estimated without any rules: nudge one input a little and
# watch the output. Write `numerical_gradient(f, xs, eps=1e-6)` where `f` takes
# a list of floats and returns a float: return the list of partial derivatives,
# each estimated by the central difference
# `(f(xs with xs[i] + eps) - f(xs with xs[i] - eps)) / (2 * eps)`.
# Leave `xs` itself unchanged.


# %% tags=["exercise-2.6"]
def numerical_gradient(f, xs, eps=1e-6):
    """Estimates d f/d xs[i] for every i."""
    # BEGIN SOLUTION
    gradient = []
    for i in range(len(xs)):
        up, down = list(xs), list(xs)
        up[i] += eps
        down[i] -= eps
        gradient.append((f(up) - f(down)) / (2 * eps))
    return gradient
    # END SOLUTION


# %% tags=["check-2.6"]
check("2.6", numerical_gradient)

# %% [markdown]
# ## Exercise 2.7: a value used twice
#
# `Var` is a scalar that remembers where it came from: `var.parents` holds one
# pair `(parent, local_gradient)` per input, where `local_gradient` is
# d(var)/d(parent); `var.grad` starts at 0. (Read it with `Var??`.)

# %%
from course.toys import Var

x = Var(3.0)
y = x * x
print(y.value, [(parent is x, local) for parent, local in y.parents])

# %% [markdown]
# In `y = x * x`, `x` is used twice: each use sends a share of the gradient,
# and `x.grad` is their **sum** (here 3 + 3 = 6). Write `backprop(output)`:
# set `output.grad = 1.0`, then give every `Var` it depends on its gradient.
# Pass a var's gradient on to its parents only once all the vars that use it
# have sent theirs: count each var's uses first. No recursion.


# %% tags=["exercise-2.7"]
def backprop(output):
    """Fills ``.grad`` of every Var that ``output`` depends on."""
    # BEGIN SOLUTION
    uses = {}
    stack, seen = [output], {id(output)}
    while stack:
        var = stack.pop()
        for parent, _ in var.parents:
            uses[id(parent)] = uses.get(id(parent), 0) + 1
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    output.grad = 1.0
    ready = [output]
    while ready:
        var = ready.pop()
        for parent, local in var.parents:
            parent.grad += var.grad * local
            uses[id(parent)] -= 1
            if uses[id(parent)] == 0:
                ready.append(parent)
    # END SOLUTION


# %% tags=["check-2.7"]
check("2.7", backprop)

# %% [markdown]
# ## Exercise 2.8: a `no_grad` context manager
#
# Inside `with torch.no_grad():` nothing is recorded. Write your own `NoGrad`
# with `torch.is_grad_enabled()` and `torch.set_grad_enabled(mode)`:
# `__enter__` turns recording off, `__exit__` puts back whatever mode was on
# before (blocks may be nested), even when the block raises, and lets the
# exception go on.


# %% tags=["exercise-2.8"]
class NoGrad:
    def __enter__(self):
        # BEGIN SOLUTION
        self.previous = torch.is_grad_enabled()
        torch.set_grad_enabled(False)
        # END SOLUTION

    def __exit__(self, exc_type, exc_value, traceback):
        # BEGIN SOLUTION
        torch.set_grad_enabled(self.previous)
        # END SOLUTION


# %% tags=["check-2.8"]
check("2.8", NoGrad)
