"""Complex tensors against PyTorch: storage, creation, printing, arithmetic,
PyTorch's refusals, and gradients (with a finite-difference check that
needs no torch).

A complex element is one Python ``complex`` whose parts are rounded to the
part type (float32 for complex64) when stored. Gradients follow PyTorch's
convention: for a real loss L of z = x + iy, ``z.grad`` is dL/dx + i dL/dy.
"""

from __future__ import annotations

import cmath
import math
import random
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import require_torch, same_error

Z_VALUES = [1 + 2j, 3 - 0.5j, -0.25 + 1.5j, 2j]
W_VALUES = [0.5 - 1j, -2 + 0.25j, 1.5 + 0.5j, 1 - 3j]


def flat(values: Any) -> list[Any]:
    if not isinstance(values, list):
        return [values]
    return [v for item in values for v in flat(item)]


def assert_close(ours: Any, theirs: Any, tol: float = 1e-5) -> None:
    """Same shape, dtype and values (complex or real), within ``tol``."""
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).replace("torch.", "")
    mine, other = flat(ours.tolist()), flat(theirs.detach().tolist())
    for a, b in zip(mine, other):
        if isinstance(b, bool):
            assert a == b
        elif not cmath.isfinite(complex(b)):  # each part: the same inf or nan
            for x, y in zip(parts(a), parts(b)):
                assert x == y or (math.isnan(x) and math.isnan(y)), (a, b)
        else:
            assert cmath.isclose(a, b, rel_tol=tol, abs_tol=tol), (a, b)


def parts(value: Any) -> tuple[float, float]:
    number = complex(value)
    return number.real, number.imag


def run_both(function: Callable[[Any], Any]) -> tuple[Any, Any]:
    torch = require_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(st), function(torch)


# ----------------------------------------------------------------------
# Storage, creation, conversion
# ----------------------------------------------------------------------


def test_complex64_rounds_each_part_to_float32() -> None:
    z = st.tensor([0.1 + 0.2j], dtype=st.complex64).item()
    assert isinstance(z, complex)
    assert z.real == st.tensor(0.1).item() and z.imag == st.tensor(0.2).item()
    exact = st.tensor([0.1 + 0.2j], dtype=st.complex128).item()
    assert exact == 0.1 + 0.2j


def test_complex64_writes_round_too() -> None:
    z = st.zeros(2, dtype=st.complex64)
    z[0] = 0.1 + 0.1j
    assert z[0].item() == complex(st.tensor(0.1).item(), st.tensor(0.1).item())


CREATIONS: list[Callable[[Any], Any]] = [
    lambda t: t.tensor([1 + 2j, 3]),
    lambda t: t.tensor([[1, 2.5], [1j, True]]),
    lambda t: t.tensor(1 + 2j, dtype=t.complex128),
    lambda t: t.tensor([0.1 + 0.2j, 3], dtype=t.complex64),
    lambda t: t.zeros(2, 3, dtype=t.complex64),
    lambda t: t.ones(2, dtype=t.complex128),
    lambda t: t.full((2,), 1j),
    lambda t: t.full((2,), 2, dtype=t.complex64),
    lambda t: t.complex(t.tensor([1.0, 2.0]), t.tensor([3.0, -4.0])),
    lambda t: t.complex(
        t.tensor([1.0], dtype=t.float64), t.tensor([3.0, 4.0], dtype=t.float64)
    ),
    lambda t: t.tensor([1, 2]).to(t.complex64),
    lambda t: t.tensor([1.5, 2]).to(t.complex128),
    lambda t: t.tensor([1 + 2j, 3]).to(t.float32),
    lambda t: t.tensor([1.5 + 2j, -3]).to(t.int64),
    lambda t: t.tensor([1 + 2j, 0]).to(t.bool),
    lambda t: t.tensor([1 + 2j, 3], dtype=t.complex128).to(t.complex64),
    lambda t: t.tensor([1 + 2j], dtype=t.complex32).to(t.complex64),
]


@pytest.mark.parametrize("case", range(len(CREATIONS)))
def test_creation_matches_torch(case: int) -> None:
    ours, theirs = run_both(CREATIONS[case])
    assert_close(ours, theirs, tol=0)


def test_default_complex_dtype_follows_the_default_float() -> None:
    assert st.tensor([1j]).dtype is st.complex64
    st.set_default_dtype(st.float64)
    try:
        assert st.tensor([1j]).dtype is st.complex128
        assert repr(st.tensor([1j])) == "tensor([0.+1.j])"
    finally:
        st.set_default_dtype(st.float32)


def test_is_complex_item_and_tolist() -> None:
    z = st.tensor([[1 + 2j, 3]])
    assert z.is_complex() and st.is_complex(z) and not st.tensor([1.0]).is_complex()
    assert z.tolist() == [[1 + 2j, 3 + 0j]]
    assert z[0, 0].item() == 1 + 2j


# ----------------------------------------------------------------------
# Printing
# ----------------------------------------------------------------------

REPR_CASES: list[Any] = [
    [1 + 2j, 3],
    [0.5 + 1j, 1e-5],
    [1e10 + 1j],
    [[1.5 - 2j], [3j]],
    [complex("nan+1j"), complex(0, math.inf)],
    [-1 - 2j, -3 + 0j],
    [1.2345678 + 9.87654321j] * 30,
    [complex(-0.0, -0.0)],
    [0j],
    1 + 2j,
    -0.5j,
]


@pytest.mark.parametrize("case", range(len(REPR_CASES)))
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_repr_matches_torch(case: int, dtype: str) -> None:
    data = REPR_CASES[case]
    ours, theirs = run_both(lambda t: repr(t.tensor(data, dtype=getattr(t, dtype))))
    assert ours == theirs


def test_repr_of_random_and_large_tensors_matches_torch() -> None:
    rng = random.Random(0)
    rows = [[complex(rng.gauss(0, 1), rng.gauss(0, 100)) for _ in range(7)]] * 3
    big = [[complex(rng.random(), 1) for _ in range(40)] for _ in range(40)]
    for data in (rows, big):
        ours, theirs = run_both(lambda t, data=data: repr(t.tensor(data)))
        assert ours == theirs
    ours, theirs = run_both(
        lambda t: (
            repr(t.tensor([1 + 2j], requires_grad=True))
            + repr(t.zeros(2, 0, dtype=t.complex64))
            + repr(t.tensor([1j], dtype=t.complex32))
        )
    )
    assert ours == theirs


# ----------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------


def z_of(t: Any, dtype: str = "complex64") -> Any:
    return t.tensor(Z_VALUES, dtype=getattr(t, dtype))


def w_of(t: Any, dtype: str = "complex64") -> Any:
    return t.tensor(W_VALUES, dtype=getattr(t, dtype))


VALUE_CASES: dict[str, Callable[[Any], Any]] = {
    "add": lambda t: z_of(t) + w_of(t),
    "add_alpha": lambda t: t.add(z_of(t), w_of(t), alpha=2),
    "sub": lambda t: z_of(t) - w_of(t),
    "mul": lambda t: z_of(t) * w_of(t),
    "div": lambda t: z_of(t) / w_of(t),
    "neg": lambda t: -z_of(t),
    "pow_int": lambda t: z_of(t) ** 2,
    "pow_float": lambda t: z_of(t) ** 0.5,
    "pow_complex": lambda t: z_of(t) ** (1 + 1j),
    "pow_tensor": lambda t: z_of(t) ** w_of(t),
    "rpow": lambda t: 2 ** z_of(t),
    "exp": lambda t: z_of(t).exp(),
    "log": lambda t: z_of(t).log(),
    "sqrt": lambda t: z_of(t).sqrt(),
    "rsqrt": lambda t: z_of(t).rsqrt(),
    "reciprocal": lambda t: z_of(t).reciprocal(),
    "sin": lambda t: z_of(t).sin(),
    "cos": lambda t: z_of(t).cos(),
    "tanh": lambda t: z_of(t).tanh(),
    "sigmoid": lambda t: z_of(t).sigmoid(),
    "abs": lambda t: z_of(t).abs(),
    "angle": lambda t: z_of(t).angle(),
    "conj": lambda t: z_of(t).conj(),
    "real": lambda t: z_of(t).real,
    "imag": lambda t: z_of(t).imag,
    "view_as_real": lambda t: t.view_as_real(z_of(t)),
    "sum": lambda t: z_of(t).sum(),
    "sum_dim": lambda t: z_of(t).reshape(2, 2).sum(0),
    "mean": lambda t: z_of(t).mean(),
    "prod": lambda t: z_of(t).prod(),
    "cumsum": lambda t: z_of(t).cumsum(0),
    "mm": lambda t: z_of(t).reshape(2, 2) @ w_of(t).reshape(2, 2),
    "matmul_vec": lambda t: z_of(t) @ w_of(t),
    "eq": lambda t: z_of(t) == t.tensor([1 + 2j, 3, 0, 2j]),
    "ne": lambda t: z_of(t) != 2j,
    "where": lambda t: t.where(t.tensor([True, False, True, False]), z_of(t), 0),
    "tan": lambda t: z_of(t).tan(),
    "sinh": lambda t: z_of(t).sinh(),
    "asin": lambda t: z_of(t).asin(),
    "atan": lambda t: z_of(t).atan(),
    "log2": lambda t: z_of(t).log2(),
    "log10": lambda t: z_of(t).log10(),
    "log1p": lambda t: z_of(t).log1p(),
    "exp2": lambda t: z_of(t).exp2(),
    "expm1": lambda t: z_of(t).expm1(),
    "var": lambda t: z_of(t).var(),
    "std_dim": lambda t: z_of(t).reshape(2, 2).std(1),
    "norm": lambda t: z_of(t).norm(),
    "norm_1": lambda t: t.linalg.vector_norm(z_of(t), 1),
    "logical_not": lambda t: t.tensor([0j, 1j]).logical_not(),
    "logical_or": lambda t: t.logical_or(t.tensor([0j, 1j]), t.tensor([0, 0])),
    "isfinite": lambda t: t.isfinite(z_of(t)),
    "abs_complex32": lambda t: z_of(t, "complex32").abs(),
    "add_complex32": lambda t: z_of(t, "complex32") + 1,
    "complex128": lambda t: z_of(t, "complex128") * w_of(t, "complex128"),
    # Promotion with real tensors and Python numbers.
    "with_int_tensor": lambda t: z_of(t) + t.tensor([1, 2, 3, 4]),
    "with_float64_tensor": lambda t: (
        z_of(t) * t.tensor([1.0, 2, 3, 4], dtype=t.float64)
    ),
    "with_float64_zero_dim": lambda t: z_of(t) * t.tensor(2.0, dtype=t.float64),
    "float64_with_complex_zero_dim": lambda t: (
        t.tensor([1.0, 2], dtype=t.float64) + t.tensor(1j)
    ),
    "float64_with_complex_number": lambda t: t.tensor([1.0], dtype=t.float64) + 1j,
    "float16_with_complex_number": lambda t: t.tensor([1.0], dtype=t.float16) + 1j,
    "int_with_complex_number": lambda t: t.tensor([1, 2]) * (1 + 1j),
    "with_float_number": lambda t: z_of(t) * 2.5,
    "divide_by_zero": lambda t: t.tensor([1 + 2j, 0]) / 0,
    "divide_parts_by_zero": lambda t: t.tensor([-3 + 0j, 2 - 1j, 0, -1j]) / 0,
    "pow_infinite": lambda t: (
        t.tensor([-1.5 - 1.5j, 0.8 - 0.1j, 0.5, 2, 1]) ** -math.inf
    ),
    "pow_infinite_positive": lambda t: t.tensor([-1.5 - 1.5j, 0.5, 2]) ** math.inf,
    "log2_of_zero": lambda t: t.tensor([0j, 1j]).log2(),
    "log10_of_zero": lambda t: t.tensor([0j]).log10(),
    "addcmul": lambda t: t.addcmul(z_of(t), w_of(t), z_of(t), value=0.5 - 1j),
    "addcmul_complex32": lambda t: t.addcmul(*[z_of(t, "complex32")] * 3),
    "addcdiv": lambda t: t.addcdiv(z_of(t), w_of(t), z_of(t), value=2),
    "addcdiv_by_zero": lambda t: t.addcdiv(
        z_of(t), w_of(t), t.zeros(4, dtype=t.complex64), value=0.5 + 1j
    ),
    "lerp": lambda t: t.lerp(z_of(t), w_of(t), 0.7),
    "lerp_complex_weight": lambda t: t.lerp(z_of(t), w_of(t), 0.3 + 0.4j),
    "lerp_tensor": lambda t: t.lerp(z_of(t), w_of(t), z_of(t) * 0.2),
    "lerp_zero_dim_weight": lambda t: t.lerp(z_of(t), w_of(t), t.tensor(0.25)),
    "addcmul_": lambda t: (z_of(t) * 1).addcmul_(w_of(t), w_of(t), value=2j),
    "lerp_": lambda t: z_of(t).lerp_(w_of(t), 0.6),
}


@pytest.mark.parametrize("name", list(VALUE_CASES))
def test_values_match_torch(name: str) -> None:
    ours, theirs = run_both(VALUE_CASES[name])
    assert_close(ours, theirs, tol=2e-3 if "complex32" in name else 1e-5)


# ----------------------------------------------------------------------
# What PyTorch refuses for complex tensors
# ----------------------------------------------------------------------

REFUSED: dict[str, Callable[[Any], Any]] = {
    "lt": lambda t: z_of(t) < 1,
    "gt": lambda t: z_of(t) > z_of(t),
    "max": lambda t: z_of(t).max(),
    "min": lambda t: z_of(t).min(),
    "max_dim": lambda t: z_of(t).max(0),
    "amax": lambda t: z_of(t).amax(),
    "argmax": lambda t: z_of(t).argmax(),
    "argmin": lambda t: z_of(t).argmin(),
    "maximum": lambda t: t.maximum(z_of(t), z_of(t)),
    "minimum": lambda t: t.minimum(z_of(t), z_of(t)),
    "sort": lambda t: t.sort(z_of(t)),
    "relu": lambda t: t.relu(z_of(t)),
    "clamp": lambda t: z_of(t).clamp(0, 1),
    "clamp_min": lambda t: z_of(t).clamp_min(0),
    "floor": lambda t: z_of(t).floor(),
    "ceil": lambda t: z_of(t).ceil(),
    "trunc": lambda t: z_of(t).trunc(),
    "round": lambda t: z_of(t).round(),
    "floor_divide": lambda t: z_of(t) // 2,
    "remainder": lambda t: z_of(t) % 2,
    "sign": lambda t: t.sign(z_of(t)),
    "complex_of_ints": lambda t: t.complex(t.tensor([1]), t.tensor([2])),
    "complex_of_mixed": lambda t: t.complex(
        t.tensor([1.0]), t.tensor([2.0], dtype=t.float64)
    ),
    "imag_of_real": lambda t: t.tensor([1.0]).imag,
    "complex_into_float": lambda t: t.tensor([1j], dtype=t.float32),
    "full_float_with_complex": lambda t: t.full((2,), 1j, dtype=t.float32),
    "complex32_div": lambda t: z_of(t, "complex32") / 2,
    "complex32_pow": lambda t: z_of(t, "complex32") ** 2,
    "complex32_exp": lambda t: z_of(t, "complex32").exp(),
    "complex32_sum": lambda t: z_of(t, "complex32").sum(),
    "complex32_angle": lambda t: z_of(t, "complex32").angle(),
    "float8_with_complex": lambda t: t.zeros(2, dtype=t.float8_e4m3fn) | t.tensor(1j),
    "atan2": lambda t: t.atan2(z_of(t), z_of(t)),
    "amax_requiring_grad": lambda t: t.zeros(
        3, 1, 0, dtype=t.complex128, requires_grad=True
    ).amax(1),
    "amin_requiring_grad": lambda t: t.zeros(
        3, 1, 0, dtype=t.complex64, requires_grad=True
    ).amin(1, keepdim=True),
    "amax_of_empty_dim": lambda t: t.zeros(
        3, 1, 0, dtype=t.complex64, requires_grad=True
    ).amax(2),
    "topk": lambda t: z_of(t).topk(1),
    "topk_too_many": lambda t: z_of(t).topk(5),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_refusals_match_torch(name: str) -> None:
    same_error(REFUSED[name])


def test_amax_without_grad_of_an_empty_complex_tensor() -> None:
    ours, theirs = run_both(lambda t: t.zeros(3, 1, 0, dtype=t.complex64).amax(1))
    assert_close(ours, theirs)
    with st.no_grad():
        z = st.zeros(3, 1, 0, dtype=st.complex64, requires_grad=True)
        assert z.amax(1).shape == (3, 0)


def test_mean_of_nothing_is_nan_in_both_parts() -> None:
    def run(t: Any) -> Any:
        empty = t.zeros(2, 0, dtype=t.complex64)
        return [empty.mean(1), empty.mean(), empty.mean(0, keepdim=True)]

    for ours, theirs in zip(*run_both(run)):
        assert_close(ours, theirs)
        for a, b in zip(flat(ours.tolist()), flat(theirs.tolist())):
            assert math.isnan(a.real) == math.isnan(b.real)
            assert math.isnan(a.imag) == math.isnan(b.imag)
    assert math.isnan(st.zeros(0, dtype=st.complex128).mean().item().imag)


# ----------------------------------------------------------------------
# Gradients
# ----------------------------------------------------------------------

# Each maps complex leaves (z, w) to a complex or real tensor; the loss is
# a real function of it, so that backward() needs no gradient argument.
GRAD_CASES: dict[str, Callable[[Any, Any, Any], Any]] = {
    "add": lambda t, z, w: z + w,
    "sub": lambda t, z, w: z - w,
    "mul": lambda t, z, w: z * w,
    "mul_number": lambda t, z, w: z * (2 - 1j),
    "square": lambda t, z, w: z * z,
    "div": lambda t, z, w: z / w,
    "neg": lambda t, z, w: -z,
    "pow": lambda t, z, w: z**3,
    "pow_tensor": lambda t, z, w: z**w,
    "rpow": lambda t, z, w: 2**z,
    "exp": lambda t, z, w: z.exp(),
    "log": lambda t, z, w: z.log(),
    "sqrt": lambda t, z, w: z.sqrt(),
    "sin": lambda t, z, w: z.sin(),
    "cos": lambda t, z, w: z.cos(),
    "tanh": lambda t, z, w: z.tanh(),
    "sigmoid": lambda t, z, w: z.sigmoid(),
    "reciprocal": lambda t, z, w: z.reciprocal(),
    "tan": lambda t, z, w: z.tan(),
    "sinh": lambda t, z, w: z.sinh(),
    "asin": lambda t, z, w: z.asin(),
    "log2": lambda t, z, w: z.log2(),
    "exp2": lambda t, z, w: z.exp2(),
    "log1p": lambda t, z, w: z.log1p(),
    "var": lambda t, z, w: (z * w).var(),
    "std": lambda t, z, w: (z * w).reshape(2, 2).std(0),
    "norm": lambda t, z, w: (z * w).norm(),
    "norm_3": lambda t, z, w: t.linalg.vector_norm(z * w, 3),
    "abs": lambda t, z, w: (z * w).abs(),
    "angle": lambda t, z, w: z.angle(),
    "conj": lambda t, z, w: z.conj() * w,
    "real": lambda t, z, w: (z * z).real,
    "imag": lambda t, z, w: (z * w).imag,
    "complex": lambda t, z, w: t.complex(z.real, w.imag) * w,
    "view_as_real": lambda t, z, w: t.view_as_real(z * w),
    "sum": lambda t, z, w: (z * w).sum(),
    "mean": lambda t, z, w: (z * w).mean(),
    "prod": lambda t, z, w: z.prod(),
    "mm": lambda t, z, w: z.reshape(2, 2) @ w.reshape(2, 2),
    "dot": lambda t, z, w: t.dot(z, w),
    "mv": lambda t, z, w: z.reshape(2, 2).mv(w[:2]),
    "bmm": lambda t, z, w: z.reshape(1, 2, 2).bmm(w.reshape(1, 2, 2)),
    "matmul_batched": lambda t, z, w: z.reshape(2, 1, 2) @ w.reshape(2, 2),
    "addmm": lambda t, z, w: t.addmm(w[:2], z.reshape(2, 2), w.reshape(2, 2)),
    "linear": lambda t, z, w: t.nn.functional.linear(z.reshape(2, 2), w.reshape(2, 2)),
    "einsum": lambda t, z, w: t.einsum("ij,jk->ik", z.reshape(2, 2), w.reshape(2, 2)),
    "cumprod": lambda t, z, w: z.cumprod(0),
    "with_real": lambda t, z, w: z * t.tensor([1.0, 2, 3, 4], requires_grad=True),
    "addcmul": lambda t, z, w: t.addcmul(z, w, z, value=0.5 - 1j),
    "addcdiv": lambda t, z, w: t.addcdiv(w, z, w, value=2),
    "addcmul_real_input": lambda t, z, w: t.addcmul(z.real, w, z),
    "lerp_scalar": lambda t, z, w: t.lerp(z, w, 0.3),
    "lerp_far": lambda t, z, w: z.lerp(w, 0.75 + 0.5j),
    "lerp_tensor": lambda t, z, w: t.lerp(z, w, z * w * 0.1),
    "real_written": lambda t, z, w: written(z * w, lambda b: b.real.mul_(3)),
    "imag_written": lambda t, z, w: written(z * 1, lambda b: b.imag.add_(w.real)),
    "pairs_written": lambda t, z, w: written(
        z * w, lambda b: t.view_as_real(b)[1:].mul_(w[:3].imag.unsqueeze(-1))
    ),
    "whole_written_after_part": lambda t, z, w: whole_written(z * 1, w),
}


def test_convolution_gradients_match_torch() -> None:
    """The values of a complex convolution's gradients. (PyTorch records
    three real convolutions and their sum; the engine, one node.)"""
    grads = []
    for lib in (st, require_torch()):
        z = lib.tensor(Z_VALUES, requires_grad=True)
        w = lib.tensor(W_VALUES[:2], requires_grad=True)
        out = lib.nn.functional.conv1d(z.view(1, 1, 4), w.view(1, 1, 2))
        real_loss(out).backward()
        grads.append((z.grad, w.grad))
    (z_ours, w_ours), (z_theirs, w_theirs) = grads
    assert_close(z_ours, z_theirs, tol=1e-4)
    assert_close(w_ours, w_theirs, tol=1e-4)


def written(b: Any, change: Callable[[Any], Any]) -> Any:
    """``b`` after ``change`` wrote into one of its parts, in place."""
    change(b)
    return b


def whole_written(b: Any, w: Any) -> Any:
    """A part of ``b`` taken before ``b`` is changed in place: it reads the
    new values, and its gradient goes through the change."""
    real = b.real
    b.mul_(w)
    return real * 2


def real_loss(out: Any) -> Any:
    """A real loss of ``out`` that mixes its real and imaginary parts."""
    if out.is_complex():
        return (out.abs() * 0.5 + out.real * out.imag).sum()
    return (out * out).sum()


def grad_fn_names(out: Any) -> list[str]:
    names, stack, seen = [], [out.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        stack.extend(n for n, _ in node.next_functions)
    return sorted(set(names))


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_gradients_match_torch(name: str) -> None:
    results = []
    for lib in (st, require_torch()):
        z = lib.tensor(Z_VALUES, requires_grad=True)
        w = lib.tensor(W_VALUES, requires_grad=True)
        out = GRAD_CASES[name](lib, z, w)
        names = grad_fn_names(out)
        real_loss(out).backward()
        results.append((out, z.grad, w.grad, names))
    ours, theirs = results
    assert_close(ours[0], theirs[0])
    assert_close(ours[1], theirs[1], tol=1e-4)
    if theirs[2] is None:
        assert ours[2] is None
    else:
        assert_close(ours[2], theirs[2], tol=1e-4)
    assert ours[3] == theirs[3]


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_gradients_match_finite_differences(name: str) -> None:
    """``z.grad`` is dL/dx + i dL/dy: each part, nudged, moves the loss so."""

    def loss_at(values: list[complex]) -> float:
        z = st.tensor(values, dtype=st.complex128)
        w = st.tensor(W_VALUES, dtype=st.complex128)
        with st.no_grad():
            return float(real_loss(GRAD_CASES[name](st, z, w)).item())

    z = st.tensor(Z_VALUES, dtype=st.complex128, requires_grad=True)
    w = st.tensor(W_VALUES, dtype=st.complex128, requires_grad=True)
    real_loss(GRAD_CASES[name](st, z, w)).backward()
    eps = 1e-6
    for i, value in enumerate(Z_VALUES):
        parts = []
        for step in (eps, eps * 1j):
            up, down = list(Z_VALUES), list(Z_VALUES)
            up[i], down[i] = value + step, value - step
            parts.append((loss_at(up) - loss_at(down)) / (2 * eps))
        expected = complex(parts[0], parts[1])
        assert cmath.isclose(z.grad[i].item(), expected, rel_tol=1e-5, abs_tol=1e-6)


def test_gradient_of_a_real_input_is_real() -> None:
    x = st.tensor([1.0, 2.0], requires_grad=True)
    (x * st.tensor([1j, 2 + 1j])).abs().sum().backward()
    assert x.grad is not None and x.grad.dtype is st.float32


def parts_written(t: Any) -> list[Any]:
    """Writes into ``z`` through its parts and into its parts through ``z``;
    returns what each side sees, with the strides and versions."""
    z = t.tensor([[1 + 2j, 3 - 4j], [5 + 0.5j, -1j]])
    seen: list[Any] = []
    real, imag, pairs = z.real, z.imag, t.view_as_real(z)
    seen.append([real.stride(), imag.stride(), imag.storage_offset()])
    seen.append([pairs.stride(), pairs.shape, z.t().imag.stride()])
    real.mul_(2)
    imag[1, 0] = 7.0
    pairs[0, 1, 1] = -3.0
    seen.append(z.tolist())
    z.mul_(1j)
    z[1:].real.fill_(0.5)
    seen.append([real.tolist(), imag.tolist(), pairs.tolist(), z.tolist()])
    seen.append([z._version, real._version, imag._version, pairs._version])
    seen.append([real._base is z, t.view_as_real(z[1])._base is z])
    return seen


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_parts_are_views_as_in_torch(dtype: str) -> None:
    def run(t: Any) -> list[Any]:
        with t.autograd.set_grad_enabled(False):
            t.set_default_dtype(t.float64 if dtype == "complex128" else t.float32)
            try:
                return parts_written(t)
            finally:
                t.set_default_dtype(t.float32)

    ours, theirs = run_both(run)
    assert ours == theirs


def test_parts_are_views_without_torch() -> None:
    z = st.tensor([1 + 2j, 3 - 4j])
    z.real.add_(1)
    z.imag[0] = 5.0
    assert z.tolist() == [2 + 5j, 4 - 4j]
    real = z.real
    z.zero_()
    assert real.tolist() == [0.0, 0.0] and real._version == z._version == 3
    x = st.tensor([1.0, 2.0])
    assert x.real is x  # a real tensor's real part is itself
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        st.tensor([1j], requires_grad=True).real.mul_(2)


def test_saved_part_changed_through_the_whole_is_caught() -> None:
    """A part saved for backward shares the complex tensor's version."""

    def run(t: Any) -> Any:
        z = t.tensor([1 + 2j, 3 - 4j], requires_grad=True) * 1
        real = z.real
        out = real.exp()  # saves its output; real itself is saved by sin
        loss = (real.sin() + out).sum()
        z.mul_(2)
        loss.backward()

    same_error(run, match_message=False)


CONVERSIONS: dict[str, Callable[[Any], Any]] = {
    "float": lambda t: float(t.tensor(1.5 + 0j)),
    "float_of_imaginary": lambda t: float(t.tensor(1 + 1j)),
    "int": lambda t: int(t.tensor(2.5 + 0j)),
    "int_of_imaginary": lambda t: int(t.tensor(2 + 1j)),
    "complex": lambda t: complex(t.tensor(1 + 2j)),
    "bool": lambda t: bool(t.tensor(1j)),
    "isclose": lambda t: t.isclose(z_of(t), z_of(t) + 1e-7).tolist(),
    "allclose": lambda t: t.allclose(z_of(t), w_of(t)),
    "numpy": lambda t: z_of(t, "complex128").numpy().tolist(),
}


@pytest.mark.parametrize("name", list(CONVERSIONS))
def test_conversions_match_torch(name: str) -> None:
    torch = require_torch()
    try:
        theirs = CONVERSIONS[name](torch)
    except RuntimeError:
        same_error(CONVERSIONS[name])
        return
    assert CONVERSIONS[name](st) == theirs


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_save_and_load_with_torch(dtype: str, tmp_path: Any) -> None:
    torch = require_torch()
    values = [0.1 + 0.2j, -3.5 + 1e-3j]
    st.save(st.tensor(values, dtype=getattr(st, dtype)), tmp_path / "ours.pt")
    torch.save(torch.tensor(values, dtype=getattr(torch, dtype)), tmp_path / "t.pt")
    for path in ("ours.pt", "t.pt"):
        ours = st.load(tmp_path / path)
        theirs = torch.load(tmp_path / path)
        assert ours.dtype.name == dtype and ours.tolist() == theirs.tolist()
