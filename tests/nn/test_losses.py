"""Losses against torch, functional and modules, in every reduction and
option: values, grad_fn names, gradients of input and target, errors,
stability for huge logits; finite-difference checks without torch."""

from __future__ import annotations

import math
import warnings

import pytest

import slowtorch_lib as st
import slowtorch_lib.nn.functional as F
from slowtorch_lib import nn
from slowtorch_lib.autograd.gradcheck import gradcheck, gradgradcheck
from tests.nn.nn_parity import check_graph, check_parity, rand, tensor
from tests.parity import assert_same, require_torch, same_error

REDUCTIONS = ["mean", "sum", "none"]
TOL = {"rtol": 1e-5, "atol": 1e-5}

# ----------------------------------------------------------------------
# Regression losses
# ----------------------------------------------------------------------

REGRESSION = {
    "mse_loss": {},
    "l1_loss": {},
    "huber_loss": {},
    "huber_loss_delta": {"delta": 0.5},
    "smooth_l1_loss": {},
    "smooth_l1_loss_beta": {"beta": 0.3},
    "smooth_l1_loss_beta0": {"beta": 0.0},
}


@pytest.mark.parametrize("name", REGRESSION)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("target_grad", [False, True])
def test_regression_loss_matches_torch(
    name: str, reduction: str, target_grad: bool
) -> None:
    function = name.split("_loss")[0] + "_loss"
    options = REGRESSION[name]
    check_parity(
        lambda lib, F, x, t: getattr(F, function)(x, t, reduction=reduction, **options),
        lambda lib: [
            rand(lib, 4, 3, seed=1, grad=True),
            rand(lib, 4, 3, seed=2, grad=target_grad),
        ],
        **TOL,
    )


@pytest.mark.parametrize(
    "name", ["mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss"]
)
def test_regression_loss_broadcasts_with_torch_warning(name: str) -> None:
    torch = require_torch()
    with pytest.warns(UserWarning, match="Using a target size"):
        ours = getattr(F, name)(rand(st, 4, 3, seed=1), rand(st, 3, seed=2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(torch.nn.functional, name)(
            rand(torch, 4, 3, seed=1), rand(torch, 3, seed=2)
        )
    assert_same(ours, theirs)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.functional.mse_loss(
            lib.ones(2), lib.ones(2), reduction="foo"
        ),
        lambda lib: lib.nn.functional.mse_loss(lib.tensor([1, 2]), lib.tensor([1, 3])),
        lambda lib: lib.nn.functional.huber_loss(lib.ones(2), lib.ones(2), delta=0.0),
        lambda lib: lib.nn.functional.huber_loss(lib.ones(2), lib.ones(2), delta=-1.0),
        lambda lib: lib.nn.functional.smooth_l1_loss(
            lib.ones(2), lib.ones(2), beta=-1.0
        ),
    ],
)
def test_regression_loss_errors_match_torch(make) -> None:
    same_error(make)


@pytest.mark.parametrize(
    "name, options",
    [
        ("mse_loss", {}),
        ("l1_loss", {}),
        ("huber_loss", {"delta": 0.7}),
        ("smooth_l1_loss", {"beta": 0.6}),
    ],
)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_loss_gradcheck(name: str, options: dict, reduction: str) -> None:
    x = rand(st, 3, 4, seed=3, dtype="float64", grad=True)
    t = rand(st, 3, 4, seed=4, dtype="float64", grad=True)

    def fn(x, t):
        return getattr(F, name)(x, t, reduction=reduction, **options)

    assert gradcheck(fn, (x, t))
    if name == "mse_loss":
        assert gradgradcheck(fn, (x, t))


# ----------------------------------------------------------------------
# nll_loss and cross_entropy with class indices
# ----------------------------------------------------------------------

TARGETS = [0, 2, 1, 1, 0, 2]


def _indices(lib, values=None):
    return tensor(lib, values if values is not None else TARGETS, "int64")


CLASS_OPTIONS = {
    "plain": {},
    "weight": {"weight": [0.2, 1.0, 3.0]},
    "ignore_index": {"ignore_index": 1},
    "weight_ignore": {"weight": [0.2, 1.0, 3.0], "ignore_index": 2},
}


def _options(lib, name):
    options = dict(CLASS_OPTIONS[name])
    if "weight" in options:
        options["weight"] = tensor(lib, options["weight"])
    return options


@pytest.mark.parametrize("option", CLASS_OPTIONS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("function", ["nll_loss", "cross_entropy"])
def test_class_index_losses_match_torch(
    function: str, reduction: str, option: str
) -> None:
    check_parity(
        lambda lib, F, x, t: getattr(F, function)(
            x, t, reduction=reduction, **_options(lib, option)
        ),
        lambda lib: [rand(lib, 6, 3, seed=5, grad=True), _indices(lib)],
        **TOL,
    )


@pytest.mark.parametrize("smoothing", [0.1, 0.5])
@pytest.mark.parametrize("option", CLASS_OPTIONS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_label_smoothing_matches_torch(
    smoothing: float, option: str, reduction: str
) -> None:
    check_parity(
        lambda lib, F, x, t: F.cross_entropy(
            x,
            t,
            reduction=reduction,
            label_smoothing=smoothing,
            **_options(lib, option),
        ),
        lambda lib: [rand(lib, 6, 3, seed=6, grad=True), _indices(lib)],
        **TOL,
    )


@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_probabilities_match_torch(
    smoothing, weighted, reduction
) -> None:
    def call(lib, F, x, p):
        weight = tensor(lib, [0.5, 1.0, 2.0]) if weighted else None
        return F.cross_entropy(
            x, p, weight=weight, reduction=reduction, label_smoothing=smoothing
        )

    def build(lib):
        target = lib.nn.functional.softmax(rand(lib, 4, 3, seed=8), 1).detach()
        return [rand(lib, 4, 3, seed=7, grad=True), target]

    check_parity(call, build, **TOL)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_unbatched_matches_torch(reduction: str) -> None:
    check_parity(
        lambda lib, F, x, t: F.cross_entropy(x, t, reduction=reduction),
        lambda lib: [rand(lib, 5, seed=9, grad=True), tensor(lib, 3, "int64")],
        **TOL,
    )
    check_parity(
        lambda lib, F, x, p: F.cross_entropy(x, p, reduction=reduction),
        lambda lib: [
            rand(lib, 5, seed=9, grad=True),
            lib.nn.functional.softmax(rand(lib, 5, seed=10), 0),
        ],
        **TOL,
    )


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 4, 2), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("function", ["nll_loss", "cross_entropy"])
def test_k_dimensional_losses_match_torch(shape, reduction, function) -> None:
    target_shape = (shape[0], *shape[2:])
    count = math.prod(target_shape)

    def build(lib):
        classes = [(i * 7) % 3 for i in range(count)]
        target = tensor(lib, classes, "int64").reshape(target_shape)
        return [rand(lib, *shape, seed=11, grad=True), target]

    check_parity(
        lambda lib, F, x, t: getattr(F, function)(
            x, t, reduction=reduction, weight=tensor(lib, [1.0, 2.0, 0.5])
        ),
        build,
        **TOL,
    )


def test_cross_entropy_is_stable_for_huge_logits() -> None:
    logits = [[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 999.0]]
    check_parity(
        lambda lib, F, x, t: F.cross_entropy(x, t, reduction="none"),
        lambda lib: [tensor(lib, logits, grad=True), tensor(lib, [1, 2], "int64")],
    )
    loss = F.cross_entropy(st.tensor(logits), st.tensor([0, 1]))
    assert math.isfinite(loss.item())


def test_all_targets_ignored_gives_nan_like_torch() -> None:
    check_parity(
        lambda lib, F, x, t: F.cross_entropy(x, t),
        lambda lib: [
            rand(lib, 2, 3, seed=12, grad=True),
            tensor(lib, [-100, -100], "int64"),
        ],
    )


def test_class_index_losses_gradcheck() -> None:
    x = rand(st, 5, 3, seed=13, dtype="float64", grad=True)
    target = _indices(st, [0, 2, 1, 1, 2])
    weight = tensor(st, [0.3, 1.0, 2.0], "float64")
    for reduction in REDUCTIONS:

        def fn(x, reduction=reduction):
            return F.cross_entropy(
                x,
                target,
                weight=weight,
                ignore_index=1,
                reduction=reduction,
                label_smoothing=0.1,
            )

        def nll(x, reduction=reduction):
            return F.nll_loss(x, target, reduction=reduction)

        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))
        assert gradcheck(nll, (x,))
    probabilities = F.softmax(rand(st, 5, 3, seed=14, dtype="float64"), 1)
    assert gradcheck(lambda x: F.cross_entropy(x, probabilities), (x,))


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.functional.cross_entropy(
            lib.ones(4, 3), lib.tensor([0, 1, 2, 3])
        ),
        lambda lib: lib.nn.functional.cross_entropy(
            lib.ones(4, 3), lib.tensor([0, 1, 2, -5])
        ),
        lambda lib: lib.nn.functional.cross_entropy(
            lib.ones(4, 3), lib.tensor([0, 1, 2])
        ),
        lambda lib: lib.nn.functional.cross_entropy(
            lib.ones(4, 3), lib.tensor([0.0, 1, 2, 1])
        ),
        lambda lib: lib.nn.functional.cross_entropy(
            lib.ones(4, 3), lib.zeros(4, 3, dtype=lib.int64)
        ),
        lambda lib: lib.nn.functional.cross_entropy(
            lib.ones(4, 3), lib.tensor([0, 1, 2, 1]), weight=lib.ones(2)
        ),
        lambda lib: lib.nn.functional.cross_entropy(
            lib.ones(4, 3), lib.rand(4, 3), ignore_index=1
        ),
        lambda lib: lib.nn.functional.cross_entropy(
            lib.ones(4, 3), lib.tensor([0, 1, 2, 1]), label_smoothing=1.5
        ),
        lambda lib: lib.nn.functional.cross_entropy(lib.tensor(1.0), lib.tensor(0)),
        lambda lib: lib.nn.functional.nll_loss(lib.tensor(1.0), lib.tensor(0)),
        lambda lib: lib.nn.functional.nll_loss(lib.ones(4, 3), lib.zeros(4)),
        lambda lib: lib.nn.functional.nll_loss(
            lib.ones(2, 3, 4), lib.zeros(2, 5, dtype=lib.int64)
        ),
        lambda lib: lib.nn.functional.nll_loss(
            lib.ones(4, 3), lib.zeros(4, 2, dtype=lib.int64)
        ),
        lambda lib: lib.nn.functional.cross_entropy(
            lib.ones(4, 3),
            lib.tensor([0, 1, 2, 1]),
            weight=lib.ones(3, requires_grad=True),
        ),
    ],
)
def test_class_index_errors_match_torch(make) -> None:
    same_error(make)


# ----------------------------------------------------------------------
# Binary cross-entropy
# ----------------------------------------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("target_grad", [False, True])
def test_binary_cross_entropy_matches_torch(reduction, weighted, target_grad) -> None:
    def call(lib, F, p, t):
        weight = rand(lib, 3, seed=15, low=0.1, high=2) if weighted else None
        return F.binary_cross_entropy(p, t, weight=weight, reduction=reduction)

    check_parity(
        call,
        lambda lib: [
            rand(lib, 4, 3, seed=16, grad=True, low=0.01, high=0.99),
            rand(lib, 4, 3, seed=17, grad=target_grad, low=0, high=1),
        ],
        **TOL,
    )


def test_binary_cross_entropy_clamps_log_at_minus_100_like_torch() -> None:
    check_parity(
        lambda lib, F, p, t: F.binary_cross_entropy(p, t, reduction="none"),
        lambda lib: [
            tensor(lib, [0.0, 1.0, 0.5, 1.0], grad=True),
            tensor(lib, [1.0, 0.0, 0.5, 1.0]),
        ],
        **TOL,
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("pos_weighted", [False, True])
@pytest.mark.parametrize("target_grad", [False, True])
def test_bce_with_logits_matches_torch(
    reduction, weighted, pos_weighted, target_grad
) -> None:
    def call(lib, F, x, t):
        weight = rand(lib, 4, 1, seed=18, low=0.1, high=2) if weighted else None
        pos_weight = rand(lib, 3, seed=19, low=0.1, high=3) if pos_weighted else None
        return F.binary_cross_entropy_with_logits(
            x, t, weight=weight, pos_weight=pos_weight, reduction=reduction
        )

    check_parity(
        call,
        lambda lib: [
            rand(lib, 4, 3, seed=20, grad=True, low=-4, high=4),
            rand(lib, 4, 3, seed=21, grad=target_grad, low=0, high=1),
        ],
        **TOL,
    )


def test_bce_with_logits_is_stable_for_huge_logits() -> None:
    logits = [1000.0, -1000.0, 500.0, -500.0, 0.0]
    targets = [0.0, 1.0, 1.0, 0.0, 0.3]
    ours, _ = check_parity(
        lambda lib, F, x, t: F.binary_cross_entropy_with_logits(
            x, t, reduction="none", pos_weight=tensor(lib, [2.0] * 5)
        ),
        lambda lib: [tensor(lib, logits, grad=True), tensor(lib, targets)],
    )
    assert all(math.isfinite(v) for v in ours.tolist())


def test_binary_cross_entropy_gradcheck() -> None:
    p = rand(st, 3, 4, seed=22, dtype="float64", grad=True, low=0.05, high=0.95)
    t = rand(st, 3, 4, seed=23, dtype="float64", grad=True, low=0, high=1)
    weight = rand(st, 4, seed=24, dtype="float64", low=0.5, high=1.5)
    pos_weight = rand(st, 4, seed=25, dtype="float64", low=0.5, high=3)
    for reduction in REDUCTIONS:

        def bce(p, t, reduction=reduction):
            return F.binary_cross_entropy(p, t, weight=weight, reduction=reduction)

        def bce_logits(x, t, reduction=reduction):
            return F.binary_cross_entropy_with_logits(
                x, t, weight=weight, pos_weight=pos_weight, reduction=reduction
            )

        assert gradcheck(bce, (p, t))
        assert gradgradcheck(bce, (p, t))
        assert gradcheck(bce_logits, (p, t))
        assert gradgradcheck(bce_logits, (p, t))


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.functional.binary_cross_entropy(
            lib.tensor([1.5]), lib.tensor([1.0])
        ),
        lambda lib: lib.nn.functional.binary_cross_entropy(lib.rand(4, 3), lib.rand(4)),
        lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
            lib.ones(4, 3), lib.rand(4)
        ),
        lambda lib: lib.nn.functional.binary_cross_entropy(
            lib.rand(4), lib.rand(4), weight=lib.rand(4, requires_grad=True)
        ),
        lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
            lib.rand(4), lib.rand(4), pos_weight=lib.rand(4, requires_grad=True)
        ),
    ],
)
def test_binary_errors_match_torch(make) -> None:
    same_error(make)


# ----------------------------------------------------------------------
# Modules
# ----------------------------------------------------------------------


def _weight(lib):
    return tensor(lib, [0.2, 1.0, 3.0])


LOSS_MODULES = [
    ("MSELoss", lambda lib: {}, "regression"),
    ("L1Loss", lambda lib: {}, "regression"),
    ("HuberLoss", lambda lib: {"delta": 0.5}, "regression"),
    ("SmoothL1Loss", lambda lib: {"beta": 0.5}, "regression"),
    (
        "CrossEntropyLoss",
        lambda lib: {"weight": _weight(lib), "ignore_index": 1, "label_smoothing": 0.1},
        "classes",
    ),
    ("CrossEntropyLoss", lambda lib: {}, "classes"),
    ("NLLLoss", lambda lib: {"weight": _weight(lib), "ignore_index": 2}, "classes"),
    ("BCELoss", lambda lib: {"weight": _weight(lib)}, "probabilities"),
    ("BCEWithLogitsLoss", lambda lib: {"pos_weight": _weight(lib)}, "regression"),
]


def _loss_inputs(kind: str):
    def build(lib):
        if kind == "classes":
            return [rand(lib, 6, 3, seed=26, grad=True), _indices(lib)]
        if kind == "probabilities":
            return [
                rand(lib, 4, 3, seed=27, grad=True, low=0.05, high=0.95),
                rand(lib, 4, 3, seed=28, low=0, high=1),
            ]
        return [
            rand(lib, 4, 3, seed=29, grad=True),
            rand(lib, 4, 3, seed=30, low=0, high=1),
        ]

    return build


@pytest.mark.parametrize("name, options, kind", LOSS_MODULES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_loss_module_matches_torch(name, options, kind, reduction) -> None:
    torch = require_torch()
    check_parity(
        lambda lib, F, x, t: getattr(lib.nn, name)(reduction=reduction, **options(lib))(
            x, t
        ),
        _loss_inputs(kind),
        **TOL,
    )
    ours = getattr(nn, name)(reduction=reduction, **options(st))
    theirs = getattr(torch.nn, name)(reduction=reduction, **options(torch))
    assert repr(ours) == repr(theirs)
    assert ours.reduction == reduction
    assert [n for n, _ in ours.named_buffers()] == [
        n for n, _ in theirs.named_buffers()
    ]
    assert list(ours.parameters()) == []


def test_loss_module_legacy_arguments_match_torch() -> None:
    torch = require_torch()
    for lib in (st, torch):
        with pytest.warns(UserWarning):
            assert lib.nn.MSELoss(size_average=False).reduction == "sum"
        with pytest.warns(UserWarning):
            assert lib.nn.L1Loss(reduce=False).reduction == "none"


# ----------------------------------------------------------------------
# Weighted regression losses and whole graphs of the composite losses
# ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_weighted_regression_loss_matches_torch(name: str, reduction: str) -> None:
    check_parity(
        lambda lib, F, x, t, w: getattr(F, name)(x, t, reduction=reduction, weight=w),
        lambda lib: [
            rand(lib, 4, 3, seed=31, grad=True),
            rand(lib, 4, 3, seed=32),
            rand(lib, 4, 3, seed=33, low=0.1, high=2),
        ],
        **TOL,
    )
    same_error(
        lambda lib: getattr(lib.nn.functional, name)(
            lib.ones(4, 3), lib.ones(4, 3), weight=lib.ones(3)
        )
    )


def _x(lib, *shape):
    return lib.linspace(-1, 1, math.prod(shape)).reshape(*shape).requires_grad_()


def _y(lib):
    return lib.tensor([0, 2, 1, 1])


GRAPHS = {
    "cross_entropy": lambda lib, r: lib.nn.functional.cross_entropy(
        _x(lib, 4, 3), _y(lib), reduction=r
    ),
    "label smoothing": lambda lib, r: lib.nn.functional.cross_entropy(
        _x(lib, 4, 3), _y(lib), reduction=r, label_smoothing=0.1
    ),
    "label smoothing, weight": lambda lib, r: lib.nn.functional.cross_entropy(
        _x(lib, 4, 3),
        _y(lib),
        weight=lib.tensor([1.0, 2.0, 3.0]),
        reduction=r,
        label_smoothing=0.1,
    ),
    "probabilities": lambda lib, r: lib.nn.functional.cross_entropy(
        _x(lib, 4, 3), lib.ones(4, 3) / 3, reduction=r
    ),
    "probabilities, weight": lambda lib, r: lib.nn.functional.cross_entropy(
        _x(lib, 4, 3),
        lib.ones(4, 3) / 3,
        weight=lib.tensor([1.0, 2.0, 3.0]),
        label_smoothing=0.2,
        reduction=r,
    ),
    "l1_loss": lambda lib, r: lib.nn.functional.l1_loss(
        _x(lib, 4, 3), lib.ones(4, 3), reduction=r
    ),
    "smooth_l1_loss beta=0": lambda lib, r: lib.nn.functional.smooth_l1_loss(
        _x(lib, 4, 3), lib.ones(4, 3), beta=0.0, reduction=r
    ),
    "nll_loss 3-d": lambda lib, r: lib.nn.functional.nll_loss(
        _x(lib, 2, 3, 4), lib.zeros(2, 4, dtype=lib.int64), reduction=r
    ),
    "nll_loss 5-d": lambda lib, r: lib.nn.functional.nll_loss(
        _x(lib, 2, 3, 2, 2, 2), lib.zeros(2, 2, 2, 2, dtype=lib.int64), reduction=r
    ),
    "cross_entropy 3-d": lambda lib, r: lib.nn.functional.cross_entropy(
        _x(lib, 2, 3, 4), lib.zeros(2, 4, dtype=lib.int64), reduction=r
    ),
    "mse_loss weighted": lambda lib, r: lib.nn.functional.mse_loss(
        _x(lib, 4, 3), lib.ones(4, 3), reduction=r, weight=lib.ones(4, 3)
    ),
    "huber_loss weighted": lambda lib, r: lib.nn.functional.huber_loss(
        _x(lib, 4, 3), lib.ones(4, 3), reduction=r, weight=lib.ones(4, 3)
    ),
}


@pytest.mark.parametrize("name", GRAPHS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_composite_loss_graph_matches_torch(name: str, reduction: str) -> None:
    check_graph(lambda lib: GRAPHS[name](lib, reduction))
