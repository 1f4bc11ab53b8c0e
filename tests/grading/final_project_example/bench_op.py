"""Forward and backward of normalize on a 64 x 64 input: the op on the engine
against a pure-Python loop that computes the same numbers (and PyTorch, where
it is installed). Prints the ratios."""

import math
import random
import time

from op import op

import slowtorch_lib as engine

N = 64
rng = random.Random(0)
X = [[rng.uniform(-3, 3) for _ in range(N)] for _ in range(N)]
G = [[rng.uniform(-1, 1) for _ in range(N)] for _ in range(N)]


def loop():
    """Value and gradient along dim 0, one number at a time."""
    norms = [max(math.sqrt(sum(X[i][j] ** 2 for i in range(N))), 1e-12)
             for j in range(N)]  # fmt: skip
    y = [[X[i][j] / norms[j] for j in range(N)] for i in range(N)]
    along = [sum(G[i][j] * y[i][j] for i in range(N)) for j in range(N)]
    return [[(G[i][j] - y[i][j] * along[j]) / norms[j] for j in range(N)]
            for i in range(N)]  # fmt: skip


def ours():
    x = engine.tensor(X, requires_grad=True)
    (op(x, dim=0) * engine.tensor(G)).sum().backward()


def best(run, times=3):
    found = []
    for _ in range(times):
        start = time.perf_counter()
        run()
        found.append(time.perf_counter() - start)
    return min(found)


engine_time, loop_time = best(ours), best(loop)
print(f"engine {engine_time * 1e3:.2f} ms, loop {loop_time * 1e3:.2f} ms")
print(f"ratio engine / loop: {engine_time / loop_time:.3f}")
try:
    import torch
except ImportError:
    print("PyTorch is not here: its ratio is in README.md")
else:

    def theirs():
        x = torch.tensor(X, requires_grad=True)
        (torch.nn.functional.normalize(x, dim=0) * torch.tensor(G)).sum().backward()

    print(f"ratio engine / PyTorch: {engine_time / best(theirs):.1f}")
