"""The sentences the grader shows students and teachers, per language.

English is the default and the reference: every sentence has an English
text in :data:`ENGLISH`, keyed by a short name. A translation is a
dictionary of the same keys in :data:`LANGUAGES` (``"fr": FRENCH``); a key
it leaves out falls back to English, so a translation can be done a few
sentences at a time. A course file's ``language = "fr"`` chooses it
(:mod:`course.course_file`); :func:`text` looks a sentence up.

The placeholders (``{passed}``, ``{total}``...) are filled by
:meth:`str.format`: a translation keeps every placeholder of the English
sentence and may move it (a test checks both).

The statements and hints of the exercises are not here: they are the
chapters' sources (``course/sources/NN_name.py``, each exercise's markdown
cell, and its ``hints`` in ``course/checks/chNN.py``); docs/teachers.md says
how to translate those.
"""

from __future__ import annotations

__all__ = ["ENGLISH", "LANGUAGES", "text"]

ENGLISH: dict[str, str] = {
    # the grader's console table (python -m course grade)
    "table.points": "points: {points} of {possible}",
    "table.weighted": "points: {points} of {possible} (weighted)",
    "table.waiting": " ({waiting} waiting for an earlier chapter)",
    "table.weight": "x{weight}",
    # the students' feedback (grade --feedback)
    "feedback.title": "Feedback for {student}",
    "feedback.columns": "| exercise | points | cases right |",
    "feedback.columns_weighted": "| exercise | weight | points | cases right |",
    "feedback.right": "{passed} of {total}",
    "feedback.exercise": "Exercise {id}: {title}",
    "feedback.stopped": "stopped: {message}",
    "feedback.case": "Case",
    "feedback.convention": "PyTorch convention",
    "feedback.expected": "expected",
    "feedback.got": "got",
    "feedback.the_convention": "the convention",
    "feedback.raised": "your code raised:",
    "feedback.hidden": "and {count} of the grading-only cases (not shown)",
    "feedback.note": "Note: {note}",
    "feedback.seed": "Drawn cases: seed {seed}",
    "feedback.total": "Total: {points} of {possible} points",
}

LANGUAGES: dict[str, dict[str, str]] = {"en": ENGLISH}


def text(key: str, language: str = "en", **values: object) -> str:
    """The sentence ``key`` in ``language`` (English where it has none), with
    ``values`` put in its placeholders.

    Raises:
        KeyError: If ``key`` is not a sentence of the course (English has
            every one).
    """
    template = LANGUAGES.get(language, {}).get(key) or ENGLISH[key]
    return template.format(**values)
