"""Nothing to delegate to, in every chapter: an answer that hands its work to
NumPy or PyTorch (their folders appended to ``sys.path``), to the course
imported under a computed name, or to another path of the class engine that
computes the piece, scores nothing; the model answers score full marks.

Chapter 1's delegations are in ``test_view.py``; the answers are in
``delegation.py``. One grading of two students (one honest, one who
delegates), each handing in chapters 2 to 6, chapter 1 coming from their
earlier submission.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from course import grading, sandbox
from tests.grading.delegation import DELEGATING
from tests.grading.fixtures import CHAPTER1, ROOT, notebook, with_answers

pytestmark = [
    pytest.mark.skipif(sandbox.problem() is not None, reason="no bwrap"),
    pytest.mark.pipeline,
    pytest.mark.slow,
]

Submission = tuple[Path, str]  # a notebook and its student
CHAPTERS = {int(p.name[:2]): p.stem for p in (ROOT / "solutions").glob("0*.ipynb")}


def handed_in(folder: Path, student: str) -> tuple[list[Submission], list[Submission]]:
    """The student's notebooks of chapters 2 to 6 (the model answers, or
    with the delegating answers), and chapter 1's as an earlier one."""
    early = folder / student / "earlier" / f"{CHAPTER1}.ipynb"
    early.parent.mkdir(parents=True)
    early.write_text(json.dumps(notebook("solutions", CHAPTER1)), "utf-8")
    now = []
    for chapter in range(2, 7):
        nb = notebook("solutions", CHAPTERS[chapter])
        if student == "delegates":
            cells = DELEGATING[str(chapter)].items()
            nb = with_answers(
                nb, **{f"exercise_{e.replace('.', '_')}": s for e, s in cells}
            )
        path = folder / student / f"{CHAPTERS[chapter]}.ipynb"
        path.write_text(json.dumps(nb), "utf-8")
        now.append((path, student))
    return now, [(early, student)]


def test_delegating_answers_score_nothing_in_every_chapter(tmp_path: Path) -> None:
    """Attack, per chapter 2..6: one exercise answered with NumPy, one with
    PyTorch, one with the engine's own piece reached through the course
    imported by a computed name, one with another engine path that computes
    it (2.8 a scatter, 3.9 autograd through softmax and log, 5.4 two
    ``Tensor.unfold`` calls, 4.9 the engine's other sampler, which draws the
    same permutation, 6.2 ``nan_to_num`` of the engine's softmax). Each
    scores 0; the model answers, beside them, score full marks."""
    honest, honest_early = handed_in(tmp_path, "honest")
    delegates, delegates_early = handed_in(tmp_path, "delegates")
    results = grading.grade(
        honest + delegates, timeout=30, earlier=honest_early + delegates_early
    )
    for result in results[:5]:
        points = {e: g.points for e, g in result.exercises.items()}
        assert points and set(points.values()) == {1}, (result.path.name, points)
    for result in results[5:]:
        chapter = str(int(result.path.name[:2]))
        points = {e: round(result.exercises[e].points, 2) for e in DELEGATING[chapter]}
        assert set(points.values()) == {0}, (result.path.name, points)
