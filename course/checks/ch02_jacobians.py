"""Chapter 2's cases of the two Jacobians (2.11, 2.12) and of gradcheck
(2.13): functions with their right and deliberately wrong backward rules.

The exercises themselves are in :mod:`course.checks.ch02`.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from course.checking import Case

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
    """``inputs`` for a case: float64 tensors, requiring grad."""
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
            double([0.5, -1.0, 2.0]),
            eps=1e-3,
        ),
    ),
    Case(
        "[a0 * a1, a1 * a2]: 2 outputs, 3 inputs",
        jacobians("numerical_jacobian", pairs, double([0.5, -1.0, 2.0])),
    ),
    Case(
        "(a * b).tanh(), a of shape (2, 2), b of shape (2,)",
        jacobians(
            "numerical_jacobian",
            lambda t: lambda a, b: (a * b).tanh(),
            double([[0.5, -1.0], [2.0, 0.25]], [1.5, -0.5]),
        ),
    ),
    Case(
        "two outputs: (a.exp(), a * b)",
        jacobians(
            "numerical_jacobian",
            lambda t: lambda a, b: (a.exp(), a * b),
            double([0.5, -1.0], [2.0, 3.0]),
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
            double([0.5, 3.0]),
        ),
    ),
]

ANALYTICAL = [
    Case(
        "x ** 3 at x = [0.5, -1.0, 2.0]",
        jacobians(
            "analytical_jacobian", lambda t: lambda x: x**3, double([0.5, -1.0, 2.0])
        ),
    ),
    Case(
        "[a0 * a1, a1 * a2]: 2 outputs, 3 inputs",
        jacobians("analytical_jacobian", pairs, double([0.5, -1.0, 2.0])),
    ),
    Case(
        "(a * b).tanh(), a of shape (2, 2), b of shape (2,)",
        jacobians(
            "analytical_jacobian",
            lambda t: lambda a, b: (a * b).tanh(),
            double([[0.5, -1.0], [2.0, 0.25]], [1.5, -0.5]),
        ),
    ),
    Case(
        "Cube.apply with a wrong backward: the Jacobian backward gives",
        jacobians(
            "analytical_jacobian", lambda t: custom(t, 1.0), double([0.5, -1.0, 2.0])
        ),
    ),
    Case(
        "two outputs: (a.exp(), a * b)",
        jacobians(
            "analytical_jacobian",
            lambda t: lambda a, b: (a.exp(), a * b),
            double([0.5, -1.0], [2.0, 3.0]),
        ),
    ),
    Case(
        "(a.exp(), b * 2): each output ignores an input",
        jacobians(
            "analytical_jacobian",
            lambda t: lambda a, b: (a.exp(), b * 2),
            double([0.5, -1.0], [2.0, 3.0, 4.0]),
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
            double([0.5, 3.0]),
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
        "a backward off by 0.01 x at x = [10, 20]: within rtol, not within atol",
        checked(lambda t: custom(t, 0.01), double([10.0, 20.0])),
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
