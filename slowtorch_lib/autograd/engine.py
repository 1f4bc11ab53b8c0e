"""The backward pass: walking the graph from the output back to the leaves.

The whole algorithm:

1. Sort the graph's nodes so that every node comes before the nodes it sends
   gradients to (:func:`topological_order`, a depth-first search written
   with an explicit stack, so long chains cannot overflow Python's stack).
2. Visit the nodes in that order. Each node receives the *sum* of all the
   gradients sent to it, calls its ``backward`` and sends one gradient to
   each of its inputs.
3. A gradient is shaped to fit the input it is sent to: summed over the
   dimensions that broadcasting stretched, and cast to the input's dtype.
   This is done here, once, rather than in every operation.
4. At a leaf, an :class:`~slowtorch_lib.autograd.function.AccumulateGrad`
   node adds the gradient to the leaf's ``.grad``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib.autograd.function import (
    AccumulateGrad,
    FunctionCtx,
    Node,
    RemovableHandle,
    gradient_edge,
)
from slowtorch_lib.autograd.grad_mode import GRAD_MODE

__all__ = ["backward", "grad", "topological_order"]

Tensors = Tensor | Sequence[Tensor]
Edge = tuple[Node, int]
MaybeEdge = tuple[Node | None, int]
TensorHook = Callable[[Tensor], Tensor | None]


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
        _run(roots, grads, retain_graph, create_graph)
        return
    targets = _as_tuple(inputs)
    results = _run(roots, grads, retain_graph, create_graph, [gradient_edge(t) for t in targets])
    for target, result in zip(targets, results):
        if result is not None:
            _accumulate(target, result, create_graph)
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
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    roots = [_root_edge(t, i) for i, t in enumerate(output_tuple)]
    captures = [gradient_edge(t) for t in input_tuple]
    results = _run(roots, grads, retain_graph, create_graph, captures)
    for index, result in enumerate(results):
        if result is None and materialize_grads:
            results[index] = _zeros_like(input_tuple[index])
        elif result is None and not allow_unused:
            raise RuntimeError(
                f"The differentiated Tensor at index {index} appears to not have "
                "been used in the graph. Set allow_unused=True if this is the "
                "desired behavior."
            )
    return tuple(results)


def _run(
    roots: list[Edge],
    root_grads: list[Tensor],
    retain_graph: bool,
    create_graph: bool,
    captures: list[MaybeEdge] | None = None,
) -> list[Tensor | None]:
    """Runs the backward pass from ``roots``.

    Without ``captures`` the gradients end in the leaves' ``.grad``. With
    them, nothing is accumulated: the gradients arriving at those edges are
    returned instead, in order.
    """
    # Gradients waiting at each node, one slot per output of the node.
    pending: dict[Node, list[Tensor | None]] = {}
    for edge, root_grad in zip(roots, root_grads):
        _send(pending, edge, root_grad)
    captured: list[Tensor | None] = [None] * len(captures or ())
    wanted: dict[Node | None, list[tuple[int, int]]] = {}
    for index, (node, output_nr) in enumerate(captures or ()):
        wanted.setdefault(node, []).append((output_nr, index))

    order = topological_order(edge[0] for edge in roots)
    needed = None if captures is None else _leading_to(order, wanted)
    previous_mode = GRAD_MODE.enabled
    GRAD_MODE.enabled = create_graph
    try:
        for node in order:
            grad_outputs = pending.pop(node, None)
            if grad_outputs is None:
                continue  # no gradient reached this node
            grad_outputs = _call_tensor_hooks(node, grad_outputs)
            for output_nr, index in wanted.get(node, ()):
                captured[index] = grad_outputs[output_nr]
            if needed is not None and node not in needed:
                continue  # nothing asked for lies beyond this node
            if isinstance(node, AccumulateGrad):
                if captures is None:
                    gradient = grad_outputs[0]
                    assert gradient is not None  # a leaf has one output
                    _accumulate(node.variable, gradient, create_graph)
                continue
            grad_inputs = _call_node(node, grad_outputs)
            if not retain_graph and isinstance(node, FunctionCtx):
                node._free()
            for next_edge, grad_input, meta in zip(
                node.next_functions, grad_inputs, _input_meta(node)
            ):
                if next_edge[0] is not None and grad_input is not None:
                    fitted = _fit_gradient(grad_input, meta, node)
                    _send(pending, next_edge, fitted)  # type: ignore[arg-type]
    finally:
        GRAD_MODE.enabled = previous_mode
    return captured


def _leading_to(order: list[Node], wanted: dict[Node | None, Any]) -> set[Node]:
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


def _call_node(node: Node, grad_outputs: list[Tensor | None]) -> tuple[Tensor | None, ...]:
    """Runs one node's backward, with its hooks, and checks what it returns."""
    if isinstance(node, FunctionCtx):
        grad_outputs = _materialize(node, grad_outputs)
    for prehook in node.__dict__.get("_pre_hooks", ()):
        replaced = prehook(tuple(grad_outputs))
        if replaced is not None:
            grad_outputs = list(replaced)
    grad_inputs = node.apply(*grad_outputs)
    expected = len(node.next_functions)
    if len(grad_inputs) > expected and all(g is None for g in grad_inputs[expected:]):
        grad_inputs = grad_inputs[:expected]  # extra Nones are allowed, as in torch
    if len(grad_inputs) != expected:
        raise RuntimeError(
            f"function {node.name()} returned an incorrect number of gradients "
            f"(expected {len(node.next_functions)}, got {len(grad_inputs)})"
        )
    for hook in node.__dict__.get("_post_hooks", ()):
        replaced = hook(grad_inputs, tuple(grad_outputs))
        if replaced is not None:
            grad_inputs = tuple(replaced)
    return grad_inputs


def _materialize(node: FunctionCtx, grads: list[Tensor | None]) -> list[Tensor | None]:
    """Replaces a missing gradient of an output (never used) by zeros."""
    if not node.materialize_grads or all(g is not None for g in grads):
        return grads
    from slowtorch_lib._creation import zeros

    return [
        zeros(shape, dtype=d) if g is None else g
        for g, (shape, d) in zip(grads, node._output_meta)
    ]


def _send(pending: dict[Node, list[Tensor | None]], edge: Edge, gradient: Tensor) -> None:
    """Adds ``gradient`` to what waits at ``edge``: gradients that meet are summed."""
    node, output_nr = edge
    slots = pending.get(node)
    if slots is None:
        count = node._num_outputs if isinstance(node, FunctionCtx) else 1
        slots = pending[node] = [None] * count
    waiting = slots[output_nr]
    slots[output_nr] = gradient if waiting is None else waiting + gradient


def _fit_gradient(gradient: Tensor, meta: Any, node: Node) -> Tensor:
    """Shapes a gradient like the input it is for: undoes broadcasting, casts.

    If the forward pass broadcast an input of shape ``(3, 1)`` to
    ``(2, 3, 4)``, the gradient arriving for it has shape ``(2, 3, 4)``; each
    input element was used 2 * 4 times, so its gradient is the sum over the
    stretched dimensions.
    """
    shape, dtype = meta
    if gradient._shape != shape:
        from slowtorch_lib.ops.reduction import sum_to_size

        try:
            gradient = sum_to_size(gradient, shape)
        except RuntimeError:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient - got "
                f"{list(gradient._shape)} but expected shape compatible with "
                f"{list(shape)}"
            ) from None
    if gradient.dtype is not dtype:
        gradient = gradient.to(dtype)
    return gradient


def _input_meta(node: Node) -> tuple[Any, ...]:
    return node._input_meta if isinstance(node, FunctionCtx) else ()


def _accumulate(tensor: Tensor, gradient: Tensor, create_graph: bool) -> None:
    """Adds ``gradient`` to ``tensor.grad`` (the work of AccumulateGrad)."""
    current = tensor._grad
    if current is None:
        # Keep a copy of our own: the gradient may be a view of another tensor.
        tensor.grad = gradient if create_graph else _copy(gradient)
    elif create_graph:
        tensor.grad = current + gradient
    else:
        current._write_values((current + gradient)._values())


def _zeros_like(tensor: Tensor) -> Tensor:
    return from_values([0.0] * tensor.numel(), tensor._shape, tensor.dtype)


def _copy(tensor: Tensor) -> Tensor:
    from slowtorch_lib._kernels import contiguous_copy

    return contiguous_copy(tensor)


def _call_tensor_hooks(node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
    """Runs the hooks registered on the tensors that ``node`` produced."""
    if isinstance(node, AccumulateGrad):
        hooks = node.variable._hooks
        if hooks:
            grads = [_apply_hooks(hooks, grads[0])]
        return grads
    by_output: dict[int, list[TensorHook]] | None = node.__dict__.get("_tensor_hooks")
    if by_output:
        grads = list(grads)
        for output_nr, hooks in by_output.items():
            if grads[output_nr] is not None:
                grads[output_nr] = _apply_hooks(hooks, grads[output_nr])
    # retain_grad keeps the gradient as it is after all the other hooks.
    keepers: dict[int, TensorHook] | None = node.__dict__.get("_retain_grad_hooks")
    if keepers:
        for output_nr, keep in keepers.items():
            if grads[output_nr] is not None:
                keep(grads[output_nr])  # type: ignore[arg-type]
    return grads


def _apply_hooks(hooks: list[TensorHook], gradient: Tensor | None) -> Tensor | None:
    for hook in hooks:
        replaced = hook(gradient)  # type: ignore[arg-type]
        if replaced is not None:
            gradient = replaced
    return gradient


def register_tensor_hook(tensor: Tensor, hook: TensorHook) -> RemovableHandle:
    """Registers ``hook(grad)`` to run when the gradient of ``tensor`` is ready.

    Raises:
        RuntimeError: If the tensor does not require grad.
    """
    if not tensor.requires_grad:
        raise RuntimeError(
            "cannot register a hook on a tensor that doesn't require gradient"
        )
    node = tensor.grad_fn
    if node is None:
        if tensor._hooks is None:
            tensor._hooks = []
        hooks = tensor._hooks
    else:
        hooks = node.__dict__.setdefault("_tensor_hooks", {}).setdefault(
            tensor._output_nr, []
        )
    hooks.append(hook)
    return RemovableHandle(hooks, hook)


def retain_grad(tensor: Tensor) -> None:
    """Makes a non-leaf tensor keep its gradient in ``.grad``, as leaves do."""
    if not tensor.requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if tensor.is_leaf or tensor._retains_grad:
        return

    def keep(gradient: Tensor) -> None:
        _accumulate(tensor, gradient, GRAD_MODE.enabled)

    node = tensor.grad_fn
    assert node is not None  # not a leaf, checked above
    node.__dict__.setdefault("_retain_grad_hooks", {})[tensor._output_nr] = keep
    tensor._retains_grad = True


def _as_tuple(tensors: Tensors) -> tuple[Tensor, ...]:
    return (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)


def _root_edge(tensor: Tensor, index: int) -> Edge:
    if not tensor.requires_grad:
        raise RuntimeError(
            f"element {index} of tensors does not require grad and does not have "
            "a grad_fn"
        )
    return gradient_edge(tensor)  # type: ignore[return-value]


def _initial_gradients(
    outputs: tuple[Tensor, ...],
    given: Tensor | Sequence[Tensor | None] | None,
) -> list[Tensor]:
    """The gradient each output starts with: the one given, or 1 for a scalar."""
    if given is None:
        given_list: list[Tensor | None] = [None] * len(outputs)
    elif isinstance(given, Tensor):
        given_list = [given]
    else:
        given_list = list(given)
    grads = []
    for index, (output, gradient) in enumerate(zip(outputs, given_list)):
        if gradient is None:
            if output.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            gradient = from_values([1.0], output._shape, output.dtype)
        elif gradient._shape != output._shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{index}] has a shape of "
                f"{gradient.shape!r} and output[{index}] has a shape of "
                f"{output.shape!r}."
            )
        grads.append(gradient)
    return grads
