"""The course file (``--course course.toml``): what a teacher writes once,
and what ``release``, ``grade`` and ``export`` do with it.

A file the course cannot use is refused with a message that says where and
why, and lists what the course has (never a traceback, never a typo
ignored); an exercise left out is gone from the class edition's notebooks and
plan and from the grades; weights show in the CSV, the console and the
students' feedback."""

from __future__ import annotations

import csv
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from course import __main__ as cli
from course import course_file, edition, export, grading, sandbox
from course.judge import Graded

ROOT = Path(__file__).resolve().parents[2]

GOOD = """\
language = "en"
seed = "spring-2027"
give = ["ch1"]
leave_out = ["3.10", "1.6", "ch6"]

[weights]
"1.5" = 2
"1.7" = 0.5
"""


def write(folder: Path, text: str, name: str = "course.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# --- reading the file --------------------------------------------------------------


def test_a_course_file_is_read_into_the_class_s_choices(tmp_path: Path) -> None:
    course = course_file.load(write(tmp_path, GOOD))
    assert course.seed == "spring-2027"
    assert course.language == "en"
    assert {"1.5", "1.11"} <= course.give and "1.1" not in course.give  # 1.1 predicts
    assert {"3.10", "1.6", "6.1", "6.9"} <= course.left_out
    assert not {"3.9", "5.1"} & course.left_out
    assert course.weights == {"1.5": 2.0, "1.7": 0.5}
    # the pieces of the exercises left out are shipped solved; predictions are not
    given = course.given()
    assert {"1.5", "1.6", "3.10", "6.9"} <= given and "6.1" not in given
    # --give on the command line takes the place of the file's give
    assert course.given({"2.9"}) == {"2.9"} | (course.left_out & given)


def test_no_course_file_is_the_whole_course() -> None:
    course = course_file.load(None)
    assert course.left_out == frozenset() and course.weights == {}
    assert course.given({"1.5"}) == {"1.5"}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('leave_out = ["1.55"]\n', "leave_out: no exercise '1.55' in this course"),
        ('give = ["ch9"]\n', "give: no chapter 'ch9' in this course (chapters: ch1"),
        ('[weights]\n"2.99" = 3\n', "weights: no exercise '2.99' in this course"),
        ('leave-out = ["3.5"]\n', "unknown key 'leave-out' (a course file has"),
        ("leave_out = [1.10]\n", "write exercise ids in quotes"),
        ('leave_out = "1.5"\n', "leave_out: not a list"),
        ('give = ["1.1"]\n', "give: 1.1 asks for no piece"),
        ('[weights]\n"1.5" = -1\n', "the weight of '1.5' is not a number >= 0"),
        ('[weights]\n"1.5" = true\n', "the weight of '1.5' is not a number >= 0"),
        ('leave_out = ["1.5"]\n[weights]\n"1.5" = 2\n', "1.5 is left out"),
        ('language = "xx"\n', "no sentences in 'xx' (the course has en"),
        ('seed = "a b"\n', "seed: letters, digits"),
        ('leave_out = ["1.5"\n', "not TOML"),
        ("leave_out = ['1.5'] ]\n", "not TOML"),
    ],
)
def test_a_file_the_course_cannot_use_is_refused_saying_why(
    tmp_path: Path, text: str, said: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(course_file.CourseFileError) as caught:
        course_file.load(path)
    assert said in str(caught.value)
    assert str(path) in str(caught.value)


def test_an_unknown_id_is_refused_with_the_ids_the_course_has(tmp_path: Path) -> None:
    with pytest.raises(course_file.CourseFileError) as caught:
        course_file.load(write(tmp_path, 'leave_out = ["4.15"]\n'))
    assert "exercise ids run 1.1 to 1.11, 2.1 to 2.13" in str(caught.value)
    assert "4.1 to 4.14" in str(caught.value)


def test_a_json_course_file_is_read_too(tmp_path: Path) -> None:
    path = write(tmp_path, '{"leave_out": ["3.10"], "weights": {"1.5": 2}}', "c.json")
    course = course_file.load(path)
    assert course.left_out == {"3.10"} and course.weights == {"1.5": 2.0}
    with pytest.raises(course_file.CourseFileError, match="not JSON"):
        course_file.load(write(tmp_path, "{", "bad.json"))


def test_a_toml_file_on_python_3_10_is_refused_with_the_way_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.10 has no ``tomllib``: a TOML course file or weights file is
    refused with a message naming JSON, never with ModuleNotFoundError."""
    weights = write(tmp_path, '[weights]\n"1.5" = 2\n', "weights.toml")
    monkeypatch.setattr(sys, "version_info", (3, 10, 14, "final", 0))
    with pytest.raises(course_file.CourseFileError, match="needs Python 3.11 or later"):
        course_file.load(write(tmp_path, GOOD))
    with pytest.raises(ValueError, match="needs Python 3.11 or later.*as JSON"):
        export.load_weights(weights)


@pytest.mark.parametrize("command", ["release", "grade", "export"])
def test_each_command_refuses_a_bad_course_file_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = write(tmp_path, '[weights]\n"1.55" = 2\n')
    argv = {
        "release": ["release", str(tmp_path / "class")],
        "grade": ["grade", str(tmp_path)],
        "export": ["export", "gradescope", str(tmp_path / "a.zip")],
    }[command]
    assert cli.main([*argv, "--course", str(path)]) == 2
    err = capsys.readouterr().err
    assert "no exercise '1.55' in this course (exercise ids run 1.1 to" in err
    assert "Traceback" not in err
    assert not (tmp_path / "class").exists() and not (tmp_path / "a.zip").exists()
    missing = cli.main([*argv, "--course", str(tmp_path / "none.toml")])
    assert missing == 2
    assert "cannot read the course file" in capsys.readouterr().err


# --- the class edition -------------------------------------------------------------


def headings(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]).splitlines()[0] for c in cells]


def tags(notebook: Path) -> set[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return {t for c in cells for t in c.get("metadata", {}).get("tags", [])}


def fake_release(out: Path, give: Any, site: bool = False) -> list[Path]:
    """What ``edition.release`` writes that leaving out changes: the notebooks."""
    shutil.copytree(ROOT / "exercises", out / "exercises")
    (out / "given.json").write_text(json.dumps(sorted(give)), "utf-8")
    return sorted(out.rglob("*"))


def test_an_exercise_left_out_is_gone_from_the_release_s_notebooks_and_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(edition, "release", fake_release)
    path = write(tmp_path, GOOD)
    out = tmp_path / "class"
    assert cli.main(["release", str(out), "--course", str(path)]) == 0
    assert "11 exercises left out" in capsys.readouterr().out  # 1.6, 3.10, 6.1-6.9
    first = out / "exercises" / "01_arrays_to_tensors.ipynb"
    third = out / "exercises" / "03_building_blocks.ipynb"
    assert "## Exercise 1.5: the strides of a fresh tensor" in headings(first)
    assert not any(h.startswith("## Exercise 1.6") for h in headings(first))
    assert not {"exercise-1.6", "check-1.6"} & tags(first)
    assert {"exercise-1.5", "check-1.5", "exercise-1.7", "plan"} <= tags(first)
    assert not any(h.startswith("## Exercise 3.10") for h in headings(third))
    assert "exercise-3.10" not in tags(third) and "exercise-3.11" in tags(third)
    # the plans no longer name them: 3.10 was chapter 3's only stretch exercise
    plans = [h for h in headings(first) + headings(third) if "The plan" in h]
    assert plans[0].startswith("**The plan.** Core: 1.1–1.5, 1.7–1.11,")
    assert plans[1].startswith("**The plan.** Core: 3.1–3.9, 3.11, 3.12,")
    assert "Stretch" not in "".join(plans)
    # a chapter left out whole has no notebook; the others are as generated
    assert not (out / "exercises" / "06_attention.ipynb").exists()
    fifth = "05_windows.ipynb"
    assert (out / "exercises" / fifth).read_bytes() == (
        ROOT / "exercises" / fifth
    ).read_bytes()
    # their pieces are shipped solved, since later chapters run on them
    given = set(json.loads((out / "given.json").read_text("utf-8")))
    assert {"1.6", "3.10", "6.9", "1.5"} <= given and "2.9" not in given


# --- grading -----------------------------------------------------------------------


def graded(exercise_id: str, points: float) -> Graded:
    return Graded(exercise_id, f"title {exercise_id}", points, 3, 3, "graded")


def fake_grade(submissions: list[tuple[Path, str]], **options: Any) -> list[Any]:
    """Full marks on 1.5, 1.6 and 1.7, a third of 1.8, whatever the notebook."""
    fake_grade.options = options  # type: ignore[attr-defined]
    results = []
    for path, student in submissions:
        result = grading.Result(path, student, chapter=1)
        for exercise_id, points in (("1.5", 1), ("1.6", 1), ("1.7", 1), ("1.8", 1 / 3)):
            result.exercises[exercise_id] = graded(exercise_id, points)
            result.sources[exercise_id] = "def f(): pass\n"
        results.append(result)
    return results


def test_an_exercise_left_out_is_not_graded_and_weights_are_shown_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(grading, "grade", fake_grade)
    monkeypatch.setattr(sandbox, "problem", lambda: None)
    folder = tmp_path / "students"
    (folder / "ann").mkdir(parents=True)
    shutil.copy(
        ROOT / "exercises" / "01_arrays_to_tensors.ipynb",
        folder / "ann" / "01_arrays_to_tensors.ipynb",
    )
    path = write(tmp_path, GOOD)
    csv_path, feedback = tmp_path / "grades.csv", tmp_path / "feedback"
    argv = ["grade", str(folder), "--course", str(path), "--csv", str(csv_path)]
    cli.main([*argv, "--feedback", str(feedback)])
    # the file's seed and pieces reach the grader
    chosen = fake_grade.options  # type: ignore[attr-defined]
    assert chosen["seed"] == "spring-2027"
    assert {"1.5", "1.6", "3.10"} <= set(chosen["given"])
    console = capsys.readouterr().out
    assert "course file" in console and "left out" in console
    # the console: each exercise's weight, the weighted total, no 1.6
    assert "1.5   title 1.5                1.00 x2  3/3" in console
    assert "1.7   title 1.7                1.00 x0.5  3/3" in console
    assert "title 1.6" not in console
    assert "points: 2.83 of 3.5 (weighted)" in console
    # the CSV: no column for 1.6; the weights as the points possible
    rows = list(csv.reader(csv_path.open(encoding="utf-8")))
    header = rows[0]
    assert "1.6" not in header and {"1.5", "1.7", "1.8"} <= set(header)
    possible = next(r for r in rows if "possible" in " ".join(r).lower())
    assert possible[header.index("1.5")] == "2.00"
    assert possible[header.index("1.7")] == "0.50"
    ann = next(r for r in rows if "ann" in r)
    assert ann[header.index("1.5")] == "2.00"
    # the student's feedback: the weight of each exercise and the total
    report = (feedback / "ann.md").read_text(encoding="utf-8")
    assert "| exercise | weight | points | cases right |" in report
    assert "| 1.5 title 1.5 | 2 | 1.00 | 3 of 3 |" in report
    assert "| 1.8 title 1.8 | 1 | 0.33 | 3 of 3 |" in report
    assert "1.6" not in report
    assert "Points: 2.83 of 3.5 (each times its weight)" in report


def test_options_on_the_command_line_override_the_course_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(grading, "grade", fake_grade)
    monkeypatch.setattr(sandbox, "problem", lambda: None)
    folder = tmp_path / "students"
    (folder / "ann").mkdir(parents=True)
    shutil.copy(
        ROOT / "exercises" / "01_arrays_to_tensors.ipynb",
        folder / "ann" / "01_arrays_to_tensors.ipynb",
    )
    weights = write(tmp_path, '[weights]\n"1.8" = 3\n', "weights.toml")
    argv = ["grade", str(folder), "--course", str(write(tmp_path, GOOD))]
    argv += ["--seed", "other", "--give", "2.9", "--weights", str(weights)]
    cli.main(argv)
    chosen = fake_grade.options  # type: ignore[attr-defined]
    assert chosen["seed"] == "other"
    assert "2.9" in chosen["given"] and "1.5" not in chosen["given"]
    assert "1.6" in chosen["given"]  # left out: still solved
    console = capsys.readouterr().out
    assert "1.5   title 1.5                1.00 x1  3/3" in console
    assert "points: 3.00 of 5 (weighted)" in console  # 1 + 1 + 1/3*3


@pytest.mark.pipeline
@pytest.mark.skipif(sandbox.problem() is not None, reason="needs bubblewrap")
def test_a_real_grade_leaves_the_exercise_out_of_the_csv(tmp_path: Path) -> None:
    folder = tmp_path / "students"
    (folder / "ann").mkdir(parents=True)
    shutil.copy(
        ROOT / "solutions" / "01_arrays_to_tensors.ipynb",
        folder / "ann" / "01_arrays_to_tensors.ipynb",
    )
    path = write(tmp_path, 'leave_out = ["1.6", "1.9"]\n[weights]\n"1.5" = 4\n')
    csv_path = tmp_path / "grades.csv"
    argv = ["grade", str(folder), "--course", str(path), "--csv", str(csv_path)]
    assert cli.main(argv) == 0
    rows = list(csv.reader(csv_path.open(encoding="utf-8")))
    header = rows[0]
    assert "1.6" not in header and "1.9" not in header and "1.5" in header
    ann = next(r for r in rows if "ann" in r)
    assert ann[header.index("1.5")] == "4.00"


def test_export_takes_the_pieces_and_weights_of_the_course_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from course import export

    taken: dict[str, Any] = {}

    def fake_export(
        out: Path, chapter: Any, weights: Any, given: Any, language: str
    ) -> list[str]:
        taken.update(weights=weights, given=set(given), language=language)
        return []

    monkeypatch.setattr(export, "gradescope", fake_export)
    argv = ["export", "gradescope", str(tmp_path / "a.zip")]
    assert cli.main([*argv, "--course", str(write(tmp_path, GOOD))]) == 0
    assert taken["weights"] == {"1.5": 2.0, "1.7": 0.5}
    assert {"1.5", "1.6", "3.10", "6.9"} <= taken["given"]  # ch1 given, left out
    assert "2.9" not in taken["given"]
    assert taken["language"] == "en"


def test_the_guide_s_example_course_file_is_one_the_course_reads(
    tmp_path: Path,
) -> None:
    guide = (ROOT / "docs" / "teachers.md").read_text(encoding="utf-8")
    example = guide.split("```toml\n# course.toml")[1].split("```")[0]
    course = course_file.load(write(tmp_path, "# course.toml" + example))
    assert {"3.10", "6.1"} <= course.left_out and course.weights["2.10"] == 3


# --- the sentences, and their translations -----------------------------------------


def test_every_sentence_the_tools_show_has_its_english() -> None:
    import re

    from course import messages

    used = set()
    for path in (ROOT / "course").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        used |= set(re.findall(r'\btext\(\s*"([\w.]+)"', source))
        used |= {
            f"{k}.{n}"
            for k in re.findall(r'\bplural\(\s*"([\w.]+)"', source)
            for n in ("one", "many")
        }
    from course.feedback import ERROR_HINTS

    used |= {f"error.{name}" for name in ERROR_HINTS}
    assert len(used) > 40
    assert sorted(used - set(messages.ENGLISH)) == []
    for language, translation in messages.LANGUAGES.items():
        assert messages.problems(translation) == [], language


def test_a_translation_with_a_typo_or_a_lost_placeholder_is_caught() -> None:
    from course import messages

    found = messages.problems(
        {
            "feedback.hiden": "et {count} cas",
            "feedback.hidden": "et des cas de notation (non montrés)",
            "feedback.title": "Retour pour {student}",
        }
    )
    assert found == [
        "'feedback.hiden': no such sentence in English",
        "'feedback.hidden': its placeholders must be English's (count)",
    ]


def test_a_language_shows_its_sentences_and_english_where_it_has_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from course import messages

    french = {
        "feedback.title": "Retour pour {student}",
        "feedback.right": "{passed} sur {total}",
    }
    monkeypatch.setitem(messages.LANGUAGES, "fr", french)
    monkeypatch.setattr(messages, "LANGUAGE", "en")
    result = grading.Result(Path("01_arrays_to_tensors.ipynb"), "ann", chapter=1)
    result.exercises["1.5"] = graded("1.5", 1)
    messages.use("fr")
    report = grading.feedback("ann", [result])
    assert report.startswith("# Retour pour ann")
    assert "| 1.5 title 1.5 | 1.00 | 3 sur 3 |" in report
    assert "| exercise | points | cases right |" in report  # not translated yet
    messages.use("en")
    assert grading.feedback("ann", [result]).startswith("# Feedback for ann")
    with pytest.raises(ValueError, match="no sentences in 'xx'"):
        messages.use("xx")


def test_the_checker_speaks_the_language_in_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from course import feedback, messages
    from course.cases import Report
    from course.checking import load

    monkeypatch.setitem(
        messages.LANGUAGES, "fr", {"check.not_attempted": "exercice {id} : pas encore"}
    )
    monkeypatch.setattr(messages, "LANGUAGE", "fr")
    report = Report(load("1.5"), [], attempted=False)
    assert feedback.message(report) == "exercice 1.5 : pas encore"


def test_a_release_names_the_course_file_s_language(tmp_path: Path) -> None:
    (tmp_path / "course").mkdir()
    shutil.copy(ROOT / "course" / "messages.py", tmp_path / "course" / "messages.py")
    course_file.release_language(tmp_path, "fr")
    copied = (tmp_path / "course" / "messages.py").read_text(encoding="utf-8")
    assert '\nLANGUAGE = "fr"\n' in copied and '\nLANGUAGE = "en"\n' not in copied


def test_the_gradescope_autograder_speaks_the_exported_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from course import gradescope, messages

    monkeypatch.setitem(messages.LANGUAGES, "fr", {})
    monkeypatch.setattr(gradescope, "PACKAGE", tmp_path)
    for written, read in (("fr", "fr"), ("xx", "en"), (3, "en")):
        (tmp_path / gradescope.SETTINGS).write_text(json.dumps({"language": written}))
        assert gradescope.settings()["language"] == read


@pytest.mark.pipeline
def test_a_real_release_leaves_the_exercise_out(tmp_path: Path) -> None:
    path = write(tmp_path, 'leave_out = ["1.6", "ch6"]\n')
    out = tmp_path / "class"
    assert cli.main(["release", str(out), "--course", str(path)]) == 0
    first = out / "exercises" / "01_arrays_to_tensors.ipynb"
    assert "exercise-1.6" not in tags(first) and "exercise-1.7" in tags(first)
    assert not (out / "exercises" / "06_attention.ipynb").exists()
    table = (out / "slowtorch_lib" / "_class" / "__init__.py").read_text("utf-8")
    given = table.split("GIVEN = (")[1].split(")")[0]
    assert '"1.6"' in given and '"6.9"' in given and '"1.5"' not in given
