"""The course file: how one class runs the course, written once by its teacher.

``release``, ``grade`` and ``export`` read it with ``--course FILE``; an option
given on the command line (``--give``, ``--weights``, ``--seed``) overrides the
file's. A TOML file (read with the standard library's ``tomllib``, Python 3.11
on)::

    language = "en"            # the checker's and grader's sentences
    seed = "spring-2027"       # the class seed of the drawn cases
    give = ["ch1"]             # pieces shipped solved: ids or chapters
    leave_out = ["3.10", "ch6"]  # exercises not set this term

    [weights]                  # points per exercise (1 when not named)
    "1.10" = 2

An exercise **left out** is gone from the class edition (its section of the
exercise notebook, its line of the chapter's plan; a chapter left out whole
has no notebook) and from the grades (no column, no line, no feedback). Its
piece, if it asks for one, is shipped solved, since later chapters run on it.

Every id is checked against the course: an unknown one (a typo such as
``"1.55"``) is refused with the ids the course has, never ignored, and so is
an unknown key (``leave-out``) or a weight for an exercise left out.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course.checking import exercises
from course.export import chapter_of, exercise_key, known_span
from course.messages import LANGUAGES

__all__ = [
    "Course",
    "CourseFileError",
    "load",
    "prune_release",
    "release_language",
    "without_left_out",
]

KEYS = ("language", "seed", "give", "leave_out", "weights")
SEED = re.compile(r"[\w.-]{1,64}")


class CourseFileError(ValueError):
    """A course file that cannot be used: the message says where and why."""


@dataclass(frozen=True)
class Course:
    """A class's choices; an empty ``Course()`` is the whole course, unweighted."""

    path: Path | None = None
    language: str = "en"
    seed: str = ""
    give: frozenset[str] = frozenset()  # piece ids shipped solved
    left_out: frozenset[str] = frozenset()  # exercise ids not set
    weights: Mapping[str, float] = field(default_factory=dict)

    def given(self, extra: Collection[str] = ()) -> set[str]:
        """The pieces the engine holds solved: those given (``extra``, from the
        command line, in place of the file's when not empty) and the pieces of
        the exercises left out."""
        pieces = {e.id for e in exercises() if e.kind == "piece" and e.target}
        return set(extra or self.give) | (self.left_out & pieces)

    def summary(self) -> str:
        """One line for the console: which file, and what it changes."""
        if self.path is None:
            return "no course file: every exercise set, 1 point each"
        parts = [f"{len(self.left_out)} exercises left out"]
        parts.append(f"{len(self.give)} pieces given")
        parts.append(f"{len(self.weights)} weights")
        if self.seed:
            parts.append(f"seed {self.seed}")
        parts.append(f"language {self.language}")
        return f"course file {self.path}: " + ", ".join(parts)


def load(path: Path | None) -> Course:
    """The course file at ``path`` (None: the whole course, as it stands).

    Raises:
        CourseFileError: If it cannot be read, is not TOML (or JSON, for a
            ``.json`` file), or names a key, an exercise, a chapter or a
            language the course does not have.
    """
    if path is None:
        return Course()
    data = _read(path)
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise CourseFileError(
            f"{path}: unknown key {', '.join(map(repr, unknown))} (a course file "
            f"has {', '.join(KEYS)})"
        )
    known = [e.id for e in exercises()]
    pieces = {e.id for e in exercises() if e.kind == "piece" and e.target}
    left_out = _ids(path, "leave_out", data.get("leave_out", []), known)
    give = _ids(path, "give", data.get("give", []), known)
    named = {w for w in data.get("give", []) if not re.fullmatch(r"ch0*\d+", w)}
    not_pieces = sorted(named - pieces, key=exercise_key)
    if not_pieces:
        raise CourseFileError(
            f"{path}: give: {', '.join(not_pieces)} asks for no piece of the engine "
            "(a prediction has nothing to give)"
        )
    weights = _weights(path, data.get("weights", {}), known)
    weighed_out = sorted(set(weights) & left_out, key=exercise_key)
    if weighed_out:
        raise CourseFileError(
            f"{path}: weights: {', '.join(weighed_out)} is left out (leave_out), "
            "so it has no points to weigh"
        )
    return Course(
        path=path,
        language=_language(path, data.get("language", "en")),
        seed=_seed(path, data.get("seed", "")),
        give=frozenset(give & pieces),
        left_out=frozenset(left_out),
        weights=weights,
    )


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CourseFileError(f"cannot read the course file {path}: {error}") from None
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CourseFileError(f"{path}: not JSON: {error}") from None
    elif sys.version_info >= (3, 11):
        # lazily: Python 3.11 on, and only a TOML file needs it
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise CourseFileError(f"{path}: not TOML: {error}") from None
    else:
        raise CourseFileError(
            f"{path}: a TOML course file needs Python 3.11 or later (tomllib); "
            "write it as JSON (course.json) on an older Python"
        )
    if not isinstance(data, dict):
        raise CourseFileError(f"{path}: not a table of keys ({', '.join(KEYS)})")
    return data


def _ids(path: Path, key: str, words: Any, known: list[str]) -> set[str]:
    """The exercise ids of a list of ids and chapters (``["1.5", "ch2"]``)."""
    if not isinstance(words, list):
        raise CourseFileError(f'{path}: {key}: not a list such as ["1.5", "ch2"]')
    found: set[str] = set()
    for word in words:
        if not isinstance(word, str):
            raise CourseFileError(
                f"{path}: {key}: {word!r} is not a string: write exercise ids in "
                'quotes ("1.10"; the number 1.10 reads as 1.1)'
            )
        chapter = re.fullmatch(r"ch0*(\d+)", word.strip())
        if chapter:
            ids = {i for i in known if chapter_of(i) == int(chapter.group(1))}
            if not ids:
                chapters = sorted({chapter_of(i) for i in known})
                raise CourseFileError(
                    f"{path}: {key}: no chapter {word!r} in this course (chapters: "
                    f"{', '.join(f'ch{c}' for c in chapters)})"
                )
            found |= ids
        elif word.strip() in known:
            found.add(word.strip())
        else:
            raise CourseFileError(
                f"{path}: {key}: no exercise {word!r} in this course (exercise ids "
                f"run {known_span(known)}; a chapter is written ch2)"
            )
    return found


def _weights(path: Path, data: Any, known: list[str]) -> dict[str, float]:
    if not isinstance(data, dict):
        raise CourseFileError(f'{path}: weights: not a table such as "1.10" = 2')
    weights = {}
    for key, value in data.items():
        if key not in known:
            raise CourseFileError(
                f"{path}: weights: no exercise {key!r} in this course (exercise ids "
                f"run {known_span(known)})"
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise CourseFileError(
                f"{path}: weights: the weight of {key!r} is not a number >= 0"
            )
        weights[key] = float(value)
    return weights


def _language(path: Path, language: Any) -> str:
    if language not in LANGUAGES:
        raise CourseFileError(
            f"{path}: language: no sentences in {language!r} (the course has "
            f"{', '.join(sorted(LANGUAGES))}; course/messages.py says how to add one)"
        )
    return str(language)


def _seed(path: Path, seed: Any) -> str:
    if not isinstance(seed, str) or (seed and not SEED.fullmatch(seed)):
        raise CourseFileError(
            f"{path}: seed: letters, digits, '.', '-' and '_' only (at most 64)"
        )
    return seed


# --- what leaving out does ----------------------------------------------------------


def without_left_out(results: list[Any], left_out: Collection[str]) -> None:
    """Takes the exercises left out out of graded results (in place): no
    column in the CSV, no line in the console or the feedback."""
    for result in results:
        for exercise_id in left_out:
            result.exercises.pop(exercise_id, None)
            result.sources.pop(exercise_id, None)


def prune_release(out: Path, left_out: Collection[str]) -> list[Path]:
    """Takes the exercises left out out of a class edition's notebooks at
    ``out/exercises``: each one's section (from its ``## `` heading to the
    next, :func:`_kept_cells`) and its place in the chapter's plan; a
    notebook left with no exercise is removed. Returns the notebooks changed
    or removed."""
    # at call time: the notebooks' tools (nbformat, jupytext) are the teacher's
    from course import notebooks, plan

    changed = []
    for chapter in notebooks.chapters():
        number = int(chapter.name[:2])
        mine = [e.id for e in exercises() if chapter_of(e.id) == number]
        if not set(mine) & set(left_out):
            continue
        path = out / "exercises" / chapter.exercise_path.name
        changed.append(path)
        if set(mine) <= set(left_out):
            path.unlink()
            continue
        notebook = json.loads(path.read_text(encoding="utf-8"))
        notebook["cells"] = _kept_cells(notebook["cells"], left_out)
        lines = notebooks.answer_lines(chapter)
        for cell in notebook["cells"]:
            if "plan" in cell.get("metadata", {}).get("tags", []):
                cell["source"] = plan.markdown(number, lines, left_out)
        path.write_text(
            json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
    return changed


def release_language(out: Path, language: str) -> None:
    """Makes the class edition at ``out`` speak ``language``: its copy of
    :mod:`course.messages` (which the notebooks' checks use, on the desktop
    and in the browser) names it."""
    path = out / "course" / "messages.py"
    source = path.read_text(encoding="utf-8")
    line = re.compile(r'^LANGUAGE = "\w+"$', re.M)
    if len(line.findall(source)) != 1:
        raise ValueError(f"{path}: no one line LANGUAGE = ... to set")
    path.write_text(
        line.sub(f"LANGUAGE = {json.dumps(language)}", source), encoding="utf-8"
    )


def _kept_cells(cells: list[dict[str, Any]], left_out: Collection[str]) -> list[Any]:
    """The cells but the sections of the exercises left out: a section runs
    from a ``## `` heading to the next, and is an exercise's when a cell of
    it is tagged ``exercise-N.M`` (whatever language its heading is in)."""
    sections: list[list[dict[str, Any]]] = [[]]
    for cell in cells:
        heading = cell["cell_type"] == "markdown" and "".join(cell["source"])[:3]
        if heading == "## ":
            sections.append([])
        sections[-1].append(cell)
    dropped = {f"exercise-{exercise_id}" for exercise_id in left_out}
    return [
        cell
        for section in sections
        if not any(
            dropped & set(c.get("metadata", {}).get("tags", [])) for c in section
        )
        for cell in section
    ]
