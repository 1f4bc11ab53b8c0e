"""The final project's automatic check: an honest operation gets every case,
and each way of getting marks without the work gets none."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from course import project, sandbox
from tests.grading.project_workspace import write_workspace

pytestmark = pytest.mark.skipif(
    sandbox.problem() is not None, reason="the project check needs bubblewrap"
)

SPEC = {
    "torch": "torch.nn.functional.mish",
    "inputs": [{"shape": [3, 4], "low": -4, "high": 4}],
    "kwargs": {},
}

MISH = """
import slowtorch_lib as torch
from slowtorch_lib.autograd.function import Function


class Mish(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.tanh(torch.log1p(torch.exp(x)))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        t = torch.tanh(torch.log1p(torch.exp(x)))
        return grad * ({slope})


def op(x):
    return Mish.apply(x)
"""
RIGHT_SLOPE = "t + x * (1 - t * t) * torch.sigmoid(x)"


def children_left() -> list[str]:
    """The project children still running (any project check's)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            line = Path(f"/proc/{pid}/cmdline").read_bytes()
            if project.CHILD.encode() in line:
                found.append(pid)
    return found


def folder(tmp_path: Path, op: str, spec: object = SPEC, name: str = "p") -> Path:
    out = tmp_path / name
    out.mkdir()
    text = spec if isinstance(spec, str) else json.dumps(spec)
    (out / "spec.json").write_text(text, encoding="utf-8")
    (out / "op.py").write_text(op, encoding="utf-8")
    return out


def test_an_honest_operation_gets_every_case(tmp_path: Path) -> None:
    report = project.check(folder(tmp_path, MISH.format(slope=RIGHT_SLOPE)))
    assert report.refused is None and report.right == [True] * 8, report.text()
    assert report.score == 1.0


def test_a_wrong_backward_gets_no_case(tmp_path: Path) -> None:
    report = project.check(folder(tmp_path, MISH.format(slope="t")))
    assert report.score == 0.0
    assert all("value right, gradients wrong" in line for line in report.lines)


@pytest.mark.parametrize(
    "attack",
    [
        # PyTorch's own function: torch is not in the sandbox
        "import torch\n\ndef op(x):\n    return torch.nn.functional.mish(x)\n",
        # a made-up answer, printed as records in every shape a guess could take
        "import sys\nfor i in range(8):\n"
        "    print(sys.argv, {'case': i, 'value': [0.0] * 12, 'shape': [3, 4]})\n"
        "def op(x):\n    return x * 0\n",
        # the answer to another question (the engine's tanh)
        "import slowtorch_lib as torch\n\ndef op(x):\n    return torch.tanh(x)\n",
    ],
    ids=["calls-torch", "forged-records", "another-op"],
)
def test_marks_without_the_work_get_nothing(tmp_path: Path, attack: str) -> None:
    report = project.check(folder(tmp_path, attack))
    assert report.refused is None and report.score == 0.0, report.text()


def test_an_error_is_named_only_if_it_is_pythons_own(tmp_path: Path) -> None:
    chosen = (
        "class Leak_abc123(Exception):\n    pass\n\ndef op(x):\n    raise Leak_abc123\n"
    )
    report = project.check(folder(tmp_path, chosen), count=2)
    assert all(line.endswith("raised an exception") for line in report.lines)
    report = project.check(
        folder(tmp_path, "def op(x):\n    return 1 / 0\n", name="q"), count=2
    )
    assert all(line.endswith("raised ZeroDivisionError") for line in report.lines)


def test_the_students_file_runs_only_in_the_sandbox(tmp_path: Path) -> None:
    marker = tmp_path / "ran-outside"
    op = f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\n"
    report = project.check(folder(tmp_path, op + MISH.format(slope=RIGHT_SLOPE)))
    assert not marker.exists()
    assert report.score == 0.0  # the write fails in the sandbox, so op.py does not load


def test_an_endless_operation_is_stopped(tmp_path: Path) -> None:
    limits = sandbox.Limits(seconds=2)
    endless = "def op(x):\n    while True:\n        pass\n"
    started = time.monotonic()
    report = project.check(folder(tmp_path, endless), count=2, limits=limits)
    assert time.monotonic() - started < 30
    assert report.lines and all(line.endswith("no answer") for line in report.lines)
    assert not children_left()  # nothing of the sandbox outlives the check


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ({**SPEC, "torch": "torch.tanh"}, "already has"),
        ({**SPEC, "torch": "torch._C._nn.mish"}, "public function"),
        ({**SPEC, "torch": "torch.no_such_op"}, "has no function"),
        ({**SPEC, "torch": "__import__('os')"}, "public function"),
        ({**SPEC, "torch": "torch.hub.load"}, "operations on tensors"),
        ({**SPEC, "torch": "torch.use_deterministic_algorithms"}, "operations on"),
        ({**SPEC, "inputs": [{"shape": [100, 100], "low": 0, "high": 1}]}, "each size"),
        ({**SPEC, "inputs": [{"shape": [2], "low": 1, "high": 1}]}, "low below"),
        ({**SPEC, "kwargs": {"x": [1, 2]}}, "kwargs"),
        ("not json {", "not JSON"),
    ],
    ids=[
        "in-engine",
        "private",
        "unknown",
        "code",
        "hub",
        "setting",
        "too-big",
        "empty-range",
        "kwargs",
        "not-json",
    ],  # fmt: skip
)
def test_a_spec_the_judge_cannot_use_is_refused_with_why(
    tmp_path: Path, spec: object, why: str
) -> None:
    report = project.check(folder(tmp_path, MISH.format(slope=RIGHT_SLOPE), spec))
    assert report.refused is not None and why in report.refused, report.text()
    assert report.score == 0.0


def test_one_bad_project_does_not_stop_the_others(tmp_path: Path) -> None:
    bad = folder(tmp_path, "def op(:\n", "not json", name="bad")
    good = folder(tmp_path, MISH.format(slope=RIGHT_SLOPE), name="good")
    done = subprocess.run(
        [sys.executable, "-m", "course", "project", str(bad), str(good)]
        + ["--cases", "3"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert f"{bad}: Not run: spec.json is not JSON" in done.stdout
    assert f"{good}: torch.nn.functional.mish: 3 of 3 cases right" in done.stdout


def test_the_briefs_suggestions_are_functions_the_engine_lacks() -> None:
    import torch

    import slowtorch_lib

    brief = (project.ROOT / "docs/final_project.md").read_text("utf-8")
    listed = brief.split("lacks today:")[1].split("One with")[0]
    names, module = [], "torch"
    for name in re.findall(r"`([\w.]+)`", listed):
        if name.startswith("torch."):
            module, name = name.rsplit(".", 1)
        names.append(f"{module}.{name}")
    assert len(names) >= 20, names
    for name in names:
        assert callable(project._resolve(torch, name)), name
        assert project._resolve(slowtorch_lib, name) is None, f"the engine has {name}"


def test_a_function_that_would_not_end_in_pytorch_stops_no_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judge asks PyTorch in a process of its own, bounded in time and
    memory: a spec whose answer would take 20 GB (and the judge's machine
    with it) is refused."""
    monkeypatch.setattr(project, "DRAW_SECONDS", 10)
    spec = {
        "torch": "torch.combinations",
        "inputs": [{"shape": [16], "low": 0, "high": 1}],
        "kwargs": {"r": 16, "with_replacement": True},
    }
    started = time.monotonic()
    report = project.check(folder(tmp_path, "def op(x):\n    return x\n", spec))
    assert time.monotonic() - started < 60
    assert report.refused is not None and "gave no answer" in report.refused


# --- the machine-checked rubric: own Function, mutants, benchmark, class engine ---

EXAMPLE = Path(__file__).parent / "final_project_example"


def example(tmp_path: Path, drop: tuple[str, ...] = (), **files: str) -> Path:
    """A copy of the example project, without the files ``drop``, with ``files``."""
    out = tmp_path / "example"
    out.mkdir()
    for path in EXAMPLE.iterdir():
        if path.suffix in (".py", ".json") and path.name != "conftest.py":
            if path.name not in drop:
                (out / path.name).write_text(path.read_text("utf-8"), "utf-8")
    for name, text in files.items():
        (out / name).write_text(text, "utf-8")
    return out


def test_a_correct_project_gets_every_machine_mark(tmp_path: Path) -> None:
    started = time.monotonic()
    report = project.check(example(tmp_path), count=4)
    took = time.monotonic() - started
    assert report.refused is None and report.right == [True] * 4, report.text()
    assert report.own, report.text()
    assert len(report.tests) == 6 and report.tests_pass
    assert report.caught == set(project.MUTANTS), report.text()
    assert report.bench_ran and report.ratios and all(r > 0 for r in report.ratios)
    assert report.marks() == {k: float(v) for k, v in project.MARKS.items()}
    assert "80 of 80 (the other 20 are read)" in report.text()
    print(report.text(), f"\none check: {took:.1f} s")


NORMALIZE = "def op(x, p=2.0, dim=1, eps=1e-12):\n    {body}\n"
AUTOGRADS = {
    # no Function at all: the gradient is autograd's through the engine's ops
    "composite": "import slowtorch_lib as torch\n\n"
    + NORMALIZE.format(
        body="return x / (x * x).sum(dim, keepdim=True).sqrt().clamp_min(eps)"
    ),
    # a Function whose backward asks autograd for the gradient of its forward
    "autograd-in-backward": """
import slowtorch_lib as torch
from slowtorch_lib.autograd import Function


def normalize(x, dim, eps):
    return x / (x * x).sum(dim, keepdim=True).sqrt().clamp_min(eps)


class Normalize(Function):
    @staticmethod
    def forward(ctx, x, dim, eps):
        ctx.save_for_backward(x)
        ctx.dim, ctx.eps = dim, eps
        return normalize(x, dim, eps)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            x = x.detach().requires_grad_()
            y = normalize(x, ctx.dim, ctx.eps)
        return torch.autograd.grad(y, x, grad)[0], None, None


def op(x, p=2.0, dim=1, eps=1e-12):
    return Normalize.apply(x, dim, eps)
""",
    # a forward that records the graph of its own ops, which backward runs
    "graph-in-forward": """
import slowtorch_lib as torch
from slowtorch_lib.autograd import Function


class Normalize(Function):
    @staticmethod
    def forward(ctx, x, dim, eps):
        with torch.enable_grad():
            inner = x.detach().requires_grad_()
            y = inner / (inner * inner).sum(dim, keepdim=True).sqrt().clamp_min(eps)
        ctx.inner, ctx.y = inner, y
        return y.detach()

    @staticmethod
    def backward(ctx, grad):
        ctx.y.backward(grad)
        return ctx.inner.grad, None, None


def op(x, p=2.0, dim=1, eps=1e-12):
    return Normalize.apply(x, dim, eps)
""",
}


@pytest.mark.parametrize("op", list(AUTOGRADS.values()), ids=list(AUTOGRADS))
def test_a_backward_that_is_autograds_is_flagged(tmp_path: Path, op: str) -> None:
    folder = example(tmp_path, drop=("test_op.py", "bench_op.py"), **{"op.py": op})
    report = project.check(folder, count=2)
    assert report.right == [True, True], report.text()  # the numbers are right...
    assert not report.own and report.marks()["own"] == 0  # ...but not by hand
    assert "gradient from your own Function: no (" in report.text()
    print(report.own_why)


SHAPES_ONLY = """
import slowtorch_lib as torch
from op import op
""" + "".join(
    f"""

def test_shape_{n}():
    x = torch.ones({n}, 3, requires_grad=True)
    y = op(x, dim=0)
    y.sum().backward()
    assert y.shape == x.shape and x.grad.shape == x.shape
"""
    for n in range(1, 6)
)


def test_tests_that_catch_nothing_get_nothing_for_the_mutants(tmp_path: Path) -> None:
    folder = example(
        tmp_path, drop=("test_op.py", "bench_op.py"), **{"test_op.py": SHAPES_ONLY}
    )
    report = project.check(folder, count=1)
    assert report.tests_pass and len(report.tests) == 5, report.text()
    assert report.caught == set() and report.marks()["mutants"] == 0
    assert report.marks()["tests"] == project.MARKS["tests"]
    assert "mutants caught by the suite: 0 of 6" in report.text()


STUBS_IN_PLACE = """
import slowtorch_lib
from slowtorch_lib import _class


def test_the_engine_is_the_class_engine_with_my_pieces():
    assert _class.saved_pieces.loaded() == {written!r}


def test_an_unwritten_piece_is_its_stub():
    for make in (
        lambda: slowtorch_lib.nn.Conv2d(1, 1, 3),
        lambda: slowtorch_lib.nn.functional.cross_entropy(
            slowtorch_lib.zeros(2, 3), slowtorch_lib.tensor([0, 1])
        ),
    ):
        try:
            make()
        except NotImplementedError as error:
            assert "is not written yet" in str(error)
        else:
            raise AssertionError("a model answer is in the engine")
"""


def test_on_a_class_engine_the_project_runs_on_the_students_pieces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a student's workspace, the sandbox holds the class engine (every
    piece a stub) and their pieces only: the project runs on what they wrote,
    and a piece they have not written is still its stub there."""
    workspace = tmp_path / "my_engine"
    written = write_workspace(workspace)
    assert "2.10" in written and not [w for w in written if w[0] > "2"]
    seen: list[str] = []
    tree_of = project.project_tree

    def spied(dest: Path, folder: Path, found: Path | None) -> Path:
        tree = tree_of(dest, folder, found)
        engine = (tree / "slowtorch_lib/autograd/engine.py").read_text("utf-8")
        seen.append(engine)
        return tree

    monkeypatch.setattr(project, "project_tree", spied)
    probe = STUBS_IN_PLACE.format(written=written)
    folder = example(
        tmp_path, drop=("test_op.py", "bench_op.py"), **{"test_stubs.py": probe}
    )
    report = project.check(folder, count=2, workspace=workspace)
    assert report.right == [True, True] and report.own, report.text()
    assert report.tests_pass, report.text()
    assert "exercise 2.10, `run_backward`, is not written yet" in seen[0]


def test_without_the_students_pieces_the_class_engine_stops_at_a_stub(
    tmp_path: Path,
) -> None:
    folder = example(tmp_path, drop=("test_op.py", "bench_op.py"))
    empty = tmp_path / "my_engine"
    empty.mkdir()
    report = project.check(folder, count=1, workspace=empty)
    assert report.right == [False]
    assert report.lines[0].endswith("raised NotImplementedError")  # the stub's
