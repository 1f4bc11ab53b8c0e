"""Chapter 6: grading-only cases (left out of a student release).

Same form as the public cases in ``ch06.py``; the grader runs both. Most
marks come from ``DRAWN``: shapes, masks (fully masked rows among them),
weights and seeds drawn for each run.
"""

from __future__ import annotations

import random
from typing import Any

from course.checking import Case
from course.checks import drawn as d
from course.checks.ch06 import (
    HIDDEN_ROWS,
    attention,
    causal,
    generated,
    gpt,
    groups_and_step,
    heads_of,
    model_for,
    optimised,
    parts,
    run_module,
    softmax_alone,
    trained,
)


def softmax_alone_twice(torch: Any) -> Any:
    """The hidden rows as columns, then again reversed: a 6 x 4 input."""
    columns = [list(r) for r in zip(*HIDDEN_ROWS)]
    return softmax_alone([*columns, *columns[::-1]], 0)(torch)


CASES = {
    "6.2": [
        Case(
            "the softmax alone along dim 0, a 6 x 4 input with hidden columns",
            softmax_alone_twice,
        ),
        Case(
            "SDPA, batch 2, 3 heads, a mask broadcast over heads",
            attention(((2, 3, 2, 2),) * 3, [[0, 0], [1, 0]]),
        ),
    ],
    "6.3": [
        Case(
            "3-d, 1 query, 4 keys, float mask",
            attention(((2, 1, 3), (2, 4, 3), (2, 4, 3)), [[1, 0, 1, 1]], "float"),
        ),
    ],
    "6.4": [
        Case(
            "a permuted input into 2 heads",
            heads_of(lambda b: b.reshape(4, 3, 2).permute(1, 0, 2), 2),
        ),
    ],
    "6.5": [
        Case(
            "CausalSelfAttention(4, 2, 3) on (1, 3, 4)",
            run_module("CausalSelfAttention", (4, 2, 3), (1, 3, 4), "qkv.weight"),
        ),
    ],
    "6.6": [
        Case("Block(2, 1): causal", causal("Block", (2, 1), (2, 3, 2))),
    ],
    "6.7": [
        Case("GPT(3, 2, 2, 1, 3): three blocks", gpt((3, 2, 2, 1, 3), 2, 2)),
        Case(
            "configure_optimizers(0.0, 1.0), three blocks",
            optimised((3, 2, 2, 1, 3), 0.0, 1.0, betas=(0.5, 0.5)),
        ),
    ],
    "6.8": [
        Case(
            "a bigram model, temperature 0.3, top_k 2",
            generated("bigram", [[6]], 5, 9, top_k=2, temperature=0.3),
        ),
    ],
    "6.9": [
        Case("attention: 3 steps over 2 batches", trained("tiny", 2, 3, 0.03)),
    ],
}


# --- drawn ---------------------------------------------------------------------


def drawn_rows(rng: d.Rng, queries: int, keys: int) -> list[list[int]]:
    """A 0/1 mask, with a fully masked row now and then."""
    rows = [[int(rng.random() < 0.6) for _ in range(keys)] for _ in range(queries)]
    if rng.random() < 0.6:
        rows[rng.randrange(queries)] = [0] * keys
    return rows


def drawn_attention(fused: bool) -> Any:
    """SDPA of drawn shapes and mask: fused (4-d, one head size) or not."""

    def run(torch: Any, rng: d.Rng) -> Any:
        batch, heads = rng.randint(1, 2), rng.randint(1, 3)
        queries, keys, size = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4)
        # not fused: a value size of its own, which only the math path takes
        value = size if fused else rng.choice([size + 1, size - 1 or size + 1])
        if not fused and rng.random() < 0.5:
            shapes = [[batch, queries, size], [batch, keys, size], [batch, keys, value]]
        else:
            shapes = [[batch, heads, n, m] for n, m in
                      ((queries, size), (keys, size), (keys, value))]  # fmt: skip
        q, k, v = (d.leaf(torch, rng, s, low=-1.0, high=1.0) for s in shapes)
        kind = rng.choice(["none", "bool", "float", "causal"])
        mask, causal_flag = None, kind == "causal"
        if kind in ("bool", "float"):
            allowed = torch.tensor(drawn_rows(rng, queries, keys)) == 1
            mask = allowed if kind == "bool" else torch.zeros(
                queries, keys
            ).masked_fill(~allowed, float("-inf"))  # fmt: skip
        out = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, is_causal=causal_flag
        )
        (out * d.tensor(torch, rng, list(out.shape))).sum().backward()
        return out, q.grad, k.grad, v.grad

    return run


def drawn_split(torch: Any, rng: d.Rng) -> Any:
    heads, size = rng.randint(1, 4), rng.randint(1, 3)
    batch, length = rng.randint(1, 3), rng.randint(1, 4)
    base = d.leaf(torch, rng, [batch * length * heads * size])
    if rng.random() < 0.5:
        x = base.reshape(batch, length, heads * size)
    else:
        x = base.reshape(length, batch, heads * size).transpose(0, 1)
    out = parts(torch).split_heads(x, heads)
    found = d.layout(out)
    (out * d.tensor(torch, rng, list(out.shape))).sum().backward()
    found["grad"] = base.grad
    return found


def drawn_weights(torch: Any, rng: d.Rng, model: Any) -> None:
    with torch.no_grad():
        for _, p in sorted(model.named_parameters()):
            p.copy_(d.tensor(torch, rng, list(p.shape), low=-0.3, high=0.3))


def drawn_module(name: str, grads: bool = True) -> Any:
    """A piece module of drawn sizes and weights on a drawn input: its output
    and, with ``grads``, the gradients (which also run the backward pass,
    2.9 and 2.10: one case of three has them)."""

    def run(torch: Any, rng: d.Rng) -> Any:
        heads = rng.randint(1, 3)
        n_embd = heads * rng.randint(2, 3)
        length = rng.randint(1, 5)
        args: tuple[int, ...] = (n_embd, heads, length + rng.randint(0, 2))
        if name == "Block":
            args = (n_embd, heads, rng.random() < 0.7, rng.random() < 0.7)
        m = getattr(parts(torch), name)(*args)
        drawn_weights(torch, rng, m)
        x = d.leaf(torch, rng, [rng.randint(1, 2), length, n_embd], low=-1.0, high=1.0)
        out = m(x)
        if not grads:
            return out
        (out * d.tensor(torch, rng, list(out.shape))).sum().backward()
        return out, x.grad, {n: p.grad for n, p in m.named_parameters()}

    return run


def drawn_gpt(torch: Any, rng: d.Rng, grads: bool = True) -> Any:
    """A GPT of drawn sizes and weights on drawn tokens: logits and loss and,
    with ``grads``, the gradients (which also run the backward pass)."""
    heads = rng.randint(1, 2)
    vocab, block = rng.randint(2, 8), rng.randint(1, 5)
    model = parts(torch).GPT(vocab, block, heads * 2, heads, rng.randint(1, 2))
    drawn_weights(torch, rng, model)
    rows, length = rng.randint(1, 2), rng.randint(1, block)
    idx = torch.tensor(
        [[rng.randrange(vocab) for _ in range(length)] for _ in range(rows)]
    )
    targets = torch.tensor(
        [[rng.randrange(vocab) for _ in range(length)] for _ in range(rows)]
    )
    logits, loss = model(idx, targets)
    if not grads:
        return logits, loss
    loss.backward()
    return logits, loss, {n: p.grad for n, p in model.named_parameters()}


def drawn_gpt_values(torch: Any, rng: d.Rng) -> Any:
    return drawn_gpt(torch, rng, grads=False)


def drawn_optimisers(torch: Any, rng: d.Rng) -> Any:
    heads = rng.randint(1, 2)
    config = (rng.randint(2, 6), rng.randint(1, 4), heads * 2, heads, rng.randint(1, 2))
    model = parts(torch).GPT(*config)
    drawn_weights(torch, rng, model)
    betas = (rng.choice([0.8, 0.9]), rng.choice([0.95, 0.99]))
    decay, lr = rng.choice([0.05, 0.1, 0.3]), rng.choice([0.01, 0.1, 1.0])
    optimizer = model.configure_optimizers(decay, lr, betas=betas)
    return groups_and_step(torch, model, optimizer)


def drawn_generate(torch: Any, rng: d.Rng) -> Any:
    kind = rng.choice(["bigram", "tiny"])
    model = model_for(torch, kind, 7, 4)
    drawn_weights(torch, rng, model)
    length = rng.randint(1, 6)  # every row as long: a ragged list is no tensor
    prompt = [[rng.randrange(7) for _ in range(length)]
              for _ in range(rng.randint(1, 2))]  # fmt: skip
    top_k = rng.choice([None, 1, 2, 4, 9])
    temperature = rng.choice([0.5, 1.0, 1.5])
    return parts(torch).generate(
        model, torch.tensor(prompt), rng.randint(1, 5), temperature=temperature,
        top_k=top_k, generator=random.Random(rng.random()),
    )  # fmt: skip


def drawn_train(torch: Any, rng: d.Rng) -> Any:
    # A bigram table: in a deeper model, a gradient that is 0 but for rounding
    # makes AdamW's first step go either way, and the two libraries apart.
    model = model_for(torch, "bigram", 6, 4)
    drawn_weights(torch, rng, model)
    data = []
    for _ in range(rng.randint(1, 3)):
        rows, length = rng.randint(1, 3), rng.randint(1, 4)
        stream = [[rng.randrange(6) for _ in range(length + 1)] for _ in range(rows)]
        data.append((torch.tensor([s[:-1] for s in stream]),
                     torch.tensor([s[1:] for s in stream])))  # fmt: skip
    steps, lr = rng.randint(1, 5), rng.choice([0.01, 0.03, 0.1])
    clip = rng.choice([None, 0.05, 0.5])
    losses = parts(torch).Trainer.train(model, data, steps, lr, grad_clip=clip)
    return losses, model.table.weight.detach()


DRAWN = {
    "6.2": [
        d.drawn("SDPA, fused: drawn shapes and masks", drawn_attention(True)),
        d.drawn("SDPA, fused (again)", drawn_attention(True)),
        d.drawn("SDPA, fused (a third time)", drawn_attention(True)),
    ],
    "6.3": [
        d.drawn("SDPA, math path: drawn shapes and masks", drawn_attention(False)),
        d.drawn("SDPA, math path (again)", drawn_attention(False)),
        d.drawn("SDPA, math path (a third time)", drawn_attention(False)),
    ],
    "6.4": [
        d.drawn("split_heads of a drawn shape", drawn_split),
        d.drawn("split_heads (again)", drawn_split),
    ],
    "6.5": [
        d.drawn(
            "CausalSelfAttention, drawn sizes and weights",
            drawn_module("CausalSelfAttention"),
        ),
        d.drawn("CausalSelfAttention (again)", drawn_module("CausalSelfAttention")),
    ],  # fmt: skip
    "6.6": [
        d.drawn("Block, drawn sizes and weights", drawn_module("Block", False)),
        d.drawn("Block (again)", drawn_module("Block", False)),
        d.drawn("Block: output and gradients", drawn_module("Block")),
    ],
    "6.7": [
        d.drawn("GPT, drawn sizes, weights and tokens", drawn_gpt),
        d.drawn("GPT (again): logits and loss", drawn_gpt_values),
        d.drawn("configure_optimizers, drawn sizes and settings", drawn_optimisers),
    ],
    "6.8": [
        d.drawn("generate, drawn model, prompt, settings and seed", drawn_generate),
        d.drawn("generate (again)", drawn_generate),
    ],
    "6.9": [
        d.drawn("train, drawn model, batches, steps and lr", drawn_train),
        d.drawn("train (again)", drawn_train),
    ],
}
