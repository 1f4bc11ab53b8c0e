"""Chapter 2, "Walking backwards": the exercises and their public cases.

As in chapter 1, each case is a short program written against PyTorch's API,
recorded once under PyTorch and run under the engine with the student's piece
in place of the engine's own.
"""

from __future__ import annotations

import sys
from typing import Any

from course.checking import Case, Exercise
from course.checks.ch02_graphs import BACKWARD_PASS, TOPOLOGICAL
from course.checks.ch02_jacobians import ANALYTICAL, GRADCHECK, NUMERICAL
from course.checks.ch02_programs import grads, raised


def leaves(torch: Any) -> dict[str, Any]:
    """The tensors the chapter-2 questions start from, fresh each time."""
    return {
        "torch": torch,
        "a": torch.tensor([1.0, 2.0, 3.0], requires_grad=True),
        "b": torch.tensor([4.0, 5.0, 6.0], requires_grad=True),
        "c": torch.tensor([1.0, 2.0, 3.0]),
    }


# --- 2.1 which grad_fn ----------------------------------------------------------

GRAD_FNS = [
    "a * b",
    "a + c",
    "c * 2",
    "a.sum()",
    "a.sum(0)",
    "a.exp()",
    "a[1:]",
    "a.view(3, 1)",
    "a.reshape(3, 1)",
    "a.detach() * 2",
    "a ** 2",
    "a / 2",
    "a.max()",
    "a.max(0).values",
    "a.mean()",
    "a.unsqueeze(0) @ b.unsqueeze(1)",
    "(a * b).sum().grad_fn.next_functions[0][0]",
]


def grad_fn_name(expression: str) -> Any:
    def run(torch: Any) -> Any:
        result = eval(expression, leaves(torch))  # noqa: S307  (our own text)
        node = result if not hasattr(result, "grad_fn") else result.grad_fn
        return None if node is None else node.name()

    return run


# --- 2.2 what are the gradients -------------------------------------------------

GRADIENTS = [
    "(a * a).sum().backward(); a.grad",
    "(a * 3).sum().backward(); (a * 3).sum().backward(); a.grad",
    "(a + a.sum()).sum().backward(); a.grad",
    "(a.detach() * a).sum().backward(); a.grad",
    "y = a * 2; a.grad",
    "with torch.no_grad(): y = a * 2; y.requires_grad",
    "a.detach().requires_grad",
    "s = torch.tensor(2.0, requires_grad=True); (s * a).sum().backward(); s.grad",
    "p = torch.ones(3, 1, requires_grad=True); "
    "(p + torch.zeros(2, 3, 4)).sum().backward(); p.grad",
    "(g,) = torch.autograd.grad((a ** 3).sum(), a, create_graph=True); "
    "g.sum().backward(); a.grad",
    "(g,) = torch.autograd.grad((a ** 3).sum(), a); g.requires_grad",
]


def program(text: str) -> Any:
    def run(torch: Any) -> Any:
        *body, last = text.split("; ")
        names = leaves(torch)
        exec("\n".join(body), names)  # noqa: S102  (our own text)
        value = eval(last, names)  # noqa: S307
        return value.tolist() if hasattr(value, "tolist") else value

    return run


# --- backward rules: the cases share a pattern -----------------------------------


def gradients_of(make: Any, *values: Any, double: bool = False) -> Any:
    """``make(torch, *leaves)`` gives an output; the case returns the leaves'
    gradients (and, with ``double``, the gradients of the gradients' sum)."""

    def run(torch: Any) -> Any:
        inputs = [torch.tensor(v, requires_grad=True) for v in values]
        output = make(torch, *inputs)
        if not double:
            output.sum().backward()
            return {"output": output, "grads": grads(*inputs)}
        firsts = torch.autograd.grad(output.sum(), inputs, create_graph=True)
        total = sum(g.sum() for g in firsts)
        seconds = torch.autograd.grad(total, inputs, allow_unused=True)
        return {"first": list(firsts), "second": list(seconds)}

    return run


X = [0.5, 1.0, 2.0, 4.0]
M = [[0.5, 1.5, 2.0], [3.0, 0.25, 1.0]]
ROW = [1.0, 2.0, 4.0]


def forward_of(name: str, values: Any, dtype: str | None = None) -> Any:
    """``torch.tensor(values, dtype=...).log()`` (or ``tanh``): values, dtype and
    whether a graph was recorded."""

    def run(torch: Any) -> Any:
        x = torch.tensor(values, dtype=None if dtype is None else getattr(torch, dtype))
        result = getattr(x, name)()
        return {"values": result, "dtype": str(result.dtype), "grad_fn": result.grad_fn}

    return run


def changed_in_place(name: str, which: str) -> Any:
    """``y = x.log()`` (or ``tanh``) on a non-leaf ``x``, then an in-place write
    into ``x`` or into ``y``, then the backward pass: the gradient, or
    RuntimeError when what the node saved was changed."""

    def run(torch: Any) -> Any:
        leaf = torch.tensor([0.5, 2.0], requires_grad=True)
        x = leaf * 1
        y = getattr(x, name)()
        (x if which == "input" else y).mul_(2)
        return raised(lambda: (y.sum().backward(), leaf.grad)[1])

    return run


LOG = [
    Case("x.log()", gradients_of(lambda t, x: x.log(), X)),
    Case(
        "(x.log() * w)",
        gradients_of(lambda t, x, w: x.log() * w, X, [1.0, -2.0, 3.0, 0.5]),
    ),
    Case("torch.log(x * x)", gradients_of(lambda t, x: t.log(x * x), X)),
    Case("m.log() + r", gradients_of(lambda t, m, r: m.log() + r, M, ROW)),
    Case("x.log().log()", gradients_of(lambda t, x: x.log().log(), [2.0, 3.0, 10.0])),
    Case("x.exp().log()", gradients_of(lambda t, x: x.exp().log(), X)),
    Case(
        "second derivative of x.log()",
        gradients_of(lambda t, x: x.log(), X, double=True),
    ),
    Case("torch.tensor([1, 2, 4]).log()", forward_of("log", [1, 2, 4])),
    Case(
        "a float64 tensor's log",
        forward_of("log", [0.5, 3.0], "float64"),
    ),
    Case("y = x.log(); x.mul_(2); backward", changed_in_place("log", "input")),
    Case("y = x.log(); y.mul_(2); backward", changed_in_place("log", "output")),
    Case(
        "torch.tensor([0.0, 1.0]).log()",
        gradients_of(lambda t, x: x.log(), [0.0, 1.0]),
        convention="at 0 the gradient 1/x is inf, as float division gives",
    ),
]

TANH = [
    Case("x.tanh()", gradients_of(lambda t, x: x.tanh(), [-1.0, 0.0, 0.5, 2.0])),
    Case(
        "(x.tanh() * w)",
        gradients_of(lambda t, x, w: x.tanh() * w, X, [1.0, -2.0, 3.0, 0.5]),
    ),
    Case("torch.tanh(2 * x)", gradients_of(lambda t, x: t.tanh(2 * x), X)),
    Case("m.tanh() * r", gradients_of(lambda t, m, r: m.tanh() * r, M, ROW)),
    Case("x.tanh().tanh()", gradients_of(lambda t, x: x.tanh().tanh(), X)),
    Case("x.tanh() + x.exp()", gradients_of(lambda t, x: x.tanh() + x.exp(), X)),
    Case(
        "second derivative of x.tanh()",
        gradients_of(lambda t, x: x.tanh(), [-1.0, 0.0, 0.5], double=True),
    ),
    Case("torch.tensor([True, False]).tanh()", forward_of("tanh", [True, False])),
    Case(
        "a float64 tensor's tanh",
        forward_of("tanh", [0.5, -3.0], "float64"),
    ),
    Case("y = x.tanh(); x.mul_(2); backward", changed_in_place("tanh", "input")),
    Case("y = x.tanh(); y.mul_(2); backward", changed_in_place("tanh", "output")),
    Case(
        "torch.tensor([30.0, -30.0]).tanh()",
        gradients_of(lambda t, x: x.tanh(), [30.0, -30.0]),
        convention="far from 0 tanh is exactly ±1 in float32, so the gradient is 0",
    ),
]

# --- no_grad --------------------------------------------------------------------


def grad_mode_story(torch: Any) -> Any:
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    seen: list[tuple[bool, ...]] = []
    with torch.no_grad():
        y = a * 2
        seen.append((y.requires_grad, y.grad_fn is None, torch.is_grad_enabled()))
    z = a * 2
    seen.append((z.requires_grad, torch.is_grad_enabled()))
    return seen


def nested(torch: Any) -> Any:
    a = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad():
        with torch.enable_grad():
            inner = (a * 2).requires_grad
        with torch.no_grad():
            pass
        after = (a * 2).requires_grad
    return [inner, after, (a * 2).requires_grad]


def inside_enable(torch: Any) -> Any:
    a = torch.tensor([1.0], requires_grad=True)
    torch.set_grad_enabled(False)
    try:
        with torch.no_grad():
            pass
        still_off = torch.is_grad_enabled()
    finally:
        torch.set_grad_enabled(True)
    return [still_off, (a * 2).requires_grad]


def after_error(torch: Any) -> Any:
    a = torch.tensor([1.0], requires_grad=True)
    try:
        with torch.no_grad():
            raise ValueError("inside the block")
    except ValueError:
        pass
    return [torch.is_grad_enabled(), (a * 2).requires_grad]


def update_in_place(torch: Any) -> Any:
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    return {"w": w, "is_leaf": w.is_leaf, "grad_fn": w.grad_fn is None}


def reused(torch: Any) -> Any:
    switch = torch.no_grad()
    a = torch.tensor([1.0], requires_grad=True)
    with switch:
        first = (a * 2).requires_grad
    with switch:
        second = (a * 2).requires_grad
    return [first, second, (a * 2).requires_grad]


def decorated(torch: Any) -> Any:
    @torch.no_grad()
    def double(v: Any) -> Any:
        return v * 2

    a = torch.tensor([1.0], requires_grad=True)
    return [double(a).requires_grad, (a * 2).requires_grad]


NO_GRAD = [
    Case("with torch.no_grad(): y = a * 2", grad_mode_story),
    Case("no_grad inside no_grad, enable_grad inside no_grad", nested),
    Case("no_grad while grad mode is already off", inside_enable),
    Case("an exception inside with torch.no_grad()", after_error),
    Case("w -= 0.1 * w.grad under no_grad", update_in_place),
    Case("one no_grad() object used twice", reused),
    Case(
        "@torch.no_grad() on a function",
        decorated,
        convention="no_grad() also works as a decorator: calls run with recording off",
    ),
]

# --- Div ------------------------------------------------------------------------

DIV = [
    Case(
        "a / b", gradients_of(lambda t, a, b: a / b, [1.0, -2.0, 3.0], [2.0, 4.0, -0.5])
    ),
    Case("a / 4", gradients_of(lambda t, a: a / 4, [1.0, -2.0, 3.0])),
    Case("a / a", gradients_of(lambda t, a: a / a, [1.0, -2.0, 3.0])),
    Case("m / r (broadcast)", gradients_of(lambda t, m, r: m / r, M, ROW)),
    Case(
        "(a / b) / b", gradients_of(lambda t, a, b: a / b / b, [1.0, 2.0], [2.0, 4.0])
    ),
    Case(
        "a / torch.tensor([2, 4])",
        gradients_of(lambda t, a: a / t.tensor([2, 4]), [1.0, 3.0]),
    ),
    Case(
        "a / b.detach()",
        gradients_of(lambda t, a, b: a / b.detach(), [1.0, 3.0], [2.0, 4.0]),
    ),
    Case(
        "second derivatives of a / b",
        gradients_of(lambda t, a, b: a / b, [1.0, 3.0], [2.0, 4.0], double=True),
    ),
    Case(
        "a / torch.tensor([0.0, 2.0])",
        gradients_of(lambda t, a, b: a / b, [1.0, 1.0], [0.0, 2.0]),
        convention="dividing by 0 gives inf and nan gradients, as float division does",
    ),
]

# --- sum_to_size ----------------------------------------------------------------


def grads_only(make: Any, *values: Any) -> Any:
    run = gradients_of(make, *values)
    return lambda torch: run(torch)["grads"]


def summed_to(shape: tuple[int, ...], *size: int) -> Any:
    """``torch.ones(shape).sum_to_size(*size)`` (the engine's function, as the
    engine has no such tensor method)."""

    def run(torch: Any) -> Any:
        x = torch.ones(*shape)
        if hasattr(x, "sum_to_size"):
            return x.sum_to_size(*size)
        return sys.modules["slowtorch_lib.ops.reduction"].sum_to_size(x, size)

    return run


def summed_arange(shape: tuple[int, ...], *size: int) -> Any:
    """:func:`summed_to` of ``torch.arange(...).reshape(shape)``: other values
    in every cell, so that each sum shows which cells it took."""

    def run(torch: Any) -> Any:
        count = 1
        for length in shape:
            count *= length
        x = torch.arange(float(count)).reshape(*shape)
        if hasattr(x, "sum_to_size"):
            return x.sum_to_size(*size)
        return sys.modules["slowtorch_lib.ops.reduction"].sum_to_size(x, size)

    return run


# The public cases call sum_to_size itself, with no backward pass: the backward
# pass is a later exercise (2.10) that needs this one. The gradients that use it
# are grading-only cases (grading_ch02.py).
SUM_TO_SIZE = [
    Case("arange(12.).reshape(4, 3).sum_to_size(3)", summed_arange((4, 3), 3)),
    Case("arange(12.).reshape(4, 3).sum_to_size(4, 1)", summed_arange((4, 3), 4, 1)),
    Case(
        "arange(24.).reshape(2, 3, 4).sum_to_size(3, 1)",
        summed_arange((2, 3, 4), 3, 1),
    ),
    Case(
        "arange(24.).reshape(2, 3, 4).sum_to_size(1, 1, 4)",
        summed_arange((2, 3, 4), 1, 1, 4),
    ),
    Case(
        "arange(24.).reshape(2, 3, 4).sum_to_size(2, 1, 1)",
        summed_arange((2, 3, 4), 2, 1, 1),
    ),
    Case("arange(6.).reshape(2, 3).sum_to_size(1)", summed_arange((2, 3), 1)),
    Case(
        "torch.ones(2, 3, 4).sum_to_size(3, 1)",
        summed_to((2, 3, 4), 3, 1),
    ),
    Case(
        "torch.ones(2, 3).sum_to_size(2, 3)",
        summed_to((2, 3), 2, 3),
    ),
    Case("torch.ones(2, 3).sum_to_size(4)", summed_to((2, 3), 4)),
    Case("arange(6.).reshape(2, 3).sum_to_size(3, 3)", summed_arange((2, 3), 3, 3)),
    Case(
        "arange(6.).reshape(2, 3).sum_to_size(1, 2, 3)", summed_arange((2, 3), 1, 2, 3)
    ),
    Case(
        "torch.ones(2, 1).sum_to_size(1, 1)",
        summed_to((2, 1), 1, 1),
    ),
]


# --- Max(dim) -------------------------------------------------------------------


def max_dim(dim: int, keepdim: bool, values: Any, which: str = "max") -> Any:
    def make(torch: Any, x: Any) -> Any:
        found = x.max(dim, keepdim=keepdim) if which == "max" else x.min(dim, keepdim)
        return found.values * torch.arange(1.0, 1.0 + found.values.numel()).reshape(
            found.values.shape
        )

    return gradients_of(make, values)


CUBE = [[[1.0, 5.0], [7.0, 2.0]], [[3.0, 3.0], [0.0, 9.0]], [[4.0, 8.0], [6.0, 1.0]]]

MAX_DIM = [
    Case("m.max(1).values", max_dim(1, False, M)),
    Case("m.max(0).values", max_dim(0, False, M)),
    Case("m.max(-1, keepdim=True).values", max_dim(-1, True, M)),
    Case("cube.max(1).values", max_dim(1, False, CUBE)),
    Case("cube.max(2, keepdim=True).values", max_dim(2, True, CUBE)),
    Case("cube.max(0).values", max_dim(0, False, CUBE)),
    Case("m.min(1).values", max_dim(1, False, M, "min")),
    Case("x.max(0).values, x 1-d", max_dim(0, False, [3.0, 1.0, 4.0, 1.5])),
    Case(
        "[[2., 2., 1.]].max(1).values",
        max_dim(1, False, [[2.0, 2.0, 1.0]]),
        convention="with ties, the gradient goes to the index max returns: the first",
    ),
]

# --- the exercises --------------------------------------------------------------

EXERCISES = {
    "2.1": Exercise(
        "2.1",
        "which grad_fn",
        "answers_2_1",
        "predict",
        [Case(text, grad_fn_name(text)) for text in GRAD_FNS],
        [
            "Write names as strings such as 'AddBackward0', and None for no grad_fn.",
            "No input that requires grad (or a detached one) means no grad_fn.",
            "The number at the end tells overloads apart: sum() and sum(dim) differ, "
            "and so do max() and max(dim).",
        ],
    ),
    "2.2": Exercise(
        "2.2",
        "what are the gradients",
        "answers_2_2",
        "predict",
        [Case(text, program(text)) for text in GRADIENTS],
        [
            "Write gradients as lists of floats, None for no gradient.",
            "Gradients add up: in .grad across backward calls, and over every path "
            "from the output to a leaf.",
            "A broadcast input gets its gradient summed back to its own shape.",
        ],
    ),
    "2.3": Exercise(
        "2.3",
        "the Function of log",
        "Log",
        "piece",
        LOG,
        [
            "forward computes the values with the kernel for one input and keeps "
            "what backward will need; backward returns d(loss)/dx.",
            "The derivative of log x depends on x alone: that is what to save. An "
            "integer or bool input gives a result of the default float dtype.",
            "Write backward with tensor operations on grad_output and the saved "
            "tensor, so that a second derivative can be taken through it.",
        ],
        target="slowtorch_lib.ops.pointwise.Log",
        what="logarithms and their gradients",
    ),
    "2.4": Exercise(
        "2.4",
        "the Function of tanh",
        "Tanh",
        "piece",
        TANH,
        [
            "As for log: the kernel in forward, one tensor kept, backward in "
            "tensor operations.",
            "Differentiate tanh = sinh / cosh and write the result with tanh "
            "itself: then forward's own result is all backward needs.",
            "The check writes into the input after the call and expects "
            "backward to work; writing into the result must make it raise.",
        ],
        target="slowtorch_lib.ops.pointwise.Tanh",
        what="tanh values and their gradients",
    ),
    "2.5": Exercise(
        "2.5",
        "no_grad",
        "no_grad",
        "piece",
        NO_GRAD,
        [
            "Entering the block switches GRAD_MODE.enabled off; leaving it puts "
            "back what was there before.",
            "Remember the previous mode on entry; blocks can be nested, and the "
            "same object can be entered twice.",
            "__exit__ runs also when the block raises; return nothing from it so "
            "that the exception goes on.",
        ],
        target="slowtorch_lib.autograd.grad_mode.no_grad",
        what="uses of no_grad",
    ),
    "2.6": Exercise(
        "2.6",
        "Div's backward",
        "div_backward",
        "piece",
        DIV,
        [
            "Return a pair (grad_a, grad_b), with None for an input that needs no "
            "gradient (ctx.needs_input_grad).",
            "d(a/b)/da = 1/b and d(a/b)/db = -a/b**2; b may be a plain number "
            "(ctx.scalar_b).",
            "a was saved only when b needs a gradient; the engine un-broadcasts "
            "and casts what you return.",
        ],
        target="slowtorch_lib.ops.pointwise.Div.backward",
        what="gradients",
    ),
    "2.7": Exercise(
        "2.7",
        "sum_to_size",
        "sum_to_size",
        "piece",
        SUM_TO_SIZE,
        [
            "The gradient of a broadcast input is the sum over the dimensions that "
            "broadcasting stretched.",
            "Line the shapes up on the right: leading extra dimensions are summed "
            "away, and so are dimensions where the target has size 1.",
            "Sum with keepdim=True over those dimensions, then reshape; raise "
            "RuntimeError when the shape could not have been broadcast.",
        ],
        target="slowtorch_lib.ops.reduction.sum_to_size",
        what="gradients and sums",
    ),
    "2.8": Exercise(
        "2.8",
        "Max(dim)'s backward",
        "max_dim_backward",
        "piece",
        MAX_DIM,
        [
            "Only the element that was the maximum gets a gradient; the others get 0.",
            "ctx.saved_tensors holds the indices max returned; ctx.dims is (dim,), "
            "and without keepdim that dimension must be put back (unsqueeze).",
            "Compare torch.arange(size) along dim with the indices to make a mask, "
            "then torch.where(mask, grad, 0.0).",
        ],
        target="slowtorch_lib.ops.reduction.MaxDim.backward",
        forbidden=("_scatter_to_index",),
        # a scatter (or a gather's gradient) puts the gradient at the indices
        not_to_use=("scatter", "scatter_", "scatter_add", "scatter_add_", "gather"),
        what="gradients",
    ),
    "2.9": Exercise(
        "2.9",
        "topological_order",
        "topological_order",
        "piece",
        TOPOLOGICAL,
        [
            "Every node must come before the nodes in its next_functions (skip "
            "None), and each node only once.",
            "A depth-first search appends a node after all its next functions: "
            "reversed, that list is the order.",
            "Python's recursion stops near 1000 calls: keep your own stack of "
            "(node, iterator over its children), and remember the nodes seen in a "
            "set (searching a list costs more at each node).",
        ],
        target="slowtorch_lib.autograd.engine.topological_order",
        what="backward passes",
    ),
    "2.10": Exercise(
        "2.10",
        "build: the backward pass",
        "run_backward",
        "piece",
        BACKWARD_PASS,
        [
            "Keep, for each node, one slot per output for the gradients that "
            "have arrived; the roots' gradients arrive first. A node in the order "
            "that nothing reached does not run; the others run their hooks, then "
            "apply, then their post-hooks.",
            "A second gradient for the same slot is added to the first. What a "
            "node sends along edge i is for its input i: give it that input's "
            "shape (undo broadcasting) and dtype (node.input_meta[i]).",
            "Release a node's saved tensors after it ran unless retain_graph; "
            "return the slots left for nodes outside the order (autograd.grad "
            "reads them).",
        ],
        target="slowtorch_lib.autograd.engine.run_backward",
        forbidden=("send", "fit_gradient", "call_pre_hooks", "call_post_hooks"),
        what="backward passes",
    ),
    "2.11": Exercise(
        "2.11",
        "the numerical Jacobian",
        "numerical_jacobian",
        "piece",
        NUMERICAL,
        [
            "Column k of a Jacobian is how every output element moves when "
            "input element k alone moves, and nothing else does.",
            "Move element k by +eps, call fn, by -eps, call fn again; the column "
            "is the difference of the two outputs over 2 * eps (one-sided "
            "differences are too coarse).",
            "x.detach() shares x's storage: write x.detach()[index] = value, "
            "with index running over itertools.product of the shape's ranges, "
            "and write the original value back afterwards.",
            "Collect columns, then turn them into rows: result[o][i][j][k] is "
            "d output o element j / d input i element k.",
        ],
        target="slowtorch_lib.autograd.gradcheck.numerical_jacobian",
        what="Jacobians",
    ),
    "2.12": Exercise(
        "2.12",
        "the analytical Jacobian",
        "analytical_jacobian",
        "piece",
        ANALYTICAL,
        [
            "Backward computes v @ J for the gradient v it is given: which v "
            "makes that a row of J?",
            "A one-hot seed e_j gives row j; one call of torch.autograd.grad per "
            "output element, with retain_graph=True to walk the graph again.",
            "allow_unused=True gives None for an input the output does not "
            "depend on: that row is zeros, as are the rows of an output that "
            "does not require grad.",
            "Flatten each gradient (reshape(-1).tolist()) to get a row in "
            "row-major order; the layout is that of numerical_jacobian.",
        ],
        target="slowtorch_lib.autograd.gradcheck.analytical_jacobian",
        what="Jacobians",
    ),
    "2.13": Exercise(
        "2.13",
        "build: gradcheck",
        "gradcheck",
        "piece",
        GRADCHECK,
        [
            "Three parts: find the inputs to check (and refuse or warn), compute "
            "both Jacobians, then compare them element by element.",
            "numerical_jacobian and analytical_jacobian return the same nested "
            "layout: output, then input, then rows, then columns.",
            "Two numbers agree when |a - n| <= atol + rtol * |n|; stop at the first "
            "that does not, raising GradcheckError or returning False.",
        ],
        target="slowtorch_lib.autograd.gradcheck.gradcheck",
        what="gradient checks",
        stretch=True,
    ),
}
