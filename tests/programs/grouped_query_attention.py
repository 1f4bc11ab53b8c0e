"""Grouped-query attention as recent small language models write it: fewer
key and value heads than query heads, each repeated with
``repeat_interleave`` to serve a group of query heads."""

from __future__ import annotations

from typing import Any


def run(torch: Any) -> dict[str, Any]:
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(5)
    batch, steps, heads, kv_heads, size = 2, 5, 4, 2, 8
    query = nn.Linear(heads * size, heads * size)
    key = nn.Linear(heads * size, kv_heads * size)
    value = nn.Linear(heads * size, kv_heads * size)
    x = torch.randn(batch, steps, heads * size, requires_grad=True)
    q = query(x).view(batch, steps, heads, size).transpose(1, 2)
    k = key(x).view(batch, steps, kv_heads, size).transpose(1, 2)
    v = value(x).view(batch, steps, kv_heads, size).transpose(1, 2)
    k = k.repeat_interleave(heads // kv_heads, dim=1)
    v = v.repeat_interleave(heads // kv_heads, dim=1)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    out = out.transpose(1, 2).reshape(batch, steps, heads * size)
    out.pow(2).mean().backward()
    return {
        "out": out[0, -1, :6].tolist(),
        "grad": x.grad[1, 0, :6].tolist(),
        "key grad": key.weight.grad[0, :4].tolist(),
        "grad_fn": k.grad_fn.name(),
    }
