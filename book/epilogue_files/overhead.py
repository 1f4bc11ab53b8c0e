"""Where PyTorch's time goes on a small model: per call, or per number.

The epilogue compares the engine with PyTorch on one training step of the
name generator, and chapter 1 on one 64 x 64 matrix product. The two
factors are far apart; these measurements, taken with PyTorch itself,
show why. They run on either library's tensors only where PyTorch is
installed; ``record_torch.py`` stores them for builds without it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ch01.timing import seconds_per_call

TINY = (32, 64)  # the hidden layer's activations at batch 32
BIG = 512  # a matrix product large enough for the arithmetic to dominate


def count_operations(torch: Any, step: Callable[[], object]) -> int:
    """How many operators PyTorch's dispatcher runs for one call of ``step``.

    A ``TorchDispatchMode`` sees every operator call after autograd has
    recorded it, forward, backward and optimiser alike.
    """
    from torch.utils._python_dispatch import TorchDispatchMode

    class Counter(TorchDispatchMode):
        count = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            Counter.count += 1
            return func(*args, **(kwargs or {}))

    with Counter():
        step()
    return Counter.count


def operations_per_step(torch: Any, lib_names: Any) -> int:
    """Operator calls in one training step of the name generator, in PyTorch."""
    model = lib_names.make_model(torch)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    inputs = torch.zeros(lib_names.BATCH, lib_names.CONTEXT, dtype=torch.int64)
    expected = torch.zeros(lib_names.BATCH, dtype=torch.int64)
    for _ in range(2):  # the second step has a momentum buffer, as all later ones
        count = count_operations(
            torch,
            lambda: lib_names.training_step(
                torch, model, optimizer, loss_fn, inputs, expected
            ),
        )
    return count


def overhead_numbers(torch: Any) -> dict[str, float]:
    """Seconds for one tiny operation, and per multiply-add of a big product."""
    torch.set_num_threads(1)
    torch.manual_seed(0)
    a, b = torch.randn(*TINY), torch.randn(*TINY)
    tiny = seconds_per_call(lambda: torch.add(a, b))
    x, y = torch.randn(BIG, BIG), torch.randn(BIG, BIG)
    big = seconds_per_call(lambda: x @ y)
    return {
        "tiny_op_seconds": tiny,
        "big_matmul_seconds": big,
        "seconds_per_multiply_add": big / BIG**3,
    }
