"""Chapter 3: grading-only cases (left out of a student release).

Same form as the public cases in ``ch03.py``; the grader runs both.
"""

from __future__ import annotations

from typing import Any

from course.checking import Case
from course.checks.ch03 import (
    LOGITS,
    SCORES,
    X,
    both,
    classes,
    entry,
    f32,
    gradients_of,
    load_error,
    loaded,
    loaded_model,
    looked_up,
    loss_and_grad,
    names,
    padding_row,
    printed,
    replaced,
    spread,
    tree,
    with_extra,
    without,
)


def nested_prefix(torch: Any) -> Any:
    model = tree(torch)
    return [name for name, _ in model.body.named_parameters(prefix="body")]


def wrapped(torch: Any) -> Any:
    torch.manual_seed(0)
    return torch.nn.Sequential(tree(torch), torch.nn.Sequential(torch.nn.Linear(1, 1)))


CASES = {
    "3.11": [
        Case(
            "Embedding(5, 2, _weight=T, padding_idx=-1)(tensor([4, 0, 4]))",
            looked_up([4, 0, 4], padding_idx=-1),
        ),
        Case("Embedding(4, 3, padding_idx=-4): the padding row", padding_row(-4)),
        Case(
            "print(Embedding(5, 2, scale_grad_by_freq=True, sparse=True))",
            printed(scale_grad_by_freq=True, sparse=True),
        ),
    ],
    "3.4": [
        Case(
            "nn.ELU(alpha=0.1)(x) * x",
            gradients_of(lambda t, x: t.nn.ELU(alpha=0.1)(x) * x, [-4.0, -0.1, 0.7]),
        ),
        Case(
            "second derivative of F.elu(3 * x)",
            gradients_of(
                lambda t, x: t.nn.functional.elu(3 * x), [-0.5, 0.5], double=True
            ),
        ),
    ],
    "3.5": [
        Case(
            "kaiming_normal_(torch.empty(20, 5), a=0.2)",
            spread("kaiming_normal_", (20, 5), a=0.2),
        ),
        Case(
            "kaiming_uniform_(torch.empty(6, 4, 5), nonlinearity='linear')",
            spread("kaiming_uniform_", (6, 4, 5), nonlinearity="linear"),
        ),
        Case("kaiming_uniform_(torch.empty(5))", spread("kaiming_uniform_", (5,))),
    ],
    "3.6": [
        Case(
            "F.cross_entropy(x, t, weight=w, reduction='sum', ignore_index=0)",
            loss_and_grad(
                lambda t, x: t.nn.functional.cross_entropy(
                    x,
                    classes(t),
                    weight=t.tensor([0.5, 1.0, 2.0]),
                    reduction="sum",
                    ignore_index=0,
                )
            ),
        ),
        Case(
            "F.cross_entropy(x[:, :2], t % 2, reduction='none')",
            loss_and_grad(
                lambda t, x: t.nn.functional.cross_entropy(
                    x, classes(t, [1, 0, 1, 1]), reduction="none"
                ),
                [row[:2] for row in LOGITS],
            ),
        ),
    ],
    "3.7": [
        Case("model.body.named_parameters(prefix='body')", nested_prefix),
        Case("a model inside a Sequential", names(wrapped)),
    ],
    "3.8": [
        Case(
            "x @ w.T + b via F.linear, w frozen",
            gradients_of(
                lambda t, x, b: t.nn.functional.linear(
                    x, t.tensor([[1.0, 0.5, -1.0]]), b
                ),
                X,
                [0.25],
            ),
        ),
        Case(
            "torch.addmm(c, x, m, beta=0, alpha=-1)",
            gradients_of(
                lambda t, c, x, m: t.addmm(c, x, m, beta=0, alpha=-1),
                [1.0, 2.0],
                X,
                [[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]],
            ),
        ),
    ],
    "3.9": [
        Case(
            "F.log_softmax(x, dim=1) ** 2",
            gradients_of(
                lambda t, x: t.nn.functional.log_softmax(x, dim=1) ** 2, SCORES
            ),
        ),
        Case(
            "F.log_softmax(x.T, dim=1).T",
            gradients_of(
                lambda t, x: (
                    t.nn.functional.log_softmax(x.T, dim=1).T
                    * t.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]])
                ),
                SCORES,
            ),
        ),
    ],
    "3.10": [
        Case(
            "tensors listed out of order in the header",
            loaded(
                {"z": entry("F32", [1], 0, 4), "a": entry("F32", [1], 4, 8)},
                f32(5.0, 6.0),
            ),
        ),
        Case(
            "offsets given as floats",
            loaded(
                {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0.0, 8.0]}},
                f32(1.0, 2.0),
            ),
        ),
        Case("an empty header and buffer", loaded({}, b"")),
    ],
    "3.12": [
        Case(
            "strict=False: '2.1.bias' missing, unexpected '2.x' and '1.weight.y'",
            loaded_model(
                both(without("2.1.bias"), with_extra("2.x", "1.weight.y")),
                strict=False,
            ),
        ),
        Case(
            "unexpected '0.w', '1.num_batches_tracked' a float list",
            load_error(
                both(
                    with_extra("0.w"),
                    replaced("1.num_batches_tracked", lambda t: [1.0]),
                )
            ),
        ),
    ],
}
