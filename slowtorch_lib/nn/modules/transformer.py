"""``TransformerEncoderLayer`` and ``TransformerEncoder``: attention, then a
feed-forward network, each wrapped in a residual connection and LayerNorm.
(The decoder and the whole encoder-decoder ``Transformer`` build on these,
in :mod:`.transformer_decoder`.)

One layer computes, with ``norm_first=False`` (the original Transformer)::

    x = norm1(x + dropout1(self_attn(x, x, x)))
    x = norm2(x + dropout2(linear2(dropout(activation(linear1(x))))))

and with ``norm_first=True`` (as in GPT-2) it normalises before each block
instead: ``x = x + block(norm(x))``.

PyTorch also has a fused "fast path" for inference (evaluation mode and no
gradients); it computes the same numbers, and so does the ordinary path
here, with one visible difference that this engine reproduces: an encoder
given a ``src_key_padding_mask`` there (batch first, sequences padded at
the end) packs the sequences without their padding ("nested tensors") and
returns zeros at the padded positions, before its final ``norm``.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

from slowtorch_lib._creation import full
from slowtorch_lib._dtype import dtype as Dtype
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.grad_mode import is_grad_enabled
from slowtorch_lib.nn import functional as F
from slowtorch_lib.nn.functional.multi_head_attention import canonical_mask
from slowtorch_lib.nn.modules.activation import GELU, ReLU
from slowtorch_lib.nn.modules.attention import MultiheadAttention
from slowtorch_lib.nn.modules.container import ModuleList
from slowtorch_lib.nn.modules.dropout import Dropout
from slowtorch_lib.nn.modules.linear import Linear
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.modules.normalization import LayerNorm

__all__ = [
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "generate_square_subsequent_mask",
]


def generate_square_subsequent_mask(
    sz: int, device: Any = None, dtype: Dtype | None = None
) -> Tensor:
    """The causal mask of ``sz`` positions: 0 on and below the diagonal,
    ``-inf`` above it (position ``i`` may look at ``0..i``)."""
    return full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)


def _activation_fn(activation: str) -> Callable[[Tensor], Tensor]:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward network, with residuals and norms.

    Args:
        d_model: Size of each position's vector.
        nhead: Number of attention heads.
        dim_feedforward: Width of the feed-forward network's hidden layer.
        dropout: Dropout probability, everywhere in the layer.
        activation: ``"relu"``, ``"gelu"`` or a function (or module).
        layer_norm_eps: The ``eps`` of both LayerNorms.
        batch_first: Inputs are ``(N, S, E)``, not ``(S, N, E)``.
        norm_first: LayerNorm before each block (pre-norm) instead of after.
        bias: Whether the linear layers and LayerNorms have biases.

    Raises:
        RuntimeError: For an activation name other than relu or gelu.
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = F.relu,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__()
        made = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **made
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **made)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **made)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **made)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **made)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _activation_fn(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        """One layer on ``src``.

        Args:
            src: ``(S, N, E)``, ``(N, S, E)`` with ``batch_first``, or ``(S, E)``.
            src_mask: ``(S, S)`` (or one per head); True or ``-inf`` hides.
            src_key_padding_mask: ``(N, S)``; True or ``-inf`` hides a position.
            is_causal: A hint that ``src_mask`` is the causal mask.
        """
        src_key_padding_mask = canonical_mask(
            src_key_padding_mask,
            "src_key_padding_mask",
            None if src_mask is None else src_mask.dtype,
            "src_mask",
            src.dtype,
        )
        src_mask = canonical_mask(src_mask, "src_mask", None, "", src.dtype, False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(
                self.norm1(x), src_mask, src_key_padding_mask, is_causal
            )
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(
        self,
        x: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        """The self-attention block (before its residual connection)."""
        x = attend(self.self_attn, x, x, attn_mask, key_padding_mask, is_causal)
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        """The feed-forward block (before its residual connection)."""
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


def attend(
    attention: MultiheadAttention,
    x: Tensor,
    memory: Tensor,
    attn_mask: Tensor | None,
    key_padding_mask: Tensor | None,
    is_causal: bool,
) -> Tensor:
    """What ``attention`` makes of ``x`` attending to ``memory`` (the keys
    and values), without the attention weights."""
    return attention(
        x,
        memory,
        memory,
        attn_mask=attn_mask,
        key_padding_mask=key_padding_mask,
        need_weights=False,
        is_causal=is_causal,
    )[0]


def _why_no_nested_tensor(layer: Module) -> str:
    """Why PyTorch would not use nested tensors for a stack of ``layer``
    (its warning names the reason), or "" if it would."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attention = layer.self_attn
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not attention.batch_first:
        return (
            f"{name}.self_attn.batch_first was not True(use batch_first for better "
            "inference performance)"
        )
    if not attention._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if attention.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if attention.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer``, one after the other, then
    ``norm`` if given.

    Args:
        encoder_layer: The layer to copy (each copy has its own weights,
            starting equal to the layer's).
        num_layers: How many copies.
        norm: A final normalisation layer, or None.
        enable_nested_tensor: Accepted; PyTorch's inference speed-up for
            padded batches, which this engine does not have. PyTorch warns
            when it cannot use it, and so does this.
        mask_check: Accepted, for the same speed-up.
    """

    def __init__(
        self,
        encoder_layer: TransformerEncoderLayer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = ModuleList(
            [copy.deepcopy(encoder_layer) for _ in range(num_layers)]
        )
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(
                "enable_nested_tensor is True, but self.use_nested_tensor is False "
                f"because {why_not}",
                UserWarning,
                stacklevel=2,
            )
            self.use_nested_tensor = False

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        """All layers on ``src``; the masks are given to each.

        ``is_causal=None`` checks whether ``mask`` is the causal mask.
        """
        src_key_padding_mask = canonical_mask(
            src_key_padding_mask,
            "src_key_padding_mask",
            None if mask is None else mask.dtype,
            "mask",
            src.dtype,
        )
        mask = canonical_mask(mask, "mask", None, "", src.dtype, False)
        first: Any = self.layers[0]
        length = src._shape[0 if src.dim() == 2 else int(first.self_attn.batch_first)]
        causal = _is_causal_mask(mask, is_causal, length)
        output = src
        for layer in self.layers:
            output = layer(
                output,
                src_mask=mask,
                is_causal=causal,
                src_key_padding_mask=src_key_padding_mask,
            )
        if _packs_sequences(self, src, mask, src_key_padding_mask):
            assert src_key_padding_mask is not None  # checked by _packs_sequences
            padded = src_key_padding_mask.ne(0).unsqueeze(-1)
            output = output.masked_fill(padded, 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


def _packs_sequences(
    encoder: TransformerEncoder,
    src: Tensor,
    mask: Tensor | None,
    padding: Tensor | None,
) -> bool:
    """Whether PyTorch would run ``encoder`` on nested tensors (see the module)."""
    first: Any = encoder.layers[0]
    if not encoder.use_nested_tensor or first.training or padding is None:
        return False
    if src.dim() != 3 or mask is not None:
        return False
    if encoder.mask_check and not _padded_at_the_end(padding):
        return False
    tensors = [src, *first.parameters()]
    return not (is_grad_enabled() and any(t.requires_grad for t in tensors))


def _padded_at_the_end(padding: Tensor) -> bool:
    """Whether in each row the kept positions (0) come before the padded ones."""
    for row in (padding != 0).tolist():
        if any(row[i] and not row[i + 1] for i in range(len(row) - 1)):
            return False
    return True


def _is_causal_mask(mask: Tensor | None, is_causal: bool | None, size: int) -> bool:
    """``is_causal`` if given; otherwise whether ``mask`` is the causal mask."""
    if is_causal is not None or mask is None:
        return is_causal is True
    causal = generate_square_subsequent_mask(size, dtype=mask.dtype)
    if mask._shape != causal._shape:
        return False
    return bool((mask == causal).all())
