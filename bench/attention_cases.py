"""The attention benchmark cases: a causal self-attention block forward and
backward, and one training step of a tiny GPT.

The GPT is the one the attention chapter trains: 1 layer, 2 heads,
``n_embd`` 16, block 8, batch 32, a vocabulary of 27 (the names' letters
and the full stop), AdamW. Each case has three programs:

* **engine**: slowtorch_lib's ``nn`` as a student writes it;
* **baseline**: the pure-Python limit, written by hand over flat lists of
  floats (helpers in :mod:`bench.flat`): the same computation, every
  stored result rounded to float32 as the engine stores it, the backward
  pass derived by hand and no graph. ``tests/test_attention_bench.py``
  checks that it gives the engine's numbers (to float32 rounding: sums
  run in another order);
* **torch**: PyTorch on one thread.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from operator import add, mul
from typing import Any

import slowtorch_lib as st
from bench.flat import columns_of, rows_of, to_float32

Program = Callable[[], Any]

BATCH, BLOCK, EMBED, HEADS, VOCAB = 32, 8, 16, 2, 27
HEAD = EMBED // HEADS
ROWS = BATCH * BLOCK
EPS = 1e-5
LR, BETAS, ADAM_EPS, DECAY = 1e-3, (0.9, 0.999), 1e-8, 0.01
ATTENTION_CASE = "attention block fwd+bwd (4x8x16, 2 heads)"
GPT_CASE = "GPT training step (1 layer, 2 heads, 16, block 8, batch 32)"


# ----------------------------------------------------------------------
# The models, for either library
# ----------------------------------------------------------------------


def make_attention(lib: Any) -> Any:
    """Causal self-attention: one ``qkv`` product, heads as views, a tril mask."""
    nn = lib.nn

    class SelfAttention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(EMBED, 3 * EMBED, bias=False)
            self.proj = nn.Linear(EMBED, EMBED)
            self.register_buffer("tril", lib.tril(lib.ones(BLOCK, BLOCK)))

        def forward(self, x: Any) -> Any:
            B, T, C = x.shape
            q, k, v = self.qkv(x).split(C, dim=2)
            q = q.view(B, T, HEADS, HEAD).transpose(1, 2)
            k = k.view(B, T, HEADS, HEAD).transpose(1, 2)
            v = v.view(B, T, HEADS, HEAD).transpose(1, 2)
            scores = (q @ k.transpose(-2, -1)) * HEAD**-0.5
            scores = scores.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
            weights = lib.softmax(scores, dim=-1)
            out = (weights @ v).transpose(1, 2).contiguous().view(B, T, C)
            return self.proj(out)

    return SelfAttention()


def make_gpt(lib: Any) -> Any:
    """Embeddings, one pre-norm block (attention, ReLU MLP), a final norm and head."""
    nn = lib.nn

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tokens = nn.Embedding(VOCAB, EMBED)
            self.positions = nn.Embedding(BLOCK, EMBED)
            self.ln1 = nn.LayerNorm(EMBED)
            self.attn = make_attention(lib)
            self.ln2 = nn.LayerNorm(EMBED)
            self.fc = nn.Linear(EMBED, 4 * EMBED)
            self.out = nn.Linear(4 * EMBED, EMBED)
            self.ln_f = nn.LayerNorm(EMBED)
            self.head = nn.Linear(EMBED, VOCAB)

        def forward(self, idx: Any, targets: Any) -> Any:
            B, T = idx.shape
            x = self.tokens(idx) + self.positions(lib.arange(T))
            x = x + self.attn(self.ln1(x))
            x = x + self.out(lib.relu(self.fc(self.ln2(x))))
            logits = self.head(self.ln_f(x))
            return nn.functional.cross_entropy(logits.view(B * T, -1), targets.view(-1))

    return GPT()


def gpt_data() -> tuple[list[int], list[int]]:
    """A batch of token windows and their next tokens, fixed."""
    rng = random.Random(5)
    stream = [rng.randrange(VOCAB) for _ in range(400)]
    starts = [rng.randrange(len(stream) - BLOCK) for _ in range(BATCH)]
    inputs = [t for s in starts for t in stream[s : s + BLOCK]]
    targets = [t for s in starts for t in stream[s + 1 : s + BLOCK + 1]]
    return inputs, targets


def named_flat(model: Any) -> dict[str, list[float]]:
    """Every parameter as a flat list of floats, by name."""
    return {n: p.detach().flatten().tolist() for n, p in model.named_parameters()}


def gpt_step(lib: Any, model: Any, optimizer: Any, idx: Any, targets: Any) -> Any:
    optimizer.zero_grad()
    loss = model(idx, targets)
    loss.backward()
    optimizer.step()
    return loss


# ----------------------------------------------------------------------
# The baseline: flat lists, by hand
# ----------------------------------------------------------------------


def sum_of_products(left: list[float], right: list[float]) -> float:
    return sum(map(mul, left, right))


# The fastest dot product this interpreter has, as the engine's kernel picks.
dot: Callable[[list[float], list[float]], float] = getattr(
    math, "sumprod", sum_of_products
)


def products(
    left_rows: list[list[float]], right_columns: list[list[float]]
) -> list[float]:
    """All dot products of rows with columns: a matrix product, row-major."""
    inner = dot
    return [inner(row, column) for row in left_rows for column in right_columns]


def matmul(
    left: list[float], right: list[float], n: int, k: int, m: int
) -> list[float]:
    """Row-major ``(n, k) @ (k, m)``, the columns gathered once."""
    return products(rows_of(left, n, k), columns_of(right, k, m))


def linear(
    x: list[float], w: list[float], b: list[float] | None, n: int, k: int, m: int
) -> list[float]:
    """``x @ w.T (+ b)``: rows of x times rows of w."""
    out = to_float32(products(rows_of(x, n, k), rows_of(w, m, k)))
    return out if b is None else to_float32(list(map(add, out, b * n)))


def linear_back(
    x: list[float], w: list[float], g: list[float], n: int, k: int, m: int
) -> tuple[list[float], list[float], list[float]]:
    """Gradients of x, w and b for ``y = x @ w.T + b`` given ``g`` = dL/dy."""
    g_columns = columns_of(g, n, m)
    grad_x = to_float32(matmul(g, w, n, m, k))
    grad_w = to_float32(products(g_columns, columns_of(x, n, k)))
    grad_b = to_float32([sum(column) for column in g_columns])
    return grad_x, grad_w, grad_b


def layer_norm(x: list[float], gain: list[float], bias: list[float], n: int) -> Any:
    """Each row normalised; returns the output and what backward needs."""
    out, normed, inverse = [], [], []
    for i in range(n):
        row = x[i * EMBED : (i + 1) * EMBED]
        mean = sum(row) / EMBED
        centred = [v - mean for v in row]
        rstd = 1.0 / math.sqrt(sum(map(mul, centred, centred)) / EMBED + EPS)
        xhat = [c * rstd for c in centred]
        normed.extend(xhat)
        inverse.append(rstd)
        out.extend(map(add, map(mul, xhat, gain), bias))
    return to_float32(out), normed, inverse


def layer_norm_back(
    g: list[float], gain: list[float], normed: list[float], inverse: list[float], n: int
) -> tuple[list[float], list[float], list[float]]:
    grad_x: list[float] = []
    for i in range(n):
        gi = g[i * EMBED : (i + 1) * EMBED]
        xhat = normed[i * EMBED : (i + 1) * EMBED]
        dxhat = list(map(mul, gi, gain))
        mean_d = sum(dxhat) / EMBED
        mean_dx = sum(map(mul, dxhat, xhat)) / EMBED
        rstd = inverse[i]
        grad_x.extend([rstd * (d - mean_d - h * mean_dx) for d, h in zip(dxhat, xhat)])
    columns = columns_of(g, n, EMBED)
    grad_gain = [
        sum(map(mul, c, h)) for c, h in zip(columns, columns_of(normed, n, EMBED))
    ]
    grad_bias = [sum(c) for c in columns]
    return to_float32(grad_x), to_float32(grad_gain), to_float32(grad_bias)


def attention(qkv: list[float], batch: int) -> tuple[list[float], list[list[float]]]:
    """Causal attention of every head; returns the merged output and the
    weights of each (sequence, head), row by row."""
    scale = HEAD**-0.5
    width = 3 * EMBED
    out = [0.0] * (batch * BLOCK * EMBED)
    weights_all = []
    for b in range(batch):
        rows = [
            qkv[(b * BLOCK + t) * width : (b * BLOCK + t + 1) * width]
            for t in range(BLOCK)
        ]
        for h in range(HEADS):
            lo = h * HEAD
            qs = [r[lo : lo + HEAD] for r in rows]
            ks = [r[EMBED + lo : EMBED + lo + HEAD] for r in rows]
            vs = [r[2 * EMBED + lo : 2 * EMBED + lo + HEAD] for r in rows]
            weights = []
            for i in range(BLOCK):
                scores = [dot(qs[i], ks[j]) * scale for j in range(i + 1)]
                top = max(scores)
                exps = [math.exp(s - top) for s in scores]
                total = sum(exps)
                row = [e / total for e in exps]
                weights.append(row)
                base = (b * BLOCK + i) * EMBED + lo
                for d in range(HEAD):
                    out[base + d] = dot(row, [vs[j][d] for j in range(len(row))])
            weights_all.append(weights)
    return to_float32(out), weights_all


def attention_back(
    qkv: list[float], weights_all: list[list[list[float]]], g: list[float], batch: int
) -> list[float]:
    """The gradient of the ``qkv`` rows, given ``g`` for the merged output."""
    scale = HEAD**-0.5
    width = 3 * EMBED
    grad = [0.0] * (batch * BLOCK * width)
    for b in range(batch):
        rows = [
            qkv[(b * BLOCK + t) * width : (b * BLOCK + t + 1) * width]
            for t in range(BLOCK)
        ]
        for h in range(HEADS):
            weights = weights_all[b * HEADS + h]
            lo = h * HEAD
            qs = [r[lo : lo + HEAD] for r in rows]
            ks = [r[EMBED + lo : EMBED + lo + HEAD] for r in rows]
            vs = [r[2 * EMBED + lo : 2 * EMBED + lo + HEAD] for r in rows]
            gs = [
                g[(b * BLOCK + t) * EMBED + lo : (b * BLOCK + t) * EMBED + lo + HEAD]
                for t in range(BLOCK)
            ]
            dq = [[0.0] * HEAD for _ in range(BLOCK)]
            dk = [[0.0] * HEAD for _ in range(BLOCK)]
            dv = [[0.0] * HEAD for _ in range(BLOCK)]
            for i in range(BLOCK):
                row = weights[i]
                dweights = [dot(gs[i], vs[j]) for j in range(i + 1)]
                for j, w in enumerate(row):
                    dv[j] = list(map(add, dv[j], [w * x for x in gs[i]]))
                inner = sum(map(mul, row, dweights))
                dscores = [w * (d - inner) * scale for w, d in zip(row, dweights)]
                for j, ds in enumerate(dscores):
                    dq[i] = list(map(add, dq[i], [ds * x for x in ks[j]]))
                    dk[j] = list(map(add, dk[j], [ds * x for x in qs[i]]))
            for t in range(BLOCK):
                base = (b * BLOCK + t) * width + lo
                grad[base : base + HEAD] = dq[t]
                grad[base + EMBED : base + EMBED + HEAD] = dk[t]
                grad[base + 2 * EMBED : base + 2 * EMBED + HEAD] = dv[t]
    return to_float32(grad)


class BaselineAttention:
    """The attention block's forward and backward (loss: sum of the output)."""

    def __init__(self, params: dict[str, list[float]], batch: int) -> None:
        self.p = params
        self.batch = batch

    def forward(self, x: list[float]) -> Any:
        n = self.batch * BLOCK
        qkv = linear(x, self.p["qkv.weight"], None, n, EMBED, 3 * EMBED)
        merged, weights = attention(qkv, self.batch)
        out = linear(
            merged, self.p["proj.weight"], self.p["proj.bias"], n, EMBED, EMBED
        )
        return out, (x, qkv, merged, weights)

    def backward(self, saved: Any, g: list[float]) -> dict[str, list[float]]:
        x, qkv, merged, weights = saved
        n = self.batch * BLOCK
        grad_merged, grad_pw, grad_pb = linear_back(
            merged, self.p["proj.weight"], g, n, EMBED, EMBED
        )
        grad_qkv = attention_back(qkv, weights, grad_merged, self.batch)
        grad_x, grad_qkv_w, _ = linear_back(
            x, self.p["qkv.weight"], grad_qkv, n, EMBED, 3 * EMBED
        )
        return {
            "x": grad_x,
            "qkv.weight": grad_qkv_w,
            "proj.weight": grad_pw,
            "proj.bias": grad_pb,
        }


class BaselineGPT:
    """The GPT's training step by hand: forward, backward, AdamW."""

    def __init__(self, params: dict[str, list[float]]) -> None:
        self.p = {name: list(values) for name, values in params.items()}
        self.m = {name: [0.0] * len(v) for name, v in params.items()}
        self.v = {name: [0.0] * len(v) for name, v in params.items()}
        self.steps = 0

    def loss_and_grads(
        self, idx: list[int], targets: list[int]
    ) -> tuple[float, dict[str, list[float]]]:
        p, n = self.p, ROWS
        tokens, places = p["tokens.weight"], p["positions.weight"]
        x0: list[float] = []
        for row, token in enumerate(idx):
            t = row % BLOCK
            x0.extend(
                map(
                    add,
                    tokens[token * EMBED : (token + 1) * EMBED],
                    places[t * EMBED : (t + 1) * EMBED],
                )
            )
        x0 = to_float32(x0)
        y1, normed1, inv1 = layer_norm(x0, p["ln1.weight"], p["ln1.bias"], n)
        block = BaselineAttention(
            {
                "qkv.weight": p["attn.qkv.weight"],
                "proj.weight": p["attn.proj.weight"],
                "proj.bias": p["attn.proj.bias"],
            },
            BATCH,
        )
        a, saved = block.forward(y1)
        x1 = to_float32(list(map(add, x0, a)))
        y2, normed2, inv2 = layer_norm(x1, p["ln2.weight"], p["ln2.bias"], n)
        hidden = linear(y2, p["fc.weight"], p["fc.bias"], n, EMBED, 4 * EMBED)
        active = [h if h > 0 else 0.0 for h in hidden]
        mlp = linear(active, p["out.weight"], p["out.bias"], n, 4 * EMBED, EMBED)
        x2 = to_float32(list(map(add, x1, mlp)))
        yf, normedf, invf = layer_norm(x2, p["ln_f.weight"], p["ln_f.bias"], n)
        logits = linear(yf, p["head.weight"], p["head.bias"], n, EMBED, VOCAB)
        loss, grad_logits = 0.0, []
        for i, target in enumerate(targets):
            row = logits[i * VOCAB : (i + 1) * VOCAB]
            top = max(row)
            exps = [math.exp(v - top) for v in row]
            total = sum(exps)
            loss += top + math.log(total) - row[target]
            probs = [e / total / n for e in exps]
            probs[target] -= 1.0 / n
            grad_logits.extend(probs)
        grads: dict[str, list[float]] = {}
        g_yf, grads["head.weight"], grads["head.bias"] = linear_back(
            yf, p["head.weight"], to_float32(grad_logits), n, EMBED, VOCAB
        )
        g_x2, grads["ln_f.weight"], grads["ln_f.bias"] = layer_norm_back(
            g_yf, p["ln_f.weight"], normedf, invf, n
        )
        g_active, grads["out.weight"], grads["out.bias"] = linear_back(
            active, p["out.weight"], g_x2, n, 4 * EMBED, EMBED
        )
        g_hidden = [g if h > 0 else 0.0 for g, h in zip(g_active, hidden)]
        g_y2, grads["fc.weight"], grads["fc.bias"] = linear_back(
            y2, p["fc.weight"], g_hidden, n, EMBED, 4 * EMBED
        )
        g_from_ln2, grads["ln2.weight"], grads["ln2.bias"] = layer_norm_back(
            g_y2, p["ln2.weight"], normed2, inv2, n
        )
        g_x1 = to_float32(list(map(add, g_x2, g_from_ln2)))
        attn = block.backward(saved, g_x1)
        grads["attn.qkv.weight"] = attn["qkv.weight"]
        grads["attn.proj.weight"], grads["attn.proj.bias"] = (
            attn["proj.weight"],
            attn["proj.bias"],
        )
        g_from_ln1, grads["ln1.weight"], grads["ln1.bias"] = layer_norm_back(
            attn["x"], p["ln1.weight"], normed1, inv1, n
        )
        g_x0 = to_float32(list(map(add, g_x1, g_from_ln1)))
        g_tokens, g_places = [0.0] * (VOCAB * EMBED), [0.0] * (BLOCK * EMBED)
        for row, token in enumerate(idx):
            t = row % BLOCK
            piece = g_x0[row * EMBED : (row + 1) * EMBED]
            g_tokens[token * EMBED : (token + 1) * EMBED] = map(
                add, g_tokens[token * EMBED : (token + 1) * EMBED], piece
            )
            g_places[t * EMBED : (t + 1) * EMBED] = map(
                add, g_places[t * EMBED : (t + 1) * EMBED], piece
            )
        grads["tokens.weight"], grads["positions.weight"] = (
            to_float32(g_tokens),
            to_float32(g_places),
        )
        return to_float32([loss / n])[0], grads

    def step(self, idx: list[int], targets: list[int]) -> float:
        loss, grads = self.loss_and_grads(idx, targets)
        self.steps += 1
        beta1, beta2 = BETAS
        correction1 = 1 - beta1**self.steps
        root_correction2 = math.sqrt(1 - beta2**self.steps)
        for name, values in self.p.items():
            g, m, v = grads[name], self.m[name], self.v[name]
            m[:] = to_float32([beta1 * a + (1 - beta1) * b for a, b in zip(m, g)])
            v[:] = to_float32([beta2 * a + (1 - beta2) * b * b for a, b in zip(v, g)])
            decayed = [w * (1 - LR * DECAY) for w in values]
            values[:] = to_float32(
                [
                    w
                    - LR
                    / correction1
                    * a
                    / (math.sqrt(b) / root_correction2 + ADAM_EPS)
                    for w, a, b in zip(decayed, m, v)
                ]
            )
        return loss


# ----------------------------------------------------------------------
# The cases
# ----------------------------------------------------------------------

ATTENTION_BATCH = 4


def attention_case(torch: Any) -> tuple[str, Program, Program, Program | None]:
    st.manual_seed(1)
    block = make_attention(st)
    params = named_flat(block)
    rng = random.Random(3)
    x_values = to_float32(
        [rng.uniform(-1, 1) for _ in range(ATTENTION_BATCH * BLOCK * EMBED)]
    )
    x = st.tensor(x_values).reshape(ATTENTION_BATCH, BLOCK, EMBED)
    baseline_block = BaselineAttention(params, ATTENTION_BATCH)

    def engine() -> Any:
        block.zero_grad()
        inputs = x.detach().requires_grad_()
        block(inputs).sum().backward()
        return inputs.grad

    def baseline() -> Any:
        out, saved = baseline_block.forward(x_values)
        return baseline_block.backward(saved, [1.0] * len(out))

    reference = None
    if torch is not None:
        t_block = make_attention(torch)
        t_block.load_state_dict(
            {k: torch.tensor(v.tolist()) for k, v in block.state_dict().items()}
        )
        tx = torch.tensor(x_values).reshape(ATTENTION_BATCH, BLOCK, EMBED)

        def reference() -> Any:
            t_block.zero_grad()
            inputs = tx.detach().requires_grad_()
            t_block(inputs).sum().backward()
            return inputs.grad

    return ATTENTION_CASE, engine, baseline, reference


def gpt_case(torch: Any) -> tuple[str, Program, Program, Program | None]:
    st.manual_seed(2)
    model = make_gpt(st)
    params = named_flat(model)
    inputs, targets = gpt_data()
    idx = st.tensor(inputs).view(BATCH, BLOCK)
    target = st.tensor(targets).view(BATCH, BLOCK)
    optimizer = st.optim.AdamW(model.parameters(), lr=LR, weight_decay=DECAY)
    hand = BaselineGPT(params)

    def engine() -> Any:
        return gpt_step(st, model, optimizer, idx, target)

    def baseline() -> Any:
        return hand.step(inputs, targets)

    reference = None
    if torch is not None:
        t_model = make_gpt(torch)
        t_model.load_state_dict(
            {k: torch.tensor(v.tolist()) for k, v in model.state_dict().items()}
        )
        t_optimizer = torch.optim.AdamW(t_model.parameters(), lr=LR, weight_decay=DECAY)
        t_idx, t_target = (
            torch.tensor(inputs).view(BATCH, BLOCK),
            torch.tensor(targets).view(BATCH, BLOCK),
        )

        def reference() -> Any:
            return gpt_step(torch, t_model, t_optimizer, t_idx, t_target)

    return GPT_CASE, engine, baseline, reference


def specs(torch: Any) -> list[tuple[str, Program, Program, Program | None, None]]:
    """``(name, engine, baseline, torch, target)`` for each attention case."""
    return [(*attention_case(torch), None), (*gpt_case(torch), None)]


__all__ = ["BaselineGPT", "attention_case", "gpt_case", "specs"]
