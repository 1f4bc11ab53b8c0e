"""Sequential, ModuleList and ModuleDict against torch.nn's."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity import assert_same, require_torch, same_error

torch = require_torch()


def make_classes(lib: Any) -> dict[str, type]:
    nn = lib.nn

    class Scale(nn.Module):
        def __init__(self, factor: float) -> None:
            super().__init__()
            self.factor = nn.Parameter(lib.tensor(factor))

        def forward(self, x: Any) -> Any:
            return x * self.factor

        def extra_repr(self) -> str:
            return f"factor={self.factor.item()}"

    class Shift(nn.Module):
        def forward(self, x: Any) -> Any:
            return x + 1

    return {"Scale": Scale, "Shift": Shift}


def scale(lib: Any, factor: float) -> Any:
    return make_classes(lib)["Scale"](factor)


def shift(lib: Any) -> Any:
    return make_classes(lib)["Shift"]()


def both(build: Any) -> tuple[Any, Any]:
    return build(st), build(torch)


def described(module: Any) -> tuple[str, list[str], list[str]]:
    """What must agree: the repr, the module names and the state_dict keys."""
    names = [name for name, _ in module.named_modules()]
    return repr(module), names, list(module.state_dict())


def same(build: Any) -> tuple[Any, Any]:
    ours, theirs = both(build)
    assert described(ours) == described(theirs)
    return ours, theirs


# ----------------------------------------------------------------------
# Sequential
# ----------------------------------------------------------------------


def sequential(lib: Any) -> Any:
    return lib.nn.Sequential(scale(lib, 2.0), shift(lib), scale(lib, -1.5))


def test_sequential_runs_in_order() -> None:
    ours, theirs = same(sequential)
    x = [[1.0, 2.0], [3.0, -4.0]]
    assert_same(ours(st.tensor(x)), theirs(torch.tensor(x)))
    ours(st.tensor(x)).sum().backward()
    theirs(torch.tensor(x)).sum().backward()
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert_same(p.grad, q.grad)


def test_sequential_from_ordered_dict() -> None:
    same(
        lambda lib: lib.nn.Sequential(
            OrderedDict([("first", scale(lib, 2.0)), ("act", shift(lib))])
        )
    )


def test_sequential_empty_and_nested() -> None:
    same(lambda lib: lib.nn.Sequential())
    same(lambda lib: lib.nn.Sequential(sequential(lib), lib.nn.Sequential()))
    x = st.ones(2)
    assert st.nn.Sequential()(x) is x


@pytest.mark.parametrize("index", [0, 1, -1, -3, 2])
def test_sequential_indexing(index: int) -> None:
    ours, theirs = both(sequential)
    assert repr(ours[index]) == repr(theirs[index])
    assert ours[index] is list(ours)[index]


@pytest.mark.parametrize(
    "index", [slice(1, None), slice(None, None, -1), slice(0, 3, 2), slice(5, 9)]
)
def test_sequential_slicing(index: slice) -> None:
    ours, theirs = both(sequential)
    part = ours[index]
    assert type(part) is st.nn.Sequential
    assert described(part) == described(theirs[index])


def test_sequential_slice_keeps_ordered_dict_names() -> None:
    same(
        lambda lib: lib.nn.Sequential(
            OrderedDict([("a", shift(lib)), ("b", scale(lib, 3.0)), ("c", shift(lib))])
        )[1:]
    )


def test_sequential_mutation() -> None:
    def build(lib: Any) -> Any:
        model = sequential(lib)
        assert model.append(shift(lib)) is model
        model[0] = scale(lib, 5.0)
        del model[1]
        model.insert(1, scale(lib, 7.0))
        model.insert(-1, shift(lib))
        model.extend([shift(lib), scale(lib, 0.5)])
        del model[1:3]
        model.pop(0)
        return model

    ours, _ = same(build)
    assert len(ours) == 4


def test_sequential_add() -> None:
    same(lambda lib: sequential(lib) + lib.nn.Sequential(shift(lib)))

    def in_place(lib: Any) -> Any:
        model = sequential(lib)
        model += lib.nn.Sequential(shift(lib))
        return model

    same(in_place)
    same_error(lambda lib: sequential(lib) + [shift(lib)], match_message=False)


@pytest.mark.parametrize("index", [3, -4, 100])
def test_sequential_index_errors(index: int) -> None:
    same_error(lambda lib: sequential(lib)[index])
    same_error(lambda lib: sequential(lib).__setitem__(index, shift(lib)))
    same_error(lambda lib: sequential(lib).__delitem__(index))


def test_sequential_other_errors() -> None:
    same_error(lambda lib: sequential(lib)["0"], match_message=False)
    same_error(lambda lib: sequential(lib).insert(9, shift(lib)))
    same_error(lambda lib: sequential(lib).insert(0, 3), match_message=False)
    same_error(lambda lib: lib.nn.Sequential(3), match_message=True)


def test_sequential_len_iter_and_dir() -> None:
    ours, theirs = both(sequential)
    assert len(ours) == len(theirs) == 3
    assert [type(m).__name__ for m in ours] == [type(m).__name__ for m in theirs]
    assert "0" not in dir(ours) and "forward" in dir(ours)


# ----------------------------------------------------------------------
# ModuleList
# ----------------------------------------------------------------------


def module_list(lib: Any) -> Any:
    return lib.nn.ModuleList([scale(lib, 1.0), scale(lib, 1.0), shift(lib)])


def test_module_list_registers_and_reprs_runs_of_equal_modules() -> None:
    same(module_list)
    same(lambda lib: lib.nn.ModuleList())
    same(lambda lib: lib.nn.ModuleList([shift(lib) for _ in range(4)]))
    same(
        lambda lib: lib.nn.ModuleList(
            [shift(lib), scale(lib, 2.0), scale(lib, 2.0), shift(lib), shift(lib)]
        )
    )
    same(lambda lib: lib.nn.ModuleList([module_list(lib), module_list(lib)]))


def test_module_list_operations() -> None:
    def build(lib: Any) -> Any:
        layers = module_list(lib)
        assert layers.append(scale(lib, 4.0)) is layers
        layers.extend([shift(lib), scale(lib, 9.0)])
        layers.insert(1, scale(lib, 8.0))
        layers.insert(len(layers), shift(lib))
        layers += [scale(lib, 3.0)]
        layers[2] = shift(lib)
        del layers[0]
        del layers[::3]
        layers.pop(1)
        return layers

    ours, _ = same(build)
    assert len(ours) == 4


def test_module_list_insert_counts_back_from_a_negative_index() -> None:
    # PyTorch fails here with KeyError: '-1'; this engine does as list.insert.
    layers = st.nn.ModuleList([shift(st), shift(st)])
    marker = scale(st, 5.0)
    layers.insert(-1, marker)
    assert list(layers._modules) == ["0", "1", "2"] and layers[1] is marker


@pytest.mark.parametrize("index", [0, -1, slice(1, None), slice(None, None, 2)])
def test_module_list_indexing(index: Any) -> None:
    ours, theirs = both(module_list)
    assert described(ours[index]) == described(theirs[index])
    if isinstance(index, slice):
        assert type(ours[index]) is st.nn.ModuleList


def test_module_list_add_and_parent() -> None:
    same(lambda lib: module_list(lib) + module_list(lib))

    def parent(lib: Any) -> Any:
        model = lib.nn.Module()
        model.layers = module_list(lib)
        model.plain = [scale(lib, 5.0)]  # a Python list hides its modules
        return model

    ours, theirs = same(parent)
    assert len(list(ours.parameters())) == len(list(theirs.parameters())) == 2


@pytest.mark.parametrize("index", [3, -4])
def test_module_list_errors(index: int) -> None:
    same_error(lambda lib: module_list(lib)[index])
    same_error(lambda lib: module_list(lib).__setitem__(index, shift(lib)))
    same_error(lambda lib: module_list(lib).__delitem__(index))
    same_error(lambda lib: module_list(lib).extend(3))
    same_error(lambda lib: module_list(lib).append(3))
    same_error(lambda lib: module_list(lib)(st.ones(1)))


# ----------------------------------------------------------------------
# ModuleDict
# ----------------------------------------------------------------------


def module_dict(lib: Any) -> Any:
    return lib.nn.ModuleDict({"b": scale(lib, 2.0), "a": shift(lib)})


def test_module_dict_keeps_insertion_order() -> None:
    same(module_dict)
    same(lambda lib: lib.nn.ModuleDict())
    same(lambda lib: lib.nn.ModuleDict([("z", shift(lib)), ("y", scale(lib, 1.0))]))
    same(
        lambda lib: lib.nn.ModuleDict(
            OrderedDict([("z", shift(lib)), ("y", scale(lib, 1.0))])
        )
    )


def test_module_dict_mapping_api() -> None:
    def build(lib: Any) -> Any:
        layers = module_dict(lib)
        layers["c"] = scale(lib, 3.0)
        layers.update({"d": shift(lib), "b": shift(lib)})
        layers.update([("e", scale(lib, 1.0))])
        layers.update(module_dict(lib))
        del layers["a"]
        layers.pop("d")
        return layers

    ours, theirs = same(build)
    assert list(ours) == list(theirs) == list(ours.keys())
    assert len(ours) == len(theirs)
    assert "c" in ours and "a" not in ours
    assert [type(m).__name__ for m in ours.values()] == [
        type(m).__name__ for m in theirs.values()
    ]
    assert [k for k, _ in ours.items()] == [k for k, _ in theirs.items()]
    ours.clear()
    assert len(ours) == 0 and list(ours.parameters()) == []


def test_module_dict_errors() -> None:
    same_error(lambda lib: module_dict(lib)["missing"])
    same_error(lambda lib: module_dict(lib).update(3))
    same_error(lambda lib: module_dict(lib).update([3]))
    same_error(lambda lib: module_dict(lib).update([("a", shift(lib), 1)]))
    same_error(lambda lib: module_dict(lib).__setitem__("x", 3))
    same_error(lambda lib: module_dict(lib).__setitem__("x.y", shift(lib)))


def test_containers_in_state_dict_round_trip() -> None:
    def build(lib: Any) -> Any:
        model = lib.nn.Module()
        model.seq = sequential(lib)
        model.list = module_list(lib)
        model.dict = module_dict(lib)
        return model

    ours, theirs = same(build)
    state = {k: st.tensor(v.tolist()) for k, v in theirs.state_dict().items()}
    state["seq.0.factor"] = st.tensor(-9.0)
    ours.load_state_dict(state)
    assert ours.seq[0].factor.item() == -9.0
