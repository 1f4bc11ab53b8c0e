"""Pictures of the autograd graph: as a Graphviz drawing, as text, step by step.

Every tensor made by a recorded operation has a ``grad_fn``: a node whose
``next_functions`` lead to the nodes of its inputs, down to the leaves. This
module walks that graph, always with the engine's own
:func:`~slowtorch_lib.autograd.engine.topological_order`, so the pictures
show exactly the nodes, and the order, that ``backward`` uses.

* :func:`make_dot` draws it with Graphviz (optional: ``pip install graphviz``
  plus the ``dot`` program).
* :func:`graph_text` prints it as an indented tree, anywhere.
* :func:`graph_description` says it in sentences: the text alternative of
  :func:`make_dot`'s drawing, which carries it as its title.
* :func:`backward_steps` runs a backward pass and records, node by node, the
  gradients that arrive and the gradients sent on.

Node ids are numbers given in traversal order (``n0``, ``n1``, ...), so the
same graph gives the same picture on every run.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from slowtorch_lib._tensor import Tensor
from slowtorch_lib.autograd import engine
from slowtorch_lib.autograd.engine import grad, register_tensor_hook
from slowtorch_lib.autograd.function import AccumulateGrad, Node

__all__ = [
    "BackwardStep",
    "backward_steps",
    "graph_description",
    "graph_text",
    "make_dot",
]


# ----------------------------------------------------------------------
# Labels
# ----------------------------------------------------------------------


def _shape_text(tensor: Tensor) -> str:
    """``(2, 3)``, ``(3,)`` or ``()``: the shape as a tuple."""
    return str(tuple(tensor.shape))


def _values_text(tensor: Tensor) -> str:
    """The elements as nested lists, floats with 4 significant digits."""

    def fmt(value: Any) -> str:
        if isinstance(value, list):
            return "[" + ", ".join(fmt(v) for v in value) + "]"
        if isinstance(value, float):
            return f"{value:.4g}"
        return str(value)

    return fmt(tensor.tolist())


def _leaf_name(tensor: Tensor, params: Mapping[str, Tensor] | None) -> str:
    """The name ``params`` gives to ``tensor`` (compared by identity), or ``''``."""
    for name, candidate in (params or {}).items():
        if candidate is tensor:
            return name
    return ""


def _tensor_label(
    tensor: Tensor,
    name: str,
    show_values: bool,
    show_grads: bool,
    max_elements: int,
) -> str:
    """A leaf or output box: name, shape, and optionally values and gradient."""
    lines = [name] if name else []
    lines.append(_shape_text(tensor))
    small = tensor.numel() <= max_elements
    if show_values and small:
        lines.append("value " + _values_text(tensor))
    # Only leaves and tensors that called retain_grad() ever get a .grad.
    if show_grads and small and (tensor.is_leaf or tensor.retains_grad):
        gradient = tensor._grad
        lines.append("grad " + ("None" if gradient is None else _values_text(gradient)))
    return "\n".join(lines)


def _named_outputs(
    node: Node, params: Mapping[str, Tensor] | None
) -> list[tuple[str, Tensor]]:
    """The tensors of ``params`` that ``node`` made (named intermediate results)."""
    return [
        (name, tensor)
        for name, tensor in (params or {}).items()
        if tensor.grad_fn is node
    ]


def _nodes_and_ids(outputs: Sequence[Tensor]) -> tuple[list[Node], dict[Node, str]]:
    """The graph's nodes in backward order, with ids ``n0, n1, ...``."""
    order = engine.topological_order(
        [t.grad_fn for t in outputs if t.grad_fn is not None]
    )
    return order, {node: f"n{number}" for number, node in enumerate(order)}


# ----------------------------------------------------------------------
# Graphviz drawing
# ----------------------------------------------------------------------


def _require_graphviz() -> Any:
    """Imports the ``graphviz`` package, or explains how to install it."""
    try:
        import graphviz  # type: ignore[import-untyped]
    except ImportError:
        raise ImportError(
            "make_dot needs the 'graphviz' Python package: pip install graphviz "
            "(and the Graphviz programs: apt install graphviz, brew install "
            "graphviz or conda install graphviz). viz.graph_text(output) draws "
            "the same graph as text without it."
        ) from None
    if shutil.which("dot") is None:
        raise RuntimeError(
            "make_dot needs the Graphviz 'dot' program, which is not on the PATH. "
            "Install Graphviz (apt install graphviz, brew install graphviz or "
            "conda install graphviz); viz.graph_text(output) works without it."
        )
    return graphviz


def make_dot(
    output: Tensor | Sequence[Tensor],
    params: Mapping[str, Tensor] | None = None,
    show_values: bool = False,
    show_grads: bool = False,
    max_elements: int = 16,
) -> Any:
    """Draws the graph that produced ``output`` as a ``graphviz.Digraph``.

    There is one box per leaf tensor (blue; named from ``params`` and with
    its shape), one oval per ``grad_fn`` (grey; PyTorch's name, such as
    ``MulBackward0``) and one box for ``output`` (green). Arrows point the
    way the forward pass went: from inputs to the operations that used them.
    The backward pass walks them the other way.

    As in micrograd's drawings, each tensor can show its value and its
    gradient: the leaves, the output, and any intermediate result named in
    ``params`` (written into the oval of the node that made it). Gradients
    exist for leaves and for tensors that called ``retain_grad()`` before
    the backward pass.

    Args:
        output: The tensor whose history is drawn, or a tuple of tensors.
        params: Names of tensors, such as ``dict(model.named_parameters())``
            or ``{"x": x, "w": w, "h": h}``: leaves, or intermediate results.
        show_values: Also print the values of small named tensors, leaves
            and the output.
        show_grads: Also print their ``.grad`` (leaves, retained tensors).
        max_elements: Tensors with more elements show their shape only.

    Returns:
        A ``graphviz.Digraph``; in Jupyter it displays itself. Its name, which
        Graphviz writes as the drawing's ``<title>``, is
        :func:`graph_description` of the same graph: a text alternative for
        readers who cannot see the picture.

    Raises:
        ImportError: If the ``graphviz`` package is not installed.
        RuntimeError: If the Graphviz ``dot`` program is not installed.
    """
    graphviz = _require_graphviz()
    outputs = [output] if isinstance(output, Tensor) else list(output)
    dot = graphviz.Digraph(
        name=graph_description(outputs, params),
        node_attr={
            "shape": "box",
            "style": "filled",
            "fontsize": "12",
            "fontname": "monospace",
            "height": "0.2",
        },
        graph_attr={"size": "12,12"},
    )
    order, ids = _nodes_and_ids(outputs)
    for node in order:
        if isinstance(node, AccumulateGrad):
            variable = node.variable
            label = _tensor_label(
                variable,
                _leaf_name(variable, params),
                show_values,
                show_grads,
                max_elements,
            )
            dot.node(ids[node], label, fillcolor="lightblue")
        else:
            label = node.name()
            for name, tensor in _named_outputs(node, params):
                label += "\n" + _tensor_label(
                    tensor, name, show_values, show_grads, max_elements
                )
            dot.node(ids[node], label, fillcolor="lightgrey", shape="ellipse")
    for node in order:
        for child, _ in node.next_functions:
            if child is not None:
                dot.edge(ids[child], ids[node])
    for number, tensor in enumerate(outputs):
        name = "output" if len(outputs) == 1 else f"output {number}"
        label = _tensor_label(
            tensor,
            _leaf_name(tensor, params) or name,
            show_values,
            show_grads,
            max_elements,
        )
        output_id = f"n{len(order) + number}"
        dot.node(output_id, label, fillcolor="darkolivegreen1")
        if tensor.grad_fn is not None:
            dot.edge(ids[tensor.grad_fn], output_id)
    return dot


# ----------------------------------------------------------------------
# The graph in sentences
# ----------------------------------------------------------------------

#: Graphs with more nodes are described by counting their nodes of each kind.
DESCRIBED_NODES = 40


def _node_names(
    order: Sequence[Node], params: Mapping[str, Tensor] | None
) -> dict[Node, str]:
    """A name for each node, numbered where several share one (``MulBackward0 #2``)."""
    plain: dict[Node, str] = {}
    for node in order:
        if isinstance(node, AccumulateGrad):
            variable = node.variable
            name = _leaf_name(variable, params) or "leaf"
            plain[node] = f"{name} {_shape_text(variable)}"
        else:
            plain[node] = node.name()
    forward = list(reversed(order))
    totals = {name: list(plain.values()).count(name) for name in plain.values()}
    seen: dict[str, int] = {}
    names = {}
    for node in forward:
        name = plain[node]
        seen[name] = seen.get(name, 0) + 1
        names[node] = f"{name} #{seen[name]}" if totals[name] > 1 else name
    return names


def graph_description(
    output: Tensor | Sequence[Tensor], params: Mapping[str, Tensor] | None = None
) -> str:
    """The graph that produced ``output`` in sentences, in forward order.

    It names the leaves, then says which inputs each operation takes, then
    which node gives each output: the text alternative of :func:`make_dot`'s
    drawing, made from the same nodes and edges. A graph of more than
    ``DESCRIBED_NODES`` nodes is summed up by counting the nodes of each kind.

    Example::

        A computation graph of 4 nodes. Leaves: x (3,), w (3,).
        MulBackward0 takes x (3,) and w (3,). AddBackward0 takes
        MulBackward0 and x (3,). SumBackward0 takes AddBackward0.
        The output () comes from SumBackward0.
    """
    outputs = [output] if isinstance(output, Tensor) else list(output)
    order, _ = _nodes_and_ids(outputs)
    names = _node_names(order, params)
    forward = list(reversed(order))
    sentences = [f"A computation graph of {len(order)} nodes."]
    leaves = [names[n] for n in forward if isinstance(n, AccumulateGrad)]
    if len(order) > DESCRIBED_NODES:
        kinds: dict[str, int] = {}
        for node in forward:
            if not isinstance(node, AccumulateGrad):
                kinds[node.name()] = kinds.get(node.name(), 0) + 1
        counted = ", ".join(f"{count} {kind}" for kind, count in kinds.items())
        leaf_word = "leaf" if len(leaves) == 1 else "leaves"
        sentences.append(f"{len(leaves)} {leaf_word} and {counted}.")
    else:
        if leaves:
            sentences.append("Leaves: " + ", ".join(leaves) + ".")
        for node in forward:
            inputs = [names[c] for c, _ in node.next_functions if c is not None]
            if not isinstance(node, AccumulateGrad):
                taken = " and ".join(inputs) if inputs else "no input with a gradient"
                sentences.append(f"{names[node]} takes {taken}.")
    for number, tensor in enumerate(outputs):
        label = _leaf_name(tensor, params) or (
            "The output" if len(outputs) == 1 else f"Output {number}"
        )
        shape = _shape_text(tensor)
        if tensor.grad_fn is None:
            sentences.append(f"{label} {shape} is a leaf.")
        else:
            sentences.append(f"{label} {shape} comes from {names[tensor.grad_fn]}.")
    return " ".join(sentences)


# ----------------------------------------------------------------------
# Text drawing
# ----------------------------------------------------------------------


def _node_text(node: Node, params: Mapping[str, Tensor] | None) -> str:
    if isinstance(node, AccumulateGrad):
        variable = node.variable
        name = _leaf_name(variable, params) or "leaf"
        return f"{name} {_shape_text(variable)} (AccumulateGrad)"
    return node.name()


def graph_text(output: Tensor, params: Mapping[str, Tensor] | None = None) -> str:
    """The graph that produced ``output`` as an indented tree of text.

    The root is the output's ``grad_fn``; below each node come the nodes of
    its inputs, in ``next_functions`` order. A node reached a second time
    (an input used twice) is written again with ``(see above)`` and not
    expanded, so the text stays as small as the graph. Inputs that need no
    gradient are left out, as in ``next_functions`` they are ``(None, 0)``.

    Example::

        SumBackward0
        └── MulBackward0
            ├── x (3,) (AccumulateGrad)
            └── w (3,) (AccumulateGrad)
    """
    if output.grad_fn is None:
        name = _leaf_name(output, params) or "tensor"
        flag = "requires grad" if output.requires_grad else "no grad"
        return f"{name} {_shape_text(output)} (leaf, {flag})"
    lines: list[str] = []
    seen: set[Node] = set()
    # Each entry: (node, prefix for its own line, prefix for its children).
    stack: list[tuple[Node, str, str]] = [(output.grad_fn, "", "")]
    while stack:
        node, own_prefix, child_prefix = stack.pop()
        text = _node_text(node, params)
        if node in seen and node.next_functions:
            lines.append(own_prefix + text + " (see above)")
            continue
        seen.add(node)
        lines.append(own_prefix + text)
        children = [child for child, _ in node.next_functions if child is not None]
        entries = []
        for number, child in enumerate(children):
            last = number == len(children) - 1
            own = child_prefix + ("└── " if last else "├── ")
            below = child_prefix + ("    " if last else "│   ")
            entries.append((child, own, below))
        stack.extend(reversed(entries))  # so that the first child is drawn first
    return "\n".join(lines)


# ----------------------------------------------------------------------
# A backward pass, step by step
# ----------------------------------------------------------------------


@dataclass
class BackwardStep:
    """What happens at one node of a backward pass.

    Attributes:
        index: Position in the order the engine visits the nodes.
        node: The graph node (a ``grad_fn`` or a leaf's ``AccumulateGrad``).
        name: The node's name, such as ``'MulBackward0'``; for a leaf, its
            name from ``params`` (or ``'leaf'``) and shape.
        grad_outputs: The gradients that arrived at the node (summed over all
            the paths that reach it), one per output of the node.
        grad_inputs: The gradients the node sends on, one per entry of
            ``next_functions`` (``None`` where nothing is sent). Empty for a
            leaf: its gradient is added to ``.grad``.
    """

    index: int
    node: Node
    name: str
    grad_outputs: list[Tensor | None] = field(default_factory=list)
    grad_inputs: list[Tensor | None] = field(default_factory=list)


def backward_steps(
    output: Tensor,
    gradient: Tensor | None = None,
    params: Mapping[str, Tensor] | None = None,
) -> list[BackwardStep]:
    """Runs a backward pass from ``output`` and records each node it visits.

    The pass is the engine's own (:func:`slowtorch_lib.autograd.grad` with
    ``retain_graph=True``), observed through hooks: it leaves every
    ``.grad`` unchanged and the graph usable. The steps come in the
    engine's order, :func:`~slowtorch_lib.autograd.engine.topological_order`:
    a node appears only once every gradient it receives has arrived.

    Args:
        output: Where the backward pass starts.
        gradient: The gradient of ``output``; may be left out for a scalar.
        params: Names for the leaves, as in :func:`make_dot`.

    Returns:
        One :class:`BackwardStep` per node, in the order they ran.
    """
    if not output.requires_grad:
        raise RuntimeError(
            "element 0 of tensors does not require grad and does not have a grad_fn"
        )
    steps: list[BackwardStep] = []
    roots = [output.grad_fn] if output.grad_fn is not None else []
    order = engine.topological_order(roots)
    leaves = [node.variable for node in order if isinstance(node, AccumulateGrad)]
    if output.grad_fn is None:
        leaves = [output]
    handles = []
    for node in order:
        if isinstance(node, AccumulateGrad):
            continue

        def record(grad_inputs: Any, grad_outputs: Any, node: Node = node) -> None:
            steps.append(
                BackwardStep(
                    len(steps), node, node.name(), list(grad_outputs), list(grad_inputs)
                )
            )

        handles.append(node.register_hook(record))
    for leaf in leaves:
        label = f"{_leaf_name(leaf, params) or 'leaf'} {_shape_text(leaf)}"

        def record_leaf(
            gradient: Tensor, leaf: Tensor = leaf, label: str = label
        ) -> None:
            node = leaf._grad_accumulator
            assert node is not None  # made when the backward pass reached the leaf
            steps.append(BackwardStep(len(steps), node, label, [gradient], []))

        handles.append(register_tensor_hook(leaf, record_leaf))
    try:
        grad(output, leaves, gradient, retain_graph=True, allow_unused=True)
    finally:
        for handle in handles:
            handle.remove()
    return steps
