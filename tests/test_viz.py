"""Pictures of the graph: make_dot, graph_text, backward_steps."""

from __future__ import annotations

import shutil
import sys
from typing import Any

import pytest

import slowtorch_lib as st
from slowtorch_lib import viz
from slowtorch_lib.autograd.engine import topological_order
from slowtorch_lib.autograd.function import AccumulateGrad


def small_graph() -> tuple[st.Tensor, dict[str, st.Tensor]]:
    """loss = (x * w + x).sum(): x is used twice."""
    x = st.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = st.tensor([2.0, 2.0, 2.0], requires_grad=True)
    return (x * w + x).sum(), {"x": x, "w": w}


needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="the Graphviz dot program is not installed"
)


# ----------------------------------------------------------------------
# graph_text
# ----------------------------------------------------------------------


def test_graph_text() -> None:
    loss, params = small_graph()
    assert viz.graph_text(loss, params) == (
        "SumBackward0\n"
        "└── AddBackward0\n"
        "    ├── MulBackward0\n"
        "    │   ├── x (3,) (AccumulateGrad)\n"
        "    │   └── w (3,) (AccumulateGrad)\n"
        "    └── x (3,) (AccumulateGrad)"
    )


def test_graph_text_marks_shared_nodes_and_unnamed_leaves() -> None:
    x = st.tensor([1.0, 2.0], requires_grad=True)
    shared = x.exp()
    text = viz.graph_text((shared * shared).sum())
    assert text.splitlines() == [
        "SumBackward0",
        "└── MulBackward0",
        "    ├── ExpBackward0",
        "    │   └── leaf (2,) (AccumulateGrad)",
        "    └── ExpBackward0 (see above)",
    ]


def test_graph_text_of_a_leaf() -> None:
    x = st.tensor([1.0], requires_grad=True)
    assert viz.graph_text(x, {"x": x}) == "x (1,) (leaf, requires grad)"


def test_graph_text_of_a_long_chain_does_not_recurse() -> None:
    x = st.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(3000):
        y = y * 1.0
    assert len(viz.graph_text(y).splitlines()) == 3001


# ----------------------------------------------------------------------
# make_dot
# ----------------------------------------------------------------------


def test_make_dot_nodes_edges_and_labels() -> None:
    pytest.importorskip("graphviz")
    loss, params = small_graph()
    source = viz.make_dot(loss, params).source
    order = topological_order([loss.grad_fn])
    for number, node in enumerate(order):
        if isinstance(node, AccumulateGrad):
            name = "x" if node.variable is params["x"] else "w"
            assert f'n{number} [label="{name}\n(3,)"' in source
        else:
            assert f"n{number} [label={node.name()}" in source
    # Edges follow the forward pass: from the leaves towards the output.
    x_id = f"n{order.index(loss.grad_fn.next_functions[0][0].next_functions[1][0])}"
    add_id = f"n{order.index(loss.grad_fn.next_functions[0][0])}"
    assert f"{x_id} -> {add_id}" in source
    assert "n0 -> n5" in source  # SumBackward0 -> the output box
    assert 'n5 [label="output\n()"' in source


def test_make_dot_is_the_same_on_every_run() -> None:
    pytest.importorskip("graphviz")
    first = viz.make_dot(small_graph()[0]).source
    second = viz.make_dot(small_graph()[0]).source
    assert first == second


def test_make_dot_of_several_outputs() -> None:
    pytest.importorskip("graphviz")
    x = st.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    first, second = x.split(2)
    source = viz.make_dot((first, second), {"x": x}).source
    # One SplitBackward0 node (n0) feeding both output boxes.
    assert source.count("label=SplitBackward0") == 1
    assert 'n2 [label="output 0\n(2,)"' in source
    assert 'n3 [label="output 1\n(2,)"' in source
    assert "n0 -> n2" in source and "n0 -> n3" in source


def test_make_dot_values_and_grads() -> None:
    pytest.importorskip("graphviz")
    loss, params = small_graph()
    loss.backward(retain_graph=True)
    source = viz.make_dot(loss, params, show_values=True, show_grads=True).source
    assert "value [1, 2, 3]" in source
    assert "grad [3, 3, 3]" in source
    assert "value 18" in source


def test_make_dot_values_and_grads_of_named_intermediate_results() -> None:
    pytest.importorskip("graphviz")
    x = st.tensor([1.0, 2.0], requires_grad=True)
    w = st.tensor([3.0, -1.0], requires_grad=True)
    h = x * w
    h.retain_grad()
    loss = (h + x).sum()
    loss.retain_grad()
    loss.backward()
    source = viz.make_dot(
        loss, {"x": x, "w": w, "h": h}, show_values=True, show_grads=True
    ).source
    # h is drawn inside the oval of the node that made it, with its value
    # and the gradient it kept.
    assert 'label="MulBackward0\nh\n(2,)\nvalue [3, -2]\ngrad [1, 1]"' in source
    assert "value [1, 2]\ngrad [4, 0]" in source  # x: w + 1
    assert "value [3, -1]\ngrad [1, 2]" in source  # w: x
    assert "value 4\ngrad 1" in source  # the output retained its grad too


def test_make_dot_shows_no_grad_line_for_tensors_that_keep_none() -> None:
    pytest.importorskip("graphviz")
    x = st.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    loss = h.sum()
    loss.backward()
    source = viz.make_dot(loss, {"x": x, "h": h}, show_grads=True).source
    assert 'MulBackward0\nh\n(2,)"' in source  # no grad: h did not retain it
    assert "grad [2, 2]" in source  # the leaf's


def test_make_dot_hides_values_of_large_tensors() -> None:
    pytest.importorskip("graphviz")
    x = st.ones(5, 5, requires_grad=True)
    source = viz.make_dot(x.sum(), {"x": x}, show_values=True).source
    assert "value [" not in source


@needs_dot
def test_make_dot_renders() -> None:
    pytest.importorskip("graphviz")
    svg = viz.make_dot(small_graph()[0]).pipe(format="svg").decode()
    assert "<svg" in svg and "MulBackward0" in svg


# ----------------------------------------------------------------------
# graph_description: the drawing's text alternative
# ----------------------------------------------------------------------


def test_graph_description_says_every_node_and_edge() -> None:
    loss, params = small_graph()
    assert viz.graph_description(loss, params) == (
        "A computation graph of 5 nodes. Leaves: x (3,), w (3,). "
        "MulBackward0 takes x (3,) and w (3,). "
        "AddBackward0 takes MulBackward0 and x (3,). "
        "SumBackward0 takes AddBackward0. "
        "The output () comes from SumBackward0."
    )


def test_graph_description_numbers_nodes_that_share_a_name() -> None:
    x = st.tensor([0.5, 0.5], requires_grad=True)
    y = x * 2
    y = y * 2
    text = viz.graph_description(y.sum(), {"x": x})
    assert "MulBackward0 #1 takes x (2,)." in text
    assert "MulBackward0 #2 takes MulBackward0 #1." in text
    assert "SumBackward0 takes MulBackward0 #2." in text


def test_graph_description_of_several_outputs_and_a_leaf() -> None:
    x = st.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    first, second = x.split(2)
    text = viz.graph_description((first, second), {"x": x})
    assert text.endswith(
        "Output 0 (2,) comes from SplitBackward0. "
        "Output 1 (2,) comes from SplitBackward0."
    )
    assert viz.graph_description(x, {"x": x}).endswith("x (4,) is a leaf.")


def test_graph_description_of_a_large_graph_counts_its_nodes() -> None:
    x = st.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(60):
        y = y * 1.0
    text = viz.graph_description(y.exp())
    assert text.startswith("A computation graph of 62 nodes. ")
    assert "1 leaf and 60 MulBackward0, 1 ExpBackward0." in text


@needs_dot
def test_make_dot_titles_its_drawing_with_the_description() -> None:
    pytest.importorskip("graphviz")
    loss, params = small_graph()
    svg = viz.make_dot(loss, params).pipe(format="svg").decode()
    description = viz.graph_description(loss, params)
    assert 'class="graph"' in svg
    assert f"<title>{description}</title>" in svg


def test_missing_graphviz_package(monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match="pip install graphviz"):
        viz.make_dot(small_graph()[0])


def test_missing_dot_program(monkeypatch: Any) -> None:
    pytest.importorskip("graphviz")
    monkeypatch.setattr(viz.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="'dot' program"):
        viz.make_dot(small_graph()[0])


# ----------------------------------------------------------------------
# backward_steps
# ----------------------------------------------------------------------


def test_backward_steps_follow_the_engine_order() -> None:
    loss, params = small_graph()
    steps = viz.backward_steps(loss, params=params)
    assert [step.node for step in steps] == topological_order([loss.grad_fn])
    assert [step.name for step in steps] == [
        "SumBackward0",
        "AddBackward0",
        "MulBackward0",
        "w (3,)",
        "x (3,)",
    ]
    assert [step.index for step in steps] == [0, 1, 2, 3, 4]


def test_backward_steps_record_the_gradients() -> None:
    loss, params = small_graph()
    steps = viz.backward_steps(loss, params=params)
    assert steps[0].grad_outputs[0].tolist() == 1.0
    mul = steps[2]
    assert [g.tolist() for g in mul.grad_inputs] == [[2.0, 2.0, 2.0], [1.0, 2.0, 3.0]]
    # x receives the sum of its two paths: w + 1.
    assert steps[4].grad_outputs[0].tolist() == [3.0, 3.0, 3.0]
    assert steps[4].grad_inputs == []


def test_backward_steps_leave_grads_and_graph_alone() -> None:
    loss, params = small_graph()
    viz.backward_steps(loss)
    assert params["x"].grad is None and params["w"].grad is None
    loss.backward()  # the graph was retained and the hooks were removed
    assert params["x"].grad.tolist() == [3.0, 3.0, 3.0]
    assert not loss.grad_fn.post_hooks


def test_backward_steps_of_a_non_scalar_with_gradient() -> None:
    x = st.tensor([1.0, 2.0], requires_grad=True)
    steps = viz.backward_steps(x * 3, gradient=st.tensor([1.0, -1.0]))
    assert [s.name for s in steps] == ["MulBackward0", "leaf (2,)"]
    assert steps[1].grad_outputs[0].tolist() == [3.0, -3.0]
