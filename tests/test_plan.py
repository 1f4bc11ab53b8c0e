"""Each chapter's plan: core and stretch exercises, lines and hours."""

from __future__ import annotations

import json
import re

from course import plan
from course.checking import exercises
from course.dependencies import measure
from course.notebooks import ROOT, answer_lines, chapters


def chapter_of(exercise_id: str) -> int:
    return int(exercise_id.split(".")[0])


def test_no_core_exercise_and_no_later_chapter_needs_a_stretch_piece() -> None:
    """A student who leaves every stretch exercise out loses no other case."""
    stretch = {e.id for e in exercises() if e.stretch}
    public = {e.id: len(e.cases) for e in exercises()}
    assert stretch  # each is checked below
    needs = measure()
    for exercise_id, cases in needs.items():
        for reached in cases[: public[exercise_id]]:
            for piece in set(reached) & stretch:
                later = chapter_of(exercise_id) > chapter_of(piece)
                assert exercise_id in stretch and not later, (exercise_id, piece)


def test_every_chapter_has_core_work_and_a_stretch_only_where_it_can() -> None:
    for chapter in chapters():
        number = int(chapter.name[:2])
        core, stretch = plan.parts(number, answer_lines(chapter))
        assert core.ids and core.lines > 100 and 4 <= core.hours <= 10
        assert stretch.lines == sum(answer_lines(chapter)[i] for i in stretch.ids)


def test_the_chapters_of_windows_and_attention_have_a_large_build() -> None:
    """At least 150 lines of model answer, one build of 40 or more."""
    for chapter in chapters()[4:]:
        lines = answer_lines(chapter)
        builds = [e.id for e in exercises() if e.title.startswith("build:")]
        assert sum(lines.values()) >= 150
        assert max(lines[i] for i in builds if i in lines) >= 40


def test_hours_follow_the_stated_rates() -> None:
    lines = answer_lines(chapters()[5])
    core, _ = plan.parts(6, lines)
    predicted = [e.id for e in exercises() if e.kind == "predict"]
    predictions = sum(lines[i] for i in predicted if i.startswith("6."))
    code = core.lines - predictions
    minutes = predictions * plan.MINUTES_PER_PREDICTION
    minutes += code * 60 / plan.LINES_PER_HOUR
    assert core.hours * 60 - 30 < minutes <= core.hours * 60


def test_each_exercise_notebook_opens_with_its_plan() -> None:
    for chapter in chapters():
        notebook = json.loads(chapter.exercise_path.read_text(encoding="utf-8"))
        cell = notebook["cells"][1]
        assert cell["metadata"]["tags"] == ["plan"]
        number = int(chapter.name[:2])
        assert "".join(cell["source"]) == plan.markdown(number, answer_lines(chapter))
        assert notebook["cells"][2]["metadata"]["tags"] == ["setup"]


def test_the_teachers_guide_has_the_terms_table() -> None:
    guide = (ROOT / "docs" / "teachers.md").read_text(encoding="utf-8")
    table = plan.table({int(c.name[:2]): answer_lines(c) for c in chapters()})
    assert table in guide
    assert re.search(r"2 minutes a prediction, 25 lines of code an hour", guide)
