"""Chapter 2: grading-only cases (left out of a student release).

Same form as the public cases in ``ch02.py``; the grader runs both.
"""

from __future__ import annotations

from typing import Any

from course.checking import Case
from course.checks.ch02 import (
    ROW,
    M,
    chain,
    checked,
    custom,
    diamond,
    double,
    double_backward,
    forward_of,
    gradients_of,
    grads_only,
    matrix_model,
    max_dim,
    partial_grad,
    shared,
    summed_to,
    two_outputs,
    wide_graph,
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
