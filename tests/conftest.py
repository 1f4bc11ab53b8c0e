"""Test-wide settings, and the whole-pipeline fixtures built once per run."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock
from hypothesis import settings

# Deterministic property tests with no time limit per example: the first call
# into torch is slow, and CI machines are shared.
settings.register_profile("course", deadline=None, max_examples=60, derandomize=True)
settings.load_profile("course")


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """The folder ``name`` that ``build`` fills, built once per run however many
    pytest-xdist processes ask for it: the first builds it under a file lock in
    the run's temporary folder, the others wait and read it. Tests only read it."""
    base = tmp_path_factory.getbasetemp()
    if base.name.startswith("popen-gw"):  # a worker's folder, inside the run's
        base = base.parent
    folder = base / f"shared-{name}"
    done = folder / ".built"
    with FileLock(str(base / f"shared-{name}.lock")):
        if not done.is_file():
            shutil.rmtree(folder, ignore_errors=True)  # a failed build's remains
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def class_edition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh class edition (``python -m course release``), built once per run
    and shared by every test that reads one: a test that changes an edition
    releases its own."""
    from course import __main__ as cli

    def release(folder: Path) -> None:
        assert cli.main(["release", str(folder / "edition")]) == 0

    return built_once(tmp_path_factory, "class_edition", release) / "edition"
