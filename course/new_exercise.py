"""``python -m course new-exercise N.M``: a new exercise, scaffolded in every
place an exercise lives.

An exercise is written in three files, and two more are made from them:

- the chapter's source, ``course/sources/NN_name.py``: the statement (a
  text cell), the answer cell (tagged ``exercise-N.M``, the model answer
  inside ``# BEGIN SOLUTION`` ... ``# END SOLUTION``) and the check cell
  (tagged ``check-N.M``);
- the chapter's public check, ``course/checks/chNN.py``: the
  :class:`~course.cases.Exercise` in ``EXERCISES`` (public cases, hints,
  the engine's target);
- for a piece, the chapter's grading-only cases,
  ``course/checks/grading_chNN.py``: fixed cases in ``CASES`` and drawn
  cases in ``DRAWN`` (most of the marks);
- made from them: the recorded answers (``python -m course.record``), the
  notebooks and their plans (``python -m course generate``) and the term's
  table in ``docs/teachers.md`` (``python -m course.plan``).

:func:`scaffold` writes the first three with ``TODO`` where the author
writes, reading and editing the files as text (so it works on any copy of
the course), and says what is left to do. It refuses an id that exists or
that is not the chapter's next number: the notebooks list a chapter's
exercises in the order of their numbers. The rules the tests enforce are in
``course/sources/README.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KINDS", "Made", "next_steps", "scaffold"]

KINDS = ("piece", "predict")
ID = re.compile(r"^(\d+)\.(\d+)$")


@dataclass(frozen=True)
class Made:
    """One file the scaffold wrote in, and what its author must fill in."""

    path: Path
    added: str
    fill_in: str


def _one(paths: list[Path], what: str) -> Path:
    if len(paths) != 1:
        raise ValueError(f"expected one {what}, found {len(paths)}")
    return paths[0]


def _chapter_ids(source: str, chapter: int) -> list[int]:
    """The numbers of the chapter's exercises, from its source's tags."""
    found = re.findall(rf'tags=\["exercise-{chapter}\.(\d+)"\]', source)
    return [int(number) for number in found]


def _insert_in_dict(text: str, opening: str, entry: str, path: Path) -> str:
    """``text`` with ``entry`` put last in the dict that ``opening`` starts
    (``EXERCISES = {``), before its closing brace at the start of a line."""
    start = text.find(opening)
    end = text.find("\n}\n", start)
    if start < 0 or end < 0:
        raise ValueError(f"{path}: no '{opening} ... }}' to add the exercise to")
    return text[: end + 1] + entry + text[end + 1 :]


def _source_cells(exercise_id: str, kind: str, name: str) -> str:
    if kind == "piece":
        answer = (
            f"def {name}(x):\n"
            '    """TODO: what it returns."""\n'
            "    # BEGIN SOLUTION\n"
            '    raise NotImplementedError("TODO: the model answer")\n'
            "    # END SOLUTION\n"
        )
    else:
        answer = (
            f'{name} = {{\n    "torch.zeros(2, 3).stride()": (3, 1),  # ANSWER\n}}\n'
        )
    return (
        "\n# %% [markdown]\n"
        f"# ## Exercise {exercise_id}: TODO a title\n"
        "#\n"
        "# TODO: the statement: what the student writes, and the rules it\n"
        "# follows.\n"
        "\n\n"
        f'# %% tags=["exercise-{exercise_id}"]\n'
        f"{answer}"
        "\n\n"
        f'# %% tags=["check-{exercise_id}"]\n'
        f'check("{exercise_id}", {name})\n'
    )


def _exercise_entry(exercise_id: str, kind: str, name: str) -> str:
    piece_only = (
        '        target="TODO: the engine\'s dotted name, slowtorch_lib.x.y",\n'
        '        what="TODO: what a case is, such as tensor operations",\n'
        if kind == "piece"
        else ""
    )
    return (
        f'    "{exercise_id}": Exercise(\n'
        f'        "{exercise_id}",\n'
        '        "TODO: a few words",\n'
        f'        "{name}",\n'
        f'        "{kind}",\n'
        "        [\n"
        "            # TODO: seven or more public cases, main ones first, such as\n"
        '            # Case("x.t().stride()", lambda t: t.zeros(2, 3).t().stride()),\n'
        "        ],\n"
        "        [\n"
        '            "TODO: a nudge.",\n'
        '            "TODO: the idea.",\n'
        '            "TODO: closer to the answer, never the answer.",\n'
        "        ],\n"
        f"{piece_only}"
        "    ),\n"
    )


def _grading_entries(exercise_id: str) -> tuple[str, str]:
    fixed = (
        f'    "{exercise_id}": [\n'
        "        # TODO: fixed grading-only cases, which students never see.\n"
        "    ],\n"
    )
    drawn = (
        f'    "{exercise_id}": [\n'
        "        # TODO: two or more kinds of drawn case, d.drawn(label, run) with\n"
        "        # run(torch, rng) drawing its inputs: most of the marks.\n"
        "    ],\n"
    )
    return fixed, drawn


def scaffold(root: Path, exercise_id: str, kind: str = "piece") -> list[Made]:
    """Writes exercise ``exercise_id`` (``"3.13"``) into the course at ``root``.

    Returns:
        What was written where, and what its author must fill in.

    Raises:
        ValueError: If the id is not ``N.M``, chapter N has no source or
            check module, the exercise exists, or M is not the chapter's
            next number; or ``kind`` is neither ``piece`` nor ``predict``.
    """
    match = ID.match(exercise_id)
    if match is None:
        raise ValueError(f"{exercise_id!r} is no exercise id: write N.M, as 3.13")
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: an exercise is a piece or a predict")
    chapter, number = int(match[1]), int(match[2])
    course = root / "course"
    source_path = _one(
        sorted((course / "sources").glob(f"{chapter:02d}_*.py")),
        f"course/sources/{chapter:02d}_*.py for chapter {chapter}",
    )
    checks_path = course / "checks" / f"ch{chapter:02d}.py"
    grading_path = course / "checks" / f"grading_ch{chapter:02d}.py"
    if not checks_path.exists():
        raise ValueError(f"chapter {chapter} has no check module {checks_path}")
    source = source_path.read_text(encoding="utf-8")
    numbers = _chapter_ids(source, chapter)
    if number in numbers:
        raise ValueError(f"exercise {exercise_id} exists: see {source_path.name}")
    expected = max(numbers, default=0) + 1
    if number != expected:
        raise ValueError(
            f"exercise {exercise_id}: chapter {chapter}'s next exercise is "
            f"{chapter}.{expected} (a chapter's exercises are numbered in order, "
            "each after the one before it in the source)"
        )
    name = f"exercise_{chapter}_{number}"
    writes = [
        (
            source_path,
            source.rstrip("\n") + "\n\n" + _source_cells(exercise_id, kind, name),
        ),
    ]
    checks = checks_path.read_text(encoding="utf-8")
    entry = _exercise_entry(exercise_id, kind, name)
    writes.append(
        (checks_path, _insert_in_dict(checks, "EXERCISES = {", entry, checks_path))
    )
    made = [
        Made(
            source_path,
            f"the statement, the answer cell (exercise-{exercise_id}) and the "
            f"check cell (check-{exercise_id}), last in the chapter",
            f"the title and statement; the answer's name (now {name}, the same "
            "in the check module) and the model answer",
        ),
        Made(
            checks_path,
            f'"{exercise_id}": Exercise(...), last in EXERCISES',
            "the title, seven or more public cases (main ones first), three "
            "hints" + (", the target and what a case is" if kind == "piece" else ""),
        ),
    ]
    if kind == "piece":
        if not grading_path.exists():
            raise ValueError(f"chapter {chapter} has no grading module {grading_path}")
        grading = grading_path.read_text(encoding="utf-8")
        fixed, drawn = _grading_entries(exercise_id)
        grading = _insert_in_dict(grading, "CASES = {", fixed, grading_path)
        grading = _insert_in_dict(grading, "DRAWN = {", drawn, grading_path)
        writes.append((grading_path, grading))
        made.append(
            Made(
                grading_path,
                f'"{exercise_id}" in CASES and in DRAWN',
                "one or more fixed grading-only cases and two or more kinds of "
                "drawn case (they carry most of the marks)",
            )
        )
    for path, text in writes:  # all checked above, so none is half written
        path.write_text(text, encoding="utf-8")
    return made


def next_steps(exercise_id: str) -> list[str]:
    """What the author runs once the TODOs are filled in."""
    return [
        "python -m course.record    # record PyTorch's answers to the new cases",
        "python -m course generate  # the notebooks, with the chapter's plan",
        "python -m course.plan      # the term's table: paste it into docs/teachers.md",
        f"pytest tests/test_course.py tests/test_marks.py tests/test_plan.py -k "
        f"'{exercise_id} or plan or chapter'",
    ]
