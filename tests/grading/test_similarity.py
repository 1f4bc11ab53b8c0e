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
    """Each disguise of the corpus, on model answers and on classmates'."""
    assert measured["missed"] == []
    caught = [label for label, _ in measured["caught"]]
    for kind in copy_corpus.DISGUISES:
        assert sum(f"model {kind} (" in label for label in caught) >= 9, kind
    assert (
        sum(f"model {k} (" in x for k in ("padded", "everything") for x in caught) >= 78
    )
    assert sum("classmate" in label for label in caught) >= 60


def test_three_students_with_one_short_answer_make_a_cluster(
    measured: dict[str, list[tuple[str, float]]],
) -> None:
    """Short model answers handed in by three students (renamed, padded,
    operands swapped) are found as one group; honest short answers make
    none."""
    assert measured["not clustered"] == []
    assert len(measured["clustered"]) >= 15
    assert not [x for x in measured["honest clusters"] if x[1] == 0.0]


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
    assert f"{len(measured['caught'])} of {copies} copies" in guide
    clustered = len(measured["clustered"])
    short = clustered + len(measured["not clustered"])
    assert f"{clustered} of {short} short answers handed in by three" in guide
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


MODEL_1_5 = """
def contiguous_strides(shape):
    result = [0] * len(shape)
    block = 1
    for dim in range(len(shape) - 1, -1, -1):
        result[dim] = block
        block = block * shape[dim] if shape[dim] else block
    return tuple(result)
"""


def test_each_disguise_alone_leaves_the_normal_form_as_it_was() -> None:
    """Harmless calls between statements, swapped operands, a ``while`` for
    the ``for``, a loop of ``append`` for the comprehension: one form."""
    comprehension = (
        "def f(xs):\n    out = [2 * x for x in xs if x > 0]\n    return out\n"
    )
    for source in (MODEL_1_5, comprehension, copy_corpus.HONEST["5.4"][1]):
        for kind in ("padded", "swapped", "while", "loop", "renamed"):
            copy = copy_corpus.DISGUISES[kind](source, {"contiguous_strides"})
            assert similarity.tokens(copy) == similarity.tokens(source), kind
    assert "while " in copy_corpus.whiled(MODEL_1_5)
    assert "append" in copy_corpus.looped(comprehension)


def test_statements_whose_results_reach_something_are_kept() -> None:
    """What the data flow must not drop: a call that may act, the mutation of
    an argument or of a list that is returned, an attribute stored."""
    kept = [
        "def f(x):\n    _ = x.pop()\n    return x\n",
        "def f(x):\n    x.append(1)\n    return None\n",
        "def f(x):\n    out = []\n    out.append(x)\n    return out\n",
        "def f(x):\n    out = [0]\n    out[0] = x\n    return out\n",
        "class A:\n    def __init__(self, x):\n        self.x = x\n",
        "def f(x):\n    print(x)\n",
        "def f(x):\n    g = x.grad\n    g.mul_(2)\n",
    ]
    for source in kept:
        removed = source.replace("    return None\n", "")
        body = similarity.tokens(removed)
        assert "Call" in body or "Subscript" in body or ".v" in body, source
    for source in kept[:4]:
        bare = "def f(x):\n    return x\n"
        assert similarity.tokens(source) != similarity.tokens(bare), source
    dropped = (
        "def f(x):\n    len(())\n    n = len(x)\n    m = n + 1\n"
        "    for i in range(m):\n        k = i\n    x.size()\n    return x\n"
    )
    assert similarity.tokens(dropped) == similarity.tokens("def f(x):\n    return x\n")


def test_inserted_statements_that_act_do_not_hide_a_copy(
    prints: dict[str, list[str]],
) -> None:
    """``print(end="")`` every two statements stays (it acts); the statements
    in order still hold the whole copy."""
    model = similarity._cells(similarity.ROOT / "solutions")["1.9"][0]
    copy = copy_corpus.inserted(copy_corpus.renamed(model, {"view_strides"}), 2)
    given = similarity.given_units(prints, "1.9")
    one, other = similarity.Answer.of(model, given), similarity.Answer.of(copy, given)
    assert "print" in similarity.tokens(copy)
    assert similarity.in_order(one, other) == 1.0
    assert similarity.copied_from_model("1.9", copy, prints) == 1.0


def test_normalising_twice_changes_nothing() -> None:
    """The canonical order of independent assignments is one order whatever
    the order written (so padding, which takes a round more, changes none)."""
    head, tail = "def f(a):\n", "    return x, b, w\n"
    first = "    x, y = a.s\n    b = a.t if y is None else y\n"
    one = head + first + "    w = a.n\n" + tail
    two = head + "    w = a.n\n" + first + tail
    assert similarity.tokens(one) == similarity.tokens(two)
    assert similarity.tokens(copy_corpus.padded(one)) == similarity.tokens(one)


def _class(source: str, count: int, exercise: str) -> list[tuple[str, str, str]]:
    return [
        (f"s{n:02d}", exercise, copy_corpus.renamed(source, prefix=f"z{n}_"))
        for n in range(count)
    ]


def test_identical_short_answers_are_a_cluster_in_a_note_not_pairs(
    prints: dict[str, list[str]],
) -> None:
    """Twelve students with 1.5's short answer: one cluster, and each note
    says "the same short code as 11 others"; two students are no cluster
    (honest students meet on a short answer)."""
    found = similarity.class_check(_class(MODEL_1_5, 12, "1.5"), prints)
    assert found.pairs == []
    [cluster] = found.clusters
    assert cluster.short and cluster.model and len(cluster.students) == 12
    notes = similarity.student_notes(found.pairs, found.clusters)
    assert notes["s00"] == [
        "exercise 1.5: the same short code as 11 others (common for a piece "
        "this small; see the copies report)"
    ]
    assert "Short answers handed in identically" in similarity.pairs_report(
        found.pairs, found.clusters
    )
    two = similarity.class_check(_class(MODEL_1_5, 2, "1.5"), prints)
    assert two.clusters == [] and two.pairs == []


def test_notes_are_bounded_and_kept_by_exercise(
    prints: dict[str, list[str]],
) -> None:
    """Forty students with one large answer: each note names three
    classmates and counts the rest (not 39 pairs); a student with copies in
    eight exercises gets five notes; notes are kept by exercise, so that
    each goes with the notebook that holds it."""
    solutions = similarity._cells(similarity.ROOT / "solutions")
    found = similarity.class_check(_class(solutions["2.10"][0], 40, "2.10"), prints)
    assert len(found.pairs) == 40 * 39 // 2
    notes = similarity.student_notes(found.pairs, found.clusters)
    assert len(notes["s00"]) == 1
    assert notes["s00"][0].startswith(
        "exercise 2.10: the same code as s01, s02, s03 and 36 others (40 answers"
    )
    report = similarity.pairs_report(found.pairs, found.clusters)
    assert "| 2.10 |" not in report and "- 2.10: 40 answers" in report
    large = [e for e, s in solutions.items() if similarity.Answer.of(s[0]).size > 100]
    answers = [
        (student, exercise, copy_corpus.renamed(solutions[exercise][0], prefix=p))
        for exercise in large[:8]
        for student, p in (("ann", "a"), ("bob", "b"))
    ]
    found = similarity.class_check(answers, prints)
    by_exercise = similarity.notes_by_exercise(found.pairs, found.clusters)
    assert sorted(by_exercise["ann"]) == sorted(large[:8])
    mine = similarity.student_notes(found.pairs, found.clusters)["ann"]
    assert len(mine) == similarity.NOTES
    assert mine[-1].startswith("the same code as classmates in 4 more exercises")
