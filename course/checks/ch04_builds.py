"""Chapter 4's stretch builds: the public cases of 4.11 to 4.14.

Adagrad, RMSprop, the whole ``DataLoader`` and ``ReduceLROnPlateau``: each
is a whole class, checked as PyTorch's is, its refusals of bad settings
included. The exercises themselves are in :mod:`course.checks.ch04`.
"""

from __future__ import annotations

import warnings
from typing import Any

from course.checking import Case
from course.checks.ch04_programs import (
    SECOND,
    START,
    one_group,
    resumed,
    saved_state,
    train_steps,
    trajectory,
    two_groups,
    without_grad,
)

# --- the samples that DataLoader's cases share ------------------------------------


def dict_samples(torch: Any) -> Any:
    class Squares(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return 5

        def __getitem__(self, i: int) -> Any:
            return {"x": float(i), "square": i * i}

    loader = torch.utils.data.DataLoader(Squares(), batch_size=2)
    return [batch for batch in loader]


# --- Adagrad, the whole optimiser ---------------------------------------------------


def fresh_state(torch: Any) -> Any:
    """The state before any step: Adagrad makes it when it is built."""
    p = torch.tensor(START, requires_grad=True)
    optimizer = torch.optim.Adagrad([p], lr=0.1, initial_accumulator_value=0.5)
    return optimizer.state_dict()


def refused(make: str, **settings: Any) -> Any:
    """Whether a setting is refused, and the parameter left alone."""

    def run(torch: Any) -> Any:
        p = torch.tensor(START, requires_grad=True)
        try:
            getattr(torch.optim, make)([p], **settings)
        except ValueError:
            return {"raised": "ValueError", "p": p}
        return {"raised": None, "p": p}

    return run


def added_group(torch: Any) -> Any:
    """A group added after construction gets its state at its first step."""
    p = torch.tensor(START, requires_grad=True)
    q = torch.tensor(SECOND, requires_grad=True)
    optimizer = torch.optim.Adagrad([p], lr=0.1)
    optimizer.add_param_group({"params": [q], "lr": 0.3})
    train_steps(optimizer, [p, q], 4, torch)
    return {"p": p, "q": q, "state": optimizer.state_dict()["state"]}


ADAGRAD = [
    Case("Adagrad(lr=0.1): 6 steps", trajectory("Adagrad", lr=0.1)),
    Case("Adagrad(lr=0.1, lr_decay=0.5)", trajectory("Adagrad", lr=0.1, lr_decay=0.5)),
    Case(
        "Adagrad(lr=0.1, weight_decay=0.5)",
        trajectory("Adagrad", lr=0.1, weight_decay=0.5),
    ),
    Case(
        "Adagrad(lr=0.2, initial_accumulator_value=1.0)",
        trajectory("Adagrad", lr=0.2, initial_accumulator_value=1.0),
    ),
    Case("Adagrad(lr=0.1, eps=0.5)", trajectory("Adagrad", lr=0.1, eps=0.5)),
    Case(
        "Adagrad(lr=0.1, maximize=True)",
        trajectory("Adagrad", 3, lr=0.1, maximize=True),
    ),
    Case(
        "two groups: Adagrad {lr: 0.5, lr_decay: 0.1} and the defaults lr=0.1",
        two_groups("Adagrad", {"lr": 0.5, "lr_decay": 0.1}, {"lr": 0.1}),
    ),
    Case("Adagrad: state_dict() before any step", fresh_state),
    Case(
        "Adagrad(lr=0.1): state_dict()['state'] after 3 steps",
        saved_state("Adagrad", lr=0.1),
    ),
    Case(
        "Adagrad(lr=0.1): 3 steps, load_state_dict, 3 more",
        resumed("Adagrad", lr=0.1),
    ),
    Case(
        "Adagrad(lr=0.1): a parameter without a gradient",
        without_grad("Adagrad", lr=0.1),
    ),
    Case("Adagrad(lr=-0.1)", refused("Adagrad", lr=-0.1)),
    Case("Adagrad(eps=-1e-3)", refused("Adagrad", eps=-1e-3)),
    Case("Adagrad(lr_decay=-1.0)", refused("Adagrad", lr_decay=-1.0)),
    Case(
        "add_param_group({'params': [q], 'lr': 0.3}) after construction",
        added_group,
        convention="a group added later gets its state at its first step",
    ),
]

# --- RMSprop, the whole optimiser ---------------------------------------------------


def first_state(make: str, **settings: Any) -> Any:
    """The state after one step: what the optimiser made, and its dtypes."""

    def run(torch: Any) -> Any:
        p = torch.tensor(START, requires_grad=True)
        optimizer = getattr(torch.optim, make)([p], **settings)
        before = len(optimizer.state)
        train_steps(optimizer, [p], 1, torch)
        state = optimizer.state[p]
        return {
            "states before": before,
            "keys": sorted(state),
            "dtypes": {k: str(v.dtype) for k, v in state.items()},
            "step shape": list(state["step"].shape),
        }

    return run


RMSPROP = [
    Case("RMSprop(lr=0.01): 6 steps", trajectory("RMSprop", lr=0.01)),
    Case("RMSprop(lr=0.05, alpha=0.5)", trajectory("RMSprop", lr=0.05, alpha=0.5)),
    Case(
        "RMSprop(lr=0.01, weight_decay=0.5)",
        trajectory("RMSprop", lr=0.01, weight_decay=0.5),
    ),
    Case(
        "RMSprop(lr=0.01, momentum=0.9)",
        trajectory("RMSprop", lr=0.01, momentum=0.9),
    ),
    Case(
        "RMSprop(lr=0.01, centered=True)",
        trajectory("RMSprop", lr=0.01, centered=True),
    ),
    Case(
        "RMSprop(lr=0.01, momentum=0.5, centered=True, eps=0.1)",
        trajectory("RMSprop", lr=0.01, momentum=0.5, centered=True, eps=0.1),
    ),
    Case(
        "RMSprop(lr=0.01, maximize=True)",
        trajectory("RMSprop", 3, lr=0.01, maximize=True),
    ),
    Case(
        "two groups: RMSprop {lr: 0.05, momentum: 0.5} and the defaults lr=0.01",
        two_groups("RMSprop", {"lr": 0.05, "momentum": 0.5}, {"lr": 0.01}),
    ),
    Case("RMSprop(): the state after one step", first_state("RMSprop")),
    Case(
        "RMSprop(momentum=0.9, centered=True): the state after one step",
        first_state("RMSprop", momentum=0.9, centered=True),
    ),
    Case(
        "RMSprop(lr=0.01, momentum=0.9, centered=True): state_dict()['state']",
        saved_state("RMSprop", lr=0.01, momentum=0.9, centered=True),
    ),
    Case(
        "RMSprop(lr=0.01, momentum=0.9): 3 steps, load_state_dict, 3 more",
        resumed("RMSprop", lr=0.01, momentum=0.9),
    ),
    Case(
        "RMSprop(lr=0.01): a parameter without a gradient",
        without_grad("RMSprop", lr=0.01),
    ),
    Case("RMSprop(lr=-0.1)", refused("RMSprop", lr=-0.1)),
    Case("RMSprop(eps=-1e-3)", refused("RMSprop", eps=-1e-3)),
    Case("RMSprop(momentum=-0.5)", refused("RMSprop", momentum=-0.5)),
    Case("RMSprop(weight_decay=-0.1)", refused("RMSprop", weight_decay=-0.1)),
    Case("RMSprop(alpha=-0.5)", refused("RMSprop", alpha=-0.5)),
    Case(
        "RMSprop(lr=0.01, alpha=0.0)",
        trajectory("RMSprop", 3, lr=0.01, alpha=0.0),
        convention="alpha=0 keeps no memory: each step divides by |g| + eps",
    ),
]

# --- DataLoader, whole ------------------------------------------------------------


def pairs(torch: Any, n: int = 10) -> Any:
    """A TensorDataset of ``n`` samples: a float row and an int64 label."""
    rows = torch.arange(2.0 * n).reshape(n, 2)
    return torch.utils.data.TensorDataset(rows, torch.arange(n) % 3)


def served(make: Any) -> Any:
    """Every batch of one pass (each batch's parts as lists), the dtypes of the
    first and the loader's length."""

    def run(torch: Any) -> Any:
        loader = make(torch, torch.utils.data)
        found = list(loader)
        first = found[0] if found else None
        return {
            "len": len(loader),
            "batches": [[part.tolist() for part in batch] for batch in found],
            "dtypes": [str(part.dtype) for part in first] if first else None,
        }

    return run


def setup(make: Any) -> Any:
    """What the loader keeps: its sampler and batch sampler, its settings."""

    def run(torch: Any) -> Any:
        dataset = pairs(torch)
        loader = make(torch.utils.data, dataset, torch)
        return {
            "dataset": loader.dataset is dataset,
            "sampler": type(loader.sampler).__name__,
            "batch_sampler": type(loader.batch_sampler).__name__,
            "batch_size": loader.batch_size,
            "drop_last": loader.drop_last,
        }

    return run


def shuffled_epochs(torch: Any) -> Any:
    """shuffle=True: every sample once per pass, a new order each pass, and
    the same orders again from a generator seeded alike."""
    data = torch.utils.data
    runs = []
    for _ in range(2):
        generator = torch.Generator().manual_seed(5)
        loader = data.DataLoader(pairs(torch, 12), 5, shuffle=True, generator=generator)
        runs.append([[y for _, ys in loader for y in ys.tolist()] for _ in range(2)])
        sizes = [len(ys) for _, ys in loader]
    return {
        "sizes": sizes,
        "every sample once": [
            sorted(e) == sorted(i % 3 for i in range(12)) for e in runs[0]
        ],
        "passes differ": runs[0][0] != runs[0][1],
        "same seed, same orders": runs[0] == runs[1],
    }


def global_shuffle(torch: Any) -> Any:
    """shuffle=True without a generator draws from the global one."""
    data = torch.utils.data
    orders = []
    for _ in range(2):
        torch.manual_seed(9)
        loader = data.DataLoader(data.TensorDataset(torch.arange(15)), 4, shuffle=True)
        orders.append([i for (b,) in loader for i in b.tolist()])
    return {"same": orders[0] == orders[1], "all": sorted(orders[0]) == list(range(15))}


def unbatched(torch: Any) -> Any:
    """batch_size=None: the samples one by one, a tuple made a list."""
    loader = torch.utils.data.DataLoader(pairs(torch, 3), batch_size=None)
    return {"len": len(loader), "samples": list(loader)}


def numbers(torch: Any) -> Any:
    """Samples that are Python numbers, strings and tuples of them."""

    class Mixed(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return 5

        def __getitem__(self, i: int) -> Any:
            return i, i / 4, i % 2 == 0, f"s{i}", torch.tensor([i, -i])

    return list(torch.utils.data.DataLoader(Mixed(), batch_size=3))


def custom_collate(torch: Any) -> Any:
    loader = torch.utils.data.DataLoader(
        pairs(torch, 7), batch_size=3, collate_fn=lambda batch: [y for _, y in batch]
    )
    return [[y.tolist() for y in batch] for batch in loader]


def loader_refused(**options: Any) -> Any:
    def run(torch: Any) -> Any:
        return len(torch.utils.data.DataLoader(pairs(torch), **options))

    return run


LOADER = [
    Case(
        "DataLoader(ds, batch_size=4): 10 samples",
        served(lambda t, d: d.DataLoader(pairs(t), batch_size=4)),
    ),
    Case(
        "DataLoader(ds, batch_size=4, drop_last=True)",
        served(lambda t, d: d.DataLoader(pairs(t), batch_size=4, drop_last=True)),
    ),
    Case(
        "DataLoader(ds): batches of one", served(lambda t, d: d.DataLoader(pairs(t, 3)))
    ),
    Case("shuffle=True with a generator: two passes, twice", shuffled_epochs),
    Case("shuffle=True, torch.manual_seed(9) before each pass", global_shuffle),
    Case(
        "sampler=[4, 0, 2, 9, 7], batch_size=2",
        served(lambda t, d: d.DataLoader(pairs(t), 2, sampler=[4, 0, 2, 9, 7])),
    ),
    Case(
        "batch_sampler=[[0, 1], [5], [2, 3, 4]]",
        served(
            lambda t, d: d.DataLoader(pairs(t), batch_sampler=[[0, 1], [5], [2, 3, 4]])
        ),
    ),
    Case("batch_size=None: one sample at a time", unbatched),
    Case("a collate_fn of one's own", custom_collate),
    Case("a data set of dicts, batch_size=2", dict_samples),
    Case("samples of ints, floats, bools, strings and tensors", numbers),
    Case(
        "what DataLoader(ds, batch_size=3) keeps",
        setup(lambda d, ds, t: d.DataLoader(ds, batch_size=3)),
    ),
    Case(
        "what DataLoader(ds, 2, shuffle=True, drop_last=True) keeps",
        setup(lambda d, ds, t: d.DataLoader(ds, 2, shuffle=True, drop_last=True)),
    ),
    Case(
        "what DataLoader(ds, batch_sampler=[[0], [1, 2]]) keeps",
        setup(lambda d, ds, t: d.DataLoader(ds, batch_sampler=[[0], [1, 2]])),
    ),
    Case(
        "what DataLoader(ds, batch_size=None) keeps",
        setup(lambda d, ds, t: d.DataLoader(ds, batch_size=None)),
    ),
    Case(
        "sampler=[0, 1] and shuffle=True", loader_refused(sampler=[0, 1], shuffle=True)
    ),
    Case(
        "batch_sampler=[[0]] and batch_size=2",
        loader_refused(batch_sampler=[[0]], batch_size=2),
    ),
    Case(
        "batch_sampler=[[0]] and drop_last=True",
        loader_refused(batch_sampler=[[0]], drop_last=True),
    ),
    Case(
        "batch_size=None and drop_last=True",
        loader_refused(batch_size=None, drop_last=True),
    ),
    Case("num_workers=-1", loader_refused(num_workers=-1)),
    Case("timeout=-1", loader_refused(timeout=-1)),
    Case(
        "DataLoader(ds, batch_size=20, drop_last=True): 10 samples",
        served(lambda t, d: d.DataLoader(pairs(t), batch_size=20, drop_last=True)),
        convention="with drop_last, a data set smaller than a batch gives no batch",
    ),
]

# --- ReduceLROnPlateau, the whole scheduler -----------------------------------------


def reduced(metrics: list[float], *more: float, **settings: Any) -> Any:
    """After each ``step(metric)``: the rates, the bad epochs, the cooldown."""

    def run(torch: Any) -> Any:
        optimizer = one_group(torch, 1.0, *more)
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, **settings)
        seen = []
        for metric in metrics:
            optimizer.step()
            scheduler.step(metric)
            seen.append(
                [
                    scheduler.get_last_lr(),
                    scheduler.num_bad_epochs,
                    scheduler.cooldown_counter,
                    scheduler.in_cooldown,
                ]
            )
        return {"steps": seen, "best": scheduler.best, "last": scheduler.last_epoch}

    return run


def plateau_resumed(torch: Any) -> Any:
    optimizer = one_group(torch, 1.0)
    make = torch.optim.lr_scheduler.ReduceLROnPlateau
    first = make(optimizer, patience=1, factor=0.5, cooldown=1)
    for metric in [3.0, 2.0, 2.0, 2.0]:
        first.step(metric)
    second = make(optimizer, patience=1, factor=0.5, cooldown=1)
    second.load_state_dict(first.state_dict())
    for metric in [2.0, 2.0, 2.0, 1.0]:
        second.step(metric)
    return [second.get_last_lr(), second.best, second.last_epoch]


def plateau_tensor_metric(torch: Any) -> Any:
    optimizer = one_group(torch, 1.0)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)
    for metric in [2.0, 3.0, 1.0]:
        scheduler.step(torch.tensor(metric))
    return [scheduler.get_last_lr(), scheduler.best]


def plateau_refused(make: Any) -> Any:
    def run(torch: Any) -> Any:
        optimizer = one_group(torch, 1.0, 0.5)
        plateau = torch.optim.lr_scheduler.ReduceLROnPlateau
        try:
            make(plateau, optimizer)
        except (ValueError, TypeError) as error:
            return type(error).__name__
        return "no error"

    return run


def plateau_epoch(torch: Any) -> Any:
    optimizer = one_group(torch, 1.0)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        scheduler.step(1.0, epoch=7)
    return [scheduler.last_epoch, sum(w.category is UserWarning for w in seen)]


LOSSES = [5.0, 4.0, 4.0, 4.0, 3.9999, 4.5, 4.5, 4.5, 4.5, 2.0, 2.0, 2.0]

PLATEAU = [
    Case("patience=1, factor=0.5", reduced(LOSSES, patience=1, factor=0.5)),
    Case("patience=2 (factor 0.1)", reduced(LOSSES, patience=2)),
    Case(
        "patience=1, cooldown=2, factor=0.5",
        reduced(LOSSES, patience=1, cooldown=2, factor=0.5),
    ),
    Case(
        "mode='max', patience=1, factor=0.5",
        reduced(
            [0.5, 0.6, 0.6, 0.55, 0.7, 0.7, 0.7], mode="max", patience=1, factor=0.5
        ),
    ),
    Case(
        "threshold_mode='abs', threshold=0.5, patience=0",
        reduced(
            [5.0, 4.6, 4.0, 3.9, 3.0], threshold_mode="abs", threshold=0.5, patience=0
        ),
    ),
    Case(
        "threshold=0.1 (rel), patience=0, factor=0.5",
        reduced([5.0, 4.6, 4.0, 3.9, 3.0], threshold=0.1, patience=0, factor=0.5),
    ),
    Case(
        "two groups, min_lr=[0.3, 0.2], patience=0, factor=0.5",
        reduced([3.0, 3.0, 3.0, 3.0], 0.5, min_lr=[0.3, 0.2], patience=0, factor=0.5),
    ),
    Case(
        "min_lr=0.15, patience=0, factor=0.5",
        reduced([3.0] * 5, min_lr=0.15, patience=0, factor=0.5),
    ),
    Case("state_dict, load_state_dict into a new scheduler", plateau_resumed),
    Case("step(torch.tensor(metric))", plateau_tensor_metric),
    Case(
        "factor=1.0",
        plateau_refused(lambda make, opt: make(opt, factor=1.0)),
    ),
    Case(
        "mode='best'",
        plateau_refused(lambda make, opt: make(opt, mode="best")),
    ),
    Case(
        "min_lr=[0.1] for two groups",
        plateau_refused(lambda make, opt: make(opt, min_lr=[0.1])),
    ),
    Case(
        "ReduceLROnPlateau(a list of parameters)",
        plateau_refused(lambda make, opt: make(opt.param_groups[0]["params"])),
    ),
    Case(
        "step(1.0, epoch=7)",
        plateau_epoch,
        convention="epoch= is deprecated: it sets last_epoch and warns",
    ),
    Case(
        "eps=0.2, factor=0.9, patience=0",
        reduced([3.0] * 4, eps=0.2, factor=0.9, patience=0),
        convention="a change smaller than eps is not made",
    ),
]
