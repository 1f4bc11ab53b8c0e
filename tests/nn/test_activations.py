"""Activations and softmax against torch: functional forms and modules
(values, grad_fn names, gradients, reprs, errors), stability for large
logits, and finite-difference checks of first and second derivatives."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

import slowtorch_lib as st
import slowtorch_lib.nn.functional as F
from slowtorch_lib import nn
from slowtorch_lib.autograd.gradcheck import gradcheck, gradgradcheck
from tests.nn.nn_parity import check_parity, rand, tensor
from tests.parity import (
    assert_same,
    both,
    require_torch,
    same_error,
)

ACTIVATIONS = {
    "relu": lambda F, x: F.relu(x),
    "leaky_relu": lambda F, x: F.leaky_relu(x),
    "leaky_relu_0.2": lambda F, x: F.leaky_relu(x, 0.2),
    "elu": lambda F, x: F.elu(x),
    "elu_alpha": lambda F, x: F.elu(x, alpha=0.5),
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda F, x: F.silu(x),
    "tanh": lambda F, x: F.tanh(x),
    "sigmoid": lambda F, x: F.sigmoid(x),
    "softmax_0": lambda F, x: F.softmax(x, 0),
    "softmax_1": lambda F, x: F.softmax(x, dim=1),
    "softmax_-1": lambda F, x: F.softmax(x, -1),
    "log_softmax_0": lambda F, x: F.log_softmax(x, 0),
    "log_softmax_1": lambda F, x: F.log_softmax(x, 1),
    "log_softmax_2": lambda F, x: F.log_softmax(x, 2),
}


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_activation_matches_torch(name: str, dtype: str) -> None:
    activation = ACTIVATIONS[name]
    check_parity(
        lambda lib, F, x: activation(F, x),
        lambda lib: [
            rand(lib, 3, 4, 2, seed=1, grad=True, dtype=dtype, low=-4, high=4)
        ],
    )


@pytest.mark.parametrize("name", ["relu", "leaky_relu", "elu", "silu"])
def test_inplace_activation_matches_torch(name: str) -> None:
    def call(lib, F, x):
        y = x * 1
        out = getattr(F, name)(y, inplace=True)
        assert out is y
        return y

    check_parity(call, lambda lib: [rand(lib, 3, 4, seed=2, grad=True)])


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_gradcheck(name: str) -> None:
    activation = ACTIVATIONS[name]
    # Values away from 0, where relu-like functions have a kink.
    x = (
        rand(st, 2, 3, 2, seed=3, dtype="float64", low=0.1, high=2.0)
        * tensor(st, [[[1, -1]] * 3] * 2, "float64")
    ).requires_grad_()
    assert gradcheck(lambda x: activation(F, x), (x,))
    assert gradgradcheck(lambda x: activation(F, x), (x,))


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_double_backward_matches_torch(approximate: str) -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        x = rand(lib, 7, seed=4, grad=True, dtype="float64", low=-3, high=3)
        y = lib.nn.functional.gelu(x, approximate=approximate)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        assert g.grad_fn.name() == "GeluBackwardBackward0"
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append(gg)
    assert_same(results[0], results[1])


@pytest.mark.parametrize("function", [F.log_softmax, F.softmax])
def test_softmax_is_stable_for_huge_logits(function) -> None:
    torch = require_torch()
    logits = [[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -999.0], [1e30, 1.0, -1e30]]
    ours = function(st.tensor(logits, requires_grad=True), 1)
    theirs = getattr(torch.nn.functional, function.__name__)(torch.tensor(logits), 1)
    assert all(math.isfinite(v) or v == -math.inf for v in ours.flatten().tolist())
    assert_same(ours, theirs)


def test_softmax_without_dim_warns_like_torch() -> None:
    torch = require_torch()
    for ndim, expected in ((1, 0), (2, 1), (3, 0), (4, 1)):
        shape = (2,) * ndim
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            ours = F.softmax(rand(st, *shape, seed=5))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = torch.nn.functional.softmax(rand(torch, *shape, seed=5))
        assert_same(ours, theirs)
        assert_same(ours, F.softmax(rand(st, *shape, seed=5), expected))


def test_softmax_dtype_argument() -> None:
    check_parity(
        lambda lib, F, x: F.log_softmax(x, 1, dtype=lib.float64),
        lambda lib: [rand(lib, 2, 3, seed=6, grad=True)],
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.functional.softmax(lib.tensor([1, 2]), 0),
        lambda lib: lib.nn.functional.log_softmax(lib.tensor([1, 2]), 0),
        lambda lib: lib.nn.functional.softmax(lib.ones(2, 3), 2),
        lambda lib: lib.nn.functional.gelu(lib.ones(2), approximate="foo"),
        lambda lib: lib.nn.functional.elu(lib.tensor([1, -2])),
        lambda lib: lib.nn.functional.leaky_relu(lib.tensor([1, -2])),
        lambda lib: lib.nn.functional.silu(lib.tensor([1, -2])),
        lambda lib: lib.nn.functional.gelu(lib.tensor([1, -2])),
    ],
)
def test_activation_errors_match_torch(make) -> None:
    same_error(make)


def test_activations_keep_special_values() -> None:
    torch = require_torch()
    special = [0.0, -0.0, math.inf, -math.inf, math.nan, 50.0, -50.0, 1e-30]
    for name in ("relu", "leaky_relu", "elu", "silu", "gelu", "tanh", "sigmoid"):
        ours = getattr(F, name)(st.tensor(special))
        theirs = getattr(torch.nn.functional, name)(torch.tensor(special))
        if name == "gelu":
            # torch's vectorised gelu gives nan at +inf on some CPUs (for tensors
            # of two or more elements); its one-element path, like the formula
            # x * (1 + erf(x / sqrt(2))) / 2, gives inf. Compare one at a time.
            one_by_one = [torch.nn.functional.gelu(torch.tensor([v])) for v in special]
            theirs = torch.cat(one_by_one)
        assert_same(ours, theirs)


# ----------------------------------------------------------------------
# Modules
# ----------------------------------------------------------------------

MODULES = [
    ("ReLU", (), "ReLU()"),
    ("LeakyReLU", (), "LeakyReLU(negative_slope=0.01)"),
    ("LeakyReLU", (0.2,), "LeakyReLU(negative_slope=0.2)"),
    ("ELU", (), "ELU(alpha=1.0)"),
    ("ELU", (0.5,), "ELU(alpha=0.5)"),
    ("GELU", (), "GELU(approximate='none')"),
    ("GELU", ("tanh",), "GELU(approximate='tanh')"),
    ("SiLU", (), "SiLU()"),
    ("Tanh", (), "Tanh()"),
    ("Sigmoid", (), "Sigmoid()"),
    ("Softmax", (1,), "Softmax(dim=1)"),
    ("LogSoftmax", (0,), "LogSoftmax(dim=0)"),
]


@pytest.mark.parametrize("name, args, text", MODULES)
def test_activation_module_matches_torch(name: str, args: tuple, text: str) -> None:
    torch = require_torch()
    assert (
        repr(getattr(nn, name)(*args)) == repr(getattr(torch.nn, name)(*args)) == text
    )
    check_parity(
        lambda lib, F, x: getattr(lib.nn, name)(*args)(x),
        lambda lib: [rand(lib, 3, 4, seed=7, grad=True)],
    )


@pytest.mark.parametrize("name", ["ReLU", "LeakyReLU", "ELU", "SiLU"])
def test_inplace_module_repr_matches_torch(name: str) -> None:
    torch = require_torch()
    assert repr(getattr(nn, name)(inplace=True)) == repr(
        getattr(torch.nn, name)(inplace=True)
    )


X = [[1.5, -2.0], [0.25, 3.0]]


@pytest.mark.parametrize("method", ["softmax", "log_softmax"])
def test_softmax_as_a_tensor_method_matches_torch_with_its_gradient(
    method: str,
) -> None:
    """``x.softmax(dim)`` and ``x.log_softmax(dim, dtype=...)``, as in torch: the
    values, the ``grad_fn`` and the gradient."""

    def run(L: Any) -> tuple[Any, Any, Any]:
        x = L.tensor(X, requires_grad=True)
        y = getattr(x, method)(1)
        (y * L.tensor([[1.0, -2.0], [0.5, 3.0]])).sum().backward()
        wide = getattr(x.detach(), method)(0, dtype=float)
        return y, x.grad, wide

    (y, grad, wide), (ty, tgrad, twide) = both(run)
    assert_same(y, ty)
    assert_same(grad, tgrad)
    assert_same(wide, twide)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
