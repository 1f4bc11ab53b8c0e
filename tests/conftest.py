"""Test-wide settings."""

from pathlib import Path

import pytest
from hypothesis import settings

# Deterministic property tests with no time limit per example: the first call
# into torch is slow, and CI machines are shared.
settings.register_profile("course", deadline=None, max_examples=60, derandomize=True)
settings.load_profile("course")


@pytest.fixture(scope="session")
def class_edition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh class edition (``python -m course release``), built once per run
    and shared by every test that reads one: a test that changes an edition
    releases its own."""
    from course import __main__ as cli

    out = tmp_path_factory.mktemp("class_edition") / "edition"
    assert cli.main(["release", str(out)]) == 0
    return out
