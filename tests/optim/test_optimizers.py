"""Every optimiser and option: the same parameter trajectory as torch.optim."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

import slowtorch_lib as st
from tests.optim.problem import assert_close, loss_of, make_params, values
from tests.parity import require_torch

STEPS = 25

CASES: list[tuple[str, dict[str, Any]]] = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.5}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.5, "eps": 1e-3}),
    ("Adagrad", {"lr": 0.05, "maximize": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "eps": 1e-3}),
    ("RMSprop", {"lr": 0.01, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "momentum": 0.9}),
    ("RMSprop", {"lr": 0.01, "centered": True}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}),
    ("RMSprop", {"lr": 0.01, "maximize": True}),
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "betas": (0.8, 0.99), "eps": 1e-4}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.05, "amsgrad": True}),
    ("Adam", {"lr": 0.05, "maximize": True}),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.05}),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.2, "amsgrad": True}),
    ("AdamW", {"lr": 0.05, "maximize": True}),
]


def trajectory(
    lib: Any, name: str, settings: Any, steps: int = STEPS, grouped: bool = False
) -> list[dict[str, Any]]:
    """The parameters after each of ``steps`` steps of optimiser ``name``."""
    params = make_params(lib)
    if grouped:
        groups: Any = [
            {"params": [params["w"]], **settings[0]},
            {"params": [params["b"], params["unused"]], **settings[1]},
        ]
        optimizer = getattr(lib.optim, name)(groups, **settings[2])
    else:
        optimizer = getattr(lib.optim, name)(list(params.values()), **settings)
    path = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss_of(lib, params).backward()
        optimizer.step()
        path.append(values(params))
    return path


@pytest.mark.parametrize(("name", "settings"), CASES, ids=str)
def test_trajectory_matches_torch(name: str, settings: dict[str, Any]) -> None:
    torch = require_torch()
    ours = trajectory(st, name, settings)
    theirs = trajectory(torch, name, settings)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        assert_close(a, b), step
    # The parameter without a gradient was never touched.
    assert ours[-1]["unused"] == [0.5, -0.25]


def complex_trajectory(lib: Any, name: str, settings: Any) -> list[Any]:
    """A complex parameter's values and state after each of 10 steps."""
    param = lib.tensor([1 + 2j, -0.5 + 0.25j, 3 - 1j], requires_grad=True)
    target = lib.tensor([0.5 - 1j, 2 + 0j, -1 + 1j])
    optimizer = getattr(lib.optim, name)([param], **settings)
    path = []
    for _ in range(10):
        optimizer.zero_grad()
        loss = ((param * target - 1).abs() ** 2).sum() + (param.real * param.imag).sum()
        loss.backward()
        optimizer.step()
        state = optimizer.state[param]
        parts = [lib.view_as_real(param.detach())]
        parts += [lib.view_as_real(v) for v in state.values() if v.is_complex()]
        path.append([p.tolist() for p in parts])
    return path


@pytest.mark.parametrize(
    ("name", "settings"),
    [
        ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}),
        ("Adam", {"lr": 0.1}),
        ("Adam", {"lr": 0.1, "amsgrad": True, "weight_decay": 0.1}),
        ("AdamW", {"lr": 0.1, "maximize": True}),
        ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5}),
        ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.5}),
    ],
    ids=str,
)
def test_complex_parameters_match_torch(name: str, settings: Any) -> None:
    """PyTorch updates a complex parameter as two real numbers per element
    (its second moments are of each part, not of |g|)."""
    torch = require_torch()
    ours = complex_trajectory(st, name, settings)
    theirs = complex_trajectory(torch, name, settings)
    for a, b in zip(ours, theirs):
        assert_close(a, b)


def test_one_adam_step_on_a_complex_parameter_without_torch() -> None:
    param = st.tensor([3 + 4j], requires_grad=True)
    (param.real * 2 + param.imag * -0.5).sum().backward()  # gradient 2 - 0.5i
    st.optim.Adam([param], lr=0.1).step()
    # Each part moves by lr against the sign of its own gradient.
    assert param.detach().tolist() == [pytest.approx(2.9 + 4.1j)]


GROUPED = [
    (
        "SGD",
        (
            {"lr": 0.2, "momentum": 0.9},
            {"nesterov": True, "momentum": 0.5},
            {"lr": 0.05},
        ),
    ),
    ("Adam", ({"lr": 0.1}, {"betas": (0.5, 0.9), "amsgrad": True}, {"lr": 0.01})),
    ("RMSprop", ({"centered": True}, {"momentum": 0.9, "lr": 0.001}, {"lr": 0.01})),
    ("Adagrad", ({"lr_decay": 0.1}, {"lr": 0.3}, {"lr": 0.1})),
    ("AdamW", ({"weight_decay": 0.5}, {"weight_decay": 0.0}, {"lr": 0.05})),
]


@pytest.mark.parametrize(("name", "settings"), GROUPED, ids=str)
def test_param_groups_with_different_settings(name: str, settings: Any) -> None:
    torch = require_torch()
    ours = trajectory(st, name, settings, steps=20, grouped=True)
    theirs = trajectory(torch, name, settings, steps=20, grouped=True)
    for a, b in zip(ours, theirs):
        assert_close(a, b)


def _state_values(state_dict: dict[str, Any]) -> dict[Any, Any]:
    return {
        index: {
            key: value.tolist() if hasattr(value, "tolist") else value
            for key, value in entry.items()
        }
        for index, entry in state_dict["state"].items()
    }


@pytest.mark.parametrize(("name", "settings"), CASES[1::3], ids=str)
def test_state_dict_matches_torch_and_round_trips(name: str, settings: Any) -> None:
    torch = require_torch()
    results = {}
    for lib in (st, torch):
        params = make_params(lib)
        optimizer = getattr(lib.optim, name)(list(params.values()), **settings)
        for _ in range(10):
            optimizer.zero_grad()
            loss_of(lib, params).backward()
            optimizer.step()
        saved = optimizer.state_dict()
        results[lib.__name__] = saved
        # A new optimiser over copies of the parameters takes over mid-training.
        copies = {
            k: lib.tensor(v.tolist(), requires_grad=True) for k, v in params.items()
        }
        resumed = getattr(lib.optim, name)(list(copies.values()), lr=123.0)
        resumed.load_state_dict(copy.deepcopy(saved) if lib is torch else saved)
        assert resumed.param_groups[0]["lr"] == settings["lr"]
        for _ in range(15):
            for live in (optimizer, resumed):
                live.zero_grad()
            loss_of(lib, params).backward()
            loss_of(lib, copies).backward()
            optimizer.step()
            resumed.step()
        assert_close(values(copies), values(params), rtol=1e-6, atol=1e-7)
        results[lib.__name__ + "-end"] = values(copies)
    ours, theirs = results["slowtorch_lib"], results["torch"]
    assert ours["param_groups"] == theirs["param_groups"]
    ours_state, theirs_state = _state_values(ours), _state_values(theirs)
    assert ours_state.keys() == theirs_state.keys()
    for index in ours_state:
        assert ours_state[index].keys() == theirs_state[index].keys()
        for key in ours_state[index]:
            assert_close(ours_state[index][key], theirs_state[index][key])
    assert_close(results["slowtorch_lib-end"], results["torch-end"])


def test_load_state_dict_copies_buffers() -> None:
    params = make_params(st)
    optimizer = st.optim.SGD(list(params.values()), lr=0.1, momentum=0.9)
    loss_of(st, params).backward()
    optimizer.step()
    other = st.optim.SGD(list(params.values()), lr=0.1, momentum=0.9)
    other.load_state_dict(optimizer.state_dict())
    ours = optimizer.state[params["w"]]["momentum_buffer"]
    theirs = other.state[params["w"]]["momentum_buffer"]
    assert ours is not theirs and ours.tolist() == theirs.tolist()


@pytest.mark.parametrize(
    ("name", "settings"),
    [
        ("SGD", {"lr": -1}),
        ("SGD", {"momentum": -1}),
        ("SGD", {"weight_decay": -1}),
        ("SGD", {"nesterov": True}),
        ("SGD", {"momentum": 0.9, "dampening": 0.1, "nesterov": True}),
        ("Adagrad", {"lr": -0.5}),
        ("Adagrad", {"lr_decay": -1}),
        ("Adagrad", {"weight_decay": -1}),
        ("Adagrad", {"initial_accumulator_value": -1}),
        ("Adagrad", {"eps": -1}),
        ("RMSprop", {"lr": -1}),
        ("RMSprop", {"alpha": -1}),
        ("RMSprop", {"eps": -1}),
        ("RMSprop", {"momentum": -1}),
        ("RMSprop", {"weight_decay": -1}),
        ("Adam", {"lr": -1}),
        ("Adam", {"eps": -1}),
        ("Adam", {"betas": (1.0, 0.9)}),
        ("Adam", {"betas": (0.9, -0.1)}),
        ("Adam", {"weight_decay": -1}),
        ("AdamW", {"betas": (0.9, 1.0)}),
        ("AdamW", {"weight_decay": -1}),
        ("Muon", {"lr": -1}),
        ("Muon", {"momentum": -1}),
        ("Muon", {"weight_decay": -1}),
        ("Muon", {"adjust_lr_fn": "foo"}),
    ],
    ids=str,
)
def test_constructor_errors_match_torch(name: str, settings: Any) -> None:
    torch = require_torch()
    errors = []
    for lib in (st, torch):
        with pytest.raises(Exception) as info:
            getattr(lib.optim, name)([lib.zeros(2, 2, requires_grad=True)], **settings)
        errors.append(info.value)
    assert type(errors[0]) is type(errors[1])
    assert str(errors[0]) == str(errors[1])


def _error(function: Any) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        function()
    return type(info.value), str(info.value)


def test_param_list_errors_match_torch() -> None:
    torch = require_torch()
    p, q = st.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    p2, q2 = st.zeros(3, requires_grad=True), torch.zeros(3, requires_grad=True)
    pairs = [
        (lambda: st.optim.SGD([], lr=0.1), lambda: torch.optim.SGD([], lr=0.1)),
        (lambda: st.optim.SGD(p, lr=0.1), lambda: torch.optim.SGD(q, lr=0.1)),
        (
            lambda: st.optim.SGD([{"params": [p]}, {"params": [p2, p]}]),
            lambda: torch.optim.SGD([{"params": [q]}, {"params": [q2, q]}]),
        ),
        (
            lambda: st.optim.SGD([p * 2], lr=0.1),
            lambda: torch.optim.SGD([q * 2], lr=0.1),
        ),
        (
            lambda: st.optim.SGD([{"params": {p}}], lr=0.1),
            lambda: torch.optim.SGD([{"params": {q}}], lr=0.1),
        ),
        (
            lambda: st.optim.SGD([p, 3], lr=0.1),
            lambda: torch.optim.SGD([q, 3], lr=0.1),
        ),
        (
            lambda: st.optim.Muon([p]),
            lambda: torch.optim.Muon([q]),
        ),
    ]
    for ours, theirs in pairs:
        assert _error(ours) == _error(theirs)


def test_duplicate_parameters_warn() -> None:
    p = st.zeros(2, requires_grad=True)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        st.optim.SGD([p, p], lr=0.1)


def test_required_setting_must_be_given() -> None:
    from slowtorch_lib.optim.optimizer import Optimizer, required

    p = st.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        Optimizer([p], {"lr": required})
    optimizer = Optimizer([{"params": [p], "lr": 0.5}], {"lr": required, "x": 1})
    assert optimizer.param_groups[0] == {"params": [p], "lr": 0.5, "x": 1}


def test_add_param_group_and_load_errors_match_torch() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        a, b = lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)
        optimizer = lib.optim.SGD([a], lr=0.1, momentum=0.9)
        optimizer.add_param_group({"params": b, "lr": 0.5})
        groups = [
            {k: v for k, v in g.items() if k != "params"}
            for g in optimizer.param_groups
        ]
        saved = optimizer.state_dict()
        other = lib.optim.SGD([a], lr=0.1)
        wrong_count = _error(lambda: other.load_state_dict(saved))  # noqa: B023
        two = lib.optim.SGD([{"params": [a]}, {"params": [b, lib.zeros(1)]}], lr=0.1)
        wrong_size = _error(lambda: two.load_state_dict(saved))  # noqa: B023
        not_dict = _error(lambda: optimizer.add_param_group([a]))  # noqa: B023
        results.append((groups, wrong_count, wrong_size, not_dict, repr(optimizer)))
    assert results[0][:3] == results[1][:3] and results[0][4] == results[1][4]
    assert results[0][3][1] == "param_group must be a dict, but got list"


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none: bool) -> None:
    torch = require_torch()
    grads = []
    for lib in (st, torch):
        params = make_params(lib)
        optimizer = lib.optim.SGD(list(params.values()), lr=0.1)
        loss_of(lib, params).backward()
        optimizer.zero_grad(set_to_none=set_to_none)
        grads.append(
            [None if p.grad is None else p.grad.tolist() for p in params.values()]
        )
    assert grads[0] == grads[1]


def test_step_with_closure_returns_its_loss() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        params = make_params(lib)
        optimizer = lib.optim.SGD(list(params.values()), lr=0.1)
        calls = []

        def closure(
            lib: Any = lib, params: Any = params, optimizer: Any = optimizer
        ) -> Any:
            optimizer.zero_grad()
            loss = loss_of(lib, params)
            loss.backward()
            calls.append(1)  # noqa: B023
            return loss

        losses = [optimizer.step(closure).item() for _ in range(5)]
        results.append((losses, values(params), len(calls)))
        assert lib.is_grad_enabled()
    assert_close(results[0][0], results[1][0])
    assert_close(results[0][1], results[1][1])
    assert results[0][2] == results[1][2] == 5


def test_update_is_not_recorded_by_autograd() -> None:
    params = make_params(st)
    optimizer = st.optim.Adam(list(params.values()), lr=0.1)
    loss_of(st, params).backward()
    optimizer.step()
    for param in params.values():
        assert param.is_leaf and param.grad_fn is None and param.requires_grad
    for state in optimizer.state.values():
        for value in state.values():
            assert not value.requires_grad


def test_repr_matches_torch() -> None:
    torch = require_torch()
    for name in ("SGD", "Adagrad", "RMSprop", "Adam", "AdamW", "Muon"):
        ours = getattr(st.optim, name)([st.zeros(2, 2, requires_grad=True)])
        theirs = getattr(torch.optim, name)([torch.zeros(2, 2, requires_grad=True)])
        assert repr(ours) == repr(theirs)
        assert ours.defaults == theirs.defaults


# ----------------------------------------------------------------------
# Muon: against its rule written out in torch (float32), and against
# torch.optim.Muon, which runs Newton-Schulz in bfloat16 (so loosely).
# ----------------------------------------------------------------------


def muon_reference(
    torch: Any, w: Any, grads: list[Any], settings: dict[str, Any], bf16: bool = False
) -> Any:
    """Muon's update written out from its documented rule, in torch float32.

    With ``bf16`` the Newton-Schulz iteration runs in bfloat16 with fused
    ``addmm`` calls, which is how torch.optim.Muon computes it.
    """
    lr, wd = settings.get("lr", 1e-3), settings.get("weight_decay", 0.1)
    momentum, nesterov = settings.get("momentum", 0.95), settings.get("nesterov", True)
    a, b, c = settings.get("ns_coefficients", (3.4445, -4.775, 2.0315))
    steps, eps = settings.get("ns_steps", 5), settings.get("eps", 1e-7)
    rows, cols = w.shape
    if settings.get("adjust_lr_fn") == "match_rms_adamw":
        adjusted = lr * 0.2 * math.sqrt(max(rows, cols))
    else:
        adjusted = lr * math.sqrt(max(1, rows / cols))
    buf = torch.zeros_like(w)
    path = []
    for g in grads:
        buf = buf * momentum + g * (1 - momentum)
        update = g * (1 - momentum) + buf * momentum if nesterov else buf
        x = update.T if rows > cols else update
        if bf16:
            x = x.bfloat16()
        x = x / x.norm().clamp_min(eps)
        for _ in range(steps):
            gram = x @ x.T
            if bf16:
                x = torch.addmm(
                    x, torch.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a
                )
            else:
                x = a * x + (b * gram + c * (gram @ gram)) @ x
        update = (x.T if rows > cols else x).float()
        w = w * (1 - lr * wd) - adjusted * update
        path.append(w.tolist())
    return path


MUON_CASES = [
    {"lr": 0.02},
    {"lr": 0.02, "nesterov": False, "momentum": 0.9},
    {"lr": 0.02, "weight_decay": 0.0, "ns_steps": 3},
    {"lr": 0.01, "adjust_lr_fn": "match_rms_adamw"},
    {"lr": 0.02, "ns_coefficients": (2.0, -1.5, 0.5), "eps": 1e-5},
]


@pytest.mark.parametrize("settings", MUON_CASES, ids=str)
@pytest.mark.parametrize("shape", [(3, 5), (5, 3)])
def test_muon_trajectory(settings: dict[str, Any], shape: tuple[int, int]) -> None:
    torch = require_torch()
    rows, cols = shape
    start = [[math.sin(i * cols + j + 0.5) for j in range(cols)] for i in range(rows)]
    grads = [
        [[math.cos(0.3 * k + 1.7 * i - j) for j in range(cols)] for i in range(rows)]
        for k in range(20)
    ]
    w = st.tensor(start, requires_grad=True)
    optimizer = st.optim.Muon([w], **settings)
    ours = []
    for g in grads:
        w.grad = st.tensor(g)
        optimizer.step()
        ours.append(w.tolist())
    reference = muon_reference(
        torch, torch.tensor(start), [torch.tensor(g) for g in grads], settings
    )
    for a, b in zip(ours, reference):
        assert_close(a, b, rtol=1e-4, atol=2e-5)
    tw = torch.tensor(start, requires_grad=True)
    real = torch.optim.Muon([tw], **settings)
    for g in grads:
        tw.grad = torch.tensor(g)
        real.step()
        # bfloat16 in torch: about 3 significant digits per update.
    # The reference in bfloat16 is torch's Muon, which checks the reference.
    in_bf16 = muon_reference(
        torch,
        torch.tensor(start),
        [torch.tensor(g) for g in grads],
        settings,
        bf16=True,
    )
    assert_close(tw.tolist(), in_bf16[-1], rtol=1e-5, atol=1e-6)
    # And the engine (float32 throughout) stays near torch's bfloat16 path.
    assert_close(ours[-1], tw.tolist(), rtol=0, atol=0.05)
    assert (
        st.optim.Muon([w], **settings).state_dict()["param_groups"]
        == (torch.optim.Muon([tw], **settings).state_dict()["param_groups"])
    )


def test_newton_schulz_makes_singular_values_near_one() -> None:
    from slowtorch_lib.optim.muon import newton_schulz

    matrix = st.tensor([[3.0, 1.0, 0.0, 2.0], [0.5, -1.0, 2.0, 0.0]])
    x = newton_schulz(matrix, (3.4445, -4.775, 2.0315), 5, 1e-7)
    (p, q), (_, r) = (x @ x.t()).tolist()
    # The eigenvalues of x x^T are the squared singular values of x; with
    # these coefficients the singular values land in about [0.7, 1.2].
    mean, spread = (p + r) / 2, math.sqrt(((p - r) / 2) ** 2 + q * q)
    for squared in (mean - spread, mean + spread):
        assert 0.45 < squared < 1.45


# ----------------------------------------------------------------------
# Lion: against its published rule (Chen et al., 2023) written out here
# ----------------------------------------------------------------------


def lion_reference(w: list[float], grads: list[list[float]], settings: Any) -> Any:
    """Lion, element by element in Python floats."""
    lr, (beta1, beta2) = settings["lr"], settings.get("betas", (0.9, 0.99))
    wd, maximize = settings.get("weight_decay", 0.0), settings.get("maximize", False)
    m = [0.0] * len(w)
    path = []
    for g in grads:
        if maximize:
            g = [-v for v in g]
        c = [beta1 * mi + (1 - beta1) * gi for mi, gi in zip(m, g)]
        update = [(ci > 0) - (ci < 0) for ci in c]
        w = [wi - lr * (ui + wd * wi) for wi, ui in zip(w, update)]
        m = [beta2 * mi + (1 - beta2) * gi for mi, gi in zip(m, g)]
        path.append(w)
    return path


@pytest.mark.parametrize(
    "settings",
    [
        {"lr": 0.01},
        {"lr": 0.01, "betas": (0.5, 0.9)},
        {"lr": 0.01, "weight_decay": 0.5},
        {"lr": 0.01, "maximize": True},
    ],
    ids=str,
)
def test_lion_follows_published_rule(settings: Any) -> None:
    start = [0.5, -0.3, 0.8, 0.1, -1.0, 0.25]
    grads = [[math.sin(0.9 * k + 1.3 * i) for i in range(6)] for k in range(25)]
    w = st.tensor(start, requires_grad=True)
    optimizer = st.optim.Lion([w], **settings)
    for g, expected in zip(grads, lion_reference(start, grads, settings)):
        w.grad = st.tensor(g)
        optimizer.step()
        assert_close(w.tolist(), expected, rtol=1e-5, atol=1e-6)


def test_lion_trains_the_problem() -> None:
    params = make_params(st)
    optimizer = st.optim.Lion([params["w"], params["b"]], lr=0.01)
    first = loss_of(st, params).item()
    for _ in range(30):
        optimizer.zero_grad()
        loss_of(st, params).backward()
        optimizer.step()
    assert loss_of(st, params).item() < 0.7 * first


def test_lion_constructor_errors() -> None:
    p = st.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        st.optim.Lion([p], lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        st.optim.Lion([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Invalid weight_decay value: -1"):
        st.optim.Lion([p], weight_decay=-1)


OPTIMISERS_WITH_DIFFERENTIABLE = ["SGD", "Adam", "AdamW", "Adagrad", "RMSprop"]


@pytest.mark.parametrize("name", OPTIMISERS_WITH_DIFFERENTIABLE)
def test_differentiable_true_raises_rather_than_being_ignored(name: str) -> None:
    w = st.tensor([1.0, 2.0], requires_grad=True)
    optimiser_class = getattr(st.optim, name)
    optimiser_class([w], lr=0.1, differentiable=False)  # the default: accepted
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        optimiser_class([w], lr=0.1, differentiable=True)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        optimiser_class([{"params": [w], "differentiable": True}], lr=0.1)
