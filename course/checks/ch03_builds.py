"""Chapter 3's cases of its builds: reading a safetensors header (3.10),
the embedding lookup and its backward (3.11), and the whole
``load_state_dict`` (3.12).

The exercises themselves are in :mod:`course.checks.ch03`.
"""

from __future__ import annotations

import json
import struct
from typing import Any

from course.checking import Case

# --- 3.10 reading a safetensors header --------------------------------------------


def safetensors_file(entries: dict[str, Any], buffer: bytes) -> bytes:
    """The bytes of a file with this header (as written) and buffer."""
    text = json.dumps(entries).encode()
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text + buffer


def loaded(entries: dict[str, Any], buffer: bytes) -> Any:
    """What loading the file gives: its tensors, or the error it raises.
    PyTorch reads safetensors with the ``safetensors`` package, the engine
    with its copy of it, ``slowtorch_lib.safetensors``."""
    data = safetensors_file(entries, buffer)

    def run(torch: Any) -> Any:
        if torch.__name__ == "torch":  # at call time: only one side's package is here
            from safetensors.torch import load as torch_load  # (installed with PyTorch)

            return dict(torch_load(data))
        from slowtorch_lib.safetensors import load  # the engine's copy

        return dict(load(data))

    return run


def f32(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def entry(dtype: str, shape: list[int], begin: int, end: int) -> dict[str, Any]:
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


TWO = {
    "b": entry("F32", [2], 8, 16),
    "a": entry("F32", [2], 0, 8),
}
MIXED = {
    "count": entry("I64", [], 0, 8),
    "w": entry("F32", [2, 2], 8, 24),
    "mask": entry("BOOL", [3], 24, 27),
    "empty": entry("F32", [0, 4], 27, 27),
}
MIXED_BUFFER = (7).to_bytes(8, "little") + f32(1.5, -2.0, 0.25, 4.0) + bytes([1, 0, 1])

HEADERS = [
    Case("two float32 tensors", loaded(TWO, f32(1.0, 2.0, 3.0, 4.0))),
    Case("int64, float32, bool and an empty tensor", loaded(MIXED, MIXED_BUFFER)),
    Case(
        "a tensor that ends past the buffer",
        loaded({"a": entry("F32", [4], 0, 16)}, f32(1.0, 2.0)),
    ),
    Case(
        "two tensors on the same bytes",
        loaded(
            {"a": entry("F32", [2], 0, 8), "b": entry("F32", [1], 4, 8)},
            f32(1.0, 2.0),
        ),
    ),
    Case(
        "a gap before the first tensor",
        loaded({"a": entry("F32", [1], 4, 8)}, f32(1.0, 2.0)),
    ),
    Case(
        "bytes left over after the last tensor",
        loaded({"a": entry("F32", [1], 0, 4)}, f32(1.0, 2.0)),
    ),
    Case(
        "a shape that does not match its bytes",
        loaded({"a": entry("F32", [3], 0, 8)}, f32(1.0, 2.0)),
    ),
    Case(
        "an unknown dtype",
        loaded({"a": entry("X9", [2], 0, 8)}, f32(1.0, 2.0)),
    ),
    Case(
        "offsets [8, 0]",
        loaded({"a": entry("F32", [0], 8, 0)}, f32(1.0, 2.0)),
    ),
    Case(
        "a negative size in the shape",
        loaded({"a": entry("F32", [-2], 0, 8)}, f32(1.0, 2.0)),
    ),
    Case(
        "an entry without data_offsets",
        loaded({"a": {"dtype": "F32", "shape": [2]}}, f32(1.0, 2.0)),
    ),
    Case(
        "a size given as true",
        loaded(
            {"a": {"dtype": "F32", "shape": [True, 2], "data_offsets": [0, 8]}},
            f32(1.0, 2.0),
        ),
    ),
    Case(
        "a size given as a float",
        loaded(
            {"a": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}},
            f32(1.0, 2.0),
        ),
    ),
]

# --- the embedding lookup and its backward --------------------------------------------

TABLE = [[0.5, -1.0], [2.0, 0.25], [-1.5, 1.0], [3.0, 4.0], [0.0, -2.0]]


def looked_up(indices: Any, **options: Any) -> Any:
    """``Embedding(5, 2, _weight=TABLE, ...)`` on ``indices``: the
    output (times a weight, so that rows get different gradients), the
    table's gradient, and the table afterwards (``max_norm`` rewrites it)."""

    def run(torch: Any) -> Any:
        table = torch.tensor(TABLE)
        emb = torch.nn.Embedding(5, 2, _weight=table, **options)
        out = emb(torch.tensor(indices))
        scale = torch.arange(1.0, out.numel() + 1.0).reshape(out.shape)
        (out * scale).sum().backward()
        return {"out": out, "grad": emb.weight.grad, "table": emb.weight}

    return run


def raises(make: Any) -> Any:
    def run(torch: Any) -> Any:
        try:
            make(torch)
        except AssertionError:
            return "AssertionError"
        return "no error"

    return run


def embedded(indices: Any, dtype: str = "float32", **options: Any) -> Any:
    """``F.embedding(tensor(indices), W, **options)`` with ``W`` the table
    ``TABLE``: the output, and the gradient of ``W`` when the output is
    weighted by 1, 2, 3... (so that every place sends a different row)."""

    def run(torch: Any) -> Any:
        weight = torch.tensor(TABLE, dtype=getattr(torch, dtype), requires_grad=True)
        out = torch.nn.functional.embedding(
            torch.tensor(indices, dtype=torch.int64), weight, **options
        )
        scale = torch.arange(1.0, out.numel() + 1.0).reshape(out.shape)
        (out * scale).sum().backward()
        return {"out": out, "dtype": str(out.dtype), "grad": weight.grad}

    return run


def embedded_twice(torch: Any) -> Any:
    """The gradient of the table, recorded (``create_graph=True``), then
    differentiated with respect to the output's gradient ``v``."""
    weight = torch.tensor(TABLE, requires_grad=True)
    v = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    out = torch.nn.functional.embedding(torch.tensor([4, 1, 4]), weight)
    (grad,) = torch.autograd.grad(out, weight, v, create_graph=True)
    (grad * grad).sum().backward()
    return {"grad": grad, "grad of v": v.grad}


EMBEDDING = [
    Case("F.embedding(tensor([1, 3, 1]), W)", embedded([1, 3, 1])),
    Case("F.embedding(tensor([[0, 4], [4, 4]]), W)", embedded([[0, 4], [4, 4]])),
    Case("Embedding(5, 2, _weight=T)(tensor([1, 3, 1]))", looked_up([1, 3, 1])),
    Case("F.embedding(tensor(3), W): one index", embedded(3)),
    Case(
        "F.embedding(tensor([2, 0, 2]), W) in float64",
        embedded([2, 0, 2], dtype="float64"),
    ),
    Case(
        "padding_idx=0: its row gets no gradient",
        looked_up([0, 1, 0], padding_idx=0),
    ),
    Case(
        "F.embedding(tensor([[4, 2], [2, 0]]), W, padding_idx=2)",
        embedded([[4, 2], [2, 0]], padding_idx=2),
    ),
    Case("create_graph=True: the gradient's own gradient", embedded_twice),
    Case(
        "F.embedding(tensor([0, 5]), W)",
        raises(lambda t: t.nn.functional.embedding(t.tensor([0, 5]), t.tensor(TABLE))),
    ),
    Case(
        "F.embedding(tensor([1, 3, 1, 1]), W, scale_grad_by_freq=True)",
        embedded([1, 3, 1, 1], scale_grad_by_freq=True),
        convention="scale_grad_by_freq divides the gradient of each place by the "
        "number of times its index occurs",
    ),
    Case(
        "Embedding(5, 2, _weight=T, max_norm=1.0)(tensor([0, 3]))",
        looked_up([0, 3], max_norm=1.0),
        convention="max_norm rescales, in place, the rows looked up whose norm "
        "exceeds it",
    ),
]

# --- load_state_dict, whole ----------------------------------------------------------


def two_layers(torch: Any, seed: int) -> Any:
    """A small model with a nested container, a batch norm and a buffer that
    is not saved; its weights depend on ``seed``."""
    nn = torch.nn
    model = nn.Sequential(
        nn.Linear(3, 2), nn.BatchNorm1d(2), nn.Sequential(nn.Tanh(), nn.Linear(2, 1))
    )
    with torch.no_grad():
        for number, p in enumerate(model.parameters()):
            values = [((seed + number) * 0.37 + i * 0.29) % 1 - 0.5 for i in range(6)]
            p.copy_(torch.tensor(values[: p.numel()]).reshape(p.shape))
    model.register_buffer("step", torch.tensor(float(seed)), persistent=False)
    return model


def source_state(torch: Any) -> Any:
    """The state of ``two_layers`` with seed 1, after a training forward (so
    that the batch norm's running statistics have moved)."""
    model = two_layers(torch, 1)
    model(torch.tensor([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0], [2.0, 0.0, 1.0]]))
    return model.state_dict()


def loaded_model(change: Any = None, **options: Any) -> Any:
    """Loads a (changed) state into a fresh model: what it returns, and the
    model's state afterwards."""

    def run(torch: Any) -> Any:
        state = dict(source_state(torch))
        if change is not None:
            change(torch, state)
        model = two_layers(torch, 2)
        result = model.load_state_dict(state, **options)
        return {
            "returned": [result.missing_keys, result.unexpected_keys],
            "repr": repr(result),
            "state": dict(model.state_dict()),
            "step": model.step,
        }

    return run


def load_error(change: Any, **options: Any) -> Any:
    """The error of loading a changed state: its type and message."""

    def run(torch: Any) -> Any:
        state = dict(source_state(torch))
        change(torch, state)
        try:
            two_layers(torch, 2).load_state_dict(state, **options)
        except (RuntimeError, TypeError) as error:
            return [type(error).__name__, str(error)]
        return "no error"

    return run


def without(*keys: str) -> Any:
    def change(torch: Any, state: dict[str, Any]) -> None:
        for key in keys:
            del state[key]

    return change


def with_extra(*keys: str) -> Any:
    def change(torch: Any, state: dict[str, Any]) -> None:
        for key in keys:
            state[key] = torch.zeros(1)

    return change


def both(*changes: Any) -> Any:
    def change(torch: Any, state: dict[str, Any]) -> None:
        for one in changes:
            one(torch, state)

    return change


def replaced(key: str, value: Any) -> Any:
    def change(torch: Any, state: dict[str, Any]) -> None:
        state[key] = value(torch)

    return change


def kept_identity(torch: Any) -> Any:
    """The parameters stay the same objects, leaves that require grad."""
    model = two_layers(torch, 2)
    before = list(model.parameters())
    model.load_state_dict(source_state(torch))
    after = list(model.parameters())
    return {
        "same objects": all(a is b for a, b in zip(before, after)),
        "leaves": [p.is_leaf and p.requires_grad for p in after],
        "grad_fn": [p.grad_fn is None for p in after],
        "weight": model[0].weight,
    }


def into_float64(torch: Any) -> Any:
    """float32 values into a float64 model: the model keeps its dtype."""
    torch.manual_seed(0)
    model = torch.nn.Linear(2, 2).double()
    model.load_state_dict({"weight": torch.ones(2, 2), "bias": torch.zeros(2)})
    return [model.weight, model.bias]


def shared_layer(torch: Any) -> Any:
    """A layer reachable by two names is loaded (and missed) under both."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(2, 2)
    model = torch.nn.Sequential(layer, torch.nn.Tanh(), layer)
    state = {
        "0.weight": torch.ones(2, 2),
        "0.bias": torch.zeros(2),
        "2.weight": torch.full((2, 2), 3.0),
    }
    result = model.load_state_dict(state, strict=False)
    return {"missing": result.missing_keys, "weight": layer.weight}


def empty_slot(torch: Any) -> Any:
    """A parameter slot holding None is not expected."""
    model = torch.nn.Linear(2, 1, bias=False)
    model.register_parameter("scale", None)
    result = model.load_state_dict({"weight": torch.ones(1, 2)})
    return {"repr": repr(result), "weight": model.weight}


def not_a_mapping(torch: Any) -> Any:
    model = torch.nn.Linear(2, 1)
    try:
        model.load_state_dict([("weight", torch.ones(1, 2))])
    except TypeError as error:
        return str(error)
    return "no error"


LOAD = [
    Case("load a whole state (nested, batch norm)", loaded_model()),
    Case("the parameters keep their identity", kept_identity),
    Case("float32 values into a float64 Linear", into_float64),
    Case(
        "strict=False, '1.running_var' missing",
        loaded_model(without("1.running_var"), strict=False),
    ),
    Case(
        "strict=False, unexpected 'extra', '0.extra', '5.weight', '2.1.weight.x'",
        loaded_model(
            with_extra("extra", "0.extra", "5.weight", "2.1.weight.x"), strict=False
        ),
    ),
    Case(
        "strict=False, the non-persistent buffer 'step' given",
        loaded_model(with_extra("step"), strict=False),
    ),
    Case("strict=True, '0.bias' missing", load_error(without("0.bias"))),
    Case("strict=True, unexpected '2.0.weight'", load_error(with_extra("2.0.weight"))),
    Case(
        "strict=True, two missing and two unexpected keys",
        load_error(both(without("2.1.bias", "0.weight"), with_extra("z", "1.a"))),
    ),
    Case(
        "a shape mismatch, strict=False",
        load_error(replaced("0.weight", lambda t: t.zeros(3, 2)), strict=False),
    ),
    Case(
        "a shape mismatch and a missing key",
        load_error(
            both(replaced("2.1.weight", lambda t: t.zeros(2)), without("0.bias"))
        ),
    ),
    Case(
        "a value that is not a tensor",
        load_error(replaced("0.bias", lambda t: [0.0, 0.0])),
    ),
    Case("a list of pairs instead of a mapping", not_a_mapping),
    Case("Sequential(layer, Tanh(), layer), '2.bias' missing", shared_layer),
    Case(
        "a parameter slot holding None",
        empty_slot,
        convention="a None parameter or buffer is neither expected nor copied",
    ),
]
