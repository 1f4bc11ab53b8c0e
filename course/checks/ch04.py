"""Chapter 4, "Optimisation": the exercises and their public cases.

As in chapters 1-3, each case is a short program written against PyTorch's
API, recorded once under PyTorch and run under the engine with the student's
piece in place of the engine's own. Optimiser cases run a few steps on a
small problem and compare the parameters (and the optimiser's state) with
PyTorch's. A right sampler may draw its random numbers in another order
than PyTorch's: cases about shuffling compare what does not depend on the
order of the draws (every index once, the same seed giving the same order),
and models start from weights set here.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from course.checking import Case, Exercise
from course.checks.ch04_builds import ADAGRAD, LOADER, PLATEAU, RMSPROP
from course.checks.ch04_programs import (
    ADAM,
    SGD,
    START,
    loss_of,
    one_group,
    train_steps,
)
from course.datasets import make_blobs, make_moons

# --- 4.1 which learning rate ------------------------------------------------------


def lr_after(make: Any, steps: int, *more: float) -> Any:
    """The learning rate(s) after ``steps`` calls of ``scheduler.step()``."""

    def run(torch: Any) -> Any:
        optimizer = one_group(torch, 1.0, *more)
        scheduler = make(torch.optim.lr_scheduler, optimizer)
        for _ in range(steps):
            optimizer.step()
            scheduler.step()
        lrs = [group["lr"] for group in optimizer.param_groups]
        return lrs if more else lrs[0]

    return run


def plateau(losses: list[float]) -> Any:
    def run(torch: Any) -> Any:
        optimizer = one_group(torch, 1.0)
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
            optimizer, patience=1, factor=0.5
        )
        for loss in losses:
            optimizer.step()
            scheduler.step(loss)
        return optimizer.param_groups[0]["lr"]

    return run


SCHEDULES = {
    "StepLR(opt, step_size=3, gamma=0.5), 7 steps": lr_after(
        lambda s, o: s.StepLR(o, step_size=3, gamma=0.5), 7
    ),
    "MultiStepLR(opt, milestones=[2, 5], gamma=0.1), 5 steps": lr_after(
        lambda s, o: s.MultiStepLR(o, milestones=[2, 5], gamma=0.1), 5
    ),
    "ExponentialLR(opt, gamma=0.5), 3 steps": lr_after(
        lambda s, o: s.ExponentialLR(o, gamma=0.5), 3
    ),
    "CosineAnnealingLR(opt, T_max=4), 2 steps": lr_after(
        lambda s, o: s.CosineAnnealingLR(o, T_max=4), 2
    ),
    "CosineAnnealingLR(opt, T_max=4), 4 steps": lr_after(
        lambda s, o: s.CosineAnnealingLR(o, T_max=4), 4
    ),
    "CosineAnnealingLR(opt, T_max=4, eta_min=0.2), 6 steps": lr_after(
        lambda s, o: s.CosineAnnealingLR(o, T_max=4, eta_min=0.2), 6
    ),
    "LinearLR(opt, start_factor=0.25, total_iters=3), 0 steps": lr_after(
        lambda s, o: s.LinearLR(o, start_factor=0.25, total_iters=3), 0
    ),
    "LinearLR(opt, start_factor=0.25, total_iters=3), 1 step": lr_after(
        lambda s, o: s.LinearLR(o, start_factor=0.25, total_iters=3), 1
    ),
    "LinearLR(opt, start_factor=0.25, total_iters=3), 10 steps": lr_after(
        lambda s, o: s.LinearLR(o, start_factor=0.25, total_iters=3), 10
    ),
    "LambdaLR(opt, lambda k: 1 / (k + 1)), 3 steps": lr_after(
        lambda s, o: s.LambdaLR(o, lambda k: 1 / (k + 1)), 3
    ),
    "StepLR(opt2, step_size=2, gamma=0.5), 2 steps": (
        lr_after(lambda s, o: s.StepLR(o, step_size=2, gamma=0.5), 2, 0.2)
    ),
    "ReduceLROnPlateau(opt, patience=1, factor=0.5), losses 3, 2, 2, 2": plateau(
        [3.0, 2.0, 2.0, 2.0]
    ),
}

# --- 4.2 the training loop's bookkeeping ------------------------------------------


def leaves(torch: Any) -> dict[str, Any]:
    """The names the 4.2 programs start from, fresh each time."""
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    data = torch.utils.data
    features = torch.arange(10.0).reshape(10, 1)
    return {
        "torch": torch,
        "w": w,
        "opt": torch.optim.SGD([w], lr=0.1),
        "ds": data.TensorDataset(features, torch.arange(10)),
        "DataLoader": data.DataLoader,
    }


BOOKKEEPING = [
    "(w * w).sum().backward(); opt.zero_grad(); w.grad",
    "(w * w).sum().backward(); opt.zero_grad(set_to_none=False); w.grad",
    "(w * w).sum().backward(); opt.step(); w",
    "(w * w).sum().backward(); (w * w).sum().backward(); opt.step(); w",
    "opt.step(); w",
    "len(opt.param_groups)",
    "opt.param_groups[0]['momentum']",
    "m = torch.optim.SGD([w], lr=0.1, momentum=0.9); "
    "(w * w).sum().backward(); m.step(); sorted(m.state[w])",
    "a = torch.optim.Adam([w], lr=0.1); (w * w).sum().backward(); a.step(); w",
    "a = torch.optim.Adam([w]); (w * w).sum().backward(); a.step(); sorted(a.state[w])",
    "(w * w).sum().backward(); torch.nn.utils.clip_grad_norm_([w], 1.0).item()",
    "(w * w).sum().backward(); torch.nn.utils.clip_grad_norm_([w], 1.0); w.grad",
    "len(DataLoader(ds, batch_size=4))",
    "len(DataLoader(ds, batch_size=4, drop_last=True))",
    "[len(y) for x, y in DataLoader(ds, batch_size=4)]",
    "x, y = next(iter(DataLoader(ds, batch_size=4))); x.shape",
    "x, y = next(iter(DataLoader(ds, batch_size=4))); y.dtype",
]


def program(text: str) -> Any:
    def run(torch: Any) -> Any:
        *body, last = text.split("; ")
        names = leaves(torch)
        exec("\n".join(body), names)  # noqa: S102  (our own text)
        value = eval(last, names)  # noqa: S307
        return value.tolist() if hasattr(value, "tolist") else value

    return run


# --- zero_grad --------------------------------------------------------------------


def grads_after(set_to_none: bool | None, create_graph: bool = False) -> Any:
    def run(torch: Any) -> Any:
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([0.5], requires_grad=True)
        never = torch.tensor([3.0], requires_grad=True)
        optimizer = torch.optim.SGD([{"params": [w, never]}, {"params": [b]}], lr=0.1)
        ((w * w).sum() * b).sum().backward(create_graph=create_graph)
        before = w.grad
        if set_to_none is None:
            optimizer.zero_grad()
        else:
            optimizer.zero_grad(set_to_none=set_to_none)
        seen = {
            "w.grad": w.grad,
            "b.grad": b.grad,
            "never.grad": never.grad,
            "same tensor": w.grad is before,
        }
        if w.grad is not None:
            seen["requires_grad"] = w.grad.requires_grad
            seen["grad_fn"] = w.grad.grad_fn is None
        return seen

    return run


def accumulate_after(set_to_none: bool) -> Any:
    """Backward, zero_grad, backward again: only the new gradient is left."""

    def run(torch: Any) -> Any:
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        optimizer = torch.optim.SGD([w], lr=0.1)
        (w * w).sum().backward()
        optimizer.zero_grad(set_to_none=set_to_none)
        (w * 3).sum().backward()
        return w.grad

    return run


def training_with(set_to_none: bool) -> Any:
    def run(torch: Any) -> Any:
        p = torch.tensor(START, requires_grad=True)
        optimizer = torch.optim.SGD([p], lr=0.02, momentum=0.5)
        for _ in range(4):
            optimizer.zero_grad(set_to_none=set_to_none)
            loss_of(torch, p).backward()
            optimizer.step()
        return p

    return run


def module_zero_grad(torch: Any) -> Any:
    torch.manual_seed(0)
    layer = torch.nn.Linear(3, 2)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    layer(torch.ones(4, 3)).sum().backward()
    optimizer.zero_grad(set_to_none=False)
    return [layer.weight.grad, layer.bias.grad]


def module_own_zero_grad(torch: Any) -> Any:
    """Module.zero_grad, with no optimiser: the same rule."""
    layer = torch.nn.Linear(2, 1)
    layer(torch.ones(3, 2)).sum().backward()
    weight_grad = layer.weight.grad
    layer.zero_grad(set_to_none=False)
    kept = [layer.weight.grad, layer.weight.grad is weight_grad]
    layer.zero_grad()
    return kept + [layer.weight.grad, layer.bias.grad]


ZERO_GRAD = [
    Case("zero_grad(): every .grad", grads_after(None)),
    Case("zero_grad(set_to_none=True)", grads_after(True)),
    Case("zero_grad(set_to_none=False)", grads_after(False)),
    Case("backward, zero_grad(), backward", accumulate_after(True)),
    Case("backward, zero_grad(set_to_none=False), backward", accumulate_after(False)),
    Case("Module.zero_grad, with and without set_to_none", module_own_zero_grad),
    Case("4 steps of SGD with zero_grad()", training_with(True)),
    Case("4 steps of SGD with zero_grad(set_to_none=False)", training_with(False)),
    Case("Linear(3, 2): zero_grad(set_to_none=False)", module_zero_grad),
    Case(
        "zero_grad(set_to_none=False) after backward(create_graph=True)",
        grads_after(False, create_graph=True),
        convention="a gradient that is part of a graph is detached before zeroing",
    ),
]

# --- the cosine schedule ----------------------------------------------------------


def cosine(steps: int, *more: float, **settings: Any) -> Any:
    """The learning rates seen over ``steps`` steps of CosineAnnealingLR."""

    def run(torch: Any) -> Any:
        optimizer = one_group(torch, 0.5, *more)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, **settings)
        seen = []
        for _ in range(steps):
            seen.append(scheduler.get_last_lr())
            optimizer.step()
            scheduler.step()
        return seen

    return run


def chained(torch: Any) -> Any:
    """Two schedulers on one optimiser: each step multiplies their effects."""
    optimizer = one_group(torch, 0.5)
    schedulers = [
        torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=6),
        torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9),
    ]
    seen = []
    for _ in range(5):
        optimizer.step()
        for scheduler in schedulers:
            scheduler.step()
        seen.append(optimizer.param_groups[0]["lr"])
    return seen


def cosine_resumed(torch: Any) -> Any:
    optimizer = one_group(torch, 0.5)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=8)
    for _ in range(3):
        optimizer.step()
        scheduler.step()
    state = scheduler.state_dict()
    again = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=8)
    again.load_state_dict(state)
    seen = []
    for _ in range(4):
        optimizer.step()
        again.step()
        seen.append(again.get_last_lr())
    return seen


def cosine_with_sgd(torch: Any) -> Any:
    p = torch.tensor(START, requires_grad=True)
    optimizer = torch.optim.SGD([p], lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=5)
    for _ in range(5):
        train_steps(optimizer, [p], 1, torch)
        scheduler.step()
    return p


COSINE = [
    Case("CosineAnnealingLR(opt, T_max=10): 11 steps", cosine(11, T_max=10)),
    Case(
        "CosineAnnealingLR(opt, T_max=4, eta_min=0.1): 5 steps",
        cosine(5, T_max=4, eta_min=0.1),
    ),
    Case("CosineAnnealingLR(opt, T_max=1): 2 steps", cosine(2, T_max=1)),
    Case(
        "two groups at 0.5 and 0.2, T_max=5: 6 steps",
        cosine(6, 0.2, T_max=5),
    ),
    Case("CosineAnnealingLR(opt, T_max=3): 8 steps, past T_max", cosine(8, T_max=3)),
    Case("5 steps of SGD with momentum under a cosine schedule", cosine_with_sgd),
    Case("3 steps, state_dict, load_state_dict, 4 more", cosine_resumed),
    Case(
        "CosineAnnealingLR and ExponentialLR on one optimiser",
        chained,
        convention="get_lr works from the group's current lr (a recursive form), "
        "so that schedulers can be chained",
    ),
]

# --- clip_grad_norm_ --------------------------------------------------------------

GRAD_W = [[1.0, -2.0], [2.0, 4.0]]
GRAD_B = [-12.0, 0.0]  # all together: a norm of 13


def clipped(max_norm: float, scale: float = 1.0, **options: Any) -> Any:
    """Two parameters with set gradients, clipped together."""

    def run(torch: Any) -> Any:
        w = torch.zeros(2, 2, requires_grad=True)
        b = torch.zeros(2, requires_grad=True)
        w.grad = torch.tensor(GRAD_W) * scale
        b.grad = torch.tensor(GRAD_B) * scale
        total = torch.nn.utils.clip_grad_norm_([w, b], max_norm, **options)
        return {"total": total, "w.grad": w.grad, "b.grad": b.grad}

    return run


def one_tensor(torch: Any) -> Any:
    w = torch.zeros(3, requires_grad=True)
    w.grad = torch.tensor([2.0, -1.0, 2.0])
    total = torch.nn.utils.clip_grad_norm_(w, 1.5)
    return {"total": total, "w.grad": w.grad}


def from_a_generator(torch: Any) -> Any:
    """``model.parameters()`` is a generator: it can be read only once."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(2, 2)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor([[1.0, -2.0], [0.5, 3.0]]))
        layer.bias.copy_(torch.tensor([0.1, -0.1]))
    (layer(torch.tensor([[4.0, 1.0], [-2.0, 3.0]])) ** 2).sum().backward()
    total = torch.nn.utils.clip_grad_norm_(layer.parameters(), 1.0)
    return {"total": total, "weight": layer.weight.grad, "bias": layer.bias.grad}


def some_without_grad(torch: Any) -> Any:
    w = torch.zeros(2, requires_grad=True)
    unused = torch.zeros(2, requires_grad=True)
    w.grad = torch.tensor([6.0, 8.0])
    total = torch.nn.utils.clip_grad_norm_([w, unused], 5.0)
    return {"total": total, "w.grad": w.grad, "unused.grad": unused.grad}


def nonfinite(torch: Any) -> Any:
    w = torch.zeros(2, requires_grad=True)
    w.grad = torch.tensor([float("inf"), 1.0])
    torch.nn.utils.clip_grad_norm_([w], 1.0, error_if_nonfinite=True)
    return w.grad


CLIP = [
    Case("max_norm=1.0 (total norm 13)", clipped(1.0)),
    Case("max_norm=7.0", clipped(7.0)),
    Case("max_norm=100.0: nothing to clip", clipped(100.0)),
    Case("max_norm=2.0, norm_type=1", clipped(2.0, norm_type=1)),
    Case("max_norm=2.0, norm_type=inf", clipped(2.0, norm_type=float("inf"))),
    Case("max_norm=1.0, gradients of 1e-3", clipped(1.0, scale=1e-3)),
    Case("one tensor instead of a list", one_tensor),
    Case("layer.parameters(): a generator", from_a_generator),
    Case("a parameter without a gradient", some_without_grad),
    Case(
        "an inf gradient with error_if_nonfinite=True",
        nonfinite,
        convention="a non-finite total norm raises RuntimeError when asked to",
    ),
]

# --- batching: BatchSampler -------------------------------------------------------


def batches(n: int, batch_size: int, drop_last: bool = False) -> Any:
    """The batches of a BatchSampler over ``SequentialSampler(range(n))``."""

    def run(torch: Any) -> Any:
        data = torch.utils.data
        order = data.SequentialSampler(range(n))
        sampler = data.BatchSampler(order, batch_size, drop_last)
        found = list(sampler)
        return {"len": len(sampler), "sizes": [len(b) for b in found], "x": found}

    return run


def sampler_directly(torch: Any) -> Any:
    sampler = torch.utils.data.BatchSampler(range(7), batch_size=3, drop_last=False)
    return {"len": len(sampler), "twice": [list(sampler), list(sampler)]}


def over_shuffled(torch: Any) -> Any:
    """Batches of shuffled indices: every index once, in batches of 4, 4, 2."""
    data = torch.utils.data
    order = data.RandomSampler(range(10), generator=torch.Generator().manual_seed(0))
    found = list(data.BatchSampler(order, 4, False))
    return {
        "sizes": [len(b) for b in found],
        "all": sorted(i for b in found for i in b),
    }


BATCHES = [
    Case("10 samples, batch_size=4", batches(10, 4)),
    Case("10 samples, batch_size=4, drop_last=True", batches(10, 4, True)),
    Case("12 samples, batch_size=4", batches(12, 4)),
    Case("12 samples, batch_size=4, drop_last=True", batches(12, 4, True)),
    Case("3 samples, batch_size=5", batches(3, 5)),
    Case("10 samples, batch_size=1", batches(10, 1)),
    Case("BatchSampler(range(7), 3, False), read twice", sampler_directly),
    Case("over a RandomSampler: sizes and indices", over_shuffled),
    Case(
        "3 samples, batch_size=5, drop_last=True",
        batches(3, 5, True),
        convention="with drop_last, a data set smaller than a batch gives no batch",
    ),
]

# --- shuffling: RandomSampler.__iter__ --------------------------------------------


def one_pass(n: int, **options: Any) -> Any:
    def run(torch: Any) -> Any:
        sampler = torch.utils.data.RandomSampler(
            range(n), generator=torch.Generator().manual_seed(1), **options
        )
        order = list(sampler)
        counts = sorted(Counter(order).values())
        return {
            "length": len(order),
            "in range": all(0 <= i < n for i in order),
            "counts": counts if not options.get("replacement") else None,
            "first n a permutation": sorted(order[:n]) == list(range(n))
            if not options.get("replacement")
            else None,
        }

    return run


def repeats(torch: Any) -> Any:
    """With replacement, ten draws from ten indices: some index comes twice
    (a permutation would have none)."""
    sampler = torch.utils.data.RandomSampler(
        range(10), replacement=True, generator=torch.Generator().manual_seed(5)
    )
    order = list(sampler)
    return {"length": len(order), "some index twice": len(set(order)) < len(order)}


def shuffled_not_sorted(torch: Any) -> Any:
    sampler = torch.utils.data.RandomSampler(
        range(20), generator=torch.Generator().manual_seed(2)
    )
    first, second = list(sampler), list(sampler)
    return {
        "first sorted": first == sorted(first),
        "new order each pass": first != second,
        "same indices": sorted(first) == sorted(second) == list(range(20)),
    }


def same_seed(torch: Any) -> Any:
    orders = []
    for _ in range(2):
        sampler = torch.utils.data.RandomSampler(
            range(15), generator=torch.Generator().manual_seed(7)
        )
        orders.append(list(sampler))
    return orders[0] == orders[1]


def global_seed(torch: Any) -> Any:
    """No generator: each pass draws from the global one (torch.manual_seed)."""
    orders = []
    for _ in range(2):
        torch.manual_seed(3)
        orders.append(list(torch.utils.data.RandomSampler(range(15))))
    return {"same after manual_seed": orders[0] == orders[1], "n": len(orders[0])}


def batched_epochs(torch: Any) -> Any:
    """Two passes of batches over a RandomSampler (as a shuffling DataLoader)."""
    data = torch.utils.data
    order = data.RandomSampler(range(12), generator=torch.Generator().manual_seed(4))
    sampler = data.BatchSampler(order, 5, False)
    epochs = [[i for b in sampler for i in b] for _ in range(2)]
    return {
        "sizes": [len(b) for b in sampler],
        "each epoch every index": [sorted(e) == list(range(12)) for e in epochs],
        "epochs differ": epochs[0] != epochs[1],
    }


SHUFFLE = [
    Case("RandomSampler(range(10)): one pass", one_pass(10)),
    Case("RandomSampler(range(20)): two passes", shuffled_not_sorted),
    Case("two samplers seeded alike", same_seed),
    Case("torch.manual_seed(3) before each pass", global_seed),
    Case(
        "BatchSampler(RandomSampler(range(12)), 5, False), two passes", batched_epochs
    ),
    Case(
        "RandomSampler(range(10), replacement=True, num_samples=30)",
        one_pass(10, replacement=True, num_samples=30),
    ),
    Case(
        "RandomSampler(range(10), replacement=True): some index twice",
        repeats,
    ),
    Case(
        "RandomSampler(range(10), num_samples=25)",
        one_pass(10, num_samples=25),
        convention="without replacement, num_samples > n chains whole permutations",
    ),
]

# --- the training loop ------------------------------------------------------------


def mlp(torch: Any, sizes: list[int], seed: int) -> Any:
    """A tanh MLP whose weights are set from ``seed`` (the same in both libraries)."""
    rng = random.Random(seed)
    layers: list[Any] = []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        layers += [torch.nn.Linear(fan_in, fan_out), torch.nn.Tanh()]
    model = torch.nn.Sequential(*layers[:-1])
    with torch.no_grad():
        for p in model.parameters():
            bound = 1.0 / p.shape[-1] ** 0.5 if p.dim() == 2 else 0.5
            values = [rng.uniform(-bound, bound) for _ in range(p.numel())]
            p.copy_(torch.tensor(values).reshape(p.shape))
    return model


LINE_X = [[i / 4 - 1.5] for i in range(12)]
LINE_Y = [[2.0 * x - 0.5 + 0.1 * ((i * 7) % 5 - 2)] for i, (x,) in enumerate(LINE_X)]
MOONS = make_moons(120, noise=0.1, seed=3)
_BLOB_POINTS, _BLOB_LABELS = make_blobs(90, centers=3, cluster_std=1.0, seed=0)
BLOBS = ([[x / 5, y / 5] for x, y in _BLOB_POINTS], _BLOB_LABELS)  # scaled to ~[-2, 2]


class Batches:
    """The loader of the training cases: ``(inputs, targets)`` batches of rows
    of ``xs`` and ``ys``, in a new order at each pass when ``shuffle_seed`` is
    given (drawn with Python's ``random``, so the same in both libraries).
    It stands for a DataLoader, which exercise 4.14 asks for."""

    def __init__(
        self,
        torch: Any,
        xs: list[Any],
        ys: list[Any],
        batch_size: int,
        shuffle_seed: int | None = None,
    ) -> None:
        self.torch, self.xs, self.ys = torch, xs, ys
        self.batch_size = batch_size
        self.rng = None if shuffle_seed is None else random.Random(shuffle_seed)

    def __iter__(self) -> Any:
        order = list(range(len(self.xs)))
        if self.rng is not None:
            self.rng.shuffle(order)
        for start in range(0, len(order), self.batch_size):
            chosen = order[start : start + self.batch_size]
            inputs = self.torch.tensor([self.xs[i] for i in chosen])
            yield inputs, self.torch.tensor([self.ys[i] for i in chosen])


def regression(epochs: int, batch_size: int, n: int = 12, momentum: float = 0.0) -> Any:
    """Losses per epoch of a straight-line fit (same start in both libraries)."""

    def run(torch: Any) -> Any:
        model = mlp(torch, [1, 1], 0)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=momentum)
        loader = Batches(torch, LINE_X[:n], LINE_Y[:n], batch_size)
        losses = Loop.train(model, torch.nn.MSELoss(), optimizer, loader, epochs)
        return {"losses": list(losses), "weight": model[0].weight}

    return run


def returns_floats(torch: Any) -> Any:
    model = mlp(torch, [1, 1], 0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = Batches(torch, LINE_X, LINE_Y, 6)
    losses = Loop.train(model, torch.nn.MSELoss(), optimizer, loader, 2)
    return [type(loss).__name__ for loss in losses]


def classifier(
    points: Any, sizes: list[int], epochs: int, target: float, frozen: bool = False
) -> Any:
    """Trains a classifier with the student's loop; did it reach ``target``?"""

    def run(torch: Any) -> Any:
        xs, ys = points
        model = mlp(torch, sizes, 1)
        first = model[0].weight.detach().clone()
        params = model[2].parameters() if frozen else model.parameters()
        optimizer = torch.optim.Adam(params, lr=0.05)
        loader = Batches(torch, xs, ys, 30, shuffle_seed=0)
        losses = Loop.train(
            model, torch.nn.CrossEntropyLoss(), optimizer, loader, epochs
        )
        with torch.no_grad():
            guess = model(torch.tensor(xs)).argmax(dim=1)
            accuracy = (guess == torch.tensor(ys)).float().mean().item()
        result = {
            f"accuracy >= {target}": accuracy >= target,
            "epochs": len(losses),
            "loss went down": losses[-1] < losses[0],
        }
        if frozen:
            result["first layer unchanged"] = bool((model[0].weight == first).all())
        return result

    return run


def reference_train(
    model: Any, loss_fn: Any, optimizer: Any, loader: Any, epochs: int
) -> list[float]:
    """The engine has no training loop; this one stands for it (see ``Loop``)."""
    history = []
    for _ in range(epochs):
        seen = []
        for inputs, targets in loader:

            def closure(inputs: Any = inputs, targets: Any = targets) -> Any:
                error = loss_fn(model(inputs), targets)
                optimizer.zero_grad()
                error.backward()
                return error

            seen.append((float(optimizer.step(closure)), len(inputs)))
        samples = sum(size for _, size in seen)
        history.append(sum(loss * size for loss, size in seen) / samples)
    return history


class Loop:
    """Where the check puts the student's ``train`` (the target of 4.10)."""

    train = staticmethod(reference_train)


TRAIN = [
    Case("a straight line: losses of 3 epochs, batches of 4", regression(3, 4)),
    Case("a straight line with momentum 0.9: 3 epochs", regression(3, 4, momentum=0.9)),
    Case("10 points in batches of 4, 4, 2: 3 epochs", regression(3, 4, n=10)),
    Case("the losses are Python floats", returns_floats),
    Case("two moons, 2-16-2, Adam, 12 epochs", classifier(MOONS, [2, 16, 2], 12, 0.85)),
    Case(
        "two moons, only the last layer trained",
        classifier(MOONS, [2, 16, 2], 4, 0.75, frozen=True),
    ),
    Case("three blobs, 2-8-3, Adam, 6 epochs", classifier(BLOBS, [2, 8, 3], 6, 0.9)),
    Case(
        "epochs=0",
        regression(0, 4),
        convention="no epochs: no step, and an empty list of losses",
    ),
]

# --- the exercises ----------------------------------------------------------------

EXERCISES = {
    "4.1": Exercise(
        "4.1",
        "which learning rate",
        "answers_4_1",
        "predict",
        [Case(text, run) for text, run in SCHEDULES.items()],
        [
            "Each scheduler.step() moves one step on; the rate at step 0 is the "
            "one set when the scheduler is made. Write plain floats.",
            "StepLR and MultiStepLR multiply by gamma at their steps; ExponentialLR "
            "at every step; LinearLR scales by a factor going from start to 1.",
            "Cosine: eta_min + (lr0 - eta_min) * (1 + cos(pi * t / T_max)) / 2. "
            "ReduceLROnPlateau waits for more than `patience` epochs without "
            "improvement.",
        ],
    ),
    "4.2": Exercise(
        "4.2",
        "the loop's bookkeeping",
        "answers_4_2",
        "predict",
        [Case(text, program(text)) for text in BOOKKEEPING],
        [
            "Write tensors as lists of floats, None for no gradient, shapes as "
            "tuples, dtypes as 'torch.int64'.",
            "backward adds to .grad; step uses whatever .grad holds and skips "
            "parameters whose .grad is None.",
            "Adam's first step moves each element by about lr, whatever the "
            "gradient's size; clip_grad_norm_ returns the norm before clipping.",
        ],
    ),
    "4.3": Exercise(
        "4.3",
        "clear_grads",
        "clear_grads",
        "piece",
        ZERO_GRAD,
        [
            "Visit every parameter in params; skip those whose .grad is None.",
            "set_to_none=True sets .grad to None; otherwise fill the existing "
            "tensor with zeros, in place, so it stays the same object.",
            "A gradient made with create_graph=True is part of a graph: detach "
            "it in place (detach_) before zeroing it.",
        ],
        target="slowtorch_lib.autograd.function.clear_grads",
        what="uses of zero_grad",
    ),
    "4.4": Exercise(
        "4.4",
        "SGD with momentum and Nesterov",
        "sgd_update",
        "piece",
        SGD,
        [
            "Change param in place (param.add_(..., alpha=-lr)); the settings are "
            "in group, the memory of past steps in state.",
            "Weight decay adds weight_decay * param to the gradient; the buffer "
            "is momentum * buf + (1 - dampening) * grad; Nesterov steps along "
            "grad + momentum * buf.",
            "On the first step the buffer is a copy (clone) of the gradient; keep "
            "it in state['momentum_buffer'] so that state_dict saves it.",
        ],
        target="slowtorch_lib.optim.sgd.SGD._update",
        what="optimiser runs",
    ),
    "4.5": Exercise(
        "4.5",
        "Adam and AdamW",
        "adam_update",
        "piece",
        ADAM,
        [
            "Keep state['step'], state['exp_avg'] and state['exp_avg_sq'], made "
            "on the first call; the settings are in group.",
            "Both averages start at 0: divide them by 1 - beta1 ** t and "
            "1 - beta2 ** t. AdamW (group['decoupled_weight_decay']) multiplies "
            "param by 1 - lr * weight_decay instead of changing the gradient.",
            "amsgrad divides by the largest exp_avg_sq seen so far "
            "(state['max_exp_avg_sq']); maximize flips the gradient's sign.",
        ],
        target="slowtorch_lib.optim.adam.Adam._update",
        what="optimiser runs",
    ),
    "4.6": Exercise(
        "4.6",
        "the cosine schedule",
        "cosine_get_lr",
        "piece",
        COSINE,
        [
            "self.last_epoch is the step number t; self.base_lrs each group's "
            "starting rate; return one rate per group.",
            "Half a cosine from the base rate at t = 0 down to self.eta_min at "
            "t = T_max: its height is (1 + cos(pi * t / T_max)) / 2.",
            "To compose with other schedulers, work from each group's current "
            "lr: the new lr over the old one is the ratio of two heights.",
        ],
        target="slowtorch_lib.optim.lr_scheduler.CosineAnnealingLR.get_lr",
        what="schedules",
    ),
    "4.7": Exercise(
        "4.7",
        "clip_grad_norm_",
        "clip_grad_norm_",
        "piece",
        CLIP,
        [
            "The total norm is the norm of all gradients' elements as one long "
            "vector; return it (a 0-d tensor), measured before clipping.",
            "When it exceeds max_norm, multiply every gradient in place by "
            "max_norm / (total_norm + 1e-6): one factor for all of them.",
            "parameters may be one tensor or a generator that can be read once; "
            "the inf-norm is the largest absolute element.",
        ],
        target="slowtorch_lib.nn.utils.clip_grad.clip_grad_norm_",
        forbidden=("_values_norm", "_gradients"),
        what="clippings",
    ),
    "4.8": Exercise(
        "4.8",
        "batches: BatchSampler",
        "BatchSampler",
        "piece",
        BATCHES,
        [
            "Iterating over a BatchSampler gives lists of indices, taken in the "
            "order self.sampler gives them.",
            "Collect indices until you have batch_size of them, then yield the "
            "list; what is left at the end is a last, smaller batch.",
            "len() counts the batches: rounded up, or down with drop_last.",
        ],
        target="slowtorch_lib.utils.data.sampler.BatchSampler",
        what="loaders",
    ),
    "4.9": Exercise(
        "4.9",
        "shuffling: RandomSampler",
        "random_sampler_iter",
        "piece",
        SHUFFLE,
        [
            "A pass yields each index of range(n) once, in a random order drawn "
            "from self.generator.",
            "torch.randperm(n, generator=...) gives a random order; with no "
            "generator, draw from the global one (torch.manual_seed seeds it).",
            "With replacement, draw num_samples indices with torch.randint; "
            "without, chain whole permutations until num_samples are given.",
        ],
        target="slowtorch_lib.utils.data.sampler.RandomSampler.__iter__",
        # the other sampler's own pass draws the same permutation
        not_to_use=("SubsetRandomSampler",),
        what="shuffles",
    ),
    "4.10": Exercise(
        "4.10",
        "a training loop",
        "train",
        "piece",
        TRAIN,
        [
            "For each epoch, for each (inputs, targets) batch of the loader: one "
            "step of the five-line loop.",
            "zero_grad, forward, loss, backward, step: in that order, every batch. "
            "Keep each batch's loss as a Python float (loss.item()).",
            "A batch's loss is the mean over its samples: weigh it by the batch's "
            "size, and divide the epoch's total by its number of samples.",
        ],
        target="course.checks.ch04.Loop.train",
        forbidden=("reference_train",),
        what="trainings",
    ),
    "4.11": Exercise(
        "4.11",
        "build: Adagrad",
        "Adagrad",
        "piece",
        ADAGRAD,
        [
            "Three parts: check and collect the settings, hand them to the base "
            "class as defaults, then make every parameter's state at once.",
            "The state of a parameter is a step counter (a float32 0-d tensor) and "
            "the running sum of its squared gradients, which starts at "
            "initial_accumulator_value; _update may meet a parameter with no state "
            "yet (a group added later).",
            "In _update, apply maximize and weight decay to the gradient first, then "
            "the decayed rate for this step; update the sum and the parameter in "
            "place (addcmul_, addcdiv_), with eps added after the square root.",
        ],
        target="slowtorch_lib.optim.adagrad.Adagrad",
        what="optimiser runs",
        stretch=True,
    ),
    "4.12": Exercise(
        "4.12",
        "build: ReduceLROnPlateau",
        "ReduceLROnPlateau",
        "piece",
        PLATEAU,
        [
            "Keep the best value so far and the number of calls since it last "
            "improved; compare them with patience after each call.",
            "'Improves' depends on mode and threshold_mode: four comparisons "
            "(is_better). The best starts at inf for 'min' and -inf for 'max'.",
            "After a reduction reset the bad epochs and start the cooldown; during "
            "the cooldown, bad epochs stay at 0. Each group has its own min_lr, and "
            "a change smaller than eps is skipped.",
        ],
        target="slowtorch_lib.optim.lr_scheduler.ReduceLROnPlateau",
        what="schedules",
        stretch=True,
    ),
    "4.13": Exercise(
        "4.13",
        "build: RMSprop",
        "RMSprop",
        "piece",
        RMSPROP,
        [
            "Two parts: check and collect the settings and hand them to the base "
            "class as defaults; then _update, which makes a parameter's state the "
            "first time it meets it.",
            "The state is a step counter (a float32 0-d tensor), the running "
            "average of squared gradients, and, only when asked for, a momentum "
            "buffer and a running average of the gradients (centered).",
            "In _update, apply maximize and weight decay to the gradient first; "
            "update the averages in place (mul_, addcmul_, lerp_), add eps after "
            "the square root, then step the parameter directly or through the "
            "buffer.",
        ],
        target="slowtorch_lib.optim.rmsprop.RMSprop",
        what="optimiser runs",
        stretch=True,
    ),
    "4.14": Exercise(
        "4.14",
        "build: DataLoader",
        "DataLoader",
        "piece",
        LOADER,
        [
            "Check the options first. Then choose the sampler (given, random or "
            "sequential) and, when batching, wrap it in a BatchSampler; without "
            "batching there is no batch sampler.",
            "The collate function is default_collate when batching and "
            "default_convert when not (both in torch.utils.data), unless one is "
            "given.",
            "A pass asks the batch sampler (or the sampler) again, fetches the "
            "samples with dataset[i] and collates them; len() is the length of "
            "whichever sampler a pass reads.",
        ],
        target="slowtorch_lib.utils.data.dataloader.DataLoader",
        what="loaders",
        stretch=True,
    ),
}
