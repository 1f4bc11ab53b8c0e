"""What torch answers on a machine without an accelerator, against the engine.

``torch.accelerator``, ``torch.backends``, ``torch.amp`` (GradScaler and
autocast), ``torch.nn.parallel``, ``torch.distributed`` and ``torch.onnx``.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import require_torch

torch = require_torch()
LIBS = [st, torch]


def outcome(call: Any) -> Any:
    """What a call gives: its value and warnings, or its error."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value: Any = call()
        except Exception as error:
            value = (type(error), str(error))
    return value, [(w.category, str(w.message)) for w in caught]


def same(call: Any) -> Any:
    ours, theirs = outcome(lambda: call(st)), outcome(lambda: call(torch))
    assert ours == theirs
    return ours


@pytest.mark.parametrize(
    "question",
    [
        lambda t: t.accelerator.is_available(),
        lambda t: t.accelerator.current_accelerator(),
        lambda t: t.accelerator.device_count(),
        lambda t: t.accelerator.current_device_index(),
        lambda t: t.accelerator.synchronize(),
        lambda t: t.backends.mps.is_available(),
        lambda t: t.backends.mps.is_built(),
        lambda t: t.backends.cudnn.is_available(),
        lambda t: t.backends.cudnn.version(),
        lambda t: t.backends.cuda.is_built(),
        lambda t: (t.backends.cudnn.enabled, t.backends.cudnn.benchmark),
        lambda t: (t.backends.cudnn.deterministic, t.backends.cudnn.allow_tf32),
        lambda t: t.backends.cuda.matmul.allow_tf32,
        lambda t: t.distributed.is_initialized(),
        lambda t: t.distributed.get_rank(),
        lambda t: t.nn.parallel.DistributedDataParallel(t.nn.Linear(2, 2)),
        lambda t: t.onnx.is_in_onnx_export(),
    ],
)
def test_answers_match_torch(question: Any) -> None:
    same(question)


def test_flags_are_settable() -> None:
    st.backends.cudnn.benchmark = True
    st.backends.cuda.matmul.allow_tf32 = True
    try:
        assert st.backends.cudnn.benchmark and st.backends.cuda.matmul.allow_tf32
    finally:
        st.backends.cudnn.benchmark = False
        st.backends.cuda.matmul.allow_tf32 = False


def test_distributed_is_unavailable_and_says_so() -> None:
    assert st.distributed.is_available() is False
    with pytest.raises(NotImplementedError, match="not available"):
        st.distributed.init_process_group("gloo")
    with pytest.raises(NotImplementedError):
        st.onnx.export(st.nn.Linear(1, 1), st.ones(1), "m.onnx")


def inside(context: Any) -> str:
    with context:
        return "ran"


@pytest.mark.parametrize(
    "make",
    [
        lambda t: t.cuda.amp.GradScaler().is_enabled(),
        lambda t: t.amp.GradScaler().get_scale(),
        lambda t: t.amp.GradScaler("cpu").state_dict(),
        lambda t: t.amp.GradScaler("cpu", enabled=False).state_dict(),
        lambda t: inside(t.autocast("cuda")),
        lambda t: inside(t.cuda.amp.autocast()),
        lambda t: inside(t.amp.autocast("cpu", enabled=False)),
        lambda t: inside(t.amp.autocast("cpu")),
        lambda t: t.autocast("nowhere"),
    ],
)
def test_amp_on_a_cpu_machine_matches_torch(make: Any) -> None:
    same(make)


def train_with_scaler(t: Any, device: str, poison: bool) -> Any:
    """Three steps with a scaler: losses, scales, weights, the scaler's state."""
    model = t.nn.Linear(2, 1)
    with t.no_grad():
        model.weight.copy_(t.tensor([[0.5, -0.25]]))
        model.bias.fill_(0.125)
    optimizer = t.optim.SGD(model.parameters(), lr=0.5)
    scaler = t.amp.GradScaler(device, init_scale=8.0, growth_interval=1)
    record = []
    for step in range(3):
        loss = (model(t.tensor([[1.0, 2.0]])) - 3).pow(2).sum()
        scaled = scaler.scale(loss)
        scaled.backward()
        if poison and step == 1:
            model.weight.grad.fill_(float("inf"))
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        record.append((scaled.item(), scaled.grad_fn.name(), scaler.get_scale()))
    return record, model.weight.reshape(-1).tolist(), scaler.state_dict()


@pytest.mark.parametrize("poison", [False, True])
def test_grad_scaler_on_cpu_scales_as_torch(poison: bool) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = train_with_scaler(st, "cpu", poison)
        theirs = train_with_scaler(torch, "cpu", poison)
        assert train_with_scaler(st, "cuda", poison)[1] == pytest.approx(
            train_with_scaler(torch, "cuda", poison)[1], nan_ok=True
        )
    assert ours[0] == theirs[0] and ours[2] == theirs[2]
    assert ours[1] == pytest.approx(theirs[1])


def test_unscale_twice_is_torch_error() -> None:
    for lib in LIBS:
        model = lib.nn.Linear(1, 1)
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        scaler = lib.amp.GradScaler("cpu")
        scaler.scale(model(lib.ones(1, 1)).sum()).backward()
        scaler.unscale_(optimizer)
        with pytest.raises(RuntimeError, match="already been called"):
            scaler.unscale_(optimizer)


def test_data_parallel_runs_the_module_with_torch_names() -> None:
    results = []
    for lib in LIBS:
        inner = lib.nn.Linear(2, 1)
        model = lib.nn.DataParallel(inner)
        out = model(lib.ones(3, 2))
        names = list(model.state_dict())
        results.append((names, tuple(out.shape), model.module is inner))
    assert results[0] == results[1]
