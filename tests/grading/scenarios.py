"""Attacks and teacher scenarios, each with its honest control, graded by
whichever grader is on the path: ``python tests/grading/scenarios.py``
(``PYTHONPATH`` picks the checkout; the table compares two of them).

Each scenario writes notebooks into a folder per student and grades them
with the sandbox; the table gives the points of the attack and of its
control. :func:`build` is shared with the tests (tests/test_grading.py).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, os.getcwd())

from tests.grading import fixtures as f  # noqa: E402

C1, C2, C3, C4 = f.CHAPTER1, f.CHAPTER2, f.CHAPTER3, f.CHAPTER4


def public_expected(exercise_id: str) -> list[tuple[str, Any]]:
    """The public cases' labels and recorded answers (they ship with the
    student copy)."""
    from course.checking import expected_outcomes, load

    recorded = expected_outcomes().get(exercise_id, {})
    return [(c.label, recorded[c.label]) for c in load(exercise_id).cases]


FORGE = """
import json as _json, os as _os, stat as _stat
_PUBLIC = {public!r}
def _forge():
    for fd in range(3, 64):
        try:
            if not _stat.S_ISFIFO(_os.fstat(fd).st_mode):
                continue
        except OSError:
            continue
        def w(record):
            _os.write(fd, (_json.dumps(record) + "\\n").encode())
        w({{"kind": "cell", "defined": True, "error": None, "reference": [],
           "tampering": []}})
        for i, (label, outcome) in enumerate(_PUBLIC):
            w({{"kind": "case", "index": i, "label": label, "outcome": outcome,
               "error": None, "stub": False, "reference": []}})
        w({{"kind": "finish"}})
_forge()
"""


def forged(exercise_id: str, then: str = "_os._exit(0)\n") -> str:
    """A cell that writes its public cases' outcomes into the runner's pipe."""
    return FORGE.format(public=public_expected(exercise_id)) + then


THREAD = (
    "import threading, time\nthreading.Thread(target=time.sleep, args=(3,)).start()\n"
)

STUB_FIRST = {
    "1.7": (
        "def position_list(shape, strides, offset):\n"
        "    raise NotImplementedError\n\n\n"
    ),
}


def pieces(chapter: int) -> list[Any]:
    from course.checking import load
    from course.grading import chapter_exercises

    return [load(e) for e in chapter_exercises(chapter) if load(e).kind == "piece"]


def refusing(exercise: Any, raised: str) -> str:
    """An answer that knows nothing: every call raises ``raised``."""
    assert exercise.target is not None
    if exercise.target.split(".")[-1][:1].isupper():
        body = f"(*args, **kwargs):\n        raise {raised}\n"
        return (
            f"class {exercise.name}:\n"
            f"    def __init__(self, *args, **kwargs):\n        raise {raised}\n"
            f"    @staticmethod\n    def forward{body}"
            f"    @staticmethod\n    def backward{body}"
        )
    return f"def {exercise.name}(*args, **kwargs):\n    raise {raised}\n"


def memorised_1_5() -> str:
    """1.5 answered only for the shapes its fixed cases (public and hidden)
    use, learnt from the feedback: a table, no engine code."""
    import slowtorch_lib
    from course.checking import load
    from course.substitute import original, substituted

    exercise = load("1.5")
    real = original(exercise.target)
    seen: dict[tuple[int, ...], tuple[int, ...]] = {}

    def noting(shape: Any) -> Any:
        found = real(shape)
        seen[tuple(shape)] = tuple(found)
        return found

    for case in [*exercise.cases, *exercise.grading_cases]:
        with substituted(exercise.target, noting):
            try:
                assert case.run is not None
                case.run(slowtorch_lib)
            except Exception:  # noqa: BLE001, S110
                pass
    return (
        f"_TABLE = {seen!r}\n\n\ndef contiguous_strides(shape):\n"
        "    return _TABLE.get(tuple(shape), tuple(1 for _ in shape))\n"
    )


def defect_2_10() -> str:
    """The model 2.10 with one defect: a gradient reaching a node twice
    replaces the first instead of adding to it."""
    source = f.solution_answer(C2, "2.10")
    wrong = source.replace(
        "gradient if earlier is None else earlier + gradient", "gradient"
    )
    assert wrong != source
    return wrong


def import_by_name_2_10() -> str:
    """The model 2.10, but sum_to_size imported by name and called."""
    source = f.solution_answer(C2, "2.10")
    return "from slowtorch_lib.ops.reduction import sum_to_size\n" + source.replace(
        "gradient.sum_to_size(*shape)", "sum_to_size(gradient, shape)"
    )


def solutions(chapter: str, **answers: str) -> dict[str, Any]:
    return f.with_answers(f.notebook("solutions", chapter), **answers)


def blank(chapter: str, **answers: str) -> dict[str, Any]:
    return f.with_answers(f.notebook("exercises", chapter), **answers)


def key(exercise_id: str) -> str:
    return "exercise_" + exercise_id.replace(".", "_")


Notebooks = list[tuple[str, dict[str, Any]]]


def scenarios() -> dict[str, tuple[Notebooks, Notebooks, str]]:
    """name: (attack notebooks, control notebooks, what is compared)."""
    found: dict[str, tuple[Notebooks, Notebooks, str]] = {}
    ch1 = [e.id for e in pieces(1)]
    found["forged records from the pipe (ch1)"] = (
        [(C1, blank(C1, **{key(e): forged(e) for e in ch1}))],
        [(C1, blank(C1))],
        "a blank notebook",
    )
    found["hidden cases read from feedback (1.5 as a table)"] = (
        [(C1, blank(C1, exercise_1_5=memorised_1_5()))],
        [(C1, blank(C1))],
        "a blank notebook",
    )
    model = f.solution_answer(C1, "1.5")
    found["refused cell (a thread) sends its own record (1.5)"] = (
        [(C1, solutions(C1, exercise_1_5=model + forged("1.5", THREAD)))],
        [(C1, solutions(C1))],
        "the same answers, no thread",
    )
    buggy = f.BUGGY_POSITIONS
    found["stub written before the answer (1.7, buggy)"] = (
        [(C1, solutions(C1, exercise_1_7=STUB_FIRST["1.7"] + buggy))],
        [(C1, solutions(C1, exercise_1_7=buggy))],
        "the same notebook without the stub",
    )
    found["refused draft notebook (1.7 with a thread)"] = (
        [
            ("draft_" + C1, solutions(C1, exercise_1_7=buggy + THREAD)),
            (C1, solutions(C1, exercise_1_7=buggy)),
        ],
        [(C1, solutions(C1, exercise_1_7=buggy))],
        "the final notebook alone",
    )
    for raised, name in (("NotImplementedError", "refuse"), ("RuntimeError", "raise")):
        notebooks = []
        for number, chapter in ((1, C1), (2, C2), (3, C3), (4, C4)):
            answers = {key(e.id): refusing(e, raised) for e in pieces(number)}
            notebooks.append((chapter, blank(chapter, **answers)))
        found[f"{name} everything (ch1-4)"] = (
            notebooks,
            [(c, blank(c)) for c in (C1, C2, C3, C4)],
            "blank notebooks",
        )
    found["several notebooks: a full one, then a blank one"] = (
        [("a_" + C1, solutions(C1)), ("b_" + C1, blank(C1))],
        [("b_" + C1, blank(C1))],
        "the latest (blank) alone",
    )
    found["import by name: sum_to_size in 2.10 (ch1, ch2)"] = (
        [(C1, solutions(C1)), (C2, solutions(C2, exercise_2_10=import_by_name_2_10()))],
        [(C1, solutions(C1)), (C2, solutions(C2))],
        "the model answers",
    )
    return found


def teacher() -> dict[str, tuple[Notebooks, tuple[str, ...]]]:
    every = [(c, solutions(c)) for c in (C1, C2, C3, C4)]
    defect = [
        (c, solutions(c, exercise_2_10=defect_2_10()) if c == C2 else solutions(c))
        for c in (C1, C2, C3, C4)
    ]
    unwritten = f.solution_answer(C2, "2.4")
    stub = "".join(f.cell_with(f.notebook("exercises", C2), "exercise-2.4")["source"])
    assert unwritten != stub
    left = [
        (c, solutions(c, exercise_2_4=stub) if c == C2 else solutions(c))
        for c in (C1, C2, C3, C4)
    ]
    late = [(c, solutions(c)) for c in (C3, C4)]
    return {
        "all four solutions": (every, ()),
        "solutions, one defect in 2.10": (defect, ()),
        "solutions, 2.4 left unwritten": (left, ()),
        "started at chapter 3, --give ch1,ch2": (late, ("ch1", "ch2")),
    }


def write(folder: Path, student: str, notebooks: Notebooks) -> list[tuple[Path, str]]:
    written = []
    for number, (name, notebook) in enumerate(notebooks):
        path = folder / student / f"{name}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(notebook), encoding="utf-8")
        stamp = 1_700_000_000 + number * 60  # in the order given: the last is latest
        os.utime(path, (stamp, stamp))
        written.append((path, student))
    return written


def grade(items: list[tuple[Path, str]], give: tuple[str, ...] = ()) -> list[Any]:
    from course import grading

    try:
        from course import edition

        given = edition.parse_give(",".join(give)) if give else set()
        return grading.grade(items, timeout=60, jobs=2, given=given)
    except TypeError:  # a grader without --give
        return grading.grade(items, timeout=60, jobs=2)


def points(results: list[Any]) -> tuple[float, int]:
    """The student's points and the number of exercises, counting one
    notebook per chapter as the grader's CSV does."""
    from course.grading import counted

    kept, _ = counted(results)
    return sum(r.points for r in kept), sum(len(r.exercises) for r in kept)


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="scenarios-"))
    rows = []
    items: list[tuple[Path, str]] = []
    plan = scenarios()
    for number, (attack, control, _) in enumerate(plan.values()):
        items += write(folder, f"a{number}", attack)
        items += write(folder, f"c{number}", control)
    started = time.monotonic()
    results = grade(items)
    by: dict[str, list[Any]] = {}
    for result in results:
        by.setdefault(result.student, []).append(result)
    for number, (name, (_, _, control)) in enumerate(plan.items()):
        got, total = points(by[f"a{number}"])
        honest, _ = points(by[f"c{number}"])
        rows.append(f"| {name} | {got:.2f} of {total} | {honest:.2f} ({control}) |")
    print("| attack | score | honest control |\n|---|---|---|")
    print("\n".join(rows))
    print(f"\n({time.monotonic() - started:.0f} s)\n")
    print("| teacher scenario | points | per exercise below 1 |\n|---|---|---|")
    for name, (notebooks, give) in teacher().items():
        results = grade(write(folder, name.replace(" ", "_"), notebooks), give)
        got, total = points(results)
        low = [
            f"{g.id} {g.points:.2f}"
            for r in results
            for g in r.exercises.values()
            if g.points < 1
        ]
        print(f"| {name} | {got:.2f} of {total} | {', '.join(low)} |")


if __name__ == "__main__":
    main()
