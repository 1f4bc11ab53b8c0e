"""Recurrent layers and cells against torch 2.13 with the same weights.

Values, the ``grad_fn`` of each result, and the gradients of the input,
of the initial states and of every parameter; packed sequences of unequal
lengths; state_dicts both ways through both libraries' files; dropout in
training and evaluation; torch's errors. The cells are also checked
against finite differences, without torch.
"""

from __future__ import annotations

import io
import math
import warnings
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib import nn
from slowtorch_lib.nn.modules import rnn_steps
from slowtorch_lib.nn.utils import rnn as st_rnn
from tests.nn.nn_parity import rand, values
from tests.parity import assert_same, require_torch, same_error

RTOL, ATOL = 1e-4, 1e-5
SEQ, BATCH, IN, HIDDEN = 4, 3, 3, 4


def layer_pair(name: str, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """The same layer in both libraries, ours with torch's weights."""
    torch = require_torch()
    torch.manual_seed(0)
    dtype = kwargs.pop("dtype", "float32")
    theirs = getattr(torch.nn, name)(*args, dtype=getattr(torch, dtype), **kwargs)
    ours = getattr(nn, name)(*args, dtype=getattr(st, dtype), **kwargs)
    loaded = ours.load_state_dict(
        {
            k: st.tensor(v.tolist(), dtype=ours_dtype(v))
            for k, v in theirs.state_dict().items()
        }
    )
    assert repr(loaded) == "<All keys matched successfully>"
    return ours, theirs


def ours_dtype(tensor: Any) -> Any:
    return getattr(st, str(tensor.dtype).replace("torch.", ""))


def states(result: Any) -> list[Any]:
    """The final state(s) of a layer's or cell's result, as a list."""
    return list(result) if isinstance(result, tuple) else [result]


def backward_all(outputs: list[Any], lib: Any, seed: int = 7) -> None:
    """One backward pass from every output, each with its own upstream."""
    total = None
    for number, output in enumerate(outputs):
        upstream = lib.tensor(values(tuple(output.shape), seed + number))
        term = (output * upstream).sum()
        total = term if total is None else total + term
    total.backward()


def compare_params(
    ours: Any, theirs: Any, rtol: float = RTOL, atol: float = ATOL
) -> None:
    mine = dict(ours.named_parameters())
    other = dict(theirs.named_parameters())
    assert list(mine) == list(other)
    for name, param in other.items():
        assert_same(mine[name].grad, param.grad, rtol, atol)


LAYERS: list[tuple[str, dict[str, Any]]] = [
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu"}),
    ("LSTM", {}),
    ("GRU", {}),
]
SETTINGS: list[dict[str, Any]] = [
    {},
    {"num_layers": 2},
    {"bidirectional": True},
    {"batch_first": True},
    {"bias": False},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
]


@pytest.mark.parametrize("settings", SETTINGS, ids=str)
@pytest.mark.parametrize(("name", "kind"), LAYERS, ids=str)
@pytest.mark.parametrize("with_state", [False, True])
def test_layer_matches_torch(
    name: str, kind: dict[str, Any], settings: dict[str, Any], with_state: bool
) -> None:
    torch = require_torch()
    kwargs = {**kind, **settings}
    ours, theirs = layer_pair(name, IN, HIDDEN, **kwargs)
    shape = (BATCH, SEQ, IN) if kwargs.get("batch_first") else (SEQ, BATCH, IN)
    x, tx = rand(st, *shape, seed=1, grad=True), rand(torch, *shape, seed=1, grad=True)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    hx: Any = None
    thx: Any = None
    if with_state:
        count = 2 if name == "LSTM" else 1
        hx = [
            rand(st, layers, BATCH, HIDDEN, seed=10 + i, grad=True)
            for i in range(count)
        ]
        thx = [
            rand(torch, layers, BATCH, HIDDEN, seed=10 + i, grad=True)
            for i in range(count)
        ]
        hx, thx = (tuple(hx), tuple(thx)) if name == "LSTM" else (hx[0], thx[0])
    out, hidden = ours(x, hx)
    tout, thidden = theirs(tx, thx)
    assert_same(out, tout, RTOL, ATOL)
    assert out.grad_fn.name() == tout.grad_fn.name()
    for mine, other in zip(states(hidden), states(thidden)):
        assert_same(mine, other, RTOL, ATOL)
        assert mine.grad_fn.name() == other.grad_fn.name() == "StackBackward0"
    backward_all([out, *states(hidden)], st)
    backward_all([tout, *states(thidden)], torch)
    assert_same(x.grad, tx.grad, RTOL, ATOL)
    if with_state:
        for mine, other in zip(states(hx), states(thx)):
            assert_same(mine.grad, other.grad, RTOL, ATOL)
    compare_params(ours, theirs)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("with_state", [False, True])
def test_unbatched_input_matches_torch(name: str, with_state: bool) -> None:
    torch = require_torch()
    ours, theirs = layer_pair(name, IN, HIDDEN, num_layers=2)
    x, tx = (
        rand(st, SEQ, IN, seed=2, grad=True),
        rand(torch, SEQ, IN, seed=2, grad=True),
    )
    hx = thx = None
    if with_state:
        if name == "LSTM":
            hx = (rand(st, 2, HIDDEN, seed=3), rand(st, 2, HIDDEN, seed=4))
            thx = (rand(torch, 2, HIDDEN, seed=3), rand(torch, 2, HIDDEN, seed=4))
        else:
            hx, thx = rand(st, 2, HIDDEN, seed=3), rand(torch, 2, HIDDEN, seed=3)
    out, hidden = ours(x, hx)
    tout, thidden = theirs(tx, thx)
    assert_same(out, tout, RTOL, ATOL)
    assert out.grad_fn.name() == tout.grad_fn.name() == "SqueezeBackward1"
    for mine, other in zip(states(hidden), states(thidden)):
        assert_same(mine, other, RTOL, ATOL)
    backward_all([out, *states(hidden)], st)
    backward_all([tout, *states(thidden)], torch)
    assert_same(x.grad, tx.grad, RTOL, ATOL)
    compare_params(ours, theirs)


@pytest.mark.parametrize(
    "settings",
    [{"proj_size": 2}, {"proj_size": 3, "num_layers": 2, "bidirectional": True}],
    ids=str,
)
def test_lstm_with_projection_matches_torch(settings: dict[str, Any]) -> None:
    torch = require_torch()
    ours, theirs = layer_pair("LSTM", IN, HIDDEN, **settings)
    layers = settings.get("num_layers", 1) * (2 if settings.get("bidirectional") else 1)
    proj = settings["proj_size"]
    x, tx = (
        rand(st, SEQ, BATCH, IN, seed=5, grad=True),
        rand(torch, SEQ, BATCH, IN, seed=5, grad=True),
    )
    h0, th0 = (
        rand(st, layers, BATCH, proj, seed=6, grad=True),
        rand(torch, layers, BATCH, proj, seed=6, grad=True),
    )
    c0, tc0 = (
        rand(st, layers, BATCH, HIDDEN, seed=7, grad=True),
        rand(torch, layers, BATCH, HIDDEN, seed=7, grad=True),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: projections are not in oneDNN
        tout, (th, tc) = theirs(tx, (th0, tc0))
    out, (h, c) = ours(x, (h0, c0))
    assert [n for n, _ in ours.named_parameters()] == [
        n for n, _ in theirs.named_parameters()
    ]
    for mine, other in ((out, tout), (h, th), (c, tc)):
        assert_same(mine, other, RTOL, ATOL)
        assert mine.grad_fn.name() == other.grad_fn.name()
    backward_all([out, h, c], st)
    backward_all([tout, th, tc], torch)
    for mine, other in ((x, tx), (h0, th0), (c0, tc0)):
        assert_same(mine.grad, other.grad, RTOL, ATOL)
    compare_params(ours, theirs)


def test_float64_layers_match_torch() -> None:
    torch = require_torch()
    for name in ("LSTM", "GRU"):
        ours, theirs = layer_pair(name, IN, HIDDEN, dtype="float64")
        x = rand(st, SEQ, BATCH, IN, seed=8, grad=True, dtype="float64")
        tx = rand(torch, SEQ, BATCH, IN, seed=8, grad=True, dtype="float64")
        out, _ = ours(x)
        tout, _ = theirs(tx)
        assert_same(out, tout, 1e-12, 1e-12)
        assert out.grad_fn.name() == tout.grad_fn.name()  # no fused kernel


# ----------------------------------------------------------------------
# Packed sequences of unequal lengths
# ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize(
    "settings",
    [{}, {"bidirectional": True}, {"num_layers": 2, "bidirectional": True}],
    ids=str,
)
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequence_matches_torch(
    name: str, settings: dict[str, Any], enforce_sorted: bool
) -> None:
    torch = require_torch()
    ours, theirs = layer_pair(name, IN, HIDDEN, **settings)
    lengths = [4, 2, 1] if enforce_sorted else [2, 4, 1]
    x, tx = (
        rand(st, 4, 3, IN, seed=9, grad=True),
        rand(torch, 4, 3, IN, seed=9, grad=True),
    )
    packed = st_rnn.pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)
    tpacked = torch.nn.utils.rnn.pack_padded_sequence(
        tx, lengths, enforce_sorted=enforce_sorted
    )
    for mine, other in zip(packed[1:], tpacked[1:]):
        assert (mine is None) == (other is None)
        if mine is not None:
            assert_same(mine, other, exact=True)
    layers = settings.get("num_layers", 1) * (2 if settings.get("bidirectional") else 1)
    h0 = rand(st, layers, 3, HIDDEN, seed=11, grad=True)
    th0 = rand(torch, layers, 3, HIDDEN, seed=11, grad=True)
    hx, thx = ((h0, h0 * 0.5), (th0, th0 * 0.5)) if name == "LSTM" else (h0, th0)
    out, hidden = ours(packed, hx)
    tout, thidden = theirs(tpacked, thx)
    assert isinstance(out, st_rnn.PackedSequence)
    assert_same(out.data, tout.data, RTOL, ATOL)
    assert out.data.grad_fn.name() == tout.data.grad_fn.name() == "CatBackward0"
    assert_same(out.batch_sizes, tout.batch_sizes, exact=True)
    for mine, other in zip(states(hidden), states(thidden)):
        assert_same(mine, other, RTOL, ATOL)
        assert mine.grad_fn.name() == other.grad_fn.name()
    padded, lengths_out = st_rnn.pad_packed_sequence(out, batch_first=True)
    tpadded, tlengths = torch.nn.utils.rnn.pad_packed_sequence(tout, batch_first=True)
    assert_same(padded, tpadded, RTOL, ATOL)
    assert padded.grad_fn.name() == tpadded.grad_fn.name()
    assert_same(lengths_out, tlengths, exact=True)
    backward_all([padded, *states(hidden)], st)
    backward_all([tpadded, *states(thidden)], torch)
    assert_same(x.grad, tx.grad, RTOL, ATOL)
    assert_same(h0.grad, th0.grad, RTOL, ATOL)
    compare_params(ours, theirs)


def test_pack_and_pad_functions_match_torch() -> None:
    torch = require_torch()
    tr = torch.nn.utils.rnn
    results = []
    for lib, utils in ((st, st_rnn), (torch, tr)):
        a = lib.tensor(values((2, 3), 1), requires_grad=True)
        b = lib.tensor(values((4, 3), 2), requires_grad=True)
        c = lib.tensor(values((3, 3), 3), requires_grad=True)
        padded = utils.pad_sequence([a, b, c], padding_value=-1.0)
        left = utils.pad_sequence([a, b, c], batch_first=True, padding_side="left")
        packed = utils.pack_sequence([a, b, c], enforce_sorted=False)
        sorted_pack = utils.pack_sequence([b, c, a])
        unpacked = utils.unpack_sequence(packed)
        again, lengths = utils.pad_packed_sequence(packed, total_length=6)
        (padded.sum() * 2 + (left * left).sum() + (again * 3).sum()).backward()
        results.append(
            {
                "padded": padded,
                "left": left,
                "data": packed.data,
                "sizes": packed.batch_sizes,
                "sorted": packed.sorted_indices,
                "unsorted": packed.unsorted_indices,
                "sorted_data": sorted_pack.data,
                "again": again,
                "lengths": lengths,
                "unpacked": unpacked,
                "grads": [a.grad, b.grad, c.grad],
                "names": [padded.grad_fn.name(), packed.data.grad_fn.name()],
            }
        )
    ours, theirs = results
    assert ours["names"] == theirs["names"]
    assert ours["names"] == [
        "torch::autograd::CopySlices",
        "PackPaddedSequenceBackward0",
    ]
    for key in ("padded", "left", "data", "sorted_data", "again"):
        assert_same(ours[key], theirs[key], RTOL, ATOL)
    for key in ("sizes", "sorted", "unsorted", "lengths"):
        assert_same(ours[key], theirs[key], exact=True)
    for key in ("unpacked", "grads"):
        for mine, other in zip(ours[key], theirs[key]):
            assert_same(mine, other, RTOL, ATOL)
    assert st_rnn.PackedSequence._fields == tr.PackedSequence._fields
    assert isinstance(st_rnn.pack_sequence([st.ones(2)]), tuple)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, r: r.pack_padded_sequence(lib.ones(4, 3, 2), [2, 3, 1]),
        lambda lib, r: r.pack_padded_sequence(lib.ones(4, 3, 2), [3, 0, 0]),
        lambda lib, r: r.pack_padded_sequence(lib.ones(4, 3, 2), [3, 2]),
        lambda lib, r: r.pack_padded_sequence(
            lib.ones(4, 3, 2), [3, 2, -1], enforce_sorted=False
        ),
        lambda lib, r: r.pad_sequence([]),
        lambda lib, r: r.pad_sequence(3),
        lambda lib, r: r.pad_sequence([lib.ones(2)], padding_side="up"),
        lambda lib, r: r.pack_sequence([lib.ones(2), lib.ones(3)]),
        lambda lib, r: r.pad_packed_sequence(
            r.pack_sequence([lib.ones(4), lib.ones(3)]), total_length=2
        ),
    ],
)
def test_packing_errors_match_torch(call: Any) -> None:
    same_error(lambda lib: call(lib, st_rnn if lib is st else lib.nn.utils.rnn))


def test_a_length_past_the_padding_is_refused() -> None:
    with pytest.raises(RuntimeError, match="longer than the padded sequences"):
        st_rnn.pack_padded_sequence(st.ones(4, 3, 2), [5, 3, 1])


# ----------------------------------------------------------------------
# Cells
# ----------------------------------------------------------------------

CELLS: list[tuple[str, dict[str, Any]]] = [
    ("RNNCell", {}),
    ("RNNCell", {"nonlinearity": "relu"}),
    ("RNNCell", {"bias": False}),
    ("LSTMCell", {}),
    ("LSTMCell", {"bias": False}),
    ("GRUCell", {}),
    ("GRUCell", {"bias": False}),
]


@pytest.mark.parametrize(("name", "kwargs"), CELLS, ids=str)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [True, False])
def test_cell_matches_torch(
    name: str, kwargs: dict[str, Any], batched: bool, with_state: bool
) -> None:
    torch = require_torch()
    ours, theirs = layer_pair(name, IN, HIDDEN, **kwargs)
    lead = (BATCH,) if batched else ()
    x, tx = (
        rand(st, *lead, IN, seed=1, grad=True),
        rand(torch, *lead, IN, seed=1, grad=True),
    )
    hx: Any = None
    thx: Any = None
    if with_state:
        h, th = (
            rand(st, *lead, HIDDEN, seed=2, grad=True),
            rand(torch, *lead, HIDDEN, seed=2, grad=True),
        )
        c, tc = (
            rand(st, *lead, HIDDEN, seed=3, grad=True),
            rand(torch, *lead, HIDDEN, seed=3, grad=True),
        )
        hx, thx = ((h, c), (th, tc)) if name == "LSTMCell" else (h, th)
    result, tresult = ours(x, hx), theirs(tx, thx)
    for mine, other in zip(states(result), states(tresult)):
        assert_same(mine, other, RTOL, ATOL)
        assert mine.grad_fn.name() == other.grad_fn.name()
    backward_all(states(result), st)
    backward_all(states(tresult), torch)
    assert_same(x.grad, tx.grad, RTOL, ATOL)
    if with_state:
        for mine, other in zip(states(hx), states(thx)):
            assert_same(mine.grad, other.grad, RTOL, ATOL)
    compare_params(ours, theirs)


@pytest.mark.parametrize(
    ("step", "gates", "state_count"),
    [
        (rnn_steps.rnn_tanh_step, 1, 1),
        (rnn_steps.rnn_relu_step, 1, 1),
        (rnn_steps.lstm_step, 4, 2),
        (rnn_steps.gru_step, 3, 1),
    ],
    ids=["tanh", "relu", "lstm", "gru"],
)
def test_cells_pass_finite_differences(step: Any, gates: int, state_count: int) -> None:
    """The backward pass through each cell, checked numerically (no torch):
    with respect to the input, the state and every weight and bias."""
    st.manual_seed(3)

    def leaf(*shape: int) -> Any:
        return st.randn(*shape, dtype=st.float64, requires_grad=True)

    x, w_ih, w_hh = leaf(2, 2), leaf(3 * gates, 2), leaf(3 * gates, 3)
    b_ih, b_hh = leaf(3 * gates), leaf(3 * gates)
    state = tuple(leaf(2, 3) for _ in range(state_count))

    def run(x: Any, w_ih: Any, w_hh: Any, b_ih: Any, b_hh: Any, *state: Any) -> Any:
        weights = rnn_steps.Weights(w_ih, w_hh, b_ih, b_hh)
        return step(nn.functional.linear(x, w_ih, b_ih), state, weights)

    assert st.autograd.gradcheck(run, (x, w_ih, w_hh, b_ih, b_hh, *state))
    # The modules run exactly these steps.
    cell = {1: nn.RNNCell, 4: nn.LSTMCell, 3: nn.GRUCell}[gates](2, 3, dtype=st.float64)
    if step is rnn_steps.rnn_relu_step:
        cell.nonlinearity = "relu"
    with st.no_grad():
        for param, value in zip(cell.parameters(), (w_ih, w_hh, b_ih, b_hh)):
            param.copy_(value)
    result = cell(x, state if state_count == 2 else state[0])
    expected = run(x, w_ih, w_hh, b_ih, b_hh, *state)
    assert [t.tolist() for t in states(result)] == [t.tolist() for t in expected]


def test_lstm_layer_passes_finite_differences() -> None:
    """Two layers, both directions, over a packed batch (no torch)."""
    st.manual_seed(4)
    lstm = nn.LSTM(2, 2, num_layers=2, bidirectional=True, dtype=st.float64)
    x = st.randn(3, 2, 2, dtype=st.float64, requires_grad=True)
    h0 = st.randn(4, 2, 2, dtype=st.float64, requires_grad=True)

    def run(x: Any, h0: Any) -> Any:
        packed = st_rnn.pack_padded_sequence(x, [3, 2])
        out, (h, c) = lstm(packed, (h0, h0 * 0.5))
        return out.data, h, c

    assert st.autograd.gradcheck(run, (x, h0))


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.nn.RNNCell(4, 6)(lib.ones(3, 5)),
        lambda lib: lib.nn.RNNCell(4, 6)(lib.ones(3, 4), lib.ones(2, 6)),
        lambda lib: lib.nn.RNNCell(4, 6)(lib.ones(3, 4), lib.ones(3, 5)),
        lambda lib: lib.nn.LSTMCell(4, 6)(
            lib.ones(3, 4), (lib.ones(3, 6), lib.ones(2, 6))
        ),
        lambda lib: lib.nn.LSTMCell(4, 6)(
            lib.ones(3, 4), (lib.ones(3, 6), lib.ones(3, 5))
        ),
        lambda lib: lib.nn.LSTMCell(4, 6)(
            lib.ones(3, 4), (lib.ones(3, 6, 1), lib.ones(3, 6))
        ),
        lambda lib: lib.nn.GRUCell(4, 6)(lib.ones(3, 4, 1)),
        lambda lib: lib.nn.GRUCell(4, 6)(lib.ones(4), lib.ones(3, 6)),
        lambda lib: lib.nn.RNNCell(4, 6, nonlinearity="sigmoid")(lib.ones(4)),
    ],
)
def test_cell_errors_match_torch(call: Any) -> None:
    same_error(call)


# ----------------------------------------------------------------------
# Modules: structure, init, state_dicts, dropout, errors
# ----------------------------------------------------------------------

STRUCTURES: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("RNN", (4, 6), {}),
    ("RNN", (4, 6, 2, "relu"), {}),
    ("RNN", (4, 6), {"nonlinearity": "relu", "bias": False, "batch_first": True}),
    ("LSTM", (4, 6), {"num_layers": 2, "dropout": 0.5, "bidirectional": True}),
    ("LSTM", (4, 6), {"proj_size": 3, "num_layers": 2, "bias": False}),
    ("GRU", (3, 4), {"bidirectional": True}),
    ("RNNCell", (4, 6), {"bias": False, "nonlinearity": "relu"}),
    ("LSTMCell", (2, 3), {}),
    ("GRUCell", (2, 3), {"dtype": "float64"}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), STRUCTURES, ids=str)
def test_structure_matches_torch(
    name: str, args: tuple, kwargs: dict[str, Any]
) -> None:
    torch = require_torch()
    modules = []
    for lib in (st, torch):
        options = dict(kwargs)
        if "dtype" in options:
            options["dtype"] = getattr(lib, options["dtype"])
        modules.append(getattr(lib.nn, name)(*args, **options))
    ours, theirs = modules
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (key, mine), (_, other) in zip(
        ours.state_dict().items(), theirs.state_dict().items()
    ):
        assert tuple(mine.shape) == tuple(other.shape), key
        assert mine.dtype.name == str(other.dtype)[6:], key
    if hasattr(theirs, "all_weights"):
        assert [[tuple(p.shape) for p in ws] for ws in ours.all_weights] == [
            [tuple(p.shape) for p in ws] for ws in theirs.all_weights
        ]
        assert ours._flat_weights_names == theirs._flat_weights_names
        ours.flatten_parameters()


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU", "LSTMCell"])
def test_initialisation_is_uniform_within_one_over_root_hidden(name: str) -> None:
    st.manual_seed(0)
    module = getattr(nn, name)(5, 25)
    bound = 1 / math.sqrt(25)
    everything = [v for p in module.parameters() for v in p.flatten().tolist()]
    assert all(-bound <= v <= bound for v in everything)
    assert max(everything) > 0.9 * bound and min(everything) < -0.9 * bound
    mean = sum(everything) / len(everything)
    assert abs(mean) < 0.01
    variance = sum(v * v for v in everything) / len(everything)
    assert abs(variance - bound**2 / 3) < 0.1 * bound**2 / 3


def test_state_dicts_load_both_ways_through_files(tmp_path: Any) -> None:
    torch = require_torch()
    torch.manual_seed(1)
    theirs = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    st.manual_seed(1)
    ours = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    # torch -> file -> engine
    torch.save(theirs.state_dict(), tmp_path / "theirs.pt")
    ours.load_state_dict(st.load(tmp_path / "theirs.pt"))
    x = rand(st, 3, 2, 3, seed=1)
    tx = rand(torch, 3, 2, 3, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(ours(x)[0], theirs(tx)[0], RTOL, ATOL)
    # engine -> file -> torch, after changing the engine's weights
    fresh = nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    buffer = io.BytesIO()
    st.save(fresh.state_dict(), buffer)
    buffer.seek(0)
    theirs.load_state_dict(torch.load(buffer))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(fresh(x)[0], theirs(tx)[0], RTOL, ATOL)
    cell, tcell = nn.GRUCell(3, 4), torch.nn.GRUCell(3, 4)
    buffer = io.BytesIO()
    st.save(cell.state_dict(), buffer)
    buffer.seek(0)
    tcell.load_state_dict(torch.load(buffer))
    assert_same(cell(x[0]), tcell(tx[0]), RTOL, ATOL)


def test_dropout_between_layers_in_training_only() -> None:
    torch = require_torch()
    ours, theirs = layer_pair("GRU", IN, HIDDEN, num_layers=3, dropout=0.5)
    x, tx = rand(st, SEQ, BATCH, IN, seed=1), rand(torch, SEQ, BATCH, IN, seed=1)
    # Evaluation: no dropout, the same as torch.
    ours.eval()
    theirs.eval()
    evaluated = ours(x)[0]
    assert_same(evaluated, theirs(tx)[0], RTOL, ATOL)
    # Training: random, repeatable from the engine's seed, and different.
    ours.train()
    st.manual_seed(5)
    first = ours(x)[0].tolist()
    st.manual_seed(5)
    assert ours(x)[0].tolist() == first
    assert first != evaluated.tolist()
    # Dropout of 1 zeroes every layer's output but the last's: the last
    # layer sees zeros, in both libraries.
    theirs.train()
    ours.dropout = theirs.dropout = 1.0
    xg, txg = (
        rand(st, SEQ, BATCH, IN, seed=1, grad=True),
        rand(torch, SEQ, BATCH, IN, seed=1, grad=True),
    )
    out, tout = ours(xg)[0], theirs(txg)[0]
    assert_same(out, tout, RTOL, ATOL)
    backward_all([out], st)
    backward_all([tout], torch)
    assert_same(xg.grad, txg.grad, RTOL, ATOL)
    compare_params(ours, theirs)


def test_dropout_on_one_layer_warns_as_torch() -> None:
    torch = require_torch()
    messages = []
    for lib in (st, torch):
        with pytest.warns(UserWarning) as record:
            lib.nn.LSTM(2, 3, dropout=0.2)
        messages.append(str(record[0].message))
    assert messages[0] == messages[1]


def test_clip_grad_norm_on_an_lstm_matches_torch() -> None:
    torch = require_torch()
    ours, theirs = layer_pair("LSTM", IN, HIDDEN, num_layers=2)
    x, tx = rand(st, SEQ, BATCH, IN, seed=1), rand(torch, SEQ, BATCH, IN, seed=1)
    (ours(x)[0] ** 2).sum().backward()
    (theirs(tx)[0] ** 2).sum().backward()
    norm = nn.utils.clip_grad_norm_(ours.parameters(), 0.5)
    tnorm = torch.nn.utils.clip_grad_norm_(theirs.parameters(), 0.5)
    assert_same(norm, tnorm, RTOL, ATOL)
    assert norm.item() > 0.5
    compare_params(ours, theirs)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.nn.RNN(4, 6)(lib.ones(2, 3, 4, 1)),
        lambda lib: lib.nn.LSTM(4, 6)(lib.ones(5)),
        lambda lib: lib.nn.GRU(4, 6)(lib.ones(2, 3, 4, 1)),
        lambda lib: lib.nn.RNN(4, 6)(lib.ones(2, 3, 5)),
        lambda lib: lib.nn.RNN(4, 6)(lib.ones(2, 3, 4, dtype=lib.float64)),
        lambda lib: lib.nn.RNN(4, 6)(lib.ones(2, 3, 4), lib.ones(2, 3, 6)),
        lambda lib: lib.nn.GRU(4, 6)(lib.ones(2, 3, 4), lib.ones(3, 6)),
        lambda lib: lib.nn.GRU(4, 6)(lib.ones(2, 4), lib.ones(1, 3, 6)),
        lambda lib: lib.nn.LSTM(4, 6)(
            lib.ones(2, 3, 4), (lib.ones(1, 3, 6), lib.ones(1, 3))
        ),
        lambda lib: lib.nn.LSTM(4, 6)(
            lib.ones(2, 3, 4), (lib.ones(1, 3, 6), lib.ones(1, 3, 5))
        ),
        lambda lib: lib.nn.LSTM(4, 6)(
            lib.ones(2, 3, 4), (lib.ones(1, 2, 6), lib.ones(1, 3, 6))
        ),
        lambda lib: lib.nn.LSTM(4, 6, proj_size=2)(
            lib.ones(2, 3, 4), (lib.ones(1, 3, 6), lib.ones(1, 3, 6))
        ),
        lambda lib: lib.nn.LSTM(4, 6)(lib.ones(0, 3, 4)),
        lambda lib: lib.nn.RNN(4, 6, nonlinearity="sigmoid"),
        lambda lib: lib.nn.RNN(4, 6, proj_size=2),
        lambda lib: lib.nn.GRU(4, 6, proj_size=2),
        lambda lib: lib.nn.LSTM(4, 6, proj_size=6),
        lambda lib: lib.nn.LSTM(4, 6, proj_size=-1),
        lambda lib: lib.nn.LSTM(4, 6, dropout=1.5),
        lambda lib: lib.nn.LSTM(4, 6, dropout=True),
        lambda lib: lib.nn.LSTM(4, 6, bias=1),
        lambda lib: lib.nn.LSTM(4, 6, batch_first=None),
        lambda lib: lib.nn.LSTM(4.0, 6),
        lambda lib: lib.nn.LSTM(0, 6),
        lambda lib: lib.nn.LSTM(4, 0),
        lambda lib: lib.nn.LSTM(4, 6, num_layers=0),
    ],
)
def test_layer_errors_match_torch(call: Any) -> None:
    same_error(call)
