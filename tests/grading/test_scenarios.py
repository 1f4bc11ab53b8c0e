"""Each attack of tests/grading/scenarios.py against its honest control, and
the teacher's scenarios, graded once in the sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from course import judge
from course.grading import Result
from tests.grading import scenarios

# Grades a class of scenarios: the full run only.
pytestmark = pytest.mark.pipeline

SHARE = judge.FIXED_SHARE


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("scenarios")
    items: list[tuple[Path, str]] = []
    plan = scenarios.scenarios()
    for number, (attack, control, _) in enumerate(plan.values()):
        items += scenarios.write(folder, f"a{number}", attack)
        items += scenarios.write(folder, f"c{number}", control)
    late = scenarios.teacher()["started at chapter 3, --give ch1,ch2"][0]
    given = scenarios.grade(scenarios.write(folder, "late", late), ("ch1", "ch2"))
    by: dict[str, list[Result]] = {}
    for result in scenarios.grade(items):
        by.setdefault(result.student, []).append(result)
    found = {
        name: (by[f"a{number}"], by[f"c{number}"]) for number, name in enumerate(plan)
    }
    return {"plan": found, "given": given}


def exercises(results: list[Result]) -> dict[str, float]:
    from course.grading import counted

    kept, _ = counted(results)
    return {g.id: g.points for r in kept for g in r.exercises.values()}


def pair(graded: dict[str, Any], start: str) -> tuple[dict[str, float], ...]:
    name = next(n for n in graded["plan"] if n.startswith(start))
    attack, control = graded["plan"][name]
    return exercises(attack), exercises(control)


@pytest.mark.slow
def test_records_forged_into_the_pipe_earn_at_most_the_fixed_share(
    graded: dict[str, Any],
) -> None:
    attack, blank = pair(graded, "forged records")
    assert len(attack) == 7 and not any(blank.values())
    assert all(points <= SHARE for points in attack.values())


@pytest.mark.slow
def test_answers_learnt_from_feedback_earn_at_most_the_fixed_share(
    graded: dict[str, Any],
) -> None:
    attack, _ = pair(graded, "hidden cases read")
    assert attack["1.5"] <= SHARE  # the fixed cases it read carry no marks


@pytest.mark.slow
def test_a_refused_cell_sending_its_own_records_scores_nothing(
    graded: dict[str, Any],
) -> None:
    attack, control = pair(graded, "refused cell")
    assert attack["1.5"] == 0 and control["1.5"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("start", ["stub written before", "refused draft"])
def test_hiding_ones_own_piece_never_raises_the_total(
    graded: dict[str, Any], start: str
) -> None:
    attack, control = pair(graded, start)
    assert sum(attack.values()) <= sum(control.values())
    assert attack["1.7"] == control["1.7"] < 1


@pytest.mark.slow
@pytest.mark.parametrize("start", ["refuse everything", "raise everything"])
def test_answers_that_know_nothing_earn_at_most_the_fixed_share(
    graded: dict[str, Any], start: str
) -> None:
    attack, blank = pair(graded, start)
    every_piece = sum(len(scenarios.pieces(chapter)) for chapter in (1, 2, 3, 4))
    assert len(attack) == every_piece and not any(blank.values())
    assert all(points <= SHARE for points in attack.values()), attack


@pytest.mark.slow
def test_of_several_notebooks_the_latest_counts(graded: dict[str, Any]) -> None:
    attack, latest = pair(graded, "several notebooks")
    assert attack == latest


@pytest.mark.slow
def test_an_import_by_name_grades_as_the_method_call(graded: dict[str, Any]) -> None:
    attack, control = pair(graded, "import by name")
    assert attack["2.10"] == control["2.10"] == 1


@pytest.mark.slow
def test_grade_give_takes_what_release_give_takes(graded: dict[str, Any]) -> None:
    points = exercises(graded["given"])
    assert len(points) == 21 and all(p == 1 for p in points.values()), points
