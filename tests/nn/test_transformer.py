"""``nn.MultiheadAttention``, ``nn.TransformerEncoderLayer`` and
``nn.TransformerEncoder`` against PyTorch: the same weights (moved by
``state_dict``, both ways) give the same outputs, gradients and nodes.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, require_torch, same_error


def _values(lib: Any, shape: tuple[int, ...], seed: int) -> Any:
    count = math.prod(shape)
    flat = [math.sin(seed * 7.1 + i * 1.3) for i in range(count)]
    return lib.tensor(flat).reshape(shape)


def _copy_weights(source: Any, target: Any, lib: Any) -> None:
    """``target.load_state_dict`` with ``source``'s numbers, across libraries."""
    state = {
        name: lib.tensor(value.tolist(), dtype=getattr(lib, str(value.dtype)[6:]))
        for name, value in source.state_dict().items()
    }
    target.load_state_dict(state)


def _pair(make: Any) -> tuple[Any, Any]:
    """The module built in both libraries, the engine's holding torch's weights."""
    torch = require_torch()
    ours, theirs = make(st), make(torch)
    _copy_weights(theirs, ours, st)
    return ours, theirs


def _compare(ours: Any, theirs: Any, run: Any) -> None:
    """``run(lib, module)`` returns tensors; values, nodes and all parameter
    gradients must agree."""
    torch = require_torch()
    mine, other = run(st, ours), run(torch, theirs)
    mine = [t for t in mine if t is not None]
    other = [t for t in other if t is not None]
    assert len(mine) == len(other)
    loss_mine = loss_other = None
    for index, (a, b) in enumerate(zip(mine, other)):
        assert_same(a, b, rtol=1e-4, atol=1e-5)
        name_a = a.grad_fn.name() if a.grad_fn else None
        name_b = b.grad_fn.name() if b.grad_fn else None
        assert name_a == name_b, (index, name_a, name_b)
        if a.requires_grad:
            weight_a = _values(st, tuple(a.shape), 5 + index).nan_to_num()
            weight_b = _values(torch, tuple(b.shape), 5 + index).nan_to_num()
            term_a, term_b = (
                (a.nan_to_num() * weight_a).sum(),
                (b.nan_to_num() * weight_b).sum(),
            )
            loss_mine = term_a if loss_mine is None else loss_mine + term_a
            loss_other = term_b if loss_other is None else loss_other + term_b
    if loss_mine is None:
        return
    loss_mine.backward()
    loss_other.backward()
    grads = dict(ours.named_parameters())
    for name, parameter in theirs.named_parameters():
        if parameter.grad is None:
            assert grads[name].grad is None, name
        else:
            assert_same(grads[name].grad, parameter.grad, rtol=1e-4, atol=1e-5)


MHA_OPTIONS = {
    "plain": {},
    "batch_first": {"batch_first": True},
    "no_bias": {"bias": False},
    "bias_kv_zero_attn": {"add_bias_kv": True, "add_zero_attn": True},
    "kdim_vdim": {"kdim": 3, "vdim": 5},
}

FORWARDS = {
    "self": {},
    "causal_bool_mask": {"mask": "bool"},
    "causal_float_mask_is_causal": {"mask": "float", "is_causal": True},
    "padding": {"padding": True},
    "padding_and_mask": {"padding": True, "mask": "bool"},
    "per_head_weights": {"average_attn_weights": False},
    "no_weights": {"need_weights": False},
    "no_weights_causal": {"need_weights": False, "mask": "float", "is_causal": True},
    "no_weights_padding": {"need_weights": False, "padding": True},
    "unbatched": {"unbatched": True},
    "cross": {"cross": True},
}


def _mha_run(options: dict[str, Any], forward: dict[str, Any]) -> Any:
    def run(lib: Any, module: Any) -> Any:
        batch_first = options.get("batch_first", False)
        seq, batch, embed = 3, 2, 4
        shape = (batch, seq, embed) if batch_first else (seq, batch, embed)
        x = _values(lib, shape, 1).requires_grad_()
        kdim, vdim = options.get("kdim", embed), options.get("vdim", embed)
        if kdim != embed or forward.get("cross"):
            key = _values(lib, shape[:-1] + (kdim,), 2)
            value = _values(lib, shape[:-1] + (vdim,), 3)
        else:
            key = value = x
        query = x
        kwargs: dict[str, Any] = {}
        if forward.get("mask") == "bool":
            kwargs["attn_mask"] = lib.ones(seq, seq).triu(1) > 0
        if forward.get("mask") == "float":
            kwargs["attn_mask"] = lib.full((seq, seq), -lib.inf).triu(1)
        if forward.get("padding"):
            padding = lib.tensor([[False, False, True], [False, False, False]])
            if forward.get("mask") == "bool":
                kwargs["key_padding_mask"] = padding
            else:
                kwargs["key_padding_mask"] = padding.float() * -1e9
        for name in ("is_causal", "need_weights", "average_attn_weights"):
            if name in forward:
                kwargs[name] = forward[name]
        if forward.get("unbatched"):
            query, key, value = query[0], key[0], value[0]
        out, weights = module(query, key, value, **kwargs)
        return [out, weights]

    return run


@pytest.mark.filterwarnings("ignore:Support for mismatched")
@pytest.mark.parametrize("forward", FORWARDS.values(), ids=FORWARDS.keys())
@pytest.mark.parametrize("options", MHA_OPTIONS.values(), ids=MHA_OPTIONS.keys())
def test_multihead_attention_matches_torch(
    options: dict[str, Any], forward: dict[str, Any]
) -> None:
    if forward.get("unbatched") and options.get("batch_first"):
        pytest.skip("batch_first does not apply to an unbatched input")
    ours, theirs = _pair(lambda L: L.nn.MultiheadAttention(4, 2, **options))
    _compare(ours, theirs, _mha_run(options, forward))


def test_parameter_names_and_initialisation() -> None:
    torch = require_torch()
    for options in MHA_OPTIONS.values():
        ours = st.nn.MultiheadAttention(6, 3, **options)
        theirs = torch.nn.MultiheadAttention(6, 3, **options)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        for (name, mine), other in zip(
            ours.state_dict().items(), theirs.state_dict().values()
        ):
            assert tuple(mine.shape) == tuple(other.shape), name
        assert repr(ours) == repr(theirs)
    st.manual_seed(0)
    big = st.nn.MultiheadAttention(64, 4)
    bound = math.sqrt(6 / (64 + 192))  # xavier-uniform of a (192, 64) matrix
    values = big.in_proj_weight.flatten().tolist()
    assert max(map(abs, values)) <= bound and max(map(abs, values)) > 0.9 * bound
    assert big.in_proj_bias.abs().sum().item() == 0.0
    assert big.out_proj.bias.abs().sum().item() == 0.0


def test_state_dict_moves_both_ways() -> None:
    torch = require_torch()
    ours, theirs = _pair(lambda L: L.nn.MultiheadAttention(4, 2, kdim=3, vdim=5))
    back = torch.nn.MultiheadAttention(4, 2, kdim=3, vdim=5)
    _copy_weights(ours, back, torch)
    for (name, a), b in zip(theirs.state_dict().items(), back.state_dict().values()):
        assert torch.equal(a, b), name


MHA_REFUSALS = {
    "heads_do_not_divide": lambda L: L.nn.MultiheadAttention(5, 2),
    "zero_heads": lambda L: L.nn.MultiheadAttention(4, 0),
    "embed_dim_differs": lambda L: L.nn.MultiheadAttention(4, 2)(
        *[L.ones(3, 2, 6)] * 3
    ),
    "is_causal_without_mask": lambda L: L.nn.MultiheadAttention(4, 2)(
        *[L.ones(3, 2, 4)] * 3, is_causal=True
    ),
    "mask_shape": lambda L: L.nn.MultiheadAttention(4, 2)(
        *[L.ones(3, 2, 4)] * 3, attn_mask=L.ones(2, 2) > 0
    ),
    "mask_dtype": lambda L: L.nn.MultiheadAttention(4, 2)(
        *[L.ones(3, 2, 4)] * 3, attn_mask=L.ones(3, 3, dtype=L.long)
    ),
    "padding_shape": lambda L: L.nn.MultiheadAttention(4, 2)(
        *[L.ones(3, 2, 4)] * 3, key_padding_mask=L.ones(2, 4) > 0
    ),
    "four_dims": lambda L: L.nn.MultiheadAttention(4, 2)(*[L.ones(1, 3, 2, 4)] * 3),
}


@pytest.mark.parametrize("case", MHA_REFUSALS.values(), ids=MHA_REFUSALS.keys())
def test_multihead_attention_refusals(case: Any) -> None:
    same_error(case)


def test_mismatched_mask_types_warn() -> None:
    torch = require_torch()
    for lib in (st, torch):
        module = lib.nn.MultiheadAttention(4, 2)
        x = lib.ones(3, 2, 4)
        with pytest.warns(UserWarning, match="mismatched key_padding_mask"):
            module(
                x, x, x, attn_mask=lib.ones(3, 3) > 0, key_padding_mask=lib.zeros(2, 3)
            )


LAYERS = {
    "post_norm_relu": {},
    "pre_norm_gelu": {"norm_first": True, "activation": "gelu"},
    "batch_first_no_bias": {"batch_first": True, "bias": False},
    "callable_activation": {"activation": "tanh", "layer_norm_eps": 1e-3},
}


def _layer_options(L: Any, options: dict[str, Any]) -> dict[str, Any]:
    made = dict(options)
    if made.get("activation") == "tanh":
        made["activation"] = L.tanh
    return made


def _encoder_run(options: dict[str, Any], forward: dict[str, Any]) -> Any:
    def run(lib: Any, module: Any) -> Any:
        shape = (2, 3, 4) if options.get("batch_first") else (3, 2, 4)
        x = _values(lib, shape, 1).requires_grad_()
        kwargs: dict[str, Any] = {}
        mask_name = "mask" if forward.get("encoder") else "src_mask"
        if forward.get("causal"):
            kwargs[mask_name] = lib.nn.Transformer.generate_square_subsequent_mask(3)
            kwargs["is_causal"] = True if not forward.get("encoder") else None
        if forward.get("padding"):
            kwargs["src_key_padding_mask"] = lib.tensor(
                [[False, False, True], [False, False, False]]
            )
        if forward.get("unbatched"):
            x = x[:, 0] if not options.get("batch_first") else x[0]
        return [module(x, **kwargs)]

    return run


@pytest.mark.parametrize(
    "forward",
    [{}, {"causal": True}, {"padding": True}, {"unbatched": True}],
    ids=["plain", "causal", "padding", "unbatched"],
)
@pytest.mark.parametrize("options", LAYERS.values(), ids=LAYERS.keys())
def test_encoder_layer_matches_torch(options: dict[str, Any], forward: Any) -> None:
    ours, theirs = _pair(
        lambda L: L.nn.TransformerEncoderLayer(
            4, 2, dim_feedforward=6, dropout=0.0, **_layer_options(L, options)
        )
    )
    _compare(ours, theirs, _encoder_run(options, forward))


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
@pytest.mark.parametrize(
    "forward",
    [
        {"encoder": True},
        {"encoder": True, "causal": True},
        {"encoder": True, "padding": True},
    ],
    ids=["plain", "causal_detected", "padding"],
)
def test_encoder_matches_torch(forward: dict[str, Any]) -> None:
    def make(L: Any) -> Any:
        layer = L.nn.TransformerEncoderLayer(4, 2, 6, 0.0, norm_first=True)
        return L.nn.TransformerEncoder(layer, 2, norm=L.nn.LayerNorm(4))

    ours, theirs = _pair(make)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _compare(ours, theirs, _encoder_run({}, forward))


def test_encoder_warns_as_torch_about_nested_tensors() -> None:
    torch = require_torch()
    messages = []
    for lib in (st, torch):
        layer = lib.nn.TransformerEncoderLayer(4, 2, 6)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            encoder = lib.nn.TransformerEncoder(layer, 2, enable_nested_tensor=True)
        messages.append([str(w.message) for w in caught if "nested" in str(w.message)])
        assert encoder.use_nested_tensor is False
    assert messages[0] == messages[1] and messages[0]


def test_encoder_layers_are_copies() -> None:
    layer = st.nn.TransformerEncoderLayer(4, 2, 6)
    encoder = st.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    first, second = encoder.layers[0], encoder.layers[1]
    assert first.linear1.weight is not second.linear1.weight
    assert first.linear1.weight.tolist() == layer.linear1.weight.tolist()


def test_square_subsequent_mask() -> None:
    torch = require_torch()
    for size in (1, 4):
        assert_same(
            st.nn.Transformer.generate_square_subsequent_mask(size),
            torch.nn.Transformer.generate_square_subsequent_mask(size),
        )
    same_error(lambda L: L.nn.TransformerEncoderLayer(4, 2, activation="tanh"))


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
@pytest.mark.parametrize(
    "padding",
    [
        [[False, False, True], [False, False, False]],
        [[True, False, False], [False] * 3],
    ],
    ids=["padded_at_the_end", "padded_at_the_start"],
)
def test_encoder_inference_with_padding_matches_torchs_fast_path(padding: Any) -> None:
    """Evaluation without gradients: torch packs padded sequences and returns
    zeros at the padding (only when it is at the end)."""
    torch = require_torch()

    def make(L: Any) -> Any:
        layer = L.nn.TransformerEncoderLayer(4, 2, 6, 0.0, batch_first=True)
        return L.nn.TransformerEncoder(layer, 2, norm=L.nn.LayerNorm(4))

    ours, theirs = _pair(make)
    results = []
    for lib, model in ((st, ours), (torch, theirs)):
        model.eval()
        with lib.no_grad():
            results.append(
                model(
                    _values(lib, (2, 3, 4), 1), src_key_padding_mask=lib.tensor(padding)
                )
            )
    assert_same(results[0], results[1], rtol=1e-4, atol=1e-5)
