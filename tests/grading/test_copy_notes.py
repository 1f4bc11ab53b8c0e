"""The copy notes in the gradebook: each names the notebook that holds the
exercise, and a student's notes stay few however many classmates share
their code."""

from __future__ import annotations

import re
from pathlib import Path

from course import export, similarity
from course.__main__ import copy_check
from course.grading import Result
from tests.grading import copy_corpus


def notebook(student: str, name: str, chapter: int, sources: dict[str, str]) -> Result:
    return Result(Path(f"{student}/{name}"), student, chapter, sources=sources)


def test_a_copy_note_names_the_notebook_that_holds_the_exercise(
    tmp_path: Path,
) -> None:
    """Before, every note went with a student's first notebook (chapter 1's),
    whatever the exercise."""
    solutions = similarity._cells(similarity.ROOT / "solutions")
    copied = solutions["2.10"][0]
    results = []
    for student, prefix in (("ann", "a"), ("bob", "b")):
        first = {"1.5": copy_corpus.HONEST["1.5"][0 if student == "ann" else 1]}
        second = {"2.10": copy_corpus.renamed(copied, prefix=prefix)}
        results += [
            notebook(student, "01_arrays_to_tensors.ipynb", 1, first),
            notebook(student, "02_walking_backwards.ipynb", 2, second),
        ]
    checked = copy_check(results, tmp_path / "copies.md")
    assert [r.notes for r in checked if r.chapter == 1] == [[], []]
    assert [len(r.notes) for r in checked if r.chapter == 2] == [1, 1]
    _, _, table = export.rows(checked, {})
    ann = next(row for row in table if row["student"] == "ann")
    assert ann["notes"] == [
        "02_walking_backwards.ipynb: exercise 2.10: the same code as bob's answer "
        "(100% shared; see the copies report)"
    ]


def test_a_notes_cell_stays_short_in_a_class_that_shares_everything(
    tmp_path: Path,
) -> None:
    """Thirty students handing in the same ten large answers: each notes
    cell holds at most five notes, each naming at most three classmates."""
    solutions = similarity._cells(similarity.ROOT / "solutions")
    large = [e for e, s in sorted(solutions.items()) if len(s[0]) > 900][:10]
    assert len(large) == 10
    results = [
        notebook(
            f"s{n:02d}",
            "all.ipynb",
            1,
            {
                exercise: copy_corpus.renamed(solutions[exercise][0], prefix=f"z{n}_")
                for exercise in large
            },
        )
        for n in range(30)
    ]
    checked = copy_check(results, tmp_path / "copies.md")
    _, _, table = export.rows(checked, {})
    for row in table:
        assert len(row["notes"]) == similarity.NOTES, row["notes"]
        assert all(note.count(", s") <= 2 for note in row["notes"])
        assert "in 6 more exercises" in row["notes"][-1]
        assert len("; ".join(row["notes"])) < 1200
    report = (tmp_path / "copies.md").read_text("utf-8")
    groups = re.findall(r"^- [\d.]+: 30 (?:identical )?answers", report, re.M)
    assert len(groups) == 10, report
