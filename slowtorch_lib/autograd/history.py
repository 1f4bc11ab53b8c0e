"""Rewriting history: in-place operations on tensors that autograd watches.

History is recorded in one place, :meth:`Function.apply
<slowtorch_lib.autograd.function.Function.apply>`: a result's ``grad_fn``
says how it was computed. An in-place operation (``y.mul_(2)``,
``y[0] = 1``, ``detach_()``) changes a tensor that already has a history,
so that history must be rewritten, and that happens only here:

* :func:`check_inplace` refuses the changes autograd could not follow;
* :func:`run_inplace` computes the result out of place, writes it into the
  tensor and makes the operation's node the tensor's new ``grad_fn``;
* a write through a view changes its base too: the base takes a
  :class:`CopySlices` history, and every view of it whose values changed
  gets a new history that reads from the new base
  (:func:`refresh_view_history`);
* each storage counts its in-place writes (``version``). A node remembers
  the version of each tensor it saved; reading ``ctx.saved_tensors`` after
  the tensor changed raises (``check_saved_versions`` in
  :mod:`.function`), since the gradient would be computed from the wrong
  numbers.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._storage import Storage
from slowtorch_lib._tensor import Tensor, from_values
from slowtorch_lib._tensor_autograd import INFERENCE_INPLACE, INFERENCE_MODE
from slowtorch_lib.autograd.function import Function, FunctionCtx, Node, gradient_edge
from slowtorch_lib.autograd.grad_mode import GRAD_MODE

__all__ = [
    "CopySlices",
    "change_view_in_place",
    "check_inplace",
    "check_no_partial_overlap",
    "detach_",
    "as_view",
    "mark_multi_output_views",
    "reads_parts",
    "rebase_history",
    "refresh_view_history",
    "refresh_views_of",
    "remember_view",
    "run_inplace",
]


# ----------------------------------------------------------------------
# In-place operations
# ----------------------------------------------------------------------


def check_inplace(
    tensor: Tensor, overlap_ok: bool = False, operand_requires_grad: bool = False
) -> None:
    """Refuses in-place changes that would corrupt the values or the graph.

    ``operand_requires_grad`` says whether another operand of the change
    requires grad: then the change is recorded even if ``tensor`` is not
    in the graph, which one of several views (``unbind``) cannot take.

    Raises:
        RuntimeError: If several elements share one storage cell (an
            expanded tensor) unless ``overlap_ok`` (fills, as PyTorch
            allows), or, with grad mode on, if the tensor is a leaf that
            requires grad or a view of one, or a view that autograd cannot
            give a new history.
    """
    if tensor._inference and not INFERENCE_MODE.enabled:
        raise RuntimeError(INFERENCE_INPLACE)
    if not overlap_ok and tensor._overlaps():
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to "
            "tensor refers to a single memory location. Please clone() the "
            "tensor before performing the operation."
        )
    if not GRAD_MODE.enabled:
        return
    base = tensor._base
    if base is None and tensor._grad_fn is None and tensor._requires_grad:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    recorded = tensor.requires_grad or operand_requires_grad
    if tensor._one_of_many is not None and recorded:
        node = tensor.grad_fn
        raise RuntimeError(
            (
                f"Output {tensor._output_nr} of {node.name().removesuffix('Backward0')}"
                " is a view and is being modified inplace."
                if node is not None
                else "A view was created in no_grad mode and is being modified "
                "inplace with grad mode enabled."
            )
            + " This view is the output of a function that returns multiple views. "
            "Such functions do not allow the output views to be modified inplace. "
            "You should replace the inplace operation by an out-of-place one."
        )
    if base is None or not base.requires_grad:
        return
    if base._grad_fn is None:
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an "
            "in-place operation."
        )
    if tensor.grad_fn is None:
        raise RuntimeError(
            "A view was created in no_grad mode and is being modified inplace with "
            "grad mode enabled. Given that this use case is ambiguous and "
            "error-prone, it is forbidden. You can clarify your code by moving both "
            "the view and the inplace either both inside the no_grad block (if you "
            "don't want the inplace to be tracked) or both outside (if you want the "
            "inplace to be tracked)."
        )


def run_inplace(
    tensor: Tensor,
    operation: Callable[..., Tensor],
    *args: Any,
    overlap_ok: bool = False,
    **kwargs: Any,
) -> Tensor:
    """Runs ``operation(tensor, *args)`` and stores the result in ``tensor``.

    This is how every in-place method (``add_``, ``mul_``, ...) works: the
    result is computed out of place, checked to fit the tensor's shape and
    dtype, then written through the tensor's view. Nothing is changed if a
    check fails.

    If the operation was recorded, the tensor takes over its history, so
    gradients flow through the in-place change. For a view, its base
    takes a :class:`CopySlices` history instead (:func:`rebase_history`):
    the base changed too. ``overlap_ok`` lets fills write into an expanded
    tensor.
    """
    operand_requires_grad = any(isinstance(a, Tensor) and a.requires_grad for a in args)
    check_inplace(tensor, overlap_ok, operand_requires_grad)
    check_no_partial_overlap(tensor, *args)
    records = GRAD_MODE.enabled and (tensor.requires_grad or operand_requires_grad)
    # A recorded operation may save its input for backward; give it a
    # snapshot so that overwriting the tensor does not change what was saved.
    source = _snapshot(tensor) if records else tensor
    result = operation(source, *args, **kwargs)
    if result._shape != tensor._shape:
        raise RuntimeError(
            f"output with shape {list(tensor._shape)} doesn't match the broadcast "
            f"shape {list(result._shape)}"
        )
    if not dtypes.can_cast(result.dtype, tensor.dtype):
        raise RuntimeError(
            f"result type {result.dtype.c_name} can't be cast to the desired "
            f"output type {tensor.dtype.c_name}"
        )
    tensor._write_values(result._values())
    node = result._grad_fn
    if records and result is not source and node is not None:
        if tensor._base is None:
            tensor._set_history(node, result._output_nr)
        else:
            rebase_history(tensor, node)  # type: ignore[arg-type]
        _saved_output_moved(node, result, tensor)
        # Every other view of the storage now reads changed values.
        refresh_views_of(tensor._base if tensor._base is not None else tensor)
    return tensor


def change_view_in_place(
    tensor: Tensor, function: type[Function], **settings: Any
) -> Tensor:
    """Gives ``tensor`` the shape and strides of ``function``'s view of it
    (``transpose_``, ``t_``).

    The numbers stay where they are; only how they are read changes, so the
    storage counts a change (its version), and with autograd on, the
    tensor's history goes on through ``function``'s node.
    """
    check_inplace(tensor, overlap_ok=True)
    changed = function.apply(tensor, **settings)
    tensor._shape, tensor._stride = changed._shape, changed._stride
    tensor._storage.version += 1
    tensor._view_version = tensor._storage.version
    if changed._grad_fn is not None:
        tensor._set_history(changed._grad_fn, 0)
    return tensor


def check_no_partial_overlap(tensor: Tensor, *operands: Any) -> None:
    """Refuses to write into ``tensor`` what is read from an operand that
    shares some of its cells (:func:`partly_overlap`), as PyTorch does
    before anything else about the operands."""
    if any(isinstance(a, Tensor) and partly_overlap(tensor, a) for a in operands):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the "
            "written-to tensor refer to a single memory location. Please clone() "
            "the tensor before performing the operation."
        )


def partly_overlap(a: Tensor, b: Tensor) -> bool:
    """Whether ``a`` and ``b`` share some of their storage cells but are not
    the same tensor, as PyTorch tells it before an in-place operation.

    PyTorch looks only at tensors whose elements fill a block of storage
    (a permutation of a contiguous layout) and compares the blocks: the
    same block with other strides (``x`` and ``x.t()``), or blocks that
    meet (``x[1:]`` and ``x[:-1]``), overlap partly. Other layouts are
    "too hard" to tell, and allowed.
    """
    if a is b or a._storage is not b._storage or not a.numel() or not b.numel():
        return False
    if not (_fills_a_block(a) and _fills_a_block(b)):
        return False
    a_end, b_end = a._offset + a.numel(), b._offset + b.numel()
    if a._offset == b._offset and a_end == b_end:
        return a._stride != b._stride
    return a._offset < b_end and b._offset < a_end


def _fills_a_block(tensor: Tensor) -> bool:
    """Whether the elements fill ``numel`` consecutive storage cells, each once."""
    expected = 1
    for stride, size in sorted(zip(tensor._stride, tensor._shape)):
        if size == 1:
            continue
        if stride != expected:
            return False
        expected *= size
    return True


def _snapshot(tensor: Tensor) -> Tensor:
    """A copy of ``tensor``'s values that keeps its place in the graph."""
    copy = from_values(tensor._values(), tensor._shape, tensor.dtype)
    copy._grad_fn = tensor.grad_fn
    copy._output_nr = tensor._output_nr
    copy._requires_grad = tensor.requires_grad
    return copy


def _saved_output_moved(node: Node, output: Tensor, target: Tensor) -> None:
    """An in-place operation (``y.exp_()``) computed ``output`` out of place,
    then wrote it into ``target``. If ``node`` saved ``output``, it now
    watches ``target`` instead, so that a later in-place change of
    ``target`` is caught when the saved tensor is read."""
    if not isinstance(node, FunctionCtx) or not node._saved:
        return
    node._saved = tuple(
        (target, target._storage.version) if saved is output else (saved, version)
        for saved, version in node._saved
    )


def detach_(tensor: Tensor) -> Tensor:
    """Cuts ``tensor`` out of the graph in place: it becomes a leaf.

    Raises:
        RuntimeError: For a view of a tensor that requires grad (its base
            would keep a history the view no longer has).
    """
    if tensor._base is not None and tensor._base.requires_grad:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    tensor._grad_fn = None
    tensor._output_nr = 0
    tensor._requires_grad = False
    return tensor


# ----------------------------------------------------------------------
# Views: keeping their history in step with their base
# ----------------------------------------------------------------------


def as_view(
    tensor: Tensor,
    shape: tuple[int, ...],
    stride: tuple[int, ...],
    offset: int,
    storage: Storage | None = None,
) -> Tensor:
    """A tensor reading ``tensor``'s storage with another shape, stride, offset.

    Its ``_base`` is the tensor that owns the storage (never another view).
    The base keeps track of it (:func:`remember_view`) so that an in-place
    change of the storage can give it a new history. A view of one of
    several views (``x.split(1)[0][0]``) is marked as one of them too: it
    may not be changed in place either. ``storage`` is another view of the
    same numbers, for a view of another dtype (the parts of a complex
    tensor, :meth:`~slowtorch_lib._storage.Storage.parts`).
    """
    base = tensor._base if tensor._base is not None else tensor
    storage = tensor._storage if storage is None else storage
    result = Tensor._make(storage, shape, stride, offset, base)
    result._one_of_many = tensor._one_of_many
    remember_view(base, result)
    return result


def reads_parts(view: Tensor, base: Tensor) -> bool:
    """Whether ``view`` reads the parts of its complex ``base`` (``z.real``):
    its geometry then counts two cells, real and imaginary, per element."""
    return view._storage is not base._storage


def remember_view(base: Tensor, view: Tensor) -> None:
    """Notes a new view of ``base``: the storage version its history is from,
    and a weak reference on ``base``, for :func:`refresh_views_of`.

    Dead references are dropped every 256 views, so the list stays short.
    """
    view._view_version = view._storage.version
    if not base.dtype.differentiable:
        return  # no gradients, so no history to keep in step
    if base._views is None:
        base._views = []
    refs = base._views
    refs.append(weakref.ref(view))
    if len(refs) % 256 == 0:
        refs[:] = [ref for ref in refs if ref() is not None]


def mark_multi_output_views(
    ctx: FunctionCtx, pieces: tuple[Tensor, ...]
) -> tuple[Tensor, ...]:
    """Marks views that one call returned together (``split``, ``unbind``).

    Autograd cannot record an in-place change of one of them (their single
    graph node has no way to take a new history for one output), so
    :func:`check_inplace` refuses it, naming the piece.
    """
    for number, piece in enumerate(pieces):
        piece._one_of_many = f"Output {number} of {ctx._function.__name__}"
    return pieces


def refresh_views_of(base: Tensor) -> None:
    """Redoes the history of every live view of ``base`` that is out of date.

    Called after an in-place operation gave ``base`` (or one of its views) a
    new history, so that a view made earlier and used later sends its
    gradient through the change.
    """
    for ref in base._views or ():
        view = ref()
        if view is not None and view._view_version != view._storage.version:
            refresh_view_history(view)


def refresh_view_history(view: Tensor) -> None:
    """Gives a view whose storage changed in place a ``grad_fn`` that reads the base.

    A view's ``grad_fn`` describes how it was computed from its base when it
    was made. After an in-place change of the base (or of another view of it)
    that is out of date, so the view's history is redone as an
    ``AsStrided`` of the base, whose own history includes the change.
    """
    base = view._base
    assert base is not None
    view._view_version = view._storage.version
    if not base.requires_grad:
        return
    enabled = GRAD_MODE.enabled
    GRAD_MODE.enabled = True
    try:
        parts = reads_parts(view, base)
        redone = base._as_strided(view._shape, view._stride, view._offset, parts)
    finally:
        GRAD_MODE.enabled = enabled
    assert redone._grad_fn is not None
    view._set_history(redone._grad_fn, 0)


class CopySlices(FunctionCtx):
    """The history of a base after an in-place operation on one of its views.

    ``b[0].mul_(2)`` changes the elements of ``b`` that ``b[0]`` covers and
    leaves the others alone. So this node, given the gradient of the new
    ``b``, sends the gradient of the untouched elements straight to the old
    ``b``, and runs the in-place operation's own backward (``fn``, here
    ``MulBackward0``) on the covered part. The node is made by hand rather
    than by ``Function.apply``, because it wraps the node of another call.

    Its inputs are the old base, then the in-place operation's inputs other
    than the view itself (``y`` in ``b[0].mul_(y)``).

    Attributes:
        fn: The in-place operation's node.
        base_geometry: ``(shape, stride, offset, storage size)`` of the base.
        view_geometry: ``(shape, stride, offset, parts)`` of the view written
            to; ``parts`` says it reads the parts of a complex base
            (:func:`reads_parts`).
    """

    __slots__ = ("base_geometry", "fn", "view_geometry")

    def __init__(self, base: Tensor, view: Tensor, fn: FunctionCtx) -> None:
        super().__init__()
        self.fn = fn
        cells = len(base._storage)
        self.base_geometry = (base._shape, base._stride, base._offset, cells)
        parts = reads_parts(view, base)
        self.view_geometry = (view._shape, view._stride, view._offset, parts)
        base_edge = gradient_edge(base) if base.requires_grad else (None, 0)
        base_meta = (base._shape, base.dtype) if base.requires_grad else None
        self.next_functions = (base_edge,) + fn.next_functions[1:]
        self.input_meta = (base_meta,) + fn.input_meta[1:]
        self.needs_input_grad = (base.requires_grad,) + fn.needs_input_grad[1:]
        self._output_meta = ((base._shape, base.dtype),)

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def apply(self, *grad_outputs: Tensor | None) -> tuple[Tensor | None, ...]:
        (grad,) = grad_outputs
        assert grad is not None
        shape, stride, offset, cells = self.base_geometry
        # A gradient laid out in storage exactly as the base is, so that the
        # view's geometry picks out the covered elements.
        result = Tensor._make(Storage([0] * cells, grad.dtype), shape, stride, offset)
        result.copy_(grad)
        covered = result._as_strided(*self.view_geometry)
        grads = self.fn.apply(covered.clone())
        if grads[0] is None:
            covered.zero_()
        else:
            covered.copy_(grads[0])
        return (result,) + tuple(grads[1:])

    def release_saved(self) -> None:
        self.fn.release_saved()
        super().release_saved()


def rebase_history(view: Tensor, fn: FunctionCtx) -> None:
    """Records an in-place operation on ``view``, whose node is ``fn``.

    The base takes a :class:`CopySlices` node as its history, and the view a
    fresh ``AsStrided`` history that reads from the new base.
    """
    base = view._base
    assert base is not None
    base._set_history(CopySlices(base, view, fn), 0)
    refresh_view_history(view)


# At the end: the tensor and the view operations import this module.
