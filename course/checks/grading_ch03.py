"""Chapter 3: grading-only cases (left out of a student release).

Same form as the public cases in ``ch03.py``; the grader runs both.
"""

from __future__ import annotations

from typing import Any

from course.checking import Case
from course.checks import drawn as d
from course.checks.ch03 import (
    LOGITS,
    PROBABILITIES,
    SCORES,
    X,
    classes,
    gradients_of,
    loss_and_grad,
    names,
    spread,
    tree,
)
from course.checks.ch03_builds import (
    TABLE,
    both,
    embedded,
    entry,
    f32,
    load_error,
    loaded,
    loaded_model,
    looked_up,
    raises,
    replaced,
    two_layers,
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
        Case(
            "F.embedding(tensor([], dtype=torch.int64), W): no index",
            embedded([]),
        ),
        Case(
            "F.embedding(tensor([[3, 3], [1, 3]]), W, padding_idx=1, "
            "scale_grad_by_freq=True)",
            embedded([[3, 3], [1, 3]], padding_idx=1, scale_grad_by_freq=True),
        ),
        Case(
            "F.embedding(tensor([-1]), W)",
            raises(
                lambda t: t.nn.functional.embedding(t.tensor([-1]), t.tensor(TABLE))
            ),
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
            "F.cross_entropy(x, p, weight=w, reduction='sum'), p probabilities",
            loss_and_grad(
                lambda t, x: t.nn.functional.cross_entropy(
                    x,
                    t.tensor(PROBABILITIES[::-1]),
                    weight=t.tensor([0.5, 1.5, 3.0]),
                    reduction="sum",
                )
            ),
        ),
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
            "a size given as true, last",
            loaded(
                {"a": {"dtype": "F32", "shape": [2, True], "data_offsets": [0, 8]}},
                f32(1.0, 2.0),
            ),
        ),
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


# --- drawn cases: inputs drawn for each grading run (most of the marks) -----------


def matrix(rng: d.Rng, rows: int, cols: int, low: float = -3.0) -> list[list[float]]:
    return [d.values(rng, cols, low, 3.0) for _ in range(rows)]


def elu_drawn(torch: Any, rng: d.Rng) -> Any:
    alpha = rng.choice([1.0, 0.5, 2.0])
    make = lambda t, r, x: t.nn.functional.elu(x, alpha=alpha)  # noqa: E731
    return d.rule(make, d.shape(rng, 1, 4, (1, 2)))(torch, rng)


def kaiming_drawn(torch: Any, rng: d.Rng) -> Any:
    init = rng.choice(["kaiming_uniform_", "kaiming_normal_"])
    sizes = [rng.randint(2, 40), rng.randint(2, 40), *d.shape(rng, 1, 3, (0, 2))]
    options: dict[str, Any] = {"mode": rng.choice(["fan_in", "fan_out"])}
    options["nonlinearity"] = rng.choice(["leaky_relu", "relu", "tanh", "linear"])
    if options["nonlinearity"] == "leaky_relu":
        options["a"] = rng.choice([0.0, 0.01, 0.2, 5**0.5])
    return spread(init, tuple(sizes), **options)(torch)


def cross_entropy_drawn(torch: Any, rng: d.Rng) -> Any:
    """The loss alone (its gradient would need a backward pass)."""
    rows, count = rng.randint(1, 5), rng.randint(2, 5)
    logits = torch.tensor(matrix(rng, rows, count))
    options: dict[str, Any] = {"reduction": rng.choice(["mean", "sum", "none"])}
    if rng.random() < 0.5:
        target = torch.tensor([rng.randrange(count) for _ in range(rows)])
        if rng.random() < 0.4:
            options["weight"] = torch.tensor(d.values(rng, count, 0.1, 2.0))
        if rng.random() < 0.3:
            options["ignore_index"] = rng.randrange(count)
    else:
        weights = [[rng.randint(0, 4) for _ in range(count)] for _ in range(rows)]
        target = torch.tensor([[v / max(1, sum(r)) for v in r] for r in weights])
    return torch.nn.functional.cross_entropy(logits, target, **options)


def model_drawn(torch: Any, rng: d.Rng) -> Any:
    nn = torch.nn
    sizes = [rng.randint(1, 4) for _ in range(rng.randint(2, 4))]
    layers: list[Any] = []
    for n_in, n_out in zip(sizes, sizes[1:], strict=False):
        layers.append(nn.Linear(n_in, n_out, bias=rng.random() < 0.6))
        if rng.random() < 0.5:
            layers.append(nn.Tanh())
    if rng.random() < 0.4:
        layers.append(layers[0])  # a module used twice
    model = nn.Sequential(*layers)
    if rng.random() < 0.5:
        model.extra = nn.Sequential(nn.Linear(2, 2), layers[0])
    options: dict[str, Any] = {}
    if rng.random() < 0.3:
        options["prefix"] = "net"
    if rng.random() < 0.3:
        options["recurse"] = False
    if rng.random() < 0.3:
        options["remove_duplicate"] = False
    named = model.named_parameters(**options)
    return [(name, list(p.shape)) for name, p in named]


def addmm_drawn(torch: Any, rng: d.Rng) -> Any:
    n, k, m = rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4)
    c, a, b = (d.leaf(torch, rng, s) for s in ([n, m], [n, k], [k, m]))
    out = torch.addmm(c, a, b)
    grad = d.tensor(torch, rng, [n, m])
    return {"output": out.detach(), "grads": d.node_grads(torch, out, grad)}


def log_softmax_drawn(torch: Any, rng: d.Rng) -> Any:
    sizes = d.shape(rng, 1, 4, (1, 3))
    dim = rng.randrange(len(sizes))
    make = lambda t, r, x: t.nn.functional.log_softmax(x, dim=dim)  # noqa: E731
    return d.rule(make, sizes)(torch, rng)


def safetensors_drawn(torch: Any, rng: d.Rng) -> Any:
    """A drawn file as written, then maybe spoilt (an error alone never
    makes a case: an answer that always raises fails it)."""
    return [
        safetensors_file_drawn(torch, rng, False),
        safetensors_file_drawn(torch, rng),
    ]


def safetensors_file_drawn(torch: Any, rng: d.Rng, spoil: bool = True) -> Any:
    kinds = {"F32": 4, "I64": 8, "BOOL": 1, "F64": 8}
    entries: dict[str, Any] = {}
    offset = 0
    for number in range(rng.randint(1, 4)):
        kind = rng.choice(list(kinds))
        sizes = d.shape(rng, 0, 4, (0, 3))
        length = d.numel(sizes) * kinds[kind]
        entries[f"t{number}"] = entry(kind, sizes, offset, offset + length)
        offset += length
    buffer = bytes(rng.choice([0, 1]) for _ in range(offset))
    fault = rng.randrange(5) if spoil else 4
    name = rng.choice(list(entries))
    begin, end = entries[name]["data_offsets"]
    if fault == 0:
        entries[name]["data_offsets"] = [begin, end + rng.randint(1, 9)]
    elif fault == 1:
        buffer = buffer[: max(0, len(buffer) - rng.randint(1, 4))]
    elif fault == 2 and len(entries) > 1:
        entries[name]["data_offsets"] = [max(0, begin - 1), max(0, end - 1)]
    elif fault == 3:
        entries[name]["shape"] = [*entries[name]["shape"], 2]
    items = list(entries.items())
    rng.shuffle(items)
    return loaded(dict(items), buffer)(torch)


def embedding_drawn(torch: Any, rng: d.Rng) -> Any:
    count, width = rng.randint(2, 6), rng.randint(1, 3)
    table = matrix(rng, count, width)
    length = rng.randint(1, 4)  # every row as long: a ragged list is no tensor
    indices = [
        [rng.randrange(count) for _ in range(length)] for _ in range(rng.randint(1, 3))
    ]
    options: dict[str, Any] = {}
    if rng.random() < 0.4:
        options["padding_idx"] = rng.randrange(-count, count)
    if rng.random() < 0.3:
        options["max_norm"] = rng.choice([0.5, 1.0, 2.0])
    if rng.random() < 0.3:
        options["scale_grad_by_freq"] = True
    emb = torch.nn.Embedding(count, width, _weight=torch.tensor(table), **options)
    out = emb(torch.tensor(indices))
    scale = torch.tensor(d.values(rng, out.numel())).reshape(out.shape)
    (out * scale).sum().backward()
    return {"out": out.detach(), "table": emb.weight.detach(), "grad": emb.weight.grad}


def load_state_drawn(torch: Any, rng: d.Rng) -> Any:
    """A drawn state loaded as it is, then a changed one (an error alone never
    makes a case: an answer that always raises fails it)."""
    return [load_state_one(torch, rng, False), load_state_one(torch, rng)]


def load_state_one(torch: Any, rng: d.Rng, change: bool = True) -> Any:
    seed = rng.randint(3, 50)
    state = dict(two_layers(torch, seed).state_dict())
    # (torch fills a missing num_batches_tracked in from an old state's version)
    keys = [key for key in state if not key.endswith("num_batches_tracked")]
    fault = rng.randrange(4) if change else 3
    if fault == 0:
        del state[rng.choice(keys)]
    elif fault == 1:
        state[rng.choice(["extra", "0.extra", "2.1.bias_x"])] = torch.zeros(1)
    elif fault == 2:
        key = rng.choice(keys)
        state[key] = torch.zeros(rng.randint(1, 3), 7)
    strict = rng.random() < 0.5
    model = two_layers(torch, 2)
    try:
        result = model.load_state_dict(state, strict=strict)
    except RuntimeError as error:
        return {"raised": type(error).__name__}
    return {
        "returned": [sorted(result.missing_keys), sorted(result.unexpected_keys)],
        "state": dict(model.state_dict()),
    }


DRAWN = {
    "3.4": [
        d.drawn("F.elu(x, alpha=a) * w", elu_drawn),
        d.drawn("F.elu(x, alpha=a) * w (again)", elu_drawn),
        d.drawn("F.elu(x, alpha=a) * w (a third)", elu_drawn),
    ],
    "3.5": [
        d.drawn("kaiming_*_(torch.empty(...), ...)", kaiming_drawn),
        d.drawn("kaiming_*_ (again)", kaiming_drawn),
        d.drawn("kaiming_*_ (a third)", kaiming_drawn),
    ],
    "3.6": [
        d.drawn("F.cross_entropy(x, t, ...)", cross_entropy_drawn),
        d.drawn("F.cross_entropy (again)", cross_entropy_drawn),
        d.drawn("F.cross_entropy (a third)", cross_entropy_drawn),
    ],
    "3.7": [
        d.drawn("named_parameters of a drawn model", model_drawn),
        d.drawn("named_parameters (again)", model_drawn),
        d.drawn("named_parameters (a third)", model_drawn),
    ],
    "3.8": [
        d.drawn("torch.addmm(c, a, b): AddmmBackward0", addmm_drawn),
        d.drawn("torch.addmm (again)", addmm_drawn),
        d.drawn("torch.addmm (a third)", addmm_drawn),
    ],
    "3.9": [
        d.drawn("F.log_softmax(x, dim) * w", log_softmax_drawn),
        d.drawn("F.log_softmax (again)", log_softmax_drawn),
        d.drawn("F.log_softmax (a third)", log_softmax_drawn),
    ],
    "3.10": [
        d.drawn("a drawn safetensors file, maybe faulty", safetensors_drawn),
        d.drawn("a drawn safetensors file (again)", safetensors_drawn),
        d.drawn("a drawn safetensors file (a third)", safetensors_drawn),
    ],
    "3.11": [
        d.drawn("Embedding(...) on drawn indices", embedding_drawn),
        d.drawn("Embedding (again)", embedding_drawn),
        d.drawn("Embedding (a third)", embedding_drawn),
    ],
    "3.12": [
        d.drawn("load_state_dict of a changed state", load_state_drawn),
        d.drawn("load_state_dict (again)", load_state_drawn),
        d.drawn("load_state_dict (a third)", load_state_drawn),
    ],
}
