# ruff: noqa: F821, F811  (setup-cell names; each answer cell imports its own)

# %% [markdown]
# # Chapter 6 exercises: attention
#
# A prediction first (shapes of scores, which mask means what, what a row
# with nowhere to look gives), checked against PyTorch's recorded answers.
# Then two pieces of the engine: the softmax that attention uses and the
# "math" path of `scaled_dot_product_attention`. Each check puts your piece
# **into the engine in place of its own** and runs real attention through
# it, comparing values and gradients with PyTorch's. Then the parts of a
# GPT, which PyTorch does not have: splitting heads, causal self-attention
# written out, a transformer block, the whole model, generation and the
# training loop. Their checks run your code under the engine and the same
# program under PyTorch (with the same weights, set by the check), and
# compare. Keep everything an answer needs inside its cell: the grader runs
# each answer cell on its own.

# %% [markdown]
# ## Exercise 6.1: masks and shapes
#
# `F` is `torch.nn.functional`, `q` is `torch.eye(2)`, `v` is
# `torch.tensor([[1., 2.], [3., 4.]])` and `x` is `torch.ones(1, 2, 2)`.
# Predict each value: shapes as tuples, values as (nested) lists, a NaN as
# `float("nan")`. The last two are a `MultiheadAttention`'s attention
# weights (its second output), shape `(1, 2, 2)`: which key each query
# looks at, whatever the layer's (random) weights.

# %% tags=["exercise-6.1"]
nan = float("nan")
answers_6_1 = {
    "(torch.zeros(2, 4, 5, 8) @ torch.zeros(2, 4, 5, 8)"
    ".transpose(-2, -1)).shape": (2, 4, 5, 5),  # ANSWER
    "F.scaled_dot_product_attention(torch.zeros(2, 4, 5, 8), "
    "torch.zeros(2, 4, 7, 8), torch.zeros(2, 4, 7, 3)).shape": (2, 4, 5, 3),  # ANSWER
    "torch.zeros(2, 6, 12).view(2, 6, 3, 4)"
    ".transpose(1, 2).shape": (2, 3, 6, 4),  # ANSWER
    "torch.ones(3, 3).tril().tolist()":
        [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 1.0]],  # ANSWER
    "(torch.ones(3, 3).triu(diagonal=1) == 1).tolist()":
        [[False, True, True], [False, False, True], [False, False, False]],  # ANSWER
    "torch.zeros(3, 3).masked_fill(torch.ones(3, 3).triu(1) == 1, "
    "float('-inf')).softmax(-1)[1].tolist()": [0.5, 0.5, 0.0],  # ANSWER
    "torch.full((1, 3), float('-inf'))"
    ".softmax(-1).tolist()": [[nan, nan, nan]],  # ANSWER
    "F.scaled_dot_product_attention(q, q, v, "
    "attn_mask=torch.tensor([[True, False], [True, False]])).tolist()":
        [[1.0, 2.0], [1.0, 2.0]],  # ANSWER
    "F.scaled_dot_product_attention(q, q, v, "
    "attn_mask=torch.zeros(2, 2, dtype=torch.bool)).tolist()":
        [[0.0, 0.0], [0.0, 0.0]],  # ANSWER
    "torch.nn.MultiheadAttention(2, 1, batch_first=True)(x, x, x, "
    "key_padding_mask=torch.tensor([[True, False]]))[1].tolist()":
        [[[0.0, 1.0], [0.0, 1.0]]],  # ANSWER
    "torch.nn.MultiheadAttention(2, 1, batch_first=True)(x, x, x, "
    "attn_mask=torch.tensor([[False, True], [False, False]]))[1].tolist()":
        [[[1.0, 0.0], [0.5, 0.5]]],  # ANSWER
    "torch.nn.MultiheadAttention(2, 1, batch_first=True)(x, x, x, attn_mask="
    "torch.tensor([[0., float('-inf')], [0., 0.]]))[1].tolist()":
        [[[1.0, 0.0], [0.5, 0.5]]],  # ANSWER
    "F.scaled_dot_product_attention(torch.zeros(2, 2), torch.zeros(2, 2), v, "
    "is_causal=True).tolist()": [[1.0, 2.0], [2.0, 3.0]],  # ANSWER
    "torch.zeros(2, 5, 12).view(2, 5, 4, 3).transpose(1, 2)"
    ".is_contiguous()": False,  # ANSWER
}

# %% tags=["check-6.1"]
check("6.1", answers_6_1)

# %% [markdown]
# ## Exercise 6.2: a softmax for attention
#
# A query that may look at no key has a row of scores that are all `-inf`,
# and `softmax` gives that row NaN (0 / 0). Attention gives it zeros
# instead: write `safe_softmax(input, dim)`, the softmax along `dim` except
# that a row (along `dim`) of only `-inf` gives zeros. Use tensor operations
# only, so that autograd gives its backward, and make that backward 0 on
# such a row too (no NaN may reach it: think about what softmax's backward
# does with a NaN output). Every `scaled_dot_product_attention` of the
# engine uses your softmax; the fused kernel's cases check its values here,
# and exercise 6.3's cases differentiate through it.


# %% tags=["exercise-6.2"]
def safe_softmax(input, dim):
    """Softmax along dim; a row of only -inf gives zeros, not nan."""
    # BEGIN SOLUTION
    nowhere = (input == float("-inf")).all(dim, keepdim=True)
    weights = input.masked_fill(nowhere, 0.0).softmax(dim)
    return weights.masked_fill(nowhere, 0.0)
    # END SOLUTION


# %% tags=["check-6.2"]
check("6.2", safe_softmax)

# %% [markdown]
# ## Exercise 6.3: the math path
#
# When the fused kernel does not fit (the chapter shows `_fused_kernel_fits`),
# `scaled_dot_product_attention` calls `_composite(query, key, value,
# attn_mask, dropout_p, is_causal, scale, enable_gqa)`, with `scale`
# already a number. Write it in ordinary operations, as PyTorch's does:
#
# - half-precision inputs are computed in float32 and the result converted
#   back to the query's dtype;
# - a bool `attn_mask` becomes `0` where True and `-inf` where False (in the
#   query's dtype); a float mask is added as it is;
# - `is_causal=True` makes the mask `ones(L, S).tril()` (L queries, S keys)
#   and refuses an `attn_mask` given too, with PyTorch's `RuntimeError`:
#   `_scaled_dot_product_attention: Explicit attn_mask should not be set
#   when is_causal=True`;
# - with `enable_gqa` (and 3 or more dimensions), the key and value have
#   fewer heads (dimension -3) than the query: repeat each head in a row
#   (heads `0, 0, 1, 1` for two groups) until they have as many;
# - the scores: `query` times `sqrt(|scale|)` (with the sign of `scale`)
#   `@` the transposed `key` times `sqrt(|scale|)`, plus the mask; then
#   `safe_softmax` along the last dimension (import it from
#   `slowtorch_lib.nn.functional.attention`: your 6.2), dropout if
#   `dropout_p > 0`, and `@ value`.


# %% tags=["exercise-6.3"]
def _composite(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """softmax(query @ key^T * scale + mask) @ value, in ordinary operations."""
    # BEGIN SOLUTION
    import math

    from slowtorch_lib.nn.functional.attention import safe_softmax

    out_dtype = query.dtype
    if query.dtype.itemsize < 4:
        query, key, value = query.float(), key.float(), value.float()
    mask = attn_mask
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be "
                "set when is_causal=True"
            )
        mask = torch.ones(query.shape[-2], key.shape[-2], dtype=torch.bool).tril()
    if mask is not None and mask.dtype == torch.bool:
        blocked = torch.zeros(mask.shape, dtype=query.dtype)
        mask = blocked.masked_fill(~mask, float("-inf"))
    if enable_gqa and query.dim() >= 3:
        def repeated(x):
            *batch, heads, length, size = x.shape
            groups = query.shape[-3] // heads
            x = x.unsqueeze(-3).expand(*batch, heads, groups, length, size)
            return x.reshape(*batch, heads * groups, length, size)

        key, value = repeated(key), repeated(value)
    root = math.sqrt(abs(scale))
    scores = (query * math.copysign(root, scale)) @ (key.transpose(-2, -1) * root)
    if mask is not None:
        scores = scores + mask
    weights = safe_softmax(scores, -1)
    if dropout_p > 0:
        weights = torch.nn.functional.dropout(weights, dropout_p)
    result = weights @ value
    return result if result.dtype == out_dtype else result.to(out_dtype)
    # END SOLUTION


# %% tags=["check-6.3"]
check("6.3", _composite)

# %% [markdown]
# ## Exercise 6.4: splitting heads
#
# Multi-head attention cuts the `C` channels of each position into `heads`
# groups and attends in each group apart. Write `split_heads(x, heads)`:
# `x` of shape `(B, T, C)` as `(B, heads, T, C / heads)`, where head `h`
# holds channels `h * C / heads` to `(h + 1) * C / heads`. Make it a view
# of `x`, whatever `x`'s strides: nothing copied.


# %% tags=["exercise-6.4"]
def split_heads(x, heads):
    """(B, T, C) as (B, heads, T, C / heads): a view."""
    # BEGIN SOLUTION
    batch, length, channels = x.shape
    return x.view(batch, length, heads, channels // heads).transpose(1, 2)
    # END SOLUTION


# %% tags=["check-6.4"]
check("6.4", split_heads)

# %% [markdown]
# ## Exercise 6.5: causal self-attention, written out
#
# The chapter's GPT calls `F.scaled_dot_product_attention(is_causal=True)`.
# Write the attention without it: `CausalSelfAttention(n_embd, n_head,
# block_size)`, a `torch.nn.Module` with
#
# - `qkv`, a `Linear(n_embd, 3 * n_embd, bias=False)` (the queries, keys
#   and values side by side, in that order), and `proj`, a
#   `Linear(n_embd, n_embd)`: the chapter's names, so that the check can
#   load its weights;
# - a bool buffer `mask` of shape `(block_size, block_size)`, True above the
#   diagonal (where a query must not look), registered with
#   `persistent=False` (so not in the `state_dict`);
# - `ValueError` if `n_head` does not divide `n_embd`.
#
# `forward(x)`, for `x` of `(B, T, C)` (a `ValueError` if `T > block_size`):
# the queries,
# keys and values in heads `(B, H, T, C / H)`; the scores `q @ k^T /
# sqrt(C / H)`; `masked_fill` with `-inf` where the mask (its top-left
# `T x T`) is True; softmax along the keys; `@ v`; the heads back side by
# side, `(B, T, C)`; then `proj`.


# %% tags=["exercise-6.5"]
class CausalSelfAttention(torch.nn.Module):
    """Self-attention in heads, each position seeing itself and the earlier ones."""

    def __init__(self, n_embd, n_head, block_size):
        # BEGIN SOLUTION
        super().__init__()
        if n_embd % n_head:
            raise ValueError(f"n_head={n_head} does not divide n_embd={n_embd}")
        self.n_head = n_head
        self.qkv = torch.nn.Linear(n_embd, 3 * n_embd, bias=False)
        self.proj = torch.nn.Linear(n_embd, n_embd)
        above = torch.ones(block_size, block_size).triu(diagonal=1) == 1
        self.register_buffer("mask", above, persistent=False)
        # END SOLUTION

    def forward(self, x):
        # BEGIN SOLUTION
        import math

        B, T, C = x.shape
        if T > self.mask.shape[0]:
            raise ValueError(f"block_size is {self.mask.shape[0]}, x has {T} positions")
        size = C // self.n_head
        q, k, v = [
            part.reshape(B, T, self.n_head, size).transpose(1, 2)
            for part in self.qkv(x).split(C, dim=-1)
        ]
        scores = q @ k.transpose(-2, -1) / math.sqrt(size)
        scores = scores.masked_fill(self.mask[:T, :T], float("-inf"))
        attended = torch.softmax(scores, dim=-1) @ v  # (B, H, T, C / H)
        together = attended.transpose(1, 2).reshape(B, T, C)
        return self.proj(together)
        # END SOLUTION


# %% tags=["check-6.5"]
check("6.5", CausalSelfAttention)

# %% [markdown]
# ## Exercise 6.6 (build): a transformer block
#
# Write `Block(n_embd, n_head, bias=True, causal=True)`, the chapter's block
# made of PyTorch's layers, with the names that
# `torch.nn.TransformerEncoderLayer` gives them, so that a block's
# `state_dict` loads into one:
#
# - `norm1` and `norm2`, `LayerNorm(n_embd)`;
# - `self_attn`, a `MultiheadAttention(n_embd, n_head, batch_first=True)`;
# - `linear1`, `Linear(n_embd, 4 * n_embd)`, and `linear2`, back to
#   `n_embd`;
# - with `bias=False`, none of them has a bias (each takes `bias=bias`).
#
# `forward(x)` for `x` of `(B, T, n_embd)`: pre-norm, two residual
# additions. First the attention of `norm1(x)` to itself, without the
# attention weights (`need_weights=False`), added to `x`; with `causal`,
# position `i` sees positions `0..i` only (mind what True means in a
# `MultiheadAttention` mask), else every position. Then
# `linear2(gelu(linear1(norm2(x))))`, added to that.


# %% tags=["exercise-6.6"]
class Block(torch.nn.Module):
    """A pre-norm transformer block: causal attention, then an MLP."""

    def __init__(self, n_embd, n_head, bias=True, causal=True):
        # BEGIN SOLUTION
        super().__init__()
        nn = torch.nn
        self.causal = causal
        self.norm1 = nn.LayerNorm(n_embd, bias=bias)
        self.norm2 = nn.LayerNorm(n_embd, bias=bias)
        self.self_attn = nn.MultiheadAttention(
            n_embd, n_head, bias=bias, batch_first=True
        )
        self.linear1 = nn.Linear(n_embd, 4 * n_embd, bias=bias)
        self.linear2 = nn.Linear(4 * n_embd, n_embd, bias=bias)
        # END SOLUTION

    def forward(self, x):
        # BEGIN SOLUTION
        T = x.shape[1]
        later = None
        if self.causal:
            later = torch.ones(T, T).triu(diagonal=1) == 1  # True: do not look
        normed = self.norm1(x)
        heard = self.self_attn(
            normed, normed, normed, attn_mask=later, need_weights=False
        )[0]
        x = x + heard
        thought = self.linear1(self.norm2(x))
        return x + self.linear2(torch.nn.functional.gelu(thought))
        # END SOLUTION


# %% tags=["check-6.6"]
check("6.6", Block)

# %% [markdown]
# ## Exercise 6.7 (build): the GPT
#
# Write `GPT(vocab_size, block_size, n_embd, n_head, n_layer)`, a
# `torch.nn.Module` with, in this order:
#
# - `block_size` (the number, kept);
# - `tokens`, an `Embedding(vocab_size, n_embd)`, and `positions`, an
#   `Embedding(block_size, n_embd)`;
# - `blocks`, a `ModuleList` of `n_layer` blocks, each a
#   `torch.nn.TransformerEncoderLayer(n_embd, n_head, 4 * n_embd,
#   dropout=0.0, activation="gelu", batch_first=True, norm_first=True)`
#   (the same block as 6.6);
# - `ln_f`, a `LayerNorm(n_embd)`, and `head`, a `Linear(n_embd,
#   vocab_size)`.
#
# `forward(idx, targets=None)`, for `idx` of `(B, T)` token ids: a
# `ValueError` if `T > block_size`; the token embeddings plus the position
# embeddings of `0..T-1`; each block with the causal mask
# `torch.nn.Transformer.generate_square_subsequent_mask(T)` as `src_mask`
# and `is_causal=True`; `ln_f`; `head`. Return `(logits, loss)`: the loss is
# `None` without targets, else the cross-entropy of the logits as
# `(B * T, vocab_size)` against the targets as `(B * T,)`.
#
# `configure_optimizers(weight_decay, lr, betas=(0.9, 0.95))`: the optimiser
# GPT-2 was trained with, a `torch.optim.AdamW` with learning rate `lr`,
# `betas` and two parameter groups. Weight decay pulls a parameter towards
# zero (chapter 4), which suits the matrices a layer multiplies by, but not
# a LayerNorm's gains (whose neutral value is 1) or a bias. So the first
# group, with `weight_decay`, holds every parameter of two or more
# dimensions (the embeddings and the weight matrices); the second, with
# weight decay 0, holds the rest. Each group keeps the order of
# `parameters()`. The check reads the groups and takes a step with them.


# %% tags=["exercise-6.7"]
class GPT(torch.nn.Module):
    """Token and position embeddings, causal blocks, a score per token."""

    def __init__(self, vocab_size, block_size, n_embd, n_head, n_layer):
        # BEGIN SOLUTION
        super().__init__()
        nn = torch.nn
        self.block_size = block_size
        self.tokens = nn.Embedding(vocab_size, n_embd)
        self.positions = nn.Embedding(block_size, n_embd)
        layers = []
        for _ in range(n_layer):
            layers.append(
                nn.TransformerEncoderLayer(
                    n_embd, n_head, 4 * n_embd, dropout=0.0, activation="gelu",
                    batch_first=True, norm_first=True,
                )
            )
        self.blocks = nn.ModuleList(layers)
        self.ln_f = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab_size)
        # END SOLUTION

    def forward(self, idx, targets=None):
        # BEGIN SOLUTION
        B, T = idx.shape
        if T > self.block_size:
            raise ValueError(f"{T} tokens do not fit a block of {self.block_size}")
        x = self.tokens(idx) + self.positions(torch.arange(T))
        mask = torch.nn.Transformer.generate_square_subsequent_mask(T)
        for block in self.blocks:
            x = block(x, src_mask=mask, is_causal=True)
        logits = self.head(self.ln_f(x))
        if targets is None:
            return logits, None
        scores = logits.view(B * T, -1)
        loss = torch.nn.functional.cross_entropy(scores, targets.view(B * T))
        return logits, loss
        # END SOLUTION

    def configure_optimizers(self, weight_decay, lr, betas=(0.9, 0.95)):
        # BEGIN SOLUTION
        matrices, others = [], []
        for parameter in self.parameters():
            if parameter.dim() >= 2:
                matrices.append(parameter)
            else:
                others.append(parameter)
        groups = [
            {"params": matrices, "weight_decay": weight_decay},
            {"params": others, "weight_decay": 0.0},
        ]
        return torch.optim.AdamW(groups, lr=lr, betas=betas)
        # END SOLUTION


# %% tags=["check-6.7"]
check("6.7", GPT)

# %% [markdown]
# ## Exercise 6.8: generation
#
# Write `generate(model, idx, new_tokens, temperature=1.0, top_k=None,
# generator=None)`: `idx` of `(B, T)` token ids followed by `new_tokens`
# more, each drawn from `model` (which returns `(logits, loss)` and has a
# `block_size`). With autograd off, for each new token:
#
# 1. the model's logits for the last `model.block_size` tokens at most, and
#    of those only the last position's, `(B, vocab)`, divided by
#    `temperature`;
# 2. with `top_k`, every score below the row's k-th largest becomes `-inf`
#    (with `k` at most the vocabulary);
# 3. the softmax of each row, as a Python list `probs`, and for each row in
#    turn the draw `generator.choices(range(vocab), weights=probs)[0]`
#    (`generator` is a `random.Random`; make a `random.Random(0)` if it is
#    None). Python's random numbers are the same under both libraries, so
#    the check can compare your tokens with PyTorch's;
# 4. the picks appended to `idx` as a new column.


# %% tags=["exercise-6.8"]
def generate(model, idx, new_tokens, temperature=1.0, top_k=None, generator=None):
    """idx followed by new_tokens more, each drawn from the model."""
    # BEGIN SOLUTION
    import random

    if generator is None:
        generator = random.Random(0)
    with torch.no_grad():
        for _ in range(new_tokens):
            logits, _ = model(idx[:, -model.block_size :])
            scores = logits[:, -1, :] / temperature
            vocab = scores.shape[-1]
            if top_k is not None:
                kth = torch.topk(scores, min(top_k, vocab), dim=-1).values[:, [-1]]
                scores = scores.masked_fill(scores < kth, float("-inf"))
            rows = torch.softmax(scores, dim=-1).tolist()
            picks = [generator.choices(range(vocab), weights=p)[0] for p in rows]
            idx = torch.cat([idx, torch.tensor([[p] for p in picks])], dim=1)
    return idx
    # END SOLUTION


# %% tags=["check-6.8"]
check("6.8", generate)

# %% [markdown]
# ## Exercise 6.9: the training loop
#
# Write `train(model, batches, steps, lr, grad_clip=None)`: `steps` steps of
# AdamW on `model`. A model that has a `configure_optimizers` method (your
# GPT of 6.7) makes the optimiser: `model.configure_optimizers(0.1, lr)`,
# weight decay 0.1 on its matrices only; for any other model, use
# `torch.optim.AdamW(model.parameters(), lr=lr)` (the other settings
# PyTorch's defaults). Step `i` uses
# `batches[i % len(batches)]`, a pair `(inputs, targets)`, and the model
# returns `(logits, loss)` when given both. Clear the gradients with
# `zero_grad(set_to_none=True)` before each backward; with `grad_clip`,
# clip the gradients' total norm to it (`torch.nn.utils.clip_grad_norm_`)
# between the backward and the step. Return each step's
# loss as a Python float (the loss before that step's update). The check
# trains models the chapter does not (a bigram table, and one
# `TransformerEncoderLayer`) and compares the losses with PyTorch's, step by
# step.


# %% tags=["exercise-6.9"]
def train(model, batches, steps, lr, grad_clip=None):
    """steps steps of AdamW on batches in turn; each step's loss."""
    # BEGIN SOLUTION
    if hasattr(model, "configure_optimizers"):
        optimizer = model.configure_optimizers(0.1, lr)
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    losses = []
    for step in range(steps):
        inputs, targets = batches[step % len(batches)]
        _, loss = model(inputs, targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=grad_clip)
        losses.append(loss.item())
        optimizer.step()
    return losses
    # END SOLUTION


# %% tags=["check-6.9"]
check("6.9", train)

# %% [markdown]
# ## Your GPT
#
# Your pieces now run together, on your engine, as one GPT:
#
# - your `GPT` (6.7) is the model, and its two blocks are your `Block`
#   (6.6);
# - the first block's attention splits its heads with your `split_heads`
#   (6.4) and calls `F.scaled_dot_product_attention` on `(B * H, T, D)`
#   tensors, which runs your `_composite` (6.3), which runs your
#   `safe_softmax` (6.2);
# - the second block's attention is your `CausalSelfAttention` (6.5);
# - your `train` (6.9) trains it for 30 steps on windows of the names, with
#   the AdamW that your GPT's `configure_optimizers` (6.7) makes, and your
#   `generate` (6.8) writes six names with it.
#
# PyTorch trained the same model (the model answers) from the same weights
# on the same batches, and its run is recorded: every step's loss must equal
# PyTorch's to within 1e-5, and the names must be the same. If your curve
# leaves PyTorch's, the cell says which exercise to look at. It prints a
# line every five steps.

# %%
from course import model_runs

yours = {
    "6.2": safe_softmax,
    "6.3": _composite,
    "6.4": split_heads,
    "6.5": CausalSelfAttention,
    "6.6": Block,
    "6.7": GPT,
    "6.8": generate,
    "6.9": train,
}
run = model_runs.train_gpt(
    torch, yours, model_runs.printed_progress, say_missing=True
)
print(run.report())
