"""``MultiheadAttention``: attention with learned projections, in heads.

The layer holds the weights; :func:`.multi_head_attention_forward` does
the computation. Parameter names and their initial values are PyTorch's,
so that a ``state_dict`` moves between the two libraries either way:

* ``in_proj_weight`` ``(3 * embed_dim, embed_dim)``: the query, key and
  value projections stacked (xavier-uniform), or, when ``kdim`` or
  ``vdim`` differ from ``embed_dim``, ``q_proj_weight``, ``k_proj_weight``
  and ``v_proj_weight`` apart;
* ``in_proj_bias`` ``(3 * embed_dim,)`` and ``out_proj.bias``: zeros;
* ``out_proj.weight``: a ``Linear``'s;
* ``bias_k`` and ``bias_v`` ``(1, 1, embed_dim)`` with ``add_bias_kv``
  (xavier-normal).
"""

from __future__ import annotations

from typing import Any

from slowtorch_lib._creation import empty
from slowtorch_lib._dtype import dtype as Dtype
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.nn import init
from slowtorch_lib.nn.functional.multi_head_attention import (
    canonical_mask,
    multi_head_attention_forward,
)
from slowtorch_lib.nn.modules.linear import Linear
from slowtorch_lib.nn.modules.module import Module
from slowtorch_lib.nn.parameter import Parameter

__all__ = ["MultiheadAttention", "NonDynamicallyQuantizableLinear"]


class NonDynamicallyQuantizableLinear(Linear):
    """A ``Linear`` under the name PyTorch gives ``out_proj`` (it marks the
    layer for PyTorch's quantisation tools; here it is only a name)."""


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim // num_heads`` each.

    Args:
        embed_dim: Size of each query vector, and of the output.
        num_heads: Number of heads; must divide ``embed_dim``.
        dropout: Dropout on the attention weights while training.
        bias: Whether the projections have biases.
        add_bias_kv: Add a learned key and value to every sequence.
        add_zero_attn: Add a key and value of zeros to every sequence.
        kdim: Size of each key vector (``embed_dim`` by default).
        vdim: Size of each value vector (``embed_dim`` by default).
        batch_first: Inputs and outputs are ``(N, L, E)``, not ``(L, N, E)``.

    Raises:
        ValueError: If ``embed_dim`` or ``num_heads`` is not positive.
        AssertionError: If ``num_heads`` does not divide ``embed_dim``.
    """

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Dtype | None = None,
    ) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                "embed_dim and num_heads must be greater than 0, got "
                f"embed_dim={embed_dim} and num_heads={num_heads} instead"
            )
        super().__init__()
        made = {"device": device, "dtype": dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty(3 * embed_dim, embed_dim, **made))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(empty(embed_dim, embed_dim, **made))
            self.k_proj_weight = Parameter(empty(embed_dim, self.kdim, **made))
            self.v_proj_weight = Parameter(empty(embed_dim, self.vdim, **made))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **made))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(
            embed_dim, embed_dim, bias=bias, **made
        )
        self.bias_k: Parameter | None
        self.bias_v: Parameter | None
        if add_bias_kv:
            self.bias_k = Parameter(empty(1, 1, embed_dim, **made))
            self.bias_v = Parameter(empty(1, 1, embed_dim, **made))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """PyTorch's initial values (see the module's description)."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        """Attends from ``query`` to ``key``, mixing ``value``.

        Args:
            query: ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or ``(L, E)``.
            key: ``(S, N, kdim)``, ordered as ``query``.
            value: ``(S, N, vdim)``, ordered as ``query``.
            key_padding_mask: ``(N, S)``; True (or ``-inf``) hides a key.
            need_weights: Also return the attention weights.
            attn_mask: ``(L, S)`` or ``(N * num_heads, L, S)``; True (or
                ``-inf``) hides a key from a query.
            average_attn_weights: Average the returned weights over heads.
            is_causal: A hint that ``attn_mask`` is the causal mask.

        Returns:
            The output, shaped as ``query``, and the weights or None.
        """
        batched = query.dim() == 3
        key_padding_mask = canonical_mask(
            key_padding_mask,
            "key_padding_mask",
            None if attn_mask is None else attn_mask.dtype,
            "attn_mask",
            query.dtype,
        )
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if self.batch_first and batched:
            query, key, value = _sequence_first(query, key, value)
        separate = not self._qkv_same_embed_dim
        out, weights = multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=separate,
            q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )
        if self.batch_first and batched:
            return out.transpose(1, 0), weights
        return out, weights


def _sequence_first(
    query: Tensor, key: Tensor, value: Tensor
) -> tuple[Tensor, Tensor, Tensor]:
    """``(N, L, E)`` to ``(L, N, E)``, keeping which inputs are the same
    tensor (self-attention projects them with one product)."""
    if key is value:
        if query is key:
            query = key = value = query.transpose(1, 0)
        else:
            query, key = query.transpose(1, 0), key.transpose(1, 0)
            value = key
        return query, key, value
    return query.transpose(1, 0), key.transpose(1, 0), value.transpose(1, 0)
