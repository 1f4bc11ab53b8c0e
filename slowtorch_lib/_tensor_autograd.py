"""A tensor's autograd state: whether it requires grad, its ``.grad``, the
node that made it, and how it leaves the graph.

``Tensor`` inherits these methods from :class:`AutogradState`:
``requires_grad`` and ``requires_grad_``, ``grad``, ``grad_fn``,
``is_leaf``, ``output_nr``, ``retain_grad``, ``register_hook``,
``backward``, ``detach`` and ``data``. They read and write the slots that
:class:`~slowtorch_lib._tensor.Tensor` declares; the graph itself is
recorded by ``Function.apply`` (:mod:`slowtorch_lib.autograd.function`) and
walked by :mod:`slowtorch_lib.autograd.engine`, reached as
:mod:`slowtorch_lib._tensor_methods` explains. Here too is the switch of
inference mode, which every new tensor reads.
"""

# Each method's ``self`` is annotated as a ``Tensor``, the class that inherits
# it, so that mypy checks the body against what ``self`` always is (see
# _tensor_shape_methods, which does the same).
# mypy: disable-error-code="misc"
from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # The layers above, which the methods reach: see OPS_MODULES and bind_ops.
    from slowtorch_lib._tensor import Tensor
    from slowtorch_lib.autograd import engine as _engine
    from slowtorch_lib.autograd import history as _history
    from slowtorch_lib.autograd.function import Node
    from slowtorch_lib.ops import views as _views

__all__ = ["INFERENCE_INPLACE", "INFERENCE_MODE", "AutogradState"]


class _InferenceMode:
    """Whether inference mode is on: every tensor made then is an inference
    tensor. Switched by :class:`slowtorch_lib.autograd.grad_mode.inference_mode`."""

    enabled: bool = False


INFERENCE_MODE = _InferenceMode()

INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed."
    "You can make a clone to get a normal tensor before doing inplace update."
    "See https://github.com/pytorch/rfcs/pull/17 for more details."
)


class AutogradState:
    """``Tensor``'s autograd state: ``requires_grad``, ``grad``, ``grad_fn``,
    ``is_leaf``, hooks, ``backward`` and ``detach``."""

    __slots__ = ()

    # The slots these methods read and write, which Tensor declares.
    _requires_grad: bool
    _grad: Tensor | None
    _grad_fn: Node | None
    _output_nr: int
    _retains_grad: bool

    def is_inference(self: Tensor) -> builtins.bool:
        """Whether this tensor was made in inference mode (or is a view of one)."""
        return self._inference

    @property
    def requires_grad(self: Tensor) -> bool:
        """Whether operations on this tensor are recorded for autograd."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self: Tensor, flag: bool) -> None:
        if self._grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you "
                "want to use a computed variable in a subgraph that doesn't require "
                "differentiation use var_no_grad = var.detach()."
            )
        if flag and not self.dtype.differentiable:
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients"
            )
        if flag and self._inference and not INFERENCE_MODE.enabled:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside "
                "InferenceMode is not allowed."
            )
        self._requires_grad = builtins.bool(flag)

    def requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
        """Sets ``requires_grad`` in place and returns ``self``."""
        self.requires_grad = requires_grad
        return self

    @property
    def grad(self: Tensor) -> Tensor | None:
        """The gradient accumulated by ``backward`` (leaves only, unless
        :meth:`retain_grad` was called). Reading it on another non-leaf
        tensor warns, as PyTorch does, since it is never filled in."""
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being "
                "accessed. Its .grad attribute won't be populated during "
                "autograd.backward(). If you indeed want the .grad field to be "
                "populated for a non-leaf Tensor, use .retain_grad() on the non-leaf "
                "Tensor. If you access the non-leaf Tensor by mistake, make sure you "
                "access the leaf Tensor instead.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self: Tensor, value: Tensor | None) -> None:
        self._grad = value

    @property
    def grad_fn(self: Tensor) -> Node | None:
        """The graph node that made this tensor, or ``None`` for a leaf."""
        return self._grad_fn

    @property
    def is_leaf(self: Tensor) -> bool:
        """True unless the tensor was made by a recorded operation."""
        return self._grad_fn is None

    @property
    def output_nr(self: Tensor) -> int:
        """Which output of its ``grad_fn`` this tensor is."""
        return self._output_nr

    def _set_history(self: Tensor, node: Node, output_nr: int) -> None:
        """Marks this tensor as output ``output_nr`` of ``node``."""
        self._grad_fn = node
        self._output_nr = output_nr
        self._requires_grad = True

    @property
    def retains_grad(self: Tensor) -> bool:
        """Whether a non-leaf tensor keeps its ``.grad`` (see :meth:`retain_grad`)."""
        return self._retains_grad

    def retain_grad(self: Tensor) -> None:
        """Asks a non-leaf tensor to keep its gradient in ``.grad``."""
        _engine.retain_grad(self)

    def register_hook(self: Tensor, hook: Callable[[Tensor], Tensor | None]) -> Any:
        """Calls ``hook(grad)`` whenever a gradient for this tensor is computed.

        The hook may return a tensor to use instead of ``grad``.
        """
        return _engine.register_tensor_hook(self, hook)

    def backward(
        self: Tensor,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: builtins.bool = False,
        inputs: Sequence[Tensor] | None = None,
    ) -> None:
        """Computes the gradient of this tensor with respect to the leaves.

        Gradients are added to the ``.grad`` of every leaf that requires grad.
        See :func:`slowtorch_lib.autograd.backward`.
        """
        _engine.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self: Tensor) -> Tensor:
        """A new tensor on the same storage, cut out of the graph."""
        return _views.detach(self)

    def detach_(self: Tensor) -> Tensor:
        """Cuts this tensor out of the graph in place: it becomes a leaf."""
        return _history.detach_(self)

    @property
    def data(self: Tensor) -> Tensor:
        """The same values, detached from the graph (a view that shares storage)."""
        return _views.detach(self)

    @data.setter
    def data(self: Tensor, new: Tensor) -> None:
        self._storage = new._storage
        self._shape = new._shape
        self._stride = new._stride
        self._offset = new._offset
