"""Timing helper shared by chapter 1 and its reference-number script."""

from __future__ import annotations

import timeit
from collections.abc import Callable


def seconds_per_call(function: Callable[[], object], repeat: int = 3) -> float:
    """The best time of one call of ``function``, in seconds.

    ``timeit`` first finds how many calls fill about 0.2 s, then repeats that
    measurement ``repeat`` times. The minimum is the least disturbed by
    whatever else the machine was doing.
    """
    timer = timeit.Timer(function)
    calls, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=calls)) / calls
