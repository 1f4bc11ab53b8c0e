"""``F.scaled_dot_product_attention`` beyond the op table: refusals, dtypes,
dropout, fully masked rows, and which node PyTorch 2.13 records.

Values and gradients of the main forms (fused and composite, masks, causal,
grouped heads) are rows of :mod:`tests.op_table`.
"""

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, require_torch, same_error


def _sdpa(L: Any, *args: Any, **kwargs: Any) -> Any:
    return L.nn.functional.scaled_dot_product_attention(*args, **kwargs)


def _qkv(L: Any, shape: tuple[int, ...] = (1, 2, 3, 4), dtype: str = "float32") -> Any:
    count = 1
    for size in shape:
        count *= size
    base = L.arange(count, dtype=getattr(L, dtype)).reshape(shape)
    return (base / count).sin(), (base / 3).cos(), (base / 5).sin()


def test_constants_are_pythons_floats() -> None:
    torch = require_torch()
    for name in ("inf", "nan", "pi", "e"):
        ours, theirs = getattr(st, name), getattr(torch, name)
        assert type(ours) is type(theirs) is float
        assert repr(ours) == repr(theirs)


REFUSALS = {
    "query_not_tensor": lambda L: _sdpa(L, [1.0], *_qkv(L)[1:]),
    "mask_not_tensor": lambda L: _sdpa(L, *_qkv(L), attn_mask=[[True]]),
    "dtypes_differ": lambda L: _sdpa(L, _qkv(L)[0], *_qkv(L, dtype="float64")[1:]),
    "one_dimensional": lambda L: _sdpa(L, L.ones(4), L.ones(4), L.ones(4)),
    "mask_dtype": lambda L: _sdpa(L, *_qkv(L), attn_mask=L.ones(3, 3, dtype=L.long)),
    "mask_double_for_float": lambda L: _sdpa(
        L, *_qkv(L), attn_mask=L.zeros(3, 3, dtype=L.float64)
    ),
    "integer_inputs": lambda L: _sdpa(L, *[L.ones(1, 2, 3, 4, dtype=L.long)] * 3),
    "dropout_above_one": lambda L: _sdpa(L, *_qkv(L), dropout_p=1.5),
    "dropout_negative_fused": lambda L: _sdpa(L, *_qkv(L), dropout_p=-0.1),
    "causal_and_mask_composite": lambda L: _sdpa(
        L, *_qkv(L, (2, 3, 4)), attn_mask=L.ones(3, 3) > 0, is_causal=True
    ),
    "grouped_heads_do_not_divide": lambda L: _sdpa(
        L, _qkv(L, (1, 4, 3, 2))[0], *_qkv(L, (1, 3, 3, 2))[1:], enable_gqa=True
    ),
    "head_sizes_do_not_fit": lambda L: _sdpa(L, _qkv(L)[0], *_qkv(L, (1, 2, 3, 5))[1:]),
    "too_many_positional": lambda L: _sdpa(L, *_qkv(L), None, 0.0, False, 0.3),
}


@pytest.mark.parametrize("case", REFUSALS.values(), ids=REFUSALS.keys())
def test_refusals_match_torch(case: Any) -> None:
    same_error(case, match_message=case is not REFUSALS["too_many_positional"])


def test_fully_masked_rows_give_zeros_on_both_paths() -> None:
    torch = require_torch()
    for shape in ((1, 2, 3, 4), (2, 3, 4)):  # fused, composite

        def run(L: Any, shape: tuple[int, ...] = shape) -> Any:
            q, k, v = (t.requires_grad_() for t in _qkv(L, shape))
            mask = L.tensor([[True, True, False], [False] * 3, [True] * 3])
            out = _sdpa(L, q, k, v, attn_mask=mask)
            out.sum().backward()
            return out, q.grad

        (ours, ours_grad), (theirs, theirs_grad) = run(st), run(torch)
        assert_same(ours, theirs)
        assert_same(ours_grad, theirs_grad)
        assert ours[..., 1, :].abs().sum().item() == 0.0


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(1, 2, 3, 4), (2, 3, 4)], ids=["fused", "composite"])
def test_half_precision_is_computed_in_float32(dtype: str, shape: Any) -> None:
    torch = require_torch()

    def run(L: Any) -> Any:
        q, k, v = (t.to(getattr(L, dtype)).requires_grad_() for t in _qkv(L, shape))
        out = _sdpa(L, q, k, v, is_causal=True)
        out.sum().backward()
        return out, q.grad

    (ours, ours_grad), (theirs, theirs_grad) = run(st), run(torch)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert_same(ours, theirs, rtol=1e-2, atol=1e-2)
    assert_same(ours_grad, theirs_grad, rtol=2e-2, atol=2e-2)


NODES = {
    "fused_4d": ((1, 2, 3, 4), {}),
    "mask_3d_composite": ((1, 2, 3, 4), {"attn_mask": "3d"}),
    "mask_4d_fused": ((1, 2, 3, 4), {"attn_mask": "4d"}),
    "dropout_composite": ((1, 2, 3, 4), {"dropout_p": 0.5}),
    "strided_query_composite": ((1, 2, 3, 4), {"transposed": True}),
    "batch_broadcast_composite": ((1, 2, 3, 4), {"broadcast": True}),
}


@pytest.mark.parametrize(("shape", "options"), NODES.values(), ids=NODES.keys())
def test_the_node_torch_records(shape: Any, options: dict[str, Any]) -> None:
    torch = require_torch()

    def run(L: Any) -> Any:
        q, k, v = (t.requires_grad_() for t in _qkv(L, shape))
        kwargs: dict[str, Any] = {"dropout_p": options.get("dropout_p", 0.0)}
        if options.get("attn_mask") == "3d":
            kwargs["attn_mask"] = L.ones(2, 3, 3) > 0
        if options.get("attn_mask") == "4d":
            kwargs["attn_mask"] = L.ones(1, 2, 3, 3) > 0
        if options.get("transposed"):
            q = q.detach().transpose(-1, -2).contiguous().transpose(-1, -2)
            q.requires_grad_()
        if options.get("broadcast"):
            q = q.expand(2, *shape[1:])
        return _sdpa(L, q, k, v, **kwargs).grad_fn.name()

    assert run(st) == run(torch)


def test_dropout_zeroes_and_rescales() -> None:
    st.manual_seed(0)
    q, k, v = _qkv(st)
    weights_kept = _sdpa(st, q, k, st.eye(3).expand(1, 2, 3, 3), dropout_p=0.5)
    # With the identity as values, the output is the dropped attention weights:
    # each either 0 or twice the weight without dropout.
    plain = _sdpa(st, q, k, st.eye(3).expand(1, 2, 3, 3))
    for kept, weight in zip(weights_kept.flatten().tolist(), plain.flatten().tolist()):
        assert kept == 0.0 or abs(kept - 2 * weight) < 1e-6
    assert 0.0 in weights_kept.flatten().tolist()
