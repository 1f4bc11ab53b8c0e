"""Module and Parameter against torch.nn: the same model built in both libraries.

Each test builds one structure with ``lib`` standing for either torch or
slowtorch_lib, then compares names, order, reprs, errors and state dicts.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as hs

import slowtorch_lib as st
from tests.parity import assert_same, require_torch, same_error

try:
    import torch
except ImportError:  # the tests of the engine alone still run
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="compares with torch")


def make_classes(lib: Any) -> dict[str, type]:
    """Small modules written against ``lib``'s API (classes named alike)."""
    nn = lib.nn

    class Affine(nn.Module):
        def __init__(self, n_in: int, n_out: int) -> None:
            super().__init__()
            self.n_in, self.n_out = n_in, n_out
            values = [[0.1 * (i + 2 * j) for i in range(n_in)] for j in range(n_out)]
            self.weight = nn.Parameter(lib.tensor(values))
            self.bias = nn.Parameter(lib.zeros(n_out))
            self.register_buffer("calls", lib.zeros((), dtype=lib.int64))
            self.register_buffer("scratch", lib.zeros(2), persistent=False)
            self.note = lib.ones(1)  # a plain tensor: not registered

        def forward(self, x: Any) -> Any:
            return x @ self.weight.t() + self.bias

        def extra_repr(self) -> str:
            return f"n_in={self.n_in}, n_out={self.n_out}"

    class Tanh(nn.Module):
        def forward(self, x: Any) -> Any:
            return x.tanh()

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = nn.Sequential(Affine(2, 3), Tanh())
            self.heads = nn.ModuleList([Affine(3, 1), Affine(3, 1)])
            self.shared = self.heads[0]  # one module under two names
            self.scale = nn.Parameter(lib.tensor(2.0))
            self.register_buffer("mean", lib.tensor([0.5, -0.5]))
            self.empty = None

        def forward(self, x: Any) -> Any:
            hidden = self.encoder(x - self.mean)
            return self.heads[0](hidden) * self.scale + self.heads[1](hidden)

    return {"Affine": Affine, "Tanh": Tanh, "Net": Net}


def net(lib: Any) -> Any:
    return make_classes(lib)["Net"]()


def affine(lib: Any, n_in: int = 2, n_out: int = 3) -> Any:
    return make_classes(lib)["Affine"](n_in, n_out)


def both(build: Any) -> tuple[Any, Any]:
    return build(st), build(require_torch())


# ----------------------------------------------------------------------
# Parameter
# ----------------------------------------------------------------------


def test_parameter_is_a_leaf_tensor_sharing_storage() -> None:
    data = st.tensor([1.0, 2.0])
    p = st.nn.Parameter(data)
    assert isinstance(p, st.Tensor) and isinstance(p, st.nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    with st.no_grad():
        data[0] = 5.0
    assert p.tolist() == [5.0, 2.0]  # same storage
    assert not data.requires_grad


def test_parameter_of_a_computed_tensor_is_a_fresh_leaf() -> None:
    x = st.tensor([1.0, 2.0], requires_grad=True)
    p = st.nn.Parameter(x * 2)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    (p * p).sum().backward()
    assert p.grad.tolist() == [4.0, 8.0] and x.grad is None


@pytest.mark.parametrize("requires_grad", [True, False])
def test_parameter_repr(requires_grad: bool) -> None:
    ours, theirs = both(
        lambda lib: lib.nn.Parameter(lib.tensor([1.0, 2.5]), requires_grad)
    )
    assert repr(ours) == repr(theirs)
    assert str(ours) == str(theirs)
    assert ours.requires_grad is requires_grad


def test_parameter_default_and_results_of_ops() -> None:
    ours, theirs = both(lambda lib: lib.nn.Parameter())
    assert repr(ours) == repr(theirs)
    p = st.nn.Parameter(st.ones(2))
    assert type(p * 2) is st.Tensor
    assert type(p.detach()) is st.Tensor


def test_parameter_errors() -> None:
    same_error(lambda lib: lib.nn.Parameter(lib.tensor([1, 2])), match_message=False)
    # torch fails inside with "'list' object has no attribute 'detach'".
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        st.nn.Parameter([1.0])


def test_parameter_deepcopy() -> None:
    p = st.nn.Parameter(st.tensor([1.0, 2.0]))
    q = copy.deepcopy(p)
    assert type(q) is st.nn.Parameter and q is not p and q.requires_grad
    with st.no_grad():
        q[0] = 7.0
    assert p.tolist() == [1.0, 2.0]


# ----------------------------------------------------------------------
# Registration by assignment
# ----------------------------------------------------------------------


def homes(module: Any) -> tuple[list[str], list[str], list[str]]:
    return list(module._parameters), list(module._buffers), list(module._modules)


def test_assignment_files_each_value_in_one_home() -> None:
    ours, theirs = both(affine)
    expected = (["weight", "bias"], ["calls", "scratch"], [])
    assert homes(ours) == homes(theirs) == expected
    assert "note" in ours.__dict__ and "note" in theirs.__dict__


def test_assigning_a_module_then_a_parameter_under_one_name_moves_it() -> None:
    def build(lib: Any) -> Any:
        m = affine(lib)
        m.extra = lib.nn.Module()
        m.extra = lib.nn.Parameter(lib.zeros(1))  # module -> parameter
        m.note = lib.nn.Module()  # plain attribute -> module
        m.plain = 3
        return m

    ours, theirs = both(build)
    assert homes(ours) == homes(theirs)
    assert ("note" in ours.__dict__) == ("note" in theirs.__dict__) is False
    assert ours.plain == 3


def test_none_keeps_a_registered_name_empty() -> None:
    def build(lib: Any) -> Any:
        m = net(lib)
        m.encoder = None
        m.scale = None
        m.mean = None
        return m

    ours, theirs = both(build)
    assert homes(ours) == homes(theirs)
    assert ours.encoder is None and ours.scale is None and ours.mean is None
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_children()] == [
        n for n, _ in theirs.named_children()
    ]
    assert repr(ours) == repr(theirs)


def test_plain_tensor_assigned_to_a_buffer_name_replaces_the_buffer() -> None:
    def build(lib: Any) -> Any:
        m = affine(lib)
        m.calls = lib.tensor(5)
        return m

    ours, theirs = both(build)
    assert homes(ours) == homes(theirs)
    assert ours.calls.item() == 5


def test_register_methods() -> None:
    def build(lib: Any) -> Any:
        m = lib.nn.Module()
        m.register_parameter("w", lib.nn.Parameter(lib.ones(2)))
        m.register_parameter("unused", None)
        m.register_buffer("b", lib.zeros(1))
        m.register_buffer("tmp", lib.zeros(1), persistent=False)
        m.register_buffer("nothing", None)
        m.add_module("child", lib.nn.Module())
        m.register_module("other", lib.nn.Module())
        return m

    ours, theirs = both(build)
    assert homes(ours) == homes(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["w", "b"]
    names = [n for n, _ in ours.named_buffers()]
    assert names == [n for n, _ in theirs.named_buffers()]


def test_a_buffer_made_persistent_again() -> None:
    def build(lib: Any) -> Any:
        m = lib.nn.Module()
        m.register_buffer("tmp", lib.zeros(1), persistent=False)
        m.register_buffer("tmp", lib.ones(1), persistent=True)
        return m

    ours, theirs = both(build)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["tmp"]


def non_leaf_parameter(lib: Any) -> Any:
    """A parameter that an in-place operation gave a history."""
    p = lib.nn.Parameter(lib.ones(1), requires_grad=False)
    p.mul_(lib.ones(1, requires_grad=True))
    return p


@pytest.mark.parametrize(
    "action",
    [
        lambda lib, m: setattr(m, "weight", lib.zeros(3, 2)),
        lambda lib, m: setattr(m, "weight", 3),
        lambda lib, m: setattr(m, "child", 3),
        lambda lib, m: setattr(m, "child", lib.zeros(1)),
        lambda lib, m: setattr(m, "calls", "three"),
        lambda lib, m: m.register_parameter("w", lib.zeros(1)),
        lambda lib, m: m.register_parameter("a.b", None),
        lambda lib, m: m.register_parameter("", None),
        lambda lib, m: m.register_parameter(3, None),
        lambda lib, m: m.register_parameter("note", None),
        lambda lib, m: m.register_parameter("forward", None),
        lambda lib, m: m.register_parameter("w", lib.nn.Parameter(lib.ones(1)) * 2),
        lambda lib, m: setattr(m, "w", non_leaf_parameter(lib)),
        lambda lib, m: m.register_parameter("w", non_leaf_parameter(lib)),
        lambda lib, m: m.register_buffer("b", 3),
        lambda lib, m: m.register_buffer("b", [1.0]),
        lambda lib, m: m.register_buffer("a.b", None),
        lambda lib, m: m.register_buffer("", None),
        lambda lib, m: m.register_buffer(1, None),
        lambda lib, m: m.register_buffer("weight", lib.zeros(1)),
        lambda lib, m: m.add_module("c", 3),
        lambda lib, m: m.add_module("c", lib.zeros(1)),
        lambda lib, m: m.add_module(1, lib.nn.Module()),
        lambda lib, m: m.add_module("a.b", lib.nn.Module()),
        lambda lib, m: m.add_module("", lib.nn.Module()),
        lambda lib, m: m.add_module("weight", lib.nn.Module()),
        lambda lib, m: m.missing,
        lambda lib, m: m.child.missing,
        lambda lib, m: delattr(m, "missing"),
        lambda lib, m: m(),
        lambda lib, m: m.child(lib.ones(1)),
        lambda lib, m: m.train("yes"),
        lambda lib, m: m.load_state_dict([1, 2]),
    ],
)
def test_errors_match_torch(action: Any) -> None:
    def make(lib: Any) -> Any:
        m = affine(lib)
        m.child = lib.nn.Module()
        return action(lib, m)

    same_error(make)


def test_errors_leave_the_module_unchanged() -> None:
    m = affine(st)
    before = homes(m)
    weight = m.weight
    for bad in (st.zeros(3, 2), 3):
        with pytest.raises(TypeError):
            m.weight = bad
    with pytest.raises(ValueError):
        m.weight = non_leaf_parameter(st)
    assert homes(m) == before and m.weight is weight


def test_assignment_before_init() -> None:
    def make(kind: str) -> Any:
        def build(lib: Any) -> Any:
            class Early(lib.nn.Module):
                def __init__(self) -> None:
                    if kind == "parameter":
                        self.w = lib.nn.Parameter(lib.ones(1))
                    elif kind == "module":
                        self.c = lib.nn.Module()
                    else:
                        self.register_buffer("b", lib.ones(1))
                    super().__init__()

            return Early()

        return build

    for kind in ("parameter", "module", "buffer"):
        same_error(make(kind))


def test_getattr_finds_registered_values_and_delattr_removes_them() -> None:
    def build(lib: Any) -> Any:
        m = net(lib)
        del m.scale
        del m.mean
        del m.encoder
        m.tag = "x"
        del m.tag
        return m

    ours, theirs = both(build)
    assert homes(ours) == homes(theirs)
    assert not hasattr(ours, "tag")


@needs_torch
def test_dir_lists_registered_names() -> None:
    m = net(st)
    names = dir(m)
    for name in ("encoder", "heads", "scale", "mean", "forward", "state_dict"):
        assert name in names
    t = dir(net(torch))
    assert {"encoder", "heads", "scale", "mean"} <= set(t)


# ----------------------------------------------------------------------
# Walking the tree
# ----------------------------------------------------------------------


def test_named_modules_children_parameters_buffers() -> None:
    ours, theirs = both(net)
    for method in (
        "named_modules",
        "named_children",
        "named_parameters",
        "named_buffers",
    ):
        mine = [name for name, _ in getattr(ours, method)()]
        their = [name for name, _ in getattr(theirs, method)()]
        assert mine == their, method
    assert len(list(ours.modules())) == len(list(theirs.modules()))
    assert len(list(ours.children())) == len(list(theirs.children()))
    assert len(list(ours.parameters())) == len(list(theirs.parameters())) == 7
    assert len(list(ours.buffers())) == len(list(theirs.buffers()))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"prefix": "model"},
        {"recurse": False},
        {"remove_duplicate": False},
        {"prefix": "m", "recurse": False, "remove_duplicate": False},
    ],
)
def test_named_parameters_options(kwargs: dict[str, Any]) -> None:
    ours, theirs = both(net)
    for method in ("named_parameters", "named_buffers"):
        mine = [name for name, _ in getattr(ours, method)(**kwargs)]
        their = [name for name, _ in getattr(theirs, method)(**kwargs)]
        assert mine == their
    if "recurse" in kwargs:
        assert len(list(ours.parameters(recurse=False))) == 1


@pytest.mark.parametrize(
    "kwargs", [{"prefix": "top"}, {"remove_duplicate": False}, {"memo": None}]
)
def test_named_modules_options(kwargs: dict[str, Any]) -> None:
    ours, theirs = both(net)
    mine = [name for name, _ in ours.named_modules(**kwargs)]
    their = [name for name, _ in theirs.named_modules(**kwargs)]
    assert mine == their


def test_shared_parameter_is_yielded_once() -> None:
    def build(lib: Any) -> Any:
        m = lib.nn.Module()
        m.a = affine(lib)
        m.b = affine(lib)
        m.b.weight = m.a.weight  # tied weights
        return m

    ours, theirs = both(build)
    assert [n for n, _ in ours.named_parameters()] == [
        n for n, _ in theirs.named_parameters()
    ]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters(remove_duplicate=False)] == [
        n for n, _ in theirs.named_parameters(remove_duplicate=False)
    ]


def test_get_submodule() -> None:
    ours, theirs = both(net)
    assert type(ours.get_submodule("encoder.0")).__name__ == "Affine"
    assert ours.get_submodule("") is ours
    assert ours.get_submodule("heads.1") is ours.heads[1]
    same_error(lambda lib: net(lib).get_submodule("encoder.7"))
    same_error(lambda lib: net(lib).get_submodule("scale.x"))


# ----------------------------------------------------------------------
# Modes, gradients, apply
# ----------------------------------------------------------------------


def test_train_and_eval_recurse() -> None:
    ours, theirs = both(net)
    for method in ("eval", "train"):
        getattr(ours, method)()
        getattr(theirs, method)()
        assert [m.training for m in ours.modules()] == [
            m.training for m in theirs.modules()
        ]
    assert ours.train(False) is ours and not ours.heads[1].training
    assert ours.train() is ours and ours.encoder[1].training


def test_zero_grad_to_none_and_to_zero() -> None:
    x = [[1.0, -2.0], [0.5, 3.0]]
    for set_to_none in (True, False):
        ours, theirs = both(net)
        ours(st.tensor(x)).sum().backward()
        theirs(torch.tensor(x)).sum().backward()
        for p, q in zip(ours.parameters(), theirs.parameters()):
            assert_same(p.grad, q.grad)
        ours.zero_grad(set_to_none=set_to_none)
        theirs.zero_grad(set_to_none=set_to_none)
        for p, q in zip(ours.parameters(), theirs.parameters()):
            if set_to_none:
                assert p.grad is None and q.grad is None
            else:
                assert_same(p.grad, q.grad)
                assert not p.grad.requires_grad


def test_zero_grad_default_is_none() -> None:
    m = affine(st)
    m(st.ones(1, 2)).sum().backward()
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_apply_visits_children_first() -> None:
    visited: dict[str, list[str]] = {"st": [], "torch": []}

    def build(lib: Any) -> Any:
        model = net(lib)
        name = "st" if lib is st else "torch"
        assert model.apply(lambda m: visited[name].append(type(m).__name__)) is model
        return model

    both(build)
    assert visited["st"] == visited["torch"]


def test_requires_grad_() -> None:
    m = net(st)
    assert m.requires_grad_(False) is m
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    assert all(p.requires_grad for p in m.parameters())


def test_to_double_keeps_parameter_identity() -> None:
    ours, theirs = both(net)
    params = list(ours.parameters())
    ours.to(st.float64)
    theirs.to(torch.float64)
    assert list(ours.parameters()) == params or all(
        a is b for a, b in zip(ours.parameters(), params)
    )
    pairs = zip(ours.state_dict().items(), theirs.state_dict().items())
    for (name, a), (_, b) in pairs:
        assert a.dtype.name == str(b.dtype).replace("torch.", ""), name
    assert all(isinstance(p, st.nn.Parameter) and p.requires_grad for p in params)
    ours.float()
    assert ours.scale.dtype is st.float32
    same_error(lambda lib: net(lib).to(lib.int64))


def test_deepcopy_of_a_module() -> None:
    m = net(st)
    clone = copy.deepcopy(m)
    assert list(clone.state_dict()) == list(m.state_dict())
    with st.no_grad():
        clone.scale.fill_(9.0)
    assert m.scale.item() == 2.0
    assert clone.shared is clone.heads[0]


# ----------------------------------------------------------------------
# Calling and hooks
# ----------------------------------------------------------------------


def test_call_runs_forward() -> None:
    x = [[1.0, -2.0], [0.5, 3.0]]
    ours, theirs = both(net)
    assert_same(ours(st.tensor(x)), theirs(torch.tensor(x)))


@needs_torch
def test_forward_hooks_change_inputs_and_outputs_and_come_off() -> None:
    log: list[Any] = []

    def build(lib: Any) -> Any:
        m = affine(lib, 2, 2)
        h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        h2 = m.register_forward_pre_hook(lambda mod, args: args[0] + 1)  # one value
        h3 = m.register_forward_hook(lambda mod, args, out: log.append(len(args)))
        h4 = m.register_forward_hook(lambda mod, args, out: out * 10)
        x = lib.tensor([[1.0, 2.0]], dtype=lib.float64)
        m.double()
        first = m(x).tolist()
        h2.remove()
        h4.remove()
        h4.remove()  # removing twice does nothing
        second = m(x).tolist()
        h1.remove()
        with h3:
            third = m(x).tolist()
        fourth = m(x).tolist()
        return first, second, third, fourth

    assert build(st) == build(torch)
    assert log == [1, 1, 1, 1, 1, 1]


def test_forward_hook_sees_the_arguments_after_pre_hooks() -> None:
    seen: list[Any] = []
    m = affine(st, 2, 2)
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    m.register_forward_hook(lambda mod, args, out: seen.append(args[0].tolist()))
    m(st.ones(1, 2))
    assert seen == [[[0.0, 0.0]]]


# ----------------------------------------------------------------------
# Reprs
# ----------------------------------------------------------------------


def test_repr_nested() -> None:
    ours, theirs = both(net)
    assert repr(ours) == repr(theirs)
    assert repr(st.nn.Module()) == repr(torch.nn.Module()) == "Module()"


@needs_torch
def test_repr_multiline_extra_repr() -> None:
    def build(lib: Any) -> Any:
        class Multi(lib.nn.Module):
            def extra_repr(self) -> str:
                return "first\nsecond"

        outer = Multi()
        plain = Multi()
        outer.child = Multi()
        return repr(outer), repr(plain)

    assert build(st) == build(torch)


# ----------------------------------------------------------------------
# state_dict and load_state_dict
# ----------------------------------------------------------------------


def test_state_dict_keys_values_and_detachment() -> None:
    ours, theirs = both(net)
    mine, their = ours.state_dict(), theirs.state_dict()
    assert type(mine).__name__ == "OrderedDict"
    assert list(mine) == list(their)
    for key in mine:
        assert_same(mine[key], their[key])
        assert not mine[key].requires_grad and mine[key].grad_fn is None
        assert type(mine[key]) is st.Tensor
    # detached views share storage with the model
    with st.no_grad():
        ours.scale.fill_(4.0)
    assert mine["scale"].item() == 4.0
    kept = ours.state_dict(keep_vars=True)
    assert kept["scale"] is ours.scale


def test_state_dict_prefix_and_destination() -> None:
    ours, theirs = both(net)
    destination: dict[str, Any] = {}
    result = ours.state_dict(destination=destination, prefix="model.")
    assert result is destination
    assert list(destination) == list(theirs.state_dict(prefix="model."))


def test_load_state_dict_round_trip_copies_in_place() -> None:
    source, target = net(st), net(st)
    with st.no_grad():
        for p in source.parameters():
            p.mul_(3.0).add_(1.0)
    params = list(target.parameters())
    result = target.load_state_dict(source.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert all(a is b for a, b in zip(target.parameters(), params))
    for key, value in source.state_dict().items():
        assert target.state_dict()[key].tolist() == value.tolist()
    assert all(p.requires_grad and p.is_leaf for p in target.parameters())


def test_load_state_dict_from_torch_values() -> None:
    ours, theirs = both(net)
    with torch.no_grad():
        for p in theirs.parameters():
            p.mul_(-2.0)
    converted = {
        k: st.tensor(v.tolist(), dtype=getattr(st, str(v.dtype)[6:]))
        for k, v in theirs.state_dict().items()
    }
    ours.load_state_dict(converted)
    x = [[1.0, -2.0]]
    assert_same(ours(st.tensor(x)), theirs(torch.tensor(x)))


def edited_state(lib: Any, edit: str) -> tuple[Any, Any]:
    model = net(lib)
    state = model.state_dict()
    if edit in ("missing", "both"):
        del state["encoder.0.bias"]
        del state["scale"]
    if edit in ("unexpected", "both"):
        state["extra"] = lib.zeros(1)
        state["encoder.5.weight"] = lib.zeros(1)
        state["heads.0.nothing"] = lib.zeros(1)
        state["empty.weight"] = lib.zeros(1)  # under a None child: ignored
    if edit == "size":
        state["heads.1.weight"] = lib.zeros(2, 3)
        state["mean"] = lib.zeros(3)
    if edit == "not_tensor":
        state["scale"] = 2.0
    if edit == "all":
        del state["scale"]
        state["extra"] = lib.zeros(1)
        state["mean"] = lib.zeros(3)
    return model, state


@pytest.mark.parametrize(
    "edit", ["missing", "unexpected", "both", "size", "not_tensor", "all"]
)
def test_load_state_dict_errors_match_torch(edit: str) -> None:
    def make(lib: Any) -> Any:
        model, state = edited_state(lib, edit)
        return model.load_state_dict(state)

    same_error(make)


@needs_torch
@pytest.mark.parametrize("edit", ["missing", "unexpected", "both"])
def test_load_state_dict_non_strict_reports_keys(edit: str) -> None:
    model, state = edited_state(st, edit)
    result = model.load_state_dict(state, strict=False)
    t_model, t_state = edited_state(torch, edit)
    expected = t_model.load_state_dict(t_state, strict=False)
    assert result.missing_keys == expected.missing_keys
    assert result.unexpected_keys == expected.unexpected_keys
    assert repr(result) == repr(expected)
    assert tuple(result) == tuple(expected)


def test_load_state_dict_non_strict_still_refuses_size_mismatch() -> None:
    def make(lib: Any) -> Any:
        model, state = edited_state(lib, "size")
        return model.load_state_dict(state, strict=False)

    same_error(make)


def test_failed_load_changes_nothing() -> None:
    model, state = edited_state(st, "all")
    for value in state.values():
        if isinstance(value, st.Tensor):
            with st.no_grad():
                value.fill_(7.0) if value.is_floating_point() else None
    before = {k: v.clone().tolist() for k, v in model.state_dict().items()}
    with pytest.raises(RuntimeError):
        model.load_state_dict(state)
    assert {k: v.tolist() for k, v in model.state_dict().items()} == before


def test_load_state_dict_converts_dtype() -> None:
    ours, theirs = both(net)
    state = {
        k: v.double() if v.is_floating_point() else v
        for k, v in ours.state_dict().items()
    }
    ours.load_state_dict(state)
    assert ours.scale.dtype is st.float32
    t_state = {
        k: v.double() if v.is_floating_point() else v
        for k, v in theirs.state_dict().items()
    }
    theirs.load_state_dict(t_state)
    assert ours.scale.item() == theirs.scale.item()


# ----------------------------------------------------------------------
# Property: any sequence of registrations leaves both libraries alike
# ----------------------------------------------------------------------

OPERATIONS = [
    "parameter",
    "module",
    "none",
    "tensor",
    "plain",
    "buffer",
    "buffer_np",
    "buffer_none",
    "delete",
    "register_parameter",
    "add_module",
]
NAMES = ["a", "b", "c"]


def apply_operations(lib: Any, steps: list[tuple[str, str, str]]) -> list[str]:
    """Runs the steps on a small tree; returns what happened, step by step."""
    root = lib.nn.Module()
    root.child = lib.nn.Module()
    log = []
    for operation, where, name in steps:
        target = root if where == "root" else root.child
        values = {
            "parameter": lambda: lib.nn.Parameter(lib.ones(2)),
            "module": lambda: lib.nn.Module(),
            "none": lambda: None,
            "tensor": lambda: lib.zeros(1),
            "plain": lambda: 7,
        }
        try:
            if operation in values:
                setattr(target, name, values[operation]())
            elif operation.startswith("buffer"):
                tensor = None if operation == "buffer_none" else lib.ones(1)
                persistent = operation != "buffer_np"
                target.register_buffer(name, tensor, persistent=persistent)
            elif operation == "delete":
                delattr(target, name)
            elif operation == "register_parameter":
                target.register_parameter(name, lib.nn.Parameter(lib.ones(3)))
            else:
                target.add_module(name, lib.nn.Module())
            log.append("ok")
        except Exception as error:  # noqa: BLE001  (the type is compared)
            log.append(f"{type(error).__name__}: {error}")
        log.append(repr(homes(target)))
    log.append(repr(root))
    log.append(repr(list(root.state_dict())))
    log.append(repr([n for n, _ in root.named_parameters()]))
    log.append(repr([n for n, _ in root.named_buffers()]))
    log.append(repr([n for n, _ in root.named_modules()]))
    return log


@needs_torch
@given(
    hs.lists(
        hs.tuples(
            hs.sampled_from(OPERATIONS),
            hs.sampled_from(["root", "child"]),
            hs.sampled_from(NAMES),
        ),
        max_size=12,
    )
)
def test_any_sequence_of_registrations_matches_torch(
    steps: list[tuple[str, str, str]],
) -> None:
    assert apply_operations(st, steps) == apply_operations(torch, steps)


EDITS = [
    "drop",
    "add_top",
    "add_child",
    "add_deep",
    "add_none_child",
    "reshape",
    "not_tensor",
    "add_parameterless",
]


def load_edited(lib: Any, edits: list[tuple[str, int]], strict: bool) -> str:
    """Loads an edited state dict; returns the outcome as text."""
    model = net(lib)
    state = dict(model.state_dict())
    keys = list(state)
    for edit, number in edits:
        key = keys[number % len(keys)]
        if edit == "drop":
            state.pop(key, None)
        elif edit == "add_top":
            state[f"extra{number}"] = lib.zeros(1)
        elif edit == "add_child":
            state[f"encoder.{number}.weight"] = lib.zeros(1)
        elif edit == "add_deep":
            state[f"{key}.deeper"] = lib.zeros(1)
        elif edit == "add_none_child":
            state[f"empty.w{number}"] = lib.zeros(1)
        elif edit == "reshape" and key in state:
            state[key] = lib.zeros(number % 3 + 5)
        elif edit == "not_tensor" and key in state:
            state[key] = [1.0]
        elif edit == "add_parameterless":
            state[f"encoder.1.w{number}"] = lib.zeros(1)
    try:
        result = model.load_state_dict(state, strict=strict)
    except Exception as error:  # noqa: BLE001  (the type is compared)
        return f"{type(error).__name__}: {error}"
    return repr(result)


@needs_torch
@given(
    hs.lists(hs.tuples(hs.sampled_from(EDITS), hs.integers(0, 20)), max_size=5),
    hs.booleans(),
)
def test_any_edited_state_dict_loads_as_in_torch(
    edits: list[tuple[str, int]], strict: bool
) -> None:
    assert load_edited(st, edits, strict) == load_edited(torch, edits, strict)
