"""Layer modules against torch with the same weights: outputs, grad_fn
names, gradients of the input and of every parameter, buffers, train/eval
behaviour, reprs, state_dict keys, and the distributions of default inits."""

from __future__ import annotations

import math

import pytest

import slowtorch_lib as st
from slowtorch_lib import nn
from tests.nn.nn_parity import rand, values
from tests.parity import assert_same, require_torch, same_error


def copy_weights(ours, theirs) -> None:
    """Gives our module torch's parameters and buffers (same names)."""
    with st.no_grad():
        for name, tensor in theirs.state_dict().items():
            target = ours.state_dict()[name]
            target.copy_(st.tensor(tensor.tolist(), dtype=target.dtype))


def run_pair(
    ours, theirs, shape, seed=1, dtype="float32", rtol=1e-4, atol=1e-5, backward=True
):
    """Same input through both modules; compare outputs and all gradients."""
    torch = require_torch()
    x = rand(st, *shape, seed=seed, grad=True, dtype=dtype)
    tx = rand(torch, *shape, seed=seed, grad=True, dtype=dtype)
    out, tout = ours(x), theirs(tx)
    assert_same(out, tout, rtol, atol)
    if tout.grad_fn is not None:
        assert out.grad_fn.name() == tout.grad_fn.name()
    if backward:
        upstream = values(tuple(tout.shape), seed + 100)
        out.backward(st.tensor(upstream, dtype=out.dtype))
        tout.backward(torch.tensor(upstream, dtype=tout.dtype))
        assert_same(x.grad, tx.grad, rtol, atol)
        ours_params = dict(ours.named_parameters())
        for name, param in theirs.named_parameters():
            assert_same(ours_params[name].grad, param.grad, rtol, atol)
    return out, tout


def same_structure(ours, theirs) -> None:
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [
        n for n, _ in theirs.named_parameters()
    ]
    for (name, mine), (_, other) in zip(
        ours.state_dict().items(), theirs.state_dict().items()
    ):
        assert tuple(mine.shape) == tuple(other.shape), name
        assert mine.dtype.name == str(other.dtype)[6:], name


# ----------------------------------------------------------------------
# Linear, Identity
# ----------------------------------------------------------------------


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(5, 3), (3,), (2, 4, 3)])
def test_linear_module_matches_torch(bias: bool, shape: tuple[int, ...]) -> None:
    torch = require_torch()
    ours, theirs = nn.Linear(3, 4, bias=bias), torch.nn.Linear(3, 4, bias=bias)
    same_structure(ours, theirs)
    copy_weights(ours, theirs)
    run_pair(ours, theirs, shape)


def test_linear_dtype_argument() -> None:
    torch = require_torch()
    ours = nn.Linear(2, 3, dtype=st.float64)
    theirs = torch.nn.Linear(2, 3, dtype=torch.float64)
    same_structure(ours, theirs)
    copy_weights(ours, theirs)
    run_pair(ours, theirs, (4, 2), dtype="float64", rtol=1e-10, atol=1e-12)


def test_identity() -> None:
    torch = require_torch()
    assert repr(nn.Identity(3, x=1)) == repr(torch.nn.Identity(3, x=1)) == "Identity()"
    x = st.ones(2)
    assert nn.Identity()(x) is x


# ----------------------------------------------------------------------
# A small MLP, end to end
# ----------------------------------------------------------------------


def test_mlp_training_step_matches_torch() -> None:
    torch = require_torch()

    def build(lib):
        return lib.nn.Sequential(
            lib.nn.Linear(2, 8),
            lib.nn.Tanh(),
            lib.nn.Linear(8, 8),
            lib.nn.GELU(),
            lib.nn.Linear(8, 3),
        )

    ours, theirs = build(st), build(torch)
    copy_weights(ours, theirs)
    x, tx = rand(st, 16, 2, seed=3), rand(torch, 16, 2, seed=3)
    target = [i % 3 for i in range(16)]
    for _ in range(3):
        losses = []
        for lib, model, inputs in ((st, ours, x), (torch, theirs, tx)):
            model.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(inputs), lib.tensor(target))
            loss.backward()
            with lib.no_grad():
                for p in model.parameters():
                    p -= 0.5 * p.grad
            losses.append(loss)
        assert_same(losses[0], losses[1], rtol=1e-4, atol=1e-5)
    for p, tp in zip(ours.parameters(), theirs.parameters()):
        assert_same(p, tp, rtol=1e-4, atol=1e-5)


# ----------------------------------------------------------------------
# LayerNorm
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"elementwise_affine": False},
        {"bias": False},
        {"eps": 1e-3},
    ],
)
def test_layer_norm_module_matches_torch(options: dict) -> None:
    torch = require_torch()
    ours, theirs = (
        nn.LayerNorm((3, 4), **options),
        torch.nn.LayerNorm((3, 4), **options),
    )
    same_structure(ours, theirs)
    with torch.no_grad():  # not the default ones and zeros, to test the affine part
        for p in theirs.parameters():
            p.copy_(torch.rand(p.shape) + 0.5)
    copy_weights(ours, theirs)
    run_pair(ours, theirs, (2, 3, 4))
    assert repr(nn.LayerNorm(5)) == repr(torch.nn.LayerNorm(5))


# ----------------------------------------------------------------------
# BatchNorm1d
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"momentum": None},
        {"affine": False},
        {"track_running_stats": False},
        {"momentum": 0.3, "eps": 1e-3},
        {"bias": False},
    ],
)
@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5)])
def test_batch_norm_module_train_then_eval_matches_torch(options, shape) -> None:
    torch = require_torch()
    ours, theirs = nn.BatchNorm1d(3, **options), torch.nn.BatchNorm1d(3, **options)
    same_structure(ours, theirs)
    if options.get("affine", True):
        with torch.no_grad():
            for p in theirs.parameters():
                p.copy_(torch.rand(p.shape) + 0.5)
    copy_weights(ours, theirs)
    for step in range(3):  # training: batch statistics, running averages move
        run_pair(ours, theirs, shape, seed=10 + step)
        for name, buffer in theirs.named_buffers():
            assert_same(dict(ours.named_buffers())[name], buffer, 1e-5, 1e-6)
    ours.eval()
    theirs.eval()
    for module in (ours, theirs):
        module.zero_grad()
    run_pair(ours, theirs, shape, seed=20)  # evaluation: running statistics
    for name, buffer in theirs.named_buffers():  # unchanged by evaluation
        assert_same(dict(ours.named_buffers())[name], buffer, 1e-5, 1e-6)


def test_batch_norm_module_errors_match_torch() -> None:
    same_error(lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(2, 3, 4, 5)))
    same_error(lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(1, 3)))


def test_batch_norm_module_rejected_batch_changes_nothing() -> None:
    layer = nn.BatchNorm1d(3, momentum=None)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        layer(st.ones(1, 3))
    assert layer.num_batches_tracked.item() == 0
    assert layer.running_mean.tolist() == [0.0] * 3
    assert layer.running_var.tolist() == [1.0] * 3


# ----------------------------------------------------------------------
# Dropout
# ----------------------------------------------------------------------


def test_dropout_module_train_and_eval() -> None:
    torch = require_torch()
    for p in (0.5, 0.0, 1.0):
        assert repr(nn.Dropout(p)) == repr(torch.nn.Dropout(p))
    assert repr(nn.Dropout(inplace=True)) == repr(torch.nn.Dropout(inplace=True))
    st.manual_seed(0)
    layer = nn.Dropout(0.25)
    x = st.ones(100, 100, requires_grad=True)
    y = layer(x)
    zeros = sum(v == 0 for v in y.flatten().tolist())
    assert abs(zeros / 10_000 - 0.25) < 0.02
    assert y.grad_fn.name() == "MulBackward0"
    layer.eval()
    assert layer(x) is x
    same_error(lambda lib: lib.nn.Dropout(2))


# ----------------------------------------------------------------------
# Embedding
# ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "options", [{}, {"padding_idx": 2}, {"padding_idx": -1}, {"max_norm": 1.0}]
)
def test_embedding_module_matches_torch(options: dict) -> None:
    torch = require_torch()
    ours, theirs = nn.Embedding(6, 3, **options), torch.nn.Embedding(6, 3, **options)
    same_structure(ours, theirs)
    copy_weights(ours, theirs)
    indices = [[0, 2, 5], [2, 2, 1]]
    out, tout = ours(st.tensor(indices)), theirs(torch.tensor(indices))
    assert_same(out, tout)
    assert out.grad_fn.name() == tout.grad_fn.name() == "EmbeddingBackward0"
    upstream = values((2, 3, 3), 5)
    out.backward(st.tensor(upstream))
    tout.backward(torch.tensor(upstream))
    assert_same(ours.weight.grad, theirs.weight.grad)
    assert_same(ours.weight, theirs.weight)  # max_norm rescales rows alike


def test_embedding_padding_row_starts_at_zero_and_from_pretrained() -> None:
    torch = require_torch()
    layer = nn.Embedding(4, 3, padding_idx=1)
    assert layer.weight[1].tolist() == [0.0, 0.0, 0.0]
    table = rand(st, 4, 3, seed=6)
    frozen = nn.Embedding.from_pretrained(table)
    theirs = torch.nn.Embedding.from_pretrained(rand(torch, 4, 3, seed=6))
    assert not frozen.weight.requires_grad and repr(frozen) == repr(theirs)
    assert_same(frozen(st.tensor([3, 0])), theirs(torch.tensor([3, 0])))
    same_error(lambda lib: lib.nn.Embedding(4, 3, padding_idx=4))


# ----------------------------------------------------------------------
# Flatten, Unflatten
# ----------------------------------------------------------------------


def test_flatten_and_unflatten_match_torch() -> None:
    torch = require_torch()
    pairs = [
        (nn.Flatten(), torch.nn.Flatten(), (2, 3, 4)),
        (nn.Flatten(0, 1), torch.nn.Flatten(0, 1), (2, 3, 4)),
        (nn.Unflatten(1, (2, 3)), torch.nn.Unflatten(1, (2, 3)), (4, 6)),
        (nn.Unflatten(-1, (3, 2)), torch.nn.Unflatten(-1, (3, 2)), (4, 6)),
    ]
    for ours, theirs, shape in pairs:
        assert repr(ours) == repr(theirs)
        run_pair(ours, theirs, shape)


# ----------------------------------------------------------------------
# Default initialisation: the same distributions as torch
# ----------------------------------------------------------------------


def _moments(tensor) -> tuple[float, float, float, float]:
    flat = tensor.detach().flatten().tolist()
    mean = sum(flat) / len(flat)
    var = sum((v - mean) ** 2 for v in flat) / len(flat)
    return mean, var, min(flat), max(flat)


def test_linear_default_init_is_torchs_uniform() -> None:
    torch = require_torch()
    st.manual_seed(0)
    torch.manual_seed(0)
    fan_in = 256
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)) and the bias rule
    ours, theirs = nn.Linear(fan_in, 512), torch.nn.Linear(fan_in, 512)
    for name in ("weight", "bias"):
        mean, var, low, high = _moments(getattr(ours, name))
        t_mean, t_var, t_low, t_high = _moments(getattr(theirs, name))
        count = getattr(ours, name).numel()
        assert -bound <= low and high <= bound
        assert high - low > 2 * bound * (1 - 20 / count)  # fills the whole range
        expected_var = bound * bound / 3
        assert abs(mean) < 5 * math.sqrt(expected_var / count)
        assert abs(var / expected_var - 1) < 6 * math.sqrt(0.8 / count)
        assert abs(t_var / expected_var - 1) < 6 * math.sqrt(0.8 / count)  # the claim
        assert -bound <= t_low and t_high <= bound


def test_embedding_default_init_is_standard_normal() -> None:
    st.manual_seed(1)
    layer = nn.Embedding(200, 100)
    mean, var, _, _ = _moments(layer.weight)
    assert abs(mean) < 5 / math.sqrt(20_000)
    assert abs(var - 1) < 5 * math.sqrt(2 / 20_000)


def test_normalization_default_init_is_ones_and_zeros() -> None:
    for layer in (nn.LayerNorm(4), nn.BatchNorm1d(4)):
        assert layer.weight.tolist() == [1.0] * 4
        assert layer.bias.tolist() == [0.0] * 4
    batch_norm = nn.BatchNorm1d(4)
    assert batch_norm.running_mean.tolist() == [0.0] * 4
    assert batch_norm.running_var.tolist() == [1.0] * 4
    assert batch_norm.num_batches_tracked.item() == 0
    assert batch_norm.num_batches_tracked.dtype is st.int64
