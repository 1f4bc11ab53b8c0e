"""Chapter 4: grading-only cases (left out of a student release).

Same form as the public cases in ``ch04.py``; the grader runs both.
"""

from __future__ import annotations

from typing import Any

from course.checking import Case
from course.checks.ch04 import (
    BLOBS,
    batches,
    classifier,
    clipped,
    cosine,
    grads_after,
    one_pass,
    pairs,
    reduced,
    regression,
    resumed,
    saved_state,
    served,
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
