"""Every scheduler: the same learning-rate sequence as torch.optim.lr_scheduler."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import require_torch

STEPS = 30


def _optimizer(lib: Any, name: str = "SGD") -> Any:
    a, b = lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)
    groups = [{"params": [a], "lr": 0.1}, {"params": [b], "lr": 0.02}]
    if name == "SGD":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    return getattr(lib.optim, name)(groups, lr=0.1)


def _halve(epoch: int) -> float:
    return 0.5 ** (epoch // 4)


def _warm(epoch: int) -> float:
    return min(1.0, (epoch + 1) / 5)


def make_scheduler(lib: Any, optimizer: Any, case: str) -> Any:
    s = lib.optim.lr_scheduler
    if case == "StepLR":
        return s.StepLR(optimizer, step_size=4, gamma=0.5)
    if case == "MultiStepLR":
        return s.MultiStepLR(optimizer, milestones=[3, 7, 7, 20], gamma=0.3)
    if case == "ExponentialLR":
        return s.ExponentialLR(optimizer, gamma=0.9)
    if case == "CosineAnnealingLR":
        return s.CosineAnnealingLR(optimizer, T_max=10, eta_min=0.001)
    if case == "LinearLR":
        return s.LinearLR(optimizer, start_factor=0.2, end_factor=0.9, total_iters=6)
    if case == "ConstantLR":
        return s.ConstantLR(optimizer, factor=0.5, total_iters=4)
    if case == "LambdaLR":
        return s.LambdaLR(optimizer, _halve)
    if case == "LambdaLR-two":
        return s.LambdaLR(optimizer, [_halve, _warm])
    if case == "OneCycleLR":
        return s.OneCycleLR(optimizer, max_lr=1.0, total_steps=STEPS + 1)
    if case == "OneCycleLR-linear-three":
        return s.OneCycleLR(
            optimizer,
            max_lr=[1.0, 0.5],
            epochs=4,
            steps_per_epoch=8,
            anneal_strategy="linear",
            three_phase=True,
            pct_start=0.25,
        )
    if case == "SequentialLR":
        return s.SequentialLR(
            optimizer,
            [
                s.LinearLR(optimizer, start_factor=0.1, total_iters=5),
                s.CosineAnnealingLR(optimizer, T_max=12),
                s.ExponentialLR(optimizer, gamma=0.8),
            ],
            milestones=[5, 17],
        )
    raise AssertionError(case)


CASES = [
    "StepLR",
    "MultiStepLR",
    "ExponentialLR",
    "CosineAnnealingLR",
    "LinearLR",
    "ConstantLR",
    "LambdaLR",
    "LambdaLR-two",
    "OneCycleLR",
    "OneCycleLR-linear-three",
    "SequentialLR",
]


def _sequence(lib: Any, case: str, optimizer_name: str = "SGD") -> list[Any]:
    optimizer = _optimizer(lib, optimizer_name)
    scheduler = make_scheduler(lib, optimizer, case)
    seen = [(scheduler.get_last_lr(), _momenta(optimizer))]
    for _ in range(STEPS):
        optimizer.step()
        scheduler.step()
        seen.append((scheduler.get_last_lr(), _momenta(optimizer)))
        assert scheduler.get_last_lr() == [g["lr"] for g in optimizer.param_groups]
    return seen


def _momenta(optimizer: Any) -> list[Any]:
    return [g.get("momentum", g.get("betas")) for g in optimizer.param_groups]


def _assert_close(ours: Any, theirs: Any) -> None:
    if isinstance(ours, (list, tuple)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _assert_close(a, b)
    else:
        assert math.isclose(ours, theirs, rel_tol=1e-12, abs_tol=1e-15), (ours, theirs)


@pytest.mark.parametrize("case", CASES)
def test_sequence_matches_torch(case: str) -> None:
    torch = require_torch()
    _assert_close(_sequence(st, case), _sequence(torch, case))


@pytest.mark.parametrize("case", ["OneCycleLR", "OneCycleLR-linear-three"])
def test_one_cycle_cycles_adam_beta1(case: str) -> None:
    torch = require_torch()
    _assert_close(_sequence(st, case, "Adam"), _sequence(torch, case, "Adam"))


@pytest.mark.parametrize("case", CASES)
def test_state_dict_round_trip(case: str) -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        optimizer = _optimizer(lib)
        scheduler = make_scheduler(lib, optimizer, case)
        for _ in range(11):
            optimizer.step()
            scheduler.step()
        saved_optimizer, saved = optimizer.state_dict(), scheduler.state_dict()
        # Resume: a new optimiser and scheduler, loaded from the saved states.
        resumed_optimizer = _optimizer(lib)
        resumed = make_scheduler(lib, resumed_optimizer, case)
        resumed_optimizer.load_state_dict(saved_optimizer)
        resumed.load_state_dict(saved)
        lrs = [resumed.get_last_lr()]
        for _ in range(STEPS - 11):
            resumed_optimizer.step()
            resumed.step()
            lrs.append(resumed.get_last_lr())
        results.append(lrs)
    _assert_close(results[0], results[1])


def test_initial_lr_and_last_epoch() -> None:
    optimizer = _optimizer(st)
    scheduler = st.optim.lr_scheduler.StepLR(optimizer, step_size=2)
    assert [g["initial_lr"] for g in optimizer.param_groups] == [0.1, 0.02]
    assert scheduler.last_epoch == 0 and scheduler.base_lrs == [0.1, 0.02]
    optimizer.step()
    scheduler.step()
    assert scheduler.last_epoch == 1


def test_reduce_lr_on_plateau_matches_torch() -> None:
    torch = require_torch()
    metrics = [
        1.0,
        0.9,
        0.95,
        0.95,
        0.95,
        0.95,
        0.89,
        0.9,
        0.9,
        0.9,
        0.9,
        0.9,
        0.9,
        0.5,
        0.6,
        0.6,
        0.6,
        0.6,
        0.6,
        0.6,
        0.6,
    ]
    settings_list = [
        {"patience": 2},
        {"patience": 1, "cooldown": 2, "factor": 0.5, "min_lr": [0.01, 0.005]},
        {"mode": "max", "patience": 0, "threshold_mode": "abs", "threshold": 0.01},
        {"patience": 2, "threshold": 0.1, "min_lr": 0.05},
    ]
    for settings in settings_list:
        results = []
        for lib in (st, torch):
            optimizer = _optimizer(lib)
            scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **settings)
            lrs = []
            for index, metric in enumerate(metrics):
                optimizer.step()
                scheduler.step(metric)
                lrs.append(scheduler.get_last_lr())
                if index == 8:  # round trip mid-way
                    saved = scheduler.state_dict()
                    scheduler = lib.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
                    scheduler.load_state_dict(saved)
            results.append((lrs, scheduler.best, scheduler.num_bad_epochs))
        _assert_close(results[0][0], results[1][0])
        assert results[0][1:] == results[1][1:]


def _error(function: Any) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        function()
    return type(info.value), str(info.value)


def _step_times(scheduler: Any, times: int) -> None:
    for _ in range(times):
        scheduler.step()


def test_errors_match_torch() -> None:
    torch = require_torch()
    cases = [
        lambda lib, o: lib.optim.lr_scheduler.StepLR(o, 3, last_epoch=5),
        lambda lib, o: lib.optim.lr_scheduler.StepLR(None, 3),
        lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, start_factor=0),
        lambda lib, o: lib.optim.lr_scheduler.LinearLR(o, end_factor=2),
        lambda lib, o: lib.optim.lr_scheduler.ConstantLR(o, factor=2),
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 1.0),
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(o, 1.0, total_steps=0),
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
            o, 1.0, total_steps=9, pct_start=2
        ),
        lambda lib, o: lib.optim.lr_scheduler.OneCycleLR(
            o, 1.0, total_steps=9, anneal_strategy="x"
        ),
        lambda lib, o: _step_times(
            lib.optim.lr_scheduler.OneCycleLR(o, 1, total_steps=3), 4
        ),
        lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, factor=1),
        lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, mode="x"),
        lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, threshold_mode="x"),
        lambda lib, o: lib.optim.lr_scheduler.ReduceLROnPlateau(o, min_lr=[0, 1, 2]),
        lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, [_halve]),
        lambda lib, o: lib.optim.lr_scheduler.SequentialLR(o, [], []),
        lambda lib, o: lib.optim.lr_scheduler.SequentialLR(
            o, [lib.optim.lr_scheduler.StepLR(o, 2)], [3]
        ),
    ]
    for case in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = _error(lambda case=case: case(torch, _optimizer(torch)))
            ours = _error(lambda case=case: case(st, _optimizer(st)))
        assert ours == theirs, case


def test_warns_when_stepped_before_the_optimizer() -> None:
    optimizer = _optimizer(st)
    scheduler = st.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        scheduler.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scheduler.step()  # only the first call is checked
    optimizer = _optimizer(st)
    scheduler = st.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)
    optimizer.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scheduler.step()


def test_epoch_argument_warns_and_uses_the_closed_form() -> None:
    torch = require_torch()
    results = []
    for lib in (st, torch):
        optimizer = _optimizer(lib)
        scheduler = lib.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
        optimizer.step()
        with pytest.warns(UserWarning, match="epoch parameter"):
            scheduler.step(7)
        results.append(scheduler.get_last_lr())
    _assert_close(results[0], results[1])
