# ruff: noqa: E501  (the corpus keeps the students' own line lengths)
"""Answers for measuring the copy check (:mod:`course.similarity`).

``HONEST``: answers written independently, as different students would,
from the chapter and the exercise's statement (none from the model answer).
Any two of them, or one and the model answer, flagged is a false flag.

Copies: :func:`disguised` turns any answer into a copy a student would hand
in (every bound name changed, ``_ = None`` in each function, comments,
docstrings and ``pass`` added, two independent assignments swapped);
:func:`renamed` only renames. A copy of the model answer or of a classmate's
honest answer not flagged is a miss.
"""

from __future__ import annotations

import ast
import builtins
import keyword

HONEST: dict[str, list[str]] = {
    "1.5": [
        """
def contiguous_strides(shape):
    strides = []
    running = 1
    for size in reversed(shape):
        strides.append(running)
        running *= max(size, 1)
    return tuple(reversed(strides))
""",
        """
def contiguous_strides(shape):
    out = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        out[i] = out[i + 1] * max(shape[i + 1], 1)
    return tuple(out)
""",
        '''
def contiguous_strides(shape):
    """Row-major strides."""
    result = ()
    step = 1
    for n in shape[::-1]:
        result = (step,) + result
        if n != 0:
            step = step * n
    return result
''',
    ],
    "1.7": [
        """
def position_list(shape, strides, offset):
    positions = [offset]
    for n, s in zip(shape, strides):
        positions = [p + k * s for p in positions for k in range(n)]
    return positions
""",
        '''
def position_list(shape, strides, offset):
    """Every storage position, row-major."""
    result = [offset]
    for dim in range(len(shape)):
        new = []
        for base in result:
            for i in range(shape[dim]):
                new.append(base + i * strides[dim])
        result = new
    return result
''',
        """
def position_list(shape, strides, offset):
    out = [offset]
    for size, stride in zip(shape, strides):
        steps = [i * stride for i in range(size)]
        out = [start + step for start in out for step in steps]
    return out
""",
        """
def position_list(shape, strides, offset):
    if not shape:
        return [offset]
    inner = position_list(shape[1:], strides[1:], 0)
    return [offset + i * strides[0] + rest for i in range(shape[0]) for rest in inner]
""",
    ],
    "1.6": [
        """
def infer_shape(shape, count):
    shape = list(shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    product = 1
    for s in shape:
        if s != -1:
            product = product * s
    if unknown:
        if product == 0 or count % product != 0:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {count}")
        shape[unknown[0]] = count // product
    elif product != count:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {count}")
    return tuple(shape)
""",
        '''
import math


def infer_shape(shape, count):
    """Fill in the -1."""
    if list(shape).count(-1) >= 2:
        raise RuntimeError("only one dimension can be inferred")
    if min(shape, default=0) < -1:
        raise RuntimeError("invalid shape dimension")
    rest = math.prod(s for s in shape if s != -1)
    if -1 in shape:
        if rest == 0 or count % rest:
            raise RuntimeError(f"shape {list(shape)} is invalid for input of size {count}")
        return tuple(count // rest if s == -1 else s for s in shape)
    if rest != count:
        raise RuntimeError(f"shape {list(shape)} is invalid for input of size {count}")
    return tuple(shape)
''',
    ],
    "2.5": [
        """
from slowtorch_lib.autograd.grad_mode import GRAD_MODE


class no_grad:
    def __init__(self):
        self.saved = []

    def __enter__(self):
        self.saved.append(GRAD_MODE.enabled)
        GRAD_MODE.enabled = False

    def __exit__(self, *args):
        GRAD_MODE.enabled = self.saved.pop()

    def __call__(self, f):
        def g(*args, **kwargs):
            with self:
                return f(*args, **kwargs)
        return g
""",
        '''
from slowtorch_lib.autograd.grad_mode import GRAD_MODE


class no_grad:
    """Recording off."""

    def __init__(self):
        self.stack = []

    def __enter__(self):
        self.stack.append(GRAD_MODE.enabled)
        GRAD_MODE.enabled = False
        return self

    def __exit__(self, kind, value, tb):
        previous = self.stack.pop()
        GRAD_MODE.enabled = previous
        return False

    def __call__(self, function):
        context = self

        def wrapped(*a, **kw):
            context.__enter__()
            try:
                return function(*a, **kw)
            finally:
                context.__exit__(None, None, None)

        return wrapped
''',
        """
import functools

from slowtorch_lib.autograd.grad_mode import GRAD_MODE


class no_grad:
    def __init__(self):
        self.modes = []

    def __enter__(self):
        self.modes.append(GRAD_MODE.enabled)
        GRAD_MODE.enabled = False

    def __exit__(self, exc_type, exc, traceback):
        GRAD_MODE.enabled = self.modes.pop()

    def __call__(self, fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with no_grad():
                return fn(*args, **kwargs)

        return run
""",
    ],
    "5.3": [
        """
def blocks(size, kernel, dilation, padding, stride):
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1
""",
        """
def blocks(size, kernel, dilation, padding, stride):
    effective = (kernel - 1) * dilation + 1
    room = size + padding * 2 - effective
    return room // stride + 1
""",
        """
def blocks(size, kernel, dilation, padding, stride):
    padded = size + 2 * padding
    last_start = padded - dilation * (kernel - 1) - 1
    if last_start < 0:
        return 0
    return last_start // stride + 1
""",
        """
def blocks(size, kernel, dilation, padding, stride):
    count = 0
    start = 0
    while start + dilation * (kernel - 1) < size + 2 * padding:
        count += 1
        start += stride
    return count
""",
    ],
    "5.4": [
        """
def windows(x, kernel, dilation, stride):
    n, c, h, w = x.shape
    sn, sc, sh, sw = x.stride()
    (kh, kw), (dh, dw), (th, tw) = kernel, dilation, stride
    out_h = (h - dh * (kh - 1) - 1) // th + 1
    out_w = (w - dw * (kw - 1) - 1) // tw + 1
    return x.as_strided(
        (n, c, out_h, out_w, kh, kw),
        (sn, sc, sh * th, sw * tw, sh * dh, sw * dw),
        x.storage_offset(),
    )
""",
        """
def windows(x, kernel, dilation, stride):
    shape = list(x.shape)
    strides = list(x.stride())
    outs, moves, steps = [], [], []
    for axis in (2, 3):
        i = axis - 2
        reach = (kernel[i] - 1) * dilation[i]
        outs.append((shape[axis] - reach - 1) // stride[i] + 1)
        moves.append(strides[axis] * stride[i])
        steps.append(strides[axis] * dilation[i])
    size = tuple(shape[:2] + outs + list(kernel))
    return x.as_strided(size, tuple(strides[:2] + moves + steps), storage_offset=x.storage_offset())
""",
        '''
def windows(x, kernel, dilation, stride):
    """Windows as a view: no element copied."""

    def count(extent, k, d, s):
        return (extent - d * (k - 1) - 1) // s + 1

    height = count(x.shape[2], kernel[0], dilation[0], stride[0])
    width = count(x.shape[3], kernel[1], dilation[1], stride[1])
    st = x.stride()
    size = (x.shape[0], x.shape[1], height, width, kernel[0], kernel[1])
    steps = (st[0], st[1], st[2] * stride[0], st[3] * stride[1], st[2] * dilation[0], st[3] * dilation[1])
    return x.as_strided(size, steps, x.storage_offset())
''',
    ],
    "2.9": [
        """
def topological_order(roots):
    order = []
    visited = set()
    for root in roots:
        if root in visited:
            continue
        visited.add(root)
        stack = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            stack.append((node, True))
            for child, _ in node.next_functions:
                if child is not None and child not in visited:
                    visited.add(child)
                    stack.append((child, False))
    order.reverse()
    return order
""",
        '''
def topological_order(roots):
    """Kahn's algorithm: count the edges into each node first."""
    waiting = {}
    todo = list(roots)
    seen = set(todo)
    while todo:
        node = todo.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            waiting[child] = waiting.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                todo.append(child)
    ready = [r for r in dict.fromkeys(roots) if waiting.get(r, 0) == 0]
    result = []
    while ready:
        node = ready.pop()
        result.append(node)
        for child, _ in node.next_functions:
            if child is None:
                continue
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    return result
''',
        """
def topological_order(roots):
    done = set()
    post = []
    for start in roots:
        if start in done:
            continue
        done.add(start)
        path = [start]
        iterators = [iter(start.next_functions)]
        while path:
            for child, _ in iterators[-1]:
                if child is not None and child not in done:
                    done.add(child)
                    path.append(child)
                    iterators.append(iter(child.next_functions))
                    break
            else:
                post.append(path.pop())
                iterators.pop()
    return list(reversed(post))
""",
    ],
    "4.8": [
        '''
class BatchSampler:
    """Groups the indices of ``sampler`` into lists of ``batch_size``."""

    def __init__(self, sampler, batch_size, drop_last):
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if len(batch) > 0 and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
''',
        '''
import math


class BatchSampler:
    """Groups the indices of ``sampler`` into lists of ``batch_size``."""

    def __init__(self, sampler, batch_size, drop_last):
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = list(self.sampler)
        for start in range(0, len(indices), self.batch_size):
            chunk = indices[start : start + self.batch_size]
            if len(chunk) < self.batch_size and self.drop_last:
                return
            yield chunk

    def __len__(self):
        count = len(self.sampler) / self.batch_size
        return math.floor(count) if self.drop_last else math.ceil(count)
''',
        '''
class BatchSampler:
    """Groups the indices of ``sampler`` into lists of ``batch_size``."""

    def __init__(self, sampler, batch_size, drop_last):
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        current = []
        for index in self.sampler:
            current += [index]
            if len(current) < self.batch_size:
                continue
            yield current
            current = []
        if current:
            if not self.drop_last:
                yield current

    def __len__(self):
        n = len(self.sampler)
        full = n // self.batch_size
        if n % self.batch_size and not self.drop_last:
            full += 1
        return full
''',
    ],
    "2.7": [
        '''
def sum_to_size(input, shape):
    """``input`` summed down to ``shape``: broadcasting undone."""
    shape = list(shape)
    lead = input.dim() - len(shape)
    if lead < 0:
        raise RuntimeError(f"size {shape} is not expandable to {list(input.shape)}")
    result = input
    for _ in range(lead):
        result = result.sum(0)
    for dim, size in enumerate(shape):
        if size == result.shape[dim]:
            continue
        if size != 1:
            raise RuntimeError(f"size {shape} is not expandable to {list(input.shape)}")
        result = result.sum(dim, keepdim=True)
    return result
''',
        '''
def sum_to_size(input, shape):
    """``input`` summed down to ``shape``: broadcasting undone."""
    target = (1,) * (input.dim() - len(shape)) + tuple(shape)
    if len(target) != input.dim():
        raise RuntimeError("shape is not expandable to the input's shape")
    dims = []
    for d, (want, have) in enumerate(zip(target, input.shape)):
        if want == have:
            pass
        elif want == 1:
            dims.append(d)
        else:
            raise RuntimeError("shape is not expandable to the input's shape")
    dims = list(range(input.dim() - len(shape))) + [d for d in dims if d >= input.dim() - len(shape)]
    summed = input.sum(dim=tuple(dims), keepdim=True) if dims else input
    return summed.reshape(tuple(shape))
''',
    ],
    "3.10": [
        '''
from math import prod

from slowtorch_lib.safetensors import DTYPES_BY_NAME, SafetensorError


def naturals(values):
    """Whether ``values`` is a list of non-negative ints (bools excluded)."""
    return isinstance(values, list) and all(type(v) is int and v >= 0 for v in values)


def check_entries(header, buffer_length):
    """Each tensor's (dtype, shape, (begin, end)), checked against the buffer."""
    result = {}
    for key, entry in header.items():
        if not isinstance(entry, dict):
            raise SafetensorError(f"{key} is not an object")
        if sorted(entry) != ["data_offsets", "dtype", "shape"]:
            raise SafetensorError(f"{key} has the wrong fields")
        name = entry["dtype"]
        if name not in DTYPES_BY_NAME:
            raise SafetensorError(f"unknown dtype {name}")
        shape = entry["shape"]
        offsets = entry["data_offsets"]
        if not naturals(shape):
            raise SafetensorError(f"bad shape {shape}")
        if not naturals(offsets) or len(offsets) != 2:
            raise SafetensorError(f"bad offsets {offsets}")
        start, stop = offsets
        if start > stop or stop > buffer_length:
            raise SafetensorError("offsets outside the buffer")
        kind = DTYPES_BY_NAME[name]
        if stop - start != kind.itemsize * prod(shape):
            raise SafetensorError("wrong number of bytes")
        result[key] = (kind, tuple(shape), (start, stop))
    spans = sorted(span for _, _, span in result.values())
    expected = 0
    for start, stop in spans:
        if start != expected:
            raise SafetensorError("a hole or an overlap in the buffer")
        expected = stop
    if expected != buffer_length:
        raise SafetensorError("bytes left at the end of the buffer")
    return result
''',
        '''
from math import prod

from slowtorch_lib.safetensors import DTYPES_BY_NAME, SafetensorError


def naturals(values):
    """Whether ``values`` is a list of non-negative ints (bools excluded)."""
    return isinstance(values, list) and all(type(v) is int and v >= 0 for v in values)


def check_one(name, info, buffer_length):
    if type(info) is not dict or set(info.keys()) != {"dtype", "shape", "data_offsets"}:
        raise SafetensorError(f"tensor {name}: bad entry")
    dtype = DTYPES_BY_NAME.get(info["dtype"]) if isinstance(info["dtype"], str) else None
    if dtype is None:
        raise SafetensorError(f"tensor {name}: unknown dtype")
    shape, offsets = info["shape"], info["data_offsets"]
    valid = naturals(shape) and naturals(offsets) and len(offsets) == 2
    if not valid or not offsets[0] <= offsets[1] <= buffer_length:
        raise SafetensorError(f"tensor {name}: bad shape or offsets")
    if offsets[1] - offsets[0] != prod(shape) * dtype.itemsize:
        raise SafetensorError(f"tensor {name}: size does not match the shape")
    return dtype, tuple(shape), tuple(offsets)


def check_entries(header, buffer_length):
    """Each tensor's (dtype, shape, (begin, end)), checked against the buffer."""
    entries = {name: check_one(name, info, buffer_length) for name, info in header.items()}
    end = 0
    for begin, stop in sorted(entry[2] for entry in entries.values()):
        if begin != end:
            raise SafetensorError("tensors do not cover the buffer in order")
        end = stop
    if end != buffer_length:
        raise SafetensorError("the buffer is longer than its tensors")
    return entries
''',
    ],
    "4.7": [
        """
import math


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    if len(grads) == 0:
        return torch.tensor(0.0)
    if norm_type == math.inf:
        total = max(g.abs().max() for g in grads)
    else:
        total = sum((g.abs() ** norm_type).sum() for g in grads) ** (1 / norm_type)
    if error_if_nonfinite and (total.isnan() or total.isinf()):
        raise RuntimeError("non-finite total norm")
    coef = max_norm / (total + 1e-6)
    if coef < 1:
        for g in grads:
            g.mul_(coef)
    return total
""",
        '''
import math


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale all gradients together."""
    params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
    with_grad = [p for p in params if p.grad is not None]
    if not with_grad:
        return torch.tensor(0.0)
    values = []
    for p in with_grad:
        values.extend(abs(v) for v in p.grad.reshape(-1).tolist())
    if norm_type == float("inf"):
        norm = max(values)
    else:
        norm = sum(v ** norm_type for v in values) ** (1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(norm):
        raise RuntimeError("the norm is not finite")
    scale = min(1.0, max_norm / (norm + 1e-6))
    with torch.no_grad():
        for p in with_grad:
            p.grad.mul_(scale)
    return torch.tensor(norm)
''',
    ],
}


# --- copies ---------------------------------------------------------------------

KEEP = set(keyword.kwlist) | set(dir(builtins)) | {"self", "torch", "math"}


class _Rename(ast.NodeTransformer):
    """Every name the cell binds, and every attribute it sets, renamed."""

    def __init__(self, bound: set[str], prefix: str) -> None:
        self.new = {name: f"{prefix}{i}" for i, name in enumerate(sorted(bound))}

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.new.get(node.id, node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self.new.get(node.arg, node.arg)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        node.attr = self.new.get("." + node.attr, node.attr)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        node.name = self.new.get(node.name, node.name)
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.generic_visit(node)
        node.name = self.new.get(node.name, node.name)
        return node


def _bound(tree: ast.AST, keep: set[str]) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, ast.arg) and node.arg != "self":
            found.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            if not node.name.startswith("__"):
                found.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                found.add("." + node.attr)
    return found - keep


def renamed(source: str, keep: set[str] = frozenset(), prefix: str = "x") -> str:
    """``source`` with every name it binds renamed, except those in ``keep``
    (the name the exercise asks for, which a copier keeps)."""
    tree = ast.parse(source)
    tree = _Rename(_bound(tree, KEEP | set(keep)), prefix).visit(tree)
    return ast.unparse(tree)


class _Pad(ast.NodeTransformer):
    """``_ = None`` and ``pass`` in each function, a docstring, and the first
    two independent assignments of a block swapped."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        padding = [
            ast.Expr(ast.Constant("My own implementation.")),
            ast.Assign([ast.Name("_", ast.Store())], ast.Constant(None)),
            ast.Assign([ast.Name("unused", ast.Store())], ast.Constant(0)),
        ]
        node.body = padding + node.body + [ast.Pass()]
        return node

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        body = getattr(node, "body", None)
        if isinstance(body, list):
            for i in range(len(body) - 1):
                one, two = body[i], body[i + 1]
                if _independent(one, two):
                    body[i], body[i + 1] = two, one
                    break
        return node


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _independent(one: ast.stmt, two: ast.stmt) -> bool:
    simple = (ast.Assign,)
    if not (isinstance(one, simple) and isinstance(two, simple)):
        return False
    if any(isinstance(n, ast.Call) for n in ast.walk(one) for _ in [0]) or any(
        isinstance(n, ast.Call) for n in ast.walk(two)
    ):
        return False
    written = {
        n.id for t in one.targets for n in ast.walk(t) if isinstance(n, ast.Name)
    }
    written2 = {
        n.id for t in two.targets for n in ast.walk(t) if isinstance(n, ast.Name)
    }
    return not (written & _names(two)) and not (written2 & _names(one))


def disguised(source: str, keep: set[str] = frozenset(), prefix: str = "y") -> str:
    """A copy as handed in: renamed, padded with no-ops, comments added,
    independent statements swapped, re-laid out."""
    tree = _Pad().visit(ast.parse(renamed(source, keep, prefix)))
    text = ast.unparse(ast.fix_missing_locations(tree))
    lines = ["# Written by me, after reading the chapter."]
    for line in text.splitlines():
        lines.append(line + ("  # step" if line.strip().startswith("return") else ""))
    return "\n".join(lines).replace("    ", "  ") + "\n"


# --- disguises that change the form, not the work ---------------------------------


def _blocks(node: ast.AST) -> list[tuple[ast.AST, str]]:
    return [
        (node, field)
        for field in ("body", "orelse", "finalbody")
        if isinstance(getattr(node, field, None), list)
        and getattr(node, field)
        and isinstance(getattr(node, field)[0], ast.stmt)
    ]


def _harmless(index: int) -> ast.stmt:
    """A statement whose result reaches nothing: a call of a pure builtin, or
    a name no one reads given such a call's value."""
    calls = ["len(())", "abs(0)", "_pad = len([])", "isinstance(0, int)"]
    return ast.parse(calls[index % len(calls)]).body[0]


def padded(source: str) -> str:
    """A harmless call (``len(())`` and the like) between every two statements
    of every block."""
    tree = ast.parse(source)
    count = 0
    for node in ast.walk(tree):
        for owner, field in _blocks(node):
            block: list[ast.stmt] = []
            for statement in getattr(owner, field):
                if block and not isinstance(owner, ast.Module):
                    block.append(_harmless(count))
                    count += 1
                block.append(statement)
            setattr(owner, field, block)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def inserted(source: str, every: int = 3) -> str:
    """A statement that acts but changes no result (``print(end="")``) after
    every ``every`` statements of each function: the order of the rest kept."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        block: list[ast.stmt] = []
        for i, statement in enumerate(node.body):
            block.append(statement)
            if i % every == every - 1 and i < len(node.body) - 1:
                block.append(ast.parse('print(end="")').body[0])
        node.body = block
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


FLIP = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}


class _Swap(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)):
            node.left, node.right = node.right, node.left
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        node.values.reverse()
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) == 1:
            op = node.ops[0]
            if isinstance(op, (ast.Eq, ast.NotEq)):
                node.left, node.comparators = node.comparators[0], [node.left]
            elif type(op) in FLIP:
                node = ast.Compare(node.comparators[0], [FLIP[type(op)]()], [node.left])
        return node


def swapped(source: str) -> str:
    """Every commutative operator's operands swapped (``+ * & | ^``, ``==``,
    ``!=``, ``and``, ``or``), and ``a < b`` written ``b > a``."""
    tree = _Swap().visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _while(loop: ast.For) -> list[ast.stmt] | None:
    """``for i in range(...)`` as ``i = start`` and ``while`` with a counter."""
    call = loop.iter
    if not (
        isinstance(loop.target, ast.Name)
        and isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "range"
        and 1 <= len(call.args) <= 3
        and not loop.orelse
        and not any(isinstance(n, ast.Continue) for n in ast.walk(loop))
    ):
        return None
    arguments = list(call.args)
    start = arguments[0] if len(arguments) > 1 else ast.Constant(0)
    stop = arguments[1] if len(arguments) > 1 else arguments[0]
    step = ast.unparse(arguments[2]) if len(arguments) == 3 else "1"
    if not step.lstrip("-").isdigit():
        return None
    name = loop.target.id
    test = "<" if int(step) > 0 else ">"
    head = ast.parse(
        f"{name} = {ast.unparse(start)}\n"
        f"while {name} {test} {ast.unparse(stop)}:\n    {name} += {step}\n"
    ).body
    start_statement, loop_statement = head
    assert isinstance(loop_statement, ast.While)
    loop_statement.body = [*loop.body, *loop_statement.body]
    return [start_statement, loop_statement]


class _Whiles(ast.NodeTransformer):
    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for owner, field in _blocks(node):
            block: list[ast.stmt] = []
            for statement in getattr(owner, field):
                rewritten = (
                    _while(statement) if isinstance(statement, ast.For) else None
                )
                block += rewritten or [statement]
            setattr(owner, field, block)
        return node


def whiled(source: str) -> str:
    """Every ``for`` over a ``range`` turned into a ``while`` with a counter."""
    tree = _Whiles().visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


class _Loops(ast.NodeTransformer):
    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for owner, field in _blocks(node):
            block: list[ast.stmt] = []
            for statement in getattr(owner, field):
                block += _loop(statement) or [statement]
            setattr(owner, field, block)
        return node


def _loop(statement: ast.stmt) -> list[ast.stmt] | None:
    """``v = [e for x in xs if c]`` as ``v = []`` and a loop of ``append``."""
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and isinstance(statement.value, ast.ListComp)
    ):
        return None
    name = statement.targets[0].id
    built = statement.value
    inner: ast.stmt = ast.parse(f"{name}.append(0)").body[0]
    inner.value.args = [built.elt]  # type: ignore[attr-defined]
    for generator in reversed(built.generators):
        for condition in reversed(generator.ifs):
            inner = ast.If(condition, [inner], [])
        inner = ast.For(generator.target, generator.iter, [inner], [])
    return [ast.parse(f"{name} = []").body[0], inner]


def looped(source: str) -> str:
    """Every list comprehension given a name written as a loop of ``append``."""
    tree = _Loops().visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def everything(source: str, keep: set[str] | None = None) -> str:
    """Every disguise at once: renamed, loops rewritten, operands swapped,
    padded with harmless calls and with statements that act, commented."""
    text = renamed(source, keep or set(), prefix="w")
    for disguise in (looped, whiled, swapped, padded, inserted):
        text = disguise(text)
    return disguised(text, keep or set(), prefix="q")


#: The disguises measured, by kind: each turns an answer into a copy.
DISGUISES = {
    "renamed": lambda source, keep: renamed(source, keep),
    "disguised": lambda source, keep: disguised(source, keep),
    "padded": lambda source, keep: padded(source),
    "swapped": lambda source, keep: swapped(source),
    "while": lambda source, keep: whiled(source),
    "loop": lambda source, keep: looped(source),
    "inserted": lambda source, keep: inserted(source),
    "everything": everything,
}


# --- the measurement ------------------------------------------------------------


def exercise_name(exercise: str) -> str:
    from course.checking import load

    return load(exercise).name


#: What :func:`measure` returns, by kind.
KINDS = (
    "false flags", "honest pairs", "caught", "missed", "too small",
    "clustered", "not clustered", "honest clusters",
)  # fmt: skip


def _changed(source: str, copy: str) -> bool:
    """Whether a disguise changed the code (not only its layout)."""
    return ast.dump(ast.parse(source)) != ast.dump(ast.parse(copy))


def measure() -> dict[str, list[tuple[str, float]]]:
    """Runs the copy check on the corpus. Returns, by kind (:data:`KINDS`),
    each comparison's label and resemblance: ``false flags`` and ``honest
    pairs`` (every pair of independent answers, and each against the model
    answer); ``caught`` and ``missed``: each disguise of :data:`DISGUISES`
    that changes the code, applied to each model answer large enough to be
    compared (labelled ``model <kind>``) and to each classmate's honest
    answer (``classmate <kind>``); ``too small``: copies of answers under the
    size floor, never flagged by design; ``clustered`` and ``not clustered``:
    three students handing in a short model answer (as it is, renamed,
    padded, operands swapped), found as a cluster or not; ``honest
    clusters``: clusters among the honest short answers and the model's."""
    from course import similarity

    prints = similarity.model_prints()
    found: dict[str, list[tuple[str, float]]] = {k: [] for k in KINDS}

    def copies(exercise: str, source: str, label: str, check: object) -> None:
        given = similarity.given_units(prints, exercise)
        size = similarity.Answer.of(source, given).size
        keep = {exercise_name(exercise)}
        for kind, disguise in DISGUISES.items():
            copy = disguise(source, keep)
            if not _changed(source, copy):
                continue
            name = f"{exercise} {label} {kind} (size {size})"
            if size < similarity.MIN_SIZE:
                found["too small"].append((name, 0.0))
                continue
            value = check(copy)  # type: ignore[operator]
            found["caught" if value is not None else "missed"].append(
                (name, value or 0.0)
            )

    for exercise, answers in HONEST.items():
        given = similarity.given_units(prints, exercise)
        mine = [
            similarity.Answer.of(a, given) for a in answers
        ] + similarity.model_answers(prints, exercise)
        for i, one in enumerate(mine):
            for j in range(i + 1, len(mine)):
                label = f"{exercise} honest {i} / {'model' if j >= len(answers) else j}"
                value = similarity.resemblance(one, mine[j])
                flag = similarity.flagged(one, mine[j]) is not None
                found["false flags" if flag else "honest pairs"].append((label, value))
        students = [
            (f"student{i}", exercise, answer) for i, answer in enumerate(answers)
        ]
        everyone = similarity.class_check(students, prints)
        found["false flags"] += [
            (f"{exercise} {p.one}/{p.other}", p.resemblance) for p in everyone.pairs
        ]
        models = {m.digest for m in similarity.model_answers(prints, exercise)}
        for cluster in everyone.clusters:
            found["honest clusters"].append((f"{exercise} {cluster.students}", 0.0))
        digests = [similarity.Answer.of(a, given).digest for a in answers]
        alike = sum(d in models for d in digests) + len(digests) - len(set(digests))
        if alike:
            found["honest clusters"].append((f"{exercise} identical: {alike}", 1.0))
        # Classmates: one hands in another's honest answer, disguised.
        for i, answer in enumerate(answers):

            def caught(
                copy: str,
                i: int = i,
                exercise: str = exercise,
                students: list[tuple[str, str, str]] = students,
            ) -> float | None:
                pairs = similarity.class_pairs(
                    [*students, ("copier", exercise, copy)], prints
                )
                hit = [
                    p for p in pairs if {"copier", f"student{i}"} == {p.one, p.other}
                ]
                return hit[0].resemblance if hit else None

            copies(exercise, answer, f"classmate {i}", caught)
    solutions = similarity._cells(similarity.ROOT / "solutions")
    for exercise, sources in sorted(solutions.items()):
        from course.checking import load

        if load(exercise).kind != "piece":
            continue

        def from_model(copy: str, exercise: str = exercise) -> float | None:
            return similarity.copied_from_model(exercise, copy, prints)

        copies(exercise, sources[0], "model", from_model)
        given = similarity.given_units(prints, exercise)
        size = similarity.Answer.of(sources[0], given).size
        if similarity.SHORT_FLOOR <= size < similarity.MIN_SIZE:
            keep = {exercise_name(exercise)}
            three = [
                ("a", exercise, renamed(sources[0], keep)),
                ("b", exercise, padded(sources[0])),
                ("c", exercise, swapped(renamed(sources[0], keep, prefix="k"))),
            ]
            clusters = similarity.class_check(three, prints).clusters
            label = f"{exercise} three short copies (size {size})"
            hit = any(len(c.students) == 3 for c in clusters)
            found["clustered" if hit else "not clustered"].append((label, 1.0 * hit))
    return found
