"""``python -m bench``: time the engine against pure Python and PyTorch.

For each case these programs compute the same thing:

* **engine**: slowtorch_lib, the way a student would write it;
* **baseline**: the fastest honest pure-Python code, written by hand for this
  one case, that returns the *same numbers* as the engine: float32 results,
  each step rounded to float32 as PyTorch rounds (with one ``struct`` pack
  and unpack per step, the fastest rounding pure Python has);
* **fused**: for the elementwise cases, one loop over Python floats (float64)
  that computes every element in a single pass and rounds nothing. It is
  not the same computation (it keeps no intermediate results and never
  rounds to float32), but it is the fastest pure Python can be, so it is
  printed too;
* **torch**: PyTorch on one thread (left out if torch is not installed).

The programs are run in turns, many times, and the median time of each is
kept. Other programs may be using the machine at the same moment, so what is
checked against a target is the *ratio* engine / baseline of the medians,
which such noise changes much less than the times themselves.

Targets (engine time / baseline time):

* 64x64 matmul: at most 1.25
* ``(x*x + 3*x).sum()`` on 10,000 float32 elements: at most 2
* forward + backward of ``sum(A @ B)``, 64x64: at most 1.5
* ``(x*x + 3*x).sum()`` forward + backward on 10,000 elements: at most 2
* forward + backward of ``Linear(64, 64)`` on a batch of 64: at most 1.3
* one training step of a 2-64-64-2 tanh MLP on 64 points (cross-entropy,
  ``optim.SGD``): at most 1.3

The Linear and MLP cases are defined in ``bench/nn_cases.py``; the attention
block and the GPT training step (no target) in ``bench/attention_cases.py``.

On Python 3.12+ the matrix products' inner loop is ``math.sumprod``;
``--no-sumprod`` times the older ``sum(map(mul))`` loop on the same
interpreter, to see what it buys.

Against the fused loop the elementwise cases take several times longer:
every engine operation makes a pass of its own and stores a float32 result,
and turning Python floats into float32 storage and back costs more than the
arithmetic itself. The "engine / fused" column shows that price.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from operator import add, mul
from typing import Any

import slowtorch_lib as st
from bench import attention_cases, nn_cases
from bench.flat import matmul, random_floats, to_float32
from slowtorch_lib.ops import linalg

torch: Any
try:
    import torch
except ImportError:  # the torch column is optional
    torch = None

Program = Callable[[], Any]


# ----------------------------------------------------------------------
# Pure-Python baselines
# ----------------------------------------------------------------------


def py_transpose(values: list[float], n: int, m: int) -> list[float]:
    """The ``(m, n)`` transpose of a row-major ``(n, m)`` flat list."""
    return [values[i * m + j] for j in range(m) for i in range(n)]


def py_sum_ab_forward_backward(a: list[float], b: list[float], n: int) -> Any:
    """``loss = sum(A @ B)``, then dA = G B^T and dB = A^T G with G all ones."""
    product = to_float32(matmul(a, b, n, n, n))
    loss = sum(product)
    ones = [1.0] * (n * n)
    grad_a = to_float32(matmul(ones, py_transpose(b, n, n), n, n, n))
    grad_b = to_float32(matmul(py_transpose(a, n, n), ones, n, n, n))
    return loss, grad_a, grad_b


def py_poly_sum(xs: list[float]) -> float:
    """``sum(x*x + 3*x)`` step by step, each step rounded to float32."""
    squares = to_float32(list(map(mul, xs, xs)))
    triples = to_float32([3.0 * x for x in xs])
    return sum(to_float32(list(map(add, squares, triples))))


def py_poly_forward_backward(xs: list[float]) -> Any:
    """The same, and its gradient ``2x + 3`` in float32 steps."""
    loss = py_poly_sum(xs)
    doubled = to_float32(list(map(add, xs, xs)))
    grad = to_float32([d + 3.0 for d in doubled])
    return loss, grad


def fused_poly_sum(xs: list[float]) -> float:
    """``sum(x*x + 3*x)`` in one loop over Python floats (float64, no rounding)."""
    return sum([x * x + 3.0 * x for x in xs])


def fused_poly_forward_backward(xs: list[float]) -> Any:
    """The same, and its gradient ``2x + 3``, in two float64 loops."""
    loss = sum([x * x + 3.0 * x for x in xs])
    grad = [2.0 * x + 3.0 for x in xs]
    return loss, grad


def py_column_sums(values: list[float], n: int, m: int) -> list[float]:
    """Sums over dim 0 of a row-major ``(n, m)`` flat list."""
    return [sum(values[j::m]) for j in range(m)]


def py_chain(value: float, length: int) -> Any:
    """The bookkeeping case by hand: ``length`` multiplications and their chain rule."""
    factors = []
    for _ in range(length):
        factors.append(1.0001)
        value = value * 1.0001
    grad = 1.0
    for factor in reversed(factors):
        grad = grad * factor
    return value, grad


# ----------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------


class Case:
    """One benchmark: three programs and an optional target ratio."""

    def __init__(
        self,
        name: str,
        engine: Program,
        baseline: Program,
        reference: Program | None,
        target: float | None,
        per: int = 1,
        fused: Program | None = None,
    ) -> None:
        self.name = name
        self.engine = engine
        self.baseline = baseline
        self.reference = reference
        self.target = target
        self.per = per  # time per unit: the chain case reports per node
        self.fused = fused  # the one-loop float64 program, where there is one


def build_cases() -> list[Case]:
    cases = []

    n = 64
    a_values, b_values = random_floats(n * n, 1), random_floats(n * n, 2)
    a = st.tensor(a_values).reshape(n, n)
    b = st.tensor(b_values).reshape(n, n)
    ta: Any = None
    tb: Any = None
    if torch is not None:
        ta = torch.tensor(a_values).reshape(n, n)
        tb = torch.tensor(b_values).reshape(n, n)
    cases.append(
        Case(
            "matmul 64x64",
            lambda: a @ b,
            lambda: to_float32(matmul(a_values, b_values, n, n, n)),
            (lambda: ta @ tb) if torch is not None else None,
            1.25,
        )
    )

    xs = random_floats(10_000, 3)
    x = st.tensor(xs)
    tx: Any = torch.tensor(xs) if torch is not None else None
    cases.append(
        Case(
            "(x*x + 3*x).sum(), 10k",
            lambda: (x * x + 3 * x).sum(),
            lambda: py_poly_sum(xs),
            (lambda: (tx * tx + 3 * tx).sum()) if torch is not None else None,
            2.0,
            fused=lambda: fused_poly_sum(xs),
        )
    )

    m_values = random_floats(256 * 256, 4)
    matrix = st.tensor(m_values).reshape(256, 256)
    tmatrix: Any = (
        torch.tensor(m_values).reshape(256, 256) if torch is not None else None
    )
    cases.append(
        Case(
            "sum(dim=0), 256x256",
            lambda: matrix.sum(dim=0),
            lambda: py_column_sums(m_values, 256, 256),
            (lambda: tmatrix.sum(dim=0)) if torch is not None else None,
            None,
        )
    )

    def engine_ab() -> Any:
        left = a.detach().requires_grad_()
        right = b.detach().requires_grad_()
        (left @ right).sum().backward()
        return left.grad, right.grad

    def torch_ab() -> Any:
        left = ta.detach().requires_grad_()
        right = tb.detach().requires_grad_()
        (left @ right).sum().backward()
        return left.grad, right.grad

    cases.append(
        Case(
            "fwd+bwd sum(A @ B), 64x64",
            engine_ab,
            lambda: py_sum_ab_forward_backward(a_values, b_values, n),
            torch_ab if torch is not None else None,
            1.5,
        )
    )

    def engine_poly() -> Any:
        leaf = x.detach().requires_grad_()
        (leaf * leaf + 3 * leaf).sum().backward()
        return leaf.grad

    def torch_poly() -> Any:
        leaf = tx.detach().requires_grad_()
        (leaf * leaf + 3 * leaf).sum().backward()
        return leaf.grad

    cases.append(
        Case(
            "fwd+bwd (x*x + 3*x).sum(), 10k",
            engine_poly,
            lambda: py_poly_forward_backward(xs),
            torch_poly if torch is not None else None,
            2.0,
            fused=lambda: fused_poly_forward_backward(xs),
        )
    )

    length = 200

    def engine_chain() -> Any:
        leaf = st.tensor([0.5], requires_grad=True)
        y = leaf
        for _ in range(length):
            y = y * 1.0001
        y.sum().backward()
        return leaf.grad

    def torch_chain() -> Any:
        leaf = torch.tensor([0.5], requires_grad=True)
        y = leaf
        for _ in range(length):
            y = y * 1.0001
        y.sum().backward()
        return leaf.grad

    cases.append(
        Case(
            "autograd cost per node (us)",
            engine_chain,
            lambda: py_chain(0.5, length),
            torch_chain if torch is not None else None,
            None,
            per=length + 1,
        )
    )

    # Linear(64, 64) and the MLP training step: bench/nn_cases.py.
    cases += [Case(*spec) for spec in nn_cases.specs(torch)]
    # The attention block and the GPT step: bench/attention_cases.py.
    cases += [Case(*spec) for spec in attention_cases.specs(torch)]
    return cases


# ----------------------------------------------------------------------
# Timing
# ----------------------------------------------------------------------


def time_once(program: Program, inner: int) -> float:
    start = time.perf_counter()
    for _ in range(inner):
        program()
    return (time.perf_counter() - start) / inner


def inner_loops(program: Program) -> int:
    """How many calls make one sample last about 5 ms (timer resolution)."""
    single = time_once(program, 1)
    return max(1, min(1000, int(0.005 / max(single, 1e-9))))


def measure(case: Case, rounds: int) -> dict[str, float]:
    """Median seconds per call of each program, sampled in turns."""
    programs = {"engine": case.engine, "baseline": case.baseline}
    if case.fused is not None:
        programs["fused"] = case.fused
    if case.reference is not None:
        programs["torch"] = case.reference
    inner = {name: inner_loops(p) for name, p in programs.items()}
    samples: dict[str, list[float]] = {name: [] for name in programs}
    for _ in range(rounds):
        for name, program in programs.items():
            samples[name].append(time_once(program, inner[name]))
    return {name: statistics.median(s) / case.per for name, s in samples.items()}


def format_time(seconds: float, per_node: bool) -> str:
    if per_node:
        return f"{seconds * 1e6:.2f} us"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds (noisier)")
    parser.add_argument(
        "--no-sumprod",
        action="store_true",
        help="use sum(map(mul)) as the products' inner loop even where Python has "
        "math.sumprod (3.12+), in the engine and the attention baselines",
    )
    args = parser.parse_args(argv)
    if args.no_sumprod:
        linalg.dot_product = linalg.sum_of_products
        attention_cases.dot = attention_cases.sum_of_products
    rounds = 7 if args.quick else 31
    if torch is not None:
        torch.set_num_threads(1)

    cases = build_cases()
    width = max(len(case.name) for case in cases)
    header = f"{'case':{width}} {'engine':>11} {'baseline':>11} {'eng/base':>9}"
    header += f" {'fused':>11} {'eng/fused':>10}"
    if torch is not None:
        header += f" {'torch':>11} {'eng/torch':>10}"
    header += "  target"
    print(header)
    print("-" * len(header))
    failures = 0
    for case in cases:
        times = measure(case, rounds)
        per_node = case.per > 1
        ratio = times["engine"] / times["baseline"]
        line = (
            f"{case.name:{width}} {format_time(times['engine'], per_node):>11} "
            f"{format_time(times['baseline'], per_node):>11} {ratio:>8.2f}x"
        )
        if "fused" in times:
            line += (
                f" {format_time(times['fused'], per_node):>11} "
                f"{times['engine'] / times['fused']:>9.2f}x"
            )
        else:
            line += f" {'-':>11} {'-':>10}"
        if "torch" in times:
            line += (
                f" {format_time(times['torch'], per_node):>11} "
                f"{times['engine'] / times['torch']:>9.0f}x"
            )
        if case.target is not None:
            verdict = "PASS" if ratio <= case.target else "FAIL"
            failures += verdict == "FAIL"
            line += f"  <= {case.target:g}x {verdict}"
        print(line, flush=True)
    print()
    print("All targets met." if not failures else f"{failures} target(s) missed.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
