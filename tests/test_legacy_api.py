"""The legacy forms older programs still use: ``Tensor.new``, ``resize_``,
``autograd.Variable``, the device flags and ``distributed``'s clean-up,
against PyTorch.

Each check runs the same code on both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compares what comes out, or the type and message of the
exception.
"""

from __future__ import annotations

from typing import Any

import pytest

import slowtorch_lib as st
from tests.parity_checks import check


def test_new() -> None:
    check(lambda lib: lib.ones(2).new([1, 2]))
    check(lambda lib: lib.ones(2).int().new([1.5, -2.5]))
    check(lambda lib: lib.ones(2).new((2, 3)))
    check(lambda lib: lib.ones(2).new(2, 3).shape)
    check(lambda lib: lib.ones(2).new(lib.Size([4])).shape)
    check(lambda lib: str(lib.ones(2).double().new(2).dtype))
    check(lambda lib: lib.ones(2).new())
    check(lambda lib: lib.ones(2).new(device="cpu"))
    check(lambda lib: lib.ones(2).new(lib.tensor([1.0, 2.0])))
    check(lambda lib: lib.ones(2).new(lib.tensor([1, 2])))
    check(lambda lib: lib.ones(2).new(2.5))


def test_new_zeros_where_pytorch_leaves_memory_unset() -> None:
    assert st.ones(2).new(2, 3).tolist() == [[0.0] * 3] * 2


def resized(lib: Any, sizes: Any, view: Any = None) -> Any:
    x = lib.arange(6.0)
    if view is not None:
        x = view(x)
    y = x.resize_(*sizes)
    return y is x, y.shape, y.stride(), y


@pytest.mark.parametrize("sizes", [(2, 3), (3, 2), (2,), (1, 6), ((3, 2),), (0,)])
def test_resize(sizes: tuple[Any, ...]) -> None:
    check(lambda lib: resized(lib, sizes))
    check(lambda lib: resized(lib, sizes, lambda x: x.reshape(3, 2).t()))


def test_resize_grows_and_refuses() -> None:
    grown = st.arange(3.0).resize_(2, 3)
    assert grown.tolist() == [[0.0, 1.0, 2.0], [0.0, 0.0, 0.0]]
    base = st.arange(4.0)
    base[:2].resize_(5)
    assert base.tolist() == [0.0, 1.0, 2.0, 3.0]
    check(lambda lib: lib.ones(2).resize_(2, -1))
    check(lambda lib: lib.ones(2).resize_(2.5))
    check(lambda lib: lib.ones(2).resize_())
    check(lambda lib: lib.ones(2, requires_grad=True).resize_(3))


def test_variable() -> None:
    def made(lib: Any, requires_grad: bool) -> Any:
        x = lib.ones(2, requires_grad=True)
        v = lib.autograd.Variable(x * 2, requires_grad=requires_grad)
        return v, v.grad_fn is None, v.is_leaf, v.requires_grad

    check(lambda lib: made(lib, False))
    check(lambda lib: made(lib, True))
    check(lambda lib: isinstance(lib.ones(1), lib.autograd.Variable))
    check(lambda lib: isinstance(3.0, lib.autograd.Variable))
    check(lambda lib: lib.autograd.Variable())
    check(lambda lib: lib.autograd.Variable([1, 2]))
    shared = st.zeros(2)
    st.autograd.Variable(shared).fill_(1.0)
    assert shared.tolist() == [1.0, 1.0]
    with pytest.warns(UserWarning, match="volatile was removed"):
        st.autograd.Variable(shared, volatile=True)


def test_device_flags_and_distributed_cleanup() -> None:
    check(lambda lib: (lib.ones(1).is_xpu, lib.ones(1).is_mps, lib.ones(1).is_cuda))
    check(lambda lib: lib.distributed.destroy_process_group())
