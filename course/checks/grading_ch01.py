"""Chapter 1: grading-only cases (left out of a student release).

Same form as the public cases in ``ch01.py``; the grader runs both.
"""

from __future__ import annotations

from typing import Any

from course.checking import Case
from course.checks.ch01 import (
    layout,
    picked,
    reshaped,
    reshaped_copy,
    viewed,
    x3,
    x34,
    x234,
)


def cube(torch: Any) -> Any:
    return torch.arange(60.0).reshape(3, 4, 5)


CASES = {
    "1.9": [
        Case(
            "torch.arange(4.).reshape(1, 4, 1).expand(2, 3, -1, 5)",
            lambda t: layout(t.arange(4.0).reshape(1, 4, 1).expand(2, 3, -1, 5)),
        ),
        Case(
            "torch.zeros(2, 1).expand(1, 2, 1, 3)",
            lambda t: layout(t.zeros(2, 1).expand(1, 2, 1, 3)),
        ),
    ],
    "1.10": [
        Case("x[1, None, -1]", picked(lambda x: x[1, None, -1])),
        Case("x[..., ::3, None]", picked(lambda x: x[..., ::3, None])),
        Case("x[-2:, 2:0:-1]", picked(lambda x: x[-2:, 2:0:-1])),
        Case("x[0, 3]", picked(lambda x: x[0, 3])),
        Case("x[:, None, 1, 1:]", picked(lambda x: x[:, None, 1, 1:])),
    ],
    "1.11": [
        Case("x[[1], :, [0, 2]]", lambda t: x234(t)[[1], :, [0, 2]]),
        Case(
            "x[:, torch.tensor([[2, 1], [0, 0]])]",
            lambda t: x234(t)[:, t.tensor([[2, 1], [0, 0]])],
        ),
        Case(
            "x[[0, -3], [1, 1], [3, -4]]", lambda t: x234(t)[[0, -3], [1, 1], [3, -4]]
        ),
    ],
    "1.5": [
        Case(
            "torch.zeros(5, 1, 2, 3).stride()", lambda t: t.zeros(5, 1, 2, 3).stride()
        ),
        Case(
            "torch.arange(60.).reshape(3, 4, 5).permute(2, 0, 1).contiguous()",
            lambda t: layout(cube(t).permute(2, 0, 1).contiguous()),
        ),
        Case(
            "torch.ones(2, 3, 1) * torch.ones(4)",
            lambda t: layout(t.ones(2, 3, 1) * t.ones(4)),
        ),
    ],
    "1.6": [
        Case("torch.arange(12.).reshape(-1, 2, 2).shape", reshaped((-1, 2, 2))),
        Case("torch.arange(12.).reshape(1, -1, 1).shape", reshaped((1, -1, 1))),
        Case("torch.arange(12.).reshape(0, -1)", reshaped((0, -1))),
    ],
    "1.7": [
        Case(
            "torch.arange(3.).reshape(3, 1).expand(3, 4).tolist()",
            lambda t: t.arange(3.0).reshape(3, 1).expand(3, 4).tolist(),
        ),
        Case(
            "cube.permute(1, 2, 0).tolist()",
            lambda t: cube(t).permute(1, 2, 0).tolist(),
        ),
        Case("cube[1:, ::2, 1::3] + 0", lambda t: cube(t)[1:, ::2, 1::3] + 0),
        Case("x.t()[::2].sum(1)", lambda t: x34(t).t()[::2].sum(1)),
    ],
    "1.8": [
        Case(
            "cube.transpose(0, 1).view(4, 15)",
            viewed(lambda t: cube(t).transpose(0, 1), (4, 15)),
        ),
        Case("cube[:, 1:3].view(3, 10)", viewed(lambda t: cube(t)[:, 1:3], (3, 10))),
        Case(
            "x.permute(1, 2, 0).reshape(12, 2)",
            reshaped_copy(lambda t: x3(t).permute(1, 2, 0), (12, 2)),
        ),
        Case(
            "x.unsqueeze(1).view(2, 3, 4)",
            viewed(lambda t: x3(t).unsqueeze(1), (2, 3, 4)),
        ),
    ],
}
