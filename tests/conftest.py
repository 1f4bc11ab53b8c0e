"""Test-wide settings."""

from hypothesis import settings

# Deterministic property tests with no time limit per example: the first call
# into torch is slow, and CI machines are shared.
settings.register_profile("course", deadline=None, max_examples=60, derandomize=True)
settings.load_profile("course")
