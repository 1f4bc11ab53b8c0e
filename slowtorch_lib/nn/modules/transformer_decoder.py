"""``TransformerDecoderLayer``, ``TransformerDecoder`` and ``Transformer``.

A decoder layer is an encoder layer with one more block in the middle:
attention from the target sequence (the queries) to the encoder's output,
``memory`` (the keys and values). With ``norm_first=False``::

    x = norm1(x + dropout1(self_attn(x, x, x)))
    x = norm2(x + dropout2(multihead_attn(x, memory, memory)))
    x = norm3(x + dropout3(linear2(dropout(activation(linear1(x))))))

and with ``norm_first=True`` each block reads ``norm(x)`` and is added to
``x``. ``Transformer`` is an encoder of such layers (each with a final
LayerNorm) feeding a decoder of them, as in "Attention Is All You Need".
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from slowtorch_lib._dtype import dtype as Dtype
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.nn import functional as F
from slowtorch_lib.nn import init
from slowtorch_lib.nn.modules.attention import MultiheadAttention
from slowtorch_lib.nn.modules.container import ModuleList
from slowtorch_lib.nn.modules.dropout import Dropout
from slowtorch_lib.nn.modules.linear import Linear
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.modules.normalization import LayerNorm
from slowtorch_lib.nn.modules.transformer import (
    TransformerEncoder,
    TransformerEncoderLayer,
    _activation_fn,
    _is_causal_mask,
    attend,
    generate_square_subsequent_mask,
)

__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer"]


class TransformerDecoderLayer(Module):
    """Self-attention, attention to ``memory`` and a feed-forward network,
    each with a residual connection and a LayerNorm.

    Args:
        d_model: Size of each position's vector.
        nhead: Number of attention heads.
        dim_feedforward: Width of the feed-forward network's hidden layer.
        dropout: Dropout probability, everywhere in the layer.
        activation: ``"relu"``, ``"gelu"`` or a function (or module).
        layer_norm_eps: The ``eps`` of the three LayerNorms.
        batch_first: Inputs are ``(N, T, E)``, not ``(T, N, E)``.
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
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **made
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **made)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **made)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **made)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **made)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **made)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _activation_fn(activation)
        self.activation = activation

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """One layer on ``tgt``, attending to ``memory``.

        Args:
            tgt: ``(T, N, E)``, ``(N, T, E)`` with ``batch_first``, or ``(T, E)``.
            memory: The encoder's output, ``(S, N, E)`` (or as ``tgt``).
            tgt_mask: ``(T, T)``; True or ``-inf`` hides.
            memory_mask: ``(T, S)``.
            tgt_key_padding_mask: ``(N, T)``; True or ``-inf`` hides a position.
            memory_key_padding_mask: ``(N, S)``.
            tgt_is_causal: A hint that ``tgt_mask`` is the causal mask.
            memory_is_causal: A hint that ``memory_mask`` is the causal mask.
        """
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(
                self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal
            )
            x = x + self._mha_block(
                self.norm2(x),
                memory,
                memory_mask,
                memory_key_padding_mask,
                memory_is_causal,
            )
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(
            x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal)
        )
        x = self.norm2(
            x
            + self._mha_block(
                x, memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
        )
        return self.norm3(x + self._ff_block(x))

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

    def _mha_block(
        self,
        x: Tensor,
        memory: Tensor,
        attn_mask: Tensor | None,
        key_padding_mask: Tensor | None,
        is_causal: bool = False,
    ) -> Tensor:
        """The attention to ``memory`` (before its residual connection)."""
        attention = self.multihead_attn
        x = attend(attention, x, memory, attn_mask, key_padding_mask, is_causal)
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        """The feed-forward block (before its residual connection)."""
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer``, one after the other, each
    attending to the same ``memory``, then ``norm`` if given.

    Args:
        decoder_layer: The layer to copy (each copy has its own weights,
            starting equal to the layer's).
        num_layers: How many copies.
        norm: A final normalisation layer, or None.
    """

    def __init__(
        self,
        decoder_layer: TransformerDecoderLayer,
        num_layers: int,
        norm: Module | None = None,
    ) -> None:
        super().__init__()
        self.layers = ModuleList(
            [copy.deepcopy(decoder_layer) for _ in range(num_layers)]
        )
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """All layers on ``tgt``; the masks are given to each.

        ``tgt_is_causal=None`` checks whether ``tgt_mask`` is the causal mask.
        """
        first: Any = self.layers[0]
        length = tgt._shape[0 if tgt.dim() == 2 else int(first.self_attn.batch_first)]
        causal = _is_causal_mask(tgt_mask, tgt_is_causal, length)
        output = tgt
        for layer in self.layers:
            output = layer(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=causal,
                memory_is_causal=memory_is_causal,
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """The encoder-decoder model: an encoder reads ``src`` into ``memory``,
    and a decoder reads ``tgt`` while attending to it.

    Both stacks end with a LayerNorm. Every weight matrix starts
    Xavier-uniform.

    Args:
        d_model: Size of each position's vector.
        nhead: Number of attention heads.
        num_encoder_layers, num_decoder_layers: The depth of each stack.
        dim_feedforward: Width of the feed-forward networks' hidden layers.
        dropout: Dropout probability, everywhere.
        activation: ``"relu"``, ``"gelu"`` or a function (or module).
        custom_encoder, custom_decoder: Modules used instead of the stacks.
        layer_norm_eps: The ``eps`` of every LayerNorm.
        batch_first: Inputs are ``(N, S, E)``, not ``(S, N, E)``.
        norm_first: LayerNorm before each block instead of after.
        bias: Whether the linear layers and LayerNorms have biases.
    """

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable[[Tensor], Tensor] = F.relu,
        custom_encoder: Any | None = None,
        custom_decoder: Any | None = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        super().__init__()
        made = {"device": device, "dtype": dtype}
        layer: tuple[Any, ...] = (d_model, nhead, dim_feedforward, dropout, activation)
        options: dict[str, Any] = {
            "layer_norm_eps": layer_norm_eps,
            "batch_first": batch_first,
            "norm_first": norm_first,
            "bias": bias,
            **made,
        }
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*layer, **options),
                num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **made),
            )
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*layer, **options),
                num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **made),
            )
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def _reset_parameters(self) -> None:
        """Xavier-uniform for every parameter of two or more dimensions."""
        for parameter in self.parameters():
            if parameter.dim() > 1:
                init.xavier_uniform_(parameter)

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        """Encodes ``src``, then decodes ``tgt`` attending to the encoding.

        Raises:
            RuntimeError: If ``src`` and ``tgt`` have different batch sizes,
                or their last dimension is not ``d_model``.
        """
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.size(batch_dim) != tgt.size(batch_dim):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError(
                "the feature number of src and tgt must be equal to d_model"
            )
        memory = self.encoder(
            src,
            mask=src_mask,
            src_key_padding_mask=src_key_padding_mask,
            is_causal=src_is_causal,
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )
