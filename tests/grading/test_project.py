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
        "torch": "torch.repeat_interleave",
        "inputs": [{"shape": [16, 16], "low": 0, "high": 1}],
        "kwargs": {"repeats": 20_000_000},
    }
    started = time.monotonic()
    report = project.check(folder(tmp_path, "def op(x):\n    return x\n", spec))
    assert time.monotonic() - started < 60
    assert report.refused is not None and "gave no answer" in report.refused
