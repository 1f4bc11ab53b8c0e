"""One small training problem, run the same way by slowtorch_lib and torch.

A one-layer tanh network fitted to fixed targets by squared error: enough
curvature that momentum and adaptive step sizes matter, small enough to run
25 steps of every optimiser in a moment.
"""

from __future__ import annotations

import math
from typing import Any

X = [[math.sin(1.3 * i + j) for j in range(3)] for i in range(5)]
Y = [[math.cos(0.7 * i - j) * 0.8 for j in range(4)] for i in range(5)]
W0 = [[0.3 * math.sin(2.1 * i - 1.7 * j + 0.4) for j in range(4)] for i in range(3)]
B0 = [0.1 * math.cos(1.1 * j) for j in range(4)]
UNUSED0 = [0.5, -0.25]


def make_params(lib: Any) -> dict[str, Any]:
    """Fresh leaf tensors: ``w`` (3x4), ``b`` (4) and ``unused`` (no gradient)."""
    return {
        "w": lib.tensor(W0, requires_grad=True),
        "b": lib.tensor(B0, requires_grad=True),
        "unused": lib.tensor(UNUSED0, requires_grad=True),
    }


def loss_of(lib: Any, params: dict[str, Any]) -> Any:
    """Mean squared error of ``tanh(x @ w + b)`` against the targets."""
    x, y = lib.tensor(X), lib.tensor(Y)
    prediction = (x @ params["w"] + params["b"]).tanh()
    return ((prediction - y) ** 2).sum() / 5


def values(params: dict[str, Any]) -> dict[str, Any]:
    return {name: tensor.tolist() for name, tensor in params.items()}


def flat(value: Any) -> list[float]:
    if isinstance(value, dict):
        return [x for key in sorted(value) for x in flat(value[key])]
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in flat(item)]
    return [value]


def assert_close(
    ours: Any, theirs: Any, rtol: float = 1e-4, atol: float = 1e-5
) -> None:
    a, b = flat(ours), flat(theirs)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert math.isclose(x, y, rel_tol=rtol, abs_tol=atol), (x, y, a, b)
