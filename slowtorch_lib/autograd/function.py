"""Differentiable operations and the graph nodes they leave behind.

Every operation in the engine is a :class:`Function`: a class with a
``forward`` that computes a result and a ``backward`` that, given the gradient
of the loss with respect to that result, returns the gradient with respect to
each input. :meth:`Function.apply` runs ``forward`` and, when any input
requires grad, records a :class:`Node` in the graph: the result's
``grad_fn``. The node is also the ``ctx`` that ``forward`` saved things in.

History is recorded here, in :meth:`Function.apply`, and nowhere else. It is
rewritten only by in-place operations, in :mod:`.history`, and walked
backwards only in :mod:`.engine`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Optional

from slowtorch_lib._creation import zeros
from slowtorch_lib._hooks import RemovableHandle, add_hook
from slowtorch_lib._tensor import Tensor
from slowtorch_lib._tensor_kernels import contiguous_copy
from slowtorch_lib.autograd.grad_mode import GRAD_MODE

if TYPE_CHECKING:
    from slowtorch_lib._dtype import dtype

__all__ = [
    "AccumulateGrad",
    "Function",
    "FunctionCtx",
    "Node",
    "accumulate_grad",
    "check_saved_versions",
    "clear_grads",
    "gradient_edge",
]

# Where a gradient goes: a node, and which of its outputs the gradient is for.
Edge = tuple["Node", int]
Meta = tuple[tuple[int, ...], "dtype"]  # (shape, dtype)
Hook = Callable[..., Any]
TensorHook = Callable[["Tensor"], Optional["Tensor"]]


class _FreeingQueue:
    """Frees dying graph nodes one after another instead of one inside another.

    When the last reference to a node goes, Python frees what the node holds,
    which may be the last reference to the next node, and so on down the
    graph: one nested call per node. A chain 10,000 operations deep then
    overflows the stack of a Python with a small one (the browser's). So a
    dying node hands what it holds to this queue, and only the outermost
    call empties it, one entry at a time.
    """

    def __init__(self) -> None:
        self.parts: list[Any] = []
        self.busy = False

    def free(self, node: Node) -> None:
        # The queue must hold the only reference to the parts, so that
        # popping them really frees them.
        self.parts.append(node._take_parts())
        if self.busy:
            return  # an outer call is emptying the queue
        self.busy = True
        try:
            while self.parts:
                self.parts.pop()  # may free nodes, which queue their parts
        finally:
            self.busy = False


_FREEING_QUEUE = _FreeingQueue()


class Node:
    """One step of the backward graph: what a tensor's ``grad_fn`` points to.

    Attributes:
        next_functions: One edge per positional input of the forward call:
            ``(node, output_nr)`` for an input that requires grad, where
            ``node`` is the input's ``grad_fn`` (or its
            :class:`AccumulateGrad` if it is a leaf), and ``(None, 0)``
            otherwise.
        input_meta: ``(shape, dtype)`` of each input that requires grad
            (``None`` for the others): the engine shapes and casts the
            gradient it sends to that input to match.
        num_outputs: How many tensors the node made; the engine keeps one
            gradient slot for each.
        tensor_hooks: Hooks of the node's output tensors
            (``tensor.register_hook``), by output number.
        retain_grad_hooks: For each output that called ``retain_grad()``,
            the hook that stores its gradient in ``.grad``.
        pre_hooks: ``hook(grad_outputs)``, called before the node runs.
        post_hooks: ``hook(grad_inputs, grad_outputs)``, called after it.

    The four hook tables are ``None`` until a first hook is added: most
    nodes never get one, and a graph may have millions of nodes.
    """

    __slots__ = (
        "__weakref__",
        "input_meta",
        "next_functions",
        "num_outputs",
        "post_hooks",
        "pre_hooks",
        "retain_grad_hooks",
        "tensor_hooks",
    )

    def __init__(self) -> None:
        self.next_functions: tuple[tuple[Node | None, int], ...] = ()
        self.input_meta: tuple[Meta | None, ...] = ()
        self.num_outputs = 1
        self.tensor_hooks: dict[int, dict[int, TensorHook]] | None = None
        self.retain_grad_hooks: dict[int, TensorHook] | None = None
        self.pre_hooks: dict[int, Hook] | None = None
        self.post_hooks: dict[int, Hook] | None = None

    def name(self) -> str:
        """The node's name, such as ``'MulBackward0'``."""
        return type(self).__name__

    def apply(self, *grad_outputs: Tensor | None) -> tuple[Tensor | None, ...]:
        """Maps gradients of the outputs to gradients of the inputs."""
        raise NotImplementedError

    def release_saved(self) -> None:
        """Drops what the node saved for backward (nothing, by default)."""

    def register_hook(self, hook: Hook) -> RemovableHandle:
        """Adds ``hook(grad_inputs, grad_outputs)``, called after this node runs.

        A hook may return a new tuple of gradients to pass on instead.
        """
        if self.post_hooks is None:
            self.post_hooks = {}
        return add_hook(self.post_hooks, hook)

    def register_prehook(self, hook: Hook) -> RemovableHandle:
        """Adds ``hook(grad_outputs)``, called before this node runs.

        A hook may return a new tuple of gradients to use instead.
        """
        if self.pre_hooks is None:
            self.pre_hooks = {}
        return add_hook(self.pre_hooks, hook)

    def add_tensor_hook(self, output_nr: int, hook: TensorHook) -> RemovableHandle:
        """Adds a hook for the gradient of output ``output_nr``, run before
        the node's own pre-hooks (this is what ``tensor.register_hook`` does)."""
        if self.tensor_hooks is None:
            self.tensor_hooks = {}
        return add_hook(self.tensor_hooks.setdefault(output_nr, {}), hook)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def _take_parts(self) -> tuple[Any, ...]:
        """Takes out what the node refers to, for the freeing queue."""
        parts = (self.next_functions,)
        self.next_functions = ()
        return parts

    def __del__(self, queue: _FreeingQueue = _FREEING_QUEUE) -> None:
        queue.free(self)


class AccumulateGrad(Node):
    """The node at a leaf: it adds the gradient that reaches it to ``.grad``.

    There is one per leaf tensor that requires grad, made when the leaf is
    first used by an operation that records history (or given a hook).

    Attributes:
        variable: The leaf tensor.
    """

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor) -> None:
        super().__init__()
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def apply(self, *grad_outputs: Tensor | None) -> tuple[Tensor | None, ...]:
        """Adds the gradient to the leaf's ``.grad``; sends nothing on."""
        (gradient,) = grad_outputs
        assert gradient is not None  # the engine only runs nodes it reached
        accumulate_grad(self.variable, gradient)
        return ()


def accumulate_grad(tensor: Tensor, gradient: Tensor) -> None:
    """Adds ``gradient`` to ``tensor.grad``.

    With grad mode on (a backward pass with ``create_graph=True``) the sum
    is a new tensor, recorded like any other operation, so that ``.grad``
    can be differentiated again. Otherwise the first gradient is copied and
    later ones are added into that copy in place.
    """
    current = tensor._grad
    if GRAD_MODE.enabled:
        tensor._grad = gradient if current is None else current + gradient
    elif current is None:
        # A copy of our own: the gradient may be a view of another tensor.
        tensor._grad = contiguous_copy(gradient)
    else:
        current._write_values((current + gradient)._values())


def clear_grads(params: Iterable[Tensor], set_to_none: bool = True) -> None:
    """Clears the gradients that :func:`accumulate_grad` added up.

    The one rule behind ``Module.zero_grad`` and ``Optimizer.zero_grad``, as
    in PyTorch: with ``set_to_none`` (the default) ``.grad`` becomes
    ``None``; otherwise the gradient, taken out of any graph, is filled with
    zeros in place, so that ``.grad`` stays the same tensor. A parameter
    without a gradient is left alone.
    """
    for param in params:
        grad = param.grad
        if grad is None:
            continue
        if set_to_none:
            param.grad = None
            continue
        if grad.grad_fn is not None:
            grad.detach_()
        else:
            grad.requires_grad_(False)
        grad.zero_()


class FunctionCtx(Node):
    """The node a :class:`Function` leaves behind, also its ``ctx``.

    ``forward(ctx, ...)`` stores what ``backward`` will need: tensors through
    :meth:`save_for_backward`, anything else as plain attributes
    (``ctx.dim = dim``). Those live in the node's ``__dict__``; the engine's
    own bookkeeping is declared below.

    Attributes:
        needs_input_grad: For each positional input, whether its gradient is
            needed. ``backward`` may skip the work for inputs marked False.
        materialize_grads: Whether ``backward`` receives zeros (True) or
            ``None`` for the gradient of an output that was not used.
        _saved: ``(tensor, version when saved)`` for each saved tensor;
            ``None`` once a backward pass has freed them.
        _saved_is_output: For each saved tensor, whether it is an output of
            this node (for error messages).
        _output_meta: ``(shape, dtype)`` of each output, to make zeros for
            an output gradient that never arrived.
        _non_differentiable: Outputs marked by
            :meth:`mark_non_differentiable`.

    The underscored names keep the engine's bookkeeping apart from the
    names a ``forward`` may choose for its own values (``ctx.saved = ...``).
    """

    __slots__ = (
        "_non_differentiable",
        "_output_meta",
        "_saved",
        "_saved_is_output",
        "materialize_grads",
        "needs_input_grad",
    )

    _function: type[Function]
    _name: str

    if TYPE_CHECKING:
        # forward keeps its own values on ctx (``ctx.dim = dim``): for the type
        # checker any attribute name may be set and read.
        def __getattr__(self, name: str) -> Any: ...

        def __setattr__(self, name: str, value: Any) -> None: ...

    def __init__(self) -> None:
        super().__init__()
        self.needs_input_grad: tuple[bool, ...] = ()
        self.materialize_grads = True
        self._saved: tuple[tuple[Tensor | None, int], ...] | None = ()
        self._saved_is_output: tuple[bool, ...] = ()
        self._output_meta: tuple[Meta, ...] = ()
        self._non_differentiable: tuple[Tensor, ...] = ()

    def name(self) -> str:
        return self._name

    def _take_parts(self) -> tuple[Any, ...]:
        # The edges, the saved tensors, and what forward kept on ctx (a node
        # made by the engine itself, such as CopySlices, keeps nothing there).
        parts = (self.next_functions, self._saved, getattr(self, "__dict__", None))
        self.next_functions = ()
        self._saved = None
        if parts[2] is not None:
            self.__dict__ = {}
        return parts

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keeps tensors for ``backward``, noting their versions.

        If a saved tensor is changed in place before ``backward`` runs, reading
        :attr:`saved_tensors` raises, because the gradient would be wrong.
        """
        self._saved = tuple(
            (t, t._storage.version if t is not None else 0) for t in tensors
        )

    @property
    def saved_tensors(self) -> tuple[Tensor, ...]:
        """The tensors given to :meth:`save_for_backward`.

        Raises:
            RuntimeError: If the graph was already freed by a backward pass,
                or if a saved tensor was modified in place since it was saved.
        """
        if self._saved is None:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly "
                "access saved tensors after they have already been freed). Saved "
                "intermediate values of the graph are freed when you call "
                ".backward() or autograd.grad(). Specify retain_graph=True if you "
                "need to backward through the graph a second time or if you need "
                "to access saved tensors after calling backward."
            )
        check_saved_versions(self)
        return tuple(tensor for tensor, _ in self._saved)  # type: ignore[misc]

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Marks outputs (such as indices) that have no gradient.

        They do not require grad, and ``backward`` receives zeros for them.
        """
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether ``backward`` gets zeros (True, the default) or ``None`` for
        the gradient of an output that did not take part in the loss."""
        self.materialize_grads = value

    def release_saved(self) -> None:
        """Drops the saved tensors once a backward pass no longer needs them."""
        self._saved = None

    def apply(self, *grad_outputs: Tensor | None) -> tuple[Tensor | None, ...]:
        """Runs the Function's ``backward``: one gradient for each input.

        Raises:
            RuntimeError: If ``backward`` returns a wrong number of gradients.
        """
        if self.materialize_grads and any(g is None for g in grad_outputs):
            grad_outputs = tuple(
                zeros(shape, dtype=d) if g is None else g
                for g, (shape, d) in zip(grad_outputs, self._output_meta)
            )
        function = self._function
        if function.holomorphic and _any_complex(grad_outputs):
            grads = _conjugated(function.backward(self, *_conjugated(grad_outputs)))
        else:
            grads = function.backward(self, *grad_outputs)
        if not isinstance(grads, tuple):
            grads = (grads,)
        expected = len(self.next_functions)
        if len(grads) > expected and all(g is None for g in grads[expected:]):
            grads = grads[:expected]  # extra Nones are allowed, as in torch
        if len(grads) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {expected}, got {len(grads)})"
            )
        return grads


class Function:
    """Base class of differentiable operations, as ``torch.autograd.Function``.

    Subclasses define two static methods side by side::

        class Exp(Function):
            @staticmethod
            def forward(ctx, x):
                result = x.exp()
                ctx.save_for_backward(result)
                return result

            @staticmethod
            def backward(ctx, grad_output):
                (result,) = ctx.saved_tensors
                return grad_output * result

    and are called through :meth:`apply`: ``y = Exp.apply(x)``.

    Positional arguments of ``apply`` are the *inputs*: ``backward`` returns
    one gradient for each (``None`` for those that are not tensors or need no
    gradient). Keyword arguments are settings passed to ``forward`` only.

    The node left in the graph is an instance of a class made for each
    subclass. Its name follows PyTorch: ``<Name>Backward0`` for the engine's
    own operations (``class Exp`` gives ``ExpBackward0``) and
    ``<Name>Backward`` for a Function defined outside the engine. Where
    PyTorch's name is different, the class says so in ``grad_fn_name``.

    For complex numbers PyTorch's gradient is ``grad_output`` times the
    *conjugate* of the derivative. A Function whose backward multiplies by
    the derivative as for real numbers (``Mul``, ``Exp``, every analytic
    function) sets ``holomorphic = True``, and the engine conjugates for
    it: ``conj(backward(conj(grad_output)))`` is ``grad_output`` times
    ``conj(f'(z))``, and for real tensors nothing changes.
    """

    grad_fn_name: str | None = None
    holomorphic: bool = False
    _backward_cls: type[FunctionCtx]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("grad_fn_name") or _default_node_name(cls)
        # A name such as "torch::autograd::CopyBackwards" gives the class
        # "CopyBackwards" (its repr) while name() returns the whole name.
        cls._backward_cls = type(
            name.rsplit("::", 1)[-1],
            (FunctionCtx,),
            {"_function": cls, "__module__": cls.__module__, "_name": name},
        )

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        """Computes the result from the inputs. Runs with grad mode off."""
        raise NotImplementedError("A Function subclass must define forward")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        """Given d(loss)/d(output), returns d(loss)/d(input) for each input."""
        raise NotImplementedError(f"backward is not implemented for {ctx.name()}")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Runs ``forward`` and, if grad mode is on and an input requires
        grad, records the call in the graph as the outputs' ``grad_fn``."""
        ctx = cls._backward_cls()
        enabled = GRAD_MODE.enabled
        needs = tuple([isinstance(a, Tensor) and a._requires_grad for a in args])
        ctx.needs_input_grad = needs
        GRAD_MODE.enabled = False
        try:
            output = cls.forward(ctx, *args, **kwargs)
        finally:
            GRAD_MODE.enabled = enabled
        if enabled and True in needs:
            _connect(ctx, args, needs, output)
        return output


def _any_complex(gradients: tuple[Any, ...]) -> bool:
    """Whether one of ``gradients`` is a complex tensor."""
    return any(isinstance(g, Tensor) and g.dtype.is_complex for g in gradients)


def _conjugated(gradients: Any) -> Any:
    """The conjugate of each gradient (a tuple), or of the one given."""
    if isinstance(gradients, tuple):
        return tuple(g.conj() if isinstance(g, Tensor) else g for g in gradients)
    return gradients.conj() if isinstance(gradients, Tensor) else gradients


def _connect(
    ctx: FunctionCtx, args: tuple[Any, ...], needs: tuple[bool, ...], output: Any
) -> None:
    """Makes ``ctx`` the ``grad_fn`` of the outputs and links it to the inputs."""
    outputs = output if isinstance(output, tuple) else (output,)
    _check_saved(ctx, outputs)
    ctx.next_functions = tuple(
        gradient_edge(arg) if need else (None, 0) for arg, need in zip(args, needs)
    )
    ctx.input_meta = tuple(
        (arg._shape, arg.dtype) if need else None for arg, need in zip(args, needs)
    )
    ctx.num_outputs = len(outputs)
    ctx._output_meta = tuple((t._shape, t.dtype) for t in outputs)
    for output_nr, tensor in enumerate(outputs):
        if _has_gradient(ctx, tensor):
            tensor._set_history(ctx, output_nr)


def _check_saved(ctx: FunctionCtx, outputs: tuple[Any, ...]) -> None:
    """Refuses an inference tensor among the tensors ``ctx`` saved, and notes
    which saved tensors are ``outputs`` (for the error if one is changed).

    Raises:
        RuntimeError: If ``ctx`` saved an inference tensor, which has no
            version counter to check before the backward pass.
    """
    if any(t is not None and t._inference for t, _ in ctx._saved or ()):
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use "
            "Tensors created in inference mode in computation tracked by "
            "autograd. To work around this, you can make a clone to get a normal "
            "tensor and use it in autograd, or use `torch.no_grad()` instead of "
            "`torch.inference_mode()`."
        )
    if ctx._saved:
        ctx._saved_is_output = tuple(
            any(saved is out for out in outputs) for saved, _ in ctx._saved
        )


def _has_gradient(ctx: FunctionCtx, output: Any) -> bool:
    """Whether ``output`` gets ``ctx`` as its ``grad_fn``: a tensor of a dtype
    with gradients that ``forward`` did not mark non-differentiable."""
    if not isinstance(output, Tensor) or not output.dtype.differentiable:
        return False
    return not any(output is t for t in ctx._non_differentiable)


def _default_node_name(cls: type[Function]) -> str:
    """``MulBackward0`` for the engine's ``Mul``; ``MyOpBackward`` for a
    user's ``MyOp``, as PyTorch names the nodes of custom Functions."""
    if cls.__module__.startswith("slowtorch_lib."):
        return f"{cls.__name__}Backward0"
    return f"{cls.__name__}Backward"


def gradient_edge(tensor: Tensor) -> Edge:
    """Where a gradient for ``tensor`` must be sent in the backward pass.

    For a tensor made by an operation, that is its ``grad_fn``; for a leaf
    that requires grad, its :class:`AccumulateGrad` node (made once, then
    kept on the tensor).
    """
    if tensor._grad_fn is not None:
        return (tensor._grad_fn, tensor._output_nr)
    node = tensor._grad_accumulator
    if node is None:
        node = tensor._grad_accumulator = AccumulateGrad(tensor)
    return (node, 0)


def check_saved_versions(ctx: FunctionCtx) -> None:
    """Raises if a tensor ``ctx`` saved was changed in place since.

    Raises:
        RuntimeError: Naming the tensor, its version and the version saved.
    """
    assert ctx._saved is not None
    for index, (tensor, version) in enumerate(ctx._saved):
        if tensor is not None and tensor._storage.version != version:
            raise RuntimeError(_modified_message(ctx, index, tensor, version))


def _modified_message(
    ctx: FunctionCtx, index: int, tensor: Tensor, version: int
) -> str:
    """The error for a saved tensor changed in place after it was saved.

    It names the tensor by the node that made it: ``ctx`` for a saved
    output, else the tensor's current ``grad_fn`` (the in-place operation
    itself, if it was recorded). A leaf is named by its type and shape only.
    """
    if index < len(ctx._saved_is_output) and ctx._saved_is_output[index]:
        maker: Node | None = ctx
    else:
        maker = tensor.grad_fn
    made_by = ""
    if maker is not None:
        # PyTorch's own spelling: "Add" for AddBackward0, "T1" for TBackward1.
        op = re.sub(r"Backward0?$", "", maker.name()).replace("Backward", "")
        made_by = f", which is output {tensor.output_nr} of {op},"
    return (
        "one of the variables needed for gradient computation has been "
        f"modified by an inplace operation: [{tensor.type()} "
        f"{list(tensor.shape)}]{made_by} is at version "
        f"{tensor._storage.version}; expected version {version} instead. "
        "Hint: the tensor was changed in place (an operation ending in _, "
        "or x[...] = ...) after it was saved; use .clone() or the "
        "out-of-place operation instead."
    )
