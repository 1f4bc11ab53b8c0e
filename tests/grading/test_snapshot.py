"""The runner's snapshot of the engine puts back, before each case, whatever an
answer changed in a module or a class: a name replaced, added or deleted, and
two names that swap their values (the same values, the same number of names:
only their order tells). Each change is undone by the same restore that finds
nothing to do when a case changed nothing."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest


@pytest.fixture()
def watch_module() -> Iterator[object]:
    """The runner's watch (:mod:`course.watch`), which holds the snapshot."""
    import slowtorch_lib.autograd.engine  # noqa: F401  (snapshotted)
    from course import watch
    from slowtorch_lib import _strides

    saved = dict(vars(_strides))
    yield watch
    vars(_strides).clear()
    vars(_strides).update(saved)


def test_a_case_that_changed_nothing_leaves_every_namespace_as_it_was(
    watch_module: object,
) -> None:
    snapshot = watch_module.Snapshot()  # type: ignore[attr-defined]
    before = {name: dict(space) for name, space in snapshot.namespaces.items()}
    snapshot.restore()
    assert all(
        watch_module.unchanged(vars(snapshot.modules[name]), saved)  # type: ignore[attr-defined]
        for name, saved in before.items()
        if name != "builtins"
    )


def test_names_replaced_added_deleted_or_swapped_are_put_back(
    watch_module: object,
) -> None:
    from slowtorch_lib import _strides
    from slowtorch_lib._tensor import Tensor

    snapshot = watch_module.Snapshot()  # type: ignore[attr-defined]
    names = [n for n, v in vars(_strides).items() if callable(v)][:2]
    first, second = (getattr(_strides, n) for n in names)
    setattr(_strides, names[0], second)  # swapped: same values, same length
    setattr(_strides, names[1], first)
    assert not watch_module.unchanged(
        vars(_strides), snapshot.namespaces[_strides.__name__]
    )  # type: ignore[attr-defined]
    _strides.added = 1  # type: ignore[attr-defined]
    size = Tensor.size
    Tensor.size = lambda self, dim=None: (1,)  # type: ignore[method-assign]
    snapshot.restore()
    assert getattr(_strides, names[0]) is first
    assert getattr(_strides, names[1]) is second
    assert not hasattr(_strides, "added")
    assert Tensor.size is size
    delattr(_strides, names[0])
    setattr(_strides, names[0], second)  # back, last in order, another value
    snapshot.restore()
    assert getattr(_strides, names[0]) is first
    assert sys.modules[_strides.__name__] is _strides
