"""Benchmarks: how slow is slowtorch, next to pure Python and to PyTorch?

Run from the repository root::

    python -m bench          # every case, about a minute
    python -m bench --quick  # fewer repetitions, a few seconds

See :mod:`bench.__main__` for the cases and the targets.
"""
