"""The weights-only unpickler: runs a pickle, but builds only weights.

A pickle is a little program for a stack machine. Most of its instructions
push data (``BININT1 5``, ``BINUNICODE 'weight'``, ``EMPTY_LIST``...), but
three can run code: ``GLOBAL`` imports any name (``os.system``), ``REDUCE``
calls what is on the stack with the arguments above it, and ``BUILD`` sets
attributes of any object. ``pickle.load`` carries all of them out, so a file
can run whatever it likes while it is loaded.

:class:`WeightsUnpickler` is this engine's copy of PyTorch's weights-only
unpickler (``torch/_weights_only_unpickler.py``), which ``torch.load`` uses
by default since PyTorch 2.6. It runs the instructions one at a time:

- an instruction outside :attr:`WeightsUnpickler.INSTRUCTIONS` is refused
  (``INST``, ``OBJ``, ``NEWOBJ``, ``EXT1``, ``STACK_GLOBAL``...);
- ``GLOBAL`` may only name what is in the table :data:`ALLOWED_GLOBALS`,
  and it looks the name up there: it never imports anything;
- ``REDUCE`` may only call ``OrderedDict`` (with no arguments) and the
  functions that rebuild a tensor, a ``Parameter``, a ``Size``, a set (of
  numbers and strings) and bytes, which check every argument the file gives
  them;
- ``BUILD`` may only set attributes of an ``OrderedDict`` (``_metadata``);
- ``BINPERSID`` (a persistent id) may only name a storage, which the caller's
  ``persistent_load`` reads and checks.

Anything refused raises :class:`pickle.UnpicklingError` before it happens.
"""

from __future__ import annotations

import io
import pickle
import pickletools
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from slowtorch_lib import _dtype as dtypes
from slowtorch_lib._dtype import dtype
from slowtorch_lib._fidelity.complex_types import complex64, complex128
from slowtorch_lib._storage import Storage
from slowtorch_lib._tensor import Size, Tensor
from slowtorch_lib._tensor_python import _rebuild
from slowtorch_lib.nn.parameter import Parameter

__all__ = ["ALLOWED_GLOBALS", "StorageType", "WeightsUnpickler", "nested_too_deep"]

# torch's other storage classes, as GLOBAL names them, and the dtype each holds.
OTHER_STORAGES = {
    "torch.storage.UntypedStorage": "uint8",
}
MAX_NESTING = 100  # containers inside containers, on save and on load


class StorageType:
    """What ``GLOBAL torch.FloatStorage`` loads as: a name for a dtype, used
    only inside a storage's persistent id."""

    def __init__(self, d: dtype) -> None:
        self.dtype = d

    def __repr__(self) -> str:
        return f"torch.{STORAGE_NAMES[self.dtype]}"


def rebuild_tensor_v2(
    storage: Storage,
    storage_offset: int,
    size: tuple[int, ...],
    stride: tuple[int, ...],
    requires_grad: bool,
    backward_hooks: OrderedDict[Any, Any],
    metadata: Any = None,
) -> Tensor:
    """``torch._utils._rebuild_tensor_v2``: a tensor viewing a loaded storage.

    Every argument comes from the file, so each is checked: the view must lie
    inside its storage, and there must be no hooks or metadata to restore.
    """
    _refuse_unless(type(storage) is Storage, "a tensor's storage must be loaded")
    _refuse_unless(
        _naturals(size) and _naturals(stride) and len(size) == len(stride),
        "a tensor's size and stride must be tuples of non-negative ints of one length",
    )
    _refuse_unless(
        _naturals((storage_offset,)), "the storage offset must be an int >= 0"
    )
    _refuse_unless(
        type(backward_hooks) is OrderedDict and not backward_hooks and not metadata,
        "a tensor with backward hooks or metadata cannot be loaded",
    )
    _refuse_unless(type(requires_grad) is bool, "requires_grad must be a bool")
    _refuse_unless(
        not requires_grad or storage.dtype.is_floating_point,
        f"a tensor of dtype {storage.dtype} cannot require grad",
    )
    needed = storage_offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if 0 in size:
        needed = 0  # an empty tensor reads nothing, wherever it starts
    _refuse_unless(
        needed <= len(storage),
        f"a tensor of size {list(size)}, stride {list(stride)} and offset "
        f"{storage_offset} needs {needed} elements, but its storage has "
        f"{len(storage)}",
    )
    return _rebuild(Tensor, storage, (size, stride, storage_offset), requires_grad)


def rebuild_parameter(
    data: Tensor, requires_grad: bool, backward_hooks: OrderedDict[Any, Any]
) -> Parameter:
    """``torch._utils._rebuild_parameter``: a ``Parameter`` of a loaded tensor."""
    _refuse_unless(type(data) is Tensor, "a Parameter must wrap a tensor")
    _refuse_unless(type(requires_grad) is bool, "requires_grad must be a bool")
    _refuse_unless(
        type(backward_hooks) is OrderedDict and not backward_hooks,
        "a Parameter with backward hooks cannot be loaded",
    )
    _refuse_unless(
        not requires_grad or data.dtype.is_floating_point,
        f"a Parameter of dtype {data.dtype} cannot require grad",
    )
    return Parameter(data, requires_grad)


def rebuild_size(sizes: tuple[int, ...]) -> Size:
    """``torch.Size(sizes)``: a shape, of non-negative ints."""
    _refuse_unless(_naturals(sizes), "a Size must be a tuple of ints >= 0")
    return Size(sizes)


def rebuild_set(items: list[Any]) -> set[Any]:
    """``builtins.set(items)``, as pickle writes a set: of numbers and strings."""
    plain = (int, float, str, bool, type(None))
    _refuse_unless(
        type(items) is list and all(type(item) in plain for item in items),
        "a set must be made from a list of numbers and strings",
    )
    return set(items)


def rebuild_bytes(text: str, encoding: str) -> bytes:
    """``_codecs.encode(text, "latin1")``: how protocol 2 writes bytes."""
    _refuse_unless(
        type(text) is str and encoding == "latin1",
        "bytes must be made from a str encoded as latin1",
    )
    return text.encode("latin1")


def _naturals(values: Any) -> bool:
    """Whether ``values`` is a tuple of non-negative ints (bools excluded)."""
    return type(values) is tuple and all(type(v) is int and v >= 0 for v in values)


def _refuse_unless(condition: bool, reason: str) -> None:
    if not condition:
        raise pickle.UnpicklingError(reason)


# The only names a pickle may import (with GLOBAL), and what each stands for.
# Of these, REDUCE may call only OrderedDict and the rebuild functions.
ALLOWED_GLOBALS: dict[str, Any] = {
    "collections.OrderedDict": OrderedDict,
    "builtins.set": rebuild_set,
    "_codecs.encode": rebuild_bytes,
    "torch._utils._rebuild_tensor_v2": rebuild_tensor_v2,
    "torch._utils._rebuild_parameter": rebuild_parameter,
    "torch.Size": rebuild_size,
    "torch.FloatStorage": StorageType(dtypes.float32),
    "torch.DoubleStorage": StorageType(dtypes.float64),
    "torch.LongStorage": StorageType(dtypes.int64),
    "torch.BoolStorage": StorageType(dtypes.bool_),
    "torch.HalfStorage": StorageType(dtypes.float16),
    "torch.BFloat16Storage": StorageType(dtypes.bfloat16),
    "torch.IntStorage": StorageType(dtypes.int32),
    "torch.ShortStorage": StorageType(dtypes.int16),
    "torch.CharStorage": StorageType(dtypes.int8),
    "torch.ByteStorage": StorageType(dtypes.uint8),
    "torch.ComplexFloatStorage": StorageType(complex64),
    "torch.ComplexDoubleStorage": StorageType(complex128),
    **{f"torch.{d.name}": d for d in dtypes.ALL_DTYPES},
    "torch.complex64": complex64,
    "torch.complex128": complex128,
}
# torch's name for the storage class of each dtype (for save).
STORAGE_NAMES = {
    kind.dtype: name.removeprefix("torch.")
    for name, kind in ALLOWED_GLOBALS.items()
    if isinstance(kind, StorageType)
}
CALLABLE_GLOBALS = (
    OrderedDict,
    rebuild_tensor_v2,
    rebuild_parameter,
    rebuild_size,
    rebuild_set,
    rebuild_bytes,
)


# What a persistent id becomes: (storage type, key, location, numel) -> storage.
PersistentLoad = Callable[["StorageType", str, str, int], Storage]


class WeightsUnpickler:
    """Runs a pickle one instruction at a time, building data and nothing else.

    :func:`pickletools.genops` decodes each instruction (it reads exactly the
    bytes an argument has, and refuses a truncated one); the method named in
    :attr:`INSTRUCTIONS` carries it out. An instruction not in that table
    (``INST``, ``OBJ``, ``NEWOBJ``, ``EXT1``, ``BINBYTES8``...) is refused, so
    the only code a pickle can reach is what :data:`ALLOWED_GLOBALS` holds.

    Raises:
        pickle.UnpicklingError: For anything refused, or a malformed pickle.
    """

    INSTRUCTIONS = {
        "PROTO": "_proto",
        "STOP": "_stop",
        "MARK": "_mark",
        "GLOBAL": "_global",
        "REDUCE": "_reduce",
        "BUILD": "_build",
        "BINPERSID": "_persistent_load",
        "NONE": "_push_none",
        "NEWTRUE": "_push_true",
        "NEWFALSE": "_push_false",
        "BININT": "_push_arg",
        "BININT1": "_push_arg",
        "BININT2": "_push_arg",
        "LONG1": "_push_arg",
        "BINFLOAT": "_push_arg",
        "BINUNICODE": "_push_arg",
        "SHORT_BINSTRING": "_push_python2_string",
        "EMPTY_TUPLE": "_push_empty_tuple",
        "EMPTY_LIST": "_push_empty_list",
        "EMPTY_DICT": "_push_empty_dict",
        "TUPLE": "_tuple",
        "TUPLE1": "_tuple1",
        "TUPLE2": "_tuple2",
        "TUPLE3": "_tuple3",
        "APPEND": "_append",
        "APPENDS": "_appends",
        "SETITEM": "_setitem",
        "SETITEMS": "_setitems",
        "BINPUT": "_put",
        "LONG_BINPUT": "_put",
        "BINGET": "_get",
        "LONG_BINGET": "_get",
    }

    def __init__(
        self,
        data: bytes,
        persistent_load: PersistentLoad,
        encoding: str = "ASCII",
    ) -> None:
        self.data = data
        self.persistent_load = persistent_load
        self.encoding = encoding
        self.stack: list[Any] = []
        self.marks: list[list[Any]] = []
        self.memo: dict[int, Any] = {}
        self.tuple_depths: dict[int, tuple[tuple[Any, ...], int]] = {}
        self.done = False

    def load(self) -> Any:
        """The object the pickle builds."""
        try:
            for opcode, arg, position in pickletools.genops(io.BytesIO(self.data)):
                method = self.INSTRUCTIONS.get(opcode.name)
                if method is None:
                    raise pickle.UnpicklingError(
                        f"Unsupported operand {opcode.name} at byte {position}: "
                        "it does not build weights"
                    )
                getattr(self, method)(arg)
        except ValueError as error:  # genops: a truncated or unknown instruction
            raise pickle.UnpicklingError(f"the pickle is damaged: {error}") from None
        if not self.done:
            raise pickle.UnpicklingError("the pickle ends before STOP")
        result = self.stack.pop()
        if nested_too_deep(result):
            raise pickle.UnpicklingError(
                f"Containers are nested more than {MAX_NESTING} deep (or inside "
                "themselves)"
            )
        return result

    # -- the stack and the memo ------------------------------------------

    def _pop(self) -> Any:
        if not self.stack:
            raise pickle.UnpicklingError("the pickle takes from an empty stack")
        return self.stack.pop()

    def _top(self) -> Any:
        if not self.stack:
            raise pickle.UnpicklingError("the pickle takes from an empty stack")
        return self.stack[-1]

    def _mark(self, arg: None) -> None:
        if len(self.marks) >= MAX_NESTING:
            raise pickle.UnpicklingError(f"more than {MAX_NESTING} nested MARKs")
        self.marks.append(self.stack)
        self.stack = []

    def _pop_mark(self) -> list[Any]:
        if not self.marks:
            raise pickle.UnpicklingError("the pickle closes a MARK it never opened")
        items, self.stack = self.stack, self.marks.pop()
        return items

    def _put(self, index: int) -> None:
        self.memo[index] = self._top()

    def _get(self, index: int) -> None:
        if index not in self.memo:
            raise pickle.UnpicklingError(f"the memo has no entry {index}")
        self.stack.append(self.memo[index])

    def _proto(self, version: int) -> None:
        if not 2 <= version <= pickle.HIGHEST_PROTOCOL:
            raise pickle.UnpicklingError(f"unsupported pickle protocol {version}")

    def _stop(self, arg: None) -> None:
        if self.marks or len(self.stack) != 1:
            raise pickle.UnpicklingError("the pickle stops with a malformed stack")
        self.done = True

    # -- plain values ----------------------------------------------------

    def _push_arg(self, value: Any) -> None:
        self.stack.append(value)

    def _push_python2_string(self, text: str) -> None:
        """A Python 2 ``str``: bytes, which genops gives as latin-1 text."""
        self.stack.append(text.encode("latin-1").decode(self.encoding))

    def _push_none(self, arg: None) -> None:
        self.stack.append(None)

    def _push_true(self, arg: None) -> None:
        self.stack.append(True)

    def _push_false(self, arg: None) -> None:
        self.stack.append(False)

    def _push_empty_tuple(self, arg: None) -> None:
        self.stack.append(())

    def _push_empty_list(self, arg: None) -> None:
        self.stack.append([])

    def _push_empty_dict(self, arg: None) -> None:
        self.stack.append({})

    # -- containers ------------------------------------------------------

    def _tuple(self, arg: None) -> None:
        self._push_tuple(self._pop_mark())

    def _tuple1(self, arg: None) -> None:
        self._push_tuple([self._pop()])

    def _tuple2(self, arg: None) -> None:
        second = self._pop()
        self._push_tuple([self._pop(), second])

    def _tuple3(self, arg: None) -> None:
        third, second = self._pop(), self._pop()
        self._push_tuple([self._pop(), second, third])

    def _push_tuple(self, items: list[Any]) -> None:
        """Pushes a tuple of ``items``, refusing tuples nested too deep.

        Hashing a tuple (as a dict key) recurses into the tuples inside it
        without Python's recursion limit, so their depth is checked here, as
        each is built; lists and dicts are checked once loading ends.
        """
        made = tuple(items)
        depth = 1 + max((self._depth(item) for item in made), default=0)
        if depth > MAX_NESTING:
            raise pickle.UnpicklingError(f"tuples nested more than {MAX_NESTING} deep")
        self.tuple_depths[id(made)] = (made, depth)
        self.stack.append(made)

    def _depth(self, item: Any) -> int:
        if type(item) is not tuple or id(item) not in self.tuple_depths:
            return 0
        return self.tuple_depths[id(item)][1]

    def _append(self, arg: None) -> None:
        item = self._pop()
        self._target(list).append(item)

    def _appends(self, arg: None) -> None:
        items = self._pop_mark()
        self._target(list).extend(items)

    def _setitem(self, arg: None) -> None:
        value, key = self._pop(), self._pop()
        self._set_items(self._target(dict, OrderedDict), [key, value])

    def _setitems(self, arg: None) -> None:
        items = self._pop_mark()
        self._set_items(self._target(dict, OrderedDict), items)

    def _target(self, *kinds: type) -> Any:
        """The container on top of the stack, which must be one of ``kinds``."""
        target = self._top()
        if type(target) not in kinds:
            raise pickle.UnpicklingError(
                f"can only add items to a {kinds[0].__name__}, not to a "
                f"{type(target).__name__}"
            )
        return target

    def _set_items(self, target: dict[Any, Any], items: list[Any]) -> None:
        if len(items) % 2:
            raise pickle.UnpicklingError("SETITEMS needs pairs of keys and values")
        for key, value in zip(items[::2], items[1::2]):
            try:
                target[key] = value
            except TypeError:
                raise pickle.UnpicklingError(
                    f"a dict key cannot be a {type(key).__name__}"
                ) from None

    # -- the three instructions that could run code ----------------------

    def _global(self, name: str) -> None:
        """``GLOBAL module name``: only names in ``ALLOWED_GLOBALS``."""
        full_name = name.replace(" ", ".", 1)
        if full_name in OTHER_STORAGES:
            raise pickle.UnpicklingError(
                f"the file holds {OTHER_STORAGES[full_name]} tensors, and "
                "this engine has no such dtype"
            )
        if full_name not in ALLOWED_GLOBALS:
            raise pickle.UnpicklingError(
                f"Unsupported global: GLOBAL {full_name} was not an allowed global "
                "by default"
            )
        self.stack.append(ALLOWED_GLOBALS[full_name])

    def _reduce(self, arg: None) -> None:
        """``REDUCE``: calls the function under its arguments, if allowed."""
        args = self._pop()
        function = self._pop()
        if not any(function is allowed for allowed in CALLABLE_GLOBALS):
            raise pickle.UnpicklingError(
                "Trying to call reduce for unrecognized function (a "
                f"{type(function).__name__})"
            )
        if type(args) is not tuple or (function is OrderedDict and args):
            raise pickle.UnpicklingError(f"bad arguments for {function!r}")
        try:
            self.stack.append(function(*args))
        except TypeError as error:  # a wrong number of arguments
            raise pickle.UnpicklingError(f"bad arguments: {error}") from None

    def _build(self, arg: None) -> None:
        """``BUILD``: sets attributes, allowed only on an ``OrderedDict``, as
        ``state_dict`` keeps its ``_metadata`` there."""
        state = self._pop()
        target = self._top()
        if type(target) is not OrderedDict or type(state) is not dict:
            raise pickle.UnpicklingError(
                "Can only build an OrderedDict from a dict, but got a "
                f"{type(target).__name__}"
            )
        if not all(type(key) is str and not hasattr(target, key) for key in state):
            raise pickle.UnpicklingError(
                "an OrderedDict's attributes must be new names (not its methods)"
            )
        vars(target).update(state)

    def _persistent_load(self, arg: None) -> None:
        """``BINPERSID``: a storage, ``("storage", type, key, location, numel)``."""
        pid = self._pop()
        if not (
            type(pid) is tuple
            and len(pid) == 5
            and pid[0] == "storage"
            and type(pid[1]) is StorageType
            and type(pid[2]) is str
            and type(pid[3]) is str
            and type(pid[4]) is int
            and pid[4] >= 0
        ):
            raise pickle.UnpicklingError(
                "Only persistent_load of storage is allowed, as "
                "('storage', torch.FloatStorage, key, location, numel)"
            )
        _, storage_type, key, location, numel = pid
        self.stack.append(self.persistent_load(storage_type, key, location, numel))


def nested_too_deep(obj: Any) -> bool:
    """Whether ``obj`` has containers nested more than ``MAX_NESTING`` deep.

    Loading builds nesting without recursion, but whoever uses the result
    (printing it, comparing it, saving it) recurses, and would fail there. A
    container inside itself counts as nesting without end.
    """
    deepest: dict[int, int] = {}
    pending = [(obj, 1)]
    while pending:
        item, depth = pending.pop()
        if not isinstance(item, (list, tuple, dict)):
            continue
        if depth > MAX_NESTING:
            return True
        if deepest.get(id(item), 0) >= depth:
            continue
        deepest[id(item)] = depth
        children = list(item)
        if isinstance(item, dict):
            children += [*item.values(), *getattr(item, "__dict__", {}).values()]
        pending.extend((child, depth + 1) for child in children)
    return False
