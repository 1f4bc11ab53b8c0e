"""Chapter 2, "Walking backwards": hidden cases and reference answers."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import slowtorch_lib as torch
from course.checking import Exercise, case
from course.toys import Var
from slowtorch_lib.autograd import Function

# 2.1 ---------------------------------------------------------------------------


def div_backward(a: float, b: float, grad_output: float) -> tuple[float, float]:
    return grad_output / b, -grad_output * a / (b * b)


# 2.2 and 2.3 -------------------------------------------------------------------


class Exp(Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * result


class Pow(Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, exponent: float) -> torch.Tensor:
        ctx.save_for_backward(x)
        ctx.exponent = exponent
        return x**exponent

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return grad_output * ctx.exponent * x ** (ctx.exponent - 1)


def run_function(impl: Any, values: list[float], weights: list[float], **constants: float) -> Any:
    """Forward on ``values``, then backward with ``weights`` as grad_output."""
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    y = impl.apply(x, **constants)
    if not isinstance(y, torch.Tensor):
        return f"forward returned {y!r}, not a tensor"
    if y.grad_fn is None:
        return "a result without grad_fn"
    y.backward(torch.tensor(weights, dtype=torch.float64))
    grad = None if x.grad is None else x.grad.tolist()
    return {"forward": y.tolist(), "x.grad": grad}


def describe_function(name: str, args: tuple[Any, ...]) -> str:
    values, weights = args[:2]
    exponent = f", exponent={args[2]!r}" if len(args) > 2 else ""
    return f"{name}.apply(x{exponent}) with x={values!r}, then backward({weights!r})"


def run_pow(impl: Any, values: list[float], weights: list[float], exponent: float) -> Any:
    return run_function(impl, values, weights, exponent=exponent)


# 2.4 ---------------------------------------------------------------------------


def topological_sort(graph: dict[str, list[str]], root: str) -> list[str]:
    order: list[str] = []
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


def valid_order(args: tuple[Any, ...], expected: Any, got: Any) -> bool:
    graph, _ = args
    if not isinstance(got, list) or sorted(got) != sorted(expected):
        return False
    position = {node: i for i, node in enumerate(got)}
    return all(position[node] < position[child] for node in got for child in graph[node])


def chain(length: int) -> dict[str, list[str]]:
    graph = {f"n{i}": [f"n{i + 1}"] for i in range(length - 1)}
    graph[f"n{length - 1}"] = []
    return graph


DIAMOND = {"loss": ["b", "c"], "b": ["a"], "c": ["a"], "a": []}
SHORTCUT = {"loss": ["a", "b"], "b": ["a"], "a": []}

# 2.5 ---------------------------------------------------------------------------


def sum_to_shape(grad: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
    while grad.dim() > len(shape):
        grad = grad.sum(0)
    for dim, size in enumerate(shape):
        if size == 1 and grad.shape[dim] != 1:
            grad = grad.sum(dim, keepdim=True)
    return grad


def run_sum_to_shape(impl: Any, grad_shape: tuple[int, ...], shape: tuple[int, ...]) -> Any:
    count = math.prod(grad_shape)
    grad = torch.arange(count, dtype=torch.float64).reshape(grad_shape)
    result = impl(grad, shape)
    if not isinstance(result, torch.Tensor):
        return result
    return {"shape": tuple(result.shape), "values": result.tolist()}


def describe_sum_to_shape(name: str, args: tuple[Any, ...]) -> str:
    return f"{name}(<a gradient of shape {args[0]}>, {args[1]!r})"


# 2.6 ---------------------------------------------------------------------------


def product(xs: Sequence[float]) -> float:
    return xs[0] * xs[1]


def cubic(xs: Sequence[float]) -> float:
    return xs[0] ** 3 - 2 * xs[0]


def mixed(xs: Sequence[float]) -> float:
    return math.sin(xs[0]) * xs[1] + xs[2] ** 2


def softplus(xs: Sequence[float]) -> float:
    return math.log(1 + math.exp(xs[0])) + 0 * xs[1]


ANALYTIC: dict[Callable[..., float], tuple[str, Callable[..., list[float]]]] = {
    product: ("x0 * x1", lambda xs: [xs[1], xs[0]]),
    cubic: ("x0 ** 3 - 2 * x0", lambda xs: [3 * xs[0] ** 2 - 2]),
    mixed: (
        "sin(x0) * x1 + x2 ** 2",
        lambda xs: [math.cos(xs[0]) * xs[1], math.sin(xs[0]), 2 * xs[2]],
    ),
    softplus: ("log(1 + exp(x0)) + 0 * x1", lambda xs: [1 / (1 + math.exp(-xs[0])), 0.0]),
}


def exact_gradient(f: Callable[..., float], xs: list[float]) -> list[float]:
    """The reference: the derivative worked out by hand."""
    return ANALYTIC[f][1](xs)


def run_numerical(impl: Any, f: Callable[..., float], xs: list[float]) -> Any:
    before = list(xs)
    result = impl(f, xs)
    if xs != before:
        return f"xs changed to {xs!r}"
    return list(result) if isinstance(result, (list, tuple)) else result


def near(args: tuple[Any, ...], expected: Any, got: Any) -> bool:
    if not isinstance(got, list) or len(got) != len(expected):
        return False
    return all(
        isinstance(g, (int, float)) and math.isclose(e, g, rel_tol=1e-4, abs_tol=1e-5)
        for e, g in zip(expected, got)
    )


def describe_numerical(name: str, args: tuple[Any, ...]) -> str:
    return f"{name}(f, {args[1]!r}) with f(x) = {ANALYTIC[args[0]][0]}"


# 2.7 ---------------------------------------------------------------------------


def backprop(output: Var) -> None:
    # Count, for each Var, how many uses of it lie between it and the output.
    uses: dict[int, int] = {}
    stack, seen = [output], {id(output)}
    while stack:
        var = stack.pop()
        for parent, _ in var.parents:
            uses[id(parent)] = uses.get(id(parent), 0) + 1
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    # A Var is ready once every use has sent its share of the gradient.
    output.grad = 1.0
    ready = [output]
    while ready:
        var = ready.pop()
        for parent, local in var.parents:
            parent.grad += var.grad * local
            uses[id(parent)] -= 1
            if uses[id(parent)] == 0:
                ready.append(parent)


def build_times() -> tuple[list[Var], Var]:
    x, w = Var(2.0, name="x"), Var(3.0, name="w")
    return [x, w], x * w


def build_square() -> tuple[list[Var], Var]:
    x = Var(3.0, name="x")
    return [x], x * x


def build_reuse() -> tuple[list[Var], Var]:
    x, y = Var(2.0, name="x"), Var(5.0, name="y")
    return [x, y], x * y + x


def build_diamond() -> tuple[list[Var], Var]:
    x = Var(1.5, name="x")
    a = x * x
    b = a + x
    return [x], a * b


def build_shared() -> tuple[list[Var], Var]:
    x, y = Var(2.0, name="x"), Var(-1.0, name="y")
    p = x * y
    q = p + p
    return [x, y], q * p + y


def build_long(length: int) -> Callable[[], tuple[list[Var], Var]]:
    def build() -> tuple[list[Var], Var]:
        x = Var(1.0, name="x")
        total = x
        for _ in range(length):
            total = total + x
        return [x], total

    return build


BUILDS = {
    "y = x * w": build_times,
    "y = x * x": build_square,
    "y = x * y + x": build_reuse,
    "a = x * x; y = a * (a + x)": build_diamond,
    "p = x * y; y = (p + p) * p + y": build_shared,
    "y = x + x + ... + x (21 times)": build_long(20),
    "y = x + x + ... + x (3001 times)": build_long(3000),
}


def run_backprop(impl: Any, expression: str) -> Any:
    leaves, output = BUILDS[expression]()
    impl(output)
    return {leaf.name + ".grad": leaf.grad for leaf in leaves}


def describe_backprop_plain(name: str, args: tuple[Any, ...]) -> str:
    return f"{name}(y) where {args[0]}"


# 2.8 ---------------------------------------------------------------------------


class NoGrad:
    def __enter__(self) -> None:
        self.previous = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def __exit__(self, *exc_info: object) -> None:
        torch.set_grad_enabled(self.previous)


def inside(impl: Any) -> list[Any]:
    x = torch.ones(2, requires_grad=True)
    with impl():
        during = [torch.is_grad_enabled(), (x * 2).requires_grad]
    return during + [torch.is_grad_enabled(), (x * 2).requires_grad]


def nested(impl: Any) -> list[Any]:
    with impl():
        with impl():
            pass
        between = torch.is_grad_enabled()
    return [between, torch.is_grad_enabled()]


def already_off(impl: Any) -> list[Any]:
    torch.set_grad_enabled(False)
    with impl():
        pass
    return [torch.is_grad_enabled()]


def exception(impl: Any) -> list[Any]:
    escaped = False
    try:
        with impl():
            raise ValueError("boom")
    except ValueError:
        escaped = True
    return [escaped, torch.is_grad_enabled()]


SCENARIOS = {
    "with NoGrad(): [grad enabled?, (x * 2).requires_grad]; then the same after": inside,
    "with NoGrad(): (with NoGrad(): pass); [grad enabled?]; then after": nested,
    "set_grad_enabled(False); with NoGrad(): pass; [grad enabled?]": already_off,
    "with NoGrad(): raise ValueError; [did it escape?, grad enabled?]": exception,
}


def run_scenario(impl: Any, scenario: str) -> Any:
    try:
        return SCENARIOS[scenario](impl)
    finally:
        torch.set_grad_enabled(True)


EXERCISES = {
    "2.1": Exercise(
        title="backward of division",
        name="div_backward",
        reference=div_backward,
        cases=[
            case(6.0, 3.0, 1.0),
            case(1.0, 2.0, 1.0),
            case(6.0, 3.0, 2.0, hint="multiply both local derivatives by grad_output."),
            case(-4.0, 0.5, 1.0),
            case(0.0, 5.0, -3.0),
        ],
        hint="for out = a / b: d out/d a = 1 / b and d out/d b = -a / b**2; multiply each "
        "by grad_output.",
    ),
    "2.2": Exercise(
        title="Exp as a Function",
        name="Exp",
        reference=Exp,
        run=run_function,
        describe=describe_function,
        cases=[
            case([0.0], [1.0]),
            case([1.0, 2.0], [1.0, 1.0]),
            case([0.5, -1.0], [2.0, -3.0], hint="backward must multiply by grad_output."),
            case([[0.0, 1.0], [-2.0, 3.0]], [[1.0, 1.0], [1.0, 1.0]]),
        ],
        hint="d exp(x)/dx = exp(x): save the result in forward with "
        "ctx.save_for_backward and return grad_output * result in backward.",
    ),
    "2.3": Exercise(
        title="Pow as a Function",
        name="Pow",
        reference=Pow,
        run=run_pow,
        describe=describe_function,
        cases=[
            case([3.0], [1.0], 2.0),
            case([1.0, 2.0], [1.0, 1.0], 3.0),
            case([4.0, 9.0], [1.0, 1.0], 0.5),
            case([2.0], [1.0], -1.0, hint="x ** -1 has derivative -1 * x ** -2."),
            case([2.0, 5.0], [1.0, 1.0], 1.0),
            case([2.0, 5.0], [1.0, 1.0], 0.0, hint="x ** 0 is constant: its gradient is 0."),
            case([1.5, 2.5], [2.0, -1.0], 2.0, hint="backward must multiply by grad_output."),
        ],
        hint="d x**n/dx = n * x**(n - 1): save x in forward (and the exponent as "
        "ctx.exponent), then return grad_output * n * x ** (n - 1).",
    ),
    "2.4": Exercise(
        title="topological sort",
        name="topological_sort",
        reference=topological_sort,
        same=valid_order,
        expected_label="expected an order such as",
        cases=[
            case({"a": []}, "a"),
            case(chain(3), "n0"),
            case(DIAMOND, "loss", hint="each node exactly once, and a after both b and c."),
            case(
                SHORTCUT, "loss", hint="a must come after b, even though loss reaches a directly."
            ),
            case({"y": ["x", "x"], "x": []}, "y", hint="a node used twice is listed once."),
            case(
                {"loss": ["b"], "b": ["a"], "a": [], "unused": ["a"]},
                "loss",
                hint="list only the nodes reachable from the root.",
            ),
            case(
                chain(5000),
                "n0",
                hint="a chain of 5000 nodes is deeper than Python "
                "lets a recursive function go: keep your own stack in a list.",
            ),
        ],
        hint="depth-first from the root: add a node to the list only after all its inputs "
        "are done, then reverse the list.",
    ),
    "2.5": Exercise(
        title="un-broadcasting a gradient",
        name="sum_to_shape",
        reference=sum_to_shape,
        run=run_sum_to_shape,
        describe=describe_sum_to_shape,
        cases=[
            case((2, 3), (2, 3)),
            case((2, 3), (3,)),
            case((2, 3), (1, 3), hint="keep the size-1 dimension: sum with keepdim=True."),
            case((2, 3), (2, 1)),
            case((4, 2, 3), (2, 1)),
            case((2, 3), (), hint="a 0-d input gets the sum of everything, as a 0-d tensor."),
            case((3, 1), (1,)),
        ],
        hint="first sum away the extra leading dimensions, then sum (keepdim=True) "
        "every dimension where the target size is 1 and the gradient's is not.",
    ),
    "2.6": Exercise(
        title="finite-difference gradient check",
        name="numerical_gradient",
        reference=exact_gradient,
        run=run_numerical,
        same=near,
        describe=describe_numerical,
        expected_label="expected (within 1e-4)",
        cases=[
            case(product, [2.0, 3.0]),
            case(cubic, [1.0]),
            case(cubic, [-2.0]),
            case(mixed, [0.3, 2.0, -1.0]),
            case(softplus, [0.7, 4.0], hint="do not change xs: work on a copy."),
        ],
        hint="for each i, (f(xs with xs[i] + eps) - f(xs with xs[i] - eps)) / (2 * eps), "
        "on copies of xs.",
    ),
    "2.7": Exercise(
        title="accumulating gradients",
        name="backprop",
        reference=backprop,
        run=run_backprop,
        describe=describe_backprop_plain,
        cases=[
            case("y = x * w"),
            case(
                "y = x * x",
                hint="x is used twice: its gradient is the sum of both contributions (use +=).",
            ),
            case("y = x * y + x"),
            case(
                "a = x * x; y = a * (a + x)",
                hint="pass a var's gradient on only once "
                "all the vars that use it have sent theirs.",
            ),
            case("p = x * y; y = (p + p) * p + y"),
            case("y = x + x + ... + x (21 times)"),
            case(
                "y = x + x + ... + x (3001 times)",
                hint="a graph this deep needs a loop, not recursion.",
            ),
        ],
        hint="set output.grad = 1, then visit each Var after all its users: for each "
        "(parent, local) in var.parents, parent.grad += var.grad * local.",
    ),
    "2.8": Exercise(
        title="a no_grad context manager",
        name="NoGrad",
        reference=NoGrad,
        run=run_scenario,
        describe=lambda name, args: args[0],
        cases=[
            case("with NoGrad(): [grad enabled?, (x * 2).requires_grad]; then the same after"),
            case(
                "with NoGrad(): (with NoGrad(): pass); [grad enabled?]; then after",
                hint="restore the mode that was on when you entered, not True.",
            ),
            case(
                "set_grad_enabled(False); with NoGrad(): pass; [grad enabled?]",
                hint="restore the mode that was on when you entered, not True.",
            ),
            case(
                "with NoGrad(): raise ValueError; [did it escape?, grad enabled?]",
                hint="__exit__ runs even when the block raises; return None (or False) "
                "so the exception goes on.",
            ),
        ],
        hint="__enter__ remembers torch.is_grad_enabled() and calls "
        "torch.set_grad_enabled(False); __exit__ restores what it remembered.",
    ),
}
