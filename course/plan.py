"""A chapter's plan: which exercises are core and which stretch, and how long.

Each exercise notebook opens with this plan (:func:`markdown`, put in by
``python -m course generate``), and the teacher's guide has the table for
the term (``python -m course.plan`` prints it).

- **Core** exercises carry the chapter's ideas; later chapters run on the
  pieces of chapters 1-4.
- **Stretch** exercises (``Exercise.stretch``) are for students who finish
  the core. No core exercise of their chapter and no exercise of a later
  chapter reaches their piece (a test measures it with
  :mod:`course.dependencies`), so a student who leaves one out loses
  nothing else.
- **Lines** are the model answer's: the lines inside its solution regions,
  and one per prediction (:func:`course.notebooks.answer_lines`).
- **Hours** are an estimate made from the lines, not a measurement of
  students: :data:`MINUTES_PER_PREDICTION` for each prediction and
  :data:`LINES_PER_HOUR` lines of code an hour (reading the statement,
  writing and running the check included). Rounded up to half an hour.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass

from course.checking import Exercise, exercises

__all__ = ["LINES_PER_HOUR", "MINUTES_PER_PREDICTION", "markdown", "parts", "table"]

MINUTES_PER_PREDICTION = 2
LINES_PER_HOUR = 25


@dataclass(frozen=True)
class Part:
    """The core or the stretch exercises of a chapter."""

    ids: list[str]
    lines: int
    hours: float


def _hours(chosen: list[Exercise], lines: dict[str, int]) -> float:
    minutes = 0.0
    for exercise in chosen:
        if exercise.kind == "predict":
            minutes += MINUTES_PER_PREDICTION * lines[exercise.id]
        else:
            minutes += 60 * lines[exercise.id] / LINES_PER_HOUR
    return math.ceil(minutes / 30) / 2


def parts(
    number: int, lines: dict[str, int], left_out: Collection[str] = ()
) -> tuple[Part, Part]:
    """Chapter ``number``'s core and stretch exercises, with their lines
    (``lines``: per exercise id) and hours; those ``left_out`` by a course
    file are not counted."""
    mine = [
        e
        for e in exercises()
        if int(e.id.split(".")[0]) == number and e.id not in left_out
    ]
    made = []
    for stretch in (False, True):
        chosen = [e for e in mine if e.stretch == stretch]
        total = sum(lines[e.id] for e in chosen)
        made.append(Part([e.id for e in chosen], total, _hours(chosen, lines)))
    return made[0], made[1]


def _span(ids: list[str]) -> str:
    """``1.1–1.9, 1.11``: runs of three or more consecutive exercises joined."""
    runs: list[list[str]] = []
    for exercise_id in ids:
        number = int(exercise_id.split(".")[1])
        if runs and int(runs[-1][-1].split(".")[1]) == number - 1:
            runs[-1].append(exercise_id)
        else:
            runs.append([exercise_id])
    return ", ".join(
        f"{run[0]}–{run[-1]}" if len(run) > 2 else ", ".join(run) for run in runs
    )


def markdown(number: int, lines: dict[str, int], left_out: Collection[str] = ()) -> str:
    """The plan at the top of chapter ``number``'s exercise notebook, without
    the exercises ``left_out`` by a course file."""
    core, stretch = parts(number, lines, left_out)
    text = (
        f"**The plan.** Core: {_span(core.ids) or 'none'}, {core.lines} lines of "
        f"model answer (predictions count one line each), about {core.hours:g} "
        "hours: the chapter's ideas, to do first."
    )
    if stretch.ids:
        text += (
            f" Stretch, when the core is done: {_span(stretch.ids)}, "
            f"{stretch.lines} lines, about {stretch.hours:g} hours; nothing "
            "else needs them."
        )
    return text + (
        f"\n\nThe hours are an estimate from the lines ({MINUTES_PER_PREDICTION} "
        f"minutes a prediction, {LINES_PER_HOUR} lines of code an hour), not a "
        "measurement."
    )


def table(lines: dict[int, dict[str, int]]) -> str:
    """The term's table, as in the teacher's guide, from each chapter's lines."""
    rows = [
        "| chapter | core | lines | hours | stretch | lines | hours |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for number, chapter_lines in sorted(lines.items()):
        core, stretch = parts(number, chapter_lines)
        rows.append(
            f"| {number} | {_span(core.ids)} | {core.lines} | "
            f"{core.hours:g} | {_span(stretch.ids) or '-'} | {stretch.lines} | "
            f"{stretch.hours:g} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    from course.notebooks import answer_lines, chapters  # they import this module

    print(table({int(c.name[:2]): answer_lines(c) for c in chapters()}))
