"""The drawn cases: inputs drawn for each run, expected values computed by the
judge on the complete engine. Each agrees with PyTorch on several draws (so a
correct answer can pass them), and the draws differ from run to run."""

from __future__ import annotations

from functools import partial

import pytest

import slowtorch_lib
from course import record
from course.checking import (
    case_rng,
    chapter_seed,
    close,
    exercises,
    normalize,
    outcome_of,
    run_case,
    run_piece_case,
)
from course.record import drawn_outcomes
from course.substitute import original

torch = pytest.importorskip("torch")

PIECES = [e for e in exercises() if e.kind == "piece"]


def kinds(exercise: object) -> list[object]:
    """The exercise's drawn cases, each once (a run draws each many times)."""
    drawn = list(exercise.drawn_cases)
    return drawn[: len({id(case) for case in drawn})]


SEEDS = ("a", "b", "c", "d")


@pytest.mark.parametrize("exercise", PIECES, ids=lambda e: e.id)
def test_every_piece_has_drawn_cases_that_agree_with_torch(exercise: object) -> None:
    import slowtorch_lib

    assert len(kinds(exercise)) >= 2
    start = len(exercise.cases) + len(exercise.grading_cases)

    def rng(seed: str, k: int) -> object:
        return case_rng(seed, exercise.id, start + k)

    for k, case in enumerate(kinds(exercise)):
        for seed in SEEDS:
            want = outcome_of(partial(run_case, case, rng=rng(seed, k)), torch)
            got = outcome_of(partial(run_case, case, rng=rng(seed, k)), slowtorch_lib)
            assert close(want, got), (case.label, seed, want, normalize(got))


def test_every_piece_is_drawn_with_the_runs_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``drawn_outcomes`` draws every piece's cases from the run's seed: with each
    outcome replaced by the draw's first number, two runs differ everywhere."""
    monkeypatch.setattr(record, "outcome_of", lambda run, torch: run.keywords["rng"])
    first, second = drawn_outcomes("one"), drawn_outcomes("two")
    assert set(first) == {e.id for e in PIECES}
    for id in first:
        a = [rng.random() for rng in first[id]]
        b = [rng.random() for rng in second[id]]
        assert all(x != y for x, y in zip(a, b)), id


def test_draws_differ_between_runs() -> None:
    """Each piece's outcomes differ between two runs (``drawn_outcomes``'s draws,
    compared case by case up to the first that differs: a case that ignores its
    draw cannot make them differ)."""
    same = []
    for exercise in PIECES:
        start = len(exercise.cases) + len(exercise.grading_cases)
        seeds = [chapter_seed(run, exercise.id) for run in ("one", "two")]
        for k, case in enumerate(exercise.drawn_cases):
            a, b = (
                outcome_of(
                    partial(run_case, case, rng=case_rng(s, exercise.id, start + k)),
                    slowtorch_lib,
                )
                for s in seeds
            )
            if a != b:
                break
        else:
            same.append(exercise.id)
    assert same == []


CHAPTERS = {1: "01_arrays_to_tensors", 2: "02_walking_backwards"}
CHAPTERS |= {3: "03_building_blocks", 4: "04_optimisation", 5: "05_windows"}
CHAPTERS |= {6: "06_attention"}


@pytest.mark.parametrize("exercise", PIECES, ids=lambda e: e.id)
def test_the_model_answer_passes_every_drawn_case(exercise: object) -> None:
    """A drawn case asks only what the exercise asks: the model answer, in
    the engine, gives the complete engine's outcome on every draw."""
    import slowtorch_lib
    from course.checking import run_piece_case
    from tests.grading.fixtures import solution_answer

    chapter = CHAPTERS[int(exercise.id.split(".")[0])]
    namespace = {"torch": slowtorch_lib, "__name__": "__main__"}
    exec(solution_answer(chapter, exercise.id), namespace)  # noqa: S102
    answer = namespace[exercise.name]
    start = len(exercise.cases) + len(exercise.grading_cases)
    for k, case in enumerate(kinds(exercise)):
        for seed in [str(n) for n in range(12)]:
            rng = case_rng(seed, exercise.id, start + k)
            want = outcome_of(partial(run_case, case, rng=rng), slowtorch_lib)
            rng = case_rng(seed, exercise.id, start + k)
            got, _ = run_piece_case(exercise, answer, case, rng)
            assert close(want, got), (case.label, seed, want, got)


def refusing(exercise: object, calls: list[str]) -> object:
    """An answer that knows nothing: every call (or use) is noted and raises."""

    def refuse(*args: object, **kwargs: object) -> object:
        calls.append(exercise.id)
        raise RuntimeError

    if not exercise.target.split(".")[-1][:1].isupper():
        return refuse
    methods = {"forward": staticmethod(refuse), "backward": staticmethod(refuse)}
    bases = original(exercise.target).__bases__  # a Function stays one
    return type(exercise.name, bases, {"__init__": refuse, **methods})


@pytest.mark.parametrize("exercise", PIECES, ids=lambda e: e.id)
def test_every_drawn_case_reaches_the_piece(exercise: object) -> None:
    """A drawn case that never calls the piece (its input built wrong, say a
    ragged list that is no tensor, or a path that goes round the piece)
    would be passed by an answer that raises everything."""
    start = len(exercise.cases) + len(exercise.grading_cases)
    calls: list[str] = []
    answer = refusing(exercise, calls)
    for k, case in enumerate(exercise.drawn_cases[:40]):
        calls.clear()
        rng = case_rng("always raises", exercise.id, start + k)
        try:
            run_piece_case(exercise, answer, case, rng)
        except NotImplementedError:
            pass
        assert calls, (case.label, k)
