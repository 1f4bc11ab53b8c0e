"""Chapter 3, "Building blocks": the exercises and their public cases.

As in chapters 1 and 2, each case is a short program written against
PyTorch's API, recorded once under PyTorch and run under the engine with the
student's piece in place of the engine's own. Models whose weights matter get
their weights written in, so a case does not rest on the order in which a
student's piece happens to draw random numbers.
"""

from __future__ import annotations

import math
from typing import Any

from course.checking import Case, Exercise
from course.checks.ch02 import gradients_of as outputs_and_gradients
from course.checks.ch03_builds import EMBEDDING, HEADERS, LOAD

# --- running a little program -----------------------------------------------------


def program(text: str, context: Any) -> Any:
    """A case that runs ``text`` (statements separated by ``"; "``) in the
    names ``context(torch)`` gives, and returns its last expression."""

    def run(torch: Any) -> Any:
        *body, last = text.split("; ")
        names = context(torch)
        exec("\n".join(body), names)  # noqa: S102  (our own text)
        value = eval(last, names)  # noqa: S307
        return value.tolist() if hasattr(value, "tolist") else value

    return run


def set_weights(torch: Any, layer: Any, weight: Any, bias: Any) -> Any:
    """``layer`` with its weight and bias overwritten by these values."""
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(weight))
        layer.bias.copy_(torch.tensor(bias))
    return layer


def gradients_of(make: Any, *values: Any, double: bool = False) -> Any:
    """Chapter 2's cases of a backward rule, with the keys in the order the
    recorded answers have (so that a failing case shows its gradients first)."""
    run = outputs_and_gradients(make, *values, double=double)
    return lambda torch: dict(sorted(run(torch).items()))


# --- 3.1 names in a model ---------------------------------------------------------


def block_models(torch: Any) -> dict[str, Any]:
    """A small model with every kind of state, and a Sequential holding it."""
    nn = torch.nn

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(2, 3)
            self.scale = nn.Parameter(torch.ones(3))
            self.register_buffer("steps", torch.zeros((), dtype=torch.int64))
            self.cache = torch.zeros(3)
            self.act = nn.ReLU()

        def forward(self, x: Any) -> Any:
            return self.act(self.fc(x)) * self.scale

    torch.manual_seed(0)
    block = Block()
    net = nn.Sequential(block, nn.Linear(3, 1))
    lin = nn.Linear(2, 2)
    return {"torch": torch, "nn": nn, "block": block, "net": net, "lin": lin}


NAMES = [
    "[name for name, _ in block.named_parameters()]",
    "list(block.state_dict())",
    "[name for name, _ in block.named_children()]",
    "[name for name, _ in block.named_buffers()]",
    "'cache' in block.state_dict()",
    "type(block.fc.weight).__name__",
    "block.fc.weight.shape",
    "[name for name, _ in net.named_modules()]",
    "[name for name, _ in net.named_parameters()]",
    "sum(p.numel() for p in net.parameters())",
    "len(list(nn.Sequential(lin, lin).parameters()))",
    "list(nn.Sequential(lin, lin).state_dict())",
    "list(nn.Linear(2, 3, bias=False).state_dict())",
    "list(nn.BatchNorm1d(3).state_dict())",
    "block.fc = None; [name for name, _ in block.named_parameters()]",
    "block.cache = nn.Parameter(torch.zeros(3)); list(block.state_dict())",
    "block.extra = nn.Linear(3, 3); [name for name, _ in block.named_children()]",
]

# --- 3.2 which grad_fn ------------------------------------------------------------


def layer_inputs(torch: Any) -> dict[str, Any]:
    torch.manual_seed(0)
    return {
        "torch": torch,
        "nn": torch.nn,
        "F": torch.nn.functional,
        "x": torch.tensor(
            [[0.5, -1.0, 2.0], [1.5, 0.0, -0.5], [-2.0, 1.0, 0.25], [0.0, 0.5, 1.0]],
            requires_grad=True,
        ),
        "t": torch.tensor([0, 2, 1, 2]),
    }


LAYER_GRAD_FNS = [
    "nn.Linear(3, 2)(x)",
    "nn.Linear(3, 2, bias=False)(x)",
    "nn.Linear(3, 2).weight",
    "F.relu(x)",
    "nn.Tanh()(x)",
    "F.gelu(x)",
    "F.softmax(x, dim=1)",
    "F.log_softmax(x, dim=1)",
    "F.cross_entropy(x, t)",
    "F.cross_entropy(x, t).grad_fn.next_functions[0][0]",
    "F.mse_loss(x, torch.zeros(4, 3))",
    "nn.Sequential(nn.Linear(3, 2), nn.ReLU())(x)",
    "nn.Dropout(0.5).eval()(x)",
    "nn.Embedding(5, 2)(torch.tensor([1, 3]))",
    "nn.LayerNorm(3)(x)",
    "F.binary_cross_entropy_with_logits(x, torch.ones(4, 3))",
]


def grad_fn_name(expression: str) -> Any:
    def run(torch: Any) -> Any:
        result = eval(expression, layer_inputs(torch))  # noqa: S307  (our own text)
        node = result.grad_fn if hasattr(result, "grad_fn") else result
        return None if node is None else node.name()

    return run


# --- 3.3 train and eval -----------------------------------------------------------


def mode_inputs(torch: Any) -> dict[str, Any]:
    torch.manual_seed(0)
    return {
        "torch": torch,
        "nn": torch.nn,
        "x": torch.tensor([[1.0, 2.0], [3.0, 6.0]]),
    }


MODES = [
    "d = nn.Dropout(0.5); d.training",
    "d = nn.Dropout(0.5); d.eval(); d(x)",
    "nn.Dropout(p=1.0)(x)",
    "sorted(set(nn.Dropout(0.5)(torch.ones(100)).tolist()))",
    "m = nn.Sequential(nn.Linear(2, 2), nn.Dropout()); m.eval(); m[1].training",
    "m = nn.Sequential(nn.Linear(2, 2), nn.Dropout()); m.eval(); m.train(); "
    "m[1].training",
    "bn = nn.BatchNorm1d(2); bn(x)",
    "bn = nn.BatchNorm1d(2); bn(x); bn.running_mean",
    "bn = nn.BatchNorm1d(2); bn(x); bn.running_var",
    "bn = nn.BatchNorm1d(2); bn(x); bn.num_batches_tracked.item()",
    "bn = nn.BatchNorm1d(2); bn.eval(); bn(x)",
    "bn = nn.BatchNorm1d(2); bn.eval(); bn(x); bn.running_mean",
    "bn = nn.BatchNorm1d(2); bn(x); bn.eval(); bn(x)",
    "w = nn.Parameter(torch.tensor([1.0, 2.0])); (w * w).sum().backward(); "
    "(w * w).sum().backward(); w.grad",
    "w = nn.Parameter(torch.tensor([1.0, 2.0])); (w * w).sum().backward(); "
    "with torch.no_grad(): w -= 0.25 * w.grad; w",
    "m = nn.Linear(2, 1); m(x).sum().backward(); m.zero_grad(); m.bias.grad",
]

# --- 3.4 Elu's backward -----------------------------------------------------------

SIGNS = [-2.0, -0.5, 0.25, 1.5, 3.0]
M = [[-1.0, 0.5, 2.0], [-3.0, 1.0, -0.25]]
ROW = [1.0, -2.0, 0.5]

ELU = [
    Case("F.elu(x)", gradients_of(lambda t, x: t.nn.functional.elu(x), SIGNS)),
    Case(
        "F.elu(x, alpha=0.5) * w",
        gradients_of(
            lambda t, x, w: t.nn.functional.elu(x, alpha=0.5) * w,
            SIGNS,
            [1.0, -2.0, 3.0, 0.5, 2.0],
        ),
    ),
    Case(
        "nn.ELU(alpha=2.0)(m) * r",
        gradients_of(lambda t, m, r: t.nn.ELU(alpha=2.0)(m) * r, M, ROW),
    ),
    Case(
        "F.elu(2 * x) * x",
        gradients_of(lambda t, x: t.nn.functional.elu(2 * x) * x, SIGNS),
    ),
    Case(
        "F.elu(F.elu(x))",
        gradients_of(lambda t, x: t.nn.functional.elu(t.nn.functional.elu(x)), SIGNS),
    ),
    Case(
        "F.elu(x - 30)",
        gradients_of(lambda t, x: t.nn.functional.elu(x - 30), [0.0, 10.0]),
    ),
    Case(
        "second derivative of F.elu(x, alpha=1.5)",
        gradients_of(
            lambda t, x: t.nn.functional.elu(x, alpha=1.5), SIGNS, double=True
        ),
    ),
    Case(
        "F.elu(torch.tensor([0.0]), alpha=0.5)",
        gradients_of(lambda t, x: t.nn.functional.elu(x, alpha=0.5), [0.0]),
        convention="at x = 0 PyTorch takes the left branch: the slope is alpha",
    ),
]

# --- 3.5 Kaiming's standard deviation ---------------------------------------------


def spread(init: str, shape: tuple[int, ...], **options: Any) -> Any:
    """The scale of ``nn.init.<init>`` on a tensor of ``shape``: its values
    divided by the standard draws the same seed gives (the largest of each)."""

    def run(torch: Any) -> Any:
        torch.manual_seed(0)
        drawn = getattr(torch.nn.init, init)(torch.empty(*shape), **options)
        torch.manual_seed(0)
        unit = torch.empty(*shape)
        unit = unit.uniform_(-1, 1) if "uniform" in init else unit.normal_(0, 1)
        return round((drawn.abs().max() / unit.abs().max()).item(), 6)

    return run


def linear_spread(n_in: int, n_out: int) -> Any:
    def run(torch: Any) -> Any:
        torch.manual_seed(0)
        drawn = torch.nn.Linear(n_in, n_out).weight.detach()
        torch.manual_seed(0)
        unit = torch.empty(n_out, n_in).uniform_(-1, 1)
        return round((drawn.abs().max() / unit.abs().max()).item(), 6)

    return run


KAIMING = [
    Case(
        "kaiming_uniform_(torch.empty(50, 100))", spread("kaiming_uniform_", (50, 100))
    ),
    Case(
        "kaiming_uniform_(torch.empty(50, 100), a=math.sqrt(5))",
        spread("kaiming_uniform_", (50, 100), a=math.sqrt(5)),
    ),
    Case(
        "kaiming_uniform_(torch.empty(50, 100), mode='fan_out')",
        spread("kaiming_uniform_", (50, 100), mode="fan_out"),
    ),
    Case(
        "kaiming_uniform_(torch.empty(50, 100), nonlinearity='relu')",
        spread("kaiming_uniform_", (50, 100), nonlinearity="relu"),
    ),
    Case(
        "kaiming_normal_(torch.empty(40, 30), nonlinearity='tanh')",
        spread("kaiming_normal_", (40, 30), nonlinearity="tanh"),
    ),
    Case(
        "kaiming_normal_(torch.empty(8, 3, 3, 3), mode='fan_out')",
        spread("kaiming_normal_", (8, 3, 3, 3), mode="fan_out"),
    ),
    Case("nn.Linear(64, 10).weight", linear_spread(64, 10)),
    Case(
        "kaiming_uniform_(torch.empty(50, 100), mode='fan_avg')",
        spread("kaiming_uniform_", (50, 100), mode="fan_avg"),
    ),
    Case(
        "kaiming_uniform_(torch.empty(50, 100), mode='FAN_OUT')",
        spread("kaiming_uniform_", (50, 100), mode="FAN_OUT"),
        convention="the mode's name is read in lower case",
    ),
]

# --- 3.6 cross_entropy ------------------------------------------------------------

LOGITS = [[0.5, -1.0, 2.0], [1.5, 0.0, -0.5], [-2.0, 1.0, 0.25], [0.0, 0.5, 1.0]]
CLASSES = [0, 2, 1, 2]


def loss_and_grad(make: Any, logits: Any = LOGITS) -> Any:
    """``make(torch, logits)`` gives a loss; the case returns it and the
    logits' gradient (of its sum, for ``reduction='none'``)."""

    def run(torch: Any) -> Any:
        x = torch.tensor(logits, requires_grad=True)
        loss = make(torch, x)
        weights = torch.arange(1.0, 1.0 + loss.numel()).reshape(loss.shape)
        (loss * weights).sum().backward()
        return {"grad": x.grad, "loss": loss}

    return run


PROBABILITIES = [[0.5, 0.5, 0.0], [0.0, 0.0, 1.0], [0.2, 0.3, 0.5], [0.2, 0.3, 0.5]]


def classes(torch: Any, values: Any = CLASSES) -> Any:
    return torch.tensor(values)


CROSS_ENTROPY = [
    Case(
        "F.cross_entropy(x, t)",
        loss_and_grad(lambda t, x: t.nn.functional.cross_entropy(x, classes(t))),
    ),
    Case(
        "F.cross_entropy(x, t, reduction='sum')",
        loss_and_grad(
            lambda t, x: t.nn.functional.cross_entropy(x, classes(t), reduction="sum")
        ),
    ),
    Case(
        "F.cross_entropy(x, t, reduction='none')",
        loss_and_grad(
            lambda t, x: t.nn.functional.cross_entropy(x, classes(t), reduction="none")
        ),
    ),
    Case(
        "F.cross_entropy(x, t, weight=torch.tensor([1.0, 2.0, 0.5]))",
        loss_and_grad(
            lambda t, x: t.nn.functional.cross_entropy(
                x, classes(t), weight=t.tensor([1.0, 2.0, 0.5])
            )
        ),
    ),
    Case(
        "F.cross_entropy(x, torch.tensor([0, -100, 1, -100]))",
        loss_and_grad(
            lambda t, x: t.nn.functional.cross_entropy(
                x, classes(t, [0, -100, 1, -100])
            )
        ),
    ),
    Case(
        "nn.CrossEntropyLoss(ignore_index=2)(x, t)",
        loss_and_grad(
            lambda t, x: t.nn.CrossEntropyLoss(ignore_index=2)(x, classes(t))
        ),
    ),
    Case(
        "F.cross_entropy(x[0], torch.tensor(2)) (one sample)",
        loss_and_grad(
            lambda t, x: t.nn.functional.cross_entropy(x, t.tensor(2)), LOGITS[0]
        ),
    ),
    Case(
        "F.cross_entropy(z, t), z of shape (2, 3, 2), t of shape (2, 2)",
        loss_and_grad(
            lambda t, x: t.nn.functional.cross_entropy(
                x.reshape(2, 2, 3).transpose(1, 2), classes(t, [[0, 2], [1, 1]])
            )
        ),
    ),
    Case(
        "F.cross_entropy(x * 1000, t)",
        loss_and_grad(lambda t, x: t.nn.functional.cross_entropy(x * 1000, classes(t))),
    ),
    Case(
        "F.cross_entropy(x, p), p class probabilities",
        loss_and_grad(
            lambda t, x: t.nn.functional.cross_entropy(x, t.tensor(PROBABILITIES))
        ),
    ),
    Case(
        "F.cross_entropy(x, p, weight=torch.tensor([1.0, 2.0, 0.5])), p class "
        "probabilities",
        loss_and_grad(
            lambda t, x: t.nn.functional.cross_entropy(
                x, t.tensor(PROBABILITIES), weight=t.tensor([1.0, 2.0, 0.5])
            )
        ),
    ),
    Case(
        "F.cross_entropy(x, p, reduction='none'), p class probabilities",
        loss_and_grad(
            lambda t, x: t.nn.functional.cross_entropy(
                x, t.full((4, 3), 1 / 3), reduction="none"
            )
        ),
    ),
]

# --- 3.7 named_parameters ---------------------------------------------------------


def tree(torch: Any) -> Any:
    """A model with a nested container, a module without a bias, and one
    parameter of its own."""
    nn = torch.nn

    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.gain = nn.Parameter(torch.ones(2))
            self.body = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
            self.head = nn.Linear(2, 1, bias=False)

        def forward(self, x: Any) -> Any:
            return self.head(self.body(x) * self.gain)

    torch.manual_seed(0)
    return Model()


def names(make: Any, **options: Any) -> Any:
    def run(torch: Any) -> Any:
        model = make(torch)
        return [(n, list(p.shape)) for n, p in model.named_parameters(**options)]

    return run


def shared_linear(torch: Any) -> Any:
    torch.manual_seed(0)
    layer = torch.nn.Linear(2, 2)
    return torch.nn.Sequential(layer, torch.nn.Tanh(), layer)


def tied(torch: Any) -> Any:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 3))
    model[1].weight = model[0].weight
    return model


def zero_grad_story(torch: Any) -> Any:
    model = tree(torch)
    model(torch.ones(2, 3)).sum().backward()
    before = [p.grad is None for p in model.parameters()]
    model.zero_grad()
    return [before, [p.grad is None for p in model.parameters()]]


def frozen(torch: Any) -> Any:
    model = tree(torch)
    model.body.requires_grad_(False)
    return [(n, p.requires_grad) for n, p in model.named_parameters()]


def counted(torch: Any) -> Any:
    return sum(p.numel() for p in tree(torch).parameters())


def normalised(torch: Any) -> Any:
    """A model with buffers: two batch norms, one of them shared, and an
    empty buffer slot."""
    torch.manual_seed(0)
    norm = torch.nn.BatchNorm1d(2)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), norm, torch.nn.Tanh(), norm)
    model.register_buffer("scale", torch.tensor(2.0))
    model.register_buffer("empty", None)
    return model


def buffer_names(**options: Any) -> Any:
    def run(torch: Any) -> Any:
        found = normalised(torch).named_buffers(**options)
        return [(name, list(b.shape), str(b.dtype)) for name, b in found]

    return run


NAMED_PARAMETERS = [
    Case("model.named_parameters()", names(tree)),
    Case("sum(p.numel() for p in model.parameters())", counted),
    Case("model.named_parameters(prefix='model')", names(tree, prefix="model")),
    Case("model.named_parameters(recurse=False)", names(tree, recurse=False)),
    Case("Sequential(layer, Tanh(), layer).named_parameters()", names(shared_linear)),
    Case("two layers with one weight (tied)", names(tied)),
    Case("backward, then model.zero_grad()", zero_grad_story),
    Case("model.body.requires_grad_(False)", frozen),
    Case("a model with batch norms: named_buffers()", buffer_names()),
    Case("named_buffers(prefix='net')", buffer_names(prefix="net")),
    Case("named_buffers(recurse=False)", buffer_names(recurse=False)),
    Case(
        "Sequential(layer, Tanh(), layer).named_parameters(remove_duplicate=False)",
        names(shared_linear, remove_duplicate=False),
        convention="remove_duplicate=False lists a shared parameter under every name",
    ),
    Case(
        "named_buffers(remove_duplicate=False): a shared batch norm",
        buffer_names(remove_duplicate=False),
        convention="remove_duplicate=False lists a shared buffer under every name",
    ),
]

# --- 3.8 Addmm's backward (the linear layer's) ------------------------------------

X = [[1.0, 2.0, -1.0], [0.5, -0.5, 3.0], [2.0, 0.0, 1.0], [-1.0, 1.0, 0.5]]
W = [[0.5, -1.0, 0.25], [1.5, 0.5, -2.0]]
B = [0.1, -0.3]


def linear_layer(torch: Any) -> Any:
    torch.manual_seed(0)
    return set_weights(torch, torch.nn.Linear(3, 2), W, B)


def layer_grads(torch: Any) -> Any:
    layer = linear_layer(torch)
    x = torch.tensor(X, requires_grad=True)
    out = layer(x)
    (
        out * torch.tensor([[1.0, -1.0], [2.0, 0.5], [0.0, 1.0], [3.0, -2.0]])
    ).sum().backward()
    return {"bias": layer.bias.grad, "weight": layer.weight.grad, "x": x.grad}


def mlp_grads(torch: Any) -> Any:
    first = linear_layer(torch)
    torch.manual_seed(0)
    second = set_weights(torch, torch.nn.Linear(2, 1), [[1.0, -2.0]], [0.5])
    model = torch.nn.Sequential(first, torch.nn.Tanh(), second)
    x = torch.tensor(X)
    torch.nn.functional.mse_loss(model(x), torch.ones(4, 1)).backward()
    return [p.grad for p in model.parameters()]


def frozen_weight(torch: Any) -> Any:
    layer = linear_layer(torch)
    layer.weight.requires_grad_(False)
    x = torch.tensor(X, requires_grad=True)
    layer(x).sum().backward()
    return {"bias": layer.bias.grad, "weight": layer.weight.grad, "x": x.grad}


ADDMM = [
    Case("nn.Linear(3, 2)(x): grads of x, weight, bias", layer_grads),
    Case(
        "F.linear(x, w, b)",
        gradients_of(lambda t, x, w, b: t.nn.functional.linear(x, w, b), X, W, B),
    ),
    Case(
        "F.linear(x3, w, b), x3 of shape (2, 2, 3)",
        gradients_of(
            lambda t, x, w, b: t.nn.functional.linear(x.reshape(2, 2, 3), w, b), X, W, B
        ),
    ),
    Case(
        "torch.addmm(b, x, m)",
        gradients_of(
            lambda t, b, x, m: t.addmm(b, x, m),
            B,
            X,
            [[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]],
        ),
    ),
    Case(
        "torch.addmm(c, x, m, beta=0.5, alpha=2)",
        gradients_of(
            lambda t, c, x, m: t.addmm(c, x, m, beta=0.5, alpha=2),
            [[1.0], [2.0], [3.0], [4.0]],
            X,
            [[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]],
        ),
    ),
    Case("a layer whose weight is frozen", frozen_weight),
    Case("Linear, Tanh, Linear and an MSE loss", mlp_grads),
    Case(
        "second derivatives of F.linear(x, w, b)",
        gradients_of(
            lambda t, x, w, b: t.nn.functional.linear(x, w, b) ** 2,
            X[:2],
            W,
            B,
            double=True,
        ),
    ),
]

# --- 3.9 LogSoftmax's backward ----------------------------------------------------

SCORES = [[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]]
WEIGHTS = [[1.0, -2.0, 0.5], [3.0, 1.0, -1.0]]

LOG_SOFTMAX = [
    Case(
        "F.log_softmax(x, dim=1) * w",
        gradients_of(
            lambda t, x, w: t.nn.functional.log_softmax(x, dim=1) * w, SCORES, WEIGHTS
        ),
    ),
    Case(
        "F.log_softmax(x, dim=0) * w",
        gradients_of(
            lambda t, x, w: t.nn.functional.log_softmax(x, dim=0) * w, SCORES, WEIGHTS
        ),
    ),
    Case(
        "F.log_softmax(v, dim=0), v 1-d",
        gradients_of(
            lambda t, v: t.nn.functional.log_softmax(v, dim=0) * t.tensor([1.0, 0, 0]),
            [0.5, 1.5, -1.0],
        ),
    ),
    Case(
        "nn.LogSoftmax(dim=-1)(cube) * cube",
        gradients_of(
            lambda t, c: t.nn.LogSoftmax(dim=-1)(c) * c,
            [[[1.0, 2.0], [0.0, -1.0]], [[3.0, 0.5], [2.0, 2.0]]],
        ),
    ),
    Case(
        "F.log_softmax(x * 1000, dim=1) * w",
        gradients_of(
            lambda t, x, w: t.nn.functional.log_softmax(x * 1000, dim=1) * w,
            SCORES,
            WEIGHTS,
        ),
    ),
    Case(
        "-F.log_softmax(x, dim=1)[[0, 1], [2, 0]].mean() (cross-entropy by hand)",
        gradients_of(
            lambda t, x: -t.nn.functional.log_softmax(x, dim=1)[[0, 1], [2, 0]].mean(),
            SCORES,
        ),
    ),
    Case(
        "F.log_softmax(x, dim=1).exp() (a softmax)",
        gradients_of(
            lambda t, x, w: t.nn.functional.log_softmax(x, dim=1).exp() * w,
            SCORES,
            WEIGHTS,
        ),
    ),
    Case(
        "second derivatives of F.log_softmax(x, dim=1) * w",
        gradients_of(
            lambda t, x, w: t.nn.functional.log_softmax(x, dim=1) * w,
            SCORES,
            WEIGHTS,
            double=True,
        ),
    ),
]

# --- the exercises ----------------------------------------------------------------

EXERCISES = {
    "3.1": Exercise(
        "3.1",
        "names in a model",
        "answers_3_1",
        "predict",
        [Case(text, program(text, block_models)) for text in NAMES],
        [
            "Write names as strings and lists of names as lists; shapes as lists.",
            "__setattr__ files a Parameter, a Module and a registered buffer; a plain "
            "tensor is an ordinary attribute and is never listed.",
            "A module lists its own parameters first, then each child's under the "
            "child's name and a dot; a module or parameter met twice counts once "
            "(state_dict is the exception: it lists every path).",
        ],
    ),
    "3.2": Exercise(
        "3.2",
        "which grad_fn (layers and losses)",
        "answers_3_2",
        "predict",
        [Case(text, grad_fn_name(text)) for text in LAYER_GRAD_FNS],
        [
            "Write names as strings such as 'AddmmBackward0', and None for no grad_fn.",
            "A module's output gets the grad_fn of the last operation its forward "
            "ran; a leaf (a parameter, or an input passed through unchanged) has none.",
            "A linear layer on a batch is one addmm (without a bias, an mm); "
            "cross_entropy is log_softmax followed by nll_loss.",
        ],
    ),
    "3.3": Exercise(
        "3.3",
        "train, eval and a training step",
        "answers_3_3",
        "predict",
        [Case(text, program(text, mode_inputs)) for text in MODES],
        [
            "Write tensors as nested lists of floats. A new module is in training "
            "mode; eval() and train() switch the whole tree; backward() adds into "
            ".grad until zero_grad() sets it to None.",
            "In training, dropout zeroes elements and scales the others by "
            "1 / (1 - p); in eval mode it returns its input unchanged.",
            "In training, BatchNorm1d normalises with the batch's own mean and "
            "(biased) variance and moves its running statistics 10% of the way "
            "towards the batch's (unbiased) ones; in eval it uses the running ones.",
        ],
    ),
    "3.4": Exercise(
        "3.4",
        "Elu's backward",
        "elu_backward",
        "piece",
        ELU,
        [
            "forward saved two tensors: x, result = ctx.saved_tensors; the slope "
            "alpha is ctx.alpha.",
            "The slope is 1 where x > 0; below, the derivative of alpha * (e^x - 1) "
            "is alpha * e^x, which is result + alpha.",
            "torch.where(condition, a, b) picks a where the condition holds and b "
            "elsewhere; multiply by grad_output.",
        ],
        target="slowtorch_lib.nn.functional.activation.Elu.backward",
        what="gradients",
    ),
    "3.5": Exercise(
        "3.5",
        "Kaiming's standard deviation",
        "kaiming_std",
        "piece",
        KAIMING,
        [
            "std = gain / sqrt(fan): find the fan and the gain.",
            "torch.nn.init._calculate_fan_in_and_fan_out(tensor) gives both fans; "
            "mode picks one. calculate_gain(nonlinearity, a) gives the gain.",
            "Refuse a mode that is neither 'fan_in' nor 'fan_out' with a ValueError.",
        ],
        target="slowtorch_lib.nn.init._kaiming_std",
        forbidden=("_calculate_correct_fan",),
        what="initialisations",
    ),
    "3.6": Exercise(
        "3.6",
        "cross_entropy",
        "cross_entropy",
        "piece",
        CROSS_ENTROPY,
        [
            "With class indices, cross-entropy is nll_loss applied to log_softmax "
            "over the class dimension.",
            "The classes are dimension 1, or dimension 0 for a single sample (1-d "
            "input); pass weight, ignore_index and reduction on to nll_loss.",
            "With class probabilities (a float target of the input's shape), the "
            "loss of a sample is -sum(p * log_softmax), summed over the classes; "
            "'mean' divides the total by the number of samples.",
        ],
        target="slowtorch_lib.nn.functional.cross_entropy.cross_entropy",
        forbidden=("_cross_entropy_probabilities", "_smoothed"),
        what="losses and gradients",
    ),
    "3.7": Exercise(
        "3.7",
        "named_parameters and named_buffers",
        "named_members",
        "piece",
        NAMED_PARAMETERS,
        [
            "Each module keeps its own parameters in the dict module._parameters "
            "and its buffers in module._buffers (a value may be None): "
            "getattr(module, home) is the one to read.",
            "named_modules(prefix=...) already walks the tree with dotted names: "
            "join each module's path and the tensor's name with a dot.",
            "Remember the tensors you have yielded, so that a shared one comes "
            "once; recurse=False looks at this module only.",
        ],
        target="slowtorch_lib.nn.modules.module.Module._named_members",
        what="walks of a model",
    ),
    "3.8": Exercise(
        "3.8",
        "Addmm's backward (the linear layer)",
        "addmm_backward",
        "piece",
        ADDMM,
        [
            "Return three gradients (bias, m1, m2), with None for an input that "
            "needs none (ctx.needs_input_grad).",
            "The chapter's G W and G^T x, for out = x W^T + b, are the case "
            "m1 = x, m2 = W^T; beta and alpha scale each gradient they multiply.",
            "m1 is saved only when m2 needs a gradient, and m2 only when m1 does; "
            "the engine sums the bias's gradient back to the bias's shape.",
        ],
        target="slowtorch_lib.ops.linalg.Addmm.backward",
        what="gradients",
    ),
    "3.9": Exercise(
        "3.9",
        "LogSoftmax's backward",
        "log_softmax_backward",
        "piece",
        LOG_SOFTMAX,
        [
            "forward saved its result y = log_softmax(x) and keeps ctx.dim.",
            "dy_i/dx_j = [i == j] - softmax(x)_j, and softmax(x) is y.exp().",
            "The chain rule sums G_i * dy_i/dx_j over i, along ctx.dim: sum with "
            "keepdim=True, so that the sum broadcasts back over each row.",
        ],
        target="slowtorch_lib.nn.functional.activation.LogSoftmax.backward",
        # autograd through softmax and log would give this gradient
        not_to_use=("softmax", "autograd"),
        what="gradients",
    ),
    "3.10": Exercise(
        "3.10",
        "checking a safetensors header",
        "check_entries",
        "piece",
        HEADERS,
        [
            "Check each entry on its own first: its keys, a known dtype, a shape "
            "of non-negative ints, and offsets 0 <= begin <= end <= buffer_length.",
            "An entry needs exactly numel * itemsize bytes; then sort the entries "
            "by their offsets: each must start where the one before ended.",
            "The first must start at 0 and the last end at buffer_length; raise "
            "SafetensorError for every broken rule.",
        ],
        target="slowtorch_lib.safetensors.check_entries",
        forbidden=("_check_entry",),
        what="files",
        stretch=True,
    ),
    "3.11": Exercise(
        "3.11",
        "the embedding lookup",
        "Embedding",
        "piece",
        EMBEDDING,
        [
            "forward picks one row of weight per index, in the order of the "
            "indices; backward says how much each row of weight moved the loss.",
            "Flatten the indices first: weight.index_select(0, flat) picks the "
            "rows, and a reshape gives them the indices' shape plus the width. "
            "Check the range yourself, before picking.",
            "The lookup is one_hot(flat) @ weight, so the gradient is "
            "one_hot(flat).t() @ grad (grad_output with one row per place): "
            "each place's row is added into the row it picked.",
            "Before that product, zero the places that picked padding_idx "
            "(masked_fill) and, with scale_grad_by_freq, divide each place by "
            "how often its index occurs: compare the indices, as a column, with "
            "themselves, as a row.",
        ],
        target="slowtorch_lib.nn.functional.layers.Embedding",
        what="lookups and their gradients",
    ),
    "3.12": Exercise(
        "3.12",
        "build: load_state_dict",
        "load_state_dict",
        "piece",
        LOAD,
        [
            "Walk named_modules(remove_duplicate=False): for each module, the "
            "tensors it expects are its parameters and persistent buffers that "
            "are not None, under its prefix.",
            "Collect the missing keys, the unexpected ones (a key under the "
            "module's prefix whose first part is neither one of its tensors nor, "
            "when a dot follows, one of its children) and the error messages; "
            "copy nothing yet.",
            "With strict, the missing and unexpected keys go first in the errors; "
            "raise one RuntimeError for all, else copy_ each value under no_grad "
            "and return _IncompatibleKeys(missing, unexpected).",
        ],
        target="slowtorch_lib.nn.modules.module.Module.load_state_dict",
        forbidden=("_local_state", "_copy_error", "_unexpected_keys"),
        what="loads",
    ),
}
