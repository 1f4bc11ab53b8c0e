"""torch's CPU random streams, draw by draw: every number bit for bit.

Each case draws under both libraries after the same ``manual_seed`` (or
from generators seeded alike) and compares every number by its bits, with
no tolerance. Sizes go around the 16-number blocks of torch's vectorised
normals; both float32 and float64 are drawn.

torch's ``bernoulli_(p)`` with a number ``p`` (and dropout's mask) goes
through Intel's MKL on an Intel processor; the engine follows the path
torch takes on other processors, so those cases are skipped on Intel.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib import _cephes32
from tests.data.worker_samples import Draws
from tests.parity import require_torch

SEEDS = [0, 1, 2**40 + 7]
SIZES = [1, 2, 15, 16, 17, 31, 32, 33, 100, 1000]


def on_intel() -> bool:
    try:
        with open("/proc/cpuinfo") as info:
            return "GenuineIntel" in info.read()
    except OSError:
        return False


def bits(value: Any) -> list[Any]:
    """Every number of a tensor (or nested lists), floats as their bits."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, list):
        return [b for item in value for b in bits(item)]
    if isinstance(value, float):
        return [struct.pack("<d", value)]
    return [value]


def assert_same_draws(draw: Callable[[Any, int], Any], seed: int, size: int) -> None:
    torch = require_torch()
    torch.manual_seed(seed)
    expected = bits(draw(torch, size))
    st.manual_seed(seed)
    actual = bits(draw(st, size))
    assert len(actual) == len(expected)
    wrong = [i for i, (a, e) in enumerate(zip(actual, expected)) if a != e]
    assert not wrong, f"{len(wrong)} of {len(expected)} differ, first at {wrong[0]}"


DRAWS: dict[str, Callable[[Any, int], Any]] = {
    "rand": lambda T, n: T.rand(n),
    "rand float64": lambda T, n: T.rand(n, dtype=T.float64),
    "rand complex64": lambda T, n: T.rand(n, dtype=T.complex64),
    "randn": lambda T, n: T.randn(n),
    "randn float64": lambda T, n: T.randn(n, dtype=T.float64),
    "randn 2-d": lambda T, n: T.randn(n, 3),
    "randn complex64": lambda T, n: T.randn(n, dtype=T.complex64),
    "randn_like": lambda T, n: T.randn_like(T.zeros(n, 2, dtype=T.float64)),
    "normal_": lambda T, n: T.empty(n).normal_(0.5, 2.0),
    "normal_ float64": lambda T, n: T.empty(n, dtype=T.float64).normal_(-1.5, 0.3),
    "uniform_": lambda T, n: T.empty(n).uniform_(-0.3, 0.7),
    "uniform_ float64": lambda T, n: T.empty(n, dtype=T.float64).uniform_(-3, 7),
    "randint": lambda T, n: T.randint(-5, 17, (n,)),
    "randint above 2**32": lambda T, n: T.randint(-(2**40), 2**41, (n,)),
    "randint int32": lambda T, n: T.randint(3, 1000, (n,), dtype=T.int32),
    "randint float32": lambda T, n: T.randint(-9, 2**20, (n,), dtype=T.float32),
    "randperm": lambda T, n: T.randperm(n),
    "bernoulli tensor float32": lambda T, n: T.bernoulli(T.linspace(0, 1, n)),
    "bernoulli tensor float64": lambda T, n: T.bernoulli(
        T.linspace(0, 1, n, dtype=T.float64)
    ),
    "bernoulli_ tensor p": lambda T, n: T.zeros(n, 2).bernoulli_(T.full((2,), 0.4)),
    "multinomial": lambda T, n: T.multinomial(T.arange(1.0, n + 1), min(n, 5)),
    "multinomial float64": lambda T, n: T.multinomial(
        T.arange(1.0, n + 1, dtype=T.float64).reshape(1, -1).repeat(2, 1), 1
    ),
    "multinomial replacement": lambda T, n: T.multinomial(
        T.arange(1.0, n + 1).reshape(1, -1).repeat(2, 1), 7, True
    ),
    "normal_ transposed": lambda T, n: T.zeros(n, 3).t().normal_(),
    "uniform_ permuted": lambda T, n: T.zeros(2, n, 3).permute(2, 0, 1).uniform_(),
    "normal_ every other": lambda T, n: T.zeros(n, 6)[:, ::2].normal_(1.0, 3.0),
    "bernoulli_ transposed": lambda T, n: (
        T.zeros(n, 2).t().bernoulli_(T.linspace(0, 1, n))
    ),
    "normal tensors": lambda T, n: T.normal(T.arange(float(n)), T.ones(n) / 2),
    "normal tensor mean": lambda T, n: T.normal(T.arange(float(n)), 0.5),
    "normal tensor std": lambda T, n: T.normal(0.5, T.arange(float(n))),
    "normal numbers": lambda T, n: T.normal(0.5, 2.0, (n,)),
}

SCALAR_P_DRAWS: dict[str, Callable[[Any, int], Any]] = {
    "bernoulli p": lambda T, n: T.bernoulli(T.zeros(n), 0.7),
    "bernoulli_ p": lambda T, n: T.zeros(n, dtype=T.float64).bernoulli_(0.25),
    "dropout": lambda T, n: T.nn.functional.dropout(T.ones(n), 0.3),
    "Dropout module": lambda T, n: T.nn.Dropout(0.6)(T.arange(float(n))),
}

INITS: dict[str, Callable[[Any, int], Any]] = {
    "Linear": lambda T, n: T.nn.Linear(n, 4).weight,
    "Linear bias float64": lambda T, n: T.nn.Linear(n, 4, dtype=T.float64).bias,
    "Conv2d": lambda T, n: T.nn.Conv2d(2, 3, 3).weight,
    "init.uniform_": lambda T, n: T.nn.init.uniform_(T.empty(n), -2, 3),
    "init.normal_": lambda T, n: T.nn.init.normal_(T.empty(n, 2), 1, 0.1),
    "kaiming_uniform_": lambda T, n: T.nn.init.kaiming_uniform_(T.empty(3, n)),
    "kaiming_normal_": lambda T, n: T.nn.init.kaiming_normal_(T.empty(3, n)),
    "xavier_uniform_": lambda T, n: T.nn.init.xavier_uniform_(T.empty(3, n)),
    "xavier_normal_": lambda T, n: T.nn.init.xavier_normal_(T.empty(3, n)),
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", list(DRAWS))
def test_draws_equal_torch(name: str, seed: int) -> None:
    for size in SIZES:
        assert_same_draws(DRAWS[name], seed, size)


@pytest.mark.skipif(on_intel(), reason="torch draws these with MKL on Intel")
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", list(SCALAR_P_DRAWS))
def test_coin_flips_with_a_number_p_equal_torch(name: str, seed: int) -> None:
    for size in SIZES:
        assert_same_draws(SCALAR_P_DRAWS[name], seed, size)


@pytest.mark.parametrize("name", list(INITS))
def test_initialisation_equals_torch(name: str) -> None:
    for seed in SEEDS:
        for size in (1, 3, 16, 50):
            assert_same_draws(INITS[name], seed, size)


def test_a_sequence_of_draws_equals_torch() -> None:
    """Several draws in a row: the cached float64 normal carries over."""

    def sequence(T: Any, n: int) -> list[Any]:
        return [
            T.randn(n),
            T.randn(3, dtype=T.float64),  # leaves one normal in the cache
            T.rand(n),
            T.randn(1, dtype=T.float64),  # takes it
            T.randn(5),
            T.randint(0, 9, (n,)),
            T.randperm(n),
            T.randn(n, dtype=T.float64),
            T.empty(7).normal_(),
        ]

    for seed in SEEDS:
        for size in (1, 16, 17, 700):
            assert_same_draws(sequence, seed, size)


def test_generator_objects_equal_torch() -> None:
    def from_generators(T: Any, n: int) -> list[Any]:
        first = T.Generator().manual_seed(n)
        second = T.Generator()  # torch's default seed
        return [
            T.rand(n, generator=first),
            T.randn(n, generator=second),
            T.randint(0, 5, (n,), generator=first),
            T.randperm(n, generator=second),
            T.empty(n).normal_(generator=first),
            T.rand(3),  # the default generator is left alone
            first.initial_seed(),
            second.initial_seed(),
        ]

    for size in (1, 17, 100):
        assert_same_draws(from_generators, 5, size)


def test_states_move_between_the_libraries() -> None:
    torch = require_torch()
    for seed in SEEDS:
        torch.manual_seed(seed)
        st.manual_seed(seed)
        assert st.get_rng_state().tolist() == torch.get_rng_state().tolist()
        torch.randn(3, dtype=torch.float64)
        torch.rand(650)
        saved = torch.get_rng_state()
        st.set_rng_state(st.tensor(saved.tolist(), dtype=st.uint8))
        assert st.get_rng_state().tolist() == saved.tolist()
        expected = bits([torch.randn(1, dtype=torch.float64), torch.randn(40)])
        assert bits([st.randn(1, dtype=st.float64), st.randn(40)]) == expected
        generator = torch.Generator().manual_seed(seed)
        torch.rand(5, generator=generator)
        state = st.tensor(generator.get_state().tolist(), dtype=st.uint8)
        mine = st.Generator().set_state(state)
        expected = bits(torch.randn(20, generator=generator))
        assert bits(st.randn(20, generator=mine)) == expected


def loader_batches(lib: Any, workers: int, seed: int, **options: Any) -> list[Any]:
    generator = lib.Generator().manual_seed(seed)
    loader = lib.utils.data.DataLoader(
        Draws(lib.__name__, 23),
        batch_size=4,
        shuffle=True,
        generator=generator,
        num_workers=workers,
        **options,
    )
    return [bits(batch[0]) for _ in range(2) for batch in loader]


def test_dataloader_order_equals_torch() -> None:
    torch = require_torch()
    for seed in (0, 7):
        assert loader_batches(st, 0, seed) == loader_batches(torch, 0, seed)
        torch.manual_seed(seed)
        st.manual_seed(seed)
        expected = [
            bits(list(torch.utils.data.RandomSampler(range(9)))),
            bits(list(torch.utils.data.RandomSampler(range(9), True, 40))),
            bits(list(torch.utils.data.SubsetRandomSampler([4, 5, 6, 7]))),
            [
                bits(list(part))
                for part in torch.utils.data.random_split(range(9), [4, 5])
            ],
            bits(torch.rand(3)),
        ]
        actual = [
            bits(list(st.utils.data.RandomSampler(range(9)))),
            bits(list(st.utils.data.RandomSampler(range(9), True, 40))),
            bits(list(st.utils.data.SubsetRandomSampler([4, 5, 6, 7]))),
            [bits(list(part)) for part in st.utils.data.random_split(range(9), [4, 5])],
            bits(st.rand(3)),
        ]
        assert actual == expected


def test_workers_keep_the_order_and_get_torch_seeds() -> None:
    torch = require_torch()
    alone = loader_batches(st, 0, 3)
    assert loader_batches(st, 2, 3) == alone
    assert loader_batches(torch, 0, 3) == alone
    with_workers = _worker_samples(st)
    assert with_workers == _worker_samples(torch)
    assert {seed for _, seed, _, _ in with_workers} == {
        with_workers[0][1],
        with_workers[0][1] + 1,
    }


def _worker_samples(lib: Any) -> list[Any]:
    """Each sample's index, worker seed and draws, loaded by two workers."""
    generator = lib.Generator().manual_seed(11)
    loader = lib.utils.data.DataLoader(
        Draws(lib.__name__),
        batch_size=None,
        shuffle=True,
        generator=generator,
        num_workers=2,
    )
    return [[int(i), int(seed), float(u), z] for i, seed, u, z in loader]


# ----------------------------------------------------------------------
# Without torch: the float32 arithmetic the normals are built from
# ----------------------------------------------------------------------


def test_fused_multiply_add_rounds_once() -> None:
    cases = [
        (1.0, 1.0 + 2.0**-23, 2.0**-48),  # halfway after one rounding
        (1.0 + 2.0**-23, 1.0 + 2.0**-23, -1.0),
        (3.0, 0.1, -0.3),
        (-1.5, 2.0**-30, 1.0),
    ]
    for a, b, c in cases:
        a, b, c = _cephes32.f32([a, b, c])
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        fused = _cephes32.fma([a], [b], [c])[0]
        neighbours = [
            f
            for f in _f32_neighbours(float(exact))
            if abs(Fraction(f) - exact) <= abs(Fraction(fused) - exact)
        ]
        assert neighbours == [fused] or fused in neighbours


def _f32_neighbours(value: float) -> list[float]:
    low = _cephes32.f32([value])[0]
    word = _cephes32.bits([low])[0]
    return _cephes32.from_bits([word - 1, word, word + 1])


def test_float32_log_and_sincos_are_close_to_the_exact_values() -> None:
    xs = _cephes32.f32([k / 997 for k in range(1, 998)])
    for x, y in zip(xs, _cephes32.log(xs)):
        assert math.isclose(y, math.log(x), rel_tol=3e-7, abs_tol=2e-7)
    angles = _cephes32.f32([k / 150 for k in range(0, 943)])  # [0, 2 pi)
    sines, cosines = _cephes32.sincos(angles)
    for x, s, c in zip(angles, sines, cosines):
        assert abs(s - math.sin(x)) < 2e-7 and abs(c - math.cos(x)) < 2e-7
