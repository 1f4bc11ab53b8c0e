"""nn.init against torch.nn.init: the same fan rules, gains, errors and distributions.

The numbers themselves are torch's (``tests/test_random_streams.py``
compares them bit for bit); here the distributions are also checked
statistically: the sample mean and standard
deviation against the formula, the formula against torch's samples, and a
two-sample Kolmogorov–Smirnov test between our samples and torch's.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.nn import init
from tests.parity import assert_same, require_torch, same_error

torch = require_torch()

SHAPE = (100, 200)  # 20,000 draws: fan_in 200, fan_out 100
N = SHAPE[0] * SHAPE[1]


def flat(tensor: Any) -> list[float]:
    return [float(v) for v in tensor.reshape(-1).tolist()]


def moments(values: list[float]) -> tuple[float, float]:
    mean = math.fsum(values) / len(values)
    variance = math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, math.sqrt(variance)


def ks_statistic(xs: list[float], ys: list[float]) -> float:
    """The largest gap between the two empirical distribution functions."""
    xs, ys = sorted(xs), sorted(ys)
    i = j = 0
    gap = 0.0
    while i < len(xs) and j < len(ys):
        value = min(xs[i], ys[j])
        while i < len(xs) and xs[i] == value:
            i += 1
        while j < len(ys) and ys[j] == value:
            j += 1
        gap = max(gap, abs(i / len(xs) - j / len(ys)))
    return gap


# Two samples of 20,000 from one distribution: the KS statistic exceeds
# 1.95 * sqrt(2 / N) with probability 0.001.
KS_LIMIT = 1.95 * math.sqrt(2 / N)


def draw(lib: Any, name: str, kwargs: dict[str, Any], seed: int = 0) -> Any:
    lib.manual_seed(seed)
    tensor = lib.empty(*SHAPE)
    result = getattr(lib.nn.init, name)(tensor, **kwargs)
    assert result is tensor
    return tensor


FAN_IN, FAN_OUT = SHAPE[1], SHAPE[0]

# name, kwargs, expected mean, expected std, uniform bound (or None)
CASES = [
    ("uniform_", {}, 0.5, math.sqrt(1 / 12), None),
    ("uniform_", {"a": -3.0, "b": 1.0}, -1.0, 4 / math.sqrt(12), None),
    ("normal_", {}, 0.0, 1.0, None),
    ("normal_", {"mean": 2.0, "std": 0.1}, 2.0, 0.1, None),
    (
        "xavier_uniform_",
        {},
        0.0,
        math.sqrt(2 / (FAN_IN + FAN_OUT)),
        math.sqrt(6 / (FAN_IN + FAN_OUT)),
    ),
    (
        "xavier_uniform_",
        {"gain": 5 / 3},
        0.0,
        5 / 3 * math.sqrt(2 / (FAN_IN + FAN_OUT)),
        5 / 3 * math.sqrt(6 / (FAN_IN + FAN_OUT)),
    ),
    ("xavier_normal_", {"gain": 2.0}, 0.0, 2 * math.sqrt(2 / (FAN_IN + FAN_OUT)), None),
    (
        "kaiming_uniform_",
        {},
        0.0,
        math.sqrt(2 / (1 + 0.0)) / math.sqrt(FAN_IN),
        math.sqrt(6 / FAN_IN),
    ),
    (
        "kaiming_uniform_",
        {"a": math.sqrt(5)},
        0.0,
        1 / math.sqrt(3 * FAN_IN),
        1 / math.sqrt(FAN_IN),
    ),
    (
        "kaiming_uniform_",
        {"mode": "fan_out", "nonlinearity": "relu"},
        0.0,
        math.sqrt(2 / FAN_OUT),
        math.sqrt(6 / FAN_OUT),
    ),
    ("kaiming_normal_", {}, 0.0, math.sqrt(2 / FAN_IN), None),
    (
        "kaiming_normal_",
        {"a": 0.2, "mode": "FAN_OUT"},
        0.0,
        math.sqrt(2 / (1 + 0.04)) / math.sqrt(FAN_OUT),
        None,
    ),
    ("kaiming_normal_", {"nonlinearity": "tanh"}, 0.0, 5 / 3 / math.sqrt(FAN_IN), None),
]


@pytest.mark.parametrize(("name", "kwargs", "mean", "std", "bound"), CASES)
def test_distribution_matches_formula_and_torch(
    name: str, kwargs: dict[str, Any], mean: float, std: float, bound: float | None
) -> None:
    ours = flat(draw(st, name, kwargs))
    theirs = flat(draw(torch, name, kwargs))
    # The formula is torch's: its samples agree with it.
    their_mean, their_std = moments(theirs)
    assert abs(their_mean - mean) < 5 * std / math.sqrt(N)
    assert abs(their_std / std - 1) < 0.03
    # Ours agree with the formula to within sampling error (5 standard errors).
    our_mean, our_std = moments(ours)
    assert abs(our_mean - mean) < 5 * std / math.sqrt(N)
    assert abs(our_std / std - 1) < 0.03
    # And the whole distribution is the same as torch's.
    assert ks_statistic(ours, theirs) < KS_LIMIT
    if bound is not None:
        assert -bound <= min(ours) and max(ours) <= bound
        assert max(ours) > 0.99 * bound and min(ours) < -0.99 * bound


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"mean": 1.0, "std": 0.5, "a": 0.0, "b": 1.5}, {"a": -0.5, "b": 3.0}],
)
def test_trunc_normal_matches_torch(kwargs: dict[str, Any]) -> None:
    ours = flat(draw(st, "trunc_normal_", kwargs))
    theirs = flat(draw(torch, "trunc_normal_", kwargs))
    low, high = kwargs.get("a", -2.0), kwargs.get("b", 2.0)
    assert low <= min(ours) and max(ours) <= high
    assert ks_statistic(ours, theirs) < KS_LIMIT
    our_mean, our_std = moments(ours)
    their_mean, their_std = moments(theirs)
    assert abs(our_mean - their_mean) < 0.02 and abs(our_std / their_std - 1) < 0.03


def test_trunc_normal_warns_as_torch_does() -> None:
    for lib in (st, torch):
        with pytest.warns(UserWarning, match="mean is more than 2 std"):
            lib.nn.init.trunc_normal_(lib.empty(10), mean=5.0, a=-1.0, b=1.0)


def test_kaiming_and_xavier_on_a_convolution_shape() -> None:
    # fan_in = 3 * 5 * 5 = 75, fan_out = 8 * 25 = 200
    for name, std in (
        ("kaiming_normal_", math.sqrt(2 / 75)),
        ("xavier_normal_", math.sqrt(2 / 275)),
    ):
        st.manual_seed(1)
        values = flat(getattr(init, name)(st.empty(8, 3, 5, 5)))
        _, sample_std = moments(values)
        assert abs(sample_std / std - 1) < 0.1


# ----------------------------------------------------------------------
# Gains and fans
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nonlinearity", "param"),
    [
        ("linear", None),
        ("conv1d", None),
        ("conv2d", None),
        ("conv3d", None),
        ("conv_transpose1d", None),
        ("conv_transpose2d", None),
        ("conv_transpose3d", None),
        ("sigmoid", None),
        ("tanh", None),
        ("relu", None),
        ("leaky_relu", None),
        ("leaky_relu", 0.2),
        ("leaky_relu", 1),
        ("leaky_relu", math.sqrt(5)),
        ("selu", None),
    ],
)
def test_calculate_gain(nonlinearity: str, param: Any) -> None:
    ours = init.calculate_gain(nonlinearity, param)
    theirs = torch.nn.init.calculate_gain(nonlinearity, param)
    assert ours == theirs and type(ours) is type(theirs)


@pytest.mark.parametrize(
    ("nonlinearity", "param"),
    [("softmax", None), ("ReLU", None), ("leaky_relu", True), ("leaky_relu", "0.1")],
)
def test_calculate_gain_errors(nonlinearity: str, param: Any) -> None:
    same_error(lambda lib: lib.nn.init.calculate_gain(nonlinearity, param))


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (5, 2, 3), (6, 2, 3, 4), (0, 3)])
def test_fan_in_and_fan_out(shape: tuple[int, ...]) -> None:
    ours = init._calculate_fan_in_and_fan_out(st.empty(*shape))
    theirs = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    assert ours == theirs
    for mode in ("fan_in", "fan_out"):
        assert init._calculate_correct_fan(st.empty(*shape), mode) == (
            torch.nn.init._calculate_correct_fan(torch.empty(*shape), mode)
        )


@pytest.mark.parametrize(
    "name",
    ["xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"],
)
@pytest.mark.parametrize("shape", [(), (5,)])
def test_fewer_than_two_dimensions(name: str, shape: tuple[int, ...]) -> None:
    same_error(lambda lib: getattr(lib.nn.init, name)(lib.empty(*shape)))


def test_bad_mode_and_nonlinearity() -> None:
    same_error(lambda lib: lib.nn.init.kaiming_uniform_(lib.empty(2, 2), mode="in"))
    same_error(
        lambda lib: lib.nn.init.kaiming_normal_(lib.empty(2, 2), nonlinearity="gelu")
    )


def test_zero_element_tensors() -> None:
    for name in ("kaiming_uniform_", "kaiming_normal_"):
        for lib in (st, torch):
            with pytest.warns(UserWarning, match="zero-element tensors is a no-op"):
                getattr(lib.nn.init, name)(lib.empty(0, 3))
    for name in ("xavier_uniform_", "xavier_normal_", "uniform_", "normal_"):
        assert getattr(init, name)(st.empty(0, 3)).shape == (0, 3)


# ----------------------------------------------------------------------
# Fixed values, parameters, generators
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [("constant_", (0.25,)), ("ones_", ()), ("zeros_", ()), ("eye_", ())],
)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2)])
def test_fixed_values(name: str, args: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    ours = st.nn.Parameter(st.randn(*shape))
    theirs = torch.nn.Parameter(torch.randn(*shape))
    assert getattr(init, name)(ours, *args) is ours
    getattr(torch.nn.init, name)(theirs, *args)
    assert_same(ours, theirs, exact=True)
    assert ours.requires_grad and ours.is_leaf and ours.grad_fn is None


def test_fixed_values_other_shapes_and_dtypes() -> None:
    for name, args in (("constant_", (3,)), ("ones_", ()), ("zeros_", ())):
        for dtype in ("float64", "int64"):
            ours = st.empty(2, 3, 1, dtype=getattr(st, dtype))
            theirs = torch.empty(2, 3, 1, dtype=getattr(torch, dtype))
            getattr(init, name)(ours, *args)
            getattr(torch.nn.init, name)(theirs, *args)
            assert_same(ours, theirs, exact=True)
    same_error(lambda lib: lib.nn.init.eye_(lib.empty(2, 2, 2)))
    same_error(lambda lib: lib.nn.init.eye_(lib.empty(3)))


@pytest.mark.parametrize(
    "name",
    [
        "uniform_",
        "normal_",
        "trunc_normal_",
        "xavier_uniform_",
        "xavier_normal_",
        "kaiming_uniform_",
        "kaiming_normal_",
    ],
)
def test_random_init_of_a_parameter_stays_a_leaf(name: str) -> None:
    p = st.nn.Parameter(st.zeros(4, 5))
    version = p._version
    assert getattr(init, name)(p) is p
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert p._version > version
    assert any(v != 0 for v in flat(p))
    (p * 2).sum().backward()
    assert flat(p.grad) == [2.0] * 20


@pytest.mark.parametrize(
    "name",
    [
        "uniform_",
        "normal_",
        "trunc_normal_",
        "xavier_uniform_",
        "xavier_normal_",
        "kaiming_uniform_",
        "kaiming_normal_",
    ],
)
def test_generator_argument(name: str) -> None:
    function = getattr(init, name)
    first = function(st.empty(3, 4), generator=st.Generator().manual_seed(7))
    st.manual_seed(0)
    state = st.get_rng_state()
    second = function(st.empty(3, 4), generator=st.Generator().manual_seed(7))
    assert st.get_rng_state().tolist() == state.tolist()  # default untouched
    third = function(st.empty(3, 4), generator=st.Generator().manual_seed(8))
    assert flat(first) == flat(second) != flat(third)
    # torch accepts the same keyword
    getattr(torch.nn.init, name)(
        torch.empty(3, 4), generator=torch.Generator().manual_seed(7)
    )


def test_seeded_init_is_reproducible() -> None:
    st.manual_seed(3)
    a = flat(init.kaiming_uniform_(st.empty(5, 5), a=math.sqrt(5)))
    st.manual_seed(3)
    b = flat(init.kaiming_uniform_(st.empty(5, 5), a=math.sqrt(5)))
    assert a == b


def test_no_warning_for_ordinary_use() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.kaiming_uniform_(st.nn.Parameter(st.empty(3, 2)), a=math.sqrt(5))
        init.trunc_normal_(st.empty(3), std=0.02)
