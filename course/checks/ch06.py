"""Chapter 6, "Attention": the exercises and their public cases.

The plan (model-answer lines in brackets). The chapter quotes
``scaled_dot_product_attention`` and ``_fused_kernel_fits`` from the engine
(never ``safe_softmax`` or ``_composite``), and its own GPT
(``book/ch06/gpt.py``: ``make_model`` and ``train``), whose attention calls
``F.scaled_dot_product_attention(is_causal=True)``. So the exercises ask
beyond it:

- 6.1 predict, "masks and shapes": the shape of the scores and of the
  output for given ``(B, H, T, D)``; which of ``tril`` and
  ``triu(diagonal=1)`` to pass to ``masked_fill``; a bool mask's True means
  "attend" in ``scaled_dot_product_attention`` but "ignore" in
  ``MultiheadAttention``'s masks; what a fully masked row gives with
  ``masked_fill`` + softmax (nan) and with SDPA (zeros). [14]
- 6.2 piece ``safe_softmax`` (``nn.functional.attention``): softmax along a
  dim, zeros (not nan) for a row of only ``-inf``. [3] Its cases run the
  fused kernel, which uses no other piece of this chapter; 6.3's cases
  differentiate through it.
- 6.3 piece ``_composite`` (``nn.functional.attention``): the "math" path,
  ``softmax(q k^T * scale + mask) v`` with a bool or float ``attn_mask``,
  ``is_causal`` and grouped heads, in ordinary operations. [32]
- 6.4 piece ``split_heads``: ``(B, T, C) -> (B, H, T, C/H)``, a view. [2]
- 6.5 piece ``CausalSelfAttention(n_embd, n_head, block_size)``: one ``qkv``
  Linear, one output Linear (the chapter's names), the attention written
  out with ``masked_fill`` (no SDPA), refusing more positions than the
  block. [22]
- 6.6 build ``Block(n_embd, n_head, bias=True, causal=True)``: pre-norm
  LayerNorm, ``MultiheadAttention`` (causal or not), MLP with GELU, two
  residual additions, with the parameter names of
  ``nn.TransformerEncoderLayer`` (whose state it can load). [21]
- 6.7 build ``GPT(vocab_size, block_size, n_embd, n_head, n_layer)``: token
  and position embeddings, ``n_layer`` causal ``TransformerEncoderLayer``
  blocks, final LayerNorm, head, and with ``targets`` the cross-entropy of
  the flattened logits; ``configure_optimizers``, GPT-2's AdamW with weight
  decay on the matrices and embeddings only. [40] The build of 40 lines.
- 6.8 piece ``generate(model, idx, new_tokens, temperature, top_k,
  generator)``: crop to the block, last position, temperature, top-k
  (``-inf`` elsewhere), softmax, a draw from Python's ``random`` so that
  both libraries agree (the chapter's sampler has neither temperature nor
  top-k). [15]
- 6.9 piece ``train(model, batches, steps, lr, grad_clip=None)``: AdamW (6.7's
  ``configure_optimizers`` when the model has it),
  ``zero_grad(set_to_none=True)``, gradient clipping; the losses compared
  with PyTorch's step by step, on models and data the chapter does not
  use. [15]

Model-answer lines count the lines a student writes (inside the solution
regions, and one per prediction): 164 in all.

PyTorch has no ``CausalSelfAttention``, ``Block``, ``GPT``, ``generate`` or
``train``: the pieces of 6.4-6.9 live in :mod:`course.checks.gpt_parts`,
where the checks put the student's. Drawn grading cases
(``grading_ch06.py``): random ``(B, H, T, D)`` shapes, random masks
(fully masked rows among them), random weights for 6.5-6.7, a random seed
for 6.8 and 6.9, each answer computed outside the sandbox.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from course.checking import Case, Exercise
from course.checks import drawn as d
from course.checks import gpt_parts
from course.checks.ch05 import image, leaf, weighted

TARGETS = "course.checks.gpt_parts"


def parts(torch: Any) -> Any:
    """The GPT's pieces for ``torch`` (the student's, under the engine)."""
    return gpt_parts.under(torch)


def evaluate(text: str) -> Callable[[Any], Any]:
    """``text``'s value under ``torch``, with ``F``, ``x``, ``q`` and ``v``."""

    def run(torch: Any) -> Any:
        names = {"torch": torch, "F": torch.nn.functional}
        names["x"] = torch.ones(1, 2, 2)
        names["q"] = torch.eye(2)
        names["v"] = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        value = eval(text, names)  # noqa: S307  (our own text)
        return value.tolist() if hasattr(value, "tolist") else value

    return run


# --- 6.1 masks and shapes ----------------------------------------------------------

MASKS = [
    "(torch.zeros(2, 4, 5, 8) @ torch.zeros(2, 4, 5, 8).transpose(-2, -1)).shape",
    "F.scaled_dot_product_attention(torch.zeros(2, 4, 5, 8), "
    "torch.zeros(2, 4, 7, 8), torch.zeros(2, 4, 7, 3)).shape",
    "torch.zeros(2, 6, 12).view(2, 6, 3, 4).transpose(1, 2).shape",
    "torch.ones(3, 3).tril().tolist()",
    "(torch.ones(3, 3).triu(diagonal=1) == 1).tolist()",
    "torch.zeros(3, 3).masked_fill(torch.ones(3, 3).triu(1) == 1, "
    "float('-inf')).softmax(-1)[1].tolist()",
    "torch.full((1, 3), float('-inf')).softmax(-1).tolist()",
    "F.scaled_dot_product_attention(q, q, v, "
    "attn_mask=torch.tensor([[True, False], [True, False]])).tolist()",
    "F.scaled_dot_product_attention(q, q, v, "
    "attn_mask=torch.zeros(2, 2, dtype=torch.bool)).tolist()",
    "torch.nn.MultiheadAttention(2, 1, batch_first=True)(x, x, x, "
    "key_padding_mask=torch.tensor([[True, False]]))[1].tolist()",
    "torch.nn.MultiheadAttention(2, 1, batch_first=True)(x, x, x, "
    "attn_mask=torch.tensor([[False, True], [False, False]]))[1].tolist()",
    "torch.nn.MultiheadAttention(2, 1, batch_first=True)(x, x, x, attn_mask="
    "torch.tensor([[0., float('-inf')], [0., 0.]]))[1].tolist()",
    "F.scaled_dot_product_attention(torch.zeros(2, 2), torch.zeros(2, 2), v, "
    "is_causal=True).tolist()",
    "torch.zeros(2, 5, 12).view(2, 5, 4, 3).transpose(1, 2).is_contiguous()",
]

# --- 6.2 and 6.3: attention's softmax and its math path ------------------------------


def node_name(out: Any) -> Any:
    return None if out.grad_fn is None else type(out.grad_fn).__name__


def mask_of(torch: Any, rows: list[list[int]], kind: str) -> Any:
    """A mask from 0/1 rows: bool (1 attends), or float (1 is 0, 0 is -inf)."""
    allowed = torch.tensor(rows) == 1
    if kind == "bool":
        return allowed
    return torch.zeros(len(rows), len(rows[0])).masked_fill(~allowed, float("-inf"))


def attention(
    shapes: tuple[tuple[int, ...], ...],
    rows: list[list[int]] | None = None,
    kind: str = "bool",
    mask_grad: bool = False,
    dtype: str = "float32",
    **settings: Any,
) -> Any:
    """SDPA of q, k, v of ``shapes`` (and a mask from ``rows``): output,
    gradients and the output's node name."""

    def run(torch: Any) -> Any:
        tensors = [leaf(torch, *shape, seed=n) for n, shape in enumerate(shapes)]
        tensors = [
            t.detach().to(getattr(torch, dtype)).requires_grad_() for t in tensors
        ]
        mask = None if rows is None else mask_of(torch, rows, kind)
        if mask is not None and mask_grad:
            mask = mask.requires_grad_()
        out = torch.nn.functional.scaled_dot_product_attention(
            *tensors, attn_mask=mask, **settings
        )
        weighted(out, torch).backward()
        grads = [t.grad for t in tensors]
        if mask is not None and mask_grad:
            grads.append(mask.grad)
        return {"out": out, "node": node_name(out), "grads": grads}

    return run


def softmax_alone(rows: list[list[float]], dim: int) -> Any:
    """The safe softmax of ``rows`` (``inf`` for ``-inf``) along ``dim``, and
    its gradient: PyTorch's ``torch._safe_softmax``, the engine's
    ``safe_softmax`` (called alone, not through attention)."""

    def run(torch: Any) -> Any:
        values = [[-math.inf if v == math.inf else v for v in row] for row in rows]
        x = torch.tensor(values, requires_grad=True)
        if torch.__name__ == "torch":
            y = torch._safe_softmax(x, dim)
        else:
            y = torch.nn.functional.attention.safe_softmax(x, dim)
        weighted(y, torch).backward()
        return {"out": y, "grad": x.grad}

    return run


INF = math.inf
HIDDEN_ROWS = [[INF, INF, INF], [0.5, INF, 1.0], [1.0, -2.0, 0.25], [INF, INF, INF]]

SOFTMAX = [
    Case("SDPA, (1, 2, 3, 4), no mask", attention(((1, 2, 3, 4),) * 3)),
    Case("SDPA, is_causal=True", attention(((2, 1, 4, 3),) * 3, is_causal=True)),
    Case(
        "SDPA, bool mask with a fully masked row",
        attention(((1, 2, 3, 2),) * 3, [[1, 0, 1], [0, 0, 0], [1, 1, 1]]),
    ),
    Case(
        "SDPA, float mask with a row of -inf",
        attention(((1, 1, 3, 4),) * 3, [[0, 0, 0], [1, 1, 0], [1, 0, 1]], "float"),
    ),
    Case(
        "SDPA, 4 queries, 2 keys (a 4 x 2 mask)",
        attention(
            ((1, 2, 4, 3), (1, 2, 2, 3), (1, 2, 2, 3)), [[1, 0], [0, 0], [0, 1], [1, 1]]
        ),
    ),
    Case(
        "SDPA, every row masked",
        attention(((1, 1, 2, 2),) * 3, [[0, 0], [0, 0]]),
    ),
    Case(
        "SDPA, scale=0.25",
        attention(((1, 1, 3, 3),) * 3, scale=0.25),
    ),
    Case(
        "SDPA, one key",
        attention(((2, 2, 3, 2), (2, 2, 1, 2), (2, 2, 1, 2))),
    ),
    Case(
        "the softmax alone, hidden rows (-inf only): values, gradient",
        softmax_alone(HIDDEN_ROWS, -1),
    ),
    Case(
        "the softmax alone along dim 0, hidden columns",
        softmax_alone([list(r) for r in zip(*HIDDEN_ROWS)], 0),
    ),
]


COMPOSITE = [
    Case("SDPA of 3-d inputs (1, 3, 4)", attention(((1, 3, 4),) * 3)),
    Case("3-d, is_causal=True", attention(((2, 4, 3),) * 3, is_causal=True)),
    Case(
        "3-d, bool mask with a fully masked row",
        attention(((1, 3, 2),) * 3, [[1, 1, 0], [0, 0, 0], [0, 1, 1]]),
    ),
    Case(
        "value head size 2, query head size 3",
        attention(((1, 2, 3, 3), (1, 2, 4, 3), (1, 2, 4, 2))),
    ),
    Case(
        "a float mask that requires grad",
        attention(
            ((1, 1, 2, 3), (1, 1, 3, 3), (1, 1, 3, 3)),
            [[1, 1, 0], [1, 1, 1]],
            "float",
            mask_grad=True,
        ),
    ),  # fmt: skip
    Case("scale=-0.5", attention(((1, 3, 2),) * 3, scale=-0.5)),
    Case(
        "grouped heads: 4 query heads, 2 key heads, value size 3",
        attention(((1, 4, 2, 2), (1, 2, 3, 2), (1, 2, 3, 3)), enable_gqa=True),
    ),
    Case(
        "float64 inputs, is_causal, 3 queries, 5 keys",
        attention(((1, 3, 2), (1, 5, 2), (1, 5, 2)), dtype="float64", is_causal=True),
    ),
    Case(
        "2-d inputs (4, 3)",
        attention(((4, 3),) * 3, [[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [1] * 4]),
        convention="2-d inputs are one sequence: (L, E) @ (E, S)",
    ),
    Case(
        "is_causal=True together with attn_mask",
        attention(((1, 2, 2),) * 3, [[1, 1], [1, 1]], is_causal=True),
        convention="the math path refuses a mask with is_causal (RuntimeError)",
    ),
]

# --- 6.4 splitting heads -------------------------------------------------------------


def shares(out: Any, base: Any) -> bool:
    """Whether ``out`` reads ``base``'s storage (a view, not a copy)."""
    return out._base is base


def heads_of(make: Callable[[Any], Any], heads: int) -> Any:
    def run(torch: Any) -> Any:
        base = leaf(torch, 24)
        x = make(base)
        out = parts(torch).split_heads(x, heads)
        found = d.layout(out)
        found["a view of x"] = shares(out, base)
        weighted(out, torch).backward()
        found["grad"] = base.grad
        return found

    return run


HEADS = [
    Case("(2, 3, 4) into 2 heads", heads_of(lambda b: b.reshape(2, 3, 4), 2)),
    Case("(1, 4, 6) into 3 heads", heads_of(lambda b: b.reshape(1, 4, 6), 3)),
    Case("(2, 2, 6) into 1 head", heads_of(lambda b: b.reshape(2, 2, 6), 1)),
    Case("(1, 3, 8) into 8 heads of 1", heads_of(lambda b: b.reshape(1, 3, 8), 8)),
    Case(
        "a transposed input: (3, 2, 4).transpose(0, 1) into 2 heads",
        heads_of(lambda b: b.reshape(3, 2, 4).transpose(0, 1), 2),
    ),
    Case(
        "a slice: (2, 4, 3)[:, 1:] into 3 heads",
        heads_of(lambda b: b.reshape(2, 4, 3)[:, 1:], 3),
    ),
    Case(
        "a strided slice of channels: (2, 2, 6)[..., ::3] into 2 heads",
        heads_of(lambda b: b.reshape(2, 2, 6)[..., ::3], 2),
    ),
    Case(
        "(1, 2, 6) into 4 heads",
        heads_of(lambda b: b[:12].reshape(1, 2, 6), 4),
        convention="heads must divide the channels: view refuses (RuntimeError)",
    ),
]

# --- 6.5 to 6.7: modules -----------------------------------------------------------


def set_weights(torch: Any, model: Any, seed: int = 3, scale: float = 0.2) -> None:
    """Every parameter of ``model`` from ``image`` values, in the order of
    their names (whatever order the layers were made in)."""
    with torch.no_grad():
        for n, (_, p) in enumerate(sorted(model.named_parameters())):
            p.copy_(image(torch, *p.shape, seed=seed + n) * scale)


def run_module(
    name: str, args: tuple[int, ...], shape: tuple[int, ...], *more: str
) -> Any:
    """A piece module with set weights: output, input gradient and the
    gradients of the parameters ``more``."""

    def run(torch: Any) -> Any:
        m = getattr(parts(torch), name)(*args)
        set_weights(torch, m)
        x = leaf(torch, *shape)
        out = m(x)
        weighted(out, torch).backward()
        params = dict(m.named_parameters())
        return {"out": out, "x.grad": x.grad, **{k: params[k].grad for k in more}}

    return run


def described(name: str, *args: int) -> Any:
    def run(torch: Any) -> Any:
        m = getattr(parts(torch), name)(*args)
        shapes = {k: list(v.shape) for k, v in m.state_dict().items()}
        parameters = sum(p.numel() for p in m.parameters())
        return {"state": shapes, "parameters": parameters}

    return run


def causal(name: str, args: tuple[int, ...], shape: tuple[int, ...]) -> Any:
    """Whether changing the last position leaves the earlier outputs as they were."""

    def run(torch: Any) -> Any:
        m = getattr(parts(torch), name)(*args)
        set_weights(torch, m)
        x = image(torch, *shape)
        y = x.clone()
        y[:, -1] = 5.0
        with torch.no_grad():
            before, after = m(x), m(y)
        earlier = bool((before[:, :-1] - after[:, :-1]).abs().max() < 1e-6)
        return {"earlier unchanged": earlier, "last changed": bool(
            (before[:, -1] - after[:, -1]).abs().max() > 1e-3
        )}  # fmt: skip

    return run


def refused(name: str, *args: int) -> Any:
    def run(torch: Any) -> Any:
        getattr(parts(torch), name)(*args)
        return "made"

    return run


ATTENTION = [
    Case(
        "CausalSelfAttention(8, 2, 6) on (2, 5, 8)",
        run_module("CausalSelfAttention", (8, 2, 6), (2, 5, 8), "qkv.weight"),
    ),
    Case(
        "CausalSelfAttention(6, 3, 4) on (1, 4, 6)",
        run_module("CausalSelfAttention", (6, 3, 4), (1, 4, 6), "proj.bias"),
    ),
    Case(
        "CausalSelfAttention(4, 1, 8) on (3, 2, 4)",
        run_module("CausalSelfAttention", (4, 1, 8), (3, 2, 4), "proj.weight"),
    ),
    Case(
        "one position: (2, 1, 8)",
        run_module("CausalSelfAttention", (8, 4, 4), (2, 1, 8)),
    ),
    Case("state_dict and parameters", described("CausalSelfAttention", 8, 2, 6)),
    Case(
        "an output does not depend on later positions",
        causal("CausalSelfAttention", (6, 2, 5), (2, 5, 6)),
    ),
    Case(
        "n_embd=6, n_head=4",
        refused("CausalSelfAttention", 6, 4, 4),
        convention="the heads must split n_embd evenly (ValueError)",
    ),
    Case(
        "6 positions, a block of 4",
        run_module("CausalSelfAttention", (4, 2, 4), (1, 6, 4)),
        convention="more positions than the block: ValueError",
    ),
]

BLOCK = [
    Case(
        "Block(8, 2) on (2, 4, 8)",
        run_module("Block", (8, 2), (2, 4, 8), "linear1.weight"),
    ),
    Case(
        "Block(4, 1) on (1, 3, 4)",
        run_module(
            "Block", (4, 1), (1, 3, 4), "self_attn.in_proj_weight", "norm1.bias"
        ),
    ),
    Case(
        "Block(6, 3) on (2, 2, 6)",
        run_module("Block", (6, 3), (2, 2, 6), "norm2.weight"),
    ),
    Case("one position: (3, 1, 4)", run_module("Block", (4, 2), (3, 1, 4))),
    Case(
        "Block(4, 2, bias=False) on (2, 3, 4)",
        run_module("Block", (4, 2, False), (2, 3, 4), "linear2.weight"),
    ),
    Case("Block(4, 2, bias=False): state_dict", described("Block", 4, 2, False)),
    Case(
        "Block(4, 2, causal=False): every position looks everywhere",
        causal("Block", (4, 2, True, False), (1, 4, 4)),
    ),
    Case("state_dict and parameters", described("Block", 8, 2)),
    Case(
        "an output does not depend on later positions",
        causal("Block", (4, 2), (1, 5, 4)),
    ),
]


def same_as_layer(torch: Any) -> Any:
    """A Block's weights loaded into ``nn.TransformerEncoderLayer``: the same
    output under a causal mask."""
    block = parts(torch).Block(8, 2)
    set_weights(torch, block)
    layer = torch.nn.TransformerEncoderLayer(
        8, 2, 32, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
    )
    layer.load_state_dict(block.state_dict())
    x = image(torch, 2, 4, 8)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    with torch.no_grad():
        gap = (block(x) - layer(x, src_mask=mask, is_causal=True)).abs().max()
    return bool(gap < 1e-5)


BLOCK.append(
    Case("the same as nn.TransformerEncoderLayer(norm_first=True, gelu)", same_as_layer)
)


def tokens(rows: int, length: int, vocab: int, seed: int = 0) -> list[list[int]]:
    return [
        [(i * 5 + j * 3 + seed) % vocab for j in range(length)] for i in range(rows)
    ]


def gpt(config: tuple[int, ...], rows: int, length: int, targets: bool = True) -> Any:
    """A GPT with set weights: logits, loss and the gradients of the
    embeddings and the head."""

    def run(torch: Any) -> Any:
        model = parts(torch).GPT(*config)
        set_weights(torch, model)
        vocab = config[0]
        idx = torch.tensor(tokens(rows, length, vocab))
        if not targets:
            logits, loss = model(idx)
            return {"logits": logits, "loss": loss}
        logits, loss = model(idx, torch.tensor(tokens(rows, length, vocab, 1)))
        loss.backward()
        grads = {n: p.grad for n, p in model.named_parameters()}
        found = {"logits": logits, "loss": loss}
        for name in ("tokens.weight", "positions.weight", "head.weight"):
            found[name] = grads[name]
        return found

    return run


def gpt_described(*config: int) -> Any:
    def run(torch: Any) -> Any:
        model = parts(torch).GPT(*config)
        shapes = {k: list(v.shape) for k, v in model.state_dict().items()}
        return {"state": shapes, "block_size": model.block_size}

    return run


def groups_and_step(torch: Any, model: Any, optimizer: Any) -> dict[str, Any]:
    """The optimiser's kind, each group's parameters (by name) and settings,
    and the weights after one step with every gradient zero: AdamW's step is
    then the weight decay alone."""
    names = {id(p): n for n, p in model.named_parameters()}
    groups = [
        {
            "params": [names.get(id(p), "not the model's") for p in group["params"]],
            "lr": group["lr"],
            "betas": list(group["betas"]),
            "weight_decay": group["weight_decay"],
        }
        for group in optimizer.param_groups
    ]
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    optimizer.step()
    weights = {n: p.detach() for n, p in model.named_parameters()}
    return {"kind": type(optimizer).__name__, "groups": groups, "after": weights}


def optimised(
    config: tuple[int, ...], weight_decay: float, lr: float, **betas: Any
) -> Any:
    """``GPT.configure_optimizers``: its groups, and a step with them."""

    def run(torch: Any) -> Any:
        model = parts(torch).GPT(*config)
        set_weights(torch, model)
        optimizer = model.configure_optimizers(weight_decay, lr, **betas)
        return groups_and_step(torch, model, optimizer)

    return run


GPT = [
    Case("GPT(7, 6, 8, 2, 1): logits, loss, gradients", gpt((7, 6, 8, 2, 1), 2, 6)),
    Case("GPT(5, 4, 4, 1, 2): two blocks", gpt((5, 4, 4, 1, 2), 1, 4)),
    Case("fewer tokens than the block", gpt((6, 8, 8, 4, 1), 2, 3)),
    Case("no targets: the loss is None", gpt((7, 6, 8, 2, 1), 2, 5, targets=False)),
    Case("one token", gpt((4, 3, 4, 2, 1), 3, 1)),
    Case("state_dict", gpt_described(5, 4, 4, 2, 2)),
    Case(
        "7 tokens in a block of 6", gpt((7, 6, 8, 2, 1), 1, 7, targets=False)
    ),  # fmt: skip
    Case(
        "configure_optimizers(0.1, 0.01): groups, and a step without gradients",
        optimised((5, 4, 4, 2, 1), 0.1, 0.01),
    ),
    Case(
        "configure_optimizers(0.5, 0.1, betas=(0.8, 0.9)), two blocks",
        optimised((5, 4, 4, 1, 2), 0.5, 0.1, betas=(0.8, 0.9)),
    ),
]

# --- 6.8 generation -----------------------------------------------------------------


def model_for(torch: Any, kind: str, vocab: int, block: int) -> Any:
    if kind == "bigram":
        model = parts(torch).Bigram(vocab, block)
        set_weights(torch, model, scale=1.0)
    else:
        model = parts(torch).Tiny(vocab, block, 8)
        set_weights(torch, model)
    return model


def generated(
    kind: str, prompt: list[list[int]], new: int, seed: int = 0, block: int = 4,
    **settings: Any,
) -> Any:  # fmt: skip
    def run(torch: Any) -> Any:
        model = model_for(torch, kind, 7, block)
        idx = torch.tensor(prompt)
        out = parts(torch).generate(
            model, idx, new, generator=random.Random(seed), **settings
        )
        return out

    return run


GENERATE = [
    Case("a bigram model, 6 new tokens", generated("bigram", [[0]], 6)),
    Case("temperature=0.5", generated("bigram", [[1, 2]], 6, 1, temperature=0.5)),
    Case("temperature=3.0", generated("bigram", [[3]], 5, 2, temperature=3.0)),
    Case("top_k=1: always the best", generated("bigram", [[4]], 5, top_k=1)),
    Case("top_k=3", generated("bigram", [[0], [5]], 6, 3, top_k=3)),
    Case(
        "attention, prompt longer than the block",
        generated("tiny", [[1, 2, 3, 4, 5, 6]], 4, 4),
    ),
    Case(
        "attention, two prompts, top_k=2, temperature=0.7",
        generated("tiny", [[0, 1], [2, 3]], 5, 5, top_k=2, temperature=0.7),
    ),
    Case(
        "top_k larger than the vocabulary",
        generated("bigram", [[2]], 4, 6, top_k=10),
        convention="top_k beyond the vocabulary keeps every token",
    ),
    Case(
        "new_tokens=0",
        generated("bigram", [[1, 2]], 0),
        convention="no new token: the prompt as it was",
    ),  # fmt: skip
]

# --- 6.9 training ------------------------------------------------------------------


def batches(torch: Any, count: int, rows: int, length: int, vocab: int) -> Any:
    found = []
    for n in range(count):
        stream = tokens(rows, length + 1, vocab, seed=n)
        inputs = torch.tensor([row[:-1] for row in stream])
        found.append((inputs, torch.tensor([row[1:] for row in stream])))
    return found


def trained(
    kind: str, count: int, steps: int, lr: float, rows: int = 2, length: int = 4,
    clip: float | None = None,
) -> Any:  # fmt: skip
    def run(torch: Any) -> Any:
        model = model_for(torch, kind, 6, 4)
        data = batches(torch, count, rows, length, 6)
        more = {} if clip is None else {"grad_clip": clip}
        losses = parts(torch).Trainer.train(model, data, steps, lr, **more)
        first = next(iter(model.parameters()))
        return {"losses": losses, "first parameter": first.detach(),
                "types": sorted({type(v).__name__ for v in losses})}  # fmt: skip

    return run


TRAIN = [
    Case("a bigram model: 5 steps, lr 0.1", trained("bigram", 2, 5, 0.1)),
    Case("a bigram model: 8 steps over 3 batches", trained("bigram", 3, 8, 0.05)),
    Case("attention: 4 steps, lr 0.01", trained("tiny", 2, 4, 0.01)),
    Case("attention: 6 steps over 1 batch", trained("tiny", 1, 6, 0.02, rows=3)),
    Case("a bigram model, batches of 1 row", trained("bigram", 4, 4, 0.3, rows=1)),
    Case("lr=0: the losses of one batch repeat", trained("bigram", 1, 3, 0.0)),
    Case("one step", trained("tiny", 3, 1, 0.1)),
    Case("grad_clip=0.05, a bigram model", trained("bigram", 2, 5, 0.1, clip=0.05)),
    Case("grad_clip=0.5, attention", trained("tiny", 2, 3, 0.01, clip=0.5)),
    Case(
        "steps=0",
        trained("bigram", 2, 0, 0.1),
        convention="no step: no loss, the model as it was",
    ),
]

EXERCISES = {
    "6.1": Exercise(
        "6.1",
        "masks and shapes",
        "answers_6_1",
        "predict",
        [Case(text, evaluate(text)) for text in MASKS],
        [
            "Shapes as tuples, values as (nested) lists, nan as float('nan'). q is "
            "torch.eye(2), v is [[1., 2.], [3., 4.]], x is torch.ones(1, 2, 2).",
            "The scores are (..., L, S): one per query and key. masked_fill puts "
            "-inf where its mask is True, so a causal mask is True above the "
            "diagonal; a row of only -inf has no softmax (0 / 0).",
            "In scaled_dot_product_attention a bool mask says where to look (True) "
            "and a row with nowhere to look gives zeros; in MultiheadAttention True "
            "says what to ignore.",
        ],
    ),
    "6.2": Exercise(
        "6.2",
        "attention's softmax",
        "safe_softmax",
        "piece",
        SOFTMAX,
        [
            "Start from the softmax along dim (input.softmax(dim)): only the rows "
            "of only -inf need more.",
            "A row of only -inf: its maximum along dim (keepdim=True) is -inf. Find "
            "those rows first.",
            "Put 0 where the row is all -inf (torch.where or masked_fill, with the "
            "row mask broadcast along dim): tensor operations, so that autograd "
            "gives the backward.",
        ],
        target="slowtorch_lib.nn.functional.attention.safe_softmax",
        forbidden=("_safe_softmax_row",),
        # the engine's softmax with its all -inf rows (nan) set to zero
        not_to_use=("nan_to_num", "nan_to_num_"),
        what="attentions",
    ),
    "6.3": Exercise(
        "6.3",
        "attention's math path",
        "_composite",
        "piece",
        COMPOSITE,
        [
            "scores = query @ key^T * scale; add the mask; safe_softmax along the "
            "last dimension; @ value.",
            "A bool mask becomes 0 where True and -inf where False; is_causal makes "
            "that mask from ones(L, S).tril(), and refuses a mask given as well.",
            "With enable_gqa, repeat each key and value head (dim -3) in a row "
            "(unsqueeze, expand, reshape) until there are as many as the query's. "
            "Compute in float32 for half precision and convert back.",
        ],
        target="slowtorch_lib.nn.functional.attention._composite",
        what="attentions",
    ),
    "6.4": Exercise(
        "6.4",
        "splitting heads",
        "split_heads",
        "piece",
        HEADS,
        [
            "The result is (B, heads, T, C // heads): the channels of each position "
            "cut into heads, then the heads moved before the positions.",
            "x.view(B, T, heads, C // heads) cuts the last dimension (a view for "
            "any strides: cutting a dimension never needs a copy).",
            "Then .transpose(1, 2): a view too. No reshape or contiguous: no copy.",
        ],
        target=f"{TARGETS}.split_heads",
        what="splits",
    ),
    "6.5": Exercise(
        "6.5",
        "causal self-attention",
        "CausalSelfAttention",
        "piece",
        ATTENTION,
        [
            "__init__: check the heads, then qkv = Linear(n_embd, 3 * n_embd, "
            "bias=False), proj = Linear(n_embd, n_embd), and a bool buffer "
            "(persistent=False) True above the diagonal of (block_size, block_size).",
            "forward: qkv(x) split into q, k, v of C each, each as (B, H, T, C/H); "
            "scores = q @ k^T / sqrt(C/H), (B, H, T, T).",
            "masked_fill the scores with -inf where the mask's top-left (T, T) is "
            "True, softmax on the last dimension, @ v, heads back side by side "
            "(transpose, reshape), proj.",
        ],
        target=f"{TARGETS}.CausalSelfAttention",
        what="attention layers",
    ),
    "6.6": Exercise(
        "6.6",
        "build: a transformer block",
        "Block",
        "piece",
        BLOCK,
        [
            "Five layers, with TransformerEncoderLayer's names: norm1, self_attn "
            "(MultiheadAttention, batch_first=True), norm2, linear1 (to 4 * n_embd), "
            "linear2 (back); each with bias=bias.",
            "Attention first: h = norm1(x); x + self_attn(h, h, h, attn_mask=..., "
            "need_weights=False)[0]. The mask is True where a query must not look; "
            "without causal, no mask.",
            "Then x + linear2(gelu(linear1(norm2(x)))): each part is added to what "
            "goes in (pre-norm).",
        ],
        target=f"{TARGETS}.Block",
        what="blocks",
    ),
    "6.7": Exercise(
        "6.7",
        "build: the GPT",
        "GPT",
        "piece",
        GPT,
        [
            "__init__: block_size, tokens and positions (Embedding), blocks (a "
            "ModuleList of n_layer TransformerEncoderLayers), ln_f and head.",
            "forward: refuse more tokens than block_size; x = tokens(idx) + "
            "positions(arange(T)); each block with a causal src_mask and "
            "is_causal=True; logits = head(ln_f(x)).",
            "With targets: cross_entropy of the logits viewed as (B * T, vocab) "
            "against the targets as (B * T,); without: None.",
            "configure_optimizers: sort self.parameters() by p.dim() >= 2 into two "
            "lists; AdamW([{'params': ..., 'weight_decay': weight_decay}, "
            "{'params': ..., 'weight_decay': 0.0}], lr=lr, betas=betas).",
        ],
        target=f"{TARGETS}.GPT",
        what="GPTs",
    ),
    "6.8": Exercise(
        "6.8",
        "generation",
        "generate",
        "piece",
        GENERATE,
        [
            "For each new token, under torch.no_grad(): the model's logits for the "
            "last block_size tokens, and only the last position's, divided by the "
            "temperature.",
            "top_k: the k-th largest score of each row (topk); every score below it "
            "becomes -inf.",
            "softmax, then for each row in turn generator.choices(range(vocab), "
            "weights=probs)[0]; append the picks as a column (torch.cat).",
        ],
        target=f"{TARGETS}.generate",
        what="generations",
        stretch=True,
    ),
    "6.9": Exercise(
        "6.9",
        "the training loop",
        "train",
        "piece",
        TRAIN,
        [
            "One optimiser, made once, before the loop: model.configure_optimizers"
            "(0.1, lr) if the model has that method, else AdamW(model.parameters(), "
            "lr=lr).",
            "Step i uses batches[i % len(batches)]; the model returns (logits, loss) "
            "when given targets.",
            "zero_grad(set_to_none=True), backward, clip_grad_norm_ when grad_clip "
            "is set, keep loss.item(), step.",
        ],
        target=f"{TARGETS}.Trainer.train",
        what="trainings",
    ),
}
