"""Chapter 2, "Walking backwards": the exercises and their public cases.

As in chapter 1, each case is a short program written against PyTorch's API,
recorded once under PyTorch and run under the engine with the student's piece
in place of the engine's own.
"""

from __future__ import annotations

import sys
import time
import warnings
from typing import Any

from course.checking import Case, Exercise


def leaves(torch: Any) -> dict[str, Any]:
    """The tensors the chapter-2 questions start from, fresh each time."""
    return {
        "torch": torch,
        "a": torch.tensor([1.0, 2.0, 3.0], requires_grad=True),
        "b": torch.tensor([4.0, 5.0, 6.0], requires_grad=True),
        "c": torch.tensor([1.0, 2.0, 3.0]),
    }


def grads(*tensors: Any) -> list[Any]:
    return [None if t.grad is None else t.grad for t in tensors]


def raised(run: Any) -> Any:
    """``run()``, or the name of the RuntimeError it raised (a piece not
    written yet, a NotImplementedError, goes on)."""
    try:
        return run()
    except NotImplementedError:
        raise
    except RuntimeError as error:
        return type(error).__name__


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
    seen = []
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

# --- gradcheck ------------------------------------------------------------------


def custom(torch: Any, slip: float) -> Any:
    """A Function for x ** 3 whose backward is off by ``slip`` times x."""

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad_output * (3 * x * x + slip * x)

    return Cube.apply


def double(*values: Any) -> Any:
    return lambda torch: [
        torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values
    ]


def checked(make: Any, inputs: Any, as_tuple: bool = True, **options: Any) -> Any:
    """``gradcheck(make(torch), inputs(torch), **options)``: its result, or the
    exception's type, and the number of UserWarnings it gave."""

    def run(torch: Any) -> Any:
        args = inputs(torch)
        given = tuple(args) if as_tuple else args[0]
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                result: Any = torch.autograd.gradcheck(make(torch), given, **options)
            except Exception as error:  # noqa: BLE001  (the outcome)
                result = {"raised": type(error).__name__}
        warned = sum(issubclass(w.category, UserWarning) for w in seen)
        return {"result": result, "warnings": warned}

    return run


def product_of(torch: Any) -> Any:
    return lambda a, b: (a * b).tanh()


# --- the two Jacobians ----------------------------------------------------------


def exact_jacobians(torch: Any, fn: Any, args: tuple[Any, ...]) -> Any:
    """PyTorch's Jacobians of ``fn`` in the engine's layout (``result[o][i]``,
    rows of floats), through ``torch.autograd.functional.jacobian``: for the
    inputs that require grad, and the floating-point outputs."""
    positions = [
        p for p, a in enumerate(args) if isinstance(a, torch.Tensor) and a.requires_grad
    ]

    def watched(*wrt: Any) -> Any:
        full = list(args)
        for p, tensor in zip(positions, wrt):
            full[p] = tensor
        results = fn(*full)
        results = results if isinstance(results, tuple) else (results,)
        return tuple(
            o for o in results if isinstance(o, torch.Tensor) and o.is_floating_point()
        )

    wrt = tuple(args[p].detach() for p in positions)
    sizes = [o.numel() for o in watched(*wrt)]
    found = torch.autograd.functional.jacobian(watched, wrt)
    return [
        [found[o][i].reshape(size, x.numel()).tolist() for i, x in enumerate(wrt)]
        for o, size in enumerate(sizes)
    ]


def jacobians(piece: str, make: Any, inputs: Any, **options: Any) -> Any:
    """The Jacobians of ``make(torch)`` at ``inputs(torch)``, and the inputs
    afterwards (a nudged element must be put back). Under PyTorch, which has
    no such functions, they are its exact Jacobians; under the engine, its
    ``piece`` (``numerical_jacobian`` or ``analytical_jacobian``): the case
    compares the two within the checks' tolerance."""

    def run(torch: Any) -> Any:
        args = tuple(inputs(torch))
        fn = make(torch)
        module = sys.modules.get("slowtorch_lib.autograd.gradcheck")
        if torch.__name__ == "torch" or module is None:
            found = exact_jacobians(torch, fn, args)
        else:
            found = getattr(module, piece)(fn, args, **options)
        after = [a.tolist() for a in args if isinstance(a, torch.Tensor)]
        return {"jacobians": found, "inputs after": after}

    return run


def float64(*values: Any, grad: bool = True) -> Any:
    """``inputs`` for :func:`jacobians`: float64 tensors, requiring grad."""
    return lambda torch: [
        torch.tensor(v, dtype=torch.float64, requires_grad=grad) for v in values
    ]


def transposed(torch: Any) -> Any:
    """A leaf whose strides are not row-major: ``[[1, 3], [2, 4]]``."""
    base = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
    return [base.t().requires_grad_()]


def mixed_arguments(torch: Any) -> Any:
    """A tensor that requires grad, one that does not, and a number."""
    return [
        torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True),
        torch.tensor([2.0, 3.0], dtype=torch.float64),
        2.0,
    ]


def pairs(torch: Any) -> Any:
    """A function with more inputs than outputs: each output is a product."""
    return lambda a: torch.stack([a[0] * a[1], a[1] * a[2]])


def weighted_squares(torch: Any) -> Any:
    """``x ** 2`` times a different weight per column."""
    weights = torch.tensor([1.0, 10.0], dtype=torch.float64)
    return lambda x: x * x * weights


# With eps = 1e-3, central differences of x ** 3 are off by exactly eps ** 2,
# within the checks' tolerance; one-sided ones are off by about 3 * x * eps.
NUMERICAL = [
    Case(
        "x ** 3 at x = [0.5, -1.0, 2.0], eps=1e-3",
        jacobians(
            "numerical_jacobian",
            lambda t: lambda x: x**3,
            float64([0.5, -1.0, 2.0]),
            eps=1e-3,
        ),
    ),
    Case(
        "[a0 * a1, a1 * a2]: 2 outputs, 3 inputs",
        jacobians("numerical_jacobian", pairs, float64([0.5, -1.0, 2.0])),
    ),
    Case(
        "(a * b).tanh(), a of shape (2, 2), b of shape (2,)",
        jacobians(
            "numerical_jacobian",
            lambda t: lambda a, b: (a * b).tanh(),
            float64([[0.5, -1.0], [2.0, 0.25]], [1.5, -0.5]),
        ),
    ),
    Case(
        "two outputs: (a.exp(), a * b)",
        jacobians(
            "numerical_jacobian",
            lambda t: lambda a, b: (a.exp(), a * b),
            float64([0.5, -1.0], [2.0, 3.0]),
        ),
    ),
    Case(
        "a * c + k: c does not require grad, k is a number",
        jacobians(
            "numerical_jacobian", lambda t: lambda a, c, k: a * c + k, mixed_arguments
        ),
    ),
    Case(
        "x * x * w, x a transposed (non-contiguous) leaf",
        jacobians("numerical_jacobian", weighted_squares, transposed),
    ),
    Case(
        "(a * 2, a.argmax()): an integer output is not watched",
        jacobians(
            "numerical_jacobian",
            lambda t: lambda a: (a * 2, a.argmax()),
            float64([0.5, 3.0]),
        ),
    ),
]

ANALYTICAL = [
    Case(
        "x ** 3 at x = [0.5, -1.0, 2.0]",
        jacobians(
            "analytical_jacobian", lambda t: lambda x: x**3, float64([0.5, -1.0, 2.0])
        ),
    ),
    Case(
        "[a0 * a1, a1 * a2]: 2 outputs, 3 inputs",
        jacobians("analytical_jacobian", pairs, float64([0.5, -1.0, 2.0])),
    ),
    Case(
        "(a * b).tanh(), a of shape (2, 2), b of shape (2,)",
        jacobians(
            "analytical_jacobian",
            lambda t: lambda a, b: (a * b).tanh(),
            float64([[0.5, -1.0], [2.0, 0.25]], [1.5, -0.5]),
        ),
    ),
    Case(
        "Cube.apply with a wrong backward: the Jacobian backward gives",
        jacobians(
            "analytical_jacobian", lambda t: custom(t, 1.0), float64([0.5, -1.0, 2.0])
        ),
    ),
    Case(
        "two outputs: (a.exp(), a * b)",
        jacobians(
            "analytical_jacobian",
            lambda t: lambda a, b: (a.exp(), a * b),
            float64([0.5, -1.0], [2.0, 3.0]),
        ),
    ),
    Case(
        "(a.exp(), b * 2): each output ignores an input",
        jacobians(
            "analytical_jacobian",
            lambda t: lambda a, b: (a.exp(), b * 2),
            float64([0.5, -1.0], [2.0, 3.0, 4.0]),
        ),
    ),
    Case(
        "a * c + k: c does not require grad, k is a number",
        jacobians(
            "analytical_jacobian", lambda t: lambda a, c, k: a * c + k, mixed_arguments
        ),
    ),
    Case(
        "x * x * w, x a transposed (non-contiguous) leaf",
        jacobians("analytical_jacobian", weighted_squares, transposed),
    ),
    Case(
        "(a * 2, a.detach()): an output that does not require grad",
        jacobians(
            "analytical_jacobian",
            lambda t: lambda a: (a * 2, a.detach()),
            float64([0.5, 3.0]),
        ),
    ),
]

GRADCHECK = [
    Case(
        "gradcheck(lambda a, b: (a * b).tanh(), (a, b)), float64",
        checked(product_of, double([0.5, -1.0, 2.0], [1.5, 0.25, -0.5])),
    ),
    Case(
        "gradcheck(Cube.apply, x) with a right backward",
        checked(lambda t: custom(t, 0.0), double([0.5, -1.0, 2.0]), as_tuple=False),
    ),
    Case(
        "gradcheck(Cube.apply, (x,)) with a wrong backward",
        checked(lambda t: custom(t, 1.0), double([0.5, -1.0, 2.0])),
    ),
    Case(
        "the wrong backward, raise_exception=False",
        checked(
            lambda t: custom(t, 1.0), double([0.5, -1.0, 2.0]), raise_exception=False
        ),
    ),
    Case(
        "a wrong backward that is right at x = 0",
        checked(lambda t: custom(t, 1.0), double([0.0, 0.0])),
    ),
    Case(
        "one input that does not require grad",
        checked(
            lambda t: lambda a, c: a.exp() * c,
            lambda t: [
                t.tensor([0.5, 1.0], dtype=t.float64, requires_grad=True),
                t.tensor([2.0, -3.0], dtype=t.float64),
            ],
        ),
    ),
    Case(
        "no input requires grad",
        checked(
            lambda t: lambda a: a.exp(),
            lambda t: [t.tensor([0.5, 1.0], dtype=t.float64)],
        ),
    ),
    Case(
        "two outputs: (a.exp(), a * b)",
        checked(
            lambda t: lambda a, b: (a.exp(), a * b),
            double([0.5, -1.0], [2.0, 3.0]),
        ),
    ),
    Case(
        "float32 inputs, with atol=1e-2 and rtol=1e-2",
        checked(
            lambda t: lambda a: a * a,
            lambda t: [t.tensor([0.5, 2.0], requires_grad=True)],
            eps=1e-3,
            atol=1e-2,
            rtol=1e-2,
        ),
        convention="a float32 input gives a UserWarning; the check goes on",
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
