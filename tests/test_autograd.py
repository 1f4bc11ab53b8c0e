"""The autograd engine against real torch: backward, grad, hooks, errors, Function.

Most tests run the same code with both libraries (``lib`` is ``slowtorch_lib``
or ``torch``) and compare what comes out: values, gradients, names, error
types and messages.
"""

from __future__ import annotations

import gc
import sys
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib.autograd.function import AccumulateGrad
from tests.parity import assert_same, both, error_of, leaf, same_error

# ----------------------------------------------------------------------
# Errors, exactly as torch
# ----------------------------------------------------------------------


def test_backward_of_non_scalar_needs_a_gradient() -> None:
    message = same_error(lambda L: (leaf(L) * 2).backward())
    assert message == "grad can be implicitly created only for scalar outputs"


def test_second_backward_through_freed_graph() -> None:
    def run(L: Any) -> None:
        z = (leaf(L) * leaf(L)).sum()
        z.backward()
        z.backward()

    assert "Trying to backward through the graph a second time" in same_error(run)


def test_second_backward_without_saved_tensors_is_allowed() -> None:
    def run(L: Any) -> Any:
        x = leaf(L)
        z = (x + 1).sum()
        z.backward()
        z.backward()
        return x.grad

    ours, theirs = both(run)
    assert_same(ours, theirs)


def test_retain_graph_allows_a_second_backward_and_accumulates() -> None:
    def run(L: Any) -> Any:
        x = leaf(L)
        z = (x * x).sum()
        z.backward(retain_graph=True)
        z.backward()
        return x.grad

    ours, theirs = both(run)
    assert_same(ours, theirs)
    assert ours.tolist() == [4.0, 8.0, 12.0]


def test_inplace_on_leaf_that_requires_grad() -> None:
    message = same_error(lambda L: leaf(L).add_(1))
    assert (
        message
        == "a leaf Variable that requires grad is being used in an in-place operation."
    )


def test_inplace_on_leaf_is_allowed_under_no_grad() -> None:
    def run(L: Any) -> Any:
        x = leaf(L)
        with L.no_grad():
            x.mul_(2)
        return x

    ours, theirs = both(run)
    assert_same(ours, theirs)
    assert ours.is_leaf and ours.requires_grad


def _saved_output_changed(L: Any) -> None:
    y = leaf(L).exp()
    y.mul_(2)
    y.sum().backward()


def _saved_input_changed(L: Any) -> None:
    a = leaf(L) * 1
    b = a * a
    a.add_(1)
    b.sum().backward()


def _saved_constant_changed(L: Any) -> None:
    w = L.tensor([1.0, 2.0, 3.0])
    b = leaf(L) * w
    w.mul_(2)
    b.sum().backward()


def _saved_leaf_changed_under_no_grad(L: Any) -> None:
    x = leaf(L)
    b = x * x
    with L.no_grad():
        x.mul_(2)
    b.sum().backward()


def _double_saved_output_changed(L: Any) -> None:
    y = leaf(L).double().sigmoid().unsqueeze(0)
    z = y.tanh()
    z.add_(1)
    z.sum().backward()


def _inplace_output_changed_again(L: Any) -> None:
    y = leaf(L) * 2
    y.exp_()  # ExpBackward0 saves its output: y itself
    y.mul_(3)
    y.sum().backward()


def _rounded_div_dividend_changed(L: Any) -> None:
    # The gradient is 0, but torch keeps the dividend for the divisor's.
    a = L.tensor([1.5, -2.5])
    b = L.div(a, leaf(L, (0.5, 2.0)), rounding_mode="floor")
    a.mul_(2)
    b.sum().backward()


def _rounded_div_divisor_changed(L: Any) -> None:
    d = L.tensor([2.0, 3.0])
    b = L.div(leaf(L, (0.5, 2.0)), d, rounding_mode="trunc")
    d.mul_(2)
    b.sum().backward()


@pytest.mark.parametrize(
    "run",
    [
        _saved_output_changed,
        _saved_input_changed,
        _saved_constant_changed,
        _saved_leaf_changed_under_no_grad,
        _double_saved_output_changed,
        _inplace_output_changed_again,
        _rounded_div_dividend_changed,
        _rounded_div_divisor_changed,
    ],
)
def test_saved_tensor_changed_in_place_is_detected(run: Callable[[Any], None]) -> None:
    message = same_error(run, match_message=False)
    assert "modified by an inplace operation" in message
    assert "is at version" in message


def _hypot_other_changed(L: Any) -> Any:
    # hypot's gradient for x needs only x and the result: y is not kept.
    x = leaf(L, (3.0, 1.0))
    y = L.tensor([4.0, 1.0])
    h = x.hypot(y)
    y.mul_(2)
    h.sum().backward()
    return x.grad


def _hypot_integer_other_changed(L: Any) -> Any:
    x = leaf(L, (3.0, 1.0)).double()
    y = L.tensor([4, 0])
    h = x.hypot(y)
    y.fill_(1)
    h.sum().backward()
    return h


def _rounded_div_unneeded_dividend_changed(L: Any) -> Any:
    # Only the divisor is kept when only the dividend requires grad.
    a = leaf(L, (1.5, -2.5))
    b = L.div(a, L.tensor([2.0, 3.0]), rounding_mode="floor")
    with L.no_grad():
        a.mul_(2)
    b.sum().backward()
    return a.grad


def _rounded_div_by_a_number(L: Any) -> Any:
    a = leaf(L, (1.5, -2.5))
    b = L.div(a, -1.5, rounding_mode="floor") + L.div(a, 2, rounding_mode="trunc")
    b.sum().backward()
    return a.grad


@pytest.mark.parametrize(
    "run",
    [
        _rounded_div_by_a_number,
        _hypot_other_changed,
        _hypot_integer_other_changed,
        _rounded_div_unneeded_dividend_changed,
    ],
)
def test_tensor_no_gradient_needs_may_change_in_place(
    run: Callable[[Any], Any],
) -> None:
    assert_same(*both(run))


def test_version_message_names_the_op_and_versions() -> None:
    _, message = error_of(_saved_output_changed, st)
    assert message == (
        "one of the variables needed for gradient computation has been modified by "
        "an inplace operation: [torch.FloatTensor [3]], which is output 0 of Exp, "
        "is at version 1; expected version 0 instead."
    )


def test_requires_grad_on_integer_tensor() -> None:
    message = same_error(lambda L: L.tensor([1, 2]).requires_grad_())
    assert message == "only Tensors of floating point dtype can require gradients"


def test_integer_tensor_created_with_requires_grad() -> None:
    message = same_error(lambda L: L.tensor([1, 2], requires_grad=True))
    assert (
        message
        == "Only Tensors of floating point and complex dtype can require gradients"
    )


def test_requires_grad_flag_of_non_leaf_cannot_change() -> None:
    def run(L: Any) -> None:
        y = leaf(L) * 2
        y.requires_grad = False

    assert "only change requires_grad flags of leaf variables" in same_error(run)


def test_grad_of_non_leaf_warns() -> None:
    for lib in both(lambda L: L):
        y = leaf(lib) * 2
        with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
            assert y.grad is None


def test_grad_of_leaf_and_retained_non_leaf_does_not_warn() -> None:
    for lib in both(lambda L: L):
        x = leaf(lib)
        y = x * 2
        y.retain_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert x.grad is None
            assert y.grad is None


def test_backward_of_tensor_without_grad() -> None:
    message = same_error(lambda L: L.tensor([1.0]).sum().backward())
    assert (
        message
        == "element 0 of tensors does not require grad and does not have a grad_fn"
    )


def test_gradient_of_wrong_shape() -> None:
    message = same_error(lambda L: (leaf(L) * 2).backward(L.ones(2)))
    assert message.startswith("Mismatch in shape: grad_output[0] has a shape of")


def test_register_hook_needs_requires_grad() -> None:
    message = same_error(lambda L: L.tensor([1.0]).register_hook(lambda g: g))
    assert message == "cannot register a hook on a tensor that doesn't require gradient"


def test_retain_grad_needs_requires_grad() -> None:
    message = same_error(lambda L: L.tensor([1.0]).retain_grad())
    assert message == "can't retain_grad on Tensor that has requires_grad=False"


# ----------------------------------------------------------------------
# backward and grad
# ----------------------------------------------------------------------


def test_gradients_accumulate_across_calls() -> None:
    def run(L: Any) -> Any:
        x = leaf(L)
        (x * x).sum().backward()
        (x * 3).sum().backward()
        return x.grad

    ours, theirs = both(run)
    assert_same(ours, theirs)


def test_backward_with_explicit_gradient() -> None:
    def run(L: Any) -> Any:
        x = leaf(L)
        (x * x).backward(L.tensor([1.0, 0.5, -1.0]))
        return x.grad

    assert_same(*both(run))


def test_backward_with_inputs_accumulates_only_there() -> None:
    def run(L: Any) -> tuple[Any, Any]:
        x, w = leaf(L), leaf(L, (2.0, 2.0, 2.0))
        (x * w).sum().backward(inputs=[w])
        return x.grad, w.grad

    (ours_x, ours_w), (theirs_x, theirs_w) = both(run)
    assert ours_x is None and theirs_x is None
    assert_same(ours_w, theirs_w)


def test_backward_with_non_leaf_input_fills_its_grad() -> None:
    def run(L: Any) -> tuple[Any, bool]:
        x = leaf(L)
        y = x * 2
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            (y * y).sum().backward(inputs=[y])
            return y.grad, y.retains_grad

    (ours, ours_flag), (theirs, theirs_flag) = both(run)
    assert_same(ours, theirs)
    assert ours_flag is theirs_flag is True


def test_autograd_backward_function() -> None:
    def run(L: Any) -> Any:
        x = leaf(L)
        L.autograd.backward([(x * x).sum(), x * 2], [None, L.ones(3)])
        return x.grad

    assert_same(*both(run))


def test_grad_returns_gradients_and_leaves_grad_alone() -> None:
    def run(L: Any) -> tuple[Any, Any]:
        x, w = leaf(L), leaf(L, (1.0, -1.0, 0.5))
        gx, gw = L.autograd.grad((x * w).sum(), [x, w])
        assert x.grad is None and w.grad is None
        return gx, gw

    (ours_x, ours_w), (theirs_x, theirs_w) = both(run)
    assert_same(ours_x, theirs_x)
    assert_same(ours_w, theirs_w)


def test_grad_of_unused_input() -> None:
    def run(L: Any) -> None:
        x, unused = leaf(L), leaf(L)
        L.autograd.grad((x * 2).sum(), [x, unused])

    assert same_error(run) == (
        "The differentiated Tensor at index 1 appears to not have been used in the "
        "graph. Set allow_unused=True if this is the desired behavior."
    )


def test_grad_allow_unused_gives_none() -> None:
    def run(L: Any) -> Any:
        x, unused = leaf(L), leaf(L)
        return L.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)

    (ours_x, ours_none), (theirs_x, theirs_none) = both(run)
    assert ours_none is None and theirs_none is None
    assert_same(ours_x, theirs_x)


def test_grad_wrt_tensor_without_grad() -> None:
    def run(L: Any) -> None:
        L.autograd.grad((leaf(L) * 2).sum(), [L.tensor([1.0])])

    assert same_error(run) == "One of the differentiated Tensors does not require grad"


def test_grad_materialize_grads_gives_zeros() -> None:
    def run(L: Any) -> Any:
        x, unused = leaf(L), leaf(L)
        return L.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)[1]

    assert_same(*both(run))


def test_node_hooks_with_handles() -> None:
    def run(L: Any) -> tuple[Any, Any]:
        x = leaf(L)
        y = x * 2
        seen = []
        handle = y.grad_fn.register_hook(lambda gi, go: seen.append(len(gi)))
        pre = y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
        y.sum().backward(retain_graph=True)
        first = x.grad.clone()
        handle.remove()
        pre.remove()
        x.grad = None
        y.sum().backward()
        return first, x.grad, seen

    (ours_1, ours_2, ours_seen), (theirs_1, theirs_2, theirs_seen) = both(run)
    assert_same(ours_1, theirs_1)
    assert_same(ours_2, theirs_2)
    assert ours_seen == theirs_seen == [2]


def test_grad_wrt_intermediate_does_not_run_the_graph_below() -> None:
    class Boom(st.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 1

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            raise AssertionError("this node is below the input asked for")

    x = st.tensor([1.0, 2.0], requires_grad=True)
    hidden = Boom.apply(x)
    (g,) = st.autograd.grad((hidden * hidden).sum(), hidden)
    assert g.tolist() == [2.0, 4.0]


def test_create_graph_gives_second_derivatives() -> None:
    def run(L: Any) -> tuple[Any, Any]:
        x = leaf(L)
        (g,) = L.autograd.grad((x**3).sum(), x, create_graph=True)
        (h,) = L.autograd.grad(g.sum(), x)
        return g, h

    (ours_g, ours_h), (theirs_g, theirs_h) = both(run)
    assert_same(ours_g, theirs_g)
    assert_same(ours_h, theirs_h)
    assert ours_g.requires_grad and ours_g.grad_fn is not None
    assert ours_h.tolist() == [6.0, 12.0, 18.0]


def test_hessian_vector_product() -> None:
    def run(L: Any) -> Any:
        x = L.tensor([1.0, -2.0, 0.5], dtype=L.float64, requires_grad=True)
        v = L.tensor([0.3, 1.0, -1.0], dtype=L.float64)
        loss = (x.sin() * x.sum()).sum()
        (g,) = L.autograd.grad(loss, x, create_graph=True)
        (hv,) = L.autograd.grad(g, x, grad_outputs=v)
        return hv

    assert_same(*both(run))


def test_backward_with_create_graph_keeps_a_graph_in_grad() -> None:
    def run(L: Any) -> tuple[Any, bool, Any]:
        x = leaf(L)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x**3).sum().backward(create_graph=True)
        first = x.grad
        requires = first.requires_grad
        x.grad = None
        first.sum().backward()
        return first, requires, x.grad

    (ours, ours_req, ours_second), (theirs, theirs_req, theirs_second) = both(run)
    assert_same(ours, theirs)
    assert ours_req is theirs_req is True
    assert_same(ours_second, theirs_second)


# ----------------------------------------------------------------------
# Hooks, retain_grad
# ----------------------------------------------------------------------


def test_hooks_run_in_order_and_retain_grad_sees_the_result() -> None:
    def run(L: Any) -> tuple[list[str], Any, Any]:
        order: list[str] = []
        x = leaf(L)
        y = x * 2
        y.register_hook(lambda g: order.append("first"))
        y.retain_grad()
        y.register_hook(lambda g: order.append("second") or g * 10)
        y.sum().backward()
        return order, y.grad, x.grad

    (ours_order, ours_y, ours_x), (theirs_order, theirs_y, theirs_x) = both(run)
    assert ours_order == theirs_order == ["first", "second"]
    assert_same(ours_y, theirs_y)
    assert_same(ours_x, theirs_x)


def test_retained_grad_accumulates() -> None:
    def run(L: Any) -> Any:
        y = leaf(L) * 2
        y.retain_grad()
        s = y.sum()
        s.backward(retain_graph=True)
        s.backward()
        return y.grad

    ours, theirs = both(run)
    assert_same(ours, theirs)
    assert ours.tolist() == [2.0, 2.0, 2.0]


def test_leaf_hook_and_handle_remove() -> None:
    def run(L: Any) -> tuple[Any, Any]:
        x = leaf(L)
        handle = x.register_hook(lambda g: g * 2)
        (x * 1).sum().backward()
        first = x.grad.clone()
        handle.remove()
        x.grad = None
        (x * 1).sum().backward()
        return first, x.grad

    (ours_1, ours_2), (theirs_1, theirs_2) = both(run)
    assert_same(ours_1, theirs_1)
    assert_same(ours_2, theirs_2)
    assert ours_1.tolist() == [2.0, 2.0, 2.0] and ours_2.tolist() == [1.0, 1.0, 1.0]


def test_hook_sees_grad_mode_of_backward() -> None:
    def run(L: Any) -> list[bool]:
        modes: list[bool] = []
        x = leaf(L)
        y = x * 2
        y.register_hook(lambda g: modes.append(L.is_grad_enabled()))
        y.sum().backward(retain_graph=True)
        L.autograd.grad(y.sum(), x, create_graph=True)
        return modes

    ours, theirs = both(run)
    assert ours == theirs == [False, True]


# ----------------------------------------------------------------------
# The graph: grad_fn, next_functions, AccumulateGrad, leaves, detach
# ----------------------------------------------------------------------


def _names(node: Any) -> Any:
    return [(None if n is None else n.name(), nr) for n, nr in node.next_functions]


def test_grad_fn_and_next_functions() -> None:
    def run(L: Any) -> tuple[Any, ...]:
        x = leaf(L)
        y = (x * 2).sum()
        mul = y.grad_fn.next_functions[0][0]
        accumulate = mul.next_functions[0][0]
        return (
            y.grad_fn.name(),
            _names(y.grad_fn),
            _names(mul),
            accumulate.name(),
            accumulate.variable is x,
            type(accumulate).__name__,
            repr(accumulate).split(" object")[0],
        )

    ours, theirs = both(run)
    assert ours == theirs
    assert ours[2] == [("torch::autograd::AccumulateGrad", 0), (None, 0)]


def test_accumulate_grad_is_one_per_leaf() -> None:
    x = st.tensor([1.0], requires_grad=True)
    a = (x * 2).grad_fn.next_functions[0][0]
    b = (x + 1).grad_fn.next_functions[0][0]
    assert a is b and isinstance(a, AccumulateGrad)


def test_leaves_detach_and_requires_grad() -> None:
    def run(L: Any) -> tuple[Any, ...]:
        x = leaf(L)
        y = x * 2
        d = y.detach()
        z = x * 3
        z.detach_()
        c = L.tensor([1.0]).requires_grad_()
        return (
            x.is_leaf,
            y.is_leaf,
            d.is_leaf,
            d.requires_grad,
            d.grad_fn is None,
            z.is_leaf,
            z.requires_grad,
            c.requires_grad,
            c.is_leaf,
        )

    ours, theirs = both(run)
    assert ours == theirs


def test_detach_shares_storage() -> None:
    x = st.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    d.add_(1)
    assert x.tolist() == [2.0, 3.0]


def test_constant_inputs_get_no_edge() -> None:
    def run(L: Any) -> Any:
        return _names((leaf(L) * L.tensor([1.0, 2.0, 3.0])).grad_fn)

    ours, theirs = both(run)
    assert ours == theirs


# ----------------------------------------------------------------------
# autograd.Function
# ----------------------------------------------------------------------


def _exp_function(L: Any) -> Any:
    class MyExp(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            (result,) = ctx.saved_tensors
            return grad_output * result

    return MyExp


def test_custom_function() -> None:
    def run(L: Any) -> tuple[Any, ...]:
        x = leaf(L)
        y = _exp_function(L).apply(x)
        y.sum().backward()
        return y, x.grad, y.grad_fn.name(), type(y.grad_fn).__name__

    ours, theirs = both(run)
    assert_same(ours[0], theirs[0])
    assert_same(ours[1], theirs[1])
    assert ours[2:] == theirs[2:] == ("MyExpBackward", "MyExpBackward")


def test_custom_function_saved_output_changed() -> None:
    def run(L: Any) -> None:
        y = _exp_function(L).apply(leaf(L))
        y.mul_(2)
        y.sum().backward()

    assert "which is output 0 of MyExp," in same_error(run)


def test_needs_input_grad_and_constants() -> None:
    def run(L: Any) -> tuple[Any, ...]:
        seen = []

        class Scale(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any, w: Any, factor: float) -> Any:
                ctx.factor = factor
                ctx.save_for_backward(x, w)
                return x * w * factor

            @staticmethod
            def backward(ctx: Any, grad_output: Any) -> Any:
                seen.append(tuple(ctx.needs_input_grad))
                _, w = ctx.saved_tensors
                return grad_output * w * ctx.factor, None, None

        x = leaf(L)
        Scale.apply(x, L.tensor([1.0, 2.0, 3.0]), 2.0).sum().backward()
        return x.grad, seen

    (ours_grad, ours_seen), (theirs_grad, theirs_seen) = both(run)
    assert_same(ours_grad, theirs_grad)
    assert ours_seen == theirs_seen == [(True, False, False)]


def test_mark_non_differentiable() -> None:
    def run(L: Any) -> tuple[Any, ...]:
        received = []

        class TwoOutputs(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                doubled, tripled = x * 2, x * 3
                ctx.mark_non_differentiable(tripled)
                return doubled, tripled

            @staticmethod
            def backward(ctx: Any, grad_doubled: Any, grad_tripled: Any) -> Any:
                received.append(grad_tripled.tolist())
                return grad_doubled * 2

        x = leaf(L)
        doubled, tripled = TwoOutputs.apply(x)
        doubled.sum().backward()
        return tripled.requires_grad, tripled.grad_fn is None, received, x.grad

    ours, theirs = both(run)
    assert ours[:3] == theirs[:3] == (False, True, [[0.0, 0.0, 0.0]])
    assert_same(ours[3], theirs[3])


def test_set_materialize_grads_false_gives_none() -> None:
    def run(L: Any) -> list[Any]:
        received = []

        class Pair(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx: Any, grad_a: Any, grad_b: Any) -> Any:
                received.append(grad_b)
                return grad_a * 2

        a, _ = Pair.apply(leaf(L))
        a.sum().backward()
        return received

    assert both(run) == ([None], [None])


def test_wrong_number_of_gradients() -> None:
    def run(L: Any) -> None:
        class TwoInputs(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any, k: Any) -> Any:
                return x * k

            @staticmethod
            def backward(ctx: Any, grad_output: Any) -> Any:
                return grad_output * 2

        TwoInputs.apply(leaf(L), 3).sum().backward()

    assert same_error(run) == (
        "function TwoInputsBackward returned an incorrect number of gradients "
        "(expected 2, got 1)"
    )


def test_extra_none_gradients_are_allowed() -> None:
    def run(L: Any) -> Any:
        class Extra(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, grad_output: Any) -> Any:
                return grad_output * 2, None

        x = leaf(L)
        Extra.apply(x).sum().backward()
        return x.grad

    assert_same(*both(run))


def test_function_without_grad_records_nothing() -> None:
    def run(L: Any) -> tuple[bool, bool]:
        y = _exp_function(L).apply(L.tensor([1.0]))
        with L.no_grad():
            z = _exp_function(L).apply(leaf(L))
        return y.requires_grad, z.requires_grad

    assert both(run) == ((False, False), (False, False))


# ----------------------------------------------------------------------
# Long graphs and memory
# ----------------------------------------------------------------------


def test_chain_of_10000_ops_backpropagates_without_recursion() -> None:
    x = st.tensor([1.0], dtype=st.float64, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0001
    y.sum().backward()
    assert x.grad is not None
    assert abs(x.grad.item() - 1.0001**10_000) < 1e-6 * 1.0001**10_000


def test_long_graph_is_freed_without_recursion() -> None:
    x = st.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y + 1.0
    node = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert node() is None


def test_saved_tensors_are_freed_after_backward() -> None:
    x = st.tensor([1.0, 2.0], requires_grad=True)
    hidden = x * 2
    out = hidden.sin()  # SinBackward0 saves its input, ``hidden``
    saved = weakref.ref(hidden)
    del hidden
    gc.collect()
    assert saved() is not None, "the graph keeps the saved tensor until backward"
    out.sum().backward()
    gc.collect()
    assert saved() is None


def test_saved_tensors_survive_with_retain_graph() -> None:
    x = st.tensor([1.0, 2.0], requires_grad=True)
    hidden = x * 2
    out = hidden.sin()
    saved = weakref.ref(hidden)
    del hidden
    out.sum().backward(retain_graph=True)
    gc.collect()
    assert saved() is not None


# ----------------------------------------------------------------------
# The engine's pieces are looked up through their module (the course and
# the book put other versions in their place)
# ----------------------------------------------------------------------


def test_backward_and_grad_call_topological_order_through_the_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from slowtorch_lib.autograd import engine

    calls = []
    real = engine.topological_order

    def recording(roots: Any) -> Any:
        order = real(roots)
        calls.append([node.name() for node in order])
        return order

    monkeypatch.setattr(engine, "topological_order", recording)
    x = leaf(st)
    (x * x).sum().backward()
    st.autograd.grad((x * 2).sum(), x)
    assert calls == [
        ["SumBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"],
        ["SumBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"],
    ]
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_run_backward_calls_send_through_the_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from slowtorch_lib.autograd import engine

    def overwriting(pending: Any, edge: Any, gradient: Any) -> None:
        node, output_nr = edge
        slots = pending.setdefault(node, [None] * node.num_outputs)
        slots[output_nr] = gradient  # the last gradient to arrive wins

    monkeypatch.setattr(engine, "send", overwriting)
    x, y = leaf(st), leaf(st, (4.0, 5.0, 6.0))
    (x * y + x).sum().backward()
    assert x.grad.tolist() == [4.0, 5.0, 6.0]  # the 1 from the addition is lost


def test_backward_calls_run_backward_through_the_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from slowtorch_lib.autograd import engine

    sizes = []
    real = engine.run_backward

    def counting(roots: Any, grads: Any, order: Any, retain_graph: bool) -> Any:
        sizes.append(len(order))
        return real(roots, grads, order, retain_graph)

    monkeypatch.setattr(engine, "run_backward", counting)
    x = leaf(st)
    (x * 2).sum().backward()
    assert sizes == [3]
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_leaf_accumulation_is_accumulate_grad_apply() -> None:
    x = leaf(st)
    node = (x * 2).grad_fn.next_functions[0][0]
    assert isinstance(node, AccumulateGrad)
    assert node.apply(st.tensor([1.0, 1.0, 1.0])) == ()
    assert node.apply(st.tensor([0.5, 0.5, 0.5])) == ()
    assert x.grad.tolist() == [1.5, 1.5, 1.5]


def test_grad_runs_only_the_nodes_leading_to_the_inputs() -> None:
    def run(L: Any) -> list[str]:
        x, y = leaf(L), leaf(L, (4.0, 5.0, 6.0))
        a = x.exp()
        b = y.sin()
        ran = []
        for node in (a.grad_fn, b.grad_fn):
            node.register_hook(lambda gi, go, node=node: ran.append(node.name()))
        L.autograd.grad((a * b).sum(), [x])
        return ran + [str(y.grad)]

    ours, theirs = both(run)
    assert ours == theirs == ["ExpBackward0", "None"]


def test_history_is_recorded_in_function_apply_and_rewritten_in_history() -> None:
    """Only Function.apply records a grad_fn, only autograd/history.py
    rewrites one (in-place operations, views, detach_)."""
    import pathlib
    import re

    package = pathlib.Path(st.__file__).parent
    writers = set()
    for path in package.rglob("*.py"):
        text = path.read_text()
        if re.search(r"\._set_history\(|\._grad_fn = (?!None$)", text, re.M):
            writers.add(path.relative_to(package).as_posix())
    # _tensor_autograd.py defines _set_history; function.py records, history.py
    # rewrites.
    allowed = {"_tensor_autograd.py", "autograd/function.py", "autograd/history.py"}
    assert writers <= allowed
    assert {"autograd/function.py", "autograd/history.py"} <= writers


def test_a_deep_graph_is_freed_one_node_after_another() -> None:
    """Dropping a 20,000-deep chain frees every node without nested frees.

    Nested frees, one per node, overflow the small stack of the browser's
    Python; the engine queues a dying node's parts instead. Python-level
    frames during the free never nest more than a few deep.
    """
    x = st.tensor([1.0], requires_grad=True)
    h = x
    for _ in range(20_000):
        h = h * 1.0001
    last, first = weakref.ref(h.grad_fn), weakref.ref(x._grad_accumulator)
    depth = deepest = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal depth, deepest
        if frame.f_code.co_name != "__del__":
            return
        depth += 1 if event == "call" else -1 if event == "return" else 0
        deepest = max(deepest, depth)

    sys.setprofile(profile)
    try:
        del h
    finally:
        sys.setprofile(None)
    assert last() is None and first() is not None  # x keeps its accumulator
    assert 1 <= deepest <= 2


def test_freeing_every_kind_of_node_raises_nothing() -> None:
    """Nodes the engine makes itself (``CopySlices``, ``AccumulateGrad``) are
    freed through the same queue as the nodes of operations."""
    unraisable: list[Any] = []
    previous, sys.unraisablehook = sys.unraisablehook, unraisable.append
    try:
        a = st.ones(3, requires_grad=True) * 2
        view = a[:2]
        view.mul_(3)
        assert type(a.grad_fn).__name__ == "CopySlices"
        a.sum().backward()
        del a, view
        gc.collect()
    finally:
        sys.unraisablehook = previous
    assert unraisable == []
