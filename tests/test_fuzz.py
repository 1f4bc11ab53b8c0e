"""The differential fuzzer on a fixed set of seeds (see ``tests/fuzz.py``).

Random programs of one to six operations run on the engine and on torch; at
least 99 % of them must agree on exceptions, shapes, dtypes, values,
``grad_fn`` names and gradients. Run more seeds by hand with
``python -m tests.fuzz --seeds 0:5000``.
"""

from __future__ import annotations

import time

import pytest

from tests import fuzz
from tests.parity import require_torch

CI_SEEDS = range(0, 400)
REQUIRED_RATE = 0.99


def test_programs_agree_with_torch() -> None:
    torch = require_torch()
    started = time.perf_counter()
    total, failures = fuzz.run(CI_SEEDS, verbose=False)
    seconds = time.perf_counter() - started
    rate = (total - len(failures)) / total
    report = "\n\n".join(
        f"--- seed {program.seed}\n{program.text()}\n>>> {why}"
        for program, why in failures
    )
    print(f"{total - len(failures)}/{total} programs agree in {seconds:.1f} s")
    assert torch is not None
    assert rate >= REQUIRED_RATE, f"only {rate:.2%} agree:\n{report}"


def test_generator_is_a_function_of_the_seed() -> None:
    torch = require_torch()
    first = fuzz.generate(7, torch).text()
    assert fuzz.generate(7, torch).text() == first
    assert fuzz.generate(8, torch).text() != first


def test_checker_catches_a_disagreement() -> None:
    """A program that the engine gets wrong must be reported, not passed."""
    torch = require_torch()
    program = fuzz.Program(
        0,
        [
            "x = torch.tensor([1.0, 2.0]).requires_grad_()",
            "y = x.exp()",
        ],
    )
    assert fuzz.check(program, torch) is None
    wrong = fuzz.Program(
        0,
        [
            "x = torch.tensor([1.0, 2.0]).requires_grad_()",
            "y = x.exp() if torch.__name__ == 'torch' else x.sin()",
        ],
    )
    assert "y:" in (fuzz.check(wrong, torch) or "")
    raising = fuzz.Program(0, ["y = torch.tensor([1.0]).view(3)"])
    assert fuzz.check(raising, torch) is None


@pytest.mark.parametrize("line", ["x.add_(1)", "x.copy_(torch.ones(3))"])
def test_checker_sees_a_failed_line_that_changed_a_tensor(line: str) -> None:
    """Both raise; the engine must also leave ``x`` as it was."""
    torch = require_torch()
    program = fuzz.Program(0, ["x = torch.zeros(1, 3).expand(2, 3)", line])
    assert fuzz.check(program, torch) is None


def test_checker_catches_a_failed_line_that_changed_a_tensor() -> None:
    """The engine's version of the line changes ``x``, then both raise."""
    torch = require_torch()
    program = fuzz.Program(
        0,
        [
            "x = torch.zeros(3)",
            "_ = x.add_(1) if torch.__name__ != 'torch' else x; x.view(7)",
        ],
    )
    assert "changed x" in (fuzz.check(program, torch) or "")


KNOWN_EXAMPLES = {
    "integer tensor put in the graph": "line 6: t4[1] = t5\n   t1: requires_grad "
    "False != True (bool)",
    "matmul folded and transposed": "line 5: t5 = t4 @ t3\n   t5: grad_fn "
    "UnsafeViewBackward0 != TransposeBackward0",
    "layout of a permuted input kept": "line 7: t7 = t3.contiguous()\n   t7: "
    "grad_fn DivBackward0 != CloneBackward0",
    "history of one of several views after its base changed": "line 5: t1 **= t4"
    "\n   t3: grad_fn AsStridedBackward0 != RuntimeError",
    "float32 rounding of intermediate results": "line 2: t2 = t1.mean()\n   t2: "
    "values float32[] -0.01 != float32[] -0.04",
    "remainder of an input rounded differently": "line 10: t10 = torch."
    "remainder(t8, t9)\n   t10: values float64[2] [-0.2112045, 0.3887954] != "
    "float64[2] [-0.2112197, 0.3887802]",
    "nan or inf in a gradient": "line 18: t2_grad = t2.grad\n   t2_grad: values "
    "float32[3] [nan, nan, 0.0] != float32[3] [nan, inf, 0.0]",
}


@pytest.mark.parametrize(
    ("name", "why"),
    [
        (
            "matmul folded and transposed",
            "line 10: t10 = torch.matmul(t9, t8)\n   t10: grad_fn "
            "UnsafeViewBackward0 != CloneBackward0",
        ),
        (
            "layout of a permuted input kept",
            "line 12: t9 = t8.view(*t8.shape[::-1])\n   engine raises "
            "RuntimeError: view size is not compatible with input tensor's size "
            "and stride; torch does not",
        ),
        (
            "layout of a permuted input kept",
            "line 8: t8 = t5.flatten()\n   t8: grad_fn ViewBackward0 != "
            "UnsafeViewBackward0",
        ),
        (
            "layout of a permuted input kept",
            "line 11: t6.fill_(0.5)\n   t8: values float64[1, 3, 1, 3] "
            "[[[[0.5, 0.5, 0.5]], [[0.5, 0.5, 0.5]]]] != float64[1, 3, 1, 3] "
            "[[[[0.0, 0.0, 0.0]], [[1.0, 0.0, 0.0]]]]",
        ),
    ],
)
def test_further_forms_of_known_differences(name: str, why: str) -> None:
    found = fuzz.known_difference(why)
    assert found is not None and found.name == name


def test_every_known_difference_has_a_reason_and_an_example() -> None:
    names = [kind.name for kind in fuzz.KNOWN_DIFFERENCES]
    assert sorted(names) == sorted(KNOWN_EXAMPLES)
    for kind in fuzz.KNOWN_DIFFERENCES:
        assert len(kind.reason) > 80
        found = fuzz.known_difference(KNOWN_EXAMPLES[kind.name])
        assert found is kind, kind.name


@pytest.mark.parametrize(
    "why",
    [
        "line 2: y = x.exp()\n   y: values float32[2] [1.0, 2.0] != float32[2] "
        "[2.7, 7.4]",
        "line 3: t3 = t1 + t2\n   t3: requires_grad False != True (float32)",
        "line 4: t4 = t1.view(7)\n   torch raises RuntimeError: shape '[7]' is "
        "invalid for input of size 6; the engine does not",
        "line 5: t5 = t1 * t2\n   t5: grad_fn MulBackward0 != AddBackward0",
        "line 9: t1_grad = t1.grad\n   t1_grad: values float32[2] [1.0, 2.0] != "
        "float32[2] [1.0, 3.0]",
        # a fill_ showing through where it should not, in the engine's values
        # not all the filled-in value
        "line 4: x.fill_(0.5)\n   y: values float64[2] [0.5, 1.0] != float64[2] "
        "[0.0, 1.0]",
        "line 4: x.fill_(0.5)\n   y: values float64[2] [0.0, 0.0] != float64[2] "
        "[0.5, 0.5]",
        "line 3: t3 = torch.remainder(t1, t2)\n   t3: values int64[2] [1, 2] != "
        "int64[2] [1, 3]",
        "line 5: t5 = t4.flatten()\n   t5: grad_fn ViewBackward0 != CloneBackward0",
    ],
)
def test_other_disagreements_are_not_known(why: str) -> None:
    assert fuzz.known_difference(why) is None
