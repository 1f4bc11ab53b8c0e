"""Other paths of the engine that would compute a piece: in a class edition
they are routed through the student's piece, or the check and the grader
refuse an answer that names them (``not_to_use``)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from course import edition
from course.checking import engine_parts_used
from course.checks import ch02, ch03, ch04, ch06
from tests.grading.delegation import DELEGATING
from tests.grading.fixtures import solution_answer

CHAPTERS = {
    "2": (ch02, "02_walking_backwards"),
    "3": (ch03, "03_building_blocks"),
    "4": (ch04, "04_optimisation"),
    "6": (ch06, "06_attention"),
}


def answer(tmp_path: Path, name: str, source: str, function: str) -> object:
    """The function ``function`` defined by ``source``, from a file (so that
    its source can be read, as a notebook's cell can)."""
    path = tmp_path / f"{name}.py"
    path.write_text("import slowtorch_lib as torch\n" + source, "utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, function)


def test_the_check_refuses_an_answer_that_calls_another_engine_path(
    tmp_path: Path,
) -> None:
    """Attack: 2.8 as a scatter, 3.9 by autograd through softmax and log, 4.9
    through the other sampler, 6.2 as ``nan_to_num`` of the engine's softmax.
    The notebook's check names the path (as the grader does, which gives 0);
    the model answers name none."""
    for exercise_id in ("2.8", "3.9", "4.9", "6.2"):
        chapter, notebook = CHAPTERS[exercise_id.split(".")[0]]
        exercise = chapter.EXERCISES[exercise_id]
        stem = exercise_id.replace(".", "_")
        delegating = DELEGATING[exercise_id.split(".")[0]][exercise_id]
        cheat = answer(tmp_path, f"cheat_{stem}", delegating, exercise.name)
        assert engine_parts_used(exercise, cheat), exercise_id
        model = solution_answer(notebook, exercise_id)
        honest = answer(tmp_path, f"model_{stem}", model, exercise.name)
        assert engine_parts_used(exercise, honest) == [], exercise_id


UNFOLD = """
import json, sys
import slowtorch_lib as torch
fold = sys.modules["slowtorch_lib.nn.functional.fold"]
exec(sys.argv[1])  # the model's windows
fold.windows = windows
found = []
for shape, dim, size, step, swap in json.loads(sys.argv[3]):
    n = 1
    for s in shape:
        n *= s
    x = torch.arange(float(n)).reshape(shape)
    x = x.t() if swap else x
    y = x.unfold(dim, size, step)
    found.append([list(y.shape), list(y.stride()), y.tolist()])
exec(sys.argv[2])  # windows as two Tensor.unfold calls
fold.windows = windows
try:
    windows(torch.zeros(1, 1, 5, 5), (2, 2), (1, 1), (1, 1))
    found.append("unfold answered")
except RecursionError:
    found.append("unfold asked the answer itself")
print(json.dumps(found))
"""


def test_a_class_editions_unfold_asks_the_students_windows(tmp_path: Path) -> None:
    """Attack: exercise 5.4 answered by two ``Tensor.unfold`` calls (it
    scored 0.70, then full marks). In a class edition ``Tensor.unfold`` takes
    its windows' count and strides from the student's ``windows``, so that
    answer calls itself without end; with the model's ``windows``,
    ``Tensor.unfold`` gives PyTorch's shapes, strides and values."""
    import torch

    given = {e.id for e in edition.pieces()} - {"5.4"}
    edition.write_engine(tmp_path, given, load_saved=False)
    model = solution_answer("05_windows", "5.4")
    cases = [
        [[10], 0, 4, 2, False],
        [[3, 5], 1, 3, 1, False],
        [[4, 5], 1, 2, 1, True],
        [[2, 0, 3], 1, 0, 1, False],
        [[3], 0, 3, 5, False],
    ]
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            UNFOLD,
            model,
            DELEGATING["5"]["5.4"],
            json.dumps(cases),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found[-1] == "unfold asked the answer itself"
    for (shape, dim, size, step, swap), got in zip(cases, found, strict=False):
        x = torch.arange(float(torch.tensor(shape).prod())).reshape(shape)
        y = (x.t() if swap else x).unfold(dim, size, step)
        assert got == [list(y.shape), list(y.stride()), y.tolist()], shape
