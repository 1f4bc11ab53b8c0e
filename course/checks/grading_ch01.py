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


# Calls on plain data: in the engine, the piece alone, on shapes, strides and
# counts the case draws (no tensor is made, so no other piece runs, not even
# the strides); in PyTorch, the operation that asks the same question of a
# tensor laid out with them (``as_strided`` on a storage of its own).


def strided(torch: Any, sizes: list[int], strides: list[int], offset: int = 0) -> Any:
    """A PyTorch tensor with exactly this layout, reading ``arange``."""
    reach = offset + sum((n - 1) * s for n, s in zip(sizes, strides) if n) + 1
    return torch.arange(reach).as_strided(sizes, strides, offset)


def infer_alone(torch: Any, rng: d.Rng) -> Any:
    """infer_shape on a drawn shape with a -1 and a count: one that fits,
    one that may not."""
    found: list[list[int] | dict[str, str]] = []
    for wrong in (False, rng.random() < 0.5):
        count = rng.choice([12, 24, 30, 36, 60, 0])
        sizes = d.factors(rng, count or 12, rng.randint(2, 4))
        sizes[rng.randrange(len(sizes))] = -1
        if wrong or not count:
            sizes.append(rng.choice([5, 7]) if count else 0)
        try:
            if torch.__name__ == "torch":
                found.append(list(torch.zeros(count).view(*sizes).shape))
            else:
                infer_shape = d.piece(torch, "ops.views.infer_shape")
                found.append(list(infer_shape(tuple(sizes), count)))
        except RuntimeError:
            found.append({"raised": "RuntimeError"})
    return found


def positions_alone(torch: Any, rng: d.Rng) -> Any:
    """position_list of a drawn shape, strides (0 among them) and offset."""
    sizes = d.shape(rng, 1, 4, (1, 4))
    strides = [rng.choice([0, 1, 2, 3, 5, 7, 12]) for _ in sizes]
    offset = rng.randint(0, 9)
    if torch.__name__ == "torch":
        return strided(torch, sizes, strides, offset).reshape(-1).tolist()
    position_list = d.piece(torch, "_strides.position_list")
    return list(position_list(tuple(sizes), tuple(strides), offset))


def layout_of(rng: d.Rng) -> tuple[list[int], list[int]]:
    """A drawn tensor's shape and strides: contiguous, then permuted or
    narrowed (as plain numbers)."""
    sizes = d.shape(rng, 1, 4, (2, 4))
    strides = [1] * len(sizes)
    for dim in range(len(sizes) - 2, -1, -1):
        strides[dim] = strides[dim + 1] * sizes[dim + 1]
    if rng.random() < 0.5:
        order = d.permutation(rng, len(sizes))
        return [sizes[k] for k in order], [strides[k] for k in order]
    dim = rng.randrange(len(sizes))
    sizes[dim] = rng.randint(1, sizes[dim])
    return sizes, strides


def view_alone(torch: Any, rng: d.Rng) -> Any:
    """view_strides for a drawn layout and a new shape of the same count
    (None where a copy is needed; strides of size-1 dimensions left out)."""
    sizes, strides = layout_of(rng)
    target = d.factors(rng, d.numel(sizes), rng.randint(1, 4))
    if torch.__name__ == "torch":
        try:
            found = strided(torch, sizes, strides).view(*target).stride()
        except RuntimeError:
            found = None
    else:
        view_strides = d.piece(torch, "ops.views.view_strides")
        found = view_strides(tuple(sizes), tuple(strides), tuple(target))
    if found is None:
        return None
    return [s if n != 1 else None for s, n in zip(found, target)]


def expand_alone(torch: Any, rng: d.Rng) -> Any:
    """expanded_layout of a drawn layout to drawn sizes (-1 among them, new
    leading dimensions, now and then a size that cannot stretch)."""
    sizes = [rng.choice([1, 1, 2, 3]) for _ in range(rng.randint(1, 3))]
    strides = [rng.choice([1, 2, 3, 6]) for _ in sizes]
    target = [
        rng.randint(2, 4) if s == 1 else (-1 if rng.random() < 0.5 else s)
        for s in sizes
    ]
    if rng.random() < 0.2 and any(s > 1 for s in sizes):
        target[[s > 1 for s in sizes].index(True)] = 5  # cannot stretch
    target = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))] + target
    try:
        if torch.__name__ == "torch":
            y = strided(torch, sizes, strides).expand(*target)
            shape, found = y.shape, y.stride()
        else:
            expanded_layout = d.piece(torch, "_strides.expanded_layout")
            shape, found = expanded_layout(tuple(sizes), tuple(strides), tuple(target))
    except RuntimeError:
        return {"raised": "RuntimeError"}
    return {"shape": list(shape), "stride": list(found)}


DRAWN = {
    "1.5": [
        d.drawn("torch.zeros(...).stride()", zeros_strides),
        d.drawn("torch.ones, torch.full, torch.tensor: strides", made_strides),
        d.drawn("torch.zeros(...).stride(), a size 0 among them", empty_strides),
    ],
    "1.6": [
        d.drawn("infer_shape(shape with a -1, count)", infer_alone),
        d.drawn("infer_shape (again)", infer_alone),
        d.drawn("infer_shape (a third)", infer_alone),
    ],
    "1.7": [
        d.drawn("position_list(shape, strides, offset)", positions_alone),
        d.drawn("position_list (again)", positions_alone),
        d.drawn("position_list (a third)", positions_alone),
    ],
    "1.8": [
        d.drawn("view_strides(permuted or narrowed layout, new shape)", view_alone),
        d.drawn("view_strides (again)", view_alone),
        d.drawn("view_strides (a third)", view_alone),
    ],
    "1.9": [
        d.drawn("expanded_layout(shape, strides, sizes)", expand_alone),
        d.drawn("expanded_layout (again)", expand_alone),
        d.drawn("expanded_layout (a third)", expand_alone),
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
