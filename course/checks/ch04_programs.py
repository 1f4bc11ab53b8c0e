"""Chapter 4's case programs that several exercises share.

Above all the optimiser trajectories: programs that run an optimiser for a
few steps on a small problem and return what PyTorch can be compared on
(the parameters, the state, a resumed run), with the public cases of SGD
(4.4) and Adam (4.5). The stretch builds (:mod:`course.checks.ch04_builds`),
the exercises (:mod:`course.checks.ch04`) and the grading cases use them.
"""

from __future__ import annotations

from typing import Any

from course.checking import Case


def one_group(torch: Any, lr: float = 1.0, *more: float) -> Any:
    """An SGD optimiser with one group at ``lr`` and one more per ``more``."""
    groups = [{"params": [torch.zeros(1, requires_grad=True)], "lr": lr}]
    groups += [{"params": [torch.zeros(1, requires_grad=True)], "lr": m} for m in more]
    return torch.optim.SGD(groups, lr=lr)


# --- optimiser trajectories: a small problem, a few steps -------------------------

START = [0.5, -1.5, 2.0]
SECOND = [[1.0, -0.5], [0.25, 2.0]]


def loss_of(torch: Any, p: Any) -> Any:
    """A bowl with unequal curvatures and a twist, so gradients keep changing."""
    target = torch.tensor([1.0, 2.0, -1.0, 0.5][: p.numel()]).reshape(p.shape)
    scale = torch.tensor([1.0, 10.0, 0.5, 2.0][: p.numel()]).reshape(p.shape)
    flat = p.reshape(-1)
    return (scale * (p - target) ** 2).sum() + 0.3 * (flat[0] * flat[1]).tanh()


def train_steps(optimizer: Any, params: list[Any], steps: int, torch: Any) -> None:
    for _ in range(steps):
        optimizer.zero_grad()
        sum(loss_of(torch, p) for p in params).backward()
        optimizer.step()


def trajectory(make: str, steps: int = 6, **settings: Any) -> Any:
    """The parameter after ``steps`` steps of ``torch.optim.<make>``."""

    def run(torch: Any) -> Any:
        p = torch.tensor(START, requires_grad=True)
        optimizer = getattr(torch.optim, make)([p], **settings)
        seen = []
        for _ in range(steps):
            train_steps(optimizer, [p], 1, torch)
            seen.append(p.detach().clone())
        return seen

    return run


def by_hand(make: str, gradients: list[list[float]], **settings: Any) -> Any:
    """The parameter after a step for each of ``gradients``, set by hand: the
    update rule alone, no backward pass."""

    def run(torch: Any) -> Any:
        p = torch.tensor(START, requires_grad=True)
        optimizer = getattr(torch.optim, make)([p], **settings)
        seen = []
        for gradient in gradients:
            p.grad = torch.tensor(gradient)
            optimizer.step()
            seen.append(p.detach().clone())
        return seen

    return run


SHRINKING = [[4.0, -1.0, 0.5], [0.5, -0.25, 0.5], [0.1, 0.5, 0.5], [0.0, 0.1, -0.5]]


def two_groups(make: str, first: dict[str, Any], second: dict[str, Any]) -> Any:
    def run(torch: Any) -> Any:
        p = torch.tensor(START, requires_grad=True)
        q = torch.tensor(SECOND, requires_grad=True)
        optimizer = getattr(torch.optim, make)(
            [{"params": [p], **first}, {"params": [q]}], **second
        )
        train_steps(optimizer, [p, q], 5, torch)
        return [p, q]

    return run


def saved_state(make: str, **settings: Any) -> Any:
    """The optimiser's state after 3 steps, as ``state_dict`` gives it."""

    def run(torch: Any) -> Any:
        p = torch.tensor(START, requires_grad=True)
        optimizer = getattr(torch.optim, make)([p], **settings)
        train_steps(optimizer, [p], 3, torch)
        return optimizer.state_dict()["state"]

    return run


def resumed(make: str, **settings: Any) -> Any:
    """3 steps, then a new optimiser loads the state_dict and takes 3 more."""

    def run(torch: Any) -> Any:
        p = torch.tensor(START, requires_grad=True)
        optimizer = getattr(torch.optim, make)([p], **settings)
        train_steps(optimizer, [p], 3, torch)
        q = p.detach().clone().requires_grad_(True)
        again = getattr(torch.optim, make)([q], **settings)
        again.load_state_dict(optimizer.state_dict())
        train_steps(again, [q], 3, torch)
        return q

    return run


def zeroed_in_place(make: str, **settings: Any) -> Any:
    """Steps with ``zero_grad(set_to_none=False)``: ``.grad`` is reused."""

    def run(torch: Any) -> Any:
        p = torch.tensor(START, requires_grad=True)
        optimizer = getattr(torch.optim, make)([p], **settings)
        for _ in range(4):
            optimizer.zero_grad(set_to_none=False)
            loss_of(torch, p).backward()
            optimizer.step()
        return p

    return run


def without_grad(make: str, **settings: Any) -> Any:
    """Two parameters, only one of which gets a gradient."""

    def run(torch: Any) -> Any:
        p = torch.tensor(START, requires_grad=True)
        unused = torch.tensor([5.0, 5.0], requires_grad=True)
        optimizer = getattr(torch.optim, make)([p, unused], **settings)
        train_steps(optimizer, [p], 4, torch)
        return {"p": p, "unused": unused, "states": len(optimizer.state)}

    return run


SGD = [
    Case("SGD(lr=0.02): 6 steps", trajectory("SGD", lr=0.02)),
    Case("SGD(lr=0.02, momentum=0.9)", trajectory("SGD", lr=0.02, momentum=0.9)),
    Case(
        "SGD(lr=0.02, momentum=0.9, nesterov=True)",
        trajectory("SGD", lr=0.02, momentum=0.9, nesterov=True),
    ),
    Case(
        "SGD(lr=0.02, momentum=0.5, weight_decay=0.1)",
        trajectory("SGD", lr=0.02, momentum=0.5, weight_decay=0.1),
    ),
    Case(
        "SGD(lr=0.02, momentum=0.9, maximize=True)",
        trajectory("SGD", 3, lr=0.02, momentum=0.9, maximize=True),
    ),
    Case(
        "two groups: {lr: 0.05, momentum: 0.5} and the defaults lr=0.02",
        two_groups("SGD", {"lr": 0.05, "momentum": 0.5}, {"lr": 0.02}),
    ),
    Case(
        "SGD(lr=0.02, momentum=0.9): state_dict()['state'] after 3 steps",
        saved_state("SGD", lr=0.02, momentum=0.9),
    ),
    Case(
        "SGD(lr=0.02, momentum=0.9): 3 steps, load_state_dict, 3 more",
        resumed("SGD", lr=0.02, momentum=0.9),
    ),
    Case(
        "SGD(lr=0.02, momentum=0.9): a parameter without a gradient",
        without_grad("SGD", lr=0.02, momentum=0.9),
    ),
    Case(
        "SGD(lr=0.02, momentum=0.9, dampening=0.5)",
        trajectory("SGD", lr=0.02, momentum=0.9, dampening=0.5),
        convention="the first step's buffer is the gradient itself, not damped",
    ),
    Case(
        "SGD(lr=0.02, momentum=0.9) with zero_grad(set_to_none=False)",
        zeroed_in_place("SGD", lr=0.02, momentum=0.9),
        convention="the buffer is a copy: zeroing .grad in place must not touch it",
    ),
]

ADAM = [
    Case("Adam(lr=0.1): 6 steps", trajectory("Adam", lr=0.1)),
    Case(
        "Adam(lr=0.1, betas=(0.5, 0.9))", trajectory("Adam", lr=0.1, betas=(0.5, 0.9))
    ),
    Case(
        "Adam(lr=0.1, weight_decay=0.5)",
        trajectory("Adam", lr=0.1, weight_decay=0.5),
    ),
    Case(
        "AdamW(lr=0.1, weight_decay=0.5)",
        trajectory("AdamW", lr=0.1, weight_decay=0.5),
    ),
    Case(
        "two groups: AdamW {lr: 0.05, weight_decay: 0.0} and the defaults lr=0.1",
        two_groups("AdamW", {"lr": 0.05, "weight_decay": 0.0}, {"lr": 0.1}),
    ),
    Case("Adam(lr=0.1, amsgrad=True)", trajectory("Adam", lr=0.1, amsgrad=True)),
    Case(
        "Adam(betas=(0.9, 0.5), amsgrad=True): shrinking gradients set by hand",
        by_hand("Adam", SHRINKING, lr=0.1, betas=(0.9, 0.5), amsgrad=True),
    ),
    Case("Adam(lr=0.1, maximize=True)", trajectory("Adam", 3, lr=0.1, maximize=True)),
    Case(
        "Adam(lr=0.1): 3 steps, load_state_dict, 3 more",
        resumed("Adam", lr=0.1),
    ),
    Case(
        "Adam(lr=0.1): a parameter without a gradient",
        without_grad("Adam", lr=0.1),
    ),
    Case(
        "Adam(lr=0.1): state_dict()['state'] after 3 steps",
        saved_state("Adam", lr=0.1),
        convention="state['step'] is a float32 tensor, as PyTorch keeps it",
    ),
    Case(
        "Adam(lr=0.1, eps=0.1)",
        trajectory("Adam", lr=0.1, eps=0.1),
        convention="eps is added to sqrt(v) / sqrt(1 - beta2 ** t), after the root",
    ),
]
