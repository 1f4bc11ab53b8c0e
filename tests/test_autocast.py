"""``torch.autocast("cpu")``: the same dtypes, values, graphs and gradients.

Inside an enabled region PyTorch runs matrix products, ``linear``,
convolutions and attention in bfloat16 (or float16), casting their float32
inputs with a recorded ``ToCopyBackward0``; it runs the losses and ``prod``
in float32; everything else as usual. Each case runs the same code under
both libraries and compares the result's dtype, values and graph, and the
gradients the float32 leaves receive. The last tests need no torch.
"""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import NARROW_STEP, fused_narrow_kernels, largest_difference

Case = Callable[[Any, list[Any]], Any]


def leaves(lib: Any, shapes: list[tuple[int, ...]], seed: int = 3) -> list[Any]:
    """float32 leaves that require grad, the same in both libraries."""
    rng = random.Random(seed)
    made = []
    for shape in shapes:
        count = 1
        for size in shape:
            count *= size
        values = [rng.uniform(-2, 2) for _ in range(count)]
        leaf = lib.tensor(values).reshape(shape).clone()  # a leaf, not a view
        made.append(leaf.requires_grad_())
    return made


def node_names(tensor: Any) -> list[str]:
    """The result's ``grad_fn`` and the names of the nodes it points to."""
    node = tensor.grad_fn
    if node is None:
        return []
    below = [type(n).__name__ for n, _ in node.next_functions if n is not None]
    return [type(node).__name__, *below]


def run(lib: Any, case: Case, shapes: list[tuple[int, ...]], dtype: str = "") -> Any:
    """The case inside ``autocast("cpu")`` (in ``dtype`` if given)."""
    inputs = leaves(lib, shapes)
    kwargs = {"dtype": getattr(lib, dtype)} if dtype else {}
    with lib.autocast("cpu", **kwargs):
        result = case(lib, inputs)
    result.float().sum().backward()
    return (
        str(result.dtype),
        result.tolist(),
        node_names(result),
        [(str(x.grad.dtype), x.grad.tolist()) for x in inputs],
    )


def close(ours: Any, theirs: Any, rel: float) -> bool:
    """Nested lists of numbers equal within ``rel`` (exactly if 0)."""
    if isinstance(theirs, list):
        pairs = zip(ours, theirs)
        return len(ours) == len(theirs) and all(close(a, b, rel) for a, b in pairs)
    return math.isclose(ours, theirs, rel_tol=rel, abs_tol=rel / 4)


def same(
    case: Case,
    shapes: list[tuple[int, ...]],
    rel: float = 0.0,
    dtype: str = "",
    step: float = 0.0,
) -> Any:
    """Both libraries give the same dtypes and graph, and values within
    ``rel`` (0: exactly the same numbers); with ``step``, values and
    gradients within that fraction of their largest value instead."""
    torch = pytest.importorskip("torch")
    ours, theirs = run(st, case, shapes, dtype), run(torch, case, shapes, dtype)
    assert ours[0] == theirs[0] and ours[2] == theirs[2]
    assert [g[0] for g in ours[3]] == [g[0] for g in theirs[3]]
    if step:
        assert largest_difference(ours[1], theirs[1]) <= step
        for mine, other in zip(ours[3], theirs[3]):
            assert largest_difference(mine[1], other[1]) <= step
        return ours
    assert close(ours[1], theirs[1], rel), (ours[1], theirs[1])
    assert close([g[1] for g in ours[3]], [g[1] for g in theirs[3]], rel)
    return ours


def allowed_step(name: str, dtype: str = "bfloat16") -> float:
    """0 where PyTorch rounds once, as the engine does; one step of the
    dtype for the convolutions of a CPU without PyTorch's narrow oneDNN
    kernels, whose fallback rounds partial sums on the way."""
    if name.startswith("conv") and not fused_narrow_kernels(dtype):
        return NARROW_STEP[dtype]
    return 0.0


LOWER: dict[str, tuple[Case, list[tuple[int, ...]]]] = {
    "at": (lambda t, x: x[0] @ x[1], [(3, 4), (4, 5)]),
    "mm": (lambda t, x: t.mm(x[0], x[1]), [(3, 4), (4, 2)]),
    "mm_method": (lambda t, x: x[0].mm(x[1]), [(3, 4), (4, 2)]),
    "matmul_vectors": (lambda t, x: t.matmul(x[0], x[1]), [(4,), (4,)]),
    "matmul_vector_left": (lambda t, x: x[0] @ x[1], [(4,), (4, 3)]),
    "matmul_batched": (lambda t, x: x[0] @ x[1], [(2, 3, 4), (4, 2)]),
    "bmm": (lambda t, x: t.bmm(x[0], x[1]), [(2, 3, 4), (2, 4, 2)]),
    "addmm": (lambda t, x: t.addmm(x[0], x[1], x[2]), [(3, 2), (3, 4), (4, 2)]),
    "linear": (
        lambda t, x: t.nn.functional.linear(x[0], x[1], x[2]),
        [(3, 4), (2, 4), (2,)],
    ),
    "linear_3d": (
        lambda t, x: t.nn.functional.linear(x[0], x[1], x[2]),
        [(2, 3, 4), (2, 4), (2,)],
    ),
    "linear_no_bias": (
        lambda t, x: t.nn.functional.linear(x[0], x[1]),
        [(3, 4), (2, 4)],
    ),
    "conv1d": (
        lambda t, x: t.nn.functional.conv1d(x[0], x[1], x[2]),
        [(1, 2, 6), (3, 2, 3), (3,)],
    ),
    "conv2d": (
        lambda t, x: t.nn.functional.conv2d(x[0], x[1], padding=1),
        [(1, 2, 4, 4), (3, 2, 3, 3)],
    ),
    "conv_transpose1d": (
        lambda t, x: t.nn.functional.conv_transpose1d(x[0], x[1]),
        [(1, 2, 4), (2, 3, 2)],
    ),
    "conv_transpose2d": (
        lambda t, x: t.nn.functional.conv_transpose2d(x[0], x[1]),
        [(1, 2, 3, 3), (2, 1, 2, 2)],
    ),
    "attention": (
        lambda t, x: t.nn.functional.scaled_dot_product_attention(x[0], x[1], x[2]),
        [(1, 3, 4), (1, 5, 4), (1, 5, 2)],
    ),
    "leaf_used_twice": (
        lambda t, x: (x[0] @ x[1]) @ (x[1].t() @ x[0].t()),
        [(3, 4), (4, 3)],
    ),
    "then_float32_ops": (
        lambda t, x: (x[0] @ x[1]).relu().sum(0) * 2,
        [(3, 4), (4, 5)],
    ),
    "mixed_with_float32": (lambda t, x: (x[0] @ x[1]) + x[2], [(3, 4), (4, 2), (3, 2)]),
}


@pytest.mark.parametrize("name", list(LOWER))
def test_lower_precision_ops_match_torch(name: str) -> None:
    case, shapes = LOWER[name]
    step = allowed_step(name)
    assert same(case, shapes, 0.0, step=step)[0] in ("torch.bfloat16", "torch.float32")


@pytest.mark.parametrize("name", ["at", "linear", "conv1d", "attention"])
def test_float16_matches_torch(name: str) -> None:
    case, shapes = LOWER[name]
    step = allowed_step(name, "float16")
    result = same(case, shapes, 0.0, dtype="float16", step=step)
    assert result[0] == "torch.float16"


def test_product_is_bfloat16_with_a_cast_recorded_for_each_input() -> None:
    dtype, _, names, grads = same(*LOWER["at"])
    assert dtype == "torch.bfloat16"
    assert names == ["MmBackward0", "ToCopyBackward0", "ToCopyBackward0"]
    assert {grad_dtype for grad_dtype, _ in grads} == {"torch.float32"}


FULL: dict[str, tuple[Case, list[tuple[int, ...]]]] = {
    "mse_loss": (
        lambda t, x: t.nn.functional.mse_loss(x[0].bfloat16(), x[1].bfloat16()),
        [(3, 4), (3, 4)],
    ),
    "l1_loss": (
        lambda t, x: t.nn.functional.l1_loss(x[0].bfloat16(), x[1]),
        [(3, 4), (3, 4)],
    ),
    "huber_loss": (
        lambda t, x: t.nn.functional.huber_loss(x[0].bfloat16(), x[1]),
        [(3, 4), (3, 4)],
    ),
    "smooth_l1_loss": (
        lambda t, x: t.nn.functional.smooth_l1_loss(x[0] @ x[1], x[2]),
        [(3, 4), (4, 2), (3, 2)],
    ),
    "cross_entropy": (
        lambda t, x: t.nn.functional.cross_entropy(x[0] @ x[1], t.tensor([0, 1, 1])),
        [(3, 4), (4, 2)],
    ),
    "nll_loss": (
        lambda t, x: t.nn.functional.nll_loss(x[0] @ x[1], t.tensor([0, 1, 1])),
        [(3, 4), (4, 2)],
    ),
    "bce_with_logits": (
        lambda t, x: t.nn.functional.binary_cross_entropy_with_logits(
            x[0] @ x[1], x[2]
        ),
        [(3, 4), (4, 2), (3, 2)],
    ),
    "bce": (
        lambda t, x: t.nn.functional.binary_cross_entropy(
            (x[0] @ x[1]).sigmoid(), x[2].sigmoid()
        ),
        [(3, 4), (4, 2), (3, 2)],
    ),
    "prod": (lambda t, x: (x[0] @ x[1]).prod(), [(3, 4), (4, 2)]),
    "prod_dim": (lambda t, x: t.prod(x[0] @ x[1], 1), [(3, 4), (4, 2)]),
}


@pytest.mark.parametrize("name", list(FULL))
def test_float32_ops_match_torch(name: str) -> None:
    case, shapes = FULL[name]
    # bce's gradient goes back through a bfloat16 sigmoid, rounded on the way
    rel = 2**-6 if name == "bce" else 1e-5
    assert same(case, shapes, rel)[0] == "torch.float32"


UNCHANGED: dict[str, tuple[Case, list[tuple[int, ...]]]] = {
    "float64": (lambda t, x: x[0].double() @ x[1].double(), [(3, 4), (4, 2)]),
    "mv": (lambda t, x: t.mv(x[0], x[1]), [(3, 4), (4,)]),
    "dot": (lambda t, x: t.dot(x[0], x[1]), [(4,), (4,)]),
    "pointwise": (lambda t, x: (x[0] * x[1]).exp().softmax(0), [(3, 4), (3, 4)]),
}


@pytest.mark.parametrize("name", list(UNCHANGED))
def test_other_ops_run_as_usual(name: str) -> None:
    case, shapes = UNCHANGED[name]
    assert same(case, shapes, rel=1e-5)[0] != "torch.bfloat16"


def test_modules_match_torch() -> None:
    torch = pytest.importorskip("torch")
    results = []
    for lib in (st, torch):
        model = lib.nn.Sequential(
            lib.nn.Linear(6, 5), lib.nn.ReLU(), lib.nn.Linear(5, 2)
        )
        with lib.no_grad():
            for index, parameter in enumerate(model.parameters()):
                parameter.copy_(leaves(lib, [tuple(parameter.shape)], seed=index)[0])
        (x,) = leaves(lib, [(4, 6)], seed=9)
        with lib.autocast(device_type="cpu", dtype=lib.bfloat16):
            output = model(x)
            loss = lib.nn.functional.cross_entropy(output, lib.tensor([0, 1, 1, 0]))
        loss.backward()
        grads = [p.grad.tolist() for p in model.parameters()]
        dtypes = [str(t.dtype) for t in (output, loss, *model.parameters())]
        results.append((dtypes, output.tolist(), loss.item(), grads))
    ours, theirs = results
    assert ours[:2] == theirs[:2]
    # the float32 loss may differ in its last bit, and so the gradients' casts
    assert close(list(ours[2:]), list(theirs[2:]), 2**-7)


def state(lib: Any) -> tuple[Any, ...]:
    return (
        lib.is_autocast_enabled("cpu"),
        str(lib.get_autocast_dtype("cpu")),
        lib.is_autocast_enabled(),
        lib.is_autocast_cache_enabled(),
    )


def regions(lib: Any) -> list[Any]:
    """What the queries answer in nested regions, and the product's dtype."""
    a, b = leaves(lib, [(2, 3), (3, 2)])
    seen = [state(lib)]
    with lib.autocast("cpu") as region:
        seen += [state(lib), str(region.fast_dtype), str((a @ b).dtype)]
        with lib.autocast("cpu", enabled=False):
            seen += [state(lib), str((a @ b).dtype)]
        with lib.autocast("cpu", dtype=lib.float16, cache_enabled=False):
            # a and b were cast to bfloat16 above: PyTorch reuses those casts
            seen += [state(lib), str((a @ b).dtype)]
            seen.append(str((a.detach() @ b.detach()).dtype))
        seen += [state(lib)]
    seen += [state(lib), str((a @ b).dtype)]
    return seen


def test_queries_and_nesting_match_torch() -> None:
    torch = pytest.importorskip("torch")
    assert regions(st) == regions(torch)


def graph_of_reused_leaf(lib: Any, cache_enabled: bool) -> Any:
    a, b = leaves(lib, [(2, 2), (2, 2)])
    with lib.autocast("cpu", cache_enabled=cache_enabled):
        product = (a @ b) @ a
    first, second = product.grad_fn.next_functions[1][0], None
    inner = product.grad_fn.next_functions[0][0]
    second = inner.next_functions[0][0]
    return type(first).__name__, first is second


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_a_leaf_is_cast_once_per_region_as_in_torch(cache_enabled: bool) -> None:
    torch = pytest.importorskip("torch")
    ours = graph_of_reused_leaf(st, cache_enabled)
    assert ours == graph_of_reused_leaf(torch, cache_enabled)
    assert ours == ("ToCopyBackward0", cache_enabled)


def outcome(make: Callable[[], Any]) -> Any:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a, b = leaves(st if make.__name__ == "ours" else make(), [(2, 2), (2, 2)])
    return caught, a, b


@pytest.mark.parametrize(
    "make",
    [
        lambda t: t.autocast("cpu", dtype=t.float32),
        lambda t: t.autocast("cpu", dtype=t.float64),
        lambda t: t.cpu.amp.autocast(),
        lambda t: t.cpu.amp.autocast(dtype=t.float16),
        lambda t: t.amp.autocast("cpu"),
        lambda t: t.amp.autocast("cpu", enabled=False),
    ],
)
def test_other_spellings_and_refused_dtypes_match_torch(make: Any) -> None:
    torch = pytest.importorskip("torch")

    def use(lib: Any) -> Any:
        a, b = leaves(lib, [(2, 2), (2, 2)])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with make(lib):
                dtype = str((a @ b).dtype)
        return dtype, [(w.category, str(w.message)) for w in caught]

    assert use(st) == use(torch)


def test_decorator_and_deprecated_queries_match_torch() -> None:
    torch = pytest.importorskip("torch")

    def use(lib: Any) -> Any:
        a, b = leaves(lib, [(2, 2), (2, 2)])

        @lib.autocast("cpu")
        def product(x: Any, y: Any) -> Any:
            return x @ y

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            old = (lib.is_autocast_cpu_enabled(), str(lib.get_autocast_cpu_dtype()))
        categories = [w.category for w in caught]
        return (
            str(product(a, b).dtype),
            old,
            categories,
            lib.amp.is_autocast_available("cpu"),
        )

    assert use(st) == use(torch)


# ----------------------------------------------------------------------
# Without torch: autocast is the explicit casts, and leaves its state clean
# ----------------------------------------------------------------------


def test_autocast_equals_the_explicit_casts() -> None:
    a, b, bias = leaves(st, [(3, 4), (2, 4), (2,)])
    with st.autocast("cpu"):
        automatic = st.nn.functional.linear(a, b, bias)
    automatic.float().sum().backward()
    grads = [x.grad.tolist() for x in (a, b, bias)]
    for x in (a, b, bias):
        x.grad = None
    low = [x.to(st.bfloat16) for x in (a, b, bias)]
    explicit = st.nn.functional.linear(*low)
    explicit.float().sum().backward()
    assert automatic.dtype == st.bfloat16
    assert automatic.tolist() == explicit.tolist()
    assert grads == [x.grad.tolist() for x in (a, b, bias)]
    assert all(x.grad.dtype == st.float32 for x in (a, b, bias))


def test_the_state_is_restored_after_an_error() -> None:
    a, b = leaves(st, [(2, 2), (2, 2)])
    with pytest.raises(RuntimeError), st.autocast("cpu"):
        st.mm(a, st.ones(3, 3))
    assert not st.is_autocast_enabled("cpu")
    assert (a @ b).dtype == st.float32
    with st.autocast("cpu"):
        assert (a @ b).dtype == st.bfloat16


RECURRENT: dict[str, Callable[[Any], Any]] = {
    "rnn": lambda nn: nn.RNN(3, 4),
    "rnn_relu_2_layers": lambda nn: nn.RNN(3, 4, 2, nonlinearity="relu"),
    "lstm": lambda nn: nn.LSTM(3, 4),
    "lstm_bidirectional": lambda nn: nn.LSTM(3, 4, bidirectional=True),
    "gru": lambda nn: nn.GRU(3, 4),
    "packed_lstm": lambda nn: nn.LSTM(3, 4),
    "lstm_cell": lambda nn: nn.LSTMCell(3, 4),
    "gru_cell": lambda nn: nn.GRUCell(3, 4),
}


def recurrent(lib: Any, name: str) -> Any:
    """The layer under autocast: dtypes and graph, values and gradients."""
    layer = RECURRENT[name](lib.nn)
    with lib.no_grad():
        for index, parameter in enumerate(layer.parameters()):
            parameter.copy_(leaves(lib, [tuple(parameter.shape)], seed=index)[0])
    (x,) = leaves(lib, [(3, 2, 3)])
    with lib.autocast("cpu"):
        if name == "packed_lstm":
            x_in = lib.nn.utils.rnn.pack_padded_sequence(x, [3, 2])
            output, rest = layer(x_in)
            output = output.data
        elif name.endswith("cell"):
            output, rest = layer(x[0]), ()
        else:
            output, rest = layer(x)
    results = [*output, *rest] if isinstance(output, tuple) else [output]
    if not isinstance(output, tuple):
        results += list(rest) if isinstance(rest, tuple) else [rest]
    sum(r.float().sum() for r in results).backward()
    return (
        [str(r.dtype) for r in results],
        [node_names(r) for r in results],
        [r.float().tolist() for r in results],
        x.grad.tolist(),
    )


@pytest.mark.parametrize("name", list(RECURRENT))
def test_recurrent_layers_match_torch(name: str) -> None:
    # PyTorch runs RNN and LSTM layers in bfloat16, as a whole (input, state
    # and weights cast); GRU, cells and packed sequences return float32.
    torch = pytest.importorskip("torch")
    if name.startswith("lstm") and not fused_narrow_kernels("bfloat16"):
        pytest.skip("PyTorch's bfloat16 LSTM needs oneDNN kernels this CPU lacks")
    ours, theirs = recurrent(st, name), recurrent(torch, name)
    assert ours[:2] == theirs[:2]
    if name in ("lstm", "lstm_bidirectional"):
        # PyTorch's fused oneDNN LSTM rounds in an order of its own, which
        # oneDNN keeps bitwise only on identical hardware: a bfloat16 step
        # or two (at most 2.4 steps of the largest value here).
        assert largest_difference(ours[2], theirs[2]) < 2**-6
    else:
        assert ours[2] == theirs[2]  # the values
    # The backward rounds to bfloat16 after each of the engine's operations,
    # where PyTorch's kernels round once per kernel: at most 2.8 steps here.
    assert largest_difference(ours[3], theirs[3]) < 2**-6
