"""Chapter 4: grading-only cases (left out of a student release).

Same form as the public cases in ``ch04.py``; the grader runs both.
"""

from __future__ import annotations

from typing import Any

from course.checking import Case
from course.checks import drawn as d
from course.checks.ch04 import (
    BLOBS,
    batches,
    classifier,
    clipped,
    cosine,
    grads_after,
    lr_after,
    one_pass,
    regression,
)
from course.checks.ch04_builds import (
    pairs,
    reduced,
    served,
)
from course.checks.ch04_programs import (
    resumed,
    saved_state,
    trajectory,
    two_groups,
)


def many_groups(torch: Any) -> Any:
    params = [torch.full((2,), float(k), requires_grad=True) for k in range(3)]
    optimizer = torch.optim.SGD([{"params": [p]} for p in params], lr=0.1)
    for p in params:
        (p * p).sum().backward()
    optimizer.zero_grad(set_to_none=False)
    return [p.grad for p in params]


CASES = {
    "4.3": [
        Case("three groups, zero_grad(set_to_none=False)", many_groups),
        Case("zero_grad(set_to_none=True) after create_graph", grads_after(True, True)),
    ],
    "4.4": [
        Case(
            "SGD(lr=0.01, momentum=0.5, nesterov=True, weight_decay=0.2)",
            trajectory("SGD", lr=0.01, momentum=0.5, nesterov=True, weight_decay=0.2),
        ),
        Case(
            "SGD(lr=0.02, momentum=0.9, nesterov=True): state after 3 steps",
            saved_state("SGD", lr=0.02, momentum=0.9, nesterov=True),
        ),
    ],
    "4.5": [
        Case(
            "AdamW(lr=0.05, amsgrad=True), 8 steps",
            trajectory("AdamW", 8, lr=0.05, amsgrad=True),
        ),
        Case(
            "AdamW(lr=0.1, weight_decay=0.3): 3 steps, load_state_dict, 3 more",
            resumed("AdamW", lr=0.1, weight_decay=0.3),
        ),
        Case(
            "two groups: Adam {betas: (0.8, 0.99)} and lr=0.05",
            two_groups("Adam", {"betas": (0.8, 0.99)}, {"lr": 0.05}),
        ),
    ],
    "4.6": [
        Case(
            "CosineAnnealingLR(opt, T_max=2, eta_min=0.05): 9 steps",
            cosine(9, T_max=2, eta_min=0.05),
        ),
        Case("three groups, T_max=7: 8 steps", cosine(8, 0.1, 0.3, T_max=7)),
    ],
    "4.7": [
        Case("max_norm=0.5, norm_type=3", clipped(0.5, norm_type=3)),
        Case("max_norm=13.0: the norm itself", clipped(13.0)),
    ],
    "4.8": [
        Case("7 samples, batch_size=3", batches(7, 3)),
        Case("7 samples, batch_size=7, drop_last=True", batches(7, 7, True)),
    ],
    "4.9": [
        Case("RandomSampler(range(1)): one pass", one_pass(1)),
        Case(
            "RandomSampler(range(6), replacement=True, num_samples=4)",
            one_pass(6, replacement=True, num_samples=4),
        ),
    ],
    "4.11": [
        Case(
            "Adagrad(lr=0.05, lr_decay=0.2, weight_decay=0.1), 8 steps",
            trajectory("Adagrad", 8, lr=0.05, lr_decay=0.2, weight_decay=0.1),
        ),
        Case(
            "Adagrad(lr=0.3, initial_accumulator_value=0.2): resumed",
            resumed("Adagrad", lr=0.3, initial_accumulator_value=0.2),
        ),
        Case(
            "two groups: Adagrad {eps: 0.1} and lr=0.2",
            two_groups("Adagrad", {"eps": 0.1}, {"lr": 0.2}),
        ),
    ],
    "4.13": [
        Case(
            "RMSprop(lr=0.02, alpha=0.9, weight_decay=0.1, momentum=0.3), 8 steps",
            trajectory(
                "RMSprop", 8, lr=0.02, alpha=0.9, weight_decay=0.1, momentum=0.3
            ),
        ),
        Case(
            "RMSprop(lr=0.02, centered=True): resumed",
            resumed("RMSprop", lr=0.02, centered=True),
        ),
        Case(
            "two groups: RMSprop {centered: True} and lr=0.03",
            two_groups("RMSprop", {"centered": True}, {"lr": 0.03}),
        ),
    ],
    "4.14": [
        Case(
            "DataLoader(ds, 3, sampler=[1, 1, 8, 0], drop_last=True)",
            served(
                lambda t, d: d.DataLoader(
                    pairs(t), 3, sampler=[1, 1, 8, 0], drop_last=True
                )
            ),
        ),
        Case(
            "DataLoader(ds, batch_size=None, sampler=[2, 0])",
            served(
                lambda t, d: d.DataLoader(pairs(t), batch_size=None, sampler=[2, 0])
            ),
        ),
    ],
    "4.12": [
        Case(
            "mode='max', threshold_mode='abs', threshold=0.05, cooldown=1",
            reduced(
                [0.5, 0.52, 0.6, 0.6, 0.6, 0.6, 0.7],
                mode="max",
                threshold_mode="abs",
                threshold=0.05,
                cooldown=1,
                patience=0,
                factor=0.5,
            ),
        ),
        Case(
            "two groups, min_lr=0.2, patience=3",
            reduced([1.0] * 9, 0.4, min_lr=0.2, patience=3, factor=0.5),
        ),
    ],
    "4.10": [
        Case("a straight line: 2 epochs, batches of 12", regression(2, 12)),
        Case("three blobs, 2-16-3, 4 epochs", classifier(BLOBS, [2, 16, 3], 4, 0.9)),
    ],
}


# --- drawn cases: inputs drawn for each grading run (most of the marks) -----------
# The optimisers' cases set each gradient themselves (no backward pass): a
# mistake in chapter 2's pieces does not reach them.


OPTIONS: dict[str, list[tuple[str, list[Any]]]] = {
    "SGD": [
        ("lr", [0.1, 0.05, 0.5]),
        ("momentum", [0.0, 0.0, 0.9, 0.5]),
        ("dampening", [0.0, 0.0, 0.1]),
        ("weight_decay", [0.0, 0.0, 0.1]),
        ("maximize", [False, False, True]),
    ],
    "Adam": [
        ("lr", [0.1, 0.01, 0.3]),
        ("betas", [(0.9, 0.999), (0.5, 0.9), (0.8, 0.99)]),
        ("eps", [1e-8, 1e-3]),
        ("weight_decay", [0.0, 0.0, 0.1]),
        ("amsgrad", [False, True]),
        ("maximize", [False, False, True]),
    ],
    "Adagrad": [
        ("lr", [0.1, 0.5]),
        ("lr_decay", [0.0, 0.0, 0.1]),
        ("weight_decay", [0.0, 0.0, 0.1]),
        ("initial_accumulator_value", [0.0, 0.0, 0.5]),
        ("eps", [1e-10, 1e-3]),
    ],
    "RMSprop": [
        ("lr", [0.01, 0.1]),
        ("alpha", [0.99, 0.9, 0.5]),
        ("eps", [1e-8, 1e-3]),
        ("weight_decay", [0.0, 0.0, 0.1]),
        ("momentum", [0.0, 0.0, 0.9]),
        ("centered", [False, False, True]),
    ],
}


def stepped(make: str) -> Any:
    """A few steps of ``torch.optim.<make>`` with drawn settings, on drawn
    parameters and drawn gradients (set, not computed)."""

    def run(torch: Any, rng: d.Rng) -> Any:
        settings = {name: rng.choice(values) for name, values in OPTIONS[make]}
        if make == "SGD" and settings["momentum"] and rng.random() < 0.4:
            settings["nesterov"], settings["dampening"] = True, 0.0
        params = [d.leaf(torch, rng, d.shape(rng, 1, 3, (1, 2))) for _ in range(2)]
        optimizer = getattr(torch.optim, make)(params, **settings)
        seen = []
        for _ in range(rng.randint(1, 5)):
            for p in params:
                p.grad = d.tensor(torch, rng, list(p.shape))
            optimizer.step()
            seen.append([p.detach().clone() for p in params])
        return seen

    return run


def cleared(torch: Any, rng: d.Rng) -> Any:
    sizes = [rng.randint(1, 3) for _ in range(3)]
    model = torch.nn.Sequential(
        torch.nn.Linear(sizes[0], sizes[1]), torch.nn.Linear(sizes[1], sizes[2])
    )
    params = list(model.parameters())
    for p in params:
        if rng.random() < 0.7:
            p.grad = d.tensor(torch, rng, list(p.shape))
    none = rng.choice([True, False])
    if rng.random() < 0.5:
        torch.optim.SGD(params, lr=0.1).zero_grad(set_to_none=none)
    else:
        model.zero_grad(set_to_none=none)
    return [None if p.grad is None else p.grad for p in params]


def cosine_drawn(torch: Any, rng: d.Rng) -> Any:
    period = rng.randint(2, 8)
    floor = rng.choice([0.0, 0.0, 0.1, 0.5])
    steps = rng.randint(1, 3 * period)
    more = tuple(rng.choice([0.5, 2.0]) for _ in range(rng.randint(0, 1)))
    make = lambda s, o: s.CosineAnnealingLR(o, T_max=period, eta_min=floor)  # noqa: E731
    return lr_after(make, steps, *more)(torch)


def clip_drawn(torch: Any, rng: d.Rng) -> Any:
    params = [
        d.leaf(torch, rng, d.shape(rng, 1, 3, (1, 2))) for _ in range(rng.randint(1, 3))
    ]
    for p in params:
        p.grad = d.tensor(torch, rng, list(p.shape))
    norm_type = rng.choice([2.0, 2.0, 1.0, 3.0, float("inf")])
    max_norm = rng.choice([0.5, 1.0, 5.0, 100.0])
    total = torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
    return {"total": total, "grads": [p.grad for p in params]}


def batch_sampler_drawn(torch: Any, rng: d.Rng) -> Any:
    return batches(rng.randint(0, 20), rng.randint(1, 6), rng.random() < 0.5)(torch)


def random_sampler_drawn(torch: Any, rng: d.Rng) -> Any:
    options: dict[str, Any] = {}
    if rng.random() < 0.4:
        options["replacement"] = True
    if rng.random() < 0.5:
        options["num_samples"] = rng.randint(1, 25)
    return one_pass(rng.randint(1, 12), **options)(torch)


def regression_drawn(torch: Any, rng: d.Rng) -> Any:
    run = regression(
        rng.randint(1, 3), rng.randint(1, 6), rng.randint(4, 12), rng.choice([0.0, 0.9])
    )
    return run(torch)


def plateau_drawn(torch: Any, rng: d.Rng) -> Any:
    metrics = [round(rng.uniform(0, 5), 1) for _ in range(rng.randint(3, 12))]
    settings: dict[str, Any] = {
        "mode": rng.choice(["min", "max"]),
        "factor": rng.choice([0.5, 0.1]),
        "patience": rng.randint(0, 3),
        "threshold": rng.choice([1e-4, 0.1]),
        "threshold_mode": rng.choice(["rel", "abs"]),
        "cooldown": rng.randint(0, 2),
        "min_lr": rng.choice([0.0, 0.3]),
    }
    return reduced(metrics, **settings)(torch)


def loader_drawn(torch: Any, rng: d.Rng) -> Any:
    n = rng.randint(0, 12)
    size = rng.randint(1, 5)
    last = rng.random() < 0.5
    rows = [d.values(rng, 2) for _ in range(n)]
    labels = [rng.randrange(3) for _ in range(n)]

    def make(t: Any, data: Any) -> Any:
        dataset = data.TensorDataset(t.tensor(rows).reshape(n, 2), t.tensor(labels))
        return data.DataLoader(dataset, batch_size=size, drop_last=last)

    return served(make)(torch)


DRAWN = {
    "4.3": [
        d.drawn("zero_grad of drawn gradients", cleared),
        d.drawn("zero_grad (again)", cleared),
        d.drawn("zero_grad (a third)", cleared),
    ],
    "4.4": [
        d.drawn("SGD steps, drawn settings and gradients", stepped("SGD")),
        d.drawn("SGD steps (again)", stepped("SGD")),
        d.drawn("SGD steps (a third)", stepped("SGD")),
    ],
    "4.5": [
        d.drawn("Adam steps, drawn settings and gradients", stepped("Adam")),
        d.drawn("Adam steps (again)", stepped("Adam")),
        d.drawn("Adam steps (a third)", stepped("Adam")),
    ],
    "4.6": [
        d.drawn("CosineAnnealingLR, drawn T_max, eta_min, steps", cosine_drawn),
        d.drawn("CosineAnnealingLR (again)", cosine_drawn),
        d.drawn("CosineAnnealingLR (a third)", cosine_drawn),
    ],
    "4.7": [
        d.drawn("clip_grad_norm_, drawn gradients and norms", clip_drawn),
        d.drawn("clip_grad_norm_ (again)", clip_drawn),
        d.drawn("clip_grad_norm_ (a third)", clip_drawn),
    ],
    "4.8": [
        d.drawn("BatchSampler, drawn n, batch_size, drop_last", batch_sampler_drawn),
        d.drawn("BatchSampler (again)", batch_sampler_drawn),
        d.drawn("BatchSampler (a third)", batch_sampler_drawn),
    ],
    "4.9": [
        d.drawn("RandomSampler, drawn n and options", random_sampler_drawn),
        d.drawn("RandomSampler (again)", random_sampler_drawn),
        d.drawn("RandomSampler (a third)", random_sampler_drawn),
    ],
    "4.10": [
        d.drawn("a drawn straight-line fit", regression_drawn),
        d.drawn("a drawn straight-line fit (again)", regression_drawn),
    ],
    "4.11": [
        d.drawn("Adagrad steps, drawn settings and gradients", stepped("Adagrad")),
        d.drawn("Adagrad steps (again)", stepped("Adagrad")),
        d.drawn("Adagrad steps (a third)", stepped("Adagrad")),
    ],
    "4.12": [
        d.drawn("ReduceLROnPlateau, drawn metrics and settings", plateau_drawn),
        d.drawn("ReduceLROnPlateau (again)", plateau_drawn),
        d.drawn("ReduceLROnPlateau (a third)", plateau_drawn),
    ],
    "4.13": [
        d.drawn("RMSprop steps, drawn settings and gradients", stepped("RMSprop")),
        d.drawn("RMSprop steps (again)", stepped("RMSprop")),
        d.drawn("RMSprop steps (a third)", stepped("RMSprop")),
    ],
    "4.14": [
        d.drawn("DataLoader over a drawn TensorDataset", loader_drawn),
        d.drawn("DataLoader (again)", loader_drawn),
        d.drawn("DataLoader (a third)", loader_drawn),
    ],
}
