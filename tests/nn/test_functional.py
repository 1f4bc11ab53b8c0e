"""nn.functional layers against torch: linear, addmm, embedding, dropout,
one_hot, pad, layer_norm, batch_norm (values, grad_fn names, gradients,
errors), plus finite-difference checks that need no torch."""

from __future__ import annotations

import math

import pytest

import slowtorch_lib as st
import slowtorch_lib.nn.functional as F
from slowtorch_lib.autograd.gradcheck import gradcheck, gradgradcheck
from tests.nn.nn_parity import check_graph, check_parity, rand, tensor
from tests.parity import assert_same, require_torch, same_error

# ----------------------------------------------------------------------
# linear and addmm
# ----------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(3,), (4, 3), (2, 4, 3), (2, 2, 1, 3)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_matches_torch(shape: tuple[int, ...], with_bias: bool) -> None:
    def build(lib):
        inputs = [
            rand(lib, *shape, seed=1, grad=True),
            rand(lib, 5, 3, seed=2, grad=True),
        ]
        if with_bias:
            inputs.append(rand(lib, 5, seed=3, grad=True))
        return inputs

    check_parity(lambda lib, F, *xs: F.linear(*xs), build)


def test_linear_without_input_grad_is_still_addmm() -> None:
    def build(lib):
        return [
            rand(lib, 4, 3, seed=1),
            rand(lib, 5, 3, seed=2, grad=True),
            rand(lib, 5, seed=3, grad=True),
        ]

    ours, _ = check_parity(lambda lib, F, *xs: F.linear(*xs), build)
    assert ours.grad_fn.name() == "AddmmBackward0"
    assert ours.grad_fn.next_functions[2][0].name() == "TBackward0"


@pytest.mark.parametrize("beta, alpha", [(1, 1), (0.5, 2.0), (0, 1)])
def test_addmm_matches_torch(beta: float, alpha: float) -> None:
    def build(lib):
        return [
            rand(lib, 1, 5, seed=1, grad=True),
            rand(lib, 4, 3, seed=2, grad=True),
            rand(lib, 3, 5, seed=3, grad=True),
        ]

    check_parity(
        lambda lib, F, b, x, w: lib.addmm(b, x, w, beta=beta, alpha=alpha), build
    )


def test_addmm_beta_zero_ignores_nan_bias() -> None:
    bias = st.full((5,), float("nan"))
    out = st.addmm(bias, st.ones(2, 3), st.ones(3, 5), beta=0)
    assert out.tolist() == [[3.0] * 5] * 2


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.functional.linear(lib.ones(4, 3), lib.ones(5, 4)),
        lambda lib: lib.nn.functional.linear(
            lib.ones(4, 3), lib.ones(5, 3), lib.ones(4)
        ),
        lambda lib: lib.nn.functional.linear(lib.tensor(1.0), lib.ones(5, 3)),
        lambda lib: lib.nn.functional.linear(
            lib.ones(4, 3, dtype=lib.float64), lib.ones(5, 3)
        ),
        lambda lib: lib.addmm(lib.ones(5), lib.ones(4, 3), lib.ones(3)),
    ],
)
def test_linear_errors_match_torch(make) -> None:
    same_error(make)


def test_linear_gradcheck() -> None:
    x = st.randn(3, 4, dtype=st.float64, requires_grad=True)
    w = st.randn(2, 4, dtype=st.float64, requires_grad=True)
    b = st.randn(2, dtype=st.float64, requires_grad=True)
    assert gradcheck(F.linear, (x, w, b))
    assert gradgradcheck(F.linear, (x, w, b))
    x3 = st.randn(2, 2, 4, dtype=st.float64, requires_grad=True)
    assert gradcheck(F.linear, (x3, w, b))
    assert gradcheck(
        lambda b, a, c: st.addmm(b, a, c, beta=0.5, alpha=2.0),
        (b.unsqueeze(0), x, w.t().detach().requires_grad_()),
    )


# ----------------------------------------------------------------------
# embedding
# ----------------------------------------------------------------------


@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_embedding_matches_torch(padding_idx) -> None:
    def build(lib):
        return [
            tensor(lib, [[1, 2, 2], [5, 0, 1]], "int64"),
            rand(lib, 6, 3, seed=4, grad=True),
        ]

    check_parity(lambda lib, F, i, w: F.embedding(i, w, padding_idx=padding_idx), build)


@pytest.mark.parametrize("padding_idx", [None, 1])
def test_embedding_scale_grad_by_freq_matches_torch(padding_idx) -> None:
    def build(lib):
        return [
            tensor(lib, [[1, 2, 2], [5, 1, 2]], "int64"),
            rand(lib, 6, 3, seed=6, grad=True),
        ]

    check_parity(
        lambda lib, F, i, w: F.embedding(
            i, w, padding_idx=padding_idx, scale_grad_by_freq=True
        ),
        build,
    )


def test_embedding_max_norm_renormalizes_rows_like_torch() -> None:
    torch = require_torch()
    weight = rand(st, 5, 3, seed=5, low=-3, high=3)
    theirs = torch.tensor(weight.tolist())
    F.embedding(st.tensor([0, 2]), weight, max_norm=1.0)
    torch.nn.functional.embedding(torch.tensor([0, 2]), theirs, max_norm=1.0)
    assert_same(weight, theirs)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.functional.embedding(lib.tensor([1.0]), lib.ones(4, 3)),
        lambda lib: lib.nn.functional.embedding(lib.tensor([7]), lib.ones(4, 3)),
        lambda lib: lib.nn.functional.embedding(lib.tensor([-1]), lib.ones(4, 3)),
        lambda lib: lib.nn.functional.embedding(
            lib.tensor([1]), lib.ones(4, 3), padding_idx=7
        ),
    ],
)
def test_embedding_errors_match_torch(make) -> None:
    same_error(make)


def test_embedding_gradcheck() -> None:
    w = st.randn(5, 2, dtype=st.float64, requires_grad=True)
    idx = st.tensor([[0, 3], [3, 4]])
    # (padding_idx is left out: its row is used but, by design, gets no gradient)
    assert gradcheck(lambda w: F.embedding(idx, w), (w,))
    assert gradgradcheck(lambda w: F.embedding(idx, w) ** 2, (w,))


# ----------------------------------------------------------------------
# dropout
# ----------------------------------------------------------------------


def test_dropout_zeroes_and_scales_and_gradient_is_the_mask() -> None:
    st.manual_seed(0)
    x = st.ones(200, 50, requires_grad=True)
    y = F.dropout(x, 0.3)
    assert y.grad_fn.name() == "MulBackward0"
    kept = [v for v in y.flatten().tolist() if v != 0]
    assert set(kept) == {st.tensor(1 / 0.7).item()}
    fraction = 1 - len(kept) / 10_000
    assert abs(fraction - 0.3) < 0.02  # 4.4 standard deviations
    y.sum().backward()
    assert x.grad.tolist() == y.tolist()


def test_dropout_is_seeded_by_the_engine_generator() -> None:
    st.manual_seed(3)
    first = F.dropout(st.ones(100)).tolist()
    st.manual_seed(3)
    assert F.dropout(st.ones(100)).tolist() == first


def test_dropout_edge_cases_match_torch() -> None:
    torch = require_torch()
    for lib in (st, torch):
        x = lib.ones(3, 4, requires_grad=True)
        assert lib.nn.functional.dropout(x, 0.5, training=False) is x
        assert lib.nn.functional.dropout(x, 0.0) is x
        dropped = lib.nn.functional.dropout(x, 1.0)
        assert dropped.tolist() == [[0.0] * 4] * 3
        assert dropped.grad_fn.name() == "MulBackward0"


def test_dropout_inplace() -> None:
    st.manual_seed(1)
    x = st.ones(4, 5, requires_grad=True)
    y = x * 1
    out = F.dropout(y, 0.5, inplace=True)
    assert out is y and y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == y.tolist()
    same_error(
        lambda lib: lib.nn.functional.dropout(
            lib.ones(2, requires_grad=True), 0.5, inplace=True
        )
    )


def test_dropout_gradcheck_with_a_fixed_mask() -> None:
    def fn(x):
        st.manual_seed(5)  # the same mask at every call
        return F.dropout(x, 0.4)

    x = st.randn(4, 5, dtype=st.float64, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_dropout_rejects_bad_p() -> None:
    same_error(lambda lib: lib.nn.functional.dropout(lib.ones(2), 1.5))
    same_error(lambda lib: lib.nn.functional.dropout(lib.ones(2), -0.1))


# ----------------------------------------------------------------------
# one_hot
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "indices, classes",
    [
        ([0, 2, 1], -1),
        ([[0, 1], [3, 3]], 5),
        ([], 3),
        (2, 4),
    ],
)
def test_one_hot_matches_torch(indices, classes) -> None:
    torch = require_torch()
    ours = F.one_hot(st.tensor(indices, dtype=st.int64), classes)
    theirs = torch.nn.functional.one_hot(
        torch.tensor(indices, dtype=torch.int64), classes
    )
    assert_same(ours, theirs)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.functional.one_hot(lib.tensor([1.0])),
        lambda lib: lib.nn.functional.one_hot(lib.tensor([-1])),
        lambda lib: lib.nn.functional.one_hot(lib.tensor([3]), 3),
        lambda lib: lib.nn.functional.one_hot(lib.tensor([], dtype=lib.int64)),
    ],
)
def test_one_hot_errors_match_torch(make) -> None:
    same_error(make)


# ----------------------------------------------------------------------
# pad
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, amounts, mode",
    [
        ((4, 3), (1, 2), "constant"),
        ((4, 3), (1, 1, 2, 0), "constant"),
        ((4, 3), (-1, 1), "constant"),
        ((2, 3, 4), (0, 0, 1, -1, 1, 1), "constant"),
        ((4, 3), (2, 1), "reflect"),
        ((2, 4, 3), (1, 2), "reflect"),
        ((2, 4, 3), (1, 2, 2, 1), "reflect"),
        ((1, 2, 3, 3), (1, 1, 2, 2), "reflect"),
        ((4, 3), (2, 3), "replicate"),
        ((2, 3, 3), (1, 0, 2, 1), "replicate"),
        ((1, 2, 2, 2, 2), (1, 1, 1, 1, 1, 1), "replicate"),
    ],
)
def test_pad_matches_torch(shape, amounts, mode) -> None:
    check_parity(
        lambda lib, F, x: F.pad(x, amounts, mode=mode),
        lambda lib: [rand(lib, *shape, seed=6, grad=True)],
    )


def test_pad_constant_value_and_integers() -> None:
    check_parity(
        lambda lib, F, x: F.pad(x, (1, 1), value=2.5),
        lambda lib: [rand(lib, 2, 2, seed=7, grad=True)],
    )
    torch = require_torch()
    assert_same(
        F.pad(st.tensor([[1, 2]]), (1, 0), value=3),
        torch.nn.functional.pad(torch.tensor([[1, 2]]), (1, 0), value=3),
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.functional.pad(lib.ones(4, 3), (1,)),
        lambda lib: lib.nn.functional.pad(lib.ones(4, 3), (1, 1, 1, 1, 1, 1)),
        lambda lib: lib.nn.functional.pad(lib.ones(4, 3), (-2, -2)),
        lambda lib: lib.nn.functional.pad(lib.ones(1, 4, 3), (3, 1), mode="reflect"),
        lambda lib: lib.nn.functional.pad(lib.ones(3), (1, 1), mode="replicate"),
        lambda lib: lib.nn.functional.pad(lib.ones(1, 1, 2, 3), (1, 1), mode="reflect"),
        lambda lib: lib.nn.functional.pad(lib.ones(4, 3), (1, 1), mode="foo"),
    ],
)
def test_pad_errors_match_torch(make) -> None:
    same_error(make)


def test_pad_gradcheck() -> None:
    x = st.randn(2, 3, 4, dtype=st.float64, requires_grad=True)
    assert gradcheck(lambda x: F.pad(x, (1, -1, 2, 0)), (x,))
    assert gradgradcheck(lambda x: F.pad(x, (1, 2)) ** 2, (x,))
    assert gradcheck(lambda x: F.pad(x, (2, 1), mode="reflect"), (x,))
    assert gradcheck(lambda x: F.pad(x, (2, 1, 1, 1), mode="replicate"), (x,))


# ----------------------------------------------------------------------
# layer_norm
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, normalized",
    [
        ((4, 3), (3,)),
        ((2, 3, 4), (4,)),
        ((2, 3, 4), (3, 4)),
        ((5,), (5,)),
    ],
)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_matches_torch(shape, normalized, affine) -> None:
    def build(lib):
        inputs = [rand(lib, *shape, seed=8, grad=True)]
        if affine:
            inputs += [
                rand(lib, *normalized, seed=9, grad=True),
                rand(lib, *normalized, seed=10, grad=True),
            ]
        return inputs

    check_parity(
        lambda lib, F, x, *wb: F.layer_norm(x, normalized, *wb, eps=1e-5),
        build,
        rtol=1e-4,
        atol=1e-5,
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.functional.layer_norm(lib.ones(4, 3), (4,)),
        lambda lib: lib.nn.functional.layer_norm(lib.ones(4, 3), (3,), lib.ones(4)),
        lambda lib: lib.nn.functional.layer_norm(lib.ones(4, 3), 3),
    ],
)
def test_layer_norm_errors_match_torch(make) -> None:
    same_error(make)


def test_layer_norm_gradcheck() -> None:
    x = st.randn(3, 4, dtype=st.float64, requires_grad=True)
    w = st.randn(4, dtype=st.float64, requires_grad=True)
    b = st.randn(4, dtype=st.float64, requires_grad=True)
    fn = lambda x, w, b: F.layer_norm(x, (4,), w, b)  # noqa: E731
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


# ----------------------------------------------------------------------
# batch_norm
# ----------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_matches_torch(shape, training, affine) -> None:
    torch = require_torch()
    stats = {}

    def build(lib):
        mean = rand(lib, 3, seed=11, low=-0.5, high=0.5)
        var = rand(lib, 3, seed=12, low=0.5, high=2.0)
        stats[lib] = (mean, var)
        inputs = [rand(lib, *shape, seed=13, grad=True)]
        if affine:
            inputs += [
                rand(lib, 3, seed=14, grad=True),
                rand(lib, 3, seed=15, grad=True),
            ]
        return inputs

    def call(lib, F, x, *wb):
        mean, var = stats[lib]
        return F.batch_norm(x, mean, var, *wb, training=training, momentum=0.2)

    check_parity(call, build, rtol=1e-4, atol=1e-5)
    for ours, theirs in zip(stats[st], stats[torch]):
        assert_same(ours, theirs)  # running statistics updated alike


def test_batch_norm_without_running_stats_in_training() -> None:
    check_parity(
        lambda lib, F, x: F.batch_norm(x, None, None, training=True),
        lambda lib: [rand(lib, 5, 2, seed=16, grad=True)],
        rtol=1e-4,
        atol=1e-5,
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.functional.batch_norm(
            lib.ones(1, 3), lib.zeros(3), lib.ones(3), training=True
        ),
        lambda lib: lib.nn.functional.batch_norm(
            lib.ones(4, 3), None, None, training=False
        ),
        lambda lib: lib.nn.functional.batch_norm(
            lib.ones(4, 3), lib.zeros(4), lib.ones(4), training=True
        ),
    ],
)
def test_batch_norm_errors_match_torch(make) -> None:
    same_error(make)


def test_batch_norm_gradcheck() -> None:
    x = st.randn(4, 3, 2, dtype=st.float64, requires_grad=True)
    w = st.randn(3, dtype=st.float64, requires_grad=True)
    b = st.randn(3, dtype=st.float64, requires_grad=True)

    def train(x, w, b):
        return F.batch_norm(x, None, None, w, b, training=True)

    def evaluate(x, w, b):
        mean, var = st.zeros(3, dtype=st.float64), st.ones(3, dtype=st.float64) * 2
        return F.batch_norm(x, mean, var, w, b, training=False)

    assert gradcheck(train, (x, w, b))
    assert gradgradcheck(train, (x, w, b))
    assert gradcheck(evaluate, (x, w, b))


# ----------------------------------------------------------------------
# Edge cases: same result or same error as torch
# ----------------------------------------------------------------------

INF = float("inf")
EDGE_CASES = {
    "addmm bias dtype": lambda lib: lib.addmm(
        lib.zeros(5, dtype=lib.float64), lib.ones(4, 3), lib.ones(3, 5)
    ),
    "nll 1-d input, target of size 1": lambda lib: lib.nn.functional.nll_loss(
        lib.ones(3), lib.tensor([1])
    ),
    "nll 1-d input, target of size 2": lambda lib: lib.nn.functional.nll_loss(
        lib.ones(3), lib.tensor([1, 2])
    ),
    "bce target out of range": lambda lib: lib.nn.functional.binary_cross_entropy(
        lib.tensor([0.5]), lib.tensor([1.5])
    ),
    "cross_entropy K-dim label smoothing": lambda lib: lib.nn.functional.cross_entropy(
        lib.linspace(-1, 1, 24).reshape(2, 3, 4),
        lib.tensor([[0, 1, 2, 1], [2, 2, 0, 1]]),
        label_smoothing=0.2,
        ignore_index=1,
    ),
    "softmax of empty": lambda lib: lib.nn.functional.softmax(lib.ones(0, 3), 1),
    "log_softmax of 0-d": lambda lib: lib.nn.functional.log_softmax(lib.tensor(2.0), 0),
    "softmax of infinities": lambda lib: lib.nn.functional.softmax(
        lib.tensor([[-INF, -INF], [INF, 1.0]]), 1
    ),
    "log_softmax of infinities": lambda lib: lib.nn.functional.log_softmax(
        lib.tensor([[-INF, 0.0], [INF, 1.0]]), 1
    ),
    "linear with 1-d weight": lambda lib: lib.nn.functional.linear(
        lib.ones(2, 3), lib.ones(3), lib.tensor(1.0)
    ),
    "embedding of 0-d index": lambda lib: lib.nn.functional.embedding(
        lib.tensor(2), lib.eye(3)
    ),
    "one_hot of 0-d": lambda lib: lib.nn.functional.one_hot(lib.tensor(2), 3),
    "mse of empty": lambda lib: lib.nn.functional.mse_loss(lib.ones(0), lib.ones(0)),
    "nll of empty": lambda lib: lib.nn.functional.nll_loss(
        lib.ones(0, 3), lib.ones(0, dtype=lib.int64)
    ),
    "batch_norm of 1-d": lambda lib: lib.nn.functional.batch_norm(
        lib.ones(3), lib.zeros(3), lib.ones(3)
    ),
    "layer_norm of empty": lambda lib: lib.nn.functional.layer_norm(
        lib.ones(0, 3), (3,)
    ),
    "dropout of integers": lambda lib: lib.nn.functional.dropout(
        lib.ones(3, dtype=lib.int64)
    ),
    # One value at a time: torch's vectorised gelu gives nan at +inf on some CPUs
    # (for tensors of two or more elements); its one-element path gives inf.
    "gelu of infinity": lambda lib: lib.nn.functional.gelu(lib.tensor([INF])),
    "gelu of minus infinity": lambda lib: lib.nn.functional.gelu(lib.tensor([-INF])),
    "bce with logits of nan": lambda lib: (
        lib.nn.functional.binary_cross_entropy_with_logits(
            lib.tensor([float("nan")]), lib.tensor([1.0])
        )
    ),
    "huber of integers": lambda lib: lib.nn.functional.huber_loss(
        lib.tensor([1]), lib.tensor([2])
    ),
    "cross_entropy of integers": lambda lib: lib.nn.functional.cross_entropy(
        lib.tensor([[1, 2]]), lib.tensor([0])
    ),
    "in-place leaky_relu of a leaf": lambda lib: lib.nn.functional.leaky_relu(
        lib.ones(2, requires_grad=True), inplace=True
    ),
    "linear of integers": lambda lib: lib.nn.functional.linear(
        lib.ones(2, 3, dtype=lib.int64), lib.ones(4, 3, dtype=lib.int64)
    ),
}


@pytest.mark.parametrize("name", EDGE_CASES)
def test_edge_case_matches_torch(name: str) -> None:
    torch = require_torch()
    make = EDGE_CASES[name]
    try:
        theirs = make(torch)
    except Exception:  # noqa: BLE001  (then ours must raise the same)
        same_error(make)
        return
    assert_same(make(st), theirs)


@pytest.mark.parametrize("shape", [(3,), (4, 3), (2, 4, 3)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_graph_matches_torch(shape, with_bias) -> None:
    def make(lib):
        x = lib.linspace(-1, 1, math.prod(shape)).reshape(*shape).requires_grad_()
        weight = lib.linspace(-1, 1, 15).reshape(5, 3).requires_grad_()
        bias = lib.linspace(-1, 1, 5).requires_grad_() if with_bias else None
        return lib.nn.functional.linear(x, weight, bias)

    check_graph(make)


def test_mlp_graph_matches_torch() -> None:
    def make(lib):
        model = lib.nn.Sequential(
            lib.nn.Linear(2, 3), lib.nn.Tanh(), lib.nn.Linear(3, 2)
        )
        x = lib.linspace(-1, 1, 8).reshape(4, 2)
        return lib.nn.functional.cross_entropy(model(x), lib.tensor([0, 1, 1, 0]))

    check_graph(make)
