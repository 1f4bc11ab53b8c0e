"""The graph of ``nn.LSTM``: one ``MkldnnRnnLayerBackward0`` node per layer
and direction, exactly where PyTorch 2.13 records one on the CPU.

PyTorch runs a float32 LSTM without projections on a sequence that is not
packed with a fused kernel. Each case builds the same layer in both
libraries and compares the graph's shape: the nodes of the output, of
``h_n`` and ``c_n``, and the nodes (and output numbers) they point to.
Values and gradients are compared in ``test_rnn.py``; the last tests check,
without torch, that the fused node gives the loop's gradients.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.nn.modules import rnn as rnn_module

SEQ, BATCH, IN, HIDDEN = 4, 2, 3, 5


def edges(node: Any) -> list[Any]:
    """The names and output numbers a node points to."""
    return [(type(n).__name__ if n else None, nr) for n, nr in node.next_functions]


def shape_of(result: Any) -> Any:
    """A result's node, and the nodes it points to (None without a graph)."""
    node = result.grad_fn
    if node is None:
        return None
    below = [edges(n) if n is not None else None for n, _ in node.next_functions]
    return type(node).__name__, edges(node), below


def graph(lib: Any, case: dict[str, Any]) -> Any:
    """The LSTM of ``case`` in ``lib``: the shape of its results' graphs."""
    settings = dict(case)
    dtype = getattr(lib, settings.pop("dtype", "float32"))
    mode = settings.pop("mode", "train")
    input_grad = settings.pop("input_grad", False)
    lib.manual_seed(0)
    layer = lib.nn.LSTM(IN, HIDDEN, dtype=dtype, **settings)
    layer.train(mode == "train" or mode == "dropout")
    if mode == "frozen":
        layer.requires_grad_(False)
    shape = (BATCH, SEQ, IN) if settings.get("batch_first") else (SEQ, BATCH, IN)
    x = lib.ones(*shape, dtype=dtype).requires_grad_(input_grad)
    if mode == "unbatched":
        x = lib.ones(SEQ, IN, dtype=dtype)
    if mode == "packed":
        x = lib.nn.utils.rnn.pack_padded_sequence(x, [SEQ, SEQ - 1])
    if mode == "no_grad":
        with lib.no_grad():
            output, (h, c) = layer(x)
    else:
        output, (h, c) = layer(x)
    output = output.data if mode == "packed" else output
    return [shape_of(output), shape_of(h), shape_of(c)]


CASES = [
    {},
    {"batch_first": True},
    {"num_layers": 2},
    {"bidirectional": True},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
    {"bias": False},
    {"proj_size": 2},
    {"dtype": "float64"},
    {"num_layers": 2, "dropout": 0.5, "mode": "dropout"},
    {"mode": "eval"},
    {"mode": "unbatched"},
    {"mode": "no_grad"},
    {"mode": "frozen", "input_grad": True},
    {"mode": "frozen"},
    {"mode": "packed"},
    {"input_grad": True},
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_graph_matches_torch(case: dict[str, Any]) -> None:
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # oneDNN's note on projections
        theirs = graph(torch, case)
    assert graph(st, case) == theirs


def test_the_fused_node_is_where_torch_puts_it() -> None:
    output, h, c = graph(st, {"num_layers": 2})
    assert output[0] == "MkldnnRnnLayerBackward0"
    assert h[0] == c[0] == "StackBackward0"
    assert h[1] == [("MkldnnRnnLayerBackward0", 1)] * 2
    assert c[1] == [("MkldnnRnnLayerBackward0", 2)] * 2


def test_a_second_backward_needs_retain_graph_as_in_torch() -> None:
    torch = pytest.importorskip("torch")
    errors = []
    for lib in (st, torch):
        output, _ = lib.nn.LSTM(IN, HIDDEN)(lib.ones(SEQ, BATCH, IN))
        output.sum().backward(retain_graph=True)
        output.sum().backward()
        with pytest.raises(RuntimeError) as caught:
            output.sum().backward()
        errors.append(str(caught.value).split(".")[0])
    assert errors[0] == errors[1]


# ----------------------------------------------------------------------
# Without torch: the fused node gives the loop's gradients
# ----------------------------------------------------------------------


def gradients(fused: bool, monkeypatch: Any, **settings: Any) -> list[Any]:
    if not fused:
        monkeypatch.setattr(rnn_module.LSTM, "_fused", lambda self, i, p: False)
    st.manual_seed(3)
    layer = st.nn.LSTM(IN, HIDDEN, **settings)
    x = st.randn(SEQ, BATCH, IN, requires_grad=True)
    h0 = st.randn(layer.num_layers * (2 if layer.bidirectional else 1), BATCH, HIDDEN)
    h0.requires_grad_()
    output, (h, c) = layer(x, (h0, st.zeros_like(h0)))
    names = [output.grad_fn.name(), h.grad_fn.name()]
    ((output * st.arange(output.shape[-1])).sum() + h.sum() * 2 + c.sum()).backward()
    monkeypatch.undo()
    grads = [x.grad.tolist(), h0.grad.tolist()]
    return [
        names,
        output.tolist(),
        grads + [p.grad.tolist() for p in layer.parameters()],
    ]


@pytest.mark.parametrize(
    "settings", [{}, {"num_layers": 2, "bidirectional": True}, {"bias": False}], ids=str
)
def test_the_fused_node_gives_the_loops_gradients(
    settings: dict[str, Any], monkeypatch: Any
) -> None:
    fused = gradients(True, monkeypatch, **settings)
    plain = gradients(False, monkeypatch, **settings)
    assert fused[0][0] in ("MkldnnRnnLayerBackward0", "CatBackward0")
    assert plain[0][0] in ("StackBackward0", "CatBackward0")
    assert fused[0] != plain[0] or settings.get("bidirectional")
    assert fused[1:] == plain[1:]


def test_second_derivatives_reach_the_inputs_as_in_torch() -> None:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    theirs = torch.nn.LSTM(IN, HIDDEN, num_layers=2)
    ours = st.nn.LSTM(IN, HIDDEN, num_layers=2)
    ours.load_state_dict(
        {k: st.tensor(v.tolist()) for k, v in theirs.state_dict().items()}
    )
    results = []
    for lib, layer in ((st, ours), (torch, theirs)):
        x = lib.tensor(
            [
                [[0.1 * i - 0.2 * j + 0.05 * k for k in range(IN)] for j in range(2)]
                for i in range(SEQ)
            ]
        ).requires_grad_()
        output, _ = layer(x)
        (gradient,) = lib.autograd.grad((output * output).sum(), x, create_graph=True)
        (gradient * gradient).sum().backward()
        results.append([gradient.tolist(), layer.weight_hh_l0.grad.tolist()])
    ours_flat, theirs_flat = flat(results[0]), flat(results[1])
    assert all(
        abs(a - b) < 1e-5 + 1e-4 * abs(b) for a, b in zip(ours_flat, theirs_flat)
    )


def flat(values: Any) -> list[float]:
    if isinstance(values, list):
        return [number for value in values for number in flat(value)]
    return [values]
