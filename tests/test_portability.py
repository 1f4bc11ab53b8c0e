"""The engine on other Python versions: it imports, computes, and draws the
same random numbers for the same seed (the generator is our own arithmetic).

Runs with every interpreter from 3.10 on that is installed next to this one;
skips the versions that are not there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """
import slowtorch_lib as torch
torch.manual_seed(1234)
print(torch.rand(3).tolist(), torch.randn(2, dtype=torch.float64).tolist())
print(torch.randint(0, 100, (4,)).tolist(), torch.randperm(5).tolist())
x = torch.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
((x @ x).sigmoid() * x).sum().backward()
print(x.grad.tolist())
print(repr(x.detach() / 3))
"""

VERSIONS = ["3.10", "3.11", "3.12", "3.13"]


def _find(version: str) -> str | None:
    """An interpreter of this version: on the PATH, or one that pyenv keeps."""
    candidates = [shutil.which(f"python{version}")]
    candidates += sorted(
        str(p)
        for p in Path.home().glob(f".pyenv/versions/{version}.*/bin/python{version}")
    )
    for candidate in candidates:
        if candidate is None:
            continue
        probe = subprocess.run(
            [candidate, "-c", "print(1)"], capture_output=True, timeout=60
        )
        if probe.returncode == 0:
            return candidate
    return None


def _run(python: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [python, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("version", VERSIONS)
def test_same_numbers_on_every_python(version: str) -> None:
    other = _find(version)
    if other is None:
        pytest.skip(f"python{version} is not installed here")
    assert _run(other) == _run(sys.executable)
