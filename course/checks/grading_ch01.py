"""Chapter 1: grading-only cases (left out of a student release).

Same form as the public cases in ``ch01.py``; the grader runs both.
"""

from __future__ import annotations

from typing import Any

from course.checking import Case
from course.checks import drawn as d
from course.checks.ch01 import (
    indexed_grad,
    layout,
    picked,
    reshaped,
    reshaped_copy,
    sliced_grad,
    viewed,
    w2345,
    x3,
    x34,
    x234,
)


def cube(torch: Any) -> Any:
    return torch.arange(60.0).reshape(3, 4, 5)


CASES = {
    "1.9": [
        Case(
            "torch.arange(4.).reshape(1, 4, 1).expand(2, 3, -1, 5)",
            lambda t: layout(t.arange(4.0).reshape(1, 4, 1).expand(2, 3, -1, 5)),
        ),
        Case(
            "torch.arange(3.).reshape(3, 1).expand(1, 3, 4)",
            lambda t: layout(t.arange(3.0).reshape(3, 1).expand(1, 3, 4)),
        ),
        Case(
            "torch.zeros(2, 1).expand(1, 2, 1, 3)",
            lambda t: layout(t.zeros(2, 1).expand(1, 2, 1, 3)),
        ),
    ],
    "1.10": [
        Case("x[1, None, -1]", picked(lambda x: x[1, None, -1])),
        Case("x[..., ::3, None]", picked(lambda x: x[..., ::3, None])),
        Case("x[-2:, 2:0:-1]", picked(lambda x: x[-2:, 2:0:-1])),
        Case("x[0, 3]", picked(lambda x: x[0, 3])),
        Case("x[:, None, 1, 1:]", picked(lambda x: x[:, None, 1, 1:])),
        # a gradient runs chapter 2's backward pass (left out where it is unwritten)
        Case("x[1, ::2, None, 1:3]: the gradient", sliced_grad),
    ],
    "1.11": [
        Case("x[[1], :, [0, 2]]", lambda t: x234(t)[[1], :, [0, 2]]),
        Case(
            "w[1:, [0, 2], 1:3, [4, -1]], w of shape (2, 3, 4, 5)",
            lambda t: w2345(t)[1:, [0, 2], 1:3, [4, -1]],
        ),
        Case(
            "x[:, torch.tensor([[2, 1], [0, 0]])]",
            lambda t: x234(t)[:, t.tensor([[2, 1], [0, 0]])],
        ),
        Case(
            "x[[0, -3], [1, 1], [3, -4]]", lambda t: x234(t)[[0, -3], [1, 1], [3, -4]]
        ),
        Case("w[[0, 0, 1], :, [3, 3, 0]]: the gradient of w", indexed_grad),
    ],
    "1.5": [
        Case(
            "torch.zeros(5, 1, 2, 3).stride()", lambda t: t.zeros(5, 1, 2, 3).stride()
        ),
        Case(
            "torch.arange(60.).reshape(3, 4, 5).permute(2, 0, 1).contiguous()",
            lambda t: layout(cube(t).permute(2, 0, 1).contiguous()),
        ),
        Case(
            "torch.ones(2, 3, 1) * torch.ones(4)",
            lambda t: layout(t.ones(2, 3, 1) * t.ones(4)),
        ),
    ],
    "1.6": [
        Case("torch.arange(12.).reshape(-1, 2, 2).shape", reshaped((-1, 2, 2))),
        Case("torch.arange(12.).reshape(1, -1, 1).shape", reshaped((1, -1, 1))),
        Case("torch.arange(12.).reshape(0, -1)", reshaped((0, -1))),
    ],
    "1.7": [
        Case(
            "torch.arange(3.).reshape(3, 1).expand(3, 4).tolist()",
            lambda t: t.arange(3.0).reshape(3, 1).expand(3, 4).tolist(),
        ),
        Case(
            "cube.permute(1, 2, 0).tolist()",
            lambda t: cube(t).permute(1, 2, 0).tolist(),
        ),
        Case("cube[1:, ::2, 1::3] + 0", lambda t: cube(t)[1:, ::2, 1::3] + 0),
        Case("x.t()[::2].sum(1)", lambda t: x34(t).t()[::2].sum(1)),
    ],
    "1.8": [
        Case(
            "cube.transpose(0, 1).view(4, 15)",
            viewed(lambda t: cube(t).transpose(0, 1), (4, 15)),
        ),
        Case("cube[:, 1:3].view(3, 10)", viewed(lambda t: cube(t)[:, 1:3], (3, 10))),
        Case(
            "x.permute(1, 2, 0).reshape(12, 2)",
            reshaped_copy(lambda t: x3(t).permute(1, 2, 0), (12, 2)),
        ),
        Case(
            "x.unsqueeze(1).view(2, 3, 4)",
            viewed(lambda t: x3(t).unsqueeze(1), (2, 3, 4)),
        ),
    ],
}


# --- drawn cases: inputs drawn for each grading run (most of the marks) -----------


# Shapes drawn from many (up to 9 ** 6): no table of the shapes the fixed
# cases use covers them.


# Sizes from 2 up (and a size 0 never last): strides that are all 1, the
# answer a table's default would guess, are then never right.


# Drawn shapes have four dimensions or more, none of size 1: the shapes the
# fixed cases use have fewer, so an answer that is a table of them (learnt
# from feedback) cannot be right on a drawn one by luck.


def zeros_strides(torch: Any, rng: d.Rng) -> Any:
    return list(torch.zeros(*d.shape(rng, 2, 9, (4, 6))).stride())


def empty_strides(torch: Any, rng: d.Rng) -> Any:
    """A drawn shape with a size 0 somewhere (the convention)."""
    sizes = d.shape(rng, 2, 9, (4, 6))
    sizes[rng.randrange(len(sizes) - 1)] = 0
    return list(torch.zeros(*sizes).stride())


def made_strides(torch: Any, rng: d.Rng) -> Any:
    """Fresh tensors of a drawn shape (strides only: reading the values of a
    view would run position_list, 1.7)."""
    sizes = d.shape(rng, 2, 6, (4, 5))
    small = d.shape(rng, 2, 3, (4, 5))
    return [
        list(torch.ones(*sizes).stride()),
        list(torch.full(sizes, 2.0).stride()),
        list(d.tensor(torch, rng, small).stride()),
    ]


def inferred(torch: Any, rng: d.Rng) -> Any:
    """Two reshapes with a -1: one that fits, one that may not (an error
    alone never makes a case: an answer that always raises fails it)."""
    found = []
    for wrong in (False, rng.random() < 0.5):
        count = rng.choice([12, 24, 30, 36, 60])
        sizes = d.factors(rng, count, rng.randint(2, 4))
        sizes[rng.randrange(len(sizes))] = -1
        if wrong:
            sizes.append(rng.choice([5, 7]))  # often no size fits: an error
        try:
            found.append(list(torch.arange(float(count)).reshape(*sizes).shape))
        except RuntimeError:
            found.append({"raised": "RuntimeError"})
    return found


def positions(torch: Any, rng: d.Rng) -> Any:
    sizes = d.shape(rng, 2, 4, (2, 3))
    x = d.tensor(torch, rng, sizes).permute(*d.permutation(rng, len(sizes)))
    dim = rng.randrange(x.dim())
    start = rng.randrange(x.shape[dim])
    y = x.narrow(dim, start, rng.randint(1, x.shape[dim] - start))
    return [y.tolist(), (y * 1).tolist()]


def selected(torch: Any, rng: d.Rng) -> Any:
    sizes = d.shape(rng, 2, 4, (3, 4))
    x = d.tensor(torch, rng, sizes).transpose(0, len(sizes) - 1)
    dim = rng.randrange(x.dim())
    return (x.select(dim, rng.randrange(x.shape[dim])) + 0).tolist()


def view_or_reshape(torch: Any, rng: d.Rng) -> Any:
    sizes = d.shape(rng, 1, 4, (2, 4))
    x = d.tensor(torch, rng, sizes)
    if rng.random() < 0.5:
        x = x.permute(*d.permutation(rng, len(sizes)))
    else:
        dim = rng.randrange(len(sizes))
        x = x.narrow(dim, 0, rng.randint(1, sizes[dim]))
    target = d.factors(rng, x.numel(), rng.randint(1, 4))
    try:
        view: Any = d.layout(x.view(*target), ones=False)
    except RuntimeError:
        view = {"raised": "RuntimeError"}
    copy = x.reshape(*target)
    return {"view": view, "reshape": d.layout(copy, ones=False)}


def expanded_to(torch: Any, rng: d.Rng) -> Any:
    sizes = [rng.choice([1, 1, 2, 3]) for _ in range(rng.randint(1, 3))]
    x = d.tensor(torch, rng, sizes)
    if rng.random() < 0.5:
        x = x.t() if x.dim() == 2 else x
    target = [
        rng.randint(2, 4) if s == 1 else (-1 if rng.random() < 0.5 else s)
        for s in x.shape
    ]
    target = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))] + target
    y = x.expand(*target)
    return {**d.layout(y), "twice": d.layout(y.expand(2, *y.shape))}


def basic_index(rng: d.Rng, sizes: list[int]) -> tuple[Any, ...]:
    index: list[Any] = []
    for size in sizes:
        kind = rng.random()
        if kind < 0.3:
            index.append(rng.randint(-size, size - 1))
        elif kind < 0.8:
            start = rng.randint(-size, size)
            stop = rng.choice([None, rng.randint(-size, size)])
            index.append(slice(start, stop, rng.randint(1, 3)))
        else:
            index.append(None)
            index.append(slice(None))
    if rng.random() < 0.3:
        index = [..., *index[rng.randrange(len(index) + 1) :]]
    return tuple(index)


def picked_drawn(torch: Any, rng: d.Rng) -> Any:
    sizes = d.shape(rng, 1, 5, (1, 4))
    x = d.tensor(torch, rng, sizes).requires_grad_()
    found = x[basic_index(rng, sizes)]
    node = found.grad_fn
    return {
        **d.layout(found.detach()),
        "grad_fn": None if node is None else node.name(),
    }


def advanced_drawn(torch: Any, rng: d.Rng) -> Any:
    sizes = d.shape(rng, 2, 4, (2, 4))
    x = d.tensor(torch, rng, sizes)
    count = rng.randint(1, 4)
    index: list[Any] = [slice(None)] * len(sizes)
    dims = rng.sample(range(len(sizes)), rng.randint(1, len(sizes)))
    for dim in dims:
        picks = [rng.randint(-sizes[dim], sizes[dim] - 1) for _ in range(count)]
        index[dim] = picks if rng.random() < 0.7 else torch.tensor(picks)
    found = x[tuple(index)]
    return {"shape": list(found.shape), "values": found}


DRAWN = {
    "1.5": [
        d.drawn("torch.zeros(...).stride()", zeros_strides),
        d.drawn("torch.ones, torch.full, torch.tensor: strides", made_strides),
        d.drawn("torch.zeros(...).stride(), a size 0 among them", empty_strides),
    ],
    "1.6": [
        d.drawn("torch.arange(n).reshape(..., -1, ...)", inferred),
        d.drawn("torch.arange(n).reshape(..., -1) (again)", inferred),
        d.drawn("torch.arange(n).reshape(-1, ...) (a third)", inferred),
    ],
    "1.7": [
        d.drawn("x.permute(...).narrow(...).tolist()", positions),
        d.drawn("x.transpose(...).select(...)", selected),
        d.drawn("x.permute(...).narrow(...) (again)", positions),
    ],
    "1.8": [
        d.drawn(
            "x.permute(...) or x.narrow(...), then view and reshape", view_or_reshape
        ),
        d.drawn("view and reshape (again)", view_or_reshape),
        d.drawn("view and reshape (a third)", view_or_reshape),
    ],
    "1.9": [
        d.drawn("x.expand(...)", expanded_to),
        d.drawn("x.expand(...) (again)", expanded_to),
        d.drawn("x.expand(...) (a third)", expanded_to),
    ],
    "1.10": [
        d.drawn("x[ints, slices, None, ...]", picked_drawn),
        d.drawn("x[ints, slices, None, ...] (again)", picked_drawn),
        d.drawn("x[ints, slices, None, ...] (a third)", picked_drawn),
    ],
    "1.11": [
        d.drawn("x[lists of ints, slices]", advanced_drawn),
        d.drawn("x[lists or tensors of ints] (again)", advanced_drawn),
        d.drawn("x[lists or tensors of ints] (a third)", advanced_drawn),
    ],
}
