"""Print options, as notebooks set them to look at their tensors.

``torch.set_printoptions`` changes every later ``print``; a program that
shows weights with two decimals, a long tensor in full, or numbers without
scientific notation sets it first (and here sets it back at the end).
"""

from __future__ import annotations

from typing import Any


def run(torch: Any) -> dict[str, Any]:
    weights = torch.tensor([[0.123456, -1.5, 2.0], [3.25e-3, 10.0, -0.5]])
    long = torch.arange(30.0) / 3
    tiny = torch.tensor([1e-6, 2.5e-5, 1.0])
    shown = {}
    try:
        shown["default"] = [repr(weights), repr(long), repr(tiny)]
        torch.set_printoptions(precision=2)
        shown["precision_2"] = [repr(weights), repr(tiny)]
        torch.set_printoptions(threshold=10, edgeitems=2)
        shown["summarised"] = repr(long)
        torch.set_printoptions(profile="full", linewidth=40)
        shown["full_narrow"] = repr(long)
        torch.set_printoptions(sci_mode=False, precision=6)
        shown["no_sci"] = repr(tiny)
        torch.set_printoptions(profile="short")
        shown["short"] = [repr(weights), repr(torch.arange(2000.0).view(40, 50))]
    finally:
        torch.set_printoptions(profile="default", sci_mode=None)
    shown["restored"] = repr(weights)
    return shown
