"""The random number generator and the random tensors built on it.

The numbers are torch's (tests/test_random_streams.py compares them draw
by draw); these tests check determinism, ranges, dtypes, shapes and
statistics, pin a few exact values (golden numbers, recorded under torch
2.13) so that an accidental change fails even without torch, and compare
errors, dtypes and seeds with torch.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st_

import slowtorch_lib as st
from slowtorch_lib._mt19937 import MT19937, seeded_words, temper, tempered, twist
from slowtorch_lib._rng import Generator
from slowtorch_lib.utils.data import RandomSampler
from tests.parity import (
    both,
    require_torch,
    same_error,
)


def mean_and_variance(values: list[float]) -> tuple[float, float]:
    mean = sum(values) / len(values)
    return mean, sum((v - mean) ** 2 for v in values) / (len(values) - 1)


# ----------------------------------------------------------------------
# The generator itself
# ----------------------------------------------------------------------


def test_mersenne_twister_reference_outputs() -> None:
    """The twister's published outputs, and Python's own twister's."""
    twister = MT19937(5489)
    assert twister.next_uint32s(3) == [3499211612, 581869302, 3890346734]
    python = random.Random()
    python.setstate((3, (*seeded_words(123), 624), None))
    twister = MT19937(123)
    mixed = twister.next_uint32s(5) + [twister.next_uint32() for _ in range(700)]
    mixed += twister.next_uint32s(1300)
    assert mixed == [python.getrandbits(32) for _ in range(2005)]


def test_the_twister_follows_its_readable_steps() -> None:
    """Each block of 624 outputs is ``tempered(twist(words))``."""
    words = seeded_words(2**40 + 9)  # only the low 32 bits are used
    twister = MT19937(2**40 + 9)
    for _ in range(3):
        twist(words)
        assert twister.next_uint32s(624) == tempered(words)
        assert twister.words == words
    assert [temper(w) for w in words] == tempered(words)


def test_golden_values() -> None:
    """Exact values after manual_seed(0), as torch 2.13 gives them."""
    st.manual_seed(0)
    assert st.rand(4).tolist() == [
        0.49625658988952637,
        0.7682217955589294,
        0.08847743272781372,
        0.13203048706054688,
    ]
    assert st.rand(3, dtype=st.float64).tolist() == [
        0.45938294312745087,
        0.9207476841219603,
        0.6450241201227648,
    ]
    assert st.randn(3).tolist() == [
        0.1603812575340271,
        -0.6064512133598328,
        -0.7830641269683838,
    ]
    assert st.randint(0, 10, (8,)).tolist() == [4, 3, 6, 9, 1, 4, 4, 1]
    assert st.randperm(8).tolist() == [5, 4, 0, 3, 2, 1, 7, 6]


def test_same_seed_same_numbers() -> None:
    st.manual_seed(42)
    first = [st.rand(5).tolist(), st.randn(2, 3).tolist(), st.randint(7, (4,)).tolist()]
    st.manual_seed(42)
    second = [
        st.rand(5).tolist(),
        st.randn(2, 3).tolist(),
        st.randint(7, (4,)).tolist(),
    ]
    assert first == second
    st.manual_seed(43)
    assert st.rand(5).tolist() != first[0]


def test_draws_continue_the_sequence() -> None:
    st.manual_seed(1)
    both = st.rand(6).tolist()
    st.manual_seed(1)
    assert st.rand(2).tolist() + st.rand(4).tolist() == both


def test_own_generator_leaves_default_alone() -> None:
    st.manual_seed(5)
    expected = st.rand(3).tolist()
    st.manual_seed(5)
    g = Generator().manual_seed(5)
    from_g = st.rand(3, generator=g).tolist()
    assert st.rand(3).tolist() == expected
    assert from_g == expected  # same seed, same algorithm


def test_manual_seed_returns_generator_and_sets_initial_seed() -> None:
    torch = require_torch()
    for seed in (0, 3, -1, 2**64 - 1, -(2**63), 1.5, True):
        result = st.manual_seed(seed)
        assert result is st.default_generator
        assert st.initial_seed() == torch.manual_seed(seed).initial_seed()
    torch.seed()


@pytest.mark.parametrize(
    "make",
    [
        lambda T: T.manual_seed(2**64),
        lambda T: T.manual_seed(-(2**63) - 1),
        lambda T: T.manual_seed("a"),
    ],
)
def test_manual_seed_errors_match_torch(make: Callable[[Any], Any]) -> None:
    same_error(make)


def test_new_generator_has_torch_default_seed() -> None:
    torch = require_torch()
    assert Generator().initial_seed() == torch.Generator().initial_seed()
    assert st.Generator is Generator
    assert repr(Generator(device="cpu").device) == "device(type='cpu')"
    with pytest.raises(AssertionError):
        Generator(device="cuda")


def test_seed_is_fresh_each_time() -> None:
    first = st.seed()
    assert st.initial_seed() == first
    assert 0 <= first < 2**64
    assert st.seed() != first  # 1 chance in 2**64 of failing


def test_state_round_trip() -> None:
    g = Generator().manual_seed(2**64 - 5)  # a seed above 2**63 survives
    st.randn(3, generator=g, dtype=st.float64)  # leaves a cached normal
    state = g.get_state()
    assert state.dtype is st.uint8 and tuple(state.shape) == (5056,)
    ahead = st.randn(5, generator=g, dtype=st.float64).tolist()
    g.manual_seed(0)
    g.set_state(state)
    assert st.randn(5, generator=g, dtype=st.float64).tolist() == ahead
    assert g.initial_seed() == 2**64 - 5

    st.manual_seed(9)
    saved = st.get_rng_state()
    values = st.randn(3).tolist()
    st.set_rng_state(saved)
    assert st.randn(3).tolist() == values


def test_state_errors() -> None:
    same_error(lambda T: T.Generator().set_state(5))
    same_error(lambda T: T.Generator().set_state(T.zeros(3)))
    same_error(lambda T: T.Generator().set_state(T.zeros(3, dtype=T.uint8)))
    same_error(lambda T: T.Generator().set_state(T.zeros(5056, dtype=T.uint8)))
    with pytest.raises(TypeError):
        st.rand(2, generator=5)  # type: ignore[arg-type]


# ----------------------------------------------------------------------
# Random tensors: shapes, dtypes, ranges
# ----------------------------------------------------------------------


def test_shapes_and_dtypes_match_torch() -> None:
    torch = require_torch()
    cases: list[Callable[[Any], Any]] = [
        lambda T: T.rand(2, 3),
        lambda T: T.rand((2, 3)),
        lambda T: T.rand(size=(4,)),
        lambda T: T.rand(()),
        lambda T: T.rand(0, 2),
        lambda T: T.rand(2, dtype=T.float64),
        lambda T: T.rand(2, requires_grad=True),
        lambda T: T.randn(3, 1),
        lambda T: T.randn(2, dtype=T.float64, requires_grad=True),
        lambda T: T.randint(10, (3,)),
        lambda T: T.randint(3, 10, (2, 2)),
        lambda T: T.randint(10, size=(2,)),
        lambda T: T.randint(low=2, high=10, size=(2,)),
        lambda T: T.randint(0, 10, (2,), dtype=T.float32),
        lambda T: T.randint(0, 2, (2,), dtype=T.bool),
        lambda T: T.randint(-5, -2, (4,)),
        lambda T: T.randperm(5),
        lambda T: T.randperm(0),
        lambda T: T.randperm(3, dtype=T.float32),
        lambda T: T.rand_like(T.zeros(2, 3, dtype=T.float64)),
        lambda T: T.randn_like(T.zeros(2)),
        lambda T: T.randn_like(T.zeros(2), requires_grad=True),
        lambda T: T.randint_like(T.zeros(2), 5),
        lambda T: T.randint_like(T.zeros(2), 2, 5),
        lambda T: T.randint_like(T.zeros(2, dtype=T.int64), 5),
        lambda T: T.zeros(3).uniform_(),
        lambda T: T.zeros(3, dtype=T.float64).normal_(2.0, 0.5),
        lambda T: T.zeros(3).uniform_(1, 1),
        lambda T: T.zeros(3).normal_(0, 0),
        lambda T: T.rand(2, 3, dtype=T.complex64),
        lambda T: T.randn(2, dtype=T.complex128, requires_grad=True),
        lambda T: T.randn(3, dtype=T.complex32),
        lambda T: T.rand_like(T.zeros(2, dtype=T.complex64)),
        lambda T: T.randn_like(T.zeros(2, dtype=T.complex128)),
        lambda T: T.zeros(2, dtype=T.complex64).uniform_(-1, 1),
        lambda T: T.zeros(2, dtype=T.complex64).normal_(1, 2),
    ]
    for make in cases:
        ours, theirs = make(st), make(torch)
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert repr(ours.dtype) == repr(theirs.dtype)
        assert ours.requires_grad == theirs.requires_grad


def test_degenerate_ranges_give_torch_values() -> None:
    assert st.zeros(3).uniform_(1, 1).tolist() == [1.0, 1.0, 1.0]
    assert st.zeros(3).normal_(2, 0).tolist() == [2.0, 2.0, 2.0]
    assert st.randint(0, 1, (4,)).tolist() == [0, 0, 0, 0]


ERRORS: list[Callable[[Any], Any]] = [
    lambda T: T.rand(2, dtype=T.int64),
    lambda T: T.rand(2, dtype=T.bool),
    lambda T: T.randn(2, dtype=T.int64),
    lambda T: T.rand(-1),
    lambda T: T.randn(-1, 2),
    lambda T: T.rand(2.5),
    lambda T: T.randint(5, 5, (3,)),
    lambda T: T.randint(6, 5, (3,)),
    lambda T: T.randint(10, 3),
    lambda T: T.randint(0, 2**63, (2,)),
    lambda T: T.randint(10, (2,), requires_grad=True),
    lambda T: T.randperm(-1),
    lambda T: T.randperm(2.5),
    lambda T: T.rand_like(T.zeros(2, dtype=T.int64)),
    lambda T: T.rand_like([1.0]),
    lambda T: T.zeros(3).uniform_(2, 1),
    lambda T: T.zeros(3).uniform_(0, math.inf),
    lambda T: T.zeros(3, dtype=T.float64).uniform_(-math.inf, 0),
    lambda T: T.zeros(3).normal_(0, -1),
    lambda T: T.zeros(3, dtype=T.int64).normal_(),
    lambda T: T.zeros(3, dtype=T.int64).uniform_(),
    lambda T: T.zeros(3, requires_grad=True).uniform_(),
    lambda T: T.zeros(3, requires_grad=True).normal_(),
    lambda T: T.zeros(3, dtype=T.complex64).uniform_(0, math.inf),
    lambda T: T.zeros(3, dtype=T.complex32).uniform_(0, math.inf),
    lambda T: T.zeros(3, dtype=T.complex128).uniform_(2, 1),
    lambda T: T.zeros(3, dtype=T.complex64).normal_(0, -1),
    lambda T: T.bernoulli(T.zeros(2, dtype=T.complex64)),
    lambda T: T.bernoulli(T.zeros(2, dtype=T.complex64), p=0.5),
    lambda T: T.zeros(2, dtype=T.complex128).bernoulli_(0.5),
    lambda T: T.zeros(2, dtype=T.complex64).bernoulli_(T.ones(2) / 2),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index: int) -> None:
    same_error(ERRORS[index])


def test_randint_float_bound_is_type_error() -> None:
    same_error(lambda T: T.randint(0, 2.5, (2,)), match_message=False)


def test_failed_fill_leaves_tensor_unchanged() -> None:
    x = st.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError):
        x.uniform_(2, 1)
    with pytest.raises(RuntimeError):
        x.normal_(0, -1)
    assert x.tolist() == [1.0, 2.0] and x._version == 0


@given(
    st_.lists(st_.integers(0, 4), max_size=3),
    st_.sampled_from(["float32", "float64"]),
    st_.integers(0, 2**64 - 1),
)
def test_rand_is_in_unit_interval(shape: list[int], dtype: str, seed: int) -> None:
    g = Generator().manual_seed(seed)
    x = st.rand(tuple(shape), dtype=getattr(st, dtype), generator=g)
    assert tuple(x.shape) == tuple(shape) and x.dtype is getattr(st, dtype)
    assert all(0.0 <= v < 1.0 for v in x.flatten().tolist())


@given(st_.integers(-(2**62), 2**62), st_.integers(1, 2**62), st_.integers(0, 2**32))
def test_randint_stays_in_range(low: int, width: int, seed: int) -> None:
    g = Generator().manual_seed(seed)
    values = st.randint(low, low + width, (20,), generator=g).tolist()
    assert all(low <= v < low + width for v in values)


@given(st_.integers(0, 50), st_.integers(0, 2**32))
def test_randperm_is_a_permutation(n: int, seed: int) -> None:
    g = Generator().manual_seed(seed)
    assert sorted(st.randperm(n, generator=g).tolist()) == list(range(n))


@given(st_.floats(-100, 100), st_.floats(0, 50), st_.integers(0, 2**32))
def test_uniform_fill_stays_in_range(low: float, width: float, seed: int) -> None:
    high = low + width
    x = st.zeros(50, dtype=st.float64).uniform_(
        low, high, generator=Generator().manual_seed(seed)
    )
    assert all(low <= v <= high for v in x.tolist())


# ----------------------------------------------------------------------
# Statistics (loose bounds, fixed seeds: these cannot flake)
# ----------------------------------------------------------------------


def test_rand_statistics() -> None:
    g = Generator().manual_seed(2024)
    mean, variance = mean_and_variance(st.rand(20000, generator=g).tolist())
    assert abs(mean - 0.5) < 0.01
    assert abs(variance - 1 / 12) < 0.005


def test_randn_statistics() -> None:
    g = Generator().manual_seed(7)
    values = st.randn(20000, dtype=st.float64, generator=g).tolist()
    mean, variance = mean_and_variance(values)
    assert abs(mean) < 0.03
    assert abs(variance - 1.0) < 0.04
    within_one_sigma = sum(abs(v) < 1 for v in values) / len(values)
    assert abs(within_one_sigma - 0.6827) < 0.015
    skew = sum((v - mean) ** 3 for v in values) / len(values)
    assert abs(skew) < 0.1


def test_normal_fill_statistics() -> None:
    x = st.zeros(100, 100).normal_(3.0, 2.0, generator=Generator().manual_seed(11))
    mean, variance = mean_and_variance(x.flatten().tolist())
    assert abs(mean - 3.0) < 0.06
    assert abs(variance - 4.0) < 0.2


def test_complex_randn_has_parts_of_variance_one_half() -> None:
    """As PyTorch's: real and imaginary parts independent, each N(0, 1/2),
    so that E|z|**2 = 1 (the numbers differ, as all of the engine's do)."""
    z = st.randn(20000, dtype=st.complex128, generator=Generator().manual_seed(5))
    real_mean, real_variance = mean_and_variance(z.real.tolist())
    imag_mean, imag_variance = mean_and_variance(z.imag.tolist())
    assert abs(real_mean) < 0.02 and abs(imag_mean) < 0.02
    assert abs(real_variance - 0.5) < 0.02 and abs(imag_variance - 0.5) < 0.02
    products = [a * b for a, b in zip(z.real.tolist(), z.imag.tolist())]
    assert abs(sum(products) / len(products)) < 0.02  # uncorrelated parts
    assert abs(sum(abs(v) ** 2 for v in z.tolist()) / len(z) - 1.0) < 0.03


def test_complex_rand_and_fills_draw_each_part() -> None:
    """Two draws per element, real part first, as PyTorch orders them."""
    z = st.rand(3, dtype=st.complex64, generator=Generator().manual_seed(9))
    x = st.rand(6, generator=Generator().manual_seed(9))
    assert st.view_as_real(z).flatten().tolist() == x.tolist()
    g = Generator().manual_seed(4)
    filled = st.zeros(2000, dtype=st.complex128).normal_(1.0, 2.0, generator=g)
    real_mean, real_variance = mean_and_variance(filled.real.tolist())
    imag_mean, imag_variance = mean_and_variance(filled.imag.tolist())
    assert abs(real_mean - 1.0) < 0.1 and abs(imag_mean - 1.0) < 0.1
    assert abs(real_variance - 2.0) < 0.2 and abs(imag_variance - 2.0) < 0.2
    box = st.zeros(500, dtype=st.complex64).uniform_(-2, 3, generator=g)
    parts = st.view_as_real(box).flatten().tolist()
    assert all(-2 <= v < 3 for v in parts) and min(parts) < -1.5 < 2.5 < max(parts)
    scaled = st.randn(4, dtype=st.complex128, generator=Generator().manual_seed(1))
    plain = st.randn(8, dtype=st.float64, generator=Generator().manual_seed(1))
    expected = [v / math.sqrt(2) for v in plain.tolist()]
    assert st.view_as_real(scaled).flatten().tolist() == pytest.approx(expected)


def test_randint_is_uniform() -> None:
    g = Generator().manual_seed(3)
    values = st.randint(0, 6, (12000,), generator=g).tolist()
    counts = [values.count(k) for k in range(6)]
    expected = len(values) / 6
    chi_square = sum((c - expected) ** 2 / expected for c in counts)
    assert chi_square < 20.5  # the 0.1% critical value for 5 degrees of freedom


def test_randperm_moves_every_item_evenly() -> None:
    g = Generator().manual_seed(4)
    first_items = [st.randperm(4, generator=g).tolist()[0] for _ in range(4000)]
    for k in range(4):
        assert abs(first_items.count(k) / 4000 - 0.25) < 0.03


# ----------------------------------------------------------------------
# In-place fills on views and in the autograd world
# ----------------------------------------------------------------------


def test_fill_writes_through_views_only() -> None:
    x = st.zeros(3, 4)
    x[:, 1].uniform_(5.0, 6.0)
    rows = x.tolist()
    for row in rows:
        assert row[0] == row[2] == row[3] == 0.0
        assert 5.0 <= row[1] < 6.0
    y = st.zeros(2, 3)
    y.t().normal_(10.0, 0.1)  # a non-contiguous view
    assert all(9.0 < v < 11.0 for v in y.flatten().tolist())


def test_fill_bumps_version_and_works_under_no_grad() -> None:
    w = st.zeros(4, requires_grad=True)
    with st.no_grad():
        w.uniform_(-1, 1)
        w.normal_()
    assert w._version == 2
    assert w.requires_grad and w.is_leaf


def test_fill_returns_self() -> None:
    x = st.zeros(2)
    assert x.uniform_() is x
    assert x.normal_() is x


def test_new_methods_follow_torch() -> None:
    torch = require_torch()
    for make in [
        lambda T: T.zeros(2, dtype=T.float64).new_zeros(3),
        lambda T: T.zeros(2, dtype=T.float64).new_zeros((1, 2)),
        lambda T: T.zeros(2, dtype=T.int64).new_ones(2, 2),
        lambda T: T.zeros(2, dtype=T.float64).new_full((2,), 7),
        lambda T: T.zeros(2, dtype=T.float64).new_tensor([1, 2]),
        lambda T: T.zeros(2).new_tensor([1, 2], dtype=T.int64),
        lambda T: T.zeros(2).new_zeros(2, requires_grad=True),
        lambda T: T.zeros(2, dtype=T.bool).new_empty(3),
    ]:
        ours, theirs = make(st), make(torch)
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert repr(ours.dtype) == repr(theirs.dtype)
        assert ours.requires_grad == theirs.requires_grad
        if "new_empty" not in repr(make.__code__.co_names):
            assert ours.tolist() == theirs.tolist()


def test_exports_under_torch_names() -> None:
    torch = require_torch()
    for name in [
        "manual_seed",
        "seed",
        "initial_seed",
        "Generator",
        "default_generator",
        "get_rng_state",
        "set_rng_state",
        "rand",
        "randn",
        "randint",
        "randperm",
        "rand_like",
        "randn_like",
        "randint_like",
        "bernoulli",
    ]:
        assert hasattr(torch, name) and hasattr(st, name), name
    assert st.random.manual_seed is st.manual_seed
    for method in (
        "uniform_",
        "normal_",
        "bernoulli_",
        "new_zeros",
        "new_ones",
        "new_full",
        "new_tensor",
        "new_empty",
    ):
        assert hasattr(torch.Tensor, method) and hasattr(st.Tensor, method), method


# ----------------------------------------------------------------------
# Coin flips
# ----------------------------------------------------------------------


def test_bernoulli_shapes_dtypes_and_extremes() -> None:
    torch = require_torch()
    for make in [
        lambda T: T.bernoulli(T.tensor([0.0, 1.0, 0.5])),
        lambda T: T.bernoulli(T.tensor([[0.5]], dtype=T.float64)),
        lambda T: T.bernoulli(T.tensor([0.3, 0.9]), 0.5),
        lambda T: T.zeros(3).bernoulli_(0.5),
        lambda T: T.zeros(3, dtype=T.int64).bernoulli_(0.5),
        lambda T: T.zeros(3, dtype=T.bool).bernoulli_(0.5),
    ]:
        ours, theirs = make(st), make(torch)
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert repr(ours.dtype) == repr(theirs.dtype)
        assert set(ours.flatten().tolist()) <= {0, 1}
    assert st.bernoulli(st.tensor([0.0, 1.0, 0.0, 1.0])).tolist() == [
        0.0,
        1.0,
        0.0,
        1.0,
    ]
    assert st.zeros(3).bernoulli_(st.tensor([0.0, 1.0, 1.0])).tolist() == [
        0.0,
        1.0,
        1.0,
    ]
    assert st.zeros(2, 2).bernoulli_(st.tensor([1.0, 0.0])).tolist() == [[1, 0], [1, 0]]


@pytest.mark.parametrize(
    "make",
    [
        lambda T: T.bernoulli(T.tensor([0, 1])),
        lambda T: T.bernoulli(T.tensor([1.5])),
        lambda T: T.bernoulli(T.tensor([math.nan])),
        lambda T: T.zeros(3).bernoulli_(1.5),
        lambda T: T.zeros(3, requires_grad=True).bernoulli_(),
    ],
)
def test_bernoulli_error_types_match_torch(make: Callable[[Any], Any]) -> None:
    same_error(make, match_message=False)


def test_bernoulli_statistics() -> None:
    g = Generator().manual_seed(8)
    flips = st.bernoulli(st.full((20000,), 0.3), generator=g).tolist()
    assert abs(sum(flips) / len(flips) - 0.3) < 0.015
    x = st.zeros(10000).bernoulli_(0.8, generator=Generator().manual_seed(1))
    assert abs(sum(x.tolist()) / 10000 - 0.8) < 0.015


def test_bernoulli_in_a_graph_as_torch() -> None:
    """``bernoulli(x)`` records a node with a zero gradient; with a number
    ``p`` the node has no derivative, and backward raises."""
    torch = require_torch()
    for lib in (st, torch):
        x = lib.full((3,), 0.5, requires_grad=True)
        flips = x.bernoulli()
        assert type(flips.grad_fn).__name__ == "BernoulliBackward0"
        flips.sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]
        with_p = lib.bernoulli(x, 0.3)
        assert with_p.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::bernoulli"):
            with_p.sum().backward()
        assert not lib.bernoulli(x.detach()).requires_grad


# ---------------------------------------------------------------- multinomial


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.multinomial(L.tensor([0.2, 0.8]), 3),
        lambda L: L.multinomial(L.tensor([0.2, -0.8]), 1),
        lambda L: L.multinomial(L.tensor([0.2, math.inf]), 1, True),
        lambda L: L.multinomial(L.tensor([0.2, math.nan]), 1),
        lambda L: L.multinomial(L.tensor([0.0, 0.0]), 1),
        lambda L: L.multinomial(L.tensor([[0.0, 0.0], [1.0, 1.0]]), 1),
        lambda L: L.multinomial(L.tensor([1, 2]), 1),
        lambda L: L.multinomial(L.tensor(1.0), 1),
        lambda L: L.multinomial(L.ones(1, 1, 1), 1),
        lambda L: L.multinomial(L.tensor([1.0, 2.0]), 0),
        lambda L: L.multinomial(L.zeros(2, 0), 1),
    ],
)
def test_multinomial_refuses_as_torch(call: Callable[[Any], Any]) -> None:
    same_error(call)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.multinomial(L.tensor([0.2, 0.8]), 5, replacement=True),
        lambda L: L.tensor([[0.2, 0.8], [1.0, 1.0]]).multinomial(4, True),
        lambda L: L.multinomial(L.tensor([1.0, 2.0, 3.0], dtype=L.float64), 3),
        lambda L: L.multinomial(L.tensor([1.0, 2.0], requires_grad=True), 1),
        lambda L: L.multinomial(L.tensor([1.0, 0.0, 0.0]), 2),
    ],
)
def test_multinomial_shape_and_dtype(call: Callable[[Any], Any]) -> None:
    ours, theirs = both(call)
    assert (ours.shape, str(ours.dtype), ours.requires_grad) == (
        theirs.shape,
        str(theirs.dtype),
        theirs.requires_grad,
    )


def test_multinomial_frequencies_follow_the_weights() -> None:
    g = st.Generator().manual_seed(0)
    draws = st.multinomial(st.tensor([1.0, 2.0, 7.0]), 20000, True, generator=g)
    shares = [(draws == i).sum().item() / 20000 for i in range(3)]
    for share, expected in zip(shares, (0.1, 0.2, 0.7)):
        # Four standard deviations of a binomial proportion.
        assert abs(share - expected) < 4 * math.sqrt(expected * (1 - expected) / 20000)


def test_multinomial_without_replacement_draws_each_category_once() -> None:
    g = st.Generator().manual_seed(1)
    rows = st.multinomial(st.ones(50, 6), 6, generator=g).tolist()
    assert all(sorted(row) == list(range(6)) for row in rows)
    # Categories of weight 0 come only after the others.
    assert st.multinomial(st.tensor([0.0, 1.0, 0.0, 1.0]), 4)[:2].sort()[
        0
    ].tolist() == [
        1,
        3,
    ]


def test_multinomial_is_reproducible_with_a_seed() -> None:
    first = st.multinomial(st.ones(9), 4, generator=st.Generator().manual_seed(5))
    again = st.multinomial(st.ones(9), 4, generator=st.Generator().manual_seed(5))
    assert first.tolist() == again.tolist()


# ---------------------------------------------------------------- samplers


def test_random_sampler_draws_lazily() -> None:
    sampler = RandomSampler(range(10), replacement=True, num_samples=10**10)
    assert len(sampler) == 10**10
    first = list(itertools.islice(iter(sampler), 100))
    assert len(first) == 100 and all(0 <= i < 10 for i in first)
    assert sorted(RandomSampler(range(5), num_samples=5)) == list(range(5))
    assert len(list(RandomSampler(range(5), replacement=True, num_samples=70))) == 70
