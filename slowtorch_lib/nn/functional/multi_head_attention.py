"""``multi_head_attention_forward``: what ``nn.MultiheadAttention`` computes.

The query, key and value are projected (one weight matrix holding all
three, ``in_proj_weight``, or three apart when key and value have other
sizes), cut into ``num_heads`` heads of ``embed_dim // num_heads`` (a
view: the reshape and transpose of chapter 1), attended head by head, and
the heads' outputs are joined and projected once more (``out_proj``).

Masks follow ``nn.MultiheadAttention``'s convention, the opposite of
``scaled_dot_product_attention``'s: a True in a bool mask *hides* a key.
Both are turned into numbers to add (``-inf`` where hidden) first.

Sequences come first, ``(L, N, E)``; the module transposes a batch-first
input before calling this. Without ``need_weights`` the heads go through
:func:`scaled_dot_product_attention` (fused, on a CPU, as in PyTorch);
with it, through explicit products and a softmax, whose weights are
returned (averaged over heads by default). A query that may see no key
gives zeros in the first case and ``nan`` in the second, as in PyTorch.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import zeros, zeros_like
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.nn.functional.activation import softmax
from slowtorch_lib.nn.functional.attention import scaled_dot_product_attention
from slowtorch_lib.nn.functional.layers import dropout, linear, pad
from slowtorch_lib.ops.joining import cat
from slowtorch_lib.ops.linalg import bmm

__all__ = ["multi_head_attention_forward"]


def canonical_mask(
    mask: Tensor | None,
    mask_name: str,
    other_type: dtypes.dtype | None,
    other_name: str,
    target_type: dtypes.dtype,
    check_other: bool = True,
) -> Tensor | None:
    """A bool mask as a float one: ``-inf`` where True (hidden), else 0.

    Raises:
        AssertionError: For a mask neither bool nor floating point.
    """
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype is not dtypes.bool_ and not is_float:
        raise AssertionError(
            f"only bool and floating types of {mask_name} are supported"
        )
    if check_other and other_type is not None and mask.dtype is not other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. "
            "Use same type for both instead.",
            UserWarning,
            stacklevel=3,
        )
    if is_float:
        return mask
    return zeros_like(mask, dtype=target_type).masked_fill_(mask, -math.inf)


def _check_shapes(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    num_heads: int,
) -> bool:
    """PyTorch's checks of the ranks; whether the input is a batch."""
    if query.dim() not in (2, 3):
        raise AssertionError(
            "query should be unbatched 2D or batched 3D tensor but received "
            f"{query.dim()}-D query tensor"
        )
    batched = query.dim() == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be "
            f"{query.dim()}-D but found {key.dim()}-D and {value.dim()}-D tensors "
            "respectively"
        )
    wanted = 2 if batched else 1
    if key_padding_mask is not None and key_padding_mask.dim() != wanted:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
            f"{wanted}-D but found {key_padding_mask.dim()}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                f"but found {attn_mask.dim()}-D tensor instead"
            )
        expected = (num_heads, query._shape[0], key._shape[0])
        if not batched and attn_mask.dim() == 3 and attn_mask._shape != expected:
            raise AssertionError(
                f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
            )
    return batched


def _project(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    weights: tuple[Tensor, Tensor, Tensor] | Tensor,
    bias: Tensor | None,
) -> tuple[Tensor, Tensor, Tensor]:
    """The three input projections: one product when all three are one input,
    two when the key is the value (attention to an encoder's output)."""
    biases: tuple[Any, ...] = (None, None, None)
    if bias is not None:
        biases = bias.chunk(3)
    if isinstance(weights, Tensor):
        if query is key and key is value:
            q, k, v = linear(query, weights, bias).chunk(3, -1)
            return q.contiguous(), k.contiguous(), v.contiguous()
        if key is value:
            return _project_key_value(query, key, weights, bias)
        weights = weights.chunk(3)  # type: ignore[assignment]
    w_q, w_k, w_v = weights
    return (
        linear(query, w_q, biases[0]),
        linear(key, w_k, biases[1]),
        linear(value, w_v, biases[2]),
    )


def _project_key_value(
    query: Tensor, memory: Tensor, weights: Tensor, bias: Tensor | None
) -> tuple[Tensor, Tensor, Tensor]:
    """The query's projection, then the key's and value's in one product."""
    embed = weights._shape[0] // 3
    w_q, w_kv = weights.split([embed, 2 * embed])
    b_q, b_kv = bias.split([embed, 2 * embed]) if bias is not None else (None, None)
    k, v = linear(memory, w_kv, b_kv).chunk(2, -1)
    return linear(query, w_q, b_q), k.contiguous(), v.contiguous()


def _check_attn_mask(attn_mask: Tensor, target: int, source: int, heads: int) -> Tensor:
    """A 2-d mask gets a batch dimension; a 3-d one must have one per head."""
    if attn_mask.dim() == 2:
        if attn_mask._shape != (target, source):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                f"{(target, source)}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if attn_mask._shape != (heads, target, source):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(heads, target, source)}."
            )
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention on ``(L, N, E)`` inputs (or ``(L, E)`` unbatched).

    Returns:
        The output ``(L, N, E)`` and, with ``need_weights``, the attention
        weights ``(N, L, S)`` (``(N, num_heads, L, S)`` without
        ``average_attn_weights``), else None.

    Raises:
        AssertionError: For shapes or masks that do not fit, as PyTorch's.
        RuntimeError: For ``is_causal`` without a mask, or a mask of the
            wrong shape.
        NotImplementedError: For ``static_k`` or ``static_v``.
    """
    if static_k is not None or static_v is not None:
        raise NotImplementedError("static_k and static_v are not supported")
    batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    target, batch, embed_dim = query._shape
    key_padding_mask = canonical_mask(
        key_padding_mask,
        "key_padding_mask",
        None if attn_mask is None else attn_mask.dtype,
        "attn_mask",
        query.dtype,
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the "
            "Transformer module method `generate_square_subsequent_mask` to create "
            "this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # scaled_dot_product_attention makes the causal mask
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got "
            f"{embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(
            f"embed_dim {embed_dim} not divisible by num_heads {num_heads}"
        )
    if use_separate_proj_weight:
        if key._shape[:2] != value._shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match "
                f"value's {value.shape[:2]}"
            )
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError(
                "use_separate_proj_weight is True but a weight is None"
            )
        q, k, v = _project(
            query,
            key,
            value,
            (q_proj_weight, k_proj_weight, v_proj_weight),
            in_proj_bias,
        )
    else:
        if key._shape != value._shape:
            raise AssertionError(
                f"key shape {key.shape} does not match value shape {value.shape}"
            )
        if in_proj_weight is None:
            raise AssertionError(
                "use_separate_proj_weight is False but in_proj_weight is None"
            )
        q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias)
    source = key._shape[0]
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, target, source, batch * num_heads)
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k and bias_v must be both set or both None")
    if bias_k is not None and bias_v is not None:  # one more key: the learned bias
        k = cat([k, bias_k.repeat(1, batch, 1)])
        v = cat([v, bias_v.repeat(1, batch, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    heads = batch * num_heads
    # Heads as views: (L, N, E) -> (L, N * heads, head_dim) -> (N * heads, L, hd).
    q = q.view(target, heads, head_dim).transpose(0, 1)
    k = k.view(k._shape[0], heads, head_dim).transpose(0, 1)
    v = v.view(v._shape[0], heads, head_dim).transpose(0, 1)
    if add_zero_attn:  # one more key and value, of zeros
        k = cat([k, zeros(heads, 1, head_dim, dtype=k.dtype)], dim=1)
        v = cat([v, zeros(heads, 1, head_dim, dtype=v.dtype)], dim=1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    source = k._shape[1]
    if key_padding_mask is not None:
        attn_mask = _merge_padding(
            key_padding_mask, attn_mask, batch, num_heads, source
        )
    if not training:
        dropout_p = 0.0
    if need_weights:
        return _with_weights(
            q,
            k,
            v,
            attn_mask,
            dropout_p,
            out_proj_weight,
            out_proj_bias,
            (target, batch, embed_dim, num_heads, source),
            average_attn_weights,
            batched,
        )
    if attn_mask is not None:
        if attn_mask._shape[0] == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(batch, num_heads, -1, source)
    q = q.view(batch, num_heads, target, head_dim)
    k = k.view(batch, num_heads, source, head_dim)
    v = v.view(batch, num_heads, source, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(batch * target, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(target, batch, out._shape[1])
    return (out if batched else out.squeeze(1)), None


def _merge_padding(
    key_padding_mask: Tensor,
    attn_mask: Tensor | None,
    batch: int,
    num_heads: int,
    source: int,
) -> Tensor:
    """The padding mask ``(N, S)`` repeated for each head and added to the
    attention mask."""
    if key_padding_mask._shape[0] != batch:
        raise AssertionError(
            f"Expected key_padded_mask.shape[0] to be {batch}, but got "
            f"{key_padding_mask._shape[0]}"
        )
    if key_padding_mask._shape[1] != source:
        raise AssertionError(
            f"Expected key_padded_mask.shape[1] to be {source}, but got "
            f"{key_padding_mask._shape[1]}"
        )
    padding = key_padding_mask.view(batch, 1, 1, source)
    padding = padding.expand(-1, num_heads, -1, -1).reshape(
        batch * num_heads, 1, source
    )
    return padding if attn_mask is None else attn_mask + padding


def _with_weights(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    attn_mask: Tensor | None,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    sizes: tuple[int, int, int, int, int],
    average_attn_weights: bool,
    batched: bool,
) -> tuple[Tensor, Tensor]:
    """Attention written out, keeping the weights ``softmax(q k^T / sqrt(d))``."""
    target, batch, embed_dim, num_heads, source = sizes
    scores = bmm(q * math.sqrt(1.0 / float(q._shape[-1])), k.transpose(-2, -1))
    if attn_mask is not None:
        scores = attn_mask + scores
    weights = softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = dropout(weights, p=dropout_p)
    out = bmm(weights, v).transpose(0, 1).reshape(target * batch, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    out = out.view(target, batch, out._shape[1])
    weights = weights.view(batch, num_heads, target, source)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    if not batched:
        return out.squeeze(1), weights.squeeze(0)
    return out, weights
