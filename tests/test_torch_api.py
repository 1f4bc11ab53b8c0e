"""The API that tutorials and lectures use: devices, ``torch.cuda``,
``inference_mode``, ``multinomial``, ``keepdims=``, ``out=``, ``range``
indices, NumPy, the lazy ``RandomSampler`` and the missing convolutions."""

from __future__ import annotations

import itertools
import math
import re
import sys
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.utils.data import RandomSampler
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


# ---------------------------------------------------------------- inference mode


def test_inference_mode_makes_inference_tensors() -> None:
    def run(L: Any) -> list[Any]:
        w = L.ones(2, requires_grad=True)
        with L.inference_mode():
            x = L.ones(2)
            y = w * 2
            inside = [L.is_inference_mode_enabled(), L.is_grad_enabled()]
            with L.inference_mode(False):
                off = [L.is_inference_mode_enabled(), L.is_grad_enabled()]
                off.append(L.ones(1).is_inference())
        after = [L.is_inference_mode_enabled(), L.is_grad_enabled()]
        return [
            x.is_inference(),
            y.is_inference(),
            y.requires_grad,
            w.is_inference(),
            inside,
            off,
            after,
            x.view(2).is_inference(),
            x.clone().is_inference(),
            (x + 1).is_inference(),
            (w + x).requires_grad,
        ]

    ours, theirs = both(run)
    assert ours == theirs


def test_inference_mode_as_a_decorator() -> None:
    def run(L: Any) -> list[bool]:
        @L.inference_mode
        def bare() -> bool:
            return bool(L.ones(1).is_inference())

        @L.inference_mode()
        def called() -> bool:
            return bool(L.ones(1).is_inference())

        @L.inference_mode(False)
        def off() -> bool:
            return bool(L.ones(1).is_inference())

        return [bare(), called(), off(), L.is_inference_mode_enabled()]

    ours, theirs = both(run)
    assert ours == theirs == [True, True, False, False]


def _inference(L: Any) -> Any:
    with L.inference_mode():
        return L.ones(2)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: (L.ones(2, requires_grad=True) * _inference(L)).sum(),
        lambda L: L.ones(2, requires_grad=True).exp() * _inference(L),
        lambda L: _inference(L).add_(1),
        lambda L: _inference(L).__setitem__(0, 5.0),
        lambda L: _inference(L).requires_grad_(),
    ],
)
def test_inference_tensors_meet_autograd_with_torchs_errors(
    call: Callable[[Any], Any],
) -> None:
    same_error(call)


def test_refused_inplace_leaves_the_inference_tensor_unchanged() -> None:
    x = _inference(st)
    with pytest.raises(RuntimeError):
        x.mul_(3)
    assert x.tolist() == [1.0, 1.0]
    with st.inference_mode():
        x.mul_(3)
    assert x.tolist() == [3.0, 3.0]


# ---------------------------------------------------------------- multinomial


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.multinomial(L.tensor([0.2, 0.8]), 3),
        lambda L: L.multinomial(L.tensor([0.2, -0.8]), 1),
        lambda L: L.multinomial(L.tensor([0.2, math.inf]), 1, True),
        lambda L: L.multinomial(L.tensor([0.2, math.nan]), 1),
        lambda L: L.multinomial(L.tensor([0.0, 0.0]), 1),
        lambda L: L.multinomial(L.tensor([[0.0, 0.0], [1.0, 1.0]]), 1),
        lambda L: L.multinomial(L.tensor([1, 2]), 1),
        lambda L: L.multinomial(L.tensor(1.0), 1),
        lambda L: L.multinomial(L.ones(1, 1, 1), 1),
        lambda L: L.multinomial(L.tensor([1.0, 2.0]), 0),
        lambda L: L.multinomial(L.zeros(2, 0), 1),
    ],
)
def test_multinomial_refuses_as_torch(call: Callable[[Any], Any]) -> None:
    same_error(call)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.multinomial(L.tensor([0.2, 0.8]), 5, replacement=True),
        lambda L: L.tensor([[0.2, 0.8], [1.0, 1.0]]).multinomial(4, True),
        lambda L: L.multinomial(L.tensor([1.0, 2.0, 3.0], dtype=L.float64), 3),
        lambda L: L.multinomial(L.tensor([1.0, 2.0], requires_grad=True), 1),
        lambda L: L.multinomial(L.tensor([1.0, 0.0, 0.0]), 2),
    ],
)
def test_multinomial_shape_and_dtype(call: Callable[[Any], Any]) -> None:
    ours, theirs = both(call)
    assert (ours.shape, str(ours.dtype), ours.requires_grad) == (
        theirs.shape,
        str(theirs.dtype),
        theirs.requires_grad,
    )


def test_multinomial_frequencies_follow_the_weights() -> None:
    g = st.Generator().manual_seed(0)
    draws = st.multinomial(st.tensor([1.0, 2.0, 7.0]), 20000, True, generator=g)
    shares = [(draws == i).sum().item() / 20000 for i in range(3)]
    for share, expected in zip(shares, (0.1, 0.2, 0.7)):
        # Four standard deviations of a binomial proportion.
        assert abs(share - expected) < 4 * math.sqrt(expected * (1 - expected) / 20000)


def test_multinomial_without_replacement_draws_each_category_once() -> None:
    g = st.Generator().manual_seed(1)
    rows = st.multinomial(st.ones(50, 6), 6, generator=g).tolist()
    assert all(sorted(row) == list(range(6)) for row in rows)
    # Categories of weight 0 come only after the others.
    assert st.multinomial(st.tensor([0.0, 1.0, 0.0, 1.0]), 4)[:2].sort()[
        0
    ].tolist() == [
        1,
        3,
    ]


def test_multinomial_is_reproducible_with_a_seed() -> None:
    first = st.multinomial(st.ones(9), 4, generator=st.Generator().manual_seed(5))
    again = st.multinomial(st.ones(9), 4, generator=st.Generator().manual_seed(5))
    assert first.tolist() == again.tolist()


# ---------------------------------------------------------------- keepdims


@pytest.mark.parametrize(
    "name", ["sum", "mean", "prod", "amax", "amin", "std", "var", "argmax", "argmin"]
)
@pytest.mark.parametrize("as_method", [False, True])
def test_reductions_take_keepdims(name: str, as_method: bool) -> None:
    def run(L: Any) -> Any:
        x = L.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 0.5]])
        if as_method:
            return getattr(x, name)(1, keepdims=True)
        return getattr(L, name)(x, 1, keepdims=True)

    ours, theirs = both(run)
    assert_same(ours, theirs)


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_take_keepdims(name: str) -> None:
    ours, theirs = both(
        lambda L: getattr(L.tensor([[1.0, 5.0], [4.0, 3.0]]), name)(0, keepdims=True)
    )
    assert_same(ours.values, theirs.values)
    assert_same(ours.indices, theirs.indices)


@pytest.mark.parametrize("name", ["any", "all"])
def test_any_all_take_keepdims(name: str) -> None:
    ours, theirs = both(
        lambda L: getattr(L, name)(L.tensor([[True, False]]), 1, keepdims=True)
    )
    assert_same(ours, theirs)


def test_both_spellings_at_once_are_refused() -> None:
    same_error(lambda L: L.ones(2, 2).sum(1, keepdim=True, keepdims=True))


def test_keepdims_keeps_the_gradient() -> None:
    def run(L: Any) -> Any:
        x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        (x / x.sum(1, keepdims=True)).pow(2).sum().backward()
        return x.grad

    assert_same(*both(run))


# ---------------------------------------------------------------- out=


@pytest.mark.parametrize(
    "call",
    [
        lambda L, o: L.add(L.ones(2, 2), L.ones(2), out=o),
        lambda L, o: L.sub(L.ones(2, 2), 3, out=o),
        lambda L, o: L.mul(L.ones(2, 2), L.ones(2, 2) * 2, out=o),
        lambda L, o: L.div(L.ones(2, 2), 4, out=o),
        lambda L, o: L.matmul(L.ones(2, 3), L.ones(3, 2), out=o),
        lambda L, o: L.mm(L.ones(2, 3), L.ones(3, 2), out=o),
        lambda L, o: L.cat([L.ones(1, 2), L.zeros(1, 2)], out=o),
        lambda L, o: L.stack([L.ones(2), L.zeros(2)], out=o),
    ],
)
@pytest.mark.parametrize("out_shape", [(2, 2), (0,)])
def test_out_writes_into_the_given_tensor(
    call: Callable[[Any, Any], Any], out_shape: tuple[int, ...]
) -> None:
    def run(L: Any) -> Any:
        out = L.full(out_shape, 7.0)
        result = call(L, out)
        assert result is out
        return out

    assert_same(*both(run))


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.add(L.ones(2), 1, out=L.zeros(2, dtype=L.int64)),
        lambda L: L.mm(L.ones(2, 2), L.ones(2, 2), out=L.zeros(2, 2, dtype=L.float64)),
        lambda L: L.mul(L.ones(2, requires_grad=True), 2, out=L.zeros(2)),
        lambda L: L.mul(L.ones(2), 2, out=L.zeros(2, requires_grad=True)),
        lambda L: L.bitwise_or(L.tensor([1, 2]), 3, out=L.zeros(2, requires_grad=True)),
        lambda L: L.sum(L.ones(2), out=L.zeros(())),
        lambda L: L.sum(L.ones(2), dtype=L.float64, out=L.zeros(())),
        lambda L: L.sum(L.ones(2), keepdim=True, out=L.zeros(())),
        lambda L: L.prod(L.ones(2), out=L.zeros(())),
        lambda L: L.bitwise_and(L.ones(2), L.ones(2), out=L.zeros(2).long()),
        lambda L: L.bitwise_right_shift(L.ones(2), 1, out=L.zeros(2).long()),
        lambda L: L.lerp(L.ones(2), L.ones(2), L.ones(2), out=L.zeros(2).double()),
        lambda L: L.lerp(*[L.ones(2).long()] * 3, out=L.zeros(2)),
    ],
)
def test_out_refuses_as_torch(call: Callable[[Any], Any]) -> None:
    same_error(call)


# Operations given ``out=`` by one decorator (``accepts_out``), each called
# on a float and an int input and written into an out of each dtype.
OUT_UNARY = ["exp", "log", "sqrt", "neg", "abs", "sigmoid", "tanh", "sin", "floor"]
OUT_UNARY += ["round", "sign", "square", "rsqrt", "reciprocal", "log2", "exp2"]
OUT_UNARY += ["logical_not", "bitwise_not", "nan_to_num", "expm1", "trunc"]
OUT_BINARY = ["pow", "maximum", "minimum", "atan2", "remainder", "floor_divide"]
OUT_BINARY += ["eq", "lt", "ge", "logical_and", "bitwise_and", "true_divide"]
OUT_BINARY += ["bitwise_or", "bitwise_xor", "bitwise_left_shift"]
OUT_OTHER = {
    "sum": lambda L, x, o: L.sum(x, 0, out=o[0]),
    "sum_keepdim": lambda L, x, o: L.sum(x, 0, keepdim=True, out=o[0]),
    "mean": lambda L, x, o: L.mean(x.double(), 1, out=o[0]),
    "prod": lambda L, x, o: L.prod(x, 0, out=o[0]),
    "amax": lambda L, x, o: L.amax(x, 0, out=o[0]),
    "argmax": lambda L, x, o: L.argmax(x, 0, out=o[0]),
    "cumsum": lambda L, x, o: L.cumsum(x, 0, out=o),
    "clamp": lambda L, x, o: L.clamp(x, 2, 5, out=o),
    "where": lambda L, x, o: L.where(x > 2, x, L.zeros(()), out=o),
    "bmm": lambda L, x, o: L.bmm(x[None], x[None], out=o[None]),
    "mv": lambda L, x, o: L.mv(x, x[0], out=o[0]),
    "dot": lambda L, x, o: L.dot(x[0], x[1], out=o[0, 0]),
    "lerp": lambda L, x, o: L.lerp(x, x * 2, 0.5, out=o),
    "lerp_tensor": lambda L, x, o: L.lerp(x, x * 2, x / 16, out=o),
    "addcmul": lambda L, x, o: L.addcmul(x, x, x, out=o),
    "std": lambda L, x, o: L.std(x, 0, out=o[0]),
    "tril": lambda L, x, o: L.tril(x, out=o),
    "flip": lambda L, x, o: L.flip(x, [0], out=o),
    "index_select": lambda L, x, o: L.index_select(x, 0, L.tensor([1]), out=o),
}


def out_call(name: str) -> Callable[[Any, Any, Any], Any]:
    if name in OUT_UNARY:
        return lambda L, x, o: getattr(L, name)(x, out=o)
    if name in OUT_BINARY:
        return lambda L, x, o: getattr(L, name)(x, x.flip(0), out=o)
    return OUT_OTHER[name]


@pytest.mark.parametrize("name", [*OUT_UNARY, *OUT_BINARY, *OUT_OTHER])
@pytest.mark.parametrize("source", ["float32", "int64"])
@pytest.mark.parametrize("target", ["float32", "float64", "int64", "bool"])
def test_out_casts_or_refuses_as_torch(name: str, source: str, target: str) -> None:
    """``out=`` takes the result if it can be cast to ``out``'s dtype (some
    operations want exactly their own dtype), resizes ``out`` if needed, and
    refuses inputs that require grad: PyTorch's rules, in one place."""
    call = out_call(name)
    if target == "bool" and name in ("prod", "cumsum", "lerp"):
        return  # PyTorch's bool reductions are kernels of their own

    def run(L: Any) -> str:
        x = L.tensor([[1.0, 4.0], [9.0, 16.0]], dtype=getattr(L, source))
        out = L.full((2, 2), 7, dtype=getattr(L, target))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call(L, x, out)
        return repr(out) if result is not out and result is not None else repr(result)

    ours, theirs = outcome(run, st), outcome(run, require_torch())
    assert ours[0] == theirs[0]
    if ours[0] == "OK":
        close = [ours[1], theirs[1]]
        if name in ("sigmoid", "sin", "tanh"):  # one last bit may differ
            close = [re.sub(r"\d{3}(?=[,\]e])", "", text) for text in close]
        assert close[0] == close[1]


@pytest.mark.parametrize("name", ["exp", "neg", "sum", "clamp", "pow", "where"])
def test_out_refuses_inputs_that_require_grad(name: str) -> None:
    call = out_call(name)
    same_error(
        lambda L: call(L, L.ones(2, 2, requires_grad=True), L.zeros(2, 2)),
        match_message=False,
    )


def test_out_of_another_shape_is_resized_with_a_warning() -> None:
    out = st.zeros(3)
    with pytest.warns(UserWarning, match="resized"):
        st.add(st.ones(2, 2), 1, out=out)
    assert out.tolist() == [[2.0, 2.0], [2.0, 2.0]]


# ---------------------------------------------------------------- range indices


@pytest.mark.parametrize(
    "call",
    [
        lambda L, x: x[range(3), L.tensor([0, 2, 1])],
        lambda L, x: x[range(3)],
        lambda L, x: x[range(1, 3), 0],
        lambda L, x: x[:, range(0, 4, 2)],
        lambda L, x: x[range(0)],
    ],
)
def test_range_indexes_like_a_list(call: Callable[[Any, Any], Any]) -> None:
    def run(L: Any) -> Any:
        x = L.arange(12.0).view(3, 4).requires_grad_()
        result = call(L, x)
        result.sum().backward()
        return result, x.grad

    (ours, our_grad), (theirs, their_grad) = both(run)
    assert_same(ours, theirs)
    assert_same(our_grad, their_grad)


def test_range_index_assignment() -> None:
    def run(L: Any) -> Any:
        x = L.zeros(3, 3)
        x[range(3), range(3)] = 1.0
        return x

    assert_same(*both(run))


# ---------------------------------------------------------------- NumPy


def test_numpy_round_trips() -> None:
    np = pytest.importorskip("numpy")
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    for make in (lambda L: L.from_numpy(array), lambda L: L.tensor(array)):
        assert_same(*both(make))
    for dtype in (np.float64, np.int64, np.bool_):
        assert_same(*both(lambda L, d=dtype: L.as_tensor(np.ones(3, dtype=d))))
    assert_same(*both(lambda L: L.tensor(np.float64(2.5))))
    ours, theirs = both(lambda L: L.tensor([[1, 2], [3, 4]]).t().numpy())
    assert ours.dtype == theirs.dtype and ours.tolist() == theirs.tolist()
    assert np.array(st.tensor([1.0, 2.0])).tolist() == [1.0, 2.0]
    assert np.asarray(st.tensor([True])).dtype == np.bool_


def test_numpy_shares_memory_and_from_numpy_copies() -> None:
    np = pytest.importorskip("numpy")
    tensor = st.arange(6.0).view(2, 3)
    array = tensor.t().numpy()
    array[0, 1] = 100.0
    assert tensor[1, 0].item() == 100.0
    tensor.add_(1)
    assert array[0, 1] == 101.0
    source = np.zeros(2, dtype=np.float32)
    copy = st.from_numpy(source)
    source[0] = 5
    assert copy.tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(2, requires_grad=True).numpy(),
        lambda L: L.from_numpy([1.0]),
    ],
)
def test_numpy_refuses_as_torch(call: Callable[[Any], Any]) -> None:
    pytest.importorskip("numpy")
    same_error(call)


def test_from_numpy_refuses_an_unknown_dtype() -> None:
    np = pytest.importorskip("numpy")
    with pytest.raises(TypeError, match="can't convert np.ndarray"):
        st.from_numpy(np.array([object()]))


def test_without_numpy_the_error_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(RuntimeError, match="Numpy is not available"):
        st.ones(2).numpy()
    assert st.ones(2).tolist() == [1.0, 1.0]


# ---------------------------------------------------------------- the rest


def test_random_sampler_draws_lazily() -> None:
    sampler = RandomSampler(range(10), replacement=True, num_samples=10**10)
    assert len(sampler) == 10**10
    first = list(itertools.islice(iter(sampler), 100))
    assert len(first) == 100 and all(0 <= i < 10 for i in first)
    assert sorted(RandomSampler(range(5), num_samples=5)) == list(range(5))
    assert len(list(RandomSampler(range(5), replacement=True, num_samples=70))) == 70


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.nn.Conv3d(1, 2, 3),
        lambda L: L.nn.MaxPool3d(2),
        lambda L: L.nn.AvgPool3d(2),
        lambda L: L.nn.functional.conv3d(L.ones(1, 1, 4, 4, 4), L.ones(1, 1, 2, 2, 2)),
        lambda L: L.nn.functional.conv_transpose3d(
            L.ones(1, 1, 4, 4, 4), L.ones(1, 1, 2, 2, 2)
        ),
        lambda L: L.nn.functional.max_pool3d(L.ones(1, 1, 4, 4, 4), 2),
        lambda L: L.nn.functional.avg_pool3d(L.ones(1, 1, 4, 4, 4), 2),
    ],
)
def test_three_dimensional_convolutions_are_not_implemented(
    call: Callable[[Any], Any],
) -> None:
    with pytest.raises(NotImplementedError, match="3-d convolutions and pooling"):
        call(st)


@pytest.mark.parametrize(
    "name", ["log10", "log2", "exp2", "expm1", "log1p", "sinh", "cosh", "tan"]
)
def test_new_pointwise_ops_at_the_edges(name: str) -> None:
    def run(L: Any) -> Any:
        x = L.tensor([0.0, -0.0, -1.0, 2000.0, -1000.0, math.inf, -math.inf, math.nan])
        return getattr(L, name)(x), getattr(L, name)(L.tensor([1, 8]))

    (ours, ours_int), (theirs, theirs_int) = both(run)
    assert_same(ours, theirs)
    assert_same(ours_int, theirs_int)


@pytest.mark.parametrize("name", ["log10_", "exp2_", "sinh_", "atan_", "tan_"])
def test_new_inplace_forms(name: str) -> None:
    def run(L: Any) -> Any:
        x = L.tensor([0.5, 0.25])
        result = getattr(x, name)()
        assert result is x
        return x

    assert_same(*both(run))
    same_error(lambda L: getattr(L.tensor([1, 2]), name)())


# ---------------------------------------------------------------- numbers as inputs

NUMBER_CALLS = {
    "add": lambda L: L.add(2, 3),
    "sub": lambda L: L.sub(2, 3.5),
    "mul": lambda L: L.mul(True, 3),
    "div": lambda L: L.div(2, 3),
    "div_floor": lambda L: L.div(7, 2, rounding_mode="floor"),
    "floor_divide": lambda L: L.floor_divide(7, 2),
    "true_divide": lambda L: L.true_divide(1, 4),
    "add_alpha": lambda L: L.add(2, 3, alpha=2),
    "pow": lambda L: L.pow(2, 3),
    "eq": lambda L: L.eq(2, 3),
    "lt": lambda L: L.lt(2.0, 3),
    "remainder": lambda L: L.remainder(7, 2),
    "bitwise_and": lambda L: L.bitwise_and(6, 3),
    "bitwise_left_shift": lambda L: L.bitwise_left_shift(1, 3),
    "exp": lambda L: L.exp(2.5),
    "sum": lambda L: L.sum(2.5),
    "neg": lambda L: L.neg(2),
    "matmul": lambda L: L.matmul(2, 3),
    "maximum": lambda L: L.maximum(2, 3),
    "atan2": lambda L: L.atan2(1.0, 2.0),
    "clamp": lambda L: L.clamp(2.5, 0, 1),
    "reshape": lambda L: L.reshape(2.5, (1,)),
    "cumsum": lambda L: L.cumsum(2, 0),
    "argmax": lambda L: L.argmax(2.5),
    "isnan": lambda L: L.isnan(2.5),
}


@pytest.mark.parametrize("name", list(NUMBER_CALLS))
def test_python_numbers_as_inputs_as_in_torch(name: str) -> None:
    """The arithmetic operators accept two numbers (a 0-d result); the
    other operations refuse a number where a tensor is needed, with a
    TypeError, never an error from inside the engine."""
    call = NUMBER_CALLS[name]
    ours, theirs = (
        outcome(lambda L: repr(call(L)), st),
        outcome(lambda L: repr(call(L)), require_torch()),
    )
    assert ours[0] == theirs[0]
    if ours[0] == "OK":
        assert ours == theirs


def test_python_numbers_without_torch() -> None:
    assert st.add(2, 3).tolist() == 5 and st.add(2, 3).dtype is st.int64
    assert st.div(1, 4).item() == 0.25
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        st.exp(2.5)
    with pytest.raises(TypeError):
        st.eq(2, 3)


# ---------------------------------------------------------------- outer and norms


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.outer(L.ones(2, 2), L.ones(2)),
        lambda L: L.outer(L.ones(2), L.ones(())),
        lambda L: L.outer(L.ones(2), 3),
        lambda L: L.linalg.vector_norm(L.tensor([1, 2])),
        lambda L: L.linalg.vector_norm(L.ones(2, 2), dim=2),
        lambda L: L.norm(L.ones(2, 2), dim=(0, 0)),
    ],
)
def test_outer_and_norm_refuse_as_torch(call: Callable[[Any], Any]) -> None:
    same_error(call, match_message=False)


def test_outer_promotes_and_norms_without_torch() -> None:
    product = st.outer(st.tensor([1, 2]), st.tensor([0.5, 1.0, 2.0]))
    assert product.dtype is st.float32
    assert product.tolist() == [[0.5, 1.0, 2.0], [1.0, 2.0, 4.0]]
    x = st.tensor([3.0, -4.0], requires_grad=True)
    norm = st.linalg.vector_norm(x)
    norm.backward()
    assert norm.item() == 5.0
    assert x.grad.allclose(st.tensor([0.6, -0.8]))
    assert st.norm(x, p=1).item() == 7.0
    assert st.linalg.vector_norm(x, float("inf")).item() == 4.0


# ---------------------------------------------------------------- Python types, dtypes

X = [[1.5, -2.0], [0.25, 3.0]]

#: Calls with a ``dtype`` argument, each given ``d``.
DTYPE_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "tensor": lambda L, d: L.tensor([1, 0, 2], dtype=d),
    "as_tensor": lambda L, d: L.as_tensor([1, 0, 2], dtype=d),
    "zeros": lambda L, d: L.zeros(2, dtype=d),
    "ones": lambda L, d: L.ones(2, 3, dtype=d),
    "empty": lambda L, d: L.empty(2, dtype=d).fill_(1),
    "full": lambda L, d: L.full((2,), 1, dtype=d),
    "eye": lambda L, d: L.eye(2, dtype=d),
    "zeros_like": lambda L, d: L.zeros_like(L.tensor(X), dtype=d),
    "ones_like": lambda L, d: L.ones_like(L.tensor(X), dtype=d),
    "empty_like": lambda L, d: L.empty_like(L.tensor(X), dtype=d).fill_(0),
    "full_like": lambda L, d: L.full_like(L.tensor(X), 1, dtype=d),
    "new_zeros": lambda L, d: L.tensor(X).new_zeros(2, dtype=d),
    "new_ones": lambda L, d: L.tensor(X).new_ones(2, dtype=d),
    "new_empty": lambda L, d: L.tensor(X).new_empty(2, dtype=d).fill_(1),
    "new_full": lambda L, d: L.tensor(X).new_full((2,), 1, dtype=d),
    "new_tensor": lambda L, d: L.tensor(X).new_tensor([1, 0], dtype=d),
    "to": lambda L, d: L.tensor(X).to(d),
    "to dtype=": lambda L, d: L.tensor(X).to(dtype=d),
    "to device, dtype": lambda L, d: L.tensor(X).to("cpu", d),
    "sum": lambda L, d: L.tensor(X).sum(dtype=d),
    "sum dim": lambda L, d: L.sum(L.tensor(X), 0, dtype=d),
    "prod": lambda L, d: L.tensor(X).prod(1, dtype=d),
}
#: Calls whose dtype must be a floating-point (or complex) one.
FLOAT_DTYPE_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "mean": lambda L, d: L.tensor(X).mean(dtype=d),
    "cumsum": lambda L, d: L.tensor(X).cumsum(1, dtype=d),
    "cumprod": lambda L, d: L.cumprod(L.tensor(X), 0, dtype=d),
    "linspace": lambda L, d: L.linspace(0, 1, 5, dtype=d),
    "rand": lambda L, d: L.rand(3, dtype=d).dtype,
    "randn": lambda L, d: L.randn(3, dtype=d).dtype,
}


def _compare(ours: Any, theirs: Any) -> None:
    if isinstance(ours, st.Tensor):
        assert_same(ours, theirs)
    else:
        assert str(ours) == str(theirs)


@pytest.mark.parametrize("kind", [float, int, bool, complex])
@pytest.mark.parametrize("name", sorted(DTYPE_CALLS))
def test_a_python_type_names_a_dtype_as_in_torch(name: str, kind: type) -> None:
    """``zeros(2, dtype=float)`` holds float64 zeros, ``x.to(int)`` is int64, as
    in torch: float, int, bool and complex stand for float64, int64, bool and
    complex128."""
    ours, theirs = both(lambda L: DTYPE_CALLS[name](L, kind))
    _compare(ours, theirs)


@pytest.mark.parametrize("kind", [float, complex])
@pytest.mark.parametrize("name", sorted(FLOAT_DTYPE_CALLS))
def test_a_python_type_names_a_float_dtype_as_in_torch(name: str, kind: type) -> None:
    ours, theirs = both(lambda L: FLOAT_DTYPE_CALLS[name](L, kind))
    _compare(ours, theirs)


@pytest.mark.parametrize("given", [True, "float32", [1], 1.5])
@pytest.mark.parametrize("name", sorted(DTYPE_CALLS | FLOAT_DTYPE_CALLS))
def test_a_dtype_that_is_none_is_refused_with_a_type_error(
    name: str, given: Any
) -> None:
    """Anything else where a dtype goes is torch's TypeError, never a Python
    error from inside the engine (a bool or float first in ``to`` names bool or
    float64, as in torch, and a string first in it is a device)."""
    calls = DTYPE_CALLS | FLOAT_DTYPE_CALLS
    if name == "to" and isinstance(given, (bool, float)):
        assert_same(*both(lambda L: calls[name](L, given)))
        return
    if name == "to" and isinstance(given, str):
        same_error(lambda L: calls[name](L, given), match_message=False)
        return
    same_error(lambda L: calls[name](L, given), match_message=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.zeros(2, dtype=True),
        lambda L: L.tensor([1], dtype="float32"),
        lambda L: L.ones_like(L.ones(2), dtype=[1]),
        lambda L: L.ones(2).new_zeros(2, dtype="float"),
        lambda L: L.ones(2).cumsum(0, dtype=True),
        lambda L: L.ones(2).softmax(0, dtype="float64"),
        lambda L: L.nn.functional.log_softmax(L.ones(2), 0, dtype=1.5),
    ],
)
def test_a_dtype_argument_of_another_type_gets_torchs_message(
    call: Callable[[Any], Any],
) -> None:
    same_error(call)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(2).cumsum(0, dtype=L.bool),
        lambda L: L.ones(2).cumprod(0, dtype=bool),
        lambda L: L.arange(3, dtype=L.complex64),
        lambda L: L.arange(3, dtype=complex),
        lambda L: L.ones(2).mean(dtype=L.int64),
        lambda L: L.ones(2).mean(dtype=bool),
    ],
)
def test_dtypes_that_have_no_loop_or_no_place_are_refused_as_in_torch(
    call: Callable[[Any], Any],
) -> None:
    same_error(call)


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


@pytest.mark.parametrize("kind", [float, int, complex])
def test_finfo_and_iinfo_take_a_python_type(kind: type) -> None:
    def info(L: Any) -> str:
        limits = L.iinfo(kind) if kind is int else L.finfo(kind)
        return f"{limits.bits} {limits.max} {limits.min}"

    ours, theirs = both(info)
    assert ours == theirs


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


# ---------------------------------------------------------------- sizes, dims


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(2, 3).view("float32"),
        lambda L: L.ones(2, 3).view(2.0, 3),
        lambda L: L.ones(2, 3).view(None),
        lambda L: L.ones(2, 3).view([[2, 3]]),
        lambda L: L.ones(2, 3).reshape("a"),
        lambda L: L.ones(2, 3).reshape([2, "a"]),
        lambda L: L.ones(2, 3).reshape(6.0),
        lambda L: L.ones(2, 3).expand("a"),
        lambda L: L.ones(2, 3).permute("a"),
        lambda L: L.ones(2, 3).repeat("a"),
        lambda L: L.ones(2, 3).repeat(2, 1.5),
        lambda L: L.ones(2, 3).flip("a"),
        lambda L: L.ones(2, 3).flatten("a"),
        lambda L: L.ones(2, 3).sum("a"),
        lambda L: L.ones(2, 3).transpose("a", 1),
        lambda L: L.ones(2, 3).squeeze("a"),
        lambda L: L.ones(2, 3).unsqueeze(1.5),
        lambda L: L.ones(2, 3).softmax(None),
        lambda L: L.cat([L.ones(2), L.ones(2)], dim="0"),
    ],
)
def test_a_size_or_dim_that_is_no_int_is_a_type_error(
    call: Callable[[Any], Any],
) -> None:
    """A size or a dimension of another type is torch's TypeError, never a Python
    error from inside the engine (a ValueError from ``int('a')``, say)."""
    same_error(call, match_message=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(2, 3).reshape("a"),
        lambda L: L.ones(2, 3).reshape(6.0),
        lambda L: L.ones(2, 3).expand("a"),
        lambda L: L.ones(2, 3).permute("a"),
        lambda L: L.ones(2, 3).repeat("a"),
    ],
)
def test_a_size_that_is_no_sequence_gets_torchs_message(
    call: Callable[[Any], Any],
) -> None:
    same_error(call)


def test_sizes_and_dims_may_be_int_like() -> None:
    """Sizes and dimensions that are ints underneath (a 0-d integer tensor, an
    ``operator.index``-able number) are taken as in torch."""

    def run(L: Any) -> list[Any]:
        x = L.arange(6)
        return [
            x.view(L.tensor(2), 3),
            x.reshape((L.tensor(3), 2)).sum(L.tensor(1)),
            x.view(2, 3).permute(L.tensor(1), 0),
            x.repeat(L.tensor(2)),
        ]

    for ours, theirs in zip(*both(run), strict=True):
        assert_same(ours, theirs)


# ---------------------------------------------------------------- tensors, other things


@pytest.mark.parametrize("given", ["a", None, 1.5, [1, "a"]])
@pytest.mark.parametrize(
    "call",
    [
        lambda L, g: L.matmul(L.ones(2), g),
        lambda L, g: L.ones(2).matmul(g),
        lambda L, g: L.nn.functional.linear(L.ones(2), g),
        lambda L, g: L.nn.functional.linear(g, L.ones(2, 2)),
        lambda L, g: L.nn.Linear(2, 3)(g),
        lambda L, g: L.nn.functional.one_hot(g),
        lambda L, g: L.nn.functional.cross_entropy(L.ones(2, 3), g),
        lambda L, g: L.allclose(L.ones(2), g),
        lambda L, g: L.isclose(L.ones(2), g),
        lambda L, g: L.ones(2).expand_as(g),
        lambda L, g: L.cat([L.ones(2), g]),
        lambda L, g: L.stack([L.ones(2), g]),
        lambda L, g: L.ones(2).sum().backward(g),
        lambda L, g: L.arange(3) & g,
        lambda L, g: L.arange(3) << g,
        lambda L, g: L.bitwise_or(L.arange(3), g),
    ],
)
def test_a_tensor_argument_that_is_no_tensor_is_a_type_error(
    call: Callable[[Any, Any], Any], given: Any
) -> None:
    """Where torch takes a tensor, anything else is its TypeError, never an
    AttributeError from inside the engine."""
    same_error(lambda L: call(L, given), match_message=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(2, 6).unflatten(1, (-1, -1)),
        lambda L: L.ones(2, 6).unflatten(1, "a"),
        lambda L: L.ones(2, 6).unflatten(1, (2, 3.0)),
        lambda L: L.ones(2).type_as("a"),
        lambda L: L.ones(2).type_as(L.float64),
    ],
)
def test_unflatten_and_type_as_refuse_other_arguments(
    call: Callable[[Any], Any],
) -> None:
    same_error(call, match_message=False)


def test_type_as_without_a_change_is_the_tensor_itself() -> None:
    def run(L: Any) -> list[bool]:
        x = L.ones(2)
        return [x.type_as(L.zeros(3)) is x, x.type_as(L.zeros(1, dtype=L.int32)) is x]

    ours, theirs = both(run)
    assert ours == theirs == [True, False]
