"""Replays (course.replay): a piece's mistake is paid for once, by its own
exercise, and the replayed results answer none of the piece's own cases."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

import slowtorch_lib as torch
from course import grading, record
from course.checking import load
from course.replay import key_of, recording, replaying
from course.runner_protocol import replay_messages
from course.substitute import original
from tests.grading import fixtures as f
from tests.grading import scenarios
from tests.grading.test_repeatable import window_short_5_4

SEED = "replay-seed"


def test_a_noted_call_gets_its_note_and_any_other_goes_to_the_piece() -> None:
    notes: dict[str, str] = {}
    strides = original(load("1.5").target or "")
    recording("values", strides, notes)((2, 3))
    wrong = replaying("values", lambda shape: (7,) * len(shape), notes)
    assert wrong((2, 3)) == (3, 1)  # noted
    assert wrong((4, 5)) == (7, 7)  # not noted: the student's piece answers
    assert wrong([2, 3]) == (7, 7)  # a list is another call than a tuple


def test_a_stub_behind_its_replay_still_says_it_is_not_written() -> None:
    def stub(*args: object) -> object:
        raise NotImplementedError("exercise 1.5 is not written")

    replayed = replaying("values", stub, {key_of(((2, 3),), {}): "(3, 1)"})
    assert replayed((2, 3)) == (3, 1)
    with pytest.raises(NotImplementedError):
        replayed((2, 4))


def test_a_replayed_view_is_a_view_of_the_argument_with_its_gradient() -> None:
    windows = original(load("5.4").target or "")
    notes: dict[str, str] = {}
    x = torch.arange(32.0).reshape(1, 2, 4, 4).requires_grad_()
    recording("view", windows, notes)(x, (2, 2), (1, 1), (2, 2))
    never = replaying("view", lambda *args: None, notes)
    got = never(x, (2, 2), (1, 1), (2, 2))
    want = windows(x, (2, 2), (1, 1), (2, 2))
    assert got.shape == want.shape and got.stride() == want.stride()
    assert got.tolist() == want.tolist()
    assert type(got.grad_fn).__name__ == "AsStridedBackward0"
    got.sum().backward()
    assert x.grad is not None and x.grad.sum().item() == 32.0  # each cell once


@pytest.fixture(scope="module")
def drawn() -> tuple[dict[str, list[object]], record.Notes]:
    return record.draw(SEED, chapters=[1, 5])


def test_the_notes_are_the_complete_engines_results(
    drawn: tuple[dict[str, list[object]], record.Notes],
) -> None:
    strides = original(load("1.5").target or "")
    notes = drawn[1]["1.5"]
    assert len(notes) > 50
    for key, text in list(notes.items())[:50]:
        shape = eval(key)[0][0]  # noqa: S307  (our own repr of plain data)
        assert repr(strides(shape)) == text
    assert drawn[1]["5.4"] and drawn[1]["5.9"]


def test_a_child_gets_no_notes_of_its_own_piece_nor_of_a_later_one() -> None:
    """A child that held them could look its own inputs up, or leave them in
    ``/tmp`` for a later exercise's child to look up."""
    order = ["1.5", "1.6", "1.7", "1.10"]
    notes = {p: {"k": "v"} for p in ("1.5", "1.6", "1.7", "1.9", "5.4")}
    messages = replay_messages(order, notes)
    got = [json.loads(m[10:]) for m in messages]
    assert [int(m[:10]) for m in messages] == [len(m) - 10 for m in messages]
    assert [g["exercise"] for g in got] == order
    assert [sorted(g["replays"]) for g in got] == [
        ["1.9", "5.4"],
        ["1.5", "1.9", "5.4"],
        ["1.5", "1.6", "1.9", "5.4"],
        ["1.5", "1.6", "1.7", "1.9", "5.4"],
    ]


CHEAT_1_5 = """
import gc


def contiguous_strides(shape):
    for key in (repr(((tuple(shape),), [])), repr(((list(shape),), []))):
        for found in gc.get_objects():
            if isinstance(found, dict) and isinstance(found.get(key), str):
                return eval(found[key])
    return tuple(0 for _ in shape)
"""

ZEROS_1_5 = """
def contiguous_strides(shape):
    return tuple(0 for _ in shape)
"""

ONES_1_5 = """
def contiguous_strides(shape):
    return tuple(1 for _ in shape)
"""


@pytest.mark.pipeline
def test_a_broken_piece_costs_its_own_exercise_and_reading_the_notes_buys_nothing() -> (
    None
):
    students = {
        "cheat": CHEAT_1_5,
        "zeros": ZEROS_1_5,
        "ones": ONES_1_5,
    }
    with tempfile.TemporaryDirectory() as folder:
        items = []
        for student, answer in students.items():
            notebook = scenarios.solutions(f.CHAPTER1, exercise_1_5=answer)
            items += scenarios.write(Path(folder), student, [(f.CHAPTER1, notebook)])
        window = scenarios.solutions(f.CHAPTER5, exercise_5_4=window_short_5_4())
        items += scenarios.write(Path(folder), "windows", [(f.CHAPTER5, window)])
        earlier = scenarios.write(
            Path(folder) / "before",
            "windows",
            [
                (c, scenarios.solutions(c))
                for c in (f.CHAPTER1, f.CHAPTER2, f.CHAPTER3, f.CHAPTER4)
            ],
        )
        results = grading.grade(items, jobs=2, seed=SEED, earlier=earlier)
    points = {r.student: {e: g.points for e, g in r.exercises.items()} for r in results}
    # the lookups answer none of 1.5's own cases: the cheat scores what its
    # fallback scores alone
    assert points["cheat"]["1.5"] == points["zeros"]["1.5"] < 0.2
    for student in ("zeros", "ones"):
        mine = points[student]
        assert mine["1.5"] < 0.2
        assert all(mine[e] == 1.0 for e in ("1.6", "1.7", "1.8", "1.9")), mine
        assert mine["1.10"] == 1.0, mine  # 0.36 without replays
    # a short window (5.4) no longer costs the convolution layer (5.10)
    assert points["windows"]["5.4"] == 0
    assert {e: p for e, p in points["windows"].items() if p < 1} == {"5.4": 0}
