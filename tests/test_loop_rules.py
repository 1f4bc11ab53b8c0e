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
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib import _tensor_kernels
from slowtorch_lib._fidelity import complex_numbers, few_loops, loop_names
from slowtorch_lib._kernels import ieee_function
from slowtorch_lib.ops import comparison, logarithms, rounding, selecting
from tests.op_table import CASES, OpCase, input_values, make_inputs, outputs_of
from tests.parity import TOLERANCES, same_error

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
        (operator.lt, "lt_cpu"),
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


# ----------------------------------------------------------------------
# Every pointwise op of the op table, against PyTorch: its complex loop and
# the name of its loop. An op added with its value and gradient right still
# fails here if it lacks a complex loop where PyTorch has one, or if its
# scalar function has no line in LOOP_NAMES (the name is never made up from
# the function's own name). See docs/adding-an-op.md.
# ----------------------------------------------------------------------


REAL_LOOPS = set(complex_numbers.COMPLEX_LOOPS)
#: The complex versions of real loops, which complex numbers compute with.
COMPLEX_ONLY = {id(f) for f in complex_numbers.COMPLEX_LOOPS.values()}


#: The modules of elementwise ops (and of the views and copies around them).
ELEMENTWISE = {
    f"slowtorch_lib.ops.{name}"
    for name in (
        "bitwise",
        "common",
        "comparison",
        "complex_parts",
        "copying",
        "fused",
        "logarithms",
        "pointwise",
        "rounding",
        "selecting",
        "trigonometry",
        "views",
    )
}


def modules_entered(case: OpCase) -> set[str]:
    """The modules of the ops and layers a case calls, on float64 inputs."""
    entered: set[str] = set()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            entered.add(frame.f_globals.get("__name__", ""))

    sys.setprofile(profile)
    try:
        case.fn(st, *make_inputs(case, st))
    finally:
        sys.setprofile(None)
    return {
        m for m in entered if m.startswith(("slowtorch_lib.ops", "slowtorch_lib.nn"))
    }


def loops_reached(case: OpCase) -> list[Callable[..., Any]]:
    """The scalar functions a case computes with, on float64 inputs: what
    the elementwise kernels (``unary``, ``binary``, ``broadcast_map``) run."""
    seen: list[Callable[..., Any]] = []
    original = _tensor_kernels.map_values

    def recording(function: Any, *columns: Any, **options: Any) -> Any:
        scalar = loop_names.scalar_function(function)
        if scalar in REAL_LOOPS or id(scalar) not in COMPLEX_ONLY:
            seen.append(scalar)
        return original(function, *columns, **options)

    _tensor_kernels.map_values = recording  # type: ignore[assignment]
    try:
        case.fn(st, *make_inputs(case, st))
    finally:
        _tensor_kernels.map_values = original
    return seen


#: The pointwise cases of the op table: those that compute with an
#: elementwise kernel and call no op but elementwise ones, views and copies
#: (no reduction, product, convolution...), each with the scalar functions
#: it reaches.
POINTWISE = {
    case.name: (case, loops_reached(case))
    for case in CASES
    if modules_entered(case) <= ELEMENTWISE
}
POINTWISE = {name: found for name, found in POINTWISE.items() if found[1]}


def test_the_op_table_has_pointwise_ops() -> None:
    assert {"add", "exp", "sin", "atan2_broadcast", "where"} <= set(POINTWISE)
    assert "view" not in POINTWISE and "sum_all" not in POINTWISE


@pytest.mark.parametrize("name", sorted(POINTWISE))
def test_every_loop_has_pytorchs_name(name: str) -> None:
    """Without torch: each scalar function has its line in LOOP_NAMES."""
    for function in POINTWISE[name][1]:
        assert function in loop_names.LOOP_NAMES, (
            f"{name} computes with {function!r}, which has no line in LOOP_NAMES "
            "(slowtorch_lib/_fidelity/loop_names.py): its PyTorch loop name, as "
            "in the error a float8 input gets from torch"
        )


def _nested(values: Any, change: Callable[[float], Any]) -> Any:
    if isinstance(values, list):
        return [_nested(v, change) for v in values]
    return change(values)


def _inputs(case: OpCase, lib: Any, dtype: str) -> list[Any]:
    """The case's inputs as ``dtype``: complex numbers with an imaginary
    part, 8-bit floats, or small unsigned integers."""
    if dtype == "complex128":
        change: Callable[[float], Any] = lambda v: complex(v, 0.5 - v / 3)  # noqa: E731
    elif dtype == "uint16":
        change = lambda v: round(abs(v) * 3)  # noqa: E731
    else:
        change = float
    d = getattr(lib, dtype)
    if dtype == "complex128" or dtype == "uint16":
        return [lib.tensor(_nested(v, change), dtype=d) for v in input_values(case)]
    floats = [lib.tensor(v, dtype=lib.float64) for v in input_values(case)]
    return [t.to(d) for t in floats]


def _result(case: OpCase, lib: Any, dtype: str) -> tuple[str, Any]:
    """The case's outputs as nested lists, or its error's type and message."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            outputs = outputs_of(case.fn(lib, *_inputs(case, lib, dtype)))
        except Exception as error:  # noqa: BLE001 - any error is compared
            return type(error).__name__, str(error).split(" Hint:")[0]
    dtypes = [str(o.dtype).replace("torch.", "") for o in outputs]
    return "values", (dtypes, [o.tolist() for o in outputs])


def _close(ours: Any, theirs: Any, tolerances: tuple[float, float]) -> bool:
    """Equal nested values: numbers within the tolerances (complex ones part
    by part), nan equal to nan."""
    if isinstance(theirs, list):
        return len(ours) == len(theirs) and all(
            _close(a, b, tolerances) for a, b in zip(ours, theirs)
        )
    if isinstance(theirs, (float, complex)):
        rtol, atol = tolerances
        mine, other = complex(ours), complex(theirs)
        return all(
            (math.isnan(a) and math.isnan(b))
            or math.isclose(a, b, rel_tol=rtol, abs_tol=atol)
            for a, b in ((mine.real, other.real), (mine.imag, other.imag))
        )
    return bool(ours == theirs)


@pytest.mark.parametrize("dtype", ["complex128", "float8_e4m3fn", "uint16"])
@pytest.mark.parametrize("name", sorted(POINTWISE))
def test_pointwise_ops_of_other_dtypes_as_pytorch(name: str, dtype: str) -> None:
    """Complex input computes where PyTorch computes, with its values; where
    PyTorch has no loop (float8, uint16, complex ``<``), the error is its
    own, naming its loop (``"sinc_cpu" not implemented for ...``)."""
    torch = pytest.importorskip("torch")
    case = POINTWISE[name][0]
    theirs, ours = _result(case, torch, dtype), _result(case, st, dtype)
    where = f"{name} on {dtype}: torch gives {theirs}, the engine {ours}"
    assert ours[0] == theirs[0], where
    if theirs[0] == "values":
        assert ours[1][0] == theirs[1][0], where  # the dtypes
        real = "float32" if {"float32", "complex64"} & set(theirs[1][0]) else ""
        tolerances = TOLERANCES.get(real, TOLERANCES["float64"])
        assert _close(ours[1][1], theirs[1][1], tolerances), where
    else:
        assert ours[1] == theirs[1], where
