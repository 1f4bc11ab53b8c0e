"""The Mersenne Twister MT19937: PyTorch's CPU source of random bits.

Matsumoto and Nishimura's generator (1998) keeps 624 words of 32 bits.
PyTorch's CPU generator is this twister, seeded the classic way
(``init_genrand``), and every random tensor on the CPU is made from its
32-bit outputs. Python's own :mod:`random` runs the same twister, but
seeds it another way, so ``random.seed(0)`` and ``torch.manual_seed(0)``
give different numbers.

Seeding
-------
The seed's low 32 bits become the first word; each next word is made
from the one before::

    state[0] = seed mod 2**32
    state[j] = (1812433253 * (state[j-1] ^ (state[j-1] >> 30)) + j) mod 2**32

The twist
---------
When the 624 words are used up, all of them are replaced at once. Word
``i`` takes the top bit of word ``i`` and the low 31 bits of word
``i + 1``; that 32-bit value ``y`` is shifted right by one, xored with
``0x9908B0DF`` when ``y`` is odd, and xored with word ``i + 397``
(indices wrap around 624, and words already replaced are used as they
now are).

Tempering
---------
A word is not returned as it is: four shifts and masks spread its bits::

    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18

Bookkeeping as PyTorch keeps it
-------------------------------
PyTorch counts ``left`` (outputs before the next twist, plus one) and
``next`` (the index of the next word). Right after seeding, ``left`` is 1
and ``next`` is 0: the first draw twists. These two numbers are part of
the generator's saved state, so they are kept here in the same form.
"""

from __future__ import annotations

import random
import sys
from array import array

N = 624
M = 397
MATRIX_A = 0x9908B0DF
UPPER_BIT = 0x80000000
LOWER_BITS = 0x7FFFFFFF
MASK32 = 0xFFFFFFFF


def seeded_words(seed: int) -> list[int]:
    """The 624 words of a twister just seeded with ``seed`` (``init_genrand``).

    >>> seeded_words(5489)[:2]
    [5489, 1301868182]
    """
    words = [seed & MASK32]
    for j in range(1, N):
        previous = words[-1]
        words.append((1812433253 * (previous ^ (previous >> 30)) + j) & MASK32)
    return words


def twist(words: list[int]) -> None:
    """Replaces the 624 words in place with the next 624 (see the module).

    Word ``i + M`` wraps around to ``i + M - N``, which Python reaches as
    a negative index while ``i + M < N``; the last word pairs with the new
    word 0.
    """
    odd = (0, MATRIX_A)  # xored in when y is odd
    for i in range(N):
        y = (words[i] & UPPER_BIT) | (words[i + 1 - N] & LOWER_BITS)
        words[i] = words[i + M - N] ^ (y >> 1) ^ odd[y & 1]


def temper(y: int) -> int:
    """A word as the twister returns it: its bits spread by four steps.

    >>> temper(0)
    0
    """
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18)


def tempered(words: list[int]) -> list[int]:
    """:func:`temper` of every word, one step over the whole list at a time."""
    ys = [y ^ (y >> 11) for y in words]
    ys = [y ^ ((y << 7) & 0x9D2C5680) for y in ys]
    ys = [y ^ ((y << 15) & 0xEFC60000) for y in ys]
    return [y ^ (y >> 18) for y in ys]


_PYTHON_TWISTER = random.Random()


class MT19937:
    """A Mersenne Twister with PyTorch's seeding and bookkeeping.

    The outputs of a whole twist are tempered at once and kept in
    ``_outputs``, so a draw is a list look-up.

    >>> twister = MT19937(5489)
    >>> twister.next_uint32()  # the reference implementation's first output
    3499211612
    """

    def __init__(self, seed: int = 5489) -> None:
        self.seed = seed
        self.words = seeded_words(seed)
        self.left = 1  # the first draw twists
        self.next = 0
        self._outputs: list[int] = []

    def next_uint32(self) -> int:
        """The next 32 random bits, as an int in ``[0, 2**32)``."""
        self.left -= 1
        if self.left == 0:
            self._twist()
        index = self.next
        self.next += 1
        return self._outputs[index]

    def next_uint32s(self, count: int) -> list[int]:
        """The next ``count`` outputs, as ``next_uint32`` would give them."""
        values: list[int] = []
        while len(values) < count:
            if self.left == 1:  # the next draw twists
                self._twist()
                self.left += 1  # as if the draw that twisted had not counted
            take = min(count - len(values), N - self.next)
            values.extend(self._outputs[self.next : self.next + take])
            self.next += take
            self.left -= take
        return values

    def _twist(self) -> None:
        """The next 624 words and their tempered outputs.

        Python's :mod:`random` runs this very twister in C: given our words
        as its state, its next 624 outputs are ``tempered`` of the twisted
        words, and its state is then the twisted words. Handing it the
        words is only faster than :func:`twist` and :func:`tempered` (the
        tests check that both ways agree).
        """
        _PYTHON_TWISTER.setstate((3, (*self.words, N), None))
        block = _PYTHON_TWISTER.getrandbits(32 * N).to_bytes(4 * N, "little")
        outputs = array("I", block)
        if sys.byteorder == "big":
            outputs.byteswap()
        self._outputs = outputs.tolist()
        self.words = list(_PYTHON_TWISTER.getstate()[1][:N])
        self.left = N
        self.next = 0

    def get_words(self) -> tuple[int, int, int, list[int]]:
        """``(seed, left, next, words)``, the state PyTorch saves."""
        return self.seed, self.left, self.next, list(self.words)

    def set_words(self, seed: int, left: int, next: int, words: list[int]) -> None:
        """Restores a state from :meth:`get_words`."""
        self.seed = seed
        self.words = list(words)
        self.left = left
        self.next = next
        self._outputs = tempered(self.words)
