"""What the feedback shows of an answer's outcomes, tested with the attacks
it stops: an outcome that carries data back to the student (read where a
case should not reach), and checking again and again to see every hint."""

from __future__ import annotations

from course import feedback
from course.cases import CaseResult, Report
from course.checking import load

SECRET = 987654321987654321  # what an answer read from the grader's memory


def report(expected: object, got: object, exercise: str = "1.5") -> Report:
    return Report(load(exercise), [CaseResult("case", False, expected, got)])


def test_a_longer_list_shows_its_length_never_its_extra_items() -> None:
    """Attack: the answer returns the expected strides followed by the
    values it read; the feedback must not print them back as "got"."""
    expected = [12, 4, 1]
    got = [12, 4, 1, 31337, 4242, 77]
    text = feedback.message(report(expected, got))
    assert "expected 3 items, got 6" in text
    for value in ("31337", "4242", "77"):
        assert value not in text


def test_fields_and_numbers_the_expected_has_no_place_for_are_not_shown() -> None:
    """Attack: extra fields, a huge integer, a string holding the data."""
    expected = {"tensor": [1.0, 2.0], "dtype": "torch.float32"}
    got = {"tensor": [1.0, SECRET], "dtype": "grading case 7: x=[3, 1, 4]", "z": 5}
    lines = feedback.aligned(expected, got)
    text = "\n".join(lines)
    assert "tensor[1]: expected 2, got a 18-digit number" in lines
    assert "dtype: expected 'torch.float32', got a string" in lines
    assert "1 field not expected" in lines
    assert str(SECRET) not in text and "x=[3" not in text and "5" not in text


def test_expected_and_got_are_aligned_field_by_field() -> None:
    expected = {"shape": [2, 3], "stride": [3, 1], "values": [[0, 1, 2], [3, 4, 5]]}
    got = {"shape": [2, 3], "stride": [1, 2], "values": [[0, 1, 2], [3, 4, 6]]}
    assert feedback.aligned(expected, got) == [
        "stride[0]: expected 3, got 1",
        "stride[1]: expected 1, got 2",
        "values[1][2]: expected 5, got 6",
    ]
    assert feedback.aligned([1] * 10, [2] * 10)[-1] == "... and 7 more differences"
    assert feedback.aligned({"raised": "RuntimeError"}, [1]) == [
        "expected raises RuntimeError, got a list of 1"
    ]


def test_the_hint_is_chosen_by_what_failed_not_by_how_often_one_checks() -> None:
    """Attack: checking the same wrong answer again and again used to show
    one hint more each time, until the last; now the same answer gets the
    same hint, and a hint further on only when more of it is right."""
    exercise = load("1.5")
    results = [CaseResult(f"c{i}", i < 1, [1], [2]) for i in range(8)]
    wrong = Report(exercise, results)
    shown = {feedback.message(wrong, failures) for failures in range(1, 10)}
    assert len(shown) == 1 and "Hint 2 of 3" in shown.pop()
    none = Report(exercise, [CaseResult(f"c{i}", False, [1], [2]) for i in range(8)])
    most = Report(exercise, [CaseResult(f"c{i}", i < 7, [1], [2]) for i in range(8)])
    assert "Hint 1 of 3" in feedback.message(none, 9)
    assert "Hint 3 of 3" in feedback.message(most, 0)
    assert feedback.tier(exercise, 8, 8) == 0
