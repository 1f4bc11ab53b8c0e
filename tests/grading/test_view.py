"""What the sandbox shows: an allow-list (the interpreter, the libraries it
loads, its standard library and ``lib-dynload``, the runner's tree), so that
an answer cannot delegate to an installed package, or read the course's
answers, by any name or path."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from course import grading, sandbox
from tests.grading.delegation import installed_folders
from tests.grading.fixtures import (
    CHAPTER1,
    ROOT,
    notebook,
    solution_answer,
    with_answers,
)

pytestmark = pytest.mark.skipif(sandbox.problem() is not None, reason="no bwrap")


LOOK = """
import importlib.machinery, json, os, sys
folders, secrets = json.loads(sys.argv[1]), json.loads(sys.argv[2])
sys.path += folders
imported = []
for name in ("numpy", "torch", "scipy", "yaml"):
    try:
        __import__(name)
        imported.append(name)
    except ImportError:
        pass
read = []
for path in secrets:
    try:
        open(path).read()
        read.append(path)
    except OSError:
        pass
suffixes = tuple(importlib.machinery.all_suffixes())
modules = []
for folder, dirs, names in os.walk("/"):
    if folder in ("/proc", "/dev", "/sys"):
        dirs.clear()
        continue
    for name in names:
        stem = next((name[: -len(s)] for s in suffixes if name.endswith(s)), "")
        if stem.isidentifier() or name.endswith((".zip", ".whl", ".egg", ".pth")):
            modules.append(os.path.join(folder, name))
print(json.dumps({"imported": imported, "read": read, "modules": modules}))
"""


def test_the_sandbox_shows_the_standard_library_and_no_installed_package(
    tmp_path: Path,
) -> None:
    """Attack: append the folders of installed packages to ``sys.path`` and
    import NumPy or PyTorch; read the course's checks and model answers by
    their path on the grading machine. Nothing of it is there to find."""
    (tmp_path / "runner.py").write_text("", encoding="utf-8")
    solutions = sorted((ROOT / "solutions").glob("*.ipynb"))[:1]
    secrets = [str(ROOT / "course" / "checks" / "ch01.py"), *map(str, solutions)]
    assert all(Path(path).is_file() for path in secrets) and solutions
    folders = installed_folders()
    assert any((Path(f) / "numpy").is_dir() for f in folders)  # here, outside
    argv = [sandbox.interpreter(), "-I", "-S", "-c", LOOK]
    argv += [json.dumps(folders), json.dumps(secrets)]
    done = subprocess.run(
        sandbox.command(tmp_path, argv), capture_output=True, text=True, timeout=120
    )
    seen = json.loads(done.stdout)
    assert seen["imported"] == [] and seen["read"] == []
    allowed = [str(p) for p in sandbox.standard_library()] + ["/runner"]
    outside = [m for m in seen["modules"] if not m.startswith(tuple(allowed))]
    assert outside == []
    stdlib = str(sandbox.standard_library()[0])
    assert f"{stdlib}/os.py" in seen["modules"]  # the walk saw the library
    assert "/runner/runner.py" in seen["modules"]


def landlock() -> bool:
    """Whether this kernel has Landlock (which hides the runner's tree)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.syscall(444, None, ctypes.c_size_t(0), 1) > 0)  # its version


HIDDEN = """
import json, os, sys
sys.path.insert(0, "/runner")
import runner
hidden = runner.hide_the_tree()
read = []
for path in sys.argv[1:]:
    try:
        with open(path, "rb") as file:
            file.read(1)
        read.append(path)
    except OSError:
        pass
print(json.dumps({"hidden": hidden, "read": read}))
"""


@pytest.mark.skipif(not landlock(), reason="this kernel has no Landlock")
def test_a_child_reads_nothing_of_the_runners_tree_but_engine_and_data(
    tmp_path: Path,
) -> None:
    """Attack: read the grading-only case programs (or the runner) by path
    from an exercise's child. The kernel refuses; the engine and the data
    that the cases read stay readable, as does the rest of the view."""
    tree = tmp_path / "tree"
    for name in ("runner.py", "course/checks/grading_ch01.py", "course/cases.py"):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text("SECRET = 1\n", encoding="utf-8")
    for name in ("slowtorch_lib/_strides.py", "course/data/names.txt"):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text("x = 1\n", encoding="utf-8")
    (tree / "runner.py").write_text(Path("course/runner.py").read_text("utf-8"))
    paths = [f"/runner/{p}" for p in ("runner.py", "course/checks/grading_ch01.py")]
    paths += ["/runner/course/cases.py"]
    allowed = ["/runner/slowtorch_lib/_strides.py", "/runner/course/data/names.txt"]
    allowed += [f"{sandbox.standard_library()[0]}/os.py", "/proc/self/status"]
    argv = [sandbox.interpreter(), "-I", "-S", "-c", HIDDEN, *paths, *allowed]
    done = subprocess.run(
        sandbox.command(tree, argv), capture_output=True, text=True, timeout=120
    )
    assert json.loads(done.stdout) == {"hidden": True, "read": allowed}, done.stderr


def numpy_prelude() -> str:
    return (
        "import os, sys\n"
        "os.environ['OPENBLAS_NUM_THREADS'] = '1'  # no thread to notice\n"
        f"sys.path += {installed_folders()!r}\n"
        "import numpy as np\n"
    )


DELEGATING = {
    "exercise_1_5": numpy_prelude() + "def contiguous_strides(shape):\n"
    "    return tuple(s // 8 for s in np.empty(shape).strides)\n",
    "exercise_1_6": "import sys\n"
    f"sys.path += {installed_folders()!r}\n"
    "import torch as real\n"
    "def infer_shape(shape, count):\n"
    "    return tuple(real.empty(count).view(shape).shape)\n",
    "exercise_1_7": "import importlib\n"
    "course = importlib.import_module(''.join(['cou', 'rse']))\n"
    "position_list = course.substitute.original(\n"
    "    'slowtorch_lib._strides.position_list')\n",
}

HIDDEN_FORK = """
import gc, os
if os.fork() == 0:  # a helper (it could watch or change the cases)
    os._exit(0)
os.wait()
for thing in gc.get_objects():  # what the child itself noted, emptied
    if type(thing).__name__ == "Guard":
        thing.events.clear()
        thing.files.clear()
"""


@pytest.mark.skipif(
    not any((Path(f) / "numpy").is_dir() for f in installed_folders()),
    reason="no NumPy on this machine to delegate to",
)
def test_answers_that_delegate_score_nothing_and_honest_ones_full_marks(
    tmp_path: Path,
) -> None:
    """One notebook: 1.5 answered with NumPy (its folder appended to
    ``sys.path``), 1.6 with PyTorch, 1.7 by importing the course under a
    computed name; 1.8 right, but its cell made a process and emptied what
    its own process noted (the runner counts processes from outside); 1.9
    reads the model answers and the grading-only cases by path and empties
    what its process noted, else answers honestly (it scores only if every
    read fails). Beside it, the model answers score full marks."""
    model = {
        f"exercise_1_{n}": solution_answer(CHAPTER1, f"1.{n}") for n in range(8, 12)
    }
    solutions = sorted(str(p) for p in (ROOT / "solutions").glob("*.ipynb"))
    secret = "/runner/course/checks/grading_ch01.py"  # grading-only cases
    reads = (
        "import gc\n"
        f"read = []\nfor path in {[*solutions, secret]!r}:\n"
        "    try:\n        read.append(open(path).read())\n"
        "    except OSError:\n        pass\n"
        "for thing in gc.get_objects():  # what its own process noted\n"
        "    if type(thing).__name__ == 'Guard':\n"
        "        thing.files.clear()\n"
        "        thing.events.clear()\n"
        "assert not read, 'the model answers were there to read'\n"
    )
    model["exercise_1_8"] = HIDDEN_FORK + model["exercise_1_8"]
    model["exercise_1_9"] = reads + model["exercise_1_9"]
    submissions = []
    honest = {
        f"exercise_1_{n}": solution_answer(CHAPTER1, f"1.{n}") for n in range(5, 12)
    }
    for student, answers in (
        ("honest", honest),
        ("delegates", {**model, **DELEGATING}),
    ):
        path = tmp_path / student / f"{CHAPTER1}.ipynb"
        path.parent.mkdir()
        nb = with_answers(notebook("exercises", CHAPTER1), **answers)
        path.write_text(json.dumps(nb), encoding="utf-8")
        submissions.append((path, student))
    full, result = grading.grade(submissions, timeout=30)
    assert {e: g.points for e, g in full.exercises.items()} == {
        f"1.{n}": 1 for n in range(5, 12)
    }
    points = {e: round(g.points, 2) for e, g in result.exercises.items()}
    assert [points[f"1.{n}"] for n in (5, 6, 7, 8)] == [0, 0, 0, 0], points
    assert points["1.9"] == 1, points  # (1.10 and 1.11 run the pieces above)
    assert "made 1 process(es)" in result.exercises["1.8"].message
