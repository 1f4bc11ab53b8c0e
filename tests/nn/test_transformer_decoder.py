"""``nn.TransformerDecoderLayer``, ``nn.TransformerDecoder`` and the whole
``nn.Transformer`` against PyTorch: with torch's weights (moved by
``state_dict``) the outputs, nodes and gradients of the parameters and of
the inputs agree, in evaluation and in training without dropout; the
structure, the refusals, and a finite-difference check without torch."""

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.autograd.gradcheck import gradcheck
from tests.nn.test_transformer import LAYERS, _compare, _layer_options, _pair, _values
from tests.parity import assert_same, require_torch, same_error

FORWARDS = {
    "plain": {},
    "causal": {"causal": True},
    "memory_mask": {"memory_mask": True},
    "padding": {"padding": True},
    "unbatched": {"unbatched": True},
}


def _decoder_run(
    options: dict[str, Any], forward: dict[str, Any], inputs: dict[str, Any]
) -> Any:
    """Runs a decoder (layer) on a target of 3 and a memory of 4 positions;
    keeps the inputs in ``inputs`` so that their gradients can be compared."""

    def run(lib: Any, module: Any) -> Any:
        batch_first = options.get("batch_first")
        tgt_shape = (2, 3, 4) if batch_first else (3, 2, 4)
        memory_shape = (2, 4, 4) if batch_first else (4, 2, 4)
        tgt = _values(lib, tgt_shape, 1)
        memory = _values(lib, memory_shape, 2)
        if forward.get("unbatched"):
            tgt, memory = (
                (tgt[0], memory[0]) if batch_first else (tgt[:, 0], memory[:, 0])
            )
        tgt, memory = tgt.requires_grad_(), memory.requires_grad_()
        inputs[lib.__name__] = (tgt, memory)
        kwargs: dict[str, Any] = {}
        if forward.get("causal"):
            kwargs["tgt_mask"] = lib.nn.Transformer.generate_square_subsequent_mask(3)
            kwargs["tgt_is_causal"] = forward.get("is_causal", True)
        if forward.get("memory_mask"):
            kwargs["memory_mask"] = lib.tensor(
                [[False, True, False, False]] * 2 + [[False] * 4]
            )
        if forward.get("padding"):
            kwargs["tgt_key_padding_mask"] = lib.tensor(
                [[False, False, True], [False, False, False]]
            )
            kwargs["memory_key_padding_mask"] = lib.tensor(
                [[False, False, False, True], [False, True, False, False]]
            )
        return [module(tgt, memory, **kwargs)]

    return run


def _compare_with_inputs(ours: Any, theirs: Any, options: Any, forward: Any) -> None:
    """:func:`_compare`, and then the gradients of ``tgt`` and ``memory``."""
    inputs: dict[str, Any] = {}
    _compare(ours, theirs, _decoder_run(options, forward, inputs))
    for mine, other in zip(inputs["slowtorch_lib"], inputs["torch"]):
        assert_same(mine.grad, other.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["eval", "train"])
@pytest.mark.parametrize("forward", FORWARDS.values(), ids=FORWARDS.keys())
@pytest.mark.parametrize("options", LAYERS.values(), ids=LAYERS.keys())
def test_decoder_layer_matches_torch(options: Any, forward: Any, mode: str) -> None:
    dropout = 0.1 if mode == "eval" else 0.0
    require_torch().manual_seed(0)  # the same weights on every run
    ours, theirs = _pair(
        lambda L: L.nn.TransformerDecoderLayer(
            4, 2, dim_feedforward=6, dropout=dropout, **_layer_options(L, options)
        )
    )
    if mode == "eval":
        ours.eval()
        theirs.eval()
    _compare_with_inputs(ours, theirs, options, forward)


@pytest.mark.parametrize(
    "forward",
    [{}, {"causal": True, "is_causal": None}, {"padding": True, "memory_mask": True}],
    ids=["plain", "causal_detected", "padding_and_memory_mask"],
)
@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_matches_torch(forward: Any, norm_first: bool) -> None:
    def make(L: Any) -> Any:
        layer = L.nn.TransformerDecoderLayer(4, 2, 6, 0.0, norm_first=norm_first)
        return L.nn.TransformerDecoder(layer, 2, norm=L.nn.LayerNorm(4))

    require_torch().manual_seed(0)  # the same weights on every run
    ours, theirs = _pair(make)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    _compare_with_inputs(ours, theirs, {}, forward)


def _transformer(L: Any, **options: Any) -> Any:
    return L.nn.Transformer(4, 2, 2, 1, 6, 0.0, **options)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
@pytest.mark.parametrize(
    "options", [{}, {"batch_first": True, "norm_first": True, "activation": "gelu"}]
)
def test_transformer_matches_torch(options: Any) -> None:
    torch = require_torch()
    torch.manual_seed(0)  # the same weights on every run
    ours, theirs = _pair(lambda L: _transformer(L, **options))
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    batch_first = options.get("batch_first", False)
    found = {}

    def run(lib: Any, module: Any) -> Any:
        src = _values(lib, (2, 5, 4) if batch_first else (5, 2, 4), 3)
        tgt = _values(lib, (2, 3, 4) if batch_first else (3, 2, 4), 4)
        src, tgt = src.requires_grad_(), tgt.requires_grad_()
        found[lib.__name__] = (src, tgt)
        mask = lib.nn.Transformer.generate_square_subsequent_mask(3)
        padding = lib.tensor([[False] * 4 + [True], [False] * 5])
        return [
            module(
                src,
                tgt,
                tgt_mask=mask,
                src_key_padding_mask=padding,
                memory_key_padding_mask=padding,
            )
        ]

    _compare(ours, theirs, run)
    for mine, other in zip(found["slowtorch_lib"], found["torch"]):
        assert isinstance(other, torch.Tensor)
        assert_same(mine.grad, other.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
def test_transformer_starts_xavier_uniform() -> None:
    st.manual_seed(0)
    model = st.nn.Transformer(8, 2, 1, 1, 16)
    bound = (6 / (16 + 8)) ** 0.5  # linear1's weight: (16, 8)
    values = model.encoder.layers[0].linear1.weight.flatten().tolist()
    assert max(map(abs, values)) <= bound and max(map(abs, values)) > 0.8 * bound
    assert model.decoder.norm.weight.tolist() == [1.0] * 8
    assert (model.d_model, model.nhead, model.batch_first) == (8, 2, False)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
@pytest.mark.parametrize(
    "case",
    [
        lambda L: _transformer(L)(L.ones(5, 2, 4), L.ones(3, 1, 4)),
        lambda L: _transformer(L, batch_first=True)(L.ones(2, 5, 4), L.ones(1, 3, 4)),
        lambda L: _transformer(L)(L.ones(5, 2, 4), L.ones(3, 2, 3)),
        lambda L: L.nn.TransformerDecoderLayer(4, 2, activation="tanh"),
        lambda L: L.nn.TransformerDecoderLayer(4, 2, 6)(
            L.ones(3, 2, 4), L.ones(4, 2, 5)
        ),
    ],
    ids=["batch", "batch_first_batch", "features", "activation", "memory_size"],
)
def test_transformer_refusals_match_torch(case: Any) -> None:
    same_error(case)


def test_decoder_layer_gradcheck() -> None:
    st.manual_seed(0)
    layer = st.nn.TransformerDecoderLayer(4, 2, 6, 0.0, dtype=st.float64)
    tgt = st.randn(3, 2, 4, dtype=st.float64, requires_grad=True)
    memory = st.randn(4, 2, 4, dtype=st.float64, requires_grad=True)
    mask = st.nn.Transformer.generate_square_subsequent_mask(3, dtype=st.float64)
    assert gradcheck(lambda t, m: layer(t, m, tgt_mask=mask), (tgt, memory))
