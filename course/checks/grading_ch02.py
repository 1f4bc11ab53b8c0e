"""Chapter 2: grading-only cases (left out of a student release).

Same form as the public cases in ``ch02.py``; the grader runs both.
"""

from __future__ import annotations

import sys
from typing import Any

from course.checking import Case
from course.checks import drawn as d
from course.checks.ch02 import (
    ROW,
    M,
    forward_of,
    gradients_of,
    grads_only,
    max_dim,
    summed_to,
)
from course.checks.ch02_graphs import (
    chain,
    diamond,
    double_backward,
    matrix_model,
    ordered,
    partial_grad,
    shared,
    two_outputs,
    wide_graph,
)
from course.checks.ch02_jacobians import (
    checked,
    custom,
    double,
    jacobians,
    mixed_arguments,
)


def three_roots(torch: Any) -> Any:
    x = torch.tensor([0.5, 2.0], requires_grad=True)
    h = x.tanh()
    outputs = [(h * h).sum(), (h * x).sum(), h.exp().sum()]
    torch.autograd.backward(outputs)
    return x.grad


def wide(torch: Any) -> Any:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    total = x * 0
    for k in range(30):
        total = total + (x * float(k)).tanh()
    total.sum().backward()
    return x.grad


def decorated_twice(torch: Any) -> Any:
    a = torch.tensor([1.0], requires_grad=True)
    switch = torch.no_grad()

    @switch
    def inner(v: Any) -> Any:
        return v * 2

    return [inner(a).requires_grad, inner(a).requires_grad, (a * 2).requires_grad]


def cast_to_half_width(torch: Any) -> Any:
    """A float32 leaf used by a float64 computation gets a float32 gradient."""
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    w = torch.tensor([2.0, -1.0], dtype=torch.float64, requires_grad=True)
    (x * w).exp().sum().backward()
    return [x.grad, w.grad, str(x.grad.dtype)]


def pruned(torch: Any) -> Any:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([0.5, -0.5], requires_grad=True)
    h = (x * y).tanh()
    out = (h.exp() * y).sum()
    return list(torch.autograd.grad(out, [h, y]))


SUM_TO_SIZE_GRADIENTS = [
    Case("m + r: grad of r", grads_only(lambda t, m, r: m + r, M, ROW)),
    Case(
        "m * [[2.], [3.]]: grads", grads_only(lambda t, m, c: m * c, M, [[2.0], [3.0]])
    ),
    Case("s * m, s 0-d: grads", grads_only(lambda t, s, m: s * m, 2.0, M)),
    Case(
        "p (3, 1) + zeros(2, 3, 4): grad of p",
        grads_only(lambda t, p: p + t.zeros(2, 3, 4), [[1.0], [2.0], [3.0]]),
    ),
    Case(
        "q (1, 4) * ones(2, 3, 4): grad of q",
        grads_only(lambda t, q: q * t.ones(2, 3, 4), [[1.0, 2.0, 3.0, 4.0]]),
    ),
    Case(
        "v.expand(2, 3): grad of v",
        grads_only(lambda t, v: v.expand(2, 3) * t.tensor([[1.0], [2.0]]), ROW),
    ),
]

TOPOLOGICAL_PASSES = [
    Case("a chain of tanh", chain),
    Case("a diamond: z = x * y used twice", diamond),
    Case("two outputs, torch.autograd.backward", two_outputs),
    Case("create_graph=True, then backward of the gradient", double_backward),
]


CASES = {
    "2.10": [
        Case("h used by three nodes", shared),
        Case("a small tanh layer with w used twice", matrix_model),
        Case("float32 and float64 leaves in one graph", cast_to_half_width),
        Case("torch.autograd.grad to h and y", pruned),
        Case("three outputs sharing h (2.10)", three_roots),
    ],
    "2.11": [
        Case(
            "a * a at a 0-d a = 1.5",
            jacobians("numerical_jacobian", lambda t: lambda a: a * a, double(1.5)),
        ),
        Case(
            "(a @ b).sin(), a (2, 3) and b (3,), eps=1e-4",
            jacobians(
                "numerical_jacobian",
                lambda t: lambda a, b: (a @ b).sin(),
                double([[0.5, -1.0, 0.25], [2.0, 0.3, -0.7]], [1.5, -0.5, 0.2]),
                eps=1e-4,
            ),
        ),
        Case(
            "(a * c + k, a.cumsum(0))",
            jacobians(
                "numerical_jacobian",
                lambda t: lambda a, c, k: (a * c + k, a.cumsum(0)),
                mixed_arguments,
            ),
        ),
    ],
    "2.12": [
        Case(
            "a * a at a 0-d a = 1.5",
            jacobians("analytical_jacobian", lambda t: lambda a: a * a, double(1.5)),
        ),
        Case(
            "(a @ b).sin(), a (2, 3) and b (3,)",
            jacobians(
                "analytical_jacobian",
                lambda t: lambda a, b: (a @ b).sin(),
                double([[0.5, -1.0, 0.25], [2.0, 0.3, -0.7]], [1.5, -0.5, 0.2]),
            ),
        ),
        Case(
            "(a * c + k, a.cumsum(0))",
            jacobians(
                "analytical_jacobian",
                lambda t: lambda a, c, k: (a * c + k, a.cumsum(0)),
                mixed_arguments,
            ),
        ),
    ],
    "2.13": [
        Case(
            "a backward off by 0.02 x at large x: within rtol, not within atol",
            checked(lambda t: custom(t, 0.02), double([[-30.0, 8.0], [12.0, -15.0]])),
        ),
        Case(
            "a slightly wrong backward, 2-d input",
            checked(lambda t: custom(t, 0.01), double([[1.0, 2.0], [3.0, 4.0]])),
        ),
        Case(
            "the same, with atol=0.1",
            checked(
                lambda t: custom(t, 0.01), double([[1.0, 2.0], [3.0, 4.0]]), atol=0.1
            ),
        ),
    ],
    "2.3": [
        Case("torch.tensor([[1, 8]]).log()", forward_of("log", [[1, 8]])),
        Case(
            "(x * 3).log() * x",
            gradients_of(lambda t, x: (x * 3).log() * x, [0.5, 2.0]),
        ),
        Case("x.log() / r", gradients_of(lambda t, m, r: m.log() / r, M, ROW)),
    ],
    "2.4": [
        Case("torch.tensor([[1, -2]]).tanh()", forward_of("tanh", [[1, -2]])),
        Case(
            "x.tanh() * x.tanh()",
            gradients_of(lambda t, x: x.tanh() * x.tanh(), [0.3, -0.7]),
        ),
        Case(
            "second derivative of (2x).tanh()",
            gradients_of(lambda t, x: (2 * x).tanh(), [0.2], double=True),
        ),
    ],
    "2.5": [
        Case("one no_grad() decorating, called twice", decorated_twice),
    ],
    "2.6": [
        Case(
            "1 / b via a / b",
            gradients_of(lambda t, a, b: a / b, [1.0, 1.0, 1.0], [0.5, -2.0, 8.0]),
        ),
        Case("m / c (column)", gradients_of(lambda t, m, c: m / c, M, [[2.0], [-1.0]])),
    ],
    "2.7": [
        *SUM_TO_SIZE_GRADIENTS,
        Case(
            "r (3,) + m (2, 3) + cube",
            grads_only(lambda t, r: r + t.zeros(4, 2, 3), ROW),
        ),
        Case("torch.ones(3, 2).sum_to_size(3, 2, 1)", summed_to((3, 2), 3, 2, 1)),
    ],
    "2.8": [
        Case("m.max(1, keepdim=True).values", max_dim(1, True, M)),
        Case("m.min(0).values", max_dim(0, False, M, "min")),
    ],
    "2.9": [
        *TOPOLOGICAL_PASSES,
        Case("h used by three nodes (a backward pass)", shared),
        Case("a small tanh layer with w used twice (a backward pass)", matrix_model),
        Case("torch.autograd.grad to a non-leaf (2.9)", partial_grad),
        Case("three outputs sharing h", three_roots),
        Case("thirty branches added up", wide),
        Case(
            "4096 products of x, added up in a balanced tree",
            wide_graph(4096, balanced=True),
        ),
    ],
}


# --- drawn cases: inputs drawn for each grading run (most of the marks) -----------


def drawn_grads(make: Any, sizes: list[list[int]], low: float = -3.0) -> Any:
    """``make(torch, rng, *leaves)``'s output and the leaves' gradients, the
    leaves of ``sizes`` holding drawn values in [low, 3]."""

    def run(torch: Any, rng: d.Rng) -> Any:
        inputs = [d.leaf(torch, rng, s, low=low, high=3.0) for s in sizes]
        output = make(torch, rng, *inputs)
        output.sum().backward()
        return {"output": output, "grads": d.grads(*inputs)}

    return run


def drawn_shape(rng: d.Rng) -> list[int]:
    return d.shape(rng, 1, 4, (1, 3))


def log_rule(torch: Any, rng: d.Rng) -> Any:
    return d.rule(lambda t, r, x: x.log(), drawn_shape(rng), 0.1)(torch, rng)


def tanh_rule(torch: Any, rng: d.Rng) -> Any:
    return d.rule(lambda t, r, x: x.tanh(), drawn_shape(rng))(torch, rng)


def div_rule(torch: Any, rng: d.Rng) -> Any:
    sizes = drawn_shape(rng)
    a = d.leaf(torch, rng, sizes)
    b = d.leaf(torch, rng, sizes, low=0.5)
    if rng.random() < 0.5:
        b = (b * -1).detach().requires_grad_()
    out = a / b
    grad = d.tensor(torch, rng, sizes)
    return {"output": out.detach(), "grads": d.node_grads(torch, out, grad)}


def sum_to(torch: Any, rng: d.Rng) -> Any:
    sizes = d.shape(rng, 1, 3, (1, 3))
    small = [s if rng.random() < 0.5 else 1 for s in sizes]
    small = small[rng.randrange(len(small)) :]
    lead = d.shape(rng, 1, 3, (0, 2))
    x = d.tensor(torch, rng, lead + sizes)
    if hasattr(x, "sum_to_size"):
        found = x.sum_to_size(*small)
    else:
        found = sys.modules["slowtorch_lib.ops.reduction"].sum_to_size(x, small)
    return {"sum": found, "shape": list(found.shape)}


def extreme(torch: Any, rng: d.Rng) -> Any:
    sizes = d.shape(rng, 2, 4, (2, 3))
    count = d.numel(sizes)
    distinct = rng.sample(range(-50, 50), count)
    x = torch.tensor([float(v) for v in distinct]).reshape(*sizes).requires_grad_()
    dim = rng.randrange(len(sizes))
    keep = rng.random() < 0.5
    found = x.max(dim, keep) if rng.random() < 0.5 else x.min(dim, keep)
    grad = d.tensor(torch, rng, list(found.values.shape))
    return {
        "values": found.values.detach(),
        "indices": found.indices,
        "grads": d.node_grads(torch, found.values, grad, outputs=2),
    }


def random_graph(torch: Any, rng: d.Rng, leaves: list[Any], steps: int) -> Any:
    """A graph of drawn shape: each step combines drawn earlier nodes."""
    nodes = list(leaves)
    for _ in range(steps):
        a, b = rng.choice(nodes), rng.choice(nodes)
        kind = rng.randrange(5)
        if kind == 0:
            nodes.append(a * b)
        elif kind == 1:
            nodes.append(a + b * rng.choice([0.5, -1.0, 2.0]))
        elif kind == 2:
            nodes.append((a * 0.3).exp())
        elif kind == 3:
            nodes.append((a * 0.5).sin())
        else:
            nodes.append(a * (b * b + 1.0).reciprocal())
    picked = rng.sample(nodes[len(leaves) :], min(3, steps))
    total = picked[0].sum()
    for node in picked[1:]:
        total = total + node.sum()
    return total


def graph_grads(torch: Any, rng: d.Rng) -> Any:
    """Leaves of one drawn shape (no broadcasting: no sum_to_size)."""
    sizes = [rng.randint(1, 3)]
    x, y = d.leaf(torch, rng, sizes), d.leaf(torch, rng, sizes)
    total = random_graph(torch, rng, [x, y], rng.randint(3, 12))
    total.backward()
    return {"output": total, "grads": d.grads(x, y)}


def graph_order(torch: Any, rng: d.Rng) -> Any:
    make = lambda t: [  # noqa: E731  (one graph, drawn)
        random_graph(
            t, rng, [d.leaf(t, rng, [2]), d.leaf(t, rng, [2])], rng.randint(3, 20)
        )
    ]
    return ordered(make)(torch)


def graph_two_roots(torch: Any, rng: d.Rng) -> Any:
    x = d.leaf(torch, rng, [2])
    y = d.leaf(torch, rng, [2])
    first = random_graph(torch, rng, [x, y], rng.randint(2, 8))
    second = random_graph(torch, rng, [x, y], rng.randint(2, 8))
    torch.autograd.backward([first, second])
    return d.grads(x, y)


def graph_partial(torch: Any, rng: d.Rng) -> Any:
    x = d.leaf(torch, rng, [3])
    h = (x * rng.choice([0.5, 2.0])).exp()
    out = random_graph(torch, rng, [x, h], rng.randint(2, 8))
    return list(torch.autograd.grad(out, [h, x], allow_unused=True))


def grad_mode_drawn(torch: Any, rng: d.Rng) -> Any:
    """A drawn nesting of no_grad and enable_grad, blocks and decorators."""
    a = torch.tensor([1.0], requires_grad=True)
    seen: list[Any] = []

    def step(depth: int, first: bool = False) -> None:
        seen.append([(a * 2).requires_grad, torch.is_grad_enabled()])
        if depth == 0:
            return
        # the first level turns grad off, so that every draw runs no_grad
        kind = rng.choice([0, 2, 3]) if first else rng.randrange(4)
        if kind == 0:
            with torch.no_grad():
                step(depth - 1)
        elif kind == 1:
            with torch.enable_grad():
                step(depth - 1)
        elif kind == 2:
            torch.no_grad()(step)(depth - 1)
        else:
            try:
                with torch.no_grad():
                    step(depth - 1)
                    raise ValueError
            except ValueError:
                pass
        seen.append([(a * 2).requires_grad, torch.is_grad_enabled()])

    step(rng.randint(2, 6), first=True)
    return seen


def gradcheck_drawn(torch: Any, rng: d.Rng) -> Any:
    slip = rng.choice([0.0, 0.0, 1e-3, 0.05, 1.0])
    values = [[round(rng.uniform(0.5, 2.0), 2) for _ in range(rng.randint(1, 3))]]
    atol = rng.choice([1e-5, 1e-2, 0.2])
    return checked(lambda t: custom(t, slip), double(*values), atol=atol)(torch)


JACOBIAN_FUNCTIONS = [
    lambda t: lambda a, b: (a * b).tanh(),
    lambda t: lambda a, b: ((a * a + b).exp(), (a * b).sum(-1)),
    lambda t: lambda a, b: a.cumsum(-1) * b,
    lambda t: lambda a, b: (a / (b * b + 1.0)).sin(),
]


def jacobian_drawn(piece: str, torch: Any, rng: d.Rng) -> Any:
    """A drawn function of ``a`` and of ``b`` broadcast along ``a``'s last
    dimension; ``a`` is sometimes transposed, ``b`` sometimes needs no grad."""
    rows, cols = rng.randint(1, 3), rng.randint(1, 3)
    flip = rng.random() < 0.4
    a_values = d.values(rng, rows * cols, 0.5, 2.0)
    b_values = d.values(rng, cols, 0.5, 2.0)
    b_grad = rng.random() < 0.7
    make = rng.choice(JACOBIAN_FUNCTIONS)

    def inputs(t: Any) -> Any:
        shape = [cols, rows] if flip else [rows, cols]
        a = t.tensor(d.nested(a_values, shape), dtype=t.float64)
        a = (a.t() if flip else a).requires_grad_()
        b = t.tensor(b_values, dtype=t.float64, requires_grad=b_grad)
        return [a, b]

    return jacobians(piece, make, inputs)(torch)


def numerical_drawn(torch: Any, rng: d.Rng) -> Any:
    return jacobian_drawn("numerical_jacobian", torch, rng)


def analytical_drawn(torch: Any, rng: d.Rng) -> Any:
    return jacobian_drawn("analytical_jacobian", torch, rng)


# Each backward rule's drawn cases call its node alone (no backward pass);
# the order's call topological_order alone. A mistake in another piece of
# this chapter does not reach them (the layout pieces of chapter 1 do).
DRAWN = {
    "2.3": [
        d.drawn("x.log(): the value and LogBackward0", log_rule),
        d.drawn("x.log() (again)", log_rule),
        d.drawn("x.log() (a third)", log_rule),
    ],
    "2.4": [
        d.drawn("x.tanh(): the value and TanhBackward0", tanh_rule),
        d.drawn("x.tanh() (again)", tanh_rule),
        d.drawn("x.tanh() (a third)", tanh_rule),
    ],
    "2.5": [
        d.drawn("nested no_grad, enable_grad, decorators", grad_mode_drawn),
        d.drawn("nested no_grad, enable_grad (again)", grad_mode_drawn),
        d.drawn("nested no_grad, enable_grad (a third)", grad_mode_drawn),
    ],
    "2.6": [
        d.drawn("a / b: the value and DivBackward0", div_rule),
        d.drawn("a / b (again)", div_rule),
        d.drawn("a / b (a third)", div_rule),
    ],
    "2.7": [
        d.drawn("x.sum_to_size(...) to a drawn shape", sum_to),
        d.drawn("x.sum_to_size(...) (again)", sum_to),
        d.drawn("x.sum_to_size(...) (a third)", sum_to),
    ],
    "2.8": [
        d.drawn("x.max(dim) or x.min(dim): MaxBackward0", extreme),
        d.drawn("x.max(dim) or x.min(dim) (again)", extreme),
        d.drawn("x.max(dim) or x.min(dim) (a third)", extreme),
    ],
    "2.9": [
        d.drawn("the order of a graph of drawn shape", graph_order),
        d.drawn("the order of a graph of drawn shape (again)", graph_order),
        d.drawn("the order of a graph of drawn shape (a third)", graph_order),
    ],
    "2.10": [
        d.drawn("a backward pass through a graph of drawn shape", graph_grads),
        d.drawn("two roots sharing a graph of drawn shape", graph_two_roots),
        d.drawn("torch.autograd.grad to a non-leaf, drawn graph", graph_partial),
    ],
    "2.11": [
        d.drawn("the numerical Jacobian of a drawn function", numerical_drawn),
        d.drawn("the numerical Jacobian (again)", numerical_drawn),
        d.drawn("the numerical Jacobian (a third)", numerical_drawn),
    ],
    "2.12": [
        d.drawn("the analytical Jacobian of a drawn function", analytical_drawn),
        d.drawn("the analytical Jacobian (again)", analytical_drawn),
        d.drawn("the analytical Jacobian (a third)", analytical_drawn),
    ],
    "2.13": [
        d.drawn("gradcheck of a Function with a drawn slip", gradcheck_drawn),
        d.drawn("gradcheck, drawn slip (again)", gradcheck_drawn),
        d.drawn("gradcheck, drawn slip (a third)", gradcheck_drawn),
    ],
}
