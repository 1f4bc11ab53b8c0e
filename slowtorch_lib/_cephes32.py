"""Logarithm, sine and cosine in float32, as PyTorch's vectorised normals do.

A float32 ``randn`` of 16 numbers or more is made on x86-64 by code that
computes ``log``, ``sin`` and ``cos`` eight floats at a time with the
polynomials of the Cephes library (Moshier), not with the C library. To
give PyTorch's numbers bit for bit, this module follows those
polynomials step by step, rounding to float32 after every operation.

Every function works on a list of lanes (plain Python floats that hold
float32 values) and returns new lists, one step over all lanes at a time.

Fused multiply-adds
-------------------
PyTorch's build lets the compiler fuse a multiplication whose result is
only added into the addition: ``a * b + c`` is then rounded once, not
twice. :func:`fma` does that; the steps below use it exactly where the
compiled code does (a Horner step ``y * x + p``, and a product that is
only added or subtracted).
"""

from __future__ import annotations

import math
import operator
import sys
from array import array

SIGN_BIT = 0x80000000
EXPONENT_BITS = 0x7F800000
HALF_BITS = 0x3F000000  # the bits of 0.5


def f32(values: list[float]) -> list[float]:
    """Each value rounded to the nearest float32 (ties to even)."""
    return array("f", values).tolist()


def bits(values: list[float]) -> list[int]:
    """The 32 bits of each float32 value, as unsigned ints."""
    return array("I", array("f", values).tobytes()).tolist()


def from_bits(words: list[int]) -> list[float]:
    """The float32 values with these bits."""
    return array("f", array("I", words).tobytes()).tolist()


def fma(a: list[float], b: list[float], c: list[float]) -> list[float]:
    """``a * b + c`` for float32 lanes, rounded once to float32.

    The product of two float32 numbers is exact in a Python float (24 + 24
    significant bits fit in 53), so only the sum is rounded, to a float;
    rounding that float again to float32 errs only when it lands exactly
    halfway between two float32 numbers while the sum was not exact. The
    error of the sum (Knuth's two-sum) says which way to go then.
    """
    products = list(map(operator.mul, a, b))
    sums = list(map(operator.add, products, c))
    for i in _maybe_halfway(sums):  # rare: look closer
        sums[i] = _nudged(products[i], c[i], sums[i])
    return f32(sums)


# A float (52 fraction bits) halfway between two float32 numbers (23 bits)
# has the 29 bits below a float32's fraction equal to 1 followed by zeros:
# its low 32 bits are one of eight words.
HALFWAY_MASK = (1 << 29) - 1
HALFWAY = 1 << 28
HALFWAY_WORDS = frozenset(HALFWAY | top << 29 for top in range(8))
LOW_HALF = 0 if sys.byteorder == "little" else 1  # where the low 32 bits are


def _maybe_halfway(values: list[float]) -> list[int]:
    """The indices of the floats halfway between two float32 numbers."""
    low_words = array("I", array("d", values).tobytes())[LOW_HALF::2]
    if HALFWAY_WORDS.isdisjoint(low_words):
        return []
    return [i for i, word in enumerate(low_words) if word in HALFWAY_WORDS]


def _nudged(product: float, addend: float, total: float) -> float:
    """``total`` moved one float towards the exact sum, if that was not exact."""
    back = total - product
    error = (product - (total - back)) + (addend - back)
    if error:
        return math.nextafter(total, math.copysign(math.inf, error))
    return total


def mul(a: list[float], b: list[float]) -> list[float]:
    """Lane by lane ``a * b``, rounded to float32."""
    return f32(list(map(operator.mul, a, b)))


def add(a: list[float], b: list[float]) -> list[float]:
    """Lane by lane ``a + b``, rounded to float32."""
    return f32(list(map(operator.add, a, b)))


def fill(value: float, lanes: int) -> list[float]:
    """One float32 constant in every lane."""
    return f32([value]) * lanes


# The constants of the logarithm (Cephes ``logf``).
SQRT_HALF = f32([0.707106781186547524])[0]
LOG_P = f32(
    [
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    ]
)
LOG_Q1 = f32([-2.12194440e-4])[0]  # log(2) = LOG_Q2 - LOG_Q1, split in two
LOG_Q2 = f32([0.693359375])[0]


def log(x: list[float]) -> list[float]:
    """The natural logarithm of positive float32 lanes (Cephes ``logf``).

    Steps: write ``x = m * 2**e`` with ``m`` in ``[0.5, 1)``; if ``m`` is
    below ``sqrt(1/2)`` use ``2m - 1`` and ``e - 1``, else ``m - 1`` (so
    the argument ``t`` is in about ``[-0.29, 0.41]``); then
    ``log x = t - t**2 / 2 + t**3 * P(t) + e * log 2``, with ``log 2`` in
    two parts so that ``e * LOG_Q2`` is exact.
    """
    lanes = len(x)
    words = bits(x)
    e = [float((w >> 23) - 127) + 1.0 for w in words]
    m = from_bits([(w & ~EXPONENT_BITS) | HALF_BITS for w in words])
    small = [v < SQRT_HALF for v in m]
    e = [k - 1.0 if s else k for k, s in zip(e, small)]
    t = [v - 1.0 + (v if s else 0.0) for v, s in zip(m, small)]  # exact
    z = mul(t, t)
    y = fill(LOG_P[0], lanes)
    for p in LOG_P[1:]:
        y = fma(y, t, fill(p, lanes))
    y = mul(y, t)
    y = fma(y, z, mul(e, fill(LOG_Q1, lanes)))
    y = f32([v - w * 0.5 for v, w in zip(y, z)])  # z / 2 is exact
    t = add(t, y)
    return fma(e, fill(LOG_Q2, lanes), t)


# The constants of sine and cosine (Cephes ``sinf`` and ``cosf``).
FOUR_OVER_PI = f32([1.27323954473516])[0]
MINUS_DP = f32([-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8])
SIN_P = f32([-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1])
COS_P = f32([2.443315711809948e-005, -1.388731625493765e-003, 4.166664568298827e-002])


def sincos(x: list[float]) -> tuple[list[float], list[float]]:
    """Sine and cosine of non-negative float32 lanes (Cephes ``sincosf``).

    Steps: ``j``, the octant of ``x`` rounded up to an even number, picks
    a multiple of ``pi/4`` to subtract (in three parts, so the reduction
    keeps its precision); on the reduced ``r``, in ``[-pi/4, pi/4]``, one
    polynomial approximates ``sin r`` and another ``cos r``; ``j`` says
    which of them is the sine and the cosine of ``x``, and their signs.
    """
    lanes = len(x)
    octants = [int(v) for v in mul(x, fill(FOUR_OVER_PI, lanes))]  # truncated
    j = [(k + 1) & ~1 for k in octants]
    y = [float(k) for k in j]
    for dp in MINUS_DP:
        x = fma(y, fill(dp, lanes), x)
    z = mul(x, x)
    # cos r = 1 - z/2 + z**2 * C(z)
    cos_r = fill(COS_P[0], lanes)
    for p in COS_P[1:]:
        cos_r = fma(cos_r, z, fill(p, lanes))
    cos_r = mul(cos_r, z)
    cos_r = fma(cos_r, z, [-v * 0.5 for v in z])  # z / 2 is exact
    cos_r = add(cos_r, fill(1.0, lanes))
    # sin r = r + r * z * S(z)
    sin_r = fill(SIN_P[0], lanes)
    for p in SIN_P[1:]:
        sin_r = fma(sin_r, z, fill(p, lanes))
    sin_r = mul(sin_r, z)
    sin_r = fma(sin_r, x, x)
    sines = []
    cosines = []
    for k, s, c in zip(j, sin_r, cos_r):
        sine, cosine = (s, c) if k & 2 == 0 else (c, s)
        sines.append(-sine if k & 4 else sine)
        cosines.append(cosine if (k - 2) & 4 else -cosine)
    return sines, cosines
