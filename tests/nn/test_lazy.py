"""Lazy modules against torch: ``LazyLinear`` and ``UninitializedParameter``
before and after the first forward, with optimisers and state_dicts."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib import nn
from tests.parity import assert_same, from_torch, require_torch, same_error


def story(lib: Any) -> list[Any]:
    """What a user sees of a LazyLinear from construction to training."""
    seen: list[Any] = []
    model = lib.nn.LazyLinear(3)
    weight = model.weight
    seen += [repr(model), repr(weight), model.has_uninitialized_params()]
    seen += [type(weight).__name__, weight.requires_grad, weight.dtype.__repr__()]
    seen += [list(weight.size()), model.in_features]
    seen += [[(k, repr(v)) for k, v in model.state_dict().items()]]
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    output = model(lib.ones(2, 5))
    seen += [repr(model), type(model).__name__, type(model.weight).__name__]
    seen += [list(model.weight.shape), model.in_features, output.grad_fn.name()]
    seen += [optimizer.param_groups[0]["params"][0] is weight is model.weight]
    seen += [
        model.has_uninitialized_params()
        if hasattr(model, "has_uninitialized_params")
        else None
    ]
    return seen


def test_lazy_linear_behaves_as_torchs() -> None:
    torch = require_torch()
    assert story(st) == story(torch)


def test_weights_are_drawn_as_linear_draws_them() -> None:
    st.manual_seed(0)
    model = nn.LazyLinear(40)
    model(st.ones(1, 25))
    bound = 1 / 25**0.5
    weights = model.weight.flatten().tolist() + model.bias.tolist()
    assert all(-bound <= w <= bound for w in weights)
    assert max(weights) > 0.9 * bound and min(weights) < -0.9 * bound


def test_training_after_a_lazy_start_matches_torch() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        model = lib.nn.Sequential(
            lib.nn.LazyLinear(4), lib.nn.Tanh(), lib.nn.LazyLinear(1)
        )
        optimizer = lib.optim.Adam(model.parameters(), lr=0.1)
        x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
        y = lib.tensor([[1.0], [-1.0]])
        model(x)  # materialise, then give both libraries the same weights
        with lib.no_grad():
            for number, param in enumerate(model.parameters()):
                values = [
                    0.1 * ((i * 7 + number * 3) % 11 - 5) for i in range(param.numel())
                ]
                param.copy_(lib.tensor(values).reshape(param.shape))
        losses = []
        for _ in range(5):
            optimizer.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        results.append((losses, repr(model)))
    assert results[0][1] == results[1][1]
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-5)
    assert results[0][0][-1] < results[0][0][0]


def test_state_dicts_of_lazy_modules_match_torch() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        source = lib.nn.Linear(4, 3)
        lazy = lib.nn.LazyLinear(3)
        row: list[Any] = [repr(lazy.load_state_dict(source.state_dict()))]
        row += [type(lazy).__name__, type(lazy.weight).__name__, lazy.in_features]
        row += [lazy.weight.tolist() == source.weight.tolist()]
        lazy(lib.ones(2, 4))
        row += [type(lazy).__name__, lazy.in_features]
        loaded_twice = lib.nn.LazyLinear(3)
        loaded_twice.load_state_dict(source.state_dict())
        row += [same_kind(lambda m=loaded_twice, lib=lib: m(lib.ones(2, 5)))]
        unbiased = lib.nn.LazyLinear(3, bias=False)
        row += [list(unbiased.state_dict()), unbiased.bias]
        row += [
            same_kind(
                lambda lib=lib: lib.nn.Linear(2, 3).load_state_dict(
                    lib.nn.LazyLinear(3).state_dict()
                )
            )
        ]
        row += [repr(copy.deepcopy(lib.nn.LazyLinear(3)))]
        results.append(row)
    assert results[0] == results[1]


def same_kind(run: Any) -> tuple[str, str]:
    with pytest.raises(Exception) as info:
        run()
    return type(info.value).__name__, str(info.value)


def test_dtype_and_shape_errors_match_torch() -> None:
    torch = require_torch()
    for lib in (st, torch):
        model = lib.nn.LazyLinear(3, dtype=lib.float64)
        model(lib.ones(5, dtype=lib.float64))
        assert str(model.weight.dtype) == "torch.float64" and model.in_features == 5
    same_error(lambda lib: lib.nn.LazyLinear(3).weight.shape)
    ours = nn.LazyLinear(2)
    theirs = torch.nn.LazyLinear(2)
    x = st.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    tx = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    ours(x)
    theirs(tx)
    with st.no_grad():
        ours.weight.copy_(st.tensor(theirs.weight.tolist()))
        ours.bias.copy_(st.tensor(theirs.bias.tolist()))
    out, tout = ours(x), theirs(tx)
    assert_same(out, tout)
    out.sum().backward()
    tout.sum().backward()
    assert_same(x.grad, tx.grad)
    assert_same(ours.weight.grad, theirs.weight.grad)


def test_a_lazy_module_that_does_not_initialise_is_refused() -> None:
    class Broken(nn.LazyModuleMixin, nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = nn.parameter.UninitializedParameter()

        def initialize_parameters(self, input: Any) -> None:
            pass

        def forward(self, input: Any) -> Any:
            return input

    with pytest.raises(
        RuntimeError, match="module Broken has not been fully initialized"
    ):
        Broken()(st.ones(2))

    class Unfinished(nn.LazyModuleMixin, nn.Module):
        pass

    with pytest.raises(NotImplementedError, match="initialize_parameters"):
        Unfinished()(st.ones(2))


LAZY_LAYERS = {
    "conv2d": (lambda L: L.nn.LazyConv2d(4, 3, padding=1), (2, 3, 5, 5)),
    "conv2d unbatched": (lambda L: L.nn.LazyConv2d(4, 2, bias=False), (3, 5, 5)),
    "conv1d groups": (lambda L: L.nn.LazyConv1d(6, 2, groups=3), (2, 3, 5)),
    "conv_transpose2d": (
        lambda L: L.nn.LazyConvTranspose2d(4, 3, stride=2),
        (2, 3, 4, 4),
    ),
    "conv_transpose1d": (lambda L: L.nn.LazyConvTranspose1d(2, 2), (2, 3, 5)),
    "batch_norm2d": (lambda L: L.nn.LazyBatchNorm2d(), (2, 3, 4, 4)),
    "batch_norm1d": (lambda L: L.nn.LazyBatchNorm1d(momentum=None), (4, 3)),
    "batch_norm1d no affine": (lambda L: L.nn.LazyBatchNorm1d(affine=False), (4, 3, 2)),
    "batch_norm1d no stats": (
        lambda L: L.nn.LazyBatchNorm1d(track_running_stats=False),
        (4, 3, 2),
    ),
}


@pytest.mark.parametrize("name", sorted(LAZY_LAYERS))
def test_lazy_layers_become_their_eager_layer(name: str) -> None:
    """Before and after the first call: reprs, classes, shapes; then, with
    PyTorch's drawn values loaded, the same outputs and gradients."""
    torch = require_torch()
    make, shape = LAZY_LAYERS[name]
    inputs = torch.randn(*shape, dtype=torch.float64)
    seen = {}
    for lib in (st, torch):
        model = make(lib).double()
        before = [repr(model), model.has_uninitialized_params()]
        x = lib.tensor(inputs.tolist(), dtype=lib.float64, requires_grad=True)
        model(x)
        after = [repr(model), type(model).__name__]
        after += [(k, list(v.shape)) for k, v in model.state_dict().items()]
        seen[lib] = (before, after, model, x)
    assert seen[st][:2] == seen[torch][:2]
    ours, theirs = seen[st][2], seen[torch][2]
    ours.load_state_dict({k: from_torch(v) for k, v in theirs.state_dict().items()})
    outputs = []
    for model, x in ((ours, seen[st][3]), (theirs, seen[torch][3])):
        output = model(x)
        output.pow(2).sum().backward()
        outputs.append((output, x.grad))
    assert_same(outputs[0][0], outputs[1][0], exact=False)
    assert_same(outputs[0][1], outputs[1][1], exact=False)


def test_lazy_layers_refuse_inputs_as_torch_does() -> None:
    same_error(lambda lib: lib.nn.LazyConv2d(2, 2)(lib.ones(2, 3)))
    same_error(lambda lib: lib.nn.LazyConv2d(2, 2, groups=2)(lib.ones(1, 3, 4, 4)))
    same_error(lambda lib: lib.nn.LazyConv1d(2, 2)(lib.ones(1, 3, 4, 4)))
    same_error(lambda lib: lib.nn.LazyBatchNorm2d()(lib.ones(2, 3)))
