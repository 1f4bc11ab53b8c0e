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

import string

__all__ = ["ENGLISH", "LANGUAGES", "plural", "problems", "text", "use"]

ENGLISH: dict[str, str] = {
    # --- the checker: what check() prints in the student's notebook --------------
    "check.head": "exercise {id} ({name})",
    "check.piece": "{head}: with your {name}, {passed} of {total} {what} give "
    "PyTorch's answers",
    "check.predictions": "{head}: {passed} of {total} predictions right",
    "check.conventions": "; PyTorch-convention edge cases: {passed} of {total}",
    "check.all_right": "All right!",
    "check.not_attempted": "exercise {id} ({name}): not attempted yet (your answer "
    "still has a stub: replace each ... or raise NotImplementedError, run the "
    "cell, then this one).",
    "check.case": "case",
    "check.convention": "PyTorch convention",
    "check.expected": "expected",
    "check.got": "got",
    "check.the_convention": "(convention: {convention})",
    "check.same_error": "(the same error as above)",
    "check.more_failing.one": "... and {count} more failing case.",
    "check.more_failing.many": "... and {count} more failing cases.",
    "check.more_differences.one": "... and {count} more difference",
    "check.more_differences.many": "... and {count} more differences",
    "check.hint": "Hint: {hint}",
    "check.hint_of": "Hint {number} of {count}: {hint}",
    "check.hint_convention": "Hint: your main idea works; read the convention "
    "above and handle that case.",
    "check.wrong.one": "wrong: {count} item",
    "check.wrong.many": "wrong: {count} items",
    "check.yours": "yours:  ",
    "check.pytorch": "PyTorch:",
    "check.think_again": "Think again about those items and check again; to see "
    'PyTorch\'s answers, check("{id}", {name}, reveal=True).',
    "error.NameError": "a name your code uses is not defined (a typo, or a name "
    "from a cell that was not run): the last line of the traceback says which.",
    "error.AttributeError": "an object has no attribute of that name: the last "
    "line of the traceback says which object type and which name.",
    "error.TypeError": "a call got a value of the wrong type, or the wrong number "
    "of arguments: the line above the error is the call.",
    "error.IndexError": "an index is out of range: check where your loop starts "
    "and stops.",
    "error.KeyError": "a key is not in the dict: the last line of the traceback "
    "says which.",
    "error.ZeroDivisionError": "a division by zero: which case can make the divisor 0?",
    "error.RecursionError": "your function calls itself without end: check the "
    "case that stops the recursion (or use a loop).",
    "error.UnboundLocalError": "a variable is used before it is given a value in "
    "this function.",
    "error.other": "your code raised {name}: the last line of the traceback says "
    "what, the line above it where.",
    # --- the grader: the console's table (python -m course grade) -----------------
    "table.points": "points: {points} of {possible}",
    "table.weighted": "points: {points} of {possible} (weighted)",
    "table.waiting": " ({count} waiting for an earlier chapter)",
    # --- the grader: the students' feedback (grade --feedback) --------------------
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
    "feedback.total": "Points: {points} of {possible} (each times its weight)",
}

LANGUAGES: dict[str, dict[str, str]] = {"en": ENGLISH}


#: The language sentences are shown in: a class edition's copy of this
#: module names its course file's (``release --course``), the grader sets
#: it with :func:`use`.
LANGUAGE = "en"


def use(language: str) -> None:
    """Shows sentences in ``language`` from now on (one this module has).

    Raises:
        ValueError: If the course has no sentences in ``language``.
    """
    global LANGUAGE
    if language not in LANGUAGES:
        raise ValueError(f"no sentences in {language!r}: {', '.join(LANGUAGES)}")
    LANGUAGE = language


def text(key: str, **values: object) -> str:
    """The sentence ``key`` in the language in use (English where it has
    none), with ``values`` put in its placeholders.

    Raises:
        KeyError: If ``key`` is not a sentence of the course (English has
            every one).
    """
    template = LANGUAGES.get(LANGUAGE, {}).get(key) or ENGLISH[key]
    return template.format(**values)


def plural(key: str, count: int, **values: object) -> str:
    """The sentence ``key.one`` for a ``count`` of 1, else ``key.many``."""
    return text(f"{key}.{'one' if count == 1 else 'many'}", count=count, **values)


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def problems(translation: dict[str, str]) -> list[str]:
    """What is wrong with a translation: a key English has not (a typo would
    never be shown), or a sentence whose placeholders are not English's."""
    found = []
    for key, template in translation.items():
        if key not in ENGLISH:
            found.append(f"{key!r}: no such sentence in English")
        elif placeholders(template) != placeholders(ENGLISH[key]):
            want = ", ".join(sorted(placeholders(ENGLISH[key]))) or "none"
            found.append(f"{key!r}: its placeholders must be English's ({want})")
    return found
