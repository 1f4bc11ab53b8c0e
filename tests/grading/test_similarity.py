"""The copy check (:mod:`course.similarity`), measured on a corpus of
answers (:mod:`tests.grading.copy_corpus`): no honest pair flagged, every
disguised copy of an answer large enough to be compared caught."""

from __future__ import annotations

import pytest

from course import similarity
from course.checking import load
from tests.grading import copy_corpus


@pytest.fixture(scope="module")
def measured() -> dict[str, list[tuple[str, float]]]:
    return copy_corpus.measure()


@pytest.fixture(scope="module")
def prints() -> dict[str, list[str]]:
    return similarity.model_prints()


def test_no_honest_pair_is_flagged(
    measured: dict[str, list[tuple[str, float]]],
) -> None:
    assert measured["false flags"] == []
    assert len(measured["honest pairs"]) >= 30


def test_honest_answers_of_the_size_compared_stay_far_below_the_threshold(
    measured: dict[str, list[tuple[str, float]]], prints: dict[str, list[str]]
) -> None:
    """The margin the threshold has: above the size floor, independently
    written answers (the model answer among them) share under 70% of their
    shingles and of their statements in order (a class's boilerplate
    ``__init__`` is the most they share)."""
    solutions = similarity._cells(similarity.ROOT / "solutions")
    for exercise, answers in copy_corpus.HONEST.items():
        given = similarity.given_units(prints, exercise)
        everyone = [*answers, *solutions[exercise]]
        found = [similarity.Answer.of(a, given) for a in everyone]
        for i, one in enumerate(found):
            for other in found[i + 1 :]:
                if min(one.size, other.size) >= similarity.MIN_SIZE:
                    assert similarity.resemblance(one, other) < 0.7, exercise


def test_every_copy_large_enough_is_caught(
    measured: dict[str, list[tuple[str, float]]],
) -> None:
    assert measured["missed"] == []
    caught = [label for label, _ in measured["caught"]]
    assert sum("model disguised" in label for label in caught) >= 20
    assert sum("model renamed" in label for label in caught) >= 20
    assert sum("classmate" in label for label in caught) >= 6


def test_a_short_answer_is_too_small_to_mean_anything(
    prints: dict[str, list[str]],
) -> None:
    """A four-line 1.7 written from the chapter is the model answer, token for
    token: it must not be flagged, and cannot be."""
    honest = copy_corpus.HONEST["1.7"][0]
    model = similarity.Answer.of(honest, similarity.given_units(prints, "1.7"))
    assert model.size < similarity.MIN_SIZE
    assert similarity.copied_from_model("1.7", honest, prints) is None


def test_the_blank_notebooks_code_is_left_out(prints: dict[str, list[str]]) -> None:
    """3.10's blank cell holds the helper ``naturals``: students who keep it
    (and write nothing else, or their own answer) are not flagged."""
    blank = similarity._cells(similarity.ROOT / "exercises")["3.10"][0]
    assert "def naturals" in blank
    assert similarity.Answer.of(blank, similarity.given_units(prints, "3.10")).size == 0
    assert similarity.copied_from_model("3.10", blank, prints) is None
    class_ = [(f"s{i}", "3.10", blank) for i in range(5)]
    class_ += [("t0", "3.10", copy_corpus.HONEST["3.10"][0])]
    class_ += [("t1", "3.10", copy_corpus.HONEST["3.10"][1])]
    assert similarity.class_pairs(class_, prints) == []


def test_padding_with_no_ops_renaming_and_reordering_change_nothing(
    prints: dict[str, list[str]],
) -> None:
    model = similarity._cells(similarity.ROOT / "solutions")["2.10"][0]
    name = load("2.10").name
    for copy in (
        copy_corpus.renamed(model, {name}),
        copy_corpus.disguised(model, {name}),
        model.replace("\n    ", "\n    _ = None\n    ", 1),
    ):
        assert similarity.tokens(copy) == similarity.tokens(model)
        assert similarity.copied_from_model("2.10", copy, prints) == 1.0


def test_a_copy_with_real_changes_is_not_the_same_code(
    prints: dict[str, list[str]],
) -> None:
    """What the check must not cry wolf on: a dead assignment whose value
    calls something is kept (it may act), and the student's own rewrite of
    half the answer drops the resemblance under the threshold."""
    kept = similarity.tokens("def f(x):\n    _ = x.pop()\n    return x\n")
    assert "Call" in kept
    first, second = copy_corpus.HONEST["2.9"][0], copy_corpus.HONEST["2.9"][2]
    one = similarity.Answer.of(first, similarity.given_units(prints, "2.9"))
    other = similarity.Answer.of(second, similarity.given_units(prints, "2.9"))
    assert similarity.flagged(one, other) is None


def test_class_pairs_name_both_students_and_never_a_student_with_themselves(
    prints: dict[str, list[str]],
) -> None:
    original = copy_corpus.HONEST["4.7"][1]
    copy = copy_corpus.disguised(original, {"clip_grad_norm_"})
    answers = [
        ("ann", "4.7", original),
        ("ann", "4.7", original),  # two notebooks of one student
        ("bob", "4.7", copy),
        ("cat", "4.7", copy_corpus.HONEST["4.7"][0]),
    ]
    pairs = similarity.class_pairs(answers, prints)
    assert [(p.exercise, p.one, p.other) for p in pairs] == [("4.7", "ann", "bob")]
    notes = similarity.student_notes(pairs)
    assert set(notes) == {"ann", "bob"} and "bob's" in notes["ann"][0]
    assert "ann" in similarity.pairs_report(pairs)


def test_the_judge_keeps_hashes_of_the_model_answers_never_their_code(
    prints: dict[str, list[str]],
) -> None:
    """What goes into an exported autograder's ``answers.json``."""
    import json
    import re

    models = [t for texts in prints.values() for t in texts if t.startswith("model:")]
    assert len(models) >= 40
    for text in models:
        assert all(
            re.fullmatch(r"[0-9a-f]{16}", s) for s in json.loads(text[len("model:") :])
        )
    assert "topological_order" not in json.dumps(prints)


def test_the_teachers_guide_gives_the_measured_numbers(
    measured: dict[str, list[tuple[str, float]]],
) -> None:
    import re

    guide = (similarity.ROOT / "docs" / "teachers.md").read_text("utf-8")
    guide = " ".join(guide.split())
    honest = len(measured["honest pairs"]) + len(measured["false flags"])
    copies = len(measured["caught"]) + len(measured["missed"])
    assert f"no false flag among {honest} pairs" in guide
    assert f"{len(measured['caught'])} of {copies} renamed" in guide
    assert f"at least {similarity.MIN_SIZE} *shingles*" in guide
    small = sorted(
        {label.split()[0] for label, _ in measured["too small"] if "model" in label},
        key=lambda e: [int(n) for n in e.split(".")],
    )
    listed = re.search(r"the model answers of ([\d., ]+) fall", guide)
    assert listed and listed.group(1).split(", ") == small


def test_a_cell_padded_past_the_long_limit_is_still_seen_through(
    prints: dict[str, list[str]],
) -> None:
    """A long cell gets one pass of dead-assignment removal (so that a
    hostile cell cannot hold the judge): padding of no-ops still goes."""
    model = similarity._cells(similarity.ROOT / "solutions")["2.10"][0]
    lines = model.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("def ")) + 1
    padding = ["    _ = None"] * (similarity.LONG // 10)
    padded = "\n".join([*lines[:at], *padding, *lines[at:]])
    assert len(padded) > similarity.LONG
    assert similarity.tokens(padded) == similarity.tokens(model)
    assert similarity.copied_from_model("2.10", padded, prints) == 1.0
