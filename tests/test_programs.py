"""The programs of ``tests/programs`` run the same under the engine and PyTorch.

Each program returns a dict of numbers, strings and flags; floats are
compared with a tolerance (the float32 arithmetic is done in another order),
everything else exactly.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import pytest

import slowtorch_lib

torch = pytest.importorskip("torch")

PROGRAMS = [
    "quickstart",
    "bigram_counts",
    "neural_bigram",
    "mlp_language_model",
    "small_gpt",
    "tensors_tutorial",
    "autograd_tutorial",
    "names_gpt",
    "names_transformer",
    "name_lstm",
    "loader_workers",
    "sharded_stream",
    "numpy_pipeline",
    "printing_tour",
    "mixed_precision_cpu",
    "device_setup",
    "cpu_autocast_checkpoint",
    "digits_cnn",
    "seeded_softmax_regression",
    "legacy_tutorial",
    "checkpoint_whole_model",
    "grouped_query_attention",
    "policy_gradient",
    "vae_reparam",
    "gaussian_fit",
    "sparse_gcn",
]

# The programs that need NumPy (skipped without it).
NEEDS_NUMPY = {"tensors_tutorial", "numpy_pipeline", "cpu_autocast_checkpoint"}


def assert_close(ours: Any, theirs: Any, where: str) -> None:
    """Compares nested results: floats to 1e-4 relative, the rest exactly."""
    if isinstance(theirs, float) or isinstance(ours, float):
        assert math.isclose(ours, theirs, rel_tol=1e-4, abs_tol=1e-5), (
            where,
            ours,
            theirs,
        )
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs), (where, ours, theirs)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_close(a, b, f"{where}[{i}]")
    elif isinstance(theirs, dict):
        assert ours.keys() == theirs.keys(), where
        for key in theirs:
            assert_close(ours[key], theirs[key], f"{where}.{key}")
    else:
        assert ours == theirs, (where, ours, theirs)


# PyTorch's own ``__array__`` warns under NumPy 2 (it takes no ``copy``).
@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name: str) -> None:
    if name in NEEDS_NUMPY:
        pytest.importorskip("numpy")
    program = importlib.import_module(f"tests.programs.{name}")
    assert_close(program.run(slowtorch_lib), program.run(torch), name)
