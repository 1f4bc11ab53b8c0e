"""``einsum``: refusals with PyTorch's messages, and the equation forms.

Values, gradients and ``grad_fn`` names of the forms attention code uses are
in :mod:`tests.op_table`; here, what the op table cannot hold: errors, the
implicit output's order, strides, and the list form.
"""

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, require_torch, same_error

BAD = [
    ("ij,jk", [(2, 3)]),
    ("ij", [(2, 3), (2, 3)]),
    ("ij->ii", [(2, 3)]),
    ("ij->k", [(2, 3)]),
    ("i.j", [(2, 3)]),
    ("i1", [(2, 3)]),
    ("ij->i1", [(2, 3)]),
    ("ij->i.", [(2, 3)]),
    ("ijk", [(2, 3)]),
    ("...ij", [(2,)]),
    ("...i...", [(2, 3)]),
    ("ij,jk", [(2, 3), (4, 5)]),
    ("ii", [(2, 3)]),
    ("...ij,...jk", [(2, 3, 4), (3, 4, 5)]),
    ("i->i", []),
]


@pytest.mark.parametrize(("equation", "shapes"), BAD, ids=[b[0] for b in BAD])
def test_refusals_match_torch(equation: str, shapes: list[tuple[int, ...]]) -> None:
    same_error(lambda L: L.einsum(equation, *[L.ones(*s) for s in shapes]))


def test_operand_that_is_not_a_tensor() -> None:
    same_error(lambda L: L.einsum("i", [1.0]))


FORMS = [
    ("Ab,bA->", [(2, 3), (3, 2)]),  # capitals sort before small letters
    ("ba", [(3, 4)]),  # implicit output: alphabetical, so a transpose
    ("i j , j k -> i k", [(3, 4), (4, 5)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ij,ij->", [(1, 4), (3, 4)]),  # a size-1 dimension broadcasts
    ("ij->...ij", [(2, 3)]),
    ("bij->bji", [(2, 3, 4)]),
]


@pytest.mark.parametrize(("equation", "shapes"), FORMS, ids=[f[0] for f in FORMS])
def test_forms_match_torch(equation: str, shapes: list[tuple[int, ...]]) -> None:
    torch = require_torch()

    def run(lib: Any) -> Any:
        operands = [
            lib.arange(1.0, 1.0 + lib.ones(*s).numel()).reshape(s) / 7 for s in shapes
        ]
        return lib.einsum(equation, *operands)

    ours, theirs = run(st), run(torch)
    assert_same(ours, theirs)
    assert ours.stride() == theirs.stride()
