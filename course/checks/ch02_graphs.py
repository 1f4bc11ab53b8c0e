"""Chapter 2's cases that walk a graph: the topological order (2.9) and
the backward pass (2.10), with the small graphs they share.

The exercises themselves are in :mod:`course.checks.ch02`.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from course.checking import Case
from course.checks.ch02_programs import grads, raised

# --- topological_order ----------------------------------------------------------


def chain(torch: Any) -> Any:
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    y = x
    for _ in range(5):
        y = (y * 1.5).tanh()
    y.sum().backward()
    return x.grad


def diamond(torch: Any) -> Any:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0, -1.0], requires_grad=True)
    z = x * y
    w = z.exp() + z * x
    (w + z).sum().backward()
    return grads(x, y)


def shared(torch: Any) -> Any:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    k = h * h
    out = (k + h.exp() + (k * h).log()).sum()
    out.backward()
    return x.grad


DEEP = 10_000  # nodes in a chain: ten times what Python's recursion allows
WIDE = 12_000  # nodes side by side
ORDER_BUDGET = 0.25  # CPU seconds for one topological_order of WIDE nodes


def wide_graph(width: int, balanced: bool = False, backward: bool = True) -> Any:
    """``width`` products of the same leaf, added up (in one ``stack``, or in
    a balanced tree of additions). Under the engine the case first times the
    topological order alone, in CPU time (``time.process_time``: the time
    this process computed, which other processes running at once do not
    inflate), and reports a sort slower than ``ORDER_BUDGET``. A sort in
    linear time takes about 0.015 s here; one that searches a list for each
    node it meets takes about 0.9 s."""

    def run(torch: Any) -> Any:
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        parts = [x * float(k % 7) for k in range(width)]
        while balanced and len(parts) > 1:
            pairs = zip(parts[0::2], parts[1::2])
            parts = [a + b for a, b in pairs] + parts[len(parts) // 2 * 2 :]
        total = parts[0].sum() if balanced else torch.stack(parts).sum()
        engine = sys.modules.get("slowtorch_lib.autograd.engine")
        nodes = None
        if torch.__name__ != "torch" and engine is not None:
            start = time.process_time()
            nodes = len(engine.topological_order([total.grad_fn]))
            spent = time.process_time() - start
            if spent > ORDER_BUDGET:
                return (
                    f"too slow: over {ORDER_BUDGET} s of CPU time to sort {width} "
                    "nodes; remember the nodes seen in a set, not a list"
                )
        if not backward:
            return {"nodes": nodes or reachable([total.grad_fn])}
        total.backward()
        return x.grad

    return run


def two_outputs(torch: Any) -> Any:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    first, second = (h * 2).sum(), (h * x).sum()
    torch.autograd.backward([first, second])
    return x.grad


def partial_grad(torch: Any) -> Any:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0, 4.0], requires_grad=True)
    h = x * y
    out = (h * h + y).sum()
    return list(torch.autograd.grad(out, [h, x]))


def double_backward(torch: Any) -> Any:
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    y = (x * x * x).tanh() + x.exp()
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (g * g).sum().backward()
    return [g, x.grad]


def matrix_model(torch: Any) -> Any:
    w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    b = torch.tensor([0.1, -0.2], requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    h = (x @ w + b).tanh()
    out = ((h @ w) * h).sum()
    out.backward()
    return grads(w, b)


def reachable(roots: list[Any]) -> int:
    """How many nodes can be reached from ``roots`` (a walk, in no order)."""
    seen: set[Any] = set()
    todo = list(roots)
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(n for n, _ in node.next_functions if n is not None)
    return len(seen)


def ordered(make: Any) -> Any:
    """The facts an order of the graph ``make(torch)`` builds must have: every
    node reachable from the outputs' nodes once, each before the nodes in its
    ``next_functions``. Under PyTorch (which has no such function) they hold by
    definition; under the engine the case checks ``topological_order``."""

    def run(torch: Any) -> Any:
        roots = [output.grad_fn for output in make(torch)]
        engine = sys.modules.get("slowtorch_lib.autograd.engine")
        if torch.__name__ == "torch" or engine is None:
            return {"nodes": reachable(roots), "once": True, "before": True}
        try:
            order = engine.topological_order(roots)
        except RecursionError:
            return "RecursionError: keep your own stack instead of calling yourself"
        place = {id(node): number for number, node in enumerate(order)}
        before = all(
            place.get(id(child), -1) > place[id(node)]
            for node in order
            for child, _ in node.next_functions
            if child is not None
        )
        return {"nodes": len(order), "once": len(place) == len(order), "before": before}

    return run


def chain_of(depth: int) -> Any:
    def make(torch: Any) -> list[Any]:
        x = torch.tensor([0.5, -1.0], requires_grad=True)
        y = x
        for _ in range(depth):
            y = (y * 1.5).exp()
        return [y.sum()]

    return make


def diamond_graph(torch: Any) -> list[Any]:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0, -1.0], requires_grad=True)
    z = x * y
    return [(z.exp() + z * x + z).sum()]


def shared_graph(torch: Any) -> list[Any]:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    k = h * h
    return [(k + h.exp() + (k * h).exp()).sum()]


def two_roots(torch: Any) -> list[Any]:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()
    return [(h * 2).sum(), (h * x).sum(), h]


def layer_graph(torch: Any) -> list[Any]:
    w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    b = torch.tensor([0.1, -0.2], requires_grad=True)
    x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    h = (x @ w + b).exp()
    return [((h @ w) * h).sum()]


def split_graph(torch: Any) -> list[Any]:
    x = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    first, second = (x * 2).split([2, 3])
    return [first.sum() * second.sum() + second.prod()]


# The public cases ask for the order alone: a backward pass needs the loop of
# exercise 2.10, which needs this order. Whole backward passes that use the
# order are grading-only cases (grading_ch02.py).
TOPOLOGICAL = [
    Case("a chain of exp", ordered(chain_of(5))),
    Case("a diamond: z = x * y used three times", ordered(diamond_graph)),
    Case("h used by three nodes", ordered(shared_graph)),
    Case("three roots sharing h", ordered(two_roots)),
    Case("a small layer with w used twice", ordered(layer_graph)),
    Case("split: one node with two outputs", ordered(split_graph)),
    Case(f"a chain of {DEEP} exp and multiplications", ordered(chain_of(DEEP // 2))),
    Case(f"{WIDE} products of x, stacked and summed", wide_graph(WIDE, backward=False)),
]


# --- the backward pass -------------------------------------------------------------


def broadcast_bias(torch: Any) -> Any:
    h = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    b = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    c = torch.tensor([[2.0], [3.0]], requires_grad=True)
    ((h + b) * c).sum().backward()
    return grads(h, b, c)


def twice_as(torch: Any, wrong: str) -> Any:
    """A Function for 2 * x whose backward returns a float64 gradient, or
    (``wrong="shape"``) a gradient of a shape ``x`` cannot be summed to."""

    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            if wrong == "shape":
                return torch.ones(3) * 2
            return (grad_output * 2).double()

    return Twice.apply


def cast_back(torch: Any) -> Any:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    twice_as(torch, "dtype")(x).sum().backward()
    return {"grad": x.grad, "dtype": str(x.grad.dtype)}


def bad_shape(torch: Any) -> Any:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    return raised(lambda: twice_as(torch, "shape")(x).sum().backward())


def counted(torch: Any) -> Any:
    """How often the backward of a node used three times runs, and with what."""
    calls = []

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            calls.append(grad_output.tolist())
            (x,) = ctx.saved_tensors
            return 2 * x * grad_output

    x = torch.tensor([1.0, -2.0], requires_grad=True)
    h = Square.apply(x)
    (h * 2 + h * 3 + h.exp()).sum().backward()
    return {"calls": calls, "grad": x.grad}


def no_gradient_sent(torch: Any) -> Any:
    """A backward that sends ``None`` to an input that requires grad."""

    class FirstOnly(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any) -> Any:
            return a * 2 + b

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            return grad_output * 2, None

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    FirstOnly.apply(a, w.exp()).sum().backward()
    return grads(a, w)


def split_outputs(torch: Any) -> Any:
    x = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    first, second = x.split([2, 3])
    (first.sum() * second.sum() + second.prod()).backward()
    return x.grad


def walked_twice(torch: Any) -> Any:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x.exp()).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    again = (x * x.exp()).sum()
    again.backward()
    return {"grad": x.grad, "third": raised(again.backward)}


def hooked(torch: Any) -> Any:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.register_hook(lambda gradient: gradient * 10)
    h.retain_grad()
    (h * h).sum().backward()
    return [h.grad, x.grad]


def node_hooks(torch: Any) -> Any:
    """A tensor hook, a pre-hook and a hook on the node that made ``h``."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    seen = []

    def after(sent: Any, received: Any) -> Any:
        seen.append([[g.tolist() for g in sent], [g.tolist() for g in received]])
        return tuple(g + 1 for g in sent)

    h.register_hook(lambda gradient: gradient * 10)
    h.grad_fn.register_prehook(lambda received: (received[0] + 1,))
    h.grad_fn.register_hook(after)
    (h * torch.tensor([1.0, 2.0])).sum().backward()
    return {"seen": seen, "grad": x.grad}


def double_exp(torch: Any) -> Any:
    x = torch.tensor([0.5, 1.5], requires_grad=True)
    y = (x * x * x).exp() + x * x
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (g * g).sum().backward()
    return [g, x.grad]


# The public cases use no operation whose piece needs this loop to be checked
# (log, tanh, division, max(dim)): those exercises come first in the notebook
# but can only be checked once this loop is written.
BACKWARD_PASS = [
    Case("a diamond: z = x * y used twice", diamond),
    Case("two outputs, torch.autograd.backward", two_outputs),
    Case("a node used three times runs once, on the sum", counted),
    Case("a broadcast bias and a broadcast column", broadcast_bias),
    Case("a Function whose backward returns float64", cast_back),
    Case("a gradient no broadcast could give: RuntimeError", bad_shape),
    Case("a backward that sends None to an input", no_gradient_sent),
    Case("split: one node with two outputs", split_outputs),
    Case("retain_graph=True, then a graph walked twice", walked_twice),
    Case("a tensor hook and retain_grad", hooked),
    Case("hooks on a node, before and after it runs", node_hooks),
    Case("torch.autograd.grad to a non-leaf", partial_grad),
    Case("create_graph=True, then backward of the gradient", double_exp),
]
