"""``flip``, ``repeat``, ``tril`` and ``triu`` against PyTorch.

Each check runs the same code on both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compares what comes out, or the type and message of the
exception. Gradients and ``grad_fn`` names are checked by the op table.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

import pytest

from tests.parity_checks import (
    check,
    grid,
    inf,
    nan,
)


def test_flip() -> None:
    cube = grid(6, (2, 3, 4))
    for dims in [(0,), (1,), (2,), (-1,), (0, 2), (2, 0, 1), ()]:
        check(lambda lib: lib.flip(lib.tensor(cube), dims))
    check(lambda lib: lib.tensor(cube).flip(1, 2))
    check(lambda lib: lib.tensor(cube).flip(0))
    check(lambda lib: lib.tensor(cube).permute(2, 0, 1).flip(0))
    check(lambda lib: lib.tensor([[True, False]]).flip(1))
    check(lambda lib: lib.tensor(3.0).flip(0))
    check(lambda lib: lib.zeros(0, 2).flip(0))
    check(lambda lib: lib.tensor(cube).flip(3))
    check(lambda lib: lib.tensor(cube).flip(0, 0))


def test_repeat() -> None:
    m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    check(lambda lib: lib.tensor(m).repeat(2, 3))
    check(lambda lib: lib.tensor(m).repeat((1, 2)))
    check(lambda lib: lib.tensor(m).repeat(2, 1, 2))
    check(lambda lib: lib.tensor(m).t().repeat(1, 2))
    check(lambda lib: lib.tensor([1, 2]).repeat(3))
    check(lambda lib: lib.tensor([True, False]).repeat(2, 2))
    check(lambda lib: lib.tensor(3.0).repeat(2, 2))
    check(lambda lib: lib.tensor(3.0).repeat(()))
    check(lambda lib: lib.tensor(m).repeat(0, 1))
    check(lambda lib: lib.zeros(0, 2).repeat(3, 1))
    check(lambda lib: lib.tensor(m).repeat(2))
    check(lambda lib: lib.tensor(m).repeat(-1, 1))


@pytest.mark.parametrize("diagonal", [-3, -1, 0, 1, 2, 5])
def test_tril_triu(diagonal: int) -> None:
    cube = grid(7, (2, 3, 4))
    for name in ("tril", "triu"):
        check(lambda lib: getattr(lib, name)(lib.tensor(cube), diagonal))
        check(lambda lib: getattr(lib.tensor(cube), name)(diagonal=diagonal))
        check(lambda lib: getattr(lib.tensor(cube).transpose(1, 2), name)(diagonal))
        check(lambda lib: getattr(lib.tensor([[1, 2], [3, 4]]), name)(diagonal))
        check(lambda lib: getattr(lib.ones(2, 2, dtype=lib.bool), name)(diagonal))
        check(lambda lib: getattr(lib.tensor([[nan, inf], [nan, 1.0]]), name)(diagonal))
        check(lambda lib: getattr(lib.zeros(0, 3), name)(diagonal))


def test_tril_triu_errors() -> None:
    check(lambda lib: lib.tensor([1.0, 2.0]).tril())
    check(lambda lib: lib.tensor(1.0).triu())


def test_repeat_interleave() -> None:
    m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    check(lambda lib: lib.repeat_interleave(lib.tensor(m), 2))
    check(lambda lib: lib.tensor(m).repeat_interleave(3, dim=1))
    check(lambda lib: lib.tensor(m).repeat_interleave(0, dim=-2))
    check(lambda lib: lib.tensor(m).t().repeat_interleave(2, 0))
    check(lambda lib: lib.tensor(m).repeat_interleave(lib.tensor([2, 1]), dim=0))
    check(lambda lib: lib.tensor(m).repeat_interleave(lib.tensor([0, 1, 3]), 1))
    check(lambda lib: lib.tensor(m).repeat_interleave(lib.tensor(2)))
    check(lambda lib: lib.tensor(m).repeat_interleave(lib.tensor([2])))
    check(lambda lib: lib.repeat_interleave(lib.tensor([3, 0, 2])))
    check(lambda lib: lib.tensor([True, False]).repeat_interleave(2))
    check(lambda lib: lib.tensor(5.0).repeat_interleave(3))
    check(lambda lib: lib.repeat_interleave(lib.tensor([1, 2]), -1))
    check(lambda lib: lib.repeat_interleave(lib.tensor([1, 2]), lib.tensor([1, -1])))
    check(lambda lib: lib.repeat_interleave(lib.tensor([1.0]), lib.tensor([1.0])))
    pair, three = [1.0, 2.0], [1, 2, 3]
    check(lambda lib: lib.repeat_interleave(lib.tensor(pair), lib.tensor(three)))
    check(lambda lib: lib.tensor([pair]).repeat_interleave(lib.ones(1, 2).long(), 1))
    check(lambda lib: lib.tensor(m).repeat_interleave(2, dim=2))
