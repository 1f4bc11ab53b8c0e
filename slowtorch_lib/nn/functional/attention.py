"""Scaled dot-product attention: ``softmax(Q K^T * scale + mask) V``.

Each query row asks every key row how well they match (a dot product);
the softmax of the scores, row by row, is a weighted average of the value
rows. ``scale`` is ``1 / sqrt(head_dim)`` by default, so that the scores
of long vectors do not push the softmax into saturation.

PyTorch has two ways to compute it on a CPU, and the graph shows which
one ran:

* The fused kernel (``ScaledDotProductFlashAttentionForCpuBackward0``):
  one node for the whole computation, chosen when the inputs are 4-d
  ``(batch, heads, length, head_dim)`` with one head size, no dropout, and
  a mask that needs no gradient. Here it is :class:`ScaledDotProductFlash
  AttentionForCpu`, whose forward and backward are written out below.
* The composite "math" version, written in ordinary operations (the last
  node is the final matrix product's), for everything else.

A row whose every key is masked out gives zeros in both (PyTorch 2.13's
``_safe_softmax``), not the ``nan`` that ``softmax`` of ``-inf`` gives.
"""

from __future__ import annotations

import math
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._creation import ones, zeros
from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd.function import Function, FunctionCtx
from slowtorch_lib.nn.functional.activation import Softmax, _softmax_row
from slowtorch_lib.nn.functional.layers import dropout
from slowtorch_lib.ops.autocast import lower_precision
from slowtorch_lib.ops.linalg import matmul
from slowtorch_lib.ops.selecting import where

__all__ = ["scaled_dot_product_attention"]


# ----------------------------------------------------------------------
# The softmax of attention: a fully masked row gives zeros
# ----------------------------------------------------------------------


def _safe_softmax_row(row: list[float]) -> list[float]:
    """Softmax of one row; zeros where every score is ``-inf``."""
    if max(row) == -math.inf:
        return [0.0] * len(row)
    return _softmax_row(row)


class SafeSoftmax(Softmax):
    """Softmax along ``dim`` (PyTorch's ``_safe_softmax``): softmax's forward
    with the row function it is given, and softmax's backward,
    y * (G - sum(G * y)), which is zero on a row of zeros."""


def safe_softmax(input: Tensor, dim: int) -> Tensor:
    """Softmax along ``dim``; a row of only ``-inf`` gives zeros, not nan."""
    dim = dim % max(input.dim(), 1)
    return SafeSoftmax.apply(input, dim=dim, row=_safe_softmax_row)


# ----------------------------------------------------------------------
# The fused kernel: one node, its forward and backward side by side
# ----------------------------------------------------------------------


def _repeat_heads(x: Tensor, groups: int) -> Tensor:
    """Each head (dim -3) of ``(..., H, S, D)`` repeated ``groups`` times in
    a row: heads ``0, 0, 1, 1`` for two groups."""
    if groups == 1:
        return x
    *batch, h, s, d = x._shape
    stretched = x.unsqueeze(-3).expand(*batch, h, groups, s, d)
    return stretched.reshape(*batch, h * groups, s, d)


def _sum_heads(x: Tensor, groups: int) -> Tensor:
    """The gradient of :func:`_repeat_heads`: each group of heads summed."""
    if groups == 1:
        return x
    b, h, s, d = x._shape
    return x.reshape(b, h // groups, groups, s, d).sum(2)


class ScaledDotProductFlashAttentionForCpu(Function):
    """``O = P V`` with ``P = safe_softmax(scale * Q K^T + mask)``, one node.

    With ``G`` the gradient of ``O`` and ``S`` the scores before the
    softmax:

    * dV = P^T G and dP = G V^T (the two sides of a matrix product);
    * dS = P * (dP - sum(dP * P)) along each row (softmax's rule);
    * dQ = scale * dS K and dK = scale * dS^T Q.

    With grouped keys and values (fewer heads than the query) each key
    head serves ``groups`` query heads, and its gradient sums theirs.
    """

    @staticmethod
    def forward(
        ctx: FunctionCtx,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        *,
        mask: Tensor | None,
        scale: float,
        groups: int,
    ) -> Tensor:
        out_dtype = query.dtype
        if query.dtype.itemsize < 4:  # half precision is computed in float32
            query, key, value = (t.float() for t in (query, key, value))
        keys, values = _repeat_heads(key, groups), _repeat_heads(value, groups)
        scores = matmul(query, keys.transpose(-2, -1)) * scale
        if mask is not None:
            scores = scores + mask
        weights = safe_softmax(scores, -1)
        ctx.scale, ctx.groups = scale, groups
        ctx.save_for_backward(query, key, value, weights)
        return matmul(weights, values).to(out_dtype)

    @staticmethod
    def backward(ctx: FunctionCtx, grad_output: Tensor) -> tuple[Any, Any, Any]:
        query, key, value, weights = ctx.saved_tensors
        keys = _repeat_heads(key, ctx.groups)
        values = _repeat_heads(value, ctx.groups)
        grad = grad_output.to(query.dtype)
        grad_values = matmul(weights.transpose(-2, -1), grad)
        grad_weights = matmul(grad, values.transpose(-2, -1))
        row_sums = (grad_weights * weights).sum(-1, keepdim=True)
        grad_scores = weights * (grad_weights - row_sums) * ctx.scale
        grad_query = matmul(grad_scores, keys)
        grad_keys = matmul(grad_scores.transpose(-2, -1), query)
        return (
            grad_query.to(grad_output.dtype),
            _sum_heads(grad_keys, ctx.groups).to(grad_output.dtype),
            _sum_heads(grad_values, ctx.groups).to(grad_output.dtype),
        )


# ----------------------------------------------------------------------
# Checking the arguments, and choosing as PyTorch chooses
# ----------------------------------------------------------------------


def _check_inputs(
    query: Any, key: Any, value: Any, attn_mask: Any, dropout_p: float
) -> None:
    """PyTorch's refusals, before any computation."""
    for position, (name, tensor) in enumerate(
        (("query", query), ("key", key), ("value", value)), start=1
    ):
        if not isinstance(tensor, Tensor):
            raise TypeError(
                f"scaled_dot_product_attention(): argument '{name}' (position "
                f"{position}) must be Tensor, not {type(tensor).__name__}"
            )
    if attn_mask is not None and not isinstance(attn_mask, Tensor):
        raise TypeError(
            "scaled_dot_product_attention(): argument 'attn_mask' must be Tensor, "
            f"not {type(attn_mask).__name__}"
        )
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got "
            f"query.dtype: {query.dtype.cpp_type_name} key.dtype: "
            f"{key.dtype.cpp_type_name} and value.dtype: "
            f"{value.dtype.cpp_type_name} instead."
        )
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, "
            f"but got query.dim: {query.dim()} key.dim: {key.dim()} and "
            f"value.dim: {value.dim()} instead."
        )
    allowed = (dtypes.bool_, dtypes.float32, query.dtype)
    if attn_mask is not None and attn_mask.dtype not in allowed:
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, "
            f"but got attn_mask.dtype: {attn_mask.dtype.cpp_type_name} and  "
            f"query.dtype: {query.dtype.cpp_type_name} instead."
        )
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"expected scalar type Float but found {query.dtype.c_name}")
    if dropout_p > 1:
        raise RuntimeError(
            f"dropout probability has to be between 0 and 1, but got {dropout_p}"
        )


def _fused_kernel_fits(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None,
    dropout_p: float,
    enable_gqa: bool,
) -> bool:
    """Whether PyTorch 2.13 on a CPU runs its fused kernel for these inputs."""
    if dropout_p > 0 or not query.dim() == key.dim() == value.dim() == 4:
        return False
    batch, heads, length, head_dim = query._shape
    if key._shape[0] != batch or value._shape[0] != batch:
        return False
    if key._shape[1] != value._shape[1]:
        return False
    if key._shape[1] != heads and not (enable_gqa and heads % key._shape[1] == 0):
        return False
    if key._shape[-1] != head_dim or value._shape[-1] != head_dim:
        return False
    if 0 in (length, key._shape[2]):
        return False
    if any(t.stride(-1) != 1 for t in (query, key, value)):
        return False
    return attn_mask is None or _mask_fits(attn_mask, query, key)


def _mask_fits(mask: Tensor, query: Tensor, key: Tensor) -> bool:
    """A mask the fused kernel takes: no gradient, 2-d or 4-d, broadcastable."""
    if mask.requires_grad or mask.dim() not in (2, 4):
        return False
    if mask._shape[-2] not in (1, query._shape[2]):
        return False
    if mask._shape[-1] not in (1, key._shape[2]):
        return False
    if mask.dim() == 4:
        return mask._shape[0] in (1, query._shape[0]) and mask._shape[1] in (
            1,
            query._shape[1],
        )
    return True


def _additive_mask(mask: Tensor, dtype: dtypes.dtype) -> Tensor:
    """A bool mask as numbers to add: 0 where True (attend), ``-inf`` where False."""
    if mask.dtype is not dtypes.bool_:
        return mask
    return where(mask, zeros((), dtype=dtype), -math.inf)


def _causal_mask(length: int, source: int, dtype: dtypes.dtype) -> Tensor:
    """0 on and below the diagonal, ``-inf`` above: row i sees keys 0..i."""
    return _additive_mask(ones(length, source, dtype=dtypes.bool_).tril(), dtype)


# ----------------------------------------------------------------------
# The function
# ----------------------------------------------------------------------


@lower_precision
def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """``softmax(query @ key^T * scale + mask) @ value``, over the last two dims.

    Args:
        query: ``(..., L, E)``.
        key: ``(..., S, E)``.
        value: ``(..., S, Ev)``.
        attn_mask: Broadcasts to ``(..., L, S)``. A bool mask says where a
            query may look (True); a float mask is added to the scores.
        dropout_p: Probability of dropping each attention weight.
        is_causal: Query ``i`` sees keys ``0..i`` only.
        scale: Multiplies the scores; ``1 / sqrt(E)`` by default.
        enable_gqa: Let the key and value have fewer heads (dim -3) than
            the query, each serving a group of query heads.

    Returns:
        ``(..., L, Ev)``. A query row that may see no key gives zeros.

    Raises:
        TypeError: If ``query``, ``key``, ``value`` or ``attn_mask`` is not
            a tensor.
        RuntimeError: For mismatched dtypes, inputs of fewer than 2
            dimensions, a mask dtype other than bool, float or the query's,
            a mask together with ``is_causal`` (where PyTorch refuses it)
            or a dropout probability above 1.
    """
    _check_inputs(query, key, value, attn_mask, dropout_p)
    if scale is None:
        scale = 1.0 / math.sqrt(query._shape[-1])
    if _fused_kernel_fits(query, key, value, attn_mask, dropout_p, enable_gqa):
        return _fused(query, key, value, attn_mask, dropout_p, is_causal, scale)
    return _composite(
        query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa
    )


def _fused(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None,
    dropout_p: float,
    is_causal: bool,
    scale: float,
) -> Tensor:
    """The fused kernel's path (``ScaledDotProductFlashAttentionForCpuBackward0``)."""
    if dropout_p < 0:
        raise RuntimeError(
            "scaled_dot_product_attention_flash_attention: Currently do not "
            "support dropout > 0"
        )
    work = dtypes.float32 if query.dtype.itemsize < 4 else query.dtype
    mask = None if attn_mask is None else _additive_mask(attn_mask, work)
    if is_causal:  # the kernel applies both the causal mask and attn_mask
        causal = _causal_mask(query._shape[-2], key._shape[-2], work)
        mask = causal if mask is None else mask + causal
    return ScaledDotProductFlashAttentionForCpu.apply(
        query,
        key,
        value,
        mask=None if mask is None else mask.detach(),
        scale=scale,
        groups=query._shape[1] // key._shape[1],
    )


def _composite(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None,
    dropout_p: float,
    is_causal: bool,
    scale: float,
    enable_gqa: bool,
) -> Tensor:
    """The "math" path, step by step in ordinary operations, as PyTorch's.

    Query and key are each scaled by ``sqrt(scale)`` before the product,
    which keeps the scores' magnitude in range; half precision works in
    float32 and converts back at the end (``ToCopyBackward0``).
    """
    out_dtype = query.dtype
    if query.dtype.itemsize < 4:
        query, key, value = query.float(), key.float(), value.float()
    mask = None if attn_mask is None else _additive_mask(attn_mask, out_dtype)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be "
                "set when is_causal=True"
            )
        mask = _causal_mask(query._shape[-2], key._shape[-2], query.dtype)
    if enable_gqa and query.dim() >= 3:
        heads = query._shape[-3]
        if heads % key._shape[-3] or heads % value._shape[-3]:
            raise RuntimeError(
                "Number of heads in key and value must divide the number of heads in "
            )
        key = _repeat_heads(key, heads // key._shape[-3])
        value = _repeat_heads(value, heads // value._shape[-3])
    root = math.sqrt(abs(scale))
    scores = matmul(query * math.copysign(root, scale), key.transpose(-2, -1) * root)
    if mask is not None:
        scores = scores + mask
    weights = safe_softmax(scores, -1)
    if dropout_p > 0:
        weights = dropout(weights, dropout_p)
    result = matmul(weights, value)
    return result if result.dtype is out_dtype else result.to(out_dtype)
