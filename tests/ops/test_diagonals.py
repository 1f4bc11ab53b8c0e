"""``diagonal``, ``diag_embed`` and ``diag`` against PyTorch.

Each check runs the same code on both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compares what comes out, or the type and message of the
exception. Gradients and ``grad_fn`` names are checked by the op table.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

import pytest

import slowtorch_lib as st
from tests.parity_checks import check, grid


@pytest.mark.parametrize("offset", [-4, -1, 0, 1, 2, 5])
def test_diagonal(offset: int) -> None:
    cube = grid(3, (2, 3, 4))
    for dims in [(0, 1), (1, 0), (0, 2), (2, 1), (-1, -3)]:
        check(lambda lib: lib.diagonal(lib.tensor(cube), offset, *dims))
        check(lambda lib: lib.tensor(cube).diagonal(offset, *dims).stride())
        check(lambda lib: lib.tensor(cube).diagonal(offset, *dims).storage_offset())
    check(lambda lib: lib.tensor(cube).transpose(0, 2).diagonal(offset))
    check(lambda lib: lib.diag_embed(lib.tensor(cube), offset))
    check(lambda lib: lib.diag_embed(lib.tensor(cube), offset, 0, 3))
    check(lambda lib: lib.diag(lib.tensor(cube[0]), offset))
    check(lambda lib: lib.diag(lib.tensor(cube[0][0]), diagonal=offset))


def test_diagonal_is_a_view() -> None:
    x = st.zeros(3, 3)
    x.diagonal().fill_(1.0)
    assert x.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    y = st.zeros(3, 3)
    st.diag(y).fill_(1.0)  # diag of a matrix is a copy
    assert y.tolist() == [[0.0] * 3] * 3


def test_diagonal_dtypes_and_refusals() -> None:
    check(lambda lib: lib.diag(lib.tensor([True, False])))
    check(lambda lib: lib.diag_embed(lib.tensor([[1, 2], [3, 4]])))
    check(lambda lib: lib.diag(lib.tensor([[1, 2], [3, 4]], dtype=lib.int8), -1))
    check(lambda lib: lib.diag(lib.zeros(0)))
    check(lambda lib: lib.diag(lib.ones(2, 2, 2)))
    check(lambda lib: lib.diag(lib.tensor(1.0)))
    check(lambda lib: lib.diagonal(lib.ones(2, 3), 0, 0, 0))
    check(lambda lib: lib.diagonal(lib.ones(2, 3), 0, 0, -2))
    check(lambda lib: lib.diagonal(lib.ones(2, 3), 0, 0, 2))
    check(lambda lib: lib.diagonal(lib.tensor(1.0)))
    check(lambda lib: lib.diag_embed(lib.ones(2, 3), 0, 1, 1))
    check(lambda lib: lib.diag_embed(lib.ones(2, 3), 0, 0, 3))
    check(lambda lib: lib.diag_embed(lib.tensor(1.0)))
    check(lambda lib: lib.diagonal(2.0))
