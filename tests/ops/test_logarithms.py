"""Values and gradients of ``ops/logarithms.py``: ``log1p``, ``log2``,
``log10``, ``exp2`` and ``expm1``. (Their values and gradients for every
dtype are also in the op table, ``tests/op_table.py``.)"""

from __future__ import annotations

from tests.parity_checks import check


def test_log1p_is_accurate_near_zero_and_promotes_integers() -> None:
    check(lambda lib: lib.log1p(lib.tensor([1e-10, -1e-12, 1e-300], dtype=lib.float64)))
    check(lambda lib: lib.tensor([1, 2, 0]).log1p(), exact=False)
    check(lambda lib: lib.tensor([True, False]).log1p(), exact=False)
