"""A bigram language model from counts: which letter follows which."""

from __future__ import annotations

from typing import Any

from tests.programs import NAMES


def run(torch: Any) -> dict[str, Any]:
    words = NAMES
    chars = sorted(set("".join(words)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}
    n = len(stoi)

    N = torch.zeros((n, n), dtype=torch.int32)
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            ix1 = stoi[ch1]
            ix2 = stoi[ch2]
            N[ix1, ix2] += 1

    P = (N + 1).float()
    P /= P.sum(1, keepdims=True)

    g = torch.Generator().manual_seed(2147483647)
    samples = []
    for _ in range(5):
        out = []
        ix = 0
        while True:
            p = P[ix]
            ix = torch.multinomial(
                p, num_samples=1, replacement=True, generator=g
            ).item()
            out.append(itos[ix])
            if ix == 0 or len(out) > 30:
                break
        samples.append("".join(out))

    log_likelihood = 0.0
    count = 0
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            prob = P[stoi[ch1], stoi[ch2]]
            log_likelihood += torch.log(prob).item()
            count += 1
    return {
        "counts_dtype": str(N.dtype),
        "total_count": N.sum().item(),
        "row_sums": P.sum(1).tolist(),
        "nll": -log_likelihood / count,
        "samples_end_with_dot": all(s.endswith(".") or len(s) > 30 for s in samples),
        "sample_letters_known": all(c in stoi for s in samples for c in s),
    }
