"""Made-up submissions for the grading tests, built from the generated notebooks.

Each fixture is a student folder holding one notebook (and its expected
outcome, which the tests assert). They are built from ``solutions/`` and
``exercises/`` so that they follow the exercises when those change; only the
not-a-notebook file is kept as it is (``not_json.ipynb`` here).

``python -m tests.grading.fixtures OUT/`` writes them, for a manual
``python -m course grade OUT/``.
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CHAPTER1 = "01_arrays_to_tensors"
CHAPTER2 = "02_walking_backwards"
CHAPTER3 = "03_building_blocks"
CHAPTER4 = "04_optimisation"
CHAPTER5 = "05_windows"
CHAPTER6 = "06_attention"


def notebook(folder: str, chapter: str) -> dict[str, Any]:
    path = ROOT / folder / f"{chapter}.ipynb"
    return json.loads(path.read_text(encoding="utf-8"))


def cell_with(nb: dict[str, Any], tag: str) -> dict[str, Any]:
    return next(c for c in nb["cells"] if tag in c.get("metadata", {}).get("tags", []))


def with_answers(base: dict[str, Any], **sources: str) -> dict[str, Any]:
    """``base`` with the answer cells of some exercises replaced:
    ``exercise_1_5="def contiguous_strides(shape): ..."``."""
    nb = copy.deepcopy(base)
    for key, source in sources.items():
        role, chapter, number = key.split("_")
        cell_with(nb, f"{role}-{chapter}.{number}")["source"] = source
    return nb


def solution_answer(chapter: str, exercise: str) -> str:
    return "".join(
        cell_with(notebook("solutions", chapter), f"exercise-{exercise}")["source"]
    )


WRONG_STRIDES = """\
def contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.insert(0, step)
        step *= size
    return tuple(strides)
"""

BUGGY_POSITIONS = """\
def position_list(shape, strides, offset):
    found = [offset]
    for size, stride in zip(reversed(shape), reversed(strides)):
        found = [start + i * stride for start in found for i in range(size)]
    return found
"""


def partial() -> dict[str, Any]:
    """Some right, some partly right, some blank."""
    blank = notebook("exercises", CHAPTER1)
    views = solution_answer(CHAPTER1, "1.1").replace(
        '"x.t().reshape(12)": "copy"', '"x.t().reshape(12)": "view"'
    )
    return with_answers(
        blank,
        exercise_1_1=views,
        exercise_1_5=WRONG_STRIDES,
        exercise_1_6=solution_answer(CHAPTER1, "1.6"),
        exercise_1_7=BUGGY_POSITIONS,
        exercise_1_8=solution_answer(CHAPTER1, "1.8"),
    )


def imports_reference() -> dict[str, Any]:
    blank = notebook("exercises", CHAPTER1)
    return with_answers(
        blank,
        exercise_1_5="from slowtorch_lib._strides import contiguous_strides\n",
        exercise_1_6="from course.checks.ch01 import *\n"
        + solution_answer(CHAPTER1, "1.6"),
        exercise_1_7="import solutions\n",
        exercise_1_8="view_strides = torch.ops.views.view_strides\n",
        exercise_1_4=(
            "import importlib\nimportlib.import_module('torch')\nanswers_1_4 = {}\n"
        ),
    )


def chapter3_references() -> dict[str, Any]:
    """Chapter 3's pieces taken from the engine: a method of Module, a helper
    that holds the answer, a backward rule and a function of serialization."""
    blank = notebook("exercises", CHAPTER3)
    return with_answers(
        blank,
        exercise_3_4="elu_backward = torch.nn.functional.activation.Elu.backward\n",
        exercise_3_5=(
            "import math\n"
            "def kaiming_std(tensor, a, mode, nonlinearity):\n"
            "    fan = torch.nn.init._calculate_correct_fan(tensor, mode)\n"
            "    return torch.nn.init.calculate_gain(nonlinearity, a) / "
            "math.sqrt(fan)\n"
        ),
        exercise_3_7=(
            "def named_members(self, home, prefix, recurse, remove_duplicate):\n"
            "    walk = torch.nn.Module._named_members\n"
            "    return walk(self, home, prefix, recurse, remove_duplicate)\n"
        ),
        exercise_3_9=solution_answer(CHAPTER3, "3.9"),
        exercise_3_10="from slowtorch_lib.safetensors import check_entries\n",
    )


def hidden_reference() -> dict[str, Any]:
    """The engine's own function reached without naming it in an import."""
    blank = notebook("exercises", CHAPTER1)
    sneaky = (
        "import slowtorch_lib._strides as s\n"
        "_mine = getattr(s, 'posit' + 'ion_list')\n"
        "def position_list(shape, strides, offset):\n"
        "    return _mine(shape, strides, offset)\n"
    )
    return with_answers(blank, exercise_1_7=sneaky)


FAKE_CHECK = """\
def check(exercise, answer):
    print(f"exercise {exercise}: all right!")

check("1.5", None)
"""


def redefined_check() -> dict[str, Any]:
    nb = notebook("exercises", CHAPTER1)
    setup = cell_with(nb, "setup")
    setup["source"] = "".join(setup["source"]) + "\n\n" + FAKE_CHECK
    return with_answers(
        nb,
        exercise_1_5=FAKE_CHECK + "\ndef contiguous_strides(shape):\n"
        "    raise NotImplementedError\n",
    )


PATCHING = """\
import sys
checking = sys.modules["course.checking"]
checking.close = lambda expected, got: True
checking.evaluate.__globals__["close"] = lambda expected, got: True
sys.modules["slowtorch_lib._tensor"].Tensor.stride = lambda self, dim=None: (3, 3, 1)
try:
    with open(checking.PUBLIC_FILE, "w") as file:
        file.write("{}")
except OSError:
    pass  # the grader's files are read-only in the sandbox
"""


def monkey_patched() -> dict[str, Any]:
    blank = notebook("exercises", CHAPTER1)
    return with_answers(
        blank,
        exercise_1_5=PATCHING + WRONG_STRIDES,
        exercise_1_6=solution_answer(CHAPTER1, "1.6"),
        exercise_1_7=BUGGY_POSITIONS,
        exercise_1_8=solution_answer(CHAPTER1, "1.8"),
    )


def endless_loop() -> dict[str, Any]:
    nb = notebook("solutions", CHAPTER1)
    return with_answers(nb, exercise_1_6="while True:\n    pass\n")


def kernel_exit() -> dict[str, Any]:
    nb = notebook("solutions", CHAPTER1)
    return with_answers(nb, exercise_1_6="import os\nos._exit(3)\n")


def moved_cells() -> dict[str, Any]:
    nb = notebook("solutions", CHAPTER1)
    cells = nb["cells"]
    check_15 = cell_with(nb, "check-1.5")
    cells.remove(check_15)
    check_16 = cell_with(nb, "check-1.6")
    cells.remove(check_16)
    cells.insert(cells.index(cell_with(nb, "exercise-1.6")), check_16)
    untagged = cell_with(nb, "exercise-1.7")
    untagged["metadata"] = {}
    untagged["id"] = "renamed"
    return nb


def jupyterlite() -> dict[str, Any]:
    """As JupyterLite saves it: another kernel, other metadata, sources as lists."""
    nb = notebook("solutions", CHAPTER2)
    nb["metadata"] = {
        "kernelspec": {
            "display_name": "Python (Pyodide)",
            "language": "python",
            "name": "python",
        },
        "language_info": {
            "codemirror_mode": {"name": "python", "version": 3},
            "file_extension": ".py",
            "mimetype": "text/x-python",
            "name": "python",
            "nbconvert_exporter": "python",
            "pygments_lexer": "ipython3",
            "version": "3.12.1",
        },
    }
    for cell in nb["cells"]:
        cell["source"] = "".join(cell["source"]).splitlines(keepends=True)
        cell.setdefault("metadata", {})["trusted"] = True
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    nb["nbformat_minor"] = 5
    return nb


# student -> (chapter, builder): None means the file is copied from here.
FIXTURES: dict[str, tuple[str, Callable[[], dict[str, Any]] | None]] = {
    "full1": (CHAPTER1, lambda: notebook("solutions", CHAPTER1)),
    "full2": (CHAPTER2, lambda: notebook("solutions", CHAPTER2)),
    "full3": (CHAPTER3, lambda: notebook("solutions", CHAPTER3)),
    "imports3": (CHAPTER3, chapter3_references),
    "full4": (CHAPTER4, lambda: notebook("solutions", CHAPTER4)),
    "full5": (CHAPTER5, lambda: notebook("solutions", CHAPTER5)),
    "full6": (CHAPTER6, lambda: notebook("solutions", CHAPTER6)),
    "blank": (CHAPTER1, lambda: notebook("exercises", CHAPTER1)),
    "partial": (CHAPTER1, partial),
    "imports": (CHAPTER1, imports_reference),
    "hidden_import": (CHAPTER1, hidden_reference),
    "redefined_check": (CHAPTER1, redefined_check),
    "monkey_patch": (CHAPTER1, monkey_patched),
    "endless_loop": (CHAPTER1, endless_loop),
    "kernel_exit": (CHAPTER1, kernel_exit),
    "moved_cells": (CHAPTER1, moved_cells),
    "jupyterlite": (CHAPTER2, jupyterlite),
    "not_json": (CHAPTER1, None),
}


# student -> the chapters whose solved notebooks they hand in too. The class
# engine is all stubs: a chapter's cases run on the student's own answers to
# the earlier chapters' pieces (the strides of 1.5 in every tensor...), as in
# their notebook, where those pieces are saved when they pass.
EARLIER: dict[str, tuple[str, ...]] = {
    "full2": (CHAPTER1,),
    "full3": (CHAPTER1, CHAPTER2),
    "imports3": (CHAPTER1, CHAPTER2),
    "full4": (CHAPTER1, CHAPTER2, CHAPTER3),
    "full5": (CHAPTER1, CHAPTER2, CHAPTER3, CHAPTER4),
    "full6": (CHAPTER1, CHAPTER2, CHAPTER3, CHAPTER4, CHAPTER5),
    "jupyterlite": (CHAPTER1,),
}


def write(out: Path) -> list[Path]:
    """Writes every fixture as ``out/<student>/NN_name.ipynb`` (and the
    solved earlier chapters of :data:`EARLIER`)."""
    written = []
    for student, (chapter, build) in FIXTURES.items():
        path = out / student / f"{chapter}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        if build is None:
            shutil.copy(HERE / "not_json.ipynb", path)
        else:
            path.write_text(json.dumps(build(), indent=1) + "\n", encoding="utf-8")
        written.append(path)
        for earlier in EARLIER.get(student, ()):
            shutil.copy(ROOT / "solutions" / f"{earlier}.ipynb", path.parent)
            written.append(path.parent / f"{earlier}.ipynb")
    return written


if __name__ == "__main__":
    for written_path in write(Path(sys.argv[1])):
        print(written_path)
