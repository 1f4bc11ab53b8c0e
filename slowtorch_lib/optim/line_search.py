"""A line search for the strong Wolfe conditions (used by ``LBFGS``).

Given a point ``x``, a descent direction ``d`` and the loss ``f(t)`` along
``x + t * d``, find a step ``t`` that

1. decreases the loss enough: ``f(t) <= f(0) + c1 * t * f'(0)``, and
2. leaves little slope: ``|f'(t)| <= c2 * |f'(0)|``

(Nocedal and Wright, *Numerical Optimization*, algorithms 3.5 and 3.6).
The search first grows ``t`` until an interval is known to hold such a
step (a *bracket*), then shrinks the bracket ("zoom"), each time trying
the minimum of the cubic that fits the loss and slope at both ends.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from slowtorch_lib._tensor import Tensor

__all__ = ["cubic_interpolate", "strong_wolfe"]

Evaluate = Callable[[list[Tensor], float, Tensor], tuple[float, Tensor]]


def cubic_interpolate(
    x1: float,
    f1: float,
    g1: float,
    x2: float,
    f2: float,
    g2: float,
    bounds: tuple[float, float] | None = None,
) -> float:
    """Where the cubic through ``(x1, f1)`` and ``(x2, f2)`` with slopes
    ``g1`` and ``g2`` has its minimum, kept inside ``bounds`` (by default
    the interval between ``x1`` and ``x2``); the middle if it has none."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square < 0:
        return (low + high) / 2.0
    d2 = math.sqrt(d2_square)
    if x1 <= x2:
        minimum = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        minimum = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(minimum, low), high)


class _Point:
    """A step tried along the line: ``t``, the loss, its gradient and slope."""

    def __init__(self, t: float, loss: float, grad: Tensor, slope: float) -> None:
        self.t, self.loss, self.grad, self.slope = t, loss, grad, slope


def strong_wolfe(
    evaluate: Evaluate,
    x: list[Tensor],
    t: float,
    d: Tensor,
    f: float,
    g: Tensor,
    gtd: float,
    c1: float = 1e-4,
    c2: float = 0.9,
    tolerance_change: float = 1e-9,
    max_ls: int = 25,
) -> tuple[float, Tensor, float, int]:
    """Searches along ``d`` from ``x`` for a step meeting the strong Wolfe
    conditions.

    Args:
        evaluate: ``evaluate(x, t, d)`` gives the loss and flat gradient at
            ``x + t * d`` (and leaves the parameters at ``x``).
        x: The parameters' values at the start.
        t: The first step to try.
        d: The direction (flat).
        f, g, gtd: The loss, flat gradient and slope ``g . d`` at ``t = 0``.
        c1, c2: The constants of the two conditions.
        tolerance_change: Stop when the bracket is this narrow (times ``|d|``).
        max_ls: The most evaluations allowed.

    Returns:
        The loss and gradient at the chosen step, the step, and how many
        evaluations were made.
    """
    d_norm = d.abs().max().item()
    start = _Point(0.0, f, g.clone(), gtd)
    loss, grad = evaluate(x, t, d)
    evaluations = 1
    new = _Point(t, loss, grad, grad.dot(d).item())
    previous = start
    done = False
    iterations = 0
    bracket: list[_Point] = []
    # Grow the step until a bracket is found (or the conditions hold).
    while iterations < max_ls:
        too_high = new.loss > f + c1 * new.t * gtd
        if too_high or (iterations > 1 and new.loss >= previous.loss):
            bracket = [previous, _copy(new)]
            break
        if abs(new.slope) <= -c2 * gtd:
            bracket, done = [new], True
            break
        if new.slope >= 0:
            bracket = [previous, _copy(new)]
            break
        low = new.t + 0.01 * (new.t - previous.t)
        high = new.t * 10
        t = cubic_interpolate(
            previous.t, previous.loss, previous.slope, new.t, new.loss, new.slope,
            bounds=(low, high),
        )  # fmt: skip
        previous = _copy(new)
        loss, grad = evaluate(x, t, d)
        evaluations += 1
        new = _Point(t, loss, grad, grad.dot(d).item())
        iterations += 1
    if iterations == max_ls:
        bracket = [_Point(0.0, f, start.grad, gtd), new]
    # Shrink the bracket until the conditions hold.
    low_pos, high_pos = (0, 1) if bracket[0].loss <= bracket[-1].loss else (1, 0)
    insufficient_progress = False
    while not done and iterations < max_ls:
        ends = [point.t for point in bracket]
        if abs(ends[1] - ends[0]) * d_norm < tolerance_change:
            break
        t = cubic_interpolate(
            bracket[0].t, bracket[0].loss, bracket[0].slope,
            bracket[1].t, bracket[1].loss, bracket[1].slope,
        )  # fmt: skip
        t, insufficient_progress = _keep_away_from_ends(
            t, min(ends), max(ends), insufficient_progress
        )
        loss, grad = evaluate(x, t, d)
        evaluations += 1
        new = _Point(t, loss, grad, grad.dot(d).item())
        iterations += 1
        if new.loss > f + c1 * t * gtd or new.loss >= bracket[low_pos].loss:
            bracket[high_pos] = _copy(new)
            low_pos, high_pos = (0, 1) if bracket[0].loss <= bracket[1].loss else (1, 0)
            continue
        if abs(new.slope) <= -c2 * gtd:
            done = True
        elif new.slope * (bracket[high_pos].t - bracket[low_pos].t) >= 0:
            bracket[high_pos] = bracket[low_pos]
        bracket[low_pos] = _copy(new)
    best = bracket[low_pos]
    return best.loss, best.grad, best.t, evaluations


def _copy(point: _Point) -> _Point:
    return _Point(point.t, point.loss, point.grad.clone(), point.slope)


def _keep_away_from_ends(
    t: float, low: float, high: float, insufficient_progress: bool
) -> tuple[float, bool]:
    """Moves ``t`` a tenth of the bracket in from an end it is too close to,
    if the last step also got nowhere or ``t`` is outside the bracket."""
    eps = 0.1 * (high - low)
    if not min(high - t, t - low) < eps:
        return t, False
    if not (insufficient_progress or t >= high or t <= low):
        return t, True
    if abs(t - high) < abs(t - low):
        return high - eps, False
    return low + eps, False
