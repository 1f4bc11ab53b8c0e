"""Devices on a machine without a GPU, as PyTorch sees them: ``torch.device``,
``torch.cuda``, the default device, and ``Tensor.to``'s devices, dtypes and
copies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import (
    assert_same,
    both,
    error_of,
    outcome,
    require_torch,
    same_error,
)

# ---------------------------------------------------------------- devices


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.cuda.is_available(),
        lambda L: L.cuda.device_count(),
        lambda L: L.cuda.is_initialized(),
        lambda L: L.cuda.manual_seed(3),
        lambda L: L.cuda.manual_seed_all(3),
        lambda L: L.cuda.seed(),
        lambda L: L.cuda.seed_all(),
    ],
)
def test_cuda_answers_as_without_a_gpu(call: Callable[[Any], Any]) -> None:
    ours, theirs = both(call)
    assert ours == theirs


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.cuda.current_device(),
        lambda L: L.cuda.synchronize(),
        lambda L: L.zeros(2).to("cuda"),
        lambda L: L.zeros(2).to(L.device("cuda:0")),
        lambda L: L.zeros(2, device="cuda"),
        lambda L: L.tensor([1.0], device="cuda:0"),
        lambda L: L.zeros(2).cuda(),
        lambda L: L.nn.Linear(2, 2).cuda(),
    ],
)
def test_cuda_work_raises_as_without_a_gpu(call: Callable[[Any], Any]) -> None:
    message = same_error(call, match_message=False)
    assert message.startswith("Torch not compiled with CUDA enabled")


@pytest.mark.parametrize(
    "args", [("cuda",), ("cuda:0",), ("cuda", 1), ("mps",), ("cpu",), ("cpu:0",)]
)
def test_devices_are_named_as_in_torch(args: tuple[Any, ...]) -> None:
    ours, theirs = both(lambda L: L.device(*args))
    assert (repr(ours), str(ours), ours.type, ours.index) == (
        repr(theirs),
        str(theirs),
        theirs.type,
        theirs.index,
    )
    for other in ("cuda", "cuda:0", "cpu"):
        ours_eq, theirs_eq = both(lambda L, o=other: L.device(*args) == L.device(o))
        assert ours_eq == theirs_eq
    assert (ours == str(ours)) == (theirs == str(theirs))


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.device("tpu"),
        lambda L: L.device("cuda:x"),
        lambda L: L.device("cuda", -1),
        lambda L: L.zeros(2).to("mps"),
    ],
)
def test_bad_devices_raise_as_in_torch(call: Callable[[Any], Any]) -> None:
    same_error(call, match_message=False)


def test_default_device_is_the_cpu() -> None:
    st.set_default_device("cpu")
    st.set_default_device(None)
    assert st.get_default_device() == st.device("cpu")
    st.set_default_device("cuda")  # accepted; the next tensor made fails
    try:
        with pytest.raises(AssertionError, match="CUDA"):
            st.zeros(1)
        assert st.zeros(1, device="cpu").device == st.device("cpu")
    finally:
        st.set_default_device(None)
    assert st.zeros(1).device == st.device("cpu")


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.zeros(2),
        lambda L: L.tensor([1.0]),
        lambda L: L.arange(3),
        lambda L: L.rand(2),
        lambda L: L.full((2,), 1.0),
        lambda L: L.eye(2),
        lambda L: L.get_default_device(),
        lambda L: L.zeros(2, device="cpu").tolist(),
        lambda L: L.zeros_like(L.zeros(2, device="cpu")).tolist(),
        lambda L: L.zeros(2, device="cpu").new_ones(2).tolist(),
        lambda L: L.Tensor([1.0]).tolist(),
        lambda L: L.FloatTensor([1.0]).tolist(),
    ],
)
@pytest.mark.parametrize("default", ["cuda", "cuda:1"])
def test_a_cuda_default_device_fails_where_torch_fails(
    make: Callable[[Any], Any], default: str
) -> None:
    def run(L: Any) -> Any:
        L.set_default_device(default)
        try:
            result = make(L)
        finally:
            L.set_default_device(None)
        return str(result)

    ours, theirs = outcome(run, st), outcome(run, require_torch())
    assert ours[0] == theirs[0]  # the value, or the exception type
    if isinstance(ours, tuple) and ours[0] == "OK":
        assert ours == theirs


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.device(0),
        lambda L: L.zeros(2, device=1),
        lambda L: L.zeros(2).to(0),
    ],
)
def test_a_device_number_names_an_accelerator_there_is_not(
    call: Callable[[Any], Any],
) -> None:
    same_error(call)


# ---------------------------------------------------------------- Tensor.to


@pytest.mark.parametrize(
    "call",
    [
        lambda L, x: x.to(copy=True),
        lambda L, x: x.to(L.float64, copy=True),
        lambda L, x: x.to("cpu", L.float32, False, True),
        lambda L, x: x.to(L.float32, False, True),
        lambda L, x: x.to(x, True, True),
        lambda L, x: x.to("cpu", copy=True),
    ],
)
def test_to_with_copy_makes_a_new_tensor(call: Callable[[Any, Any], Any]) -> None:
    def run(L: Any) -> Any:
        x = L.tensor([1.0, 5.0, -3.0], requires_grad=True)
        y = call(L, x)
        y.sum().backward()
        return y is x, y.dtype, y.grad_fn.name(), y.tolist(), x.grad.tolist()

    ours, theirs = both(run)
    assert str(ours) == str(theirs)


@pytest.mark.parametrize(
    "call",
    [
        lambda L, x: x.to(),
        lambda L, x: x.to(L.float32),
        lambda L, x: x.to("cpu", L.float32, False, False),
        lambda L, x: x.to(non_blocking=True),
        lambda L, x: x.to(x, True),
    ],
)
def test_to_without_a_change_is_the_tensor_itself(
    call: Callable[[Any, Any], Any],
) -> None:
    x = st.tensor([1.0, 5.0, -3.0])
    assert call(st, x) is x
    torch = require_torch()
    x = torch.tensor([1.0, 5.0, -3.0])
    assert call(torch, x) is x


def test_a_copy_by_to_has_its_own_storage() -> None:
    x = st.tensor([1, 2])
    y = x.to(copy=True)
    y[0] = 9
    assert x.tolist() == [1, 2] and y.tolist() == [9, 2]


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.zeros(2).to(L.float64, foo=2),
        lambda L: L.zeros(2).to(L.float64, False, True, True),
        lambda L: L.zeros(2).to(L.float32, None),
        lambda L: L.zeros(2).to("cuda", foo=1),
        lambda L: L.FloatTensor([1.0], foo=2),
        lambda L: L.Tensor(2, 3, requires_grad=True),
        lambda L: L.eq(2, 3),
        lambda L: L.device(True),
        lambda L: L.device(1.5),
        lambda L: L.device(None),
        lambda L: L.device([0]),
        lambda L: L.ones(2).to("cpu", True),
        lambda L: L.ones(2).to(L.float64, True, False, True),
        lambda L: L.ones(2).to(dtype="float32"),
        lambda L: L.ones(2).to(dtype=1.5),
        lambda L: L.ones(2).to("cpu", 1.5),
        lambda L: L.ones(2).to([1]),
    ],
)
def test_a_call_that_fits_no_form_names_what_it_got(
    call: Callable[[Any], Any],
) -> None:
    """The same TypeError, naming what it got as torch does (torch goes on to
    list the forms the function has)."""
    message = same_error(call, match_message=False)
    assert "() received an invalid combination of arguments - got (" in message
    _, theirs = error_of(call, require_torch())
    assert theirs.startswith(message + ", but expected one of"), (message, theirs)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(2).to(False),
        lambda L: L.ones(2).to(1.5),
        lambda L: L.ones(2).to(2j, True),
        lambda L: L.ones(2).to(True, True),
        lambda L: L.ones(2).to(float, True),
        lambda L: L.ones(2).to(L.ones(1, dtype=L.int32), False, True),
        lambda L: L.ones(2).to("cpu", float, False, True),
    ],
)
def test_to_reads_its_positional_arguments_as_torch_does(
    call: Callable[[Any], Any],
) -> None:
    assert_same(*both(call))
