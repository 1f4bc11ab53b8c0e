"""``clone``, ``to``, ``fill_``, ``zero_`` and ``copy_``
(``slowtorch_lib/ops/copying.py``) against PyTorch: values, gradients and edges."""

from __future__ import annotations

from tests.agree import agree


def test_fill_just_inside_float32() -> None:
    agree(lambda lib: lib.tensor([1.0]).fill_(1e30))
    agree(lambda lib: lib.tensor([1]).fill_(2.5))


def test_copy_from_a_number() -> None:
    agree(lambda lib: lib.zeros(2).copy_(1.5))
