"""A small GPT: self-attention blocks trained on characters, then sampling."""

from __future__ import annotations

import random
from typing import Any

from tests.programs import TEXT, fill_parameters


def run(torch: Any) -> dict[str, Any]:
    nn = torch.nn
    F = nn.functional
    batch_size = 4
    block_size = 8
    max_iters = 6
    eval_interval = 3
    learning_rate = 1e-3
    device = "cuda" if torch.cuda.is_available() else "cpu"
    eval_iters = 2
    n_embd = 16
    n_head = 2
    n_layer = 2
    dropout = 0.0
    rng = random.Random(1337)

    chars = sorted(set(TEXT))
    vocab_size = len(chars)
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = dict(enumerate(chars))

    def encode(s: str) -> list[int]:
        return [stoi[c] for c in s]

    def decode(tokens: list[int]) -> str:
        return "".join(itos[i] for i in tokens)

    data = torch.tensor(encode(TEXT), dtype=torch.long)
    n = int(0.9 * len(data))
    train_data = data[:n]
    val_data = data[n:]

    def get_batch(split: str) -> tuple[Any, Any]:
        data = train_data if split == "train" else val_data
        ix = [rng.randrange(len(data) - block_size) for _ in range(batch_size)]
        x = torch.stack([data[i : i + block_size] for i in ix])
        y = torch.stack([data[i + 1 : i + block_size + 1] for i in ix])
        return x.to(device), y.to(device)

    @torch.no_grad()
    def estimate_loss() -> dict[str, float]:
        out = {}
        model.eval()
        for split in ["train", "val"]:
            losses = torch.zeros(eval_iters)
            for k in range(eval_iters):
                X, Y = get_batch(split)
                logits, loss = model(X, Y)
                losses[k] = loss.item()
            out[split] = losses.mean().item()
        model.train()
        return out

    class Head(nn.Module):
        def __init__(self, head_size: int) -> None:
            super().__init__()
            self.key = nn.Linear(n_embd, head_size, bias=False)
            self.query = nn.Linear(n_embd, head_size, bias=False)
            self.value = nn.Linear(n_embd, head_size, bias=False)
            self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
            self.dropout = nn.Dropout(dropout)

        def forward(self, x: Any) -> Any:
            B, T, C = x.shape
            k = self.key(x)
            q = self.query(x)
            wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
            wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
            wei = F.softmax(wei, dim=-1)
            wei = self.dropout(wei)
            v = self.value(x)
            return wei @ v

    class MultiHeadAttention(nn.Module):
        def __init__(self, num_heads: int, head_size: int) -> None:
            super().__init__()
            self.heads = nn.ModuleList([Head(head_size) for _ in range(num_heads)])
            self.proj = nn.Linear(head_size * num_heads, n_embd)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x: Any) -> Any:
            out = torch.cat([h(x) for h in self.heads], dim=-1)
            return self.dropout(self.proj(out))

    class FeedFoward(nn.Module):
        def __init__(self, n_embd: int) -> None:
            super().__init__()
            self.net = nn.Sequential(
                nn.Linear(n_embd, 4 * n_embd),
                nn.ReLU(),
                nn.Linear(4 * n_embd, n_embd),
                nn.Dropout(dropout),
            )

        def forward(self, x: Any) -> Any:
            return self.net(x)

    class Block(nn.Module):
        def __init__(self, n_embd: int, n_head: int) -> None:
            super().__init__()
            head_size = n_embd // n_head
            self.sa = MultiHeadAttention(n_head, head_size)
            self.ffwd = FeedFoward(n_embd)
            self.ln1 = nn.LayerNorm(n_embd)
            self.ln2 = nn.LayerNorm(n_embd)

        def forward(self, x: Any) -> Any:
            x = x + self.sa(self.ln1(x))
            return x + self.ffwd(self.ln2(x))

    class GPTLanguageModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
            self.position_embedding_table = nn.Embedding(block_size, n_embd)
            self.blocks = nn.Sequential(
                *[Block(n_embd, n_head=n_head) for _ in range(n_layer)]
            )
            self.ln_f = nn.LayerNorm(n_embd)
            self.lm_head = nn.Linear(n_embd, vocab_size)

        def forward(self, idx: Any, targets: Any = None) -> tuple[Any, Any]:
            B, T = idx.shape
            tok_emb = self.token_embedding_table(idx)
            pos_emb = self.position_embedding_table(torch.arange(T, device=device))
            x = tok_emb + pos_emb
            x = self.blocks(x)
            x = self.ln_f(x)
            logits = self.lm_head(x)
            if targets is None:
                loss = None
            else:
                B, T, C = logits.shape
                logits = logits.view(B * T, C)
                targets = targets.view(B * T)
                loss = F.cross_entropy(logits, targets)
            return logits, loss

        def generate(self, idx: Any, max_new_tokens: int) -> Any:
            for _ in range(max_new_tokens):
                idx_cond = idx[:, -block_size:]
                logits, loss = self(idx_cond)
                logits = logits[:, -1, :]
                probs = F.softmax(logits, dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    model = GPTLanguageModel()
    fill_parameters(torch, model, rng)
    m = model.to(device)
    n_params = sum(p.numel() for p in m.parameters())
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)

    evaluations = []
    train_losses = []
    for iter in range(max_iters):
        if iter % eval_interval == 0 or iter == max_iters - 1:
            losses = estimate_loss()
            evaluations.append([losses["train"], losses["val"]])
        xb, yb = get_batch("train")
        logits, loss = model(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        train_losses.append(loss.item())

    with torch.inference_mode():
        context = torch.zeros((1, 1), dtype=torch.long, device=device)
        generated = m.generate(context, max_new_tokens=10)
        text = decode(generated[0].tolist())
    return {
        "n_params": n_params,
        "evaluations": evaluations,
        "train_losses": train_losses,
        "generated_shape": list(generated.shape),
        "generated_is_inference": generated.is_inference(),
        "text_length": len(text),
    }
