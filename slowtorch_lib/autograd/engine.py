"""The backward pass: walking the graph from the output back to the leaves.

The whole algorithm:

1. Sort the graph's nodes so that every node comes before the nodes it sends
   gradients to (:func:`topological_order`, a depth-first search written
   with an explicit stack, so long chains cannot overflow Python's stack).
2. Visit the nodes in that order (:func:`run_backward`). Each node receives
   the *sum* of all the gradients sent to it, calls its ``backward`` and
   sends one gradient to each of its inputs.
3. A gradient is shaped to fit the input it is sent to: summed over the
   dimensions that broadcasting stretched, and cast to the input's dtype.
   This is done here, once, rather than in every operation.
4. At a leaf, an :class:`~slowtorch_lib.autograd.function.AccumulateGrad`
   node adds the gradient to the leaf's ``.grad``.

:func:`backward` runs that loop over the whole graph. :func:`grad` runs it
over the part of the graph that leads to the inputs asked for, and catches
the gradients that arrive there with temporary hooks instead of adding them
to any ``.grad``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from slowtorch_lib._creation import zeros_like
from slowtorch_lib._hooks import RemovableHandle
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import (
    Edge,
    Meta,
    Node,
    TensorHook,
    accumulate_grad,
    gradient_edge,
)
from slowtorch_lib.autograd.grad_mode import set_grad_enabled

# The loop's own helpers (sending, fitting a gradient, a node's hooks) are
# left out: only run_backward uses them.
__all__ = [
    "backward",
    "grad",
    "run_backward",
    "topological_order",
]

Tensors = Tensor | Sequence[Tensor]
Gradients = list[Tensor | None]  # one slot per output of a node
Pending = dict[Node, Gradients]


def topological_order(roots: Iterable[Node]) -> list[Node]:
    """All nodes reachable from ``roots``, each before the nodes it feeds.

    A node feeds the nodes in its ``next_functions``: in the backward pass
    it must run, and pass its gradients on, before they run. The search is
    depth-first with an explicit stack; a node is appended once all of its
    next functions are done, and the list is reversed at the end.
    """
    order: list[Node] = []
    visited: set[int] = set()
    for root in roots:
        if id(root) in visited:
            continue
        visited.add(id(root))
        stack = [(root, iter(root.next_functions))]
        while stack:
            node, children = stack[-1]
            for child, _ in children:
                if child is not None and id(child) not in visited:
                    visited.add(id(child))
                    stack.append((child, iter(child.next_functions)))
                    break
            else:
                stack.pop()
                order.append(node)
    order.reverse()
    return order


def run_backward(
    roots: list[Edge],
    root_grads: list[Tensor],
    order: list[Node],
    retain_graph: bool,
) -> Pending:
    """The backward pass: each node of ``order`` turns the gradients of its
    outputs into gradients of its inputs and sends them on.

    ``order`` has each node before the nodes it sends gradients to (it is
    ``topological_order`` of the roots' nodes, or a part of it), so a node
    runs only once all of its gradients are in. Whether the pass itself is
    recorded (``create_graph``) is up to the grad mode the caller sets.
    Returns the gradients that were sent to nodes outside ``order``.
    """
    pending: Pending = {}  # what has arrived at each node, summed
    for edge, root_grad in zip(roots, root_grads):
        send(pending, edge, root_grad)
    for node in order:
        grad_outputs = pending.pop(node, None)
        if grad_outputs is None:
            continue  # no gradient reached this node
        grad_outputs = call_tensor_hooks(node, grad_outputs)
        grad_outputs = call_pre_hooks(node, grad_outputs)
        grad_inputs = node.apply(*grad_outputs)
        grad_inputs = call_post_hooks(node, grad_inputs, grad_outputs)
        if not retain_graph:
            node.release_saved()
        for (next_node, output_nr), grad_input, meta in zip(
            node.next_functions, grad_inputs, node.input_meta
        ):
            if next_node is not None and grad_input is not None:
                fitted = fit_gradient(grad_input, meta, node)
                send(pending, (next_node, output_nr), fitted)
    return pending


def send(pending: Pending, edge: Edge, gradient: Tensor) -> None:
    """Adds ``gradient`` to what waits at ``edge``: gradients that meet are summed."""
    node, output_nr = edge
    slots = pending.get(node)
    if slots is None:
        slots = pending[node] = [None] * node.num_outputs
    waiting = slots[output_nr]
    slots[output_nr] = gradient if waiting is None else waiting + gradient


def fit_gradient(gradient: Tensor, meta: Meta | None, node: Node) -> Tensor:
    """Shapes a gradient like the input it is for: undoes broadcasting, casts.

    If the forward pass broadcast an input of shape ``(3, 1)`` to
    ``(2, 3, 4)``, the gradient arriving for it has shape ``(2, 3, 4)``; each
    input element was used 2 * 4 times, so its gradient is the sum over the
    stretched dimensions.
    """
    assert meta is not None  # the input requires grad, so it has its meta
    shape, dtype = meta
    if gradient._shape != shape:
        try:
            gradient = gradient.sum_to_size(shape)
        except RuntimeError:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient - got "
                f"{list(gradient._shape)} but expected shape compatible with "
                f"{list(shape)}"
            ) from None
    if gradient.dtype.is_complex and not dtype.is_complex:
        gradient = gradient.real  # a real input: the real part, as PyTorch
    if gradient.dtype is not dtype:
        gradient = gradient.to(dtype)
    return gradient


# ----------------------------------------------------------------------
# Hooks
# ----------------------------------------------------------------------


def call_tensor_hooks(node: Node, grad_outputs: Gradients) -> Gradients:
    """Runs the hooks of the tensors ``node`` made, on their gradients.

    First each tensor's own hooks (``register_hook``), in order, each able
    to replace the gradient; then ``retain_grad`` keeps what is left.
    """
    if not node.tensor_hooks and not node.retain_grad_hooks:
        return grad_outputs
    for output_nr, hooks in (node.tensor_hooks or {}).items():
        for hook in list(hooks.values()):
            gradient = grad_outputs[output_nr]
            if gradient is not None:
                replaced = hook(gradient)
                if replaced is not None:
                    grad_outputs[output_nr] = replaced
    for output_nr, keep in (node.retain_grad_hooks or {}).items():
        gradient = grad_outputs[output_nr]
        if gradient is not None:
            keep(gradient)
    return grad_outputs


def call_pre_hooks(node: Node, grad_outputs: Gradients) -> Gradients:
    """Runs the node's pre-hooks; each may replace all the gradients."""
    for hook in list(node.pre_hooks.values()) if node.pre_hooks else ():
        replaced = hook(tuple(grad_outputs))
        if replaced is not None:
            grad_outputs = list(replaced)
    return grad_outputs


def call_post_hooks(
    node: Node, grad_inputs: tuple[Tensor | None, ...], grad_outputs: Gradients
) -> tuple[Tensor | None, ...]:
    """Runs the node's post-hooks; each may replace the gradients sent on."""
    for hook in list(node.post_hooks.values()) if node.post_hooks else ():
        replaced = hook(grad_inputs, tuple(grad_outputs))
        if replaced is not None:
            grad_inputs = tuple(replaced)
    return grad_inputs


def register_tensor_hook(tensor: Tensor, hook: TensorHook) -> RemovableHandle:
    """Registers ``hook(grad)`` to run when the gradient of ``tensor`` is ready.

    The hook is kept by the node the gradient arrives at: the tensor's
    ``grad_fn``, or a leaf's ``AccumulateGrad``.

    Raises:
        RuntimeError: If the tensor does not require grad.
    """
    if not tensor.requires_grad:
        raise RuntimeError(
            "cannot register a hook on a tensor that doesn't require gradient"
        )
    node, output_nr = gradient_edge(tensor)
    assert node is not None  # the tensor requires grad
    return node.add_tensor_hook(output_nr, hook)


def retain_grad(tensor: Tensor) -> None:
    """Makes a non-leaf tensor keep its gradient in ``.grad``, as leaves do."""
    if not tensor.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if tensor.is_leaf or tensor._retains_grad:
        return

    def keep(gradient: Tensor) -> None:
        accumulate_grad(tensor, gradient)

    node = tensor.grad_fn
    assert node is not None  # not a leaf, checked above
    if node.retain_grad_hooks is None:
        node.retain_grad_hooks = {}
    node.retain_grad_hooks[tensor._output_nr] = keep
    tensor._retains_grad = True


# ----------------------------------------------------------------------
# backward() and grad()
# ----------------------------------------------------------------------


def backward(
    tensors: Tensors,
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensors | None = None,
) -> None:
    """Adds the gradients of ``tensors`` to the ``.grad`` of the leaves.

    Args:
        tensors: The outputs to differentiate (usually one scalar loss).
        grad_tensors: d(something)/d(output) for each output. May be left
            out for a scalar output, where it is 1.
        retain_graph: Keep the saved tensors so that the graph can be walked
            again. Defaults to ``create_graph``.
        create_graph: Record the backward pass itself, so that the gradients
            can be differentiated again (higher-order gradients).
        inputs: Accumulate only into these tensors' ``.grad``.

    Raises:
        RuntimeError: If an output does not require grad, or a non-scalar
            output is given no gradient.
    """
    outputs = _as_tuple(tensors)
    grads = _initial_gradients(outputs, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    roots = [_root_edge(t, i) for i, t in enumerate(outputs)]
    if inputs is None:
        order = topological_order(node for node, _ in roots)
        with set_grad_enabled(create_graph):
            run_backward(roots, grads, order, retain_graph)
        return
    targets = _as_tuple(inputs)
    edges = [gradient_edge(t) for t in targets]
    results = _captured_gradients(roots, grads, edges, retain_graph, create_graph)
    with set_grad_enabled(create_graph):
        for target, result in zip(targets, results):
            if result is not None:
                accumulate_grad(target, result)
            if not target.is_leaf:
                retain_grad(target)  # as torch: later passes fill its .grad too


def grad(
    outputs: Tensors,
    inputs: Tensors,
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """Returns the gradients of ``outputs`` with respect to ``inputs``.

    Unlike :func:`backward` it touches no ``.grad``: the gradients are
    returned. With ``create_graph=True`` they are part of a new graph and can
    be differentiated again.

    With ``materialize_grads=True`` an input that the outputs do not
    depend on gets a gradient of zeros instead of ``None``.

    Raises:
        RuntimeError: If an input was not used to compute the outputs and
            neither ``allow_unused`` nor ``materialize_grads`` is set.
    """
    output_tuple = _as_tuple(outputs)
    input_tuple = _as_tuple(inputs)
    grads = _initial_gradients(output_tuple, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    for tensor in input_tuple:
        if not tensor.requires_grad:
            raise RuntimeError(
                "One of the differentiated Tensors does not require grad"
            )
    roots = [_root_edge(t, i) for i, t in enumerate(output_tuple)]
    edges = [gradient_edge(t) for t in input_tuple]
    results = _captured_gradients(roots, grads, edges, retain_graph, create_graph)
    for index, result in enumerate(results):
        if result is None and materialize_grads:
            results[index] = zeros_like(input_tuple[index])
        elif result is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {index} appears to not have "
                "been used in the graph. Set allow_unused=True if this is the "
                "desired behavior."
            )
    return tuple(results)


def _captured_gradients(
    roots: list[Edge],
    root_grads: list[Tensor],
    edges: list[Edge],
    retain_graph: bool,
    create_graph: bool,
) -> list[Tensor | None]:
    """The gradients that arrive at ``edges``, without touching any ``.grad``.

    Only the nodes that lead to one of the edges' nodes run: nothing beyond
    them, and no ``AccumulateGrad``. A temporary hook on each edge catches
    its gradient once the tensor's own hooks have run. An edge's node that
    leads nowhere wanted does not run itself: its gradients are left over
    by the loop, and only its tensor hooks (with the catching hook) run.
    """
    wanted = {node for node, _ in edges}
    order = topological_order(node for node, _ in roots)
    needed = _nodes_leading_to(order, wanted)
    captured: list[Tensor | None] = [None] * len(edges)
    handles = [
        node.add_tensor_hook(output_nr, _catcher(captured, index))
        for index, (node, output_nr) in enumerate(edges)
    ]
    try:
        with set_grad_enabled(create_graph):
            pruned = [node for node in order if node in needed]
            left_over = run_backward(roots, root_grads, pruned, retain_graph)
            for node in order:  # in the engine's order, as the loop would
                if node in wanted and node in left_over:
                    call_tensor_hooks(node, left_over[node])
    finally:
        for handle in handles:
            handle.remove()
    return captured


def _catcher(captured: list[Tensor | None], index: int) -> TensorHook:
    """A tensor hook that stores the gradient it sees in ``captured[index]``."""

    def catch(gradient: Tensor) -> None:
        captured[index] = gradient

    return catch


def _nodes_leading_to(order: list[Node], wanted: set[Node]) -> set[Node]:
    """The nodes that must run so that gradients reach the ``wanted`` nodes.

    ``order`` has every node before the nodes it feeds, so walking it
    backwards sees a node's inputs before the node: a node is needed if one
    of its next functions is wanted or needed.
    """
    needed: set[Node] = set()
    for node in reversed(order):
        for child, _ in node.next_functions:
            if child is not None and (child in wanted or child in needed):
                needed.add(node)
                break
    return needed


def _as_tuple(tensors: Tensors) -> tuple[Tensor, ...]:
    return (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)


def _root_edge(tensor: Tensor, index: int) -> Edge:
    if not tensor.requires_grad:
        raise RuntimeError(
            f"element {index} of tensors does not require grad and does not have "
            "a grad_fn"
        )
    return gradient_edge(tensor)


def _initial_gradients(
    outputs: tuple[Tensor, ...],
    given: Tensor | Sequence[Tensor | None] | None,
) -> list[Tensor]:
    """The gradient each output starts with: the one given, or 1 for a scalar."""
    if given is None:
        given_list: list[object] = [None] * len(outputs)
    elif isinstance(given, (list, tuple)):
        given_list = list(given)
    else:  # one gradient (a tensor, or what is refused below)
        given_list = [given]
    grads = []
    for index, (output, gradient) in enumerate(zip(outputs, given_list)):
        if gradient is None:
            if output.numel() != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs"
                )
            gradient = from_values([1.0], output._shape, output.dtype)
        elif not isinstance(gradient, Tensor):
            raise TypeError(
                "gradients can be either Tensors or None, but got "
                f"{type(gradient).__name__}"
            )
        elif gradient._shape != output._shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{index}] has a shape of "
                f"{gradient.shape!r} and output[{index}] has a shape of "
                f"{output.shape!r}."
            )
        grads.append(gradient)
    return grads


# At the end: the operations import the autograd package.
