"""The dtypes PyTorch names with few operations, against PyTorch.

uint16, uint32 and uint64; the five 8-bit floats; the complex types
(whose tensors and operations are tested in ``test_complex.py``). For
each: its facts (``iinfo``/``finfo``, ``itemsize``, the legacy class
name), promotion and PyTorch's refusal to promote, the
rounding and wrap-around of conversions, ``repr``, and the error PyTorch
raises for an operation it has no loop for.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import require_torch, same_error

UNSIGNED = ["uint16", "uint32", "uint64"]
FLOAT8 = [
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
]
COMPLEX = ["complex32", "complex64", "complex128"]
LIMITED = UNSIGNED + FLOAT8
ORDINARY = [
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "bool",
]
EVERY = ORDINARY + LIMITED + COMPLEX

# Hard cases for the 8-bit floats: ties, subnormals, the edges of each range.
FLOAT8_SPECIAL = [
    0.0,
    -0.0,
    1.0 / 3.0,
    17.0,  # ties between e4m3 neighbours: to the even code
    19.0,
    21.0,
    2.5 * 2.0**-16,
    2.0**-10,  # half of e4m3fn's smallest subnormal: to zero
    2.0**-17 * 1.001,
    240.0,
    247.0,
    248.0,  # past e4m3fnuz's top by half a step: nan
    448.0,
    463.9,
    464.0,
    1000.0,
    57344.0,
    61439.0,
    61440.0,  # past e5m2's top by half a step: inf
    3.0,  # e8m0: halfway between 2 and 4 goes up
    0.75,
    1.4999,
    1.7e38,
    2.0**127 * 1.5,
    1e-45,
    -5.0,
    -1e-30,
    3.4e38,
    math.inf,
    -math.inf,
    math.nan,
]


def dtype_pair(name: str) -> tuple[Any, Any]:
    torch = require_torch()
    return getattr(st, name), getattr(torch, name)


def outcome(run: Any, lib: Any) -> Any:
    """What ``run(lib)`` gives: its value, or its error's type and message."""
    try:
        return run(lib)
    except Exception as error:  # noqa: BLE001 - any error is compared
        return type(error).__name__, str(error)


def same_outcome(run: Any) -> tuple[Any, Any]:
    """Both libraries give the same error, or both give a value (returned)."""
    torch = require_torch()
    ours, theirs = outcome(run, st), outcome(run, torch)
    if isinstance(ours, tuple) or isinstance(theirs, tuple):
        assert ours == theirs
    return ours, theirs


def same_list(ours: list[Any], theirs: list[Any]) -> None:
    """Equal element for element, ``nan`` equal to ``nan``, signs of zero too."""
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a == b or (a != a and b != b), (ours, theirs)
        if isinstance(a, float) and a == 0:
            assert math.copysign(1, a) == math.copysign(1, b), (ours, theirs)


# ----------------------------------------------------------------------
# Facts
# ----------------------------------------------------------------------


@pytest.mark.parametrize("name", LIMITED + COMPLEX)
def test_dtype_facts_match_torch(name: str) -> None:
    ours, theirs = dtype_pair(name)
    assert repr(ours) == repr(theirs)
    assert ours.itemsize == theirs.itemsize
    assert ours.is_floating_point == theirs.is_floating_point
    assert ours.is_complex == theirs.is_complex
    assert ours.is_signed == theirs.is_signed


@pytest.mark.parametrize("name", LIMITED + COMPLEX)
def test_info_matches_torch(name: str) -> None:
    torch = require_torch()
    ours, theirs = dtype_pair(name)
    info = "iinfo" if name in UNSIGNED else "finfo"
    assert repr(getattr(st, info)(ours)) == repr(getattr(torch, info)(theirs))
    fields = ["bits", "min", "max", "dtype"]
    if info == "finfo":
        fields += ["eps", "tiny", "smallest_normal", "resolution"]
    for field in fields:
        mine = getattr(getattr(st, info)(ours), field)
        assert mine == getattr(getattr(torch, info)(theirs), field), field
    other = "finfo" if info == "iinfo" else "iinfo"
    same_error(lambda lib: getattr(lib, other)(getattr(lib, name)))


def test_aliases_are_torchs() -> None:
    assert st.chalf is st.complex32
    assert st.cfloat is st.complex64
    assert st.cdouble is st.complex128


def test_float8_facts_without_torch() -> None:
    # e4m3fn: 4 exponent bits (bias 7), 3 fraction bits, no infinity.
    info = st.finfo(st.float8_e4m3fn)
    assert (info.max, info.eps, info.tiny) == (448.0, 0.125, 2.0**-6)
    # e8m0fnu: powers of two only, no sign, so its min is positive.
    info = st.finfo(st.float8_e8m0fnu)
    assert (info.min, info.max, info.eps) == (2.0**-127, 2.0**127, 1.0)


# ----------------------------------------------------------------------
# Promotion
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"), [(a, b) for a in LIMITED + COMPLEX for b in EVERY if a != b]
)
def test_promotion_and_its_refusals_match_torch(a: str, b: str) -> None:
    for first, second in ((a, b), (b, a)):
        ours, theirs = same_outcome(
            lambda lib, x=first, y=second: lib.promote_types(
                getattr(lib, x), getattr(lib, y)
            )
        )
        assert repr(ours) == repr(theirs)


def test_complex_promotion_without_torch() -> None:
    assert st.promote_types(st.float64, st.complex64) is st.complex128
    assert st.promote_types(st.complex32, st.bfloat16) is st.complex64
    assert st.promote_types(st.int64, st.complex32) is st.complex32
    with pytest.raises(RuntimeError, match="Promotion for Float8 Types"):
        st.promote_types(st.float8_e5m2, st.float32)
    assert st.promote_types(st.uint16, st.float16) is st.float16
    with pytest.raises(RuntimeError, match="uint16, uint32, uint64 types"):
        st.promote_types(st.uint16, st.int64)


@pytest.mark.parametrize("name", LIMITED)
def test_mixed_operations_refuse_as_torch(name: str) -> None:
    same_error(
        lambda lib: lib.tensor([1, 2], dtype=getattr(lib, name)) + lib.tensor([1])
    )
    same_error(
        lambda lib: lib.tensor([1, 2], dtype=getattr(lib, name)) * lib.tensor([True])
    )
    ours, theirs = same_outcome(
        lambda lib: lib.tensor([1, 2], dtype=getattr(lib, name)) * 2.5
    )
    if name in UNSIGNED:
        assert ours.dtype is st.float32


# ----------------------------------------------------------------------
# Conversion: rounding, saturation, wrap-around
# ----------------------------------------------------------------------


def random_values(seed: int, count: int = 400) -> list[float]:
    rng = random.Random(seed)
    return [rng.uniform(-1, 1) * 10.0 ** rng.randint(-40, 39) for _ in range(count)]


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("source", ["float32", "float64"])
def test_float8_conversion_matches_torch(name: str, source: str) -> None:
    torch = require_torch()
    values = FLOAT8_SPECIAL + random_values(len(name)) + [2.0**-127 * 1.5, 2.0**-126]
    ours = st.tensor(values, dtype=getattr(st, source)).to(getattr(st, name))
    theirs = torch.tensor(values, dtype=getattr(torch, source)).to(getattr(torch, name))
    same_list(ours.tolist(), theirs.tolist())
    created = st.tensor(values, dtype=getattr(st, name))
    same_list(created.tolist(), torch.tensor(values, dtype=theirs.dtype).tolist())
    same_list(created.float().tolist(), theirs.float().tolist())


def test_float8_rounding_without_torch() -> None:
    def e4m3(v: float) -> float:
        return st.tensor([v], dtype=st.float8_e4m3fn).item()

    assert [e4m3(v) for v in (17.0, 19.0, 21.0, 23.0)] == [16.0, 20.0, 20.0, 24.0]
    assert e4m3(math.inf) == 448.0  # e4m3fn saturates
    assert st.tensor([1e6], dtype=st.float8_e5m2).item() == math.inf
    assert math.isnan(st.tensor([248.0], dtype=st.float8_e4m3fnuz).item())
    assert math.copysign(1, st.tensor([-0.0], dtype=st.float8_e5m2fnuz).item()) == 1
    e8m0 = st.tensor([3.0, 2.9, 0.0, -5.0], dtype=st.float8_e8m0fnu).tolist()
    assert e8m0 == [4.0, 2.0, 2.0**-127, 4.0]


@pytest.mark.parametrize("name", UNSIGNED)
@pytest.mark.parametrize("source", ["float32", "float64", "int64", "int8", "bool"])
def test_casts_to_unsigned_match_torch(name: str, source: str) -> None:
    torch = require_torch()
    values: list[Any] = [-1.0, -3e9, -5e9, -1e19, -1e30, 2.5, -2.5, 70000.0, 4.2e9]
    values += [4.3e9, 1e10, 1.8e19, 1.9e19, 1e30, math.inf, -math.inf]
    if name != "uint32":  # PyTorch's uint32 of nan is 0 or 2**31, by context
        values.append(math.nan)
    if source in ("int64", "int8"):
        values = [-1, 0, 5, 127, -128, 2**40 + 3] if source == "int64" else [-1, 5]
    if source == "bool":
        values = [True, False]
    ours = st.tensor(values, dtype=getattr(st, source)).to(getattr(st, name))
    theirs = torch.tensor(values, dtype=getattr(torch, source)).to(getattr(torch, name))
    assert ours.tolist() == theirs.tolist()
    back = theirs.to(torch.int64).tolist()
    assert ours.to(st.int64).tolist() == back


@pytest.mark.parametrize("name", UNSIGNED)
def test_unsigned_values_round_trip_and_wrap_as_torch(name: str) -> None:
    torch = require_torch()
    big = 2 ** (8 * getattr(st, name).itemsize) - 1
    values = [0, 1, big, big // 2 + 1]
    ours = st.tensor(values, dtype=getattr(st, name))
    theirs = torch.tensor(values, dtype=getattr(torch, name))
    assert ours.tolist() == theirs.tolist()
    assert ours.float().tolist() == theirs.float().tolist()
    assert repr(ours) == repr(theirs)
    assert (ours * ours).tolist() == (theirs * theirs).tolist()  # wraps around
    assert ours.sum().tolist() == theirs.sum().tolist()


@pytest.mark.parametrize(
    "value",
    [-1, -65535, -65536, 70000, 2**32, -(2**32), 2**63, 2**64, -(2**63) - 1, 1.5, -1.5],
)
@pytest.mark.parametrize("name", UNSIGNED)
def test_range_checks_on_creation_match_torch(name: str, value: Any) -> None:
    ours, theirs = same_outcome(
        lambda lib: lib.tensor([value], dtype=getattr(lib, name)).tolist()
    )
    assert ours == theirs
    ours, theirs = same_outcome(
        lambda lib: lib.full((2,), value, dtype=getattr(lib, name)).tolist()
    )
    assert ours == theirs


def test_wrap_around_without_torch() -> None:
    assert st.tensor([-1], dtype=st.uint16).item() == 65535
    assert (st.tensor([2**32 - 1], dtype=st.uint32) * 2).item() == 2**32 - 2
    assert st.tensor([-1.0]).to(st.uint64).item() == 2**64 - 1
    with pytest.raises(OverflowError):
        st.tensor([-1], dtype=st.uint64)


# ----------------------------------------------------------------------
# Printing
# ----------------------------------------------------------------------


@pytest.mark.parametrize("name", LIMITED)
def test_repr_matches_torch(name: str) -> None:
    torch = require_torch()
    rows = [
        [1.0, 2.3, 1000.0, -1e6, math.inf, math.nan, 1e-9, 0.0017, -0.0],
        [0.0, 0.5, 3.0],
        [0.0],
        [1.0, 2.0, 4.0],
        [[0.25, 8.0], [16.0, 0.0]],
    ]
    for row in rows:
        if name in UNSIGNED:
            row = (
                [[int(v) for v in r] for r in row]
                if isinstance(row[0], list)
                else [int(abs(v)) % 60000 if math.isfinite(v) else 7 for v in row]
            )
        ours = st.tensor(row, dtype=getattr(st, name))
        theirs = torch.tensor(row, dtype=getattr(torch, name))
        assert repr(ours) == repr(theirs)
        assert repr(ours[0]) == repr(theirs[0])
        assert ours.type() == theirs.type()


# ----------------------------------------------------------------------
# What PyTorch computes on them, and what it refuses
# ----------------------------------------------------------------------

OPERATIONS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "mul_number": lambda a, b: a * 2,
    "div": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
    "pow": lambda a, b: a**b,
    "eq": lambda a, b: a == b,
    "lt": lambda a, b: a < b,
    "neg": lambda a, b: -a,
    "abs": lambda a, b: a.abs(),
    "exp": lambda a, b: a.exp(),
    "sqrt": lambda a, b: a.sqrt(),
    "sum": lambda a, b: a.sum(),
    "mean": lambda a, b: a.mean(),
    "prod": lambda a, b: a.prod(),
    "max": lambda a, b: a.max(),
    "argmin": lambda a, b: a.argmin(),
    "maximum": lambda a, b: a.maximum(b),
    "clamp": lambda a, b: a.clamp(0, 1),
    "where": lambda a, b: a.where(a == b, b),
    "matmul": lambda a, b: a.reshape(1, 2) @ b.reshape(2, 1),
    "flip": lambda a, b: a.flip(0),
    "clone": lambda a, b: a.clone(),
    "to_float": lambda a, b: a.float(),
    "index": lambda a, b: a[[1, 0]],
    "fill": lambda a, b: a.fill_(1),
    "sort": lambda a, b: a.sort().values,
    "topk": lambda a, b: a.topk(1).values,
    "masked_fill": lambda a, b: a.masked_fill(a == a, 0),
    "bitwise_and": lambda a, b: a & b,
    "floor": lambda a, b: a.floor(),
    "cumsum": lambda a, b: a.cumsum(0),
    "isnan": lambda a, b: a.isnan(),
    "nonzero": lambda a, b: a.nonzero(),
    "equal": lambda a, b: a.equal(b),
    "tril": lambda a, b: a.reshape(1, 2).tril(),
    "gather": lambda a, b: a.gather(0, a.new_tensor([1]).long()),
    "var": lambda a, b: a.var(),
}


def run_operation(lib: Any, name: str, operation: str) -> Any:
    d = getattr(lib, name)
    a = lib.tensor([1, 2], dtype=d)
    b = lib.tensor([3, 1], dtype=d)
    if operation == "arange":
        result = lib.arange(3, dtype=d)
    elif operation == "cat":
        result = lib.cat([a, b])
    else:
        result = OPERATIONS[operation](a, b)
    return result.tolist() if isinstance(result, lib.Tensor) else result


@pytest.mark.parametrize(
    ("name", "operation"), list(itertools.product(LIMITED, OPERATIONS))
)
def test_operations_compute_or_refuse_as_torch(name: str, operation: str) -> None:
    ours, theirs = same_outcome(lambda lib: run_operation(lib, name, operation))
    same_list(*[v if isinstance(v, list) else [v] for v in (ours, theirs)])


def test_missing_kernels_without_torch() -> None:
    with pytest.raises(
        NotImplementedError, match="\"add_stub\" not implemented for 'UInt16'"
    ):
        st.tensor([1], dtype=st.uint16) + 1
    with pytest.raises(NotImplementedError, match="sum_cpu"):
        st.tensor([1.0], dtype=st.float8_e5m2).sum()
    assert (st.tensor([3], dtype=st.uint32) * 2).item() == 6
    assert st.tensor([3], dtype=st.uint32).sum().dtype is st.int64


# ----------------------------------------------------------------------
# Complex types: their tensors are tested in test_complex.py
# ----------------------------------------------------------------------


@pytest.mark.parametrize("name", COMPLEX)
def test_complex_tensors_are_made_and_converted(name: str) -> None:
    d = getattr(st, name)
    assert st.zeros(2, dtype=d).dtype is d
    assert st.tensor([1.0]).to(d).tolist() == [1 + 0j]


# ----------------------------------------------------------------------
# Which check comes first: shape, dtype, then the missing loop
# ----------------------------------------------------------------------

# Each writes into (or multiplies) ``x``, a 2x3 tensor of the dtype under
# test; PyTorch checks shapes and indices in an order that decides which
# error a user sees when several apply.
CHECK_ORDER: dict[str, Callable[[Any, Any], Any]] = {
    "add_ broadcast": lambda lib, x: x.add_(lib.ones(4, 2, 3, dtype=x.dtype)),
    "sub_ broadcast": lambda lib, x: x.sub_(lib.ones(4, 2, 3, dtype=x.dtype)),
    "mul_ broadcast": lambda lib, x: x.mul_(lib.ones(4, 2, 3, dtype=x.dtype)),
    "div_ broadcast": lambda lib, x: x.div_(lib.ones(4, 2, 3, dtype=x.dtype)),
    "div_ floor broadcast": lambda lib, x: x.div_(
        lib.ones(4, 2, 3, dtype=x.dtype), rounding_mode="floor"
    ),
    "div_ bad mode": lambda lib, x: x.div_(x[:1], rounding_mode="up"),
    "true_divide_": lambda lib, x: x.true_divide_(lib.ones(1, 3, dtype=x.dtype)),
    "0-d times expanded": lambda lib, x: x[0, 0] * x[0, 0].expand(2),
    "times expanded": lambda lib, x: x * x[:1, :1].expand(2, 3),
    "expanded times": lambda lib, x: x[:1, :1].expand(2, 3) * x,
    "times empty": lambda lib, x: x[:, :0] * x[:, :0],
    "empty times one": lambda lib, x: x[:, :0] * x[:1, :1],
    "index_put": lambda lib, x: x.__setitem__([0], 0),
    "index_put nothing": lambda lib, x: x.__setitem__([], 0),
    "index_put out of range": lambda lib, x: x.__setitem__([5], 0),
    "index_put wrong shape": lambda lib, x: x.__setitem__(
        [0], lib.ones(2, dtype=x.dtype)
    ),
    "index_put two rows": lambda lib, x: x.__setitem__(
        lib.tensor([True, True]), x[:, :1]
    ),
    "mask": lambda lib, x: x.__setitem__(lib.tensor([True, False]), 0),
    "mask of bools": lambda lib, x: x.__setitem__([False, False], 0),
    "mask one element": lambda lib, x: x.__setitem__(
        lib.tensor([True, False]), x[0, :1]
    ),
    "int then mask": lambda lib, x: x.__setitem__((0, lib.tensor([1, 0, 1]) > 0), 0),
    "mask then list": lambda lib, x: x.__setitem__((lib.tensor([True, False]), [0]), 0),
    "masked_fill_ broadcast": lambda lib, x: x.masked_fill_(
        lib.ones(4, 2, 3, dtype=lib.bool), 0
    ),
    "masked_fill_ mismatch": lambda lib, x: x.masked_fill_(
        lib.ones(2, dtype=lib.bool), 0
    ),
    "masked_fill int mask": lambda lib, x: x.masked_fill(lib.ones(3).long(), 0),
    "masked_fill vector value": lambda lib, x: x.masked_fill(
        lib.ones(3, dtype=lib.bool), lib.ones(2)
    ),
    "topk too many": lambda lib, x: x.topk(4),
    "clamp nan bounds": lambda lib, x: x.clamp(math.nan, 0.0),
    "clamp nan min": lambda lib, x: x.clamp(min=math.nan),
    "clamp min": lambda lib, x: x.clamp(min=1),
    "clamp max": lambda lib, x: x.clamp(max=2),
    "clamp both": lambda lib, x: x.clamp(1, 2),
    "clamp_ huge": lambda lib, x: x.clamp_(min=1e300),
    "clamp tensors": lambda lib, x: x.clamp(x, x),
    "clamp min tensor": lambda lib, x: x.clamp(min=x[0]),
    "clamp max tensor": lambda lib, x: x.clamp(max=x[:, :1]),
    "norm": lambda lib, x: x.norm(),
    "norm of size-1 dims": lambda lib, x: x[:1].norm(1, 0, keepdim=True),
    "norm of nothing": lambda lib, x: x[:, :0].norm(),
    "bool": lambda lib, x: (x * 0 + lib.tensor(math.nan).to(x.dtype)).bool(),
    "0-d promoted with bool": lambda lib, x: lib.tensor([True]) != x[0, 0],
}


def run_check_order(lib: Any, name: str, case: str) -> Any:
    """The case's result, or its error; a failed write leaves ``x`` as it was."""
    x = lib.tensor([[1, 2, 3], [3, 1, 2]], dtype=getattr(lib, name))
    before = x.tolist()
    try:
        result = CHECK_ORDER[case](lib, x)
    except Exception as error:  # noqa: BLE001 - compared with torch's
        assert x.tolist() == before
        return type(error).__name__, str(error)
    result = x if result is None else result
    return [v for row in result.reshape(-1, 1).tolist() for v in row]


@pytest.mark.parametrize(
    ("name", "case"),
    list(itertools.product(LIMITED + ["float32", "int64", "bool"], CHECK_ORDER)),
)
def test_checks_come_in_torchs_order(name: str, case: str) -> None:
    ours, theirs = same_outcome(lambda lib: run_check_order(lib, name, case))
    if isinstance(ours, list):
        same_list(ours, theirs)


def test_check_order_without_torch() -> None:
    x = st.ones(2, dtype=st.float8_e5m2)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        x.sub_(st.ones(3, 2, dtype=st.float8_e5m2))
    with pytest.raises(NotImplementedError, match="mul_cpu_reduced_float"):
        x * x[:1].expand(2)
    assert (x[:1].expand(2) * x).tolist() == [1.0, 1.0]
    u = st.ones(2, 2, dtype=st.uint64)
    with pytest.raises(NotImplementedError, match='"index_put" not implemented'):
        u[[]] = 0
    with pytest.raises(NotImplementedError, match='"masked_fill" not implemented'):
        u[st.tensor([True, False])] = 0
    assert u.tolist() == [[1, 1], [1, 1]]
