"""python -m slowtorch_lib.coverage: counts against torch, and the recorded list."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from slowtorch_lib import coverage

ROOT = Path(__file__).resolve().parent.parent


def test_recorded_list_is_torchs_own() -> None:
    torch = pytest.importorskip("torch")
    recorded = json.loads(coverage.RECORD.read_text())
    names, _ = coverage.torch_names()
    assert recorded["version"] == torch.__version__
    assert recorded["names"] == names


def test_has_and_lacks_are_true() -> None:
    names = json.loads(coverage.RECORD.read_text())["names"]
    found = coverage.coverage(names)
    has, lacks = found["torch"]
    assert {"tensor", "zeros", "manual_seed", "set_printoptions"} <= set(has)
    import slowtorch_lib

    assert not any(hasattr(slowtorch_lib, name) for name in lacks)
    assert "DataLoader" in found["torch.utils.data"][0]
    assert len(has) + len(lacks) == len(names["torch"])


def test_the_command_prints_counts_without_torch(tmp_path: Path) -> None:
    # A 'torch' that cannot be imported: the recorded list is used.
    (tmp_path / "torch.py").write_text("raise ImportError('no torch here')\n")
    blocker = "import importlib.util as u; u.find_spec = lambda name, *a: None"
    code = f"{blocker}; from slowtorch_lib.coverage import main; main(['torch.optim'])"
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "recorded list" in run.stdout
    assert "torch.optim" in run.stdout and "lacks" in run.stdout


def test_the_engine_module_imports_only_the_standard_library() -> None:
    tree = ast.parse(Path(coverage.__file__).read_text())
    top = {
        alias.name.split(".")[0]
        for node in tree.body
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert top <= set(sys.stdlib_module_names)


def test_distributions_are_listed_as_they_are() -> None:
    from slowtorch_lib import distributions

    names = json.loads(coverage.RECORD.read_text())["names"]
    has, lacks = coverage.coverage(names)["torch.distributions"]
    assert {"Normal", "Categorical", "Independent", "kl_divergence"} <= set(has)
    assert all(hasattr(distributions, name) for name in has)
    assert not any(hasattr(distributions, name) for name in lacks)
    assert len(has) + len(lacks) == len(names["torch.distributions"])
