"""Chapter 6's tiny GPT, piece by piece: where exercises 6.4-6.9 put theirs.

PyTorch has no ``CausalSelfAttention``, no GPT and no ``generate``, so the
engine has none either: these pieces live here, the checks' own, and a check
puts the student's piece in place of the one here (as chapter 4's check does
with ``Loop.train``). The file is written as a notebook cell is, against the
name ``torch``. Imported, it uses the engine; :func:`under` runs the same
text with another library in the engine's place, which is how
``python -m course.record`` gets PyTorch's answers. Standard library only.
"""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

#: The library: the engine, unless :func:`under` runs this text with another.
torch: Any = globals().get("torch") or importlib.import_module("slowtorch_lib")

_UNDER: dict[str, Any] = {}


def under(library: Any) -> Any:
    """This module's pieces for ``library``: the module itself for the engine
    (so that the pieces a check put in are the ones used), else the same text
    run with ``library`` as ``torch``."""
    if library is torch:
        return sys.modules[__name__]
    name = library.__name__
    if name not in _UNDER:
        namespace = {"torch": library, "__name__": f"{__name__}:{name}"}
        source = Path(__file__).read_text("utf-8")
        exec(compile(source, __file__, "exec"), namespace)  # noqa: S102
        _UNDER[name] = SimpleNamespace(**namespace)
    return _UNDER[name]


# --- 6.4 heads ---------------------------------------------------------------------


def split_heads(x: Any, heads: int) -> Any:
    """``(B, T, C)`` as ``(B, heads, T, C / heads)``: a view."""
    batch, length, channels = x.shape
    return x.view(batch, length, heads, channels // heads).transpose(1, 2)


# --- 6.5 causal self-attention ----------------------------------------------------


class CausalSelfAttention(torch.nn.Module):
    """Self-attention in heads, each position seeing itself and the earlier
    ones, written out with ``masked_fill``."""

    def __init__(self, n_embd: int, n_head: int, block_size: int) -> None:
        super().__init__()
        if n_embd % n_head:
            raise ValueError(f"n_embd={n_embd} is not a multiple of n_head={n_head}")
        self.n_head = n_head
        self.qkv = torch.nn.Linear(n_embd, 3 * n_embd, bias=False)
        self.proj = torch.nn.Linear(n_embd, n_embd)
        later = torch.ones(block_size, block_size, dtype=torch.bool).triu(1)
        self.register_buffer("mask", later, persistent=False)

    def forward(self, x: Any) -> Any:
        length = x.shape[1]
        if length > self.mask.shape[0]:
            raise ValueError(f"{length} positions, a block of {self.mask.shape[0]}")
        size = x.shape[-1] // self.n_head
        q, k, v = (
            split_heads(part, self.n_head) for part in self.qkv(x).chunk(3, dim=-1)
        )
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(size)
        scores = scores.masked_fill(self.mask[:length, :length], float("-inf"))
        mixed = scores.softmax(dim=-1) @ v
        return self.proj(mixed.transpose(1, 2).reshape(x.shape))


# --- 6.6 a transformer block -------------------------------------------------------


class Block(torch.nn.Module):
    """A pre-norm block: attention, then an MLP, each added to its input."""

    def __init__(
        self, n_embd: int, n_head: int, bias: bool = True, causal: bool = True
    ) -> None:
        super().__init__()
        self.causal = causal
        self.norm1 = torch.nn.LayerNorm(n_embd, bias=bias)
        self.self_attn = torch.nn.MultiheadAttention(
            n_embd, n_head, bias=bias, batch_first=True
        )
        self.norm2 = torch.nn.LayerNorm(n_embd, bias=bias)
        self.linear1 = torch.nn.Linear(n_embd, 4 * n_embd, bias=bias)
        self.linear2 = torch.nn.Linear(4 * n_embd, n_embd, bias=bias)

    def forward(self, x: Any) -> Any:
        length = x.shape[1]
        ahead = None
        if self.causal:
            ahead = torch.ones(length, length, dtype=torch.bool).triu(1)
        h = self.norm1(x)
        heard, _ = self.self_attn(h, h, h, attn_mask=ahead, need_weights=False)
        x = x + heard
        hidden = torch.nn.functional.gelu(self.linear1(self.norm2(x)))
        return x + self.linear2(hidden)


# --- 6.7 the GPT -----------------------------------------------------------------


class GPT(torch.nn.Module):
    """Embeddings, ``n_layer`` pre-norm blocks, a final norm, a score per token."""

    def __init__(
        self, vocab_size: int, block_size: int, n_embd: int, n_head: int, n_layer: int
    ) -> None:
        super().__init__()
        self.block_size = block_size
        self.tokens = torch.nn.Embedding(vocab_size, n_embd)
        self.positions = torch.nn.Embedding(block_size, n_embd)
        self.blocks = torch.nn.ModuleList(
            torch.nn.TransformerEncoderLayer(
                n_embd, n_head, 4 * n_embd, dropout=0.0, activation="gelu",
                batch_first=True, norm_first=True,
            )
            for _ in range(n_layer)
        )  # fmt: skip
        self.ln_f = torch.nn.LayerNorm(n_embd)
        self.head = torch.nn.Linear(n_embd, vocab_size)

    def forward(self, idx: Any, targets: Any = None) -> Any:
        length = idx.shape[1]
        if length > self.block_size:
            raise ValueError(
                f"cannot take {length} tokens: the block holds {self.block_size}"
            )
        x = self.tokens(idx) + self.positions(torch.arange(length))
        causal = torch.nn.Transformer.generate_square_subsequent_mask(length)
        for block in self.blocks:
            x = block(x, src_mask=causal, is_causal=True)
        logits = self.head(self.ln_f(x))
        if targets is None:
            return logits, None
        flat = logits.reshape(-1, logits.shape[-1])
        return logits, torch.nn.functional.cross_entropy(flat, targets.reshape(-1))

    def configure_optimizers(
        self, weight_decay: float, lr: float, betas: tuple[float, float] = (0.9, 0.95)
    ) -> Any:
        """AdamW with decay on the matrices and embeddings only."""
        params = list(self.parameters())
        groups = [
            {
                "params": [p for p in params if p.dim() >= 2],
                "weight_decay": weight_decay,
            },
            {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
        ]
        return torch.optim.AdamW(groups, lr=lr, betas=betas)


# --- 6.8 generation ----------------------------------------------------------------


def generate(
    model: Any,
    idx: Any,
    new_tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    generator: Any = None,
) -> Any:
    """``idx`` with ``new_tokens`` more tokens, each drawn from the model."""
    import random  # inside the piece: its stub replaces the whole body

    draw = generator if generator is not None else random.Random(0)
    with torch.no_grad():
        for _ in range(new_tokens):
            logits, _ = model(idx[:, -model.block_size :])
            last = logits[:, -1, :] / temperature
            if top_k is not None:
                kept = min(top_k, last.shape[-1])
                smallest = last.topk(kept, dim=-1).values[:, -1:]
                last = last.masked_fill(last < smallest, float("-inf"))
            probs = last.softmax(dim=-1).tolist()
            tokens = range(len(probs[0]))
            picked = [draw.choices(tokens, weights=row)[0] for row in probs]
            idx = torch.cat([idx, torch.tensor(picked).view(-1, 1)], dim=1)
    return idx


# --- 6.9 training ------------------------------------------------------------------


def train(
    model: Any, batches: Any, steps: int, lr: float, grad_clip: float | None = None
) -> list[float]:
    """``steps`` steps of AdamW on ``batches`` in turn; each step's loss. A
    model with ``configure_optimizers`` (6.7's GPT) makes its own AdamW."""
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
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        losses.append(loss.item())
        optimizer.step()
    return losses


class Trainer:
    """Where 6.9's check puts the student's ``train`` (``model.train()`` has
    that name too, so the grader looks for an answer's use of ``Trainer``)."""

    train = staticmethod(train)


# --- models the cases use (no exercise's piece) -------------------------------------


def with_loss(logits: Any, targets: Any) -> Any:
    """``(logits, loss)``, the loss None without targets."""
    if targets is None:
        return logits, None
    vocab = logits.shape[-1]
    loss = torch.nn.functional.cross_entropy(logits.view(-1, vocab), targets.view(-1))
    return logits, loss


class Bigram(torch.nn.Module):
    """A score for the next token from the last one alone: a table."""

    def __init__(self, vocab_size: int, block_size: int) -> None:
        super().__init__()
        self.block_size = block_size
        self.table = torch.nn.Embedding(vocab_size, vocab_size)

    def forward(self, idx: Any, targets: Any = None) -> Any:
        return with_loss(self.table(idx), targets)


class Tiny(torch.nn.Module):
    """Embeddings, one ``TransformerEncoderLayer`` and a head (no piece of
    chapter 6's): a model with attention to train."""

    def __init__(self, vocab_size: int, block_size: int, n_embd: int) -> None:
        super().__init__()
        self.embed = torch.nn.ModuleList(
            [torch.nn.Embedding(size, n_embd) for size in (vocab_size, block_size)]
        )
        self.block_size = block_size
        self.layer = torch.nn.TransformerEncoderLayer(
            n_embd, 2, 2 * n_embd, dropout=0.0, batch_first=True, norm_first=True
        )
        self.head = torch.nn.Linear(n_embd, vocab_size)

    def forward(self, idx: Any, targets: Any = None) -> Any:
        where = torch.arange(idx.shape[1])
        x = self.embed[0](idx) + self.embed[1](where)
        mask = torch.nn.Transformer.generate_square_subsequent_mask(len(where))
        return with_loss(self.head(self.layer(x, mask, is_causal=True)), targets)
