"""The loop rules of the dtypes beyond the ten are keyed by functions, not names.

PyTorch's error for an operation it has no loop for names the loop
(``"add_stub" not implemented for 'UInt16'``). The engine finds that name,
which types have the loop, and the complex loop that replaces a real one,
from the scalar function it computes with. The tables are keyed by the
functions themselves, so that renaming one fails at import instead of
changing an error quietly; these tests fail if a rule is keyed by a name.
"""

from __future__ import annotations

import builtins
import math
import operator
import sys
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib._fidelity import complex_numbers, few_loops, loop_names
from slowtorch_lib._kernels import ieee_function
from slowtorch_lib.ops import comparison, logarithms, rounding, selecting
from tests.parity import same_error

TABLES: dict[str, Any] = {
    "LOOP_NAMES": loop_names.LOOP_NAMES,
    "LIMITED_KERNELS": few_loops.LIMITED_KERNELS,
    "COMPLEX_LOOPS": complex_numbers.COMPLEX_LOOPS,
    "COMPLEX_AS_IS": complex_numbers.COMPLEX_AS_IS,
    "COMPLEX32_LOOPS": complex_numbers.COMPLEX32_LOOPS,
}
STANDARD = (operator, math, builtins)


def defined_where_named(function: Callable[..., Any]) -> bool:
    """Whether ``function`` is the object its module holds under its name:
    one of Python's (``operator.add``) or one the engine defines."""
    module = sys.modules.get(function.__module__ or "")
    if function.__module__ in ("_operator", "operator"):
        module = operator
    if module is None or getattr(module, function.__name__, None) is not function:
        return False
    return module in STANDARD or module.__name__.startswith("slowtorch_lib.")


@pytest.mark.parametrize("table", sorted(TABLES))
def test_every_key_is_a_function_the_engine_or_python_defines(table: str) -> None:
    for key in TABLES[table]:
        assert callable(key), f"{table} has a key that is no function: {key!r}"
        assert defined_where_named(key), f"{table}: {key!r} is not where it is named"


@pytest.mark.parametrize(
    ("function", "loop"),
    [
        (operator.add, "add_stub"),
        (operator.sub, "add_stub"),
        (operator.mul, "mul_cpu_reduced_float"),
        (operator.lt, "lt_cpu"),  # not in the table: its name and _cpu
        (ieee_function(math.tan), "tan_vml_cpu"),  # an IEEE-safe wrapper
        (ieee_function(logarithms._exp2_scalar), "exp2"),
        (comparison._closeness(1e-5, 1e-8, False), "mul_cpu_reduced_float"),
        (rounding._floor_div_scalar, "div_floor_cpu"),
        (selecting._nan_max, "maximum_cpu"),
    ],
)
def test_loop_names(function: Callable[..., Any], loop: str) -> None:
    assert loop_names.loop_name(function) == loop


def test_a_renamed_function_keeps_its_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rules follow the function, not its ``__name__``."""
    for function in (rounding._floor_div_scalar, selecting._choose, comparison._close):
        monkeypatch.setattr(function, "__name__", "renamed")
    assert loop_names.loop_name(rounding._floor_div_scalar) == "div_floor_cpu"
    assert few_loops.LIMITED_KERNELS[selecting._choose]
    x = st.tensor([1, 2], dtype=st.uint16)
    assert st.where(st.tensor([True, False]), x, x).tolist() == [1, 2]
    assert st.isclose(x, x).tolist() == [True, True]
    with pytest.raises(NotImplementedError, match='"div_floor_cpu"'):
        st.floor_divide(x, x)


@pytest.mark.parametrize(
    "run",
    [
        lambda t: t.tensor([1, 2], dtype=t.uint16) + 1,
        lambda t: t.tensor([1, 2], dtype=t.uint16) - t.tensor([1, 1], dtype=t.uint16),
        lambda t: t.tensor([1, 2], dtype=t.uint16) ** 2,
        lambda t: t.tensor([1, 2], dtype=t.uint32) // 2,
        lambda t: t.tensor([1.0, 2.0]).to(t.float8_e4m3fn) * 2,
        lambda t: t.tensor([1.0, 2.0]).to(t.float8_e5m2).exp(),
        lambda t: t.tensor([1.0, 2.0]).to(t.float8_e4m3fn).tan(),
        lambda t: t.tensor([1.0, 2.0]).to(t.float8_e4m3fn).log1p(),
        lambda t: t.tensor([1.0, 2.0]).to(t.float8_e4m3fn).exp2(),
        lambda t: t.tensor([1.0, 2.0]).to(t.float8_e4m3fn).sigmoid(),
        lambda t: (
            t.tensor([1.0])
            .to(t.float8_e4m3fn)
            .isclose(t.tensor([1.0]).to(t.float8_e4m3fn))
        ),
        lambda t: t.tensor([1j]).to(t.complex32).tan(),
        lambda t: t.tensor([1j]).to(t.complex32).rsqrt(),
        lambda t: t.tensor([1j]) < t.tensor([2j]),
    ],
)
def test_errors_name_pytorchs_loops(run: Callable[[Any], Any]) -> None:
    same_error(run)


@pytest.mark.parametrize(
    "run",
    [
        lambda t: (
            t.tensor([1.0, 2.0]).to(t.float8_e4m3fn)
            * t.tensor([3.0, 4.0]).to(t.float8_e4m3fn)
        ),
        lambda t: t.tensor([1, 2], dtype=t.uint16) * t.tensor([3, 4], dtype=t.uint16),
        lambda t: t.tensor([1, 2], dtype=t.uint64) == 2,
        lambda t: t.tensor([1.0, 2.0]).to(t.float8_e4m3fn).abs(),
        lambda t: t.tensor([1j, 2.0]).to(t.complex32).abs(),
    ],
)
def test_the_loops_they_have(run: Callable[[Any], Any]) -> None:
    """Multiplying two float8 tensors, comparing, abs: PyTorch has these."""
    assert run(st).tolist() == run(pytest.importorskip("torch")).tolist()
