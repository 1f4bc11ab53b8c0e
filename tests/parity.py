"""Shared helpers for comparing slowtorch_lib with real PyTorch.

Every parity test builds the same inputs in both libraries, runs the same
code, and compares with :func:`assert_same`. Tests that need torch import it
through :func:`require_torch`, so the torch-free tests (finite differences)
still run where torch is not installed.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st

DTYPE_NAMES = ("float32", "float64", "int64", "bool")

# Tolerances per dtype for values computed by different algorithms
# (sums in another order, transcendental functions with other rounding).
TOLERANCES = {"float32": (1e-5, 1e-6), "float64": (1e-10, 1e-12)}


def require_torch() -> Any:
    """Imports torch or skips the test."""
    return pytest.importorskip("torch")


def to_torch(tensor: st.Tensor, requires_grad: bool | None = None) -> Any:
    """The same values, shape and dtype as a torch tensor (a leaf)."""
    torch = require_torch()
    result = torch.tensor(tensor.tolist(), dtype=getattr(torch, tensor.dtype.name))
    if requires_grad if requires_grad is not None else tensor.requires_grad:
        result.requires_grad_(True)
    return result


def from_torch(tensor: Any) -> st.Tensor:
    """The same values, shape and dtype as a slowtorch tensor."""
    name = str(tensor.dtype).replace("torch.", "")
    return st.tensor(
        tensor.detach().tolist(), dtype=getattr(st, name if name != "bool" else "bool")
    )


def fused_narrow_kernels(dtype: str) -> bool:
    """Whether this CPU runs PyTorch's oneDNN kernels in ``dtype``
    (``"bfloat16"`` or ``"float16"``).

    With them (CPUs with AVX-512 BF16/FP16 or AMX), PyTorch's convolutions
    add in float32 and round once, as the engine does, and its fused LSTM
    runs under autocast. Without them (AVX2 only) PyTorch falls back to
    kernels that round partial sums on the way (the overlapping windows of a
    gradient, each sample's share of a weight's gradient), and its bfloat16
    LSTM refuses to run.
    """
    torch = require_torch()
    supported = {
        "bfloat16": torch.ops.mkldnn._is_mkldnn_bf16_supported,
        "float16": torch.ops.mkldnn._is_mkldnn_fp16_supported,
    }[dtype]
    return bool(supported())


# One rounding step of each narrow dtype, as a fraction of a value: the
# most two kernels that round at different points may differ by.
NARROW_STEP = {"bfloat16": 2.0**-7, "float16": 2.0**-10}


def largest_difference(ours: Any, theirs: Any) -> float:
    """The largest difference of two nested lists of numbers, as a fraction
    of the largest value."""
    mine, other = _flat(ours), _flat(theirs)
    assert len(mine) == len(other)
    scale = max(abs(value) for value in other) or 1.0
    return max(abs(a - b) for a, b in zip(mine, other)) / scale


def _flat(values: Any) -> list[Any]:
    if not isinstance(values, list):
        return [values]
    out: list[Any] = []
    for v in values:
        out.extend(_flat(v))
    return out


def assert_same(
    ours: st.Tensor,
    theirs: Any,
    rtol: float | None = None,
    atol: float | None = None,
    exact: bool = False,
) -> None:
    """Asserts same shape, same dtype and equal (or close) values.

    Args:
        ours: A slowtorch tensor.
        theirs: A torch tensor.
        rtol, atol: Tolerances; by default those of the dtype in TOLERANCES.
        exact: Require bit-equal values (nan equals nan).
    """
    assert isinstance(ours, st.Tensor), f"expected a slowtorch Tensor, got {type(ours)}"
    assert tuple(ours.shape) == tuple(theirs.shape), (
        f"shape {tuple(ours.shape)} != torch's {tuple(theirs.shape)}"
    )
    their_dtype = str(theirs.dtype).replace("torch.", "")
    assert ours.dtype.name == their_dtype, (
        f"dtype {ours.dtype.name} != torch's {their_dtype}"
    )
    mine = _flat(ours.tolist())
    other = _flat(theirs.detach().tolist())
    default_rtol, default_atol = TOLERANCES.get(their_dtype, (0.0, 0.0))
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    for i, (a, b) in enumerate(zip(mine, other)):
        if (
            isinstance(a, float)
            and math.isnan(a)
            and isinstance(b, float)
            and math.isnan(b)
        ):
            continue
        if exact or not isinstance(b, float):
            assert a == b, f"element {i}: {a!r} != torch's {b!r}"
        else:
            assert math.isclose(a, b, rel_tol=rtol, abs_tol=atol) or a == b, (
                f"element {i}: {a!r} != torch's {b!r} (rtol={rtol}, atol={atol})"
            )


def both(run: Callable[[Any], Any]) -> tuple[Any, Any]:
    """``run(slowtorch_lib)`` and ``run(torch)``: the same code in both."""
    torch = require_torch()
    return run(st), run(torch)


def error_of(run: Callable[[Any], Any], lib: Any) -> tuple[type, str]:
    """The exception type and message that ``run(lib)`` raises.

    The engine's messages may end with a hint for students (``" Hint: ..."``);
    it is left out, so that the rest can be compared with torch's message.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            run(lib)
        except Exception as error:  # noqa: BLE001 - any error is compared
            return type(error), str(error).split(" Hint:")[0]
    raise AssertionError(f"{getattr(lib, '__name__', lib)} raised no error")


def same_error(run: Callable[[Any], Any], match_message: bool = True) -> str:
    """Asserts both libraries raise the same exception type (and message).

    Returns:
        The engine's message.
    """
    torch = require_torch()
    ours, theirs = error_of(run, st), error_of(run, torch)
    assert ours[0] is theirs[0], (ours, theirs)
    if match_message:
        assert ours[1] == theirs[1], (ours, theirs)
    return ours[1]


def leaf(lib: Any, values: Any = (1.0, 2.0, 3.0), shape: Any = None) -> Any:
    """A float leaf that requires grad, optionally reshaped to ``shape``."""
    tensor = lib.tensor(list(values))
    if shape is not None:
        tensor = tensor.reshape(shape)
    return tensor.requires_grad_()


def chain(tensor: Any) -> list[str]:
    """The ``grad_fn`` names from ``tensor`` back along the first input that is
    not a leaf (leaves' ``AccumulateGrad`` nodes are left out)."""
    names = []
    node = tensor.grad_fn
    while node is not None:
        names.append(node.name())
        inner = [
            n
            for n, _ in node.next_functions
            if n is not None and "AccumulateGrad" not in n.name()
        ]
        node = inner[0] if inner else None
    return names


def outcome(run: Callable[[Any], Any], lib: Any) -> tuple[str, str]:
    """``("OK", value)``, or the exception's type name and message."""
    try:
        return "OK", run(lib)
    except Exception as error:  # noqa: BLE001 - any error is compared
        return type(error).__name__, str(error)
