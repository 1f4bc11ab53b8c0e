"""Grades that stand still: the drawn cases come from the class's seed, each
chapter from a seed of its own derived from it, and an answer that ignores
its input passes no drawn case."""

from __future__ import annotations

from pathlib import Path

import pytest

from course import answer_key, judge
from course.answer_key import Answers
from course.checking import DRAWS, chapter_seed, load


def test_each_chapter_has_its_own_seed_from_which_the_class_seed_does_not_follow() -> (
    None
):
    assert chapter_seed("class", "5.4") == chapter_seed("class", "5.10")
    assert chapter_seed("class", "5.4") != chapter_seed("class", "6.2")
    assert chapter_seed("class", "5.4") != chapter_seed("other", "5.4")
    assert "class" not in chapter_seed("class", "5.4")


def test_the_default_seed_is_drawn_once_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(answer_key, "SEED_FILE", tmp_path / "slowtorch" / "seed")
    first = answer_key.default_seed()
    assert first == answer_key.default_seed() and len(first) == 16
    assert (tmp_path / "slowtorch" / "seed").stat().st_mode & 0o077 == 0
    assert answer_key.new_seed() != first


def test_graders_starting_together_read_one_whole_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sixteen graders that find no seed file at once: each reads the same
    whole seed (none an empty or half-written file), and no draft is left."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(answer_key, "SEED_FILE", tmp_path / "slowtorch" / "seed")
    with ThreadPoolExecutor(16) as pool:
        seeds = list(pool.map(lambda _: answer_key.default_seed(), range(16)))
    assert len(set(seeds)) == 1 and len(seeds[0]) == 16, seeds
    assert [p.name for p in (tmp_path / "slowtorch").iterdir()] == ["seed"]


def test_the_same_seed_draws_the_same_cases_and_another_seed_others() -> None:
    answers = Answers.load()
    one = answers.draw("one", chapters=[1])
    assert set(one.drawn) == {e for e in one.drawn if e.startswith("1.")}
    assert one.drawn == answers.draw("one", chapters=[1]).drawn
    assert one.drawn != answers.draw("two", chapters=[1]).drawn


def test_an_answer_that_ignores_its_input_passes_no_drawn_case() -> None:
    exercise = load("1.5")
    fixed = len(exercise.cases) + len(exercise.grading_cases)
    kinds = len(exercise.drawn_cases) // DRAWS
    drawn = [[k, n] for n in range(DRAWS) for k in range(kinds)]
    answers = Answers({}, "", {}, drawn={"1.5": drawn})
    # The first draw of each kind is right, by luck: the same outcome always.
    constant = {fixed + i: {"outcome": drawn[i % kinds]} for i in range(len(drawn))}
    ignored = judge.input_ignored(exercise, constant, answers, fixed)
    assert ignored == set(range(fixed, fixed + len(drawn)))
    honest = {fixed + i: {"outcome": want} for i, want in enumerate(drawn)}
    assert not judge.input_ignored(exercise, honest, answers, fixed)
