"""Chapter 6's tiny GPT on the course's names: one script for either library.

Every function takes the library as its first argument, ``torch``: either
``slowtorch_lib`` or PyTorch itself, and uses nothing but PyTorch's API.
The batches and the sampled characters come from Python's ``random``, so
both libraries see the same data and draw the same names.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

ALPHABET = "." + "abcdefghijklmnopqrstuvwxyz"  # "." separates the names
BLOCK, BATCH = 8, 32  # characters of context, windows per step
N_EMBD, N_HEAD = 16, 2
STEPS, LR = 150, 3e-3


def streams(words: list[str], seed: int = 6) -> tuple[list[int], list[int]]:
    """The names shuffled, split 90/10, each part one stream of characters."""
    shuffled = list(words)
    random.Random(seed).shuffle(shuffled)
    cut = int(0.9 * len(shuffled))
    index_of = {c: i for i, c in enumerate(ALPHABET)}

    def encode(part: list[str]) -> list[int]:
        return [index_of[c] for c in "." + ".".join(part) + "."]

    return encode(shuffled[:cut]), encode(shuffled[cut:])


def draw_windows(
    stream: list[int], count: int, rng: random.Random
) -> tuple[list[list[int]], list[list[int]]]:
    """``count`` windows of BLOCK characters and, for each, the next ones."""
    starts = [rng.randrange(len(stream) - BLOCK) for _ in range(count)]
    inputs = [stream[s : s + BLOCK] for s in starts]
    targets = [stream[s + 1 : s + BLOCK + 1] for s in starts]
    return inputs, targets


def make_model(torch: Any) -> Any:
    """A GPT of one block: embeddings, attention, MLP, a score per character."""
    nn, F = torch.nn, torch.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(N_EMBD, 3 * N_EMBD, bias=False)
            self.proj = nn.Linear(N_EMBD, N_EMBD)

        def forward(self, x: Any) -> Any:
            B, T, C = x.shape
            q, k, v = self.qkv(x).split(C, dim=2)  # each (B, T, C)
            # (B, T, C) -> (B, T, heads, C/heads) -> (B, heads, T, C/heads)
            q = q.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
            k = k.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
            v = v.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            y = y.transpose(1, 2).contiguous().view(B, T, C)  # heads side by side
            return self.proj(y)

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln1 = nn.LayerNorm(N_EMBD)
            self.attn = CausalSelfAttention()
            self.ln2 = nn.LayerNorm(N_EMBD)
            self.mlp = nn.Sequential(
                nn.Linear(N_EMBD, 4 * N_EMBD), nn.GELU(), nn.Linear(4 * N_EMBD, N_EMBD)
            )

        def forward(self, x: Any) -> Any:
            x = x + self.attn(self.ln1(x))  # talk to the earlier characters
            return x + self.mlp(self.ln2(x))  # think about what was heard

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tokens = nn.Embedding(len(ALPHABET), N_EMBD)
            self.positions = nn.Embedding(BLOCK, N_EMBD)
            self.block = Block()
            self.ln_f = nn.LayerNorm(N_EMBD)
            self.head = nn.Linear(N_EMBD, len(ALPHABET))

        def forward(self, idx: Any) -> Any:
            T = idx.shape[1]
            x = self.tokens(idx) + self.positions(torch.arange(T))
            return self.head(self.ln_f(self.block(x)))  # (B, T, 27) scores

    return GPT()


def loss_of(torch: Any, model: Any, inputs: Any, targets: Any) -> Any:
    """Cross-entropy of every position's scores against the next character."""
    logits = model(torch.tensor(inputs))
    B, T, V = logits.shape
    expected = torch.tensor(targets).view(B * T)
    return torch.nn.functional.cross_entropy(logits.view(B * T, V), expected)


def train(
    torch: Any,
    weights: dict[str, Any],
    train_stream: list[int],
    steps: int = STEPS,
    progress: Callable[[int, int, float], None] | None = None,
) -> tuple[Any, list[float], float]:
    """Trains from ``weights``; returns the model, the losses and the seconds.
    ``progress`` is called after each step with the steps done, the steps
    in all and the loss."""
    model = make_model(torch)
    model.load_state_dict(weights)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR)
    rng = random.Random(2024)
    losses = []
    start = time.perf_counter()
    for step in range(1, steps + 1):
        inputs, targets = draw_windows(train_stream, BATCH, rng)
        loss = loss_of(torch, model, inputs, targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if progress is not None:
            progress(step, steps, losses[-1])
    return model, losses, time.perf_counter() - start


def validation_loss(
    torch: Any, model: Any, stream: list[int], count: int = 200
) -> float:
    """The mean loss on ``count`` fixed windows of held-out names."""
    inputs, targets = draw_windows(stream, count, random.Random(7))
    with torch.no_grad():
        return float(loss_of(torch, model, inputs, targets).item())


def generate(torch: Any, model: Any, count: int = 12, seed: int = 1) -> list[str]:
    """Writes names: each step draws the next character from the softmax of
    the last position's scores, with Python's random numbers."""
    draw = random.Random(seed)
    words = []
    with torch.no_grad():
        for _ in range(count):
            context, word = [0], ""
            while len(word) < 20:
                logits = model(torch.tensor([context[-BLOCK:]]))
                probs = torch.softmax(logits[0, -1], dim=0).tolist()
                char = draw.choices(range(len(ALPHABET)), weights=probs)[0]
                if char == 0:
                    break
                word += ALPHABET[char]
                context.append(char)
            words.append(word)
    return words


def attention_weights(torch: Any, model: Any, text: str) -> Any:
    """The attention weights of each head for one name: (heads, T, T)."""
    idx = torch.tensor([[ALPHABET.index(c) for c in text]])
    attn = model.block.attn
    with torch.no_grad():
        T = idx.shape[1]
        x = model.tokens(idx) + model.positions(torch.arange(T))
        q, k, _ = attn.qkv(model.block.ln1(x)).split(N_EMBD, dim=2)
        q = q.view(1, T, N_HEAD, -1).transpose(1, 2)
        k = k.view(1, T, N_HEAD, -1).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / (N_EMBD // N_HEAD) ** 0.5
        causal = torch.ones(T, T).tril() == 0
        return torch.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)[0]


def initial_weights(lib: Any, seed: int = 0) -> dict[str, Any]:
    """The engine's initial weights as plain lists, to load into either library."""
    lib.manual_seed(seed)
    return {name: t.tolist() for name, t in make_model(lib).state_dict().items()}


# --- the page's figures: each alt text is made from the data it describes ---------


def loss_curves_alt(ours: list[float], theirs: list[float], uniform: float) -> str:
    """The loss plot's alt text, from the two curves."""
    gap = max(abs(a - b) for a, b in zip(ours, theirs))
    return (
        f"Two loss curves of the tiny GPT against the training step, "
        f"slowtorch_lib as a wide pale line and PyTorch as a thin black line on "
        f"top of it: the loss goes from {ours[0]:.2f} at step 1 to {ours[-1]:.2f} "
        f"at step {len(ours)} (PyTorch: {theirs[0]:.2f} to {theirs[-1]:.2f}), "
        f"below the dotted line of uniform guessing at {uniform:.2f}; the two "
        f"curves differ by at most {gap:.0e} at any step."
    )


def looks_at(maps: Any, text: str) -> list[str]:
    """For each head, the character each position gives most weight to."""
    rows = maps.tolist()
    return [
        " ".join(f"{text[t]}>{text[row.index(max(row))]}" for t, row in enumerate(head))
        for head in rows
    ]


def attention_maps_alt(maps: Any, text: str) -> str:
    """The heat maps' alt text, from the weights."""
    heads = len(maps.tolist())
    said = "; ".join(
        f"head {h}, each character then the one it looks at most: {line}"
        for h, line in enumerate(looks_at(maps, text))
    )
    return (
        f"{heads} heat maps of {len(text)} by {len(text)} cells, one per attention "
        f"head, of the weights each character of '{text}' gives to itself and the "
        f"characters before it; the upper triangle is empty. {said}."
    )


def figure(fig: Any, alt: str) -> Any:
    """The figure (``book/svg_plots.py``'s, drawn in plain Python, so also in
    the browser offline) as an SVG image with ``alt`` as its text alternative."""
    from IPython.display import HTML

    return HTML(fig.html(alt))
