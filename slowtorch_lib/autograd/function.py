"""Differentiable operations and the graph nodes they leave behind.

Every operation in the engine is a :class:`Function`: a class with a
``forward`` that computes a result and a ``backward`` that, given the gradient
of the loss with respect to that result, returns the gradient with respect to
each input. :meth:`Function.apply` runs ``forward`` and, when any input
requires grad, records a :class:`Node` in the graph: the result's
``grad_fn``. The node is also the ``ctx`` that ``forward`` saved things in.

This is the only place where history is recorded; :mod:`.engine` is the only
place where it is walked backwards.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Optional

from slowtorch_lib.autograd.grad_mode import GRAD_MODE

if TYPE_CHECKING:
    from slowtorch_lib._dtype import dtype
    from slowtorch_lib._tensor import Tensor  # noqa: E402

__all__ = ["AccumulateGrad", "Function", "FunctionCtx", "Node"]

Edge = tuple[Optional["Node"], int]
Hook = Callable[..., Any]


class Node:
    """One step of the backward graph: what a tensor's ``grad_fn`` points to.

    Attributes:
        next_functions: One edge per positional input of the forward call:
            ``(node, output_nr)`` for an input that requires grad, where
            ``node`` is the input's ``grad_fn`` (or its
            :class:`AccumulateGrad` if it is a leaf), and ``(None, 0)``
            otherwise.
    """

    next_functions: tuple[Edge, ...] = ()

    def name(self) -> str:
        """The node's name, such as ``'MulBackward0'``."""
        return type(self).__name__

    def apply(self, *grad_outputs: Tensor | None) -> tuple[Tensor | None, ...]:
        """Maps gradients of the outputs to gradients of the inputs."""
        raise NotImplementedError

    def _output_written_to(self, output: Tensor, target: Tensor) -> None:
        """Called when an in-place operation copied its ``output`` into ``target``."""

    def register_hook(self, hook: Hook) -> RemovableHandle:
        """Adds ``hook(grad_inputs, grad_outputs)``, called after this node runs."""
        self._hooks().append(hook)
        return RemovableHandle(self._hooks(), hook)

    def register_prehook(self, hook: Hook) -> RemovableHandle:
        """Adds ``hook(grad_outputs)``, called before this node runs.

        A hook may return a new tuple of gradients to use instead.
        """
        self._prehooks().append(hook)
        return RemovableHandle(self._prehooks(), hook)

    def _hooks(self) -> list[Hook]:
        hooks: list[Hook] | None = self.__dict__.get("_post_hooks")
        if hooks is None:
            hooks = self.__dict__["_post_hooks"] = []
        return hooks

    def _prehooks(self) -> list[Hook]:
        hooks: list[Hook] | None = self.__dict__.get("_pre_hooks")
        if hooks is None:
            hooks = self.__dict__["_pre_hooks"] = []
        return hooks

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"


class RemovableHandle:
    """Returned by ``register_hook``; ``handle.remove()`` takes the hook off."""

    def __init__(self, hooks: list[Hook], hook: Hook) -> None:
        self._hooks = hooks
        self._hook = hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


class AccumulateGrad(Node):
    """The node at a leaf: it adds the gradient that reaches it to ``.grad``.

    There is one per leaf tensor that requires grad, made when the leaf is
    first used by an operation that records history.

    Attributes:
        variable: The leaf tensor.
    """

    def __init__(self, variable: Tensor) -> None:
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"


class FunctionCtx(Node):
    """The node a :class:`Function` leaves behind, also its ``ctx``.

    ``forward(ctx, ...)`` stores what ``backward`` will need: tensors through
    :meth:`save_for_backward`, anything else as plain attributes
    (``ctx.dim = dim``).

    Attributes:
        needs_input_grad: For each positional input, whether its gradient is
            needed. ``backward`` may skip the work for inputs marked False.
    """

    _function: type[Function]
    _name: str

    if TYPE_CHECKING:
        # forward keeps its own values on ctx (``ctx.dim = dim``): for the type
        # checker any attribute name may be set and read.
        def __getattr__(self, name: str) -> Any: ...

        def __setattr__(self, name: str, value: Any) -> None: ...

    def name(self) -> str:
        return self._name

    def __init__(self) -> None:
        self.needs_input_grad: tuple[bool, ...] = ()
        self.next_functions = ()
        # (tensor, version when saved) for each saved tensor; None once freed.
        self._saved: tuple[tuple[Tensor | None, int], ...] | None = ()
        # (shape, dtype) of each positional input, for the engine to shape
        # and type the gradients it passes on.
        self._input_meta: tuple[tuple[tuple[int, ...], dtype] | None, ...] = ()
        self._num_outputs = 1
        self._output_meta: tuple[tuple[tuple[int, ...], dtype], ...] = ()
        # Which saved tensors are outputs of this node (set when connected).
        self._saved_outputs: tuple[bool, ...] = ()
        # Whether the engine replaces missing output gradients by zeros.
        self.materialize_grads = True

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
        tensors = []
        for index, (tensor, version) in enumerate(self._saved):
            if tensor is not None and tensor._storage.version != version:
                raise RuntimeError(self._modified_message(index, tensor, version))
            tensors.append(tensor)
        return tuple(tensors)  # type: ignore[arg-type]

    def _modified_message(self, index: int, tensor: Tensor, version: int) -> str:
        """The error for a saved tensor changed in place after it was saved.

        It names the tensor by the node that made it: this node for a saved
        output, else the tensor's current ``grad_fn`` (the in-place operation
        itself, if it was recorded). A leaf is named by its type and shape only.
        """
        if index < len(self._saved_outputs) and self._saved_outputs[index]:
            maker: Node | None = self
        else:
            maker = tensor.grad_fn
        made_by = ""
        if maker is not None:
            op = re.sub(r"Backward\d*$", "", maker.name())
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

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Marks outputs (such as indices) that have no gradient.

        They do not require grad, and ``backward`` receives zeros for them.
        """
        self.__dict__["_non_differentiable"] = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether ``backward`` gets zeros (True, the default) or ``None`` for
        the gradient of an output that did not take part in the loss."""
        self.materialize_grads = value

    def _output_written_to(self, output: Tensor, target: Tensor) -> None:
        """An in-place operation (``y.exp_()``) computed ``output`` out of place,
        then wrote it into ``target``. If this node saved ``output``, it now
        watches ``target`` instead, so that a later in-place change of
        ``target`` is caught when the saved tensor is read."""
        if not self._saved:
            return
        self._saved = tuple(
            (target, target._storage.version) if saved is output else (saved, version)
            for saved, version in self._saved
        )

    def _free(self) -> None:
        """Drops the saved tensors once a backward pass no longer needs them."""
        self._saved = None

    def apply(self, *grad_outputs: Tensor | None) -> tuple[Tensor | None, ...]:
        grads = self._function.backward(self, *grad_outputs)
        if not isinstance(grads, tuple):
            grads = (grads,)
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
    subclass, named ``<Name>Backward`` (``ExpBackward``) as in PyTorch. The
    engine's own operations set ``grad_fn_name`` to PyTorch's exact name,
    such as ``"ExpBackward0"``.
    """

    grad_fn_name: str | None = None
    _backward_cls: type[FunctionCtx]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("grad_fn_name") or f"{cls.__name__}Backward"
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
        raise NotImplementedError(
            f"backward is not implemented for {ctx.name()}"
        )

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


def _connect(
    ctx: FunctionCtx, args: tuple[Any, ...], needs: tuple[bool, ...], output: Any
) -> None:
    """Makes ``ctx`` the ``grad_fn`` of the outputs and links it to the inputs."""
    edges: list[Edge] = []
    input_meta: list[tuple[tuple[int, ...], dtype] | None] = []
    for arg, need in zip(args, needs):
        if need:
            edges.append(gradient_edge(arg))
            input_meta.append((arg._shape, arg._storage.dtype))
        else:
            edges.append((None, 0))
            input_meta.append(None)
    ctx.next_functions = tuple(edges)
    ctx._input_meta = tuple(input_meta)
    outputs = output if isinstance(output, tuple) else (output,)
    ctx._num_outputs = len(outputs)
    ctx._output_meta = tuple((t._shape, t.dtype) for t in outputs)
    if ctx._saved:
        ctx._saved_outputs = tuple(
            any(saved is out for out in outputs) for saved, _ in ctx._saved
        )
    skipped = ctx.__dict__.get("_non_differentiable", ())
    for output_nr, tensor in enumerate(outputs):
        if not isinstance(tensor, Tensor) or not tensor.dtype.is_floating_point:
            continue
        if any(tensor is s for s in skipped):
            continue
        tensor._set_history(ctx, output_nr)


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


# At the end: _tensor imports the ops, and the ops import this module.
from slowtorch_lib._tensor import Tensor  # noqa: E402
