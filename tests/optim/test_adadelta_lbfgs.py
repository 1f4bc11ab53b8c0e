"""Adadelta and L-BFGS against torch.optim: the same losses and parameters
over several steps, their settings, state and errors."""

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
from tests.optim.problem import B0, W0, X, Y, assert_close, loss_of, make_params, values
from tests.optim.test_optimizers import complex_trajectory, trajectory
from tests.parity import require_torch

ADADELTA = [
    {},
    {"lr": 0.5},
    {"lr": 2.0, "rho": 0.5, "eps": 1e-3},
    {"weight_decay": 0.1},
    {"maximize": True, "lr": 0.5},
    {"rho": 0.0},
    {"rho": 1.0, "eps": 1e-2},
]


@pytest.mark.parametrize("settings", ADADELTA, ids=str)
def test_adadelta_trajectory_matches_torch(settings: dict[str, Any]) -> None:
    torch = require_torch()
    ours = trajectory(st, "Adadelta", settings)
    theirs = trajectory(torch, "Adadelta", settings)
    for a, b in zip(ours, theirs):
        assert_close(a, b)
    assert ours[-1]["unused"] == [0.5, -0.25]
    # It moved: the comparison is not of two parameters left alone.
    assert ours[-1]["w"] != values(make_params(st))["w"]


def test_adadelta_groups_complex_state_and_repr_match_torch() -> None:
    torch = require_torch()
    settings = ({"lr": 0.5}, {"rho": 0.5, "weight_decay": 0.2}, {"eps": 1e-4})
    ours = trajectory(st, "Adadelta", settings, steps=15, grouped=True)
    theirs = trajectory(torch, "Adadelta", settings, steps=15, grouped=True)
    for a, b in zip(ours, theirs):
        assert_close(a, b)
    for a, b in zip(
        complex_trajectory(st, "Adadelta", {"lr": 0.5}),
        complex_trajectory(torch, "Adadelta", {"lr": 0.5}),
    ):
        assert_close(a, b)
    saved = []
    for lib in (st, torch):
        params = make_params(lib)
        optimizer = lib.optim.Adadelta(list(params.values()), lr=0.7)
        for _ in range(3):
            optimizer.zero_grad()
            loss_of(lib, params).backward()
            optimizer.step()
        state = optimizer.state_dict()
        saved.append(
            (
                repr(optimizer),
                optimizer.defaults,
                state["param_groups"],
                {
                    i: {k: v.tolist() for k, v in s.items()}
                    for i, s in state["state"].items()
                },
            )
        )
    assert saved[0][:3] == saved[1][:3]
    assert saved[0][3].keys() == saved[1][3].keys()
    for index in saved[0][3]:
        assert_close(saved[0][3][index], saved[1][3][index])


@pytest.mark.parametrize(
    "settings",
    [{"lr": -1}, {"rho": 1.5}, {"rho": -0.1}, {"eps": -1}, {"weight_decay": -1}],
    ids=str,
)
def test_adadelta_constructor_errors_match_torch(settings: dict[str, Any]) -> None:
    torch = require_torch()
    errors = []
    for lib in (st, torch):
        with pytest.raises(Exception) as info:
            lib.optim.Adadelta([lib.zeros(2, requires_grad=True)], **settings)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def test_adadelta_refuses_capturable_and_differentiable() -> None:
    torch = require_torch()
    errors = []
    for lib in (st, torch):
        p = lib.ones(2, requires_grad=True)
        p.grad = lib.ones(2)
        optimizer = lib.optim.Adadelta([p], capturable=True)
        with pytest.raises(AssertionError) as info:
            optimizer.step()
        errors.append(str(info.value))
        assert p.tolist() == [1.0, 1.0]
    assert errors[0] == errors[1]
    w = st.ones(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        st.optim.Adadelta([w], differentiable=True)


# ----------------------------------------------------------------------
# L-BFGS
# ----------------------------------------------------------------------

LBFGS = [
    {},
    {"lr": 0.5, "max_iter": 5},
    {"history_size": 2, "max_iter": 8},
    {"max_iter": 10, "max_eval": 6},
    {"tolerance_grad": 1e-2},
    {"tolerance_change": 1e-3},
    {"line_search_fn": "strong_wolfe"},
    {"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 6},
    {"line_search_fn": "strong_wolfe", "lr": 0.3, "max_eval": 9},
]


def lbfgs_run(lib: Any, settings: dict[str, Any], dtype: str, steps: int = 4) -> Any:
    """The loss each ``step`` returns, the parameters after each, the losses
    of every closure call, and the state's counts, over ``steps`` steps."""
    params = {
        "w": lib.tensor(W0, dtype=getattr(lib, dtype), requires_grad=True),
        "b": lib.tensor(B0, dtype=getattr(lib, dtype), requires_grad=True),
    }
    x, y = (
        lib.tensor(X, dtype=getattr(lib, dtype)),
        lib.tensor(Y, dtype=getattr(lib, dtype)),
    )
    optimizer = lib.optim.LBFGS(list(params.values()), **settings)
    calls = []

    def closure() -> Any:
        optimizer.zero_grad()
        loss = (((x @ params["w"] + params["b"]).tanh() - y) ** 2).sum() / 5
        loss.backward()
        calls.append(loss.item())
        return loss

    path = []
    for _ in range(steps):
        loss = optimizer.step(closure)
        path.append((loss.item(), values(params)))
    state = optimizer.state[params["w"]]
    return path, calls, state["func_evals"], state["n_iter"]


@pytest.mark.parametrize("settings", LBFGS, ids=str)
def test_lbfgs_matches_torch_in_float64(settings: dict[str, Any]) -> None:
    """In float64 every iteration is torch's: the same losses and parameters
    to rounding, the same closure calls, and the same counts."""
    torch = require_torch()
    ours = lbfgs_run(st, settings, "float64")
    theirs = lbfgs_run(torch, settings, "float64")
    for (loss, params), (tloss, tparams) in zip(ours[0], theirs[0]):
        assert_close(loss, tloss, rtol=1e-10, atol=1e-12)
        assert_close(params, tparams, rtol=1e-9, atol=1e-11)
    assert_close(ours[1], theirs[1], rtol=1e-10, atol=1e-12)
    assert ours[2:] == theirs[2:]  # func_evals and n_iter
    assert ours[1][-1] < 0.5 * ours[1][0]  # it learned


@pytest.mark.parametrize("settings", LBFGS, ids=str)
def test_lbfgs_matches_torch_in_float32(settings: dict[str, Any]) -> None:
    """In float32 the last iterations run at the noise of rounding, near a
    flat minimum, so the number of iterations may differ there; the losses
    agree, and the parameters to the flatness of the minimum."""
    torch = require_torch()
    ours = lbfgs_run(st, settings, "float32")
    theirs = lbfgs_run(torch, settings, "float32")
    for (loss, params), (tloss, tparams) in zip(ours[0], theirs[0]):
        assert_close(loss, tloss, rtol=1e-5, atol=1e-7)
        assert_close(params, tparams, rtol=1e-3, atol=1e-4)


def test_lbfgs_stops_at_once_when_the_gradient_is_small() -> None:
    params = make_params(st)
    optimizer = st.optim.LBFGS([params["w"]], tolerance_grad=1e3)
    before = values(params)

    def closure() -> Any:
        optimizer.zero_grad()
        loss = loss_of(st, params)
        loss.backward()
        return loss

    optimizer.step(closure)
    assert values(params) == before
    assert optimizer.state[params["w"]]["func_evals"] == 1


def test_lbfgs_settings_and_errors_match_torch() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        p = lib.zeros(2, requires_grad=True)
        optimizer = lib.optim.LBFGS([p], max_iter=8)
        row: list[Any] = [optimizer.defaults, repr(optimizer)]
        other = lib.zeros(1, requires_grad=True)
        for make in (
            lambda lib=lib, p=p: lib.optim.LBFGS([p], lr=-1),
            lambda lib=lib, p=p, other=other: lib.optim.LBFGS(
                [{"params": [p]}, {"params": [other]}]
            ),
        ):
            with pytest.raises(ValueError) as info:
                make()
            row.append(str(info.value))
        q = lib.ones(2, requires_grad=True)
        bad = lib.optim.LBFGS([q], line_search_fn="armijo")

        def closure(q: Any = q) -> Any:
            loss = (q * q).sum()
            loss.backward()
            return loss

        with pytest.raises(RuntimeError) as info:
            bad.step(closure)
        row.append(str(info.value))
        results.append(row)
    assert results[0] == results[1]
