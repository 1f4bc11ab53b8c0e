"""PyTorch's CPU generator and its distributions, number for number.

:class:`CPUGenerator` is PyTorch's ``CPUGeneratorImpl``: a Mersenne
Twister (:mod:`slowtorch_lib._mt19937`) plus one cached normal number per
precision. Each function below turns its raw draws into one distribution
exactly as PyTorch's CPU kernels do on x86-64, so that the same seed gives
the same numbers in both libraries.

Raw draws
---------
- ``random()``: one 32-bit output of the twister.
- ``random64()``: two outputs, the first one the high half.

Uniform numbers in [from, to)
-----------------------------
float32 keeps the low 24 bits of ``random()``, float64 the low 53 bits of
``random64()``; divided by ``2**24`` or ``2**53`` they give ``u`` in
[0, 1), then ``u * (to - from) + from`` is rounded once (a fused
multiply-add in PyTorch's build).

Normal numbers
--------------
A float32 or float64 tensor of 16 numbers or more is filled with uniform
numbers first; then each block of 16 is changed in place by Box-Muller,
pairing number ``j`` with number ``j + 8``::

    radius = sqrt(-2 log(1 - u[j]))      theta = 2 pi u[j + 8]
    u[j] = radius cos(theta)             u[j + 8] = radius sin(theta)

If the size is not a multiple of 16, the last 16 numbers are drawn again
and converted again (so they overlap the block before). float32 uses the
float32 polynomials of :mod:`slowtorch_lib._cephes32`, float64 the C
library's ``log``, ``cos`` and ``sin`` (which Python's ``math`` calls).

A smaller tensor is filled one number at a time by Box-Muller in float64:
two uniforms ``u1``, ``u2`` give ``r = sqrt(-2 log1p(-u2))`` and
``theta = 2 pi u1``; ``r cos(theta)`` is returned and ``r sin(theta)`` is
kept in the generator for the next such number (even a later call's).

Integers
--------
- ``randint(low, high)``: ``random() % (high - low) + low``, with
  ``random64()`` when the range is ``2**32`` or wider.
- ``random_()`` on int64: ``random64() % 2**63``.
- ``randperm(n)``: for ``i`` from 0 to ``n - 2``, swap item ``i`` with item
  ``i + random() % (n - i)``.

Coin flips and exponentials
---------------------------
- ``bernoulli`` with probability ``p``: 1 if a uniform number (float64,
  or float32 for a float32 tensor of probabilities) is below ``p``.
- ``exponential_``: ``-log(1 - u) / lambd`` with a float64 ``u``.
"""

from __future__ import annotations

import math
from fractions import Fraction

from slowtorch_lib import _cephes32
from slowtorch_lib._mt19937 import MT19937

# The seed of a new generator, as in PyTorch.
DEFAULT_SEED = 67280421310721

# Bits of a random draw each floating type keeps for a uniform number.
FLOAT_DIGITS = {"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8}


class CPUGenerator:
    """PyTorch's CPU generator: the twister and two cached normal numbers."""

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self.engine = MT19937(seed)
        self.next_float_normal: float | None = None
        self.next_double_normal: float | None = None

    def set_current_seed(self, seed: int) -> None:
        """Restarts the twister from ``seed`` and forgets the cached normals."""
        self.engine = MT19937(seed)
        self.next_float_normal = None
        self.next_double_normal = None

    def random(self) -> int:
        """32 random bits."""
        return self.engine.next_uint32()

    def random64(self) -> int:
        """64 random bits: two draws, the first one the high half."""
        high = self.engine.next_uint32()
        return (high << 32) | self.engine.next_uint32()

    def randoms(self, count: int) -> list[int]:
        """``count`` draws of :meth:`random`."""
        return self.engine.next_uint32s(count)

    def random64s(self, count: int) -> list[int]:
        """``count`` draws of :meth:`random64`."""
        words = self.engine.next_uint32s(2 * count)
        return [(high << 32) | low for high, low in zip(words[::2], words[1::2])]


# ----------------------------------------------------------------------
# Rounding as the C++ code does it
# ----------------------------------------------------------------------


def fma64(a: float, b: float, c: float) -> float:
    """``a * b + c`` rounded once, as a fused multiply-add gives it."""
    if c == 0.0 or b == 1.0 or a == 0.0:
        return a * b + c  # the product is exact or the sum adds nothing
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def to_float32(value: float) -> float:
    """``value`` rounded to float32."""
    return _cephes32.f32([value])[0]


# ----------------------------------------------------------------------
# Uniform numbers
# ----------------------------------------------------------------------


def units(g: CPUGenerator, count: int, kind: str) -> list[float]:
    """``count`` uniform numbers in [0, 1) of a floating type ``kind``.

    ``kind`` is ``"float64"``, ``"float32"``, ``"float16"`` or
    ``"bfloat16"``: how many bits of each draw are kept.
    """
    digits = FLOAT_DIGITS[kind]
    mask = (1 << digits) - 1
    scale = 2.0**-digits
    draws = g.random64s(count) if kind == "float64" else g.randoms(count)
    return [(draw & mask) * scale for draw in draws]


def uniform(
    g: CPUGenerator, count: int, kind: str, low: float, high: float
) -> list[float]:
    """``count`` uniform numbers in ``[low, high)`` (``uniform_``, ``rand``)."""
    u = units(g, count, kind)
    if low == 0.0 and high == 1.0:
        return u
    if kind == "float64":
        width = high - low
        return [fma64(x, width, low) for x in u]
    low, high = _cephes32.f32([low, high])  # the bounds as float32
    width = to_float32(high - low)
    lanes = len(u)
    return _cephes32.fma(u, [width] * lanes, [low] * lanes)


# ----------------------------------------------------------------------
# Normal numbers
# ----------------------------------------------------------------------


def normal(
    g: CPUGenerator,
    count: int,
    kind: str,
    mean: float = 0.0,
    std: float = 1.0,
    contiguous: bool = True,
) -> list[float]:
    """``count`` normal numbers for a tensor of floating type ``kind``.

    Chooses PyTorch's path: blocks of 16 for a contiguous float32 or
    float64 tensor of 16 numbers or more, else one at a time.
    """
    if count >= 16 and contiguous and kind == "float32":
        return _blocks_float32(g, count, mean, std)
    if count >= 16 and contiguous and kind == "float64":
        return _blocks_float64(g, count, mean, std)
    return [_one_normal(g, mean, std) for _ in range(count)]


def _one_normal(g: CPUGenerator, mean: float, std: float) -> float:
    """One float64 normal number, using and refilling the generator's cache."""
    if g.next_double_normal is not None:
        value = g.next_double_normal
        g.next_double_normal = None
        return fma64(value, std, mean)
    u1, u2 = units(g, 2, "float64")
    radius = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    g.next_double_normal = radius * math.sin(theta)
    return fma64(radius * math.cos(theta), std, mean)


def _block_starts(count: int) -> list[int]:
    """Where the blocks of 16 begin; the last one is redrawn if it overlaps."""
    return list(range(0, count - 15, 16))


def _blocks_float64(
    g: CPUGenerator, count: int, mean: float, std: float
) -> list[float]:
    """Box-Muller over pairs ``(j, j + 8)`` of each block of 16, in float64."""
    data = units(g, count, "float64")
    for start in _block_starts(count):
        _box_muller_16(data, start, mean, std)
    if count % 16:
        data[count - 16 :] = units(g, 16, "float64")
        _box_muller_16(data, count - 16, mean, std)
    return data


def _box_muller_16(data: list[float], start: int, mean: float, std: float) -> None:
    for j in range(start, start + 8):
        radius = math.sqrt(-2.0 * math.log(1.0 - data[j]))
        theta = 2.0 * math.pi * data[j + 8]
        data[j] = fma64(radius * math.cos(theta), std, mean)
        data[j + 8] = fma64(radius * math.sin(theta), std, mean)


def _blocks_float32(
    g: CPUGenerator, count: int, mean: float, std: float
) -> list[float]:
    """Box-Muller over pairs ``(j, j + 8)`` in float32, all blocks at once."""
    data = units(g, count, "float32")
    starts = _block_starts(count)
    _box_muller_float32(data, starts, mean, std)
    if count % 16:
        data[count - 16 :] = units(g, 16, "float32")
        _box_muller_float32(data, [count - 16], mean, std)
    return data


TWO_PI_32 = to_float32(2.0 * math.pi)


def _box_muller_float32(
    data: list[float], starts: list[int], mean: float, std: float
) -> None:
    """Converts the blocks of 16 that begin at ``starts``, in place."""
    first = [data[s + j] for s in starts for j in range(8)]
    second = [data[s + j + 8] for s in starts for j in range(8)]
    lanes = len(first)
    u1 = [1.0 - u for u in first]  # exact: (0, 1] for the logarithm
    logs = _cephes32.log(u1)
    radius = _cephes32.f32([math.sqrt(-2.0 * v) for v in logs])
    theta = _cephes32.mul([TWO_PI_32] * lanes, second)
    sines, cosines = _cephes32.sincos(theta)
    mean_lanes = _cephes32.f32([mean]) * lanes
    std_lanes = _cephes32.f32([std]) * lanes
    n1 = _cephes32.fma(_cephes32.mul(radius, cosines), std_lanes, mean_lanes)
    n2 = _cephes32.fma(_cephes32.mul(radius, sines), std_lanes, mean_lanes)
    lane = 0
    for s in starts:
        data[s : s + 8] = n1[lane : lane + 8]
        data[s + 8 : s + 16] = n2[lane : lane + 8]
        lane += 8


# ----------------------------------------------------------------------
# Integers
# ----------------------------------------------------------------------


def random_from_to(
    g: CPUGenerator, count: int, low: int, high: int, wide: bool = True
) -> list[int]:
    """``count`` integers in ``[low, high)`` (``randint``, ``random_(a, b)``).

    ``wide`` says whether the dtype may take 64-bit draws (int64, float32,
    float64, bfloat16 do); they are taken when the range is ``2**32`` or more.
    """
    width = high - low
    if wide and width >= 2**32:
        draws = g.random64s(count)
    else:
        draws = g.randoms(count)
    return [_wrap64(draw % width + low) for draw in draws]


def _wrap64(value: int) -> int:
    """``value`` as the int64 with the same low 64 bits."""
    value &= 2**64 - 1
    return value - 2**64 if value >= 2**63 else value


def random_int64(g: CPUGenerator, count: int) -> list[int]:
    """``count`` integers in ``[0, 2**63)``: ``random_()`` on int64."""
    return [draw % 2**63 for draw in g.random64s(count)]


def randperm(g: CPUGenerator, n: int) -> list[int]:
    """The numbers ``0 ... n-1`` shuffled as PyTorch's CPU ``randperm`` does."""
    order = list(range(n))
    if n < (2**32 - 1) // 20:
        for i, draw in enumerate(g.randoms(max(n - 1, 0))):
            z = i + draw % (n - i)
            order[i], order[z] = order[z], order[i]
        return order
    for i in range(n):  # very large n: the "inside-out" shuffle, 64-bit draws
        z = g.random64() % (i + 1)
        order[i] = order[z]
        order[z] = i
    return order


# ----------------------------------------------------------------------
# Coin flips and exponentials
# ----------------------------------------------------------------------


def bernoulli(g: CPUGenerator, probabilities: list[float], kind: str) -> list[int]:
    """1 where a uniform number of ``kind`` is below the probability, else 0.

    ``kind`` is ``"float64"`` for a number ``p`` or a float64 tensor of
    probabilities, ``"float32"`` for a tensor of any other floating type.
    """
    u = units(g, len(probabilities), kind)
    return [1 if x < p else 0 for x, p in zip(u, probabilities)]


def exponential(g: CPUGenerator, count: int, lambd: float) -> list[float]:
    """``count`` exponential numbers of rate ``lambd``, in float64."""
    return [-1.0 / lambd * math.log(1.0 - u) for u in units(g, count, "float64")]


def rounded(values: list[float], kind: str) -> list[float]:
    """``values`` stored in a tensor of floating type ``kind``."""
    return values if kind == "float64" else _cephes32.f32(values)


def multinomial(
    g: CPUGenerator,
    rows: list[list[float]],
    num_samples: int,
    replacement: bool,
    kind: str,
) -> list[list[int]]:
    """Category indices drawn from each row of weights, as PyTorch draws them.

    Without replacement (or for one sample), each weight ``w`` is divided by
    an exponential number ``q`` (all rows' numbers drawn first, in order),
    and the categories with the largest ``w / q`` are taken, largest first.
    With replacement, each sample is a float64 uniform number looked up in
    the row's running sums (divided by the row's total).
    """
    if not replacement or num_samples == 1:
        count = sum(len(row) for row in rows)
        noise = iter(rounded(exponential(g, count, 1.0), kind))
        samples = []
        for row in rows:
            ratios = rounded([w / next(noise) for w in row], kind)
            order = sorted(range(len(row)), key=lambda i: -ratios[i])
            samples.append(order[:num_samples])
        return samples
    return [_with_replacement(g, row, num_samples, kind) for row in rows]


def _with_replacement(
    g: CPUGenerator, row: list[float], num_samples: int, kind: str
) -> list[int]:
    """Samples found by binary search in the row's normalised running sums."""
    running = []
    total = 0.0
    for weight in row:
        total = rounded([total + weight], kind)[0]
        running.append(total)
    if total > 0:
        running = rounded([value / total for value in running], kind)
    running[-1] = 1.0
    samples = []
    for u in units(g, num_samples, "float64"):
        left, right = 0, len(row)
        while left < right:
            middle = (left + right) // 2
            if running[middle] < u:
                left = middle + 1
            else:
                right = middle
        samples.append(left)
    return samples
