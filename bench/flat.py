"""Flat-list helpers shared by the pure-Python baselines of ``python -m bench``.

A matrix is a row-major flat list of Python floats. Transposes are never
materialized: a column of an ``(n, m)`` list is the slice ``values[j::m]``,
the cheapest gather there is.
"""

from __future__ import annotations

import random
from array import array
from operator import mul
from struct import pack, unpack


def to_float32(values: list[float]) -> list[float]:
    """``values`` rounded to float32, as Python floats (pack, then unpack)."""
    layout = f"{len(values)}f"
    return list(unpack(layout, pack(layout, *values)))


def float32(value: float) -> float:
    """One value rounded to float32."""
    return to_float32([value])[0]


def random_floats(count: int, seed: int) -> list[float]:
    """``count`` uniform numbers in [-1, 1), already rounded to float32.

    Rounded so that every program (engine, baseline, torch) sees the same numbers.
    """
    rng = random.Random(seed)
    return array("f", [rng.uniform(-1, 1) for _ in range(count)]).tolist()


def rows_of(values: list[float], n: int, m: int) -> list[list[float]]:
    """The ``n`` rows of a row-major ``(n, m)`` list."""
    return [values[i * m : (i + 1) * m] for i in range(n)]


def columns_of(values: list[float], n: int, m: int) -> list[list[float]]:
    """The ``m`` columns of a row-major ``(n, m)`` list (strided slices)."""
    return [values[j::m] for j in range(m)]


def products(
    left_rows: list[list[float]], right_columns: list[list[float]]
) -> list[float]:
    """All dot products of rows with columns: a matrix product, row-major."""
    return [sum(map(mul, row, column)) for row in left_rows for column in right_columns]


def matmul(
    left: list[float], right: list[float], n: int, k: int, m: int
) -> list[float]:
    """Row-major ``(n, k) @ (k, m)`` (not rounded): columns gathered once."""
    return products(rows_of(left, n, k), columns_of(right, k, m))
