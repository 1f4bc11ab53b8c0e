"""set_printoptions changes the engine's reprs as it changes torch's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import require_torch

torch = require_torch()


@pytest.fixture(autouse=True)
def default_options() -> Iterator[None]:
    yield
    for lib in (st, torch):
        lib.set_printoptions(profile="default")


OPTIONS = [
    {"precision": 2},
    {"precision": 7},
    {"threshold": 5},
    {"threshold": 5, "edgeitems": 1},
    {"linewidth": 30},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "short", "precision": 6},
    {"sci_mode": True},
    {"sci_mode": False},
    {"sci_mode": True, "precision": 2},
]

TENSORS = [
    lambda t: t.tensor([1.123456789, -2.5, 3e-5]),
    lambda t: t.tensor([1.0, 2.0, 1e9]),
    lambda t: t.tensor([[1.0, 2.0], [3.0, 4.0]]),
    lambda t: t.arange(2000.0).reshape(40, 50) / 7,
    lambda t: t.arange(12).reshape(3, 4),
    lambda t: t.linspace(0, 1, 25),
    lambda t: t.tensor(0.333333333),
    lambda t: t.tensor([0.0, float("nan"), float("inf")]),
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("make", TENSORS)
def test_reprs_match_torch(options: dict[str, Any], make: Any) -> None:
    texts = []
    for lib in (st, torch):
        lib.set_printoptions(**options)
        texts.append(repr(make(lib)))
        lib.set_printoptions(profile="default")
    assert texts[0] == texts[1]


def test_options_are_kept_until_changed() -> None:
    st.set_printoptions(precision=2)
    torch.set_printoptions(precision=2)
    st.set_printoptions(linewidth=60)  # sci_mode back to None, precision kept
    torch.set_printoptions(linewidth=60)
    assert repr(st.tensor([1 / 3])) == repr(torch.tensor([1 / 3]))
    assert st.get_printoptions() == {
        key: value
        for key, value in vars(torch._tensor_str.PRINT_OPTS).items()
        if key in st.get_printoptions()
    }
