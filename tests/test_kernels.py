"""The kernels loop over flat lists: large tensors stay quick.

Each check runs the same code on both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compares what comes out, or the type and message of the
exception. Gradients and ``grad_fn`` names are checked by the op table.
"""

# Loop variables in the lambdas below are used at once, inside the loop.
# ruff: noqa: B023

from __future__ import annotations

import slowtorch_lib as st


def test_kernels_handle_large_tensors_quickly() -> None:
    import time

    x = st.rand(200, 500)
    start = time.perf_counter()
    x.sort(1)
    x.cumsum(0)
    x.gather(1, x.argsort(1))
    x.flip(0, 1).repeat(2, 1).tril()
    x.index_select(0, st.arange(199, -1, -1))
    x.masked_select(x > 0.5)
    x.floor()
    elapsed = time.perf_counter() - start
    assert elapsed < 10, f"100,000-element kernels took {elapsed:.1f} s"
