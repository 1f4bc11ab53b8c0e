"""Chapter 1, "From arrays to tensors": the exercises and their public cases.

Each case is a short program written against PyTorch's API. ``python -m
course.record`` runs it under real PyTorch once and stores the outcome in
``expected.json``; a check runs it under the engine (with the student's piece
put in place of the engine's own) and compares. No torch is needed to check.
"""

from __future__ import annotations

from typing import Any

from course.checking import Case, Exercise

# --- helpers the cases share (they work for torch and for the engine) -----------


def shares_storage(a: Any, b: Any) -> bool:
    """Whether two tensors read the same memory."""
    if hasattr(a, "_storage"):  # the engine
        return a._storage is b._storage
    return bool(a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr())


def view_or_copy(torch: Any, make: Any) -> str:
    x = torch.arange(12.0).reshape(3, 4)
    return "view" if shares_storage(x, make(x)) else "copy"


def layout(tensor: Any) -> dict[str, Any]:
    """Shape, strides and values: everything a layout decides."""
    return {
        "shape": list(tensor.shape),
        "stride": list(tensor.stride()),
        "values": tensor,
    }


def x3(torch: Any) -> Any:
    return torch.arange(24.0).reshape(2, 3, 4)


# --- 1.1 view or copy -----------------------------------------------------------

VIEWS = {
    "x.t()": lambda x: x.t(),
    "x[1]": lambda x: x[1],
    "x[:, 1]": lambda x: x[:, 1],
    "x[:, ::2]": lambda x: x[:, ::2],
    "x.reshape(4, 3)": lambda x: x.reshape(4, 3),
    "x.t().reshape(12)": lambda x: x.t().reshape(12),
    "x.t().contiguous()": lambda x: x.t().contiguous(),
    "x.contiguous()": lambda x: x.contiguous(),
    "x.clone()": lambda x: x.clone(),
    "x.unsqueeze(0).expand(2, 3, 4)": lambda x: x.unsqueeze(0).expand(2, 3, 4),
    "x + 0": lambda x: x + 0,
    "x.flatten()": lambda x: x.flatten(),
    "x.t().flatten()": lambda x: x.t().flatten(),
}


def _view_case(label: str, make: Any) -> Case:
    return Case(label, lambda torch: view_or_copy(torch, make))


# --- 1.2 which dtype ------------------------------------------------------------

DTYPE_CONTEXT = {
    "i": lambda torch: torch.tensor([1, 2]),
    "f": lambda torch: torch.tensor([1.0, 2.0]),
    "b": lambda torch: torch.tensor([True, False]),
    "d": lambda torch: torch.tensor([1.0, 2.0], dtype=torch.float64),
}

DTYPES = [
    "i + f",
    "i / i",
    "i + 2.5",
    "i // 2",
    "b + b",
    "b + 1",
    "b * 2.0",
    "i + True",
    "f + d",
    "f + torch.tensor(1.0, dtype=torch.float64)",
    "i * torch.tensor(2.5, dtype=torch.float64)",
    "d.sum() + f",
    "torch.tensor(3) + torch.tensor(2.5)",
    "b.sum()",
    "i.mean()",
]


def dtype_of(expression: str) -> Any:
    def run(torch: Any) -> str:
        names = {name: make(torch) for name, make in DTYPE_CONTEXT.items()}
        try:
            result = eval(expression, {"torch": torch}, names)  # noqa: S307
        except RuntimeError:
            return "error"
        return str(result.dtype)

    return run


# --- 1.3 broadcast shapes -------------------------------------------------------

BROADCASTS = [
    ("torch.zeros(3, 1) + torch.zeros(4)", None),
    ("torch.zeros(2, 1, 5) * torch.zeros(3, 1)", None),
    ("torch.zeros(3) + torch.zeros(4)", None),
    ("torch.zeros(()) + torch.zeros(2, 3)", None),
    ("torch.zeros(2, 3).sum(0, keepdim=True) - torch.zeros(2, 3)", None),
    ("torch.zeros(2, 3).sum(0) - torch.zeros(2, 3)", None),
    ("torch.zeros(4, 1, 3) + torch.zeros(4, 3)", None),
    ("torch.zeros(1) + torch.zeros(0)", "a size 1 stretches even to size 0"),
]


def shape_of(expression: str) -> Any:
    def run(torch: Any) -> Any:
        try:
            result = eval(expression, {"torch": torch})  # noqa: S307  (our own text)
        except RuntimeError:
            return "error"
        return list(result.shape)

    return run


# --- 1.4 strides and contiguity -------------------------------------------------

STRIDES = [
    "x.stride()",
    "x.transpose(0, 2).stride()",
    "x[:, 1].stride()",
    "x[:, :, ::2].stride()",
    "x.permute(1, 0, 2).stride()",
    "x[1:, 1:].stride()",
    "torch.zeros(3, 1).expand(3, 4).stride()",
    "x.transpose(0, 1).is_contiguous()",
    "x[:, :, 1:3].is_contiguous()",
    "x[1].is_contiguous()",
    "x[:, :2].is_contiguous()",
    "torch.zeros(3, 1).expand(3, 4).is_contiguous()",
    "x.transpose(0, 1).contiguous().stride()",
]


def evaluated(expression: str) -> Any:
    def run(torch: Any) -> Any:
        names = {"torch": torch, "x": torch.zeros(2, 3, 4)}
        return eval(expression, names)  # noqa: S307  (our own text)

    return run


# --- 1.5 contiguous_strides -----------------------------------------------------

SIZE_ZERO = "a dimension of size 0 counts as size 1 when later strides are computed"

CONTIGUOUS = [
    Case("torch.zeros(2, 3, 4).stride()", lambda t: t.zeros(2, 3, 4).stride()),
    Case("torch.ones(5).stride()", lambda t: t.ones(5).stride()),
    Case("torch.ones(4, 1, 3).stride()", lambda t: t.ones(4, 1, 3).stride()),
    Case("torch.arange(6).reshape(2, 3)", lambda t: layout(t.arange(6).reshape(2, 3))),
    Case(
        "torch.arange(24.).reshape(2, 3, 4).transpose(0, 2).contiguous()",
        lambda t: layout(x3(t).transpose(0, 2).contiguous()),
    ),
    Case(
        "torch.arange(6.).reshape(2, 3).t().reshape(6)",
        lambda t: layout(t.arange(6.0).reshape(2, 3).t().reshape(6)),
    ),
    Case(
        "torch.ones(2, 3) + torch.ones(3)", lambda t: layout(t.ones(2, 3) + t.ones(3))
    ),
    Case(
        "torch.ones(3, 4) @ torch.ones(4, 5)",
        lambda t: layout(t.ones(3, 4) @ t.ones(4, 5)),
    ),
    Case(
        "torch.arange(24.).reshape(2, 3, 4).sum(1)",
        lambda t: layout(x3(t).sum(1)),
    ),
    Case("torch.zeros(()).stride()", lambda t: t.zeros(()).stride()),
    Case("torch.zeros(0, 4).stride()", lambda t: t.zeros(0, 4).stride()),
    Case(
        "torch.zeros(2, 0, 3).stride()",
        lambda t: t.zeros(2, 0, 3).stride(),
        convention=SIZE_ZERO,
    ),
]

# --- 1.6 infer_shape ------------------------------------------------------------


def reshaped(shape: tuple[int, ...], source: str = "arange") -> Any:
    def run(torch: Any) -> Any:
        x = torch.arange(12.0) if source == "arange" else torch.zeros(0, 3)
        return list(x.reshape(*shape).shape)

    return run


INFER = [
    Case("torch.arange(12.).reshape(3, -1).shape", reshaped((3, -1))),
    Case("torch.arange(12.).reshape(-1).shape", reshaped((-1,))),
    Case("torch.arange(12.).reshape(2, -1, 2).shape", reshaped((2, -1, 2))),
    Case("torch.arange(12.).reshape(4, 3).shape", reshaped((4, 3))),
    Case("torch.arange(12.).reshape(-1, 5)", reshaped((-1, 5))),
    Case("torch.arange(12.).reshape(5, 3)", reshaped((5, 3))),
    Case("torch.arange(12.).reshape(-1, -1)", reshaped((-1, -1))),
    Case(
        "torch.arange(12.).view(-1, 6).tolist()",
        lambda t: t.arange(12.0).view(-1, 6).tolist(),
    ),
    Case("torch.zeros(0, 3).reshape(-1, 3).shape", reshaped((-1, 3), "empty")),
    Case(
        "torch.zeros(0, 3).reshape(-1, 0)",
        reshaped((-1, 0), "empty"),
        convention="with 0 elements, -1 could be any size: PyTorch refuses it",
    ),
    Case(
        "torch.arange(12.).reshape(-2, 6)",
        reshaped((-2, 6)),
        convention="a size below -1 is an error, even when the product matches",
    ),
]

# --- 1.7 position_list ----------------------------------------------------------

# Chapter 1's public cases of 1.5 to 1.9 index with select, narrow and view, not
# x[...]: indexing is exercise 1.10, which needs these pieces to be checked.


def x34(torch: Any) -> Any:
    """``arange(12.).reshape(3, 4)``, made without ``reshape`` (which would
    need 1.8's view_strides: 1.7's cases run before 1.8 is written)."""
    return torch.tensor([[0.0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])


def y234(torch: Any) -> Any:
    """``arange(24.).reshape(2, 3, 4)``, made without ``reshape``."""
    return torch.tensor(
        [[[12.0 * i + 4 * j + k for k in range(4)] for j in range(3)] for i in range(2)]
    )


POSITIONS = [
    Case("x.t().tolist()", lambda t: x34(t).t().tolist()),
    Case("x.select(1, 1).tolist()", lambda t: x34(t).select(1, 1).tolist()),
    Case(
        "x.narrow(0, 1, 2).narrow(1, 1, 3).tolist()",
        lambda t: x34(t).narrow(0, 1, 2).narrow(1, 1, 3).tolist(),
    ),
    Case(
        "y.select(2, 0).contiguous()  (y: arange(24.) as 2x3x4)",
        lambda t: layout(y234(t).select(2, 0).contiguous()),
    ),
    Case("x.t() + 1", lambda t: x34(t).t() + 1),
    Case("x.t() * x.t()", lambda t: x34(t).t() * x34(t).t()),
    Case("x.t().sum(0)", lambda t: x34(t).t().sum(0)),
    Case(
        "y.permute(2, 0, 1).contiguous()",
        lambda t: layout(y234(t).permute(2, 0, 1).contiguous()),
    ),
    Case(
        "x.select(1, 2) - x.select(1, 0)",
        lambda t: x34(t).select(1, 2) - x34(t).select(1, 0),
    ),
    Case(
        "x.t().narrow(0, 1, 2).narrow(1, 1, 2).tolist()",
        lambda t: x34(t).t().narrow(0, 1, 2).narrow(1, 1, 2).tolist(),
    ),
    Case("x.t().contiguous()", lambda t: layout(x34(t).t().contiguous())),
]

# --- 1.8 view_strides -----------------------------------------------------------


def viewed(make: Any, shape: tuple[int, ...]) -> Any:
    def run(torch: Any) -> Any:
        return layout(make(torch).view(*shape))

    return run


def reshaped_copy(make: Any, shape: tuple[int, ...]) -> Any:
    def run(torch: Any) -> Any:
        source = make(torch)
        result = source.reshape(*shape)
        kind = "view" if shares_storage(source, result) else "copy"
        return {"kind": kind, **layout(result)}

    return run


VIEW_STRIDES = [
    Case("x.view(6, 4)", viewed(x3, (6, 4))),
    Case("x.view(24)", viewed(x3, (24,))),
    Case("x.view(2, 12)", viewed(x3, (2, 12))),
    Case("x.view(4, 3, 2)", viewed(x3, (4, 3, 2))),
    Case(
        "x.view(2, 3, 2, 2).select(3, 0).view(6, 2)",
        viewed(lambda t: x3(t).view(2, 3, 2, 2).select(3, 0), (6, 2)),
    ),
    Case(
        "x.transpose(1, 2).view(2, 12)",
        viewed(lambda t: x3(t).transpose(1, 2), (2, 12)),
    ),
    Case(
        "x.permute(2, 0, 1).view(4, 6)",
        viewed(lambda t: x3(t).permute(2, 0, 1), (4, 6)),
    ),
    Case(
        "x.permute(2, 0, 1).view(4, 3, 2)",
        viewed(lambda t: x3(t).permute(2, 0, 1), (4, 3, 2)),
    ),
    Case(
        "x.narrow(1, 1, 2).view(2, 8)",
        viewed(lambda t: x3(t).narrow(1, 1, 2), (2, 8)),
    ),
    Case(
        "x.narrow(1, 1, 2).view(4, 4)",
        viewed(lambda t: x3(t).narrow(1, 1, 2), (4, 4)),
    ),
    Case(
        "x.view(6, 4).unsqueeze(0).transpose(0, 1).view(24): a size 1 between",
        viewed(lambda t: x3(t).view(6, 4).unsqueeze(0).transpose(0, 1), (24,)),
    ),
    Case(
        "x.view(24)[:2].view(1, 2, 1).transpose(0, 1).view(2, 1, 1, 1): sizes 1",
        viewed(
            lambda t: x3(t).view(24)[:2].view(1, 2, 1).transpose(0, 1), (2, 1, 1, 1)
        ),
    ),
    Case(
        "x.transpose(0, 1).reshape(3, 8)",
        reshaped_copy(lambda t: x3(t).transpose(0, 1), (3, 8)),
    ),
    Case(
        "x.select(2, 1).reshape(6)",
        reshaped_copy(lambda t: x3(t).select(2, 1), (6,)),
    ),
    Case(
        "x.select(1, 0).reshape(2, 2, 2)",
        reshaped_copy(lambda t: x3(t).select(1, 0), (2, 2, 2)),
    ),
    Case(
        "x.view(2, 1, 12)",
        viewed(x3, (2, 1, 12)),
        convention="a new dimension of size 1 takes the stride of the size after it, "
        "times that size",
    ),
    Case(
        "torch.tensor(2.0).view(1, 1)",
        viewed(lambda t: t.tensor(2.0), (1, 1)),
        convention="a 0-d tensor has one element: it views as any shape of ones",
    ),
    Case(
        "torch.zeros(0, 3).view(3, 0)",
        viewed(lambda t: t.zeros(0, 3), (3, 0)),
        convention="a tensor with no elements can take any shape with no elements",
    ),
]

# --- expanded_layout ---------------------------------------------------------------


def expanded(make: Any, *sizes: int) -> Any:
    def run(torch: Any) -> Any:
        source = make(torch)
        result = source.expand(*sizes)
        return {"view": shares_storage(source, result), **layout(result)}

    return run


def column(torch: Any) -> Any:
    return torch.arange(3.0).reshape(3, 1)


EXPANDED = [
    Case("column.expand(3, 4)", expanded(column, 3, 4)),
    Case("torch.arange(3.).expand(2, 3)", expanded(lambda t: t.arange(3.0), 2, 3)),
    Case("column.expand(2, 3, 4)", expanded(column, 2, 3, 4)),
    Case("column.expand(-1, 4)", expanded(column, -1, 4)),
    Case("column.expand(3, 1)", expanded(column, 3, 1)),
    Case(
        "torch.arange(6.).reshape(2, 3).narrow(1, 1, 1).expand(2, 5)",
        expanded(lambda t: t.arange(6.0).reshape(2, 3).narrow(1, 1, 1), 2, 5),
    ),
    Case(
        "torch.arange(6.).reshape(2, 3).t().narrow(0, 0, 1).expand(4, 2)",
        expanded(lambda t: t.arange(6.0).reshape(2, 3).t().narrow(0, 0, 1), 4, 2),
    ),
    Case("torch.tensor(5.).expand(2, 3)", expanded(lambda t: t.tensor(5.0), 2, 3)),
    Case("column.expand(3, 0)", expanded(column, 3, 0)),
    Case(
        "torch.ones(2, 3) + column.expand(3, 1).t()",
        lambda t: layout(t.ones(2, 3) + column(t).expand(3, 1).t()),
    ),
    Case("column.expand(4, 4)", expanded(column, 4, 4)),
    Case("torch.arange(3.).expand(-1, 3)", expanded(lambda t: t.arange(3.0), -1, 3)),
    Case(
        "torch.arange(3.).expand(1, 3)",
        expanded(lambda t: t.arange(3.0), 1, 3),
        convention="a new dimension of size 1 is not stretched: it takes the stride "
        "of a contiguous layout (the size times the stride after it)",
    ),
    Case(
        "torch.arange(3.).expand(1, 2, 3)",
        expanded(lambda t: t.arange(3.0), 1, 2, 3),
        convention="a new dimension of size 1 is not stretched: it takes the stride "
        "of a contiguous layout (the size times the stride after it)",
    ),
]

# --- basic indexing ---------------------------------------------------------------


def picked(make: Any, index: Any = None) -> Any:
    """``make(x)`` for ``x = torch.arange(24.).reshape(2, 3, 4)`` (or
    ``make(x, index(torch))``): its layout, storage offset, whether it is a
    view of ``x``, and its ``grad_fn``."""

    def run(torch: Any) -> Any:
        x = x234(torch)
        x.requires_grad_()
        result = make(x) if index is None else make(x, index(torch))
        node = result.grad_fn
        return {
            **layout(result.detach()),
            "offset": result.storage_offset(),
            "view": shares_storage(x, result),
            "grad_fn": None if node is None else node.name(),
        }

    return run


def written(index: Any, value: float) -> Any:
    def run(torch: Any) -> Any:
        y = x234(torch)
        y[index] = value
        return y

    return run


def full_writes(torch: Any) -> Any:
    """``h[:] = v`` writes into ``h`` itself; ``h[0:1] = v`` through a view."""
    a = torch.ones(2, 3, requires_grad=True)
    names = []
    for index in (slice(None), (slice(None), slice(0, None)), slice(0, 1)):
        h = a * 2
        h[index] = torch.zeros(3)
        names.append(h.grad_fn.name())
    return names


def sliced_grad(torch: Any) -> Any:
    w = x234(torch).requires_grad_()
    part = w[1, ::2, None, 1:3]
    (part * torch.arange(4.0).reshape(2, 1, 2)).sum().backward()
    return w.grad


BASIC = [
    Case("x[1]", picked(lambda x: x[1])),
    Case("x[:, 1]", picked(lambda x: x[:, 1])),
    Case("x[1:, ::2]", picked(lambda x: x[1:, ::2])),
    Case("x[-1, 1:-1, ::3]", picked(lambda x: x[-1, 1:-1, ::3])),
    Case("x[None, 0, ..., None]", picked(lambda x: x[None, 0, ..., None])),
    Case("x[..., 2]", picked(lambda x: x[..., 2])),
    Case("x[::2, None, :, 1:3]", picked(lambda x: x[::2, None, :, 1:3])),
    Case("x[1:100, -100:2]", picked(lambda x: x[1:100, -100:2])),
    Case("x[:, 3:1]", picked(lambda x: x[:, 3:1])),
    Case("x[:, :]", picked(lambda x: x[:, :])),
    Case("x[:]", picked(lambda x: x[:])),
    Case(
        "x[torch.tensor(1), -2]",
        picked(lambda x, i: x[i, -2], lambda t: t.tensor(1)),
    ),
    Case("x[0, ..., 1:3, None]", picked(lambda x: x[0, ..., 1:3, None])),
    Case("y[0, 1:] = 5.0", written((0, slice(1, None)), 5.0)),
    Case("y[..., ::2] = -1.0", written((Ellipsis, slice(None, None, 2)), -1.0)),
    Case("h[:] = v, h[:, 0:] = v, h[0:1] = v: h.grad_fn", full_writes),
    Case("x[2]", picked(lambda x: x[2])),
    Case("x[0, 0, 0, 0]", picked(lambda x: x[0, 0, 0, 0])),
    Case("x[0, :, 4]", picked(lambda x: x[0, :, 4])),
    Case("x[::0]", picked(lambda x: x[::0])),
    Case("x[::-1]", picked(lambda x: x[::-1])),
    Case("torch.tensor(2.0)[0]", lambda t: t.tensor(2.0)[0]),
    Case("torch.tensor(2.0)[1:]", lambda t: t.tensor(2.0)[1:]),
    Case(
        "x[torch.tensor(1.0)]",
        picked(lambda x, i: x[i], lambda t: t.tensor(1.0)),
    ),
    Case("x[1.0]", picked(lambda x: x[1.0])),
    Case("x['a']", picked(lambda x: x["a"])),
]

# --- advanced indexing ----------------------------------------------------------


def x234(torch: Any) -> Any:
    return torch.arange(24.0).reshape(2, 3, 4)


def w2345(torch: Any) -> Any:
    """A 4-d tensor, for index tensors apart with a dimension between them."""
    return torch.tensor(
        [
            [
                [[a * 60 + b * 20 + c * 5 + d for d in range(5)] for c in range(4)]
                for b in range(3)
            ]
            for a in range(2)
        ],
        dtype=torch.float32,
    )


def assigned(torch: Any) -> Any:
    y = x234(torch)
    y[[0, 1], [2, 0]] = -1.0
    y[:, [1], [3, 0]] = torch.tensor([10.0, 20.0])
    return y


def indexed_grad(torch: Any) -> Any:
    w = x234(torch).requires_grad_()
    picked = w[[0, 0, 1], :, [3, 3, 0]]
    (picked * torch.arange(9.0).reshape(3, 3)).sum().backward()
    return {"picked": picked, "grad": w.grad}


ADVANCED = [
    Case("x[[1, 0], 1:]", lambda t: x234(t)[[1, 0], 1:]),
    Case("x[1:, None, [2, 0]]", lambda t: x234(t)[1:, None, [2, 0]]),
    Case("x[[1, 0, 1]]", lambda t: x234(t)[[1, 0, 1]]),
    Case("x[:, [2, 0]]", lambda t: x234(t)[:, [2, 0]]),
    Case("x[:, [0, 2], [1, 3]]", lambda t: x234(t)[:, [0, 2], [1, 3]]),
    Case("x[[0, 1], :, [1, 2]]", lambda t: x234(t)[[0, 1], :, [1, 2]]),
    Case(
        "x[torch.tensor([[0], [1]]), torch.tensor([1, 2])]",
        lambda t: x234(t)[t.tensor([[0], [1]]), t.tensor([1, 2])],
    ),
    Case("x[[-1, 0], -2]", lambda t: x234(t)[[-1, 0], -2]),
    Case("x[1:, [2, 0], 1:3]", lambda t: x234(t)[1:, [2, 0], 1:3]),
    Case("x[0, [1, 1], None, [0, 3]]", lambda t: x234(t)[0, [1, 1], None, [0, 3]]),
    Case(
        "w[:, [2, 0, 1], :, [4, 0, 3]], w of shape (2, 3, 4, 5)",
        lambda t: w2345(t)[:, [2, 0, 1], :, [4, 0, 3]],
    ),
    Case("x[:, [-1, 1], [0, -3]]", lambda t: x234(t)[:, [-1, 1], [0, -3]]),
    Case("x[[0, 2]]", lambda t: x234(t)[[0, 2]]),
    Case("x[[0, 1], [0, 1, 2]]", lambda t: x234(t)[[0, 1], [0, 1, 2]]),
    Case("y[[0, 1], [2, 0]] = -1.0; y[:, [1], [3, 0]] = ...", assigned),
    Case("torch.zeros(2, 0, 3)[[1, 0]]", lambda t: t.zeros(2, 0, 3)[[1, 0]].shape),
    Case("torch.zeros(2, 0, 3)[:, [0]]", lambda t: t.zeros(2, 0, 3)[:, [0]].shape),
    Case(
        "torch.zeros(0, 3)[:, [5]]",
        lambda t: t.zeros(0, 3)[:, [5]].shape,
        convention="an empty result reads no index, so none is checked",
    ),
]

# --- the exercises --------------------------------------------------------------

EXERCISES = {
    "1.1": Exercise(
        "1.1",
        "view or copy",
        "answers_1_1",
        "predict",
        [_view_case(label, make) for label, make in VIEWS.items()],
        [
            "A view shares the storage: it only changes shape, strides or offset.",
            "Ask whether the new shape can be read from the old storage with "
            "strides: if yes, reshape and contiguous return a view, else a copy.",
            "Arithmetic always makes a new storage; contiguous() on a contiguous "
            "tensor returns the tensor itself.",
        ],
    ),
    "1.2": Exercise(
        "1.2",
        "which dtype",
        "answers_1_2",
        "predict",
        [Case(expression, dtype_of(expression)) for expression in DTYPES],
        [
            "Write dtypes as 'float32', 'int64'... and 'error' when PyTorch refuses.",
            "Categories rank bool < integer < floating point; a higher category wins, "
            "and / always gives a floating point result.",
            "A 0-d tensor or a Python number only decides the dtype when it is of a "
            "higher category than every tensor with dimensions.",
        ],
    ),
    "1.3": Exercise(
        "1.3",
        "broadcast shapes",
        "answers_1_3",
        "predict",
        [Case(text, shape_of(text), convention) for text, convention in BROADCASTS],
        [
            "Write a shape as a list such as [3, 4], and 'error' when they do not "
            "broadcast.",
            "Line the shapes up on the right; a missing dimension counts as 1.",
            "Two sizes agree when they are equal or one of them is 1, which stretches.",
        ],
    ),
    "1.4": Exercise(
        "1.4",
        "strides and contiguity",
        "answers_1_4",
        "predict",
        [Case(text, evaluated(text)) for text in STRIDES],
        [
            "x = torch.zeros(2, 3, 4) has strides (12, 4, 1). Write strides as lists.",
            "Indexing with an int drops that dimension and its stride; a step "
            "multiplies the stride; transpose and permute reorder the strides.",
            "A tensor is contiguous when its strides are those of a fresh tensor of "
            "its shape (dimensions of size 1 do not matter).",
        ],
    ),
    "1.5": Exercise(
        "1.5",
        "contiguous_strides",
        "contiguous_strides",
        "piece",
        CONTIGUOUS,
        [
            "Work from the last dimension backwards: its stride is 1.",
            "Each stride is the number of elements in one step of that dimension: "
            "the product of the sizes after it.",
            "Keep a running product while you walk the shape from the right; "
            "return a tuple in the original order.",
        ],
        target="slowtorch_lib._strides.contiguous_strides",
        what="tensor operations",
    ),
    "1.6": Exercise(
        "1.6",
        "infer_shape",
        "infer_shape",
        "piece",
        INFER,
        [
            "Without a -1 the shape must hold exactly count elements, else "
            "RuntimeError.",
            "The -1 is count divided by the product of the other sizes, when that "
            "divides exactly.",
            "Check, in order: more than one -1; a size below -1; then the product.",
        ],
        target="slowtorch_lib.ops.views.infer_shape",
        what="reshapes",
    ),
    "1.7": Exercise(
        "1.7",
        "position_list",
        "position_list",
        "piece",
        POSITIONS,
        [
            "The positions must come in row-major order of the index: last "
            "dimension fastest.",
            "Start from [offset]; for each dimension, from the first to the last, "
            "replace each position p by p, p + s, p + 2s, ... (size of them).",
            "A dimension of size 0 leaves no positions at all.",
        ],
        target="slowtorch_lib._strides.position_list",
        what="reads of strided views",
    ),
    "1.8": Exercise(
        "1.8",
        "view_strides",
        "view_strides",
        "piece",
        VIEW_STRIDES,
        [
            "Return None when no strides can read the elements in the new shape: "
            "view then raises and reshape copies.",
            "Group the old dimensions into chunks, innermost first: dimension d-1 "
            "joins d's chunk when its stride is the chunk's count times its inner "
            "stride. Elements inside a chunk are evenly spaced.",
            "Fill the new shape from the right, chunk by chunk: strides are inner, "
            "inner * size, ... until the sizes placed multiply to the chunk's count; "
            "if they overshoot, return None.",
        ],
        target="slowtorch_lib.ops.views.view_strides",
        what="views and reshapes",
    ),
    "1.9": Exercise(
        "1.9",
        "expanded_layout",
        "expanded_layout",
        "piece",
        EXPANDED,
        [
            "Line the sizes up with the shape on the right: the first "
            "len(sizes) - len(shape) sizes are new dimensions.",
            "A size that equals the old one (or is -1) keeps its stride; an old "
            "size 1 stretched to another size gets stride 0; anything else "
            "raises RuntimeError.",
            "A new dimension is stretched (stride 0) unless its size is 1; a "
            "size below 0 there raises.",
        ],
        target="slowtorch_lib._strides.expanded_layout",
        what="expanded views",
    ),
    "1.10": Exercise(
        "1.10",
        "build: basic indexing",
        "basic_index",
        "piece",
        BASIC,
        [
            "Keep two counters while you read the items: the dimension of the "
            "view the next item applies to, and the dimension of tensor it "
            "names (for error messages).",
            "An integer removes a dimension (select), a slice keeps it (a step "
            "multiplies its stride), None adds one of size 1; '...' stands for "
            "as many ':' as the other items leave over, so count those first.",
            "Advanced items only move the counters: collect (dimension, index "
            "tensor) and let _masks_to_indices turn masks into index tensors.",
        ],
        target="slowtorch_lib.ops.indexing._basic",
        forbidden=("_select_at", "_slice", "_dims_used"),
        what="indexings",
    ),
    "1.11": Exercise(
        "1.11",
        "build: advanced indexing",
        "advanced_positions",
        "piece",
        ADVANCED,
        [
            "Work in the contiguous layout of tensor: a position is the sum of "
            "index times stride over the dimensions. First find the result's "
            "shape, then each element's position.",
            "Broadcast the index tensors to one shape (torch.broadcast_shapes; "
            "index.expand(...) reads the values); each element of that shape "
            "contributes the same sum over the indexed dimensions.",
            "The kept dimensions before the indexed block (only when it is "
            "contiguous) vary slowest, then the broadcast index, then the kept "
            "dimensions after it: three nested loops over offsets.",
        ],
        target="slowtorch_lib.ops.indexing._positions",
        what="indexings",
    ),
}
