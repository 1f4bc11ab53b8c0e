"""The copy check: answers that are the same code, between students and
against the model answers.

An answer cell is reduced to what a copier cannot change without rewriting
it (:func:`tokens`):

- **names**: every name the cell binds (variables, arguments, its own
  functions and classes, the attributes it sets on ``self``) becomes ``v``,
  so renaming, even swapping two names, changes nothing; names it only reads
  (``torch``, ``math``, ``len``, an attribute of the engine) stay;
- **literals** become their type, **comments, layout, annotations and
  imports** go;
- **statements whose results reach nothing** go (:class:`_Flow`, on the
  data flow): a statement stays if it acts (returns, raises, calls what may
  act, stores an attribute, changes what an argument holds) or writes a name
  a staying statement reads; so ``len(())`` between two statements, ``_ =
  None``, ``pass``, docstrings and ``if False:`` blocks go;
- **one form for equivalent forms** (:class:`_Canon`): the operands of ``+``,
  ``*``, ``&``, ``|``, ``^``, ``==``, ``!=``, ``and``, ``or`` in one order,
  ``b > a`` as ``a < b``, ``x += y`` as ``x = x + y``, a ``while`` over a
  counter as the ``for`` over its ``range``, a loop of ``append`` as the list
  comprehension;
- **independent statements** are put in one order: runs of assignments
  without effects, each as early as the ones it depends on allow.

The code the blank notebook gives in that cell (a helper it already holds, the
signature and docstring of the stub) is left out: top-level definitions
identical to the blank's go, and so do the *shingles* (runs of
:data:`SHINGLE` tokens) that the blank cell has. Two answers are compared by
their remaining shingles (the share of the smaller answer's shingles that
the other holds) and by their statements in order (the share of the smaller
answer's tokens in a common subsequence of statements, so that statements
inserted into a copy do not hide it), whichever is more
(:func:`resemblance`). A pair is flagged when that share is at
least :data:`THRESHOLD` and both answers hold at least :data:`MIN_SIZE`
shingles of their own (:func:`flagged`): a short answer can only be written a few
ways, so that honest students meet, and says nothing. Both numbers are
measured (``tests/grading/test_similarity.py`` and ``python -m
bench.similarity``) on honest variants written independently and on
disguised copies.

:func:`model_prints` gives what the judge keeps (in ``answers.json`` for an
exported autograder): the blank cells in normal form and the model answers'
shingles and statements, hashed (no code of them);
:func:`copied_from_model` compares one answer with them, and
:func:`class_check` compares every student with every other, exercise by
exercise, and gathers *clusters*: three or more students joined by flagged
pairs, or handing in one short answer (under the size floor) identical in
normal form, which is common for a tiny piece, so it is a note ("the same
short code as 11 others"), never a pair. The notes for the gradebook are
one per exercise, at most :data:`NOTES` per student
(:func:`notebook_notes`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from course import notebook_reader
from course.parsing import parse

__all__ = [
    "Answer",
    "Cluster",
    "Copies",
    "Pair",
    "class_check",
    "class_pairs",
    "copied_from_model",
    "flagged",
    "in_order",
    "model_answers",
    "model_prints",
    "notebook_notes",
    "notes_by_exercise",
    "pairs_report",
    "resemblance",
    "shared",
    "student_notes",
    "tokens",
]

ROOT = Path(__file__).resolve().parent.parent
#: Tokens per shingle.
SHINGLE = 6
#: The share of the smaller answer's shingles found in the other.
THRESHOLD = 0.9
#: Shingles of its own (the blank's left out) an answer needs to be compared.
MIN_SIZE = 64
#: The share of the smaller answer's shingles two answers need in common to
#: be compared in full (statements in order) in a class.
CANDIDATE = 0.3
#: Identical short answers (under MIN_SIZE, at least SHORT_FLOOR shingles)
#: that make a cluster in the copies report.
CLUSTER = 3
SHORT_FLOOR = 8
#: Classmates named in one note, and notes per student in the gradebook.
NAMED = 3
NOTES = 5
#: Passes that take out dead assignments: a chain of assignments each read
#: only by the next dead one goes one link per pass. Bounded, and a single
#: pass for a cell longer than LONG characters (several times the longest
#: model answer), so that a hostile cell cannot hold the judge.
MAX_PASSES = 12
LONG = 20_000
#: Statements of an answer compared in order (a hostile cell is cut there).
MAX_LINES = 400
MODEL = "model:"
GIVEN = "given:"
ORDER = "order:"
DIGEST = "digest:"
BOUND = "v"


# --- the normal form: what a statement does ----------------------------------------

#: Functions (not bound in the cell) whose call changes nothing: a statement
#: that only calls them, or a name only they feed, reaches nothing.
PURE_FUNCTIONS = {
    "abs", "all", "any", "bool", "callable", "chr", "dict", "divmod", "enumerate",
    "filter", "float", "frozenset", "getattr", "hasattr", "hash", "id", "int",
    "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "ord",
    "pow", "range", "repr", "reversed", "round", "set", "sorted", "str", "sum",
    "tuple", "type", "zip",
}  # fmt: skip
#: Methods whose call changes nothing (of tensors, lists, dicts, strings).
PURE_METHODS = {
    "clone", "copy", "count", "detach", "dim", "get", "index", "is_contiguous",
    "item", "items", "keys", "numel", "size", "stride", "tolist", "values",
}  # fmt: skip
#: Operators whose operands may be swapped (``+`` also joins lists: the copy
#: check only asks whether two answers are the same code, not what they mean).
COMMUTATIVE = (ast.Add, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)
#: A comparison and the one it reads as with its operands swapped.
FLIPPED: dict[type, type] = {
    ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq,
}  # fmt: skip
EFFECTS = (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)
COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try)


def _root(node: ast.AST) -> str | None:
    """The name an attribute or item chain starts from (``x`` of ``x.a[0].b``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _pure(node: ast.AST | None, bound: Collection[str] = ()) -> bool:
    """Whether evaluating ``node`` changes nothing: it calls only the pure
    functions and methods (:data:`PURE_FUNCTIONS`, :data:`PURE_METHODS`) and
    reads attributes and items (taken as pure), never yields or awaits."""
    if node is None:
        return True
    for inner in ast.walk(node):
        if isinstance(inner, EFFECTS):
            return False
        if isinstance(inner, ast.Call):
            function = inner.func
            if isinstance(function, ast.Name):
                if function.id in bound or function.id not in PURE_FUNCTIONS:
                    return False
            elif isinstance(function, ast.Attribute):
                if function.attr not in PURE_METHODS:
                    return False
            else:
                return False
    return True


def _sorted_operands(node: ast.BinOp, key: Callable[[ast.AST], str]) -> ast.expr:
    """``a + b + c`` with its operands in one order (by their normal form)."""
    operator = type(node.op)
    operands: list[ast.expr] = []
    stack: list[ast.expr] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.BinOp) and isinstance(item.op, operator):
            stack += [item.right, item.left]
        else:
            operands.append(item)
    operands.sort(key=key)
    out = operands[0]
    for operand in operands[1:]:
        out = ast.BinOp(out, operator(), operand)
    return out


class _Canon(ast.NodeTransformer):
    """Puts equivalent forms in one form: commutative operands in one order,
    ``x += y`` as ``x = x + y``, ``b > a`` as ``a < b``, ``range(0, n, 1)``
    as ``range(n)``, a ``while`` over a counter as the ``for`` over its range,
    and a list built by a loop of ``append`` as the comprehension."""

    def __init__(self, key: Callable[[ast.AST], str]) -> None:
        self.key = key

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, COMMUTATIVE):
            return _sorted_operands(node, self.key)
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        node.values.sort(key=self.key)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) != 1 or type(node.ops[0]) not in FLIPPED:
            return node
        left, right = node.left, node.comparators[0]
        flipped = FLIPPED[type(node.ops[0])]
        swap = not isinstance(node.ops[0], (ast.Eq, ast.NotEq)) or (
            self.key(right) < self.key(left)
        )
        if swap:
            return ast.Compare(right, [flipped()], [left])
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            return node
        value = ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value)
        return self.visit(ast.Assign([node.target], value))

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "range":
            arguments = list(node.args)
            if len(arguments) == 3 and _constant(arguments[2], 1):
                arguments.pop()
            if len(arguments) == 2 and _constant(arguments[0], 0):
                arguments.pop(0)
            node.args = arguments
        return node

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, field, _comprehensions(_for_loops(block)))
        return node


def _constant(node: ast.AST, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value == value


def _step_of(statement: ast.stmt, name: str) -> int | None:
    """The constant ``k`` if ``statement`` is ``name = name + k`` or ``name =
    name - k`` (after :class:`_Canon`), else None."""
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and _is_name(statement.targets[0], name)
        and isinstance(statement.value, ast.BinOp)
        and isinstance(statement.value.op, (ast.Add, ast.Sub))
    ):
        return None
    value = statement.value
    if isinstance(value.op, ast.Sub) and not _is_name(value.left, name):
        return None
    others = [side for side in (value.left, value.right) if not _is_name(side, name)]
    if len(others) != 1:
        return None
    step = _integer(others[0])
    if step is None:
        return None
    return -step if isinstance(value.op, ast.Sub) else step


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _integer(node: ast.AST) -> int | None:
    """The value of an integer literal (``3``, ``-1``), else None."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = -1, node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def _counted(before: list[ast.stmt], loop: ast.stmt) -> ast.For | None:
    """``i = a`` (among the statements ``before`` it, none after it touching
    ``i``) then ``while i < b: ...; i = i + k`` (or ``b < i`` counting down),
    ``i`` written nowhere else in the loop and no ``continue``: the ``for i in
    range(a, b, k)`` it is, else None. The ``i = a`` is taken out of
    ``before``."""
    if not (
        isinstance(loop, ast.While)
        and not loop.orelse
        and loop.body
        and isinstance(loop.test, ast.Compare)
        and len(loop.test.ops) == 1
        and isinstance(loop.test.ops[0], ast.Lt)
    ):
        return None
    left, right = loop.test.left, loop.test.comparators[0]
    if isinstance(left, ast.Name):
        name, stop, upwards = left.id, right, True
    elif isinstance(right, ast.Name):
        name, stop, upwards = right.id, left, False
    else:
        return None
    at = _start(before, name)
    body, last = loop.body[:-1], loop.body[-1]
    step = _step_of(last, name)
    if at is None or step is None or step == 0 or (step > 0) != upwards:
        return None
    if name in {n for s in body for n in _writes(s)} or any(
        isinstance(n, ast.Continue) for s in body for n in ast.walk(s)
    ):
        return None
    start = before.pop(at)
    assert isinstance(start, ast.Assign)
    arguments = [start.value, stop]
    if step != 1:
        arguments.append(
            ast.Constant(step)
            if step > 0
            else ast.UnaryOp(ast.USub(), ast.Constant(-step))
        )
    if _constant(arguments[0], 0) and len(arguments) == 2:
        arguments.pop(0)
    call = ast.Call(ast.Name("range", ast.Load()), arguments, [])
    return ast.For(ast.Name(name, ast.Store()), call, body, [])


def _start(before: list[ast.stmt], name: str) -> int | None:
    """Where ``name = ...`` is in ``before`` if no statement after it reads
    or writes ``name``."""
    for at in range(len(before) - 1, -1, -1):
        statement = before[at]
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and _is_name(statement.targets[0], name)
            and name not in _reads(statement.value)
        ):
            return at
        if name in _reads(statement) or name in _writes(statement):
            return None
    return None


def _for_loops(block: list[ast.stmt]) -> list[ast.stmt]:
    """Each ``while`` over a counter as the ``for`` over its range
    (:func:`_counted`)."""
    out: list[ast.stmt] = []
    for statement in block:
        loop = _counted(out, statement)
        out.append(statement if loop is None else loop)
    return out


def _appended(statement: ast.stmt, name: str) -> ast.expr | None:
    """What ``statement`` appends to ``name`` if it is ``name.append(x)``."""
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return None
    call = statement.value
    if (
        isinstance(call.func, ast.Attribute)
        and call.func.attr == "append"
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == name
        and len(call.args) == 1
        and not call.keywords
    ):
        return call.args[0]
    return None


def _comprehension(loop: ast.stmt, name: str) -> ast.expr | None:
    """The comprehension a loop of ``for``/``if`` around one ``append`` to
    ``name`` builds, or None."""
    generators: list[ast.comprehension] = []
    while True:
        if isinstance(loop, ast.For) and not loop.orelse and len(loop.body) == 1:
            generators.append(ast.comprehension(loop.target, loop.iter, [], 0))
            loop = loop.body[0]
        elif (
            isinstance(loop, ast.If)
            and generators
            and not loop.orelse
            and len(loop.body) == 1
        ):
            generators[-1].ifs.append(loop.test)
            loop = loop.body[0]
        else:
            break
    element = _appended(loop, name)
    if element is None or not generators:
        return None
    if any(name in _reads(g.iter) for g in generators):
        return None
    return ast.ListComp(element, generators)


def _comprehensions(block: list[ast.stmt]) -> list[ast.stmt]:
    """``v = []`` then a loop that only appends to ``v`` as ``v = [...]``."""
    out: list[ast.stmt] = []
    for statement in block:
        start = out[-1] if out else None
        if (
            isinstance(statement, ast.For)
            and isinstance(start, ast.Assign)
            and len(start.targets) == 1
            and isinstance(start.targets[0], ast.Name)
            and isinstance(start.value, ast.List)
            and not start.value.elts
        ):
            built = _comprehension(statement, start.targets[0].id)
            if built is not None:
                out[-1] = ast.Assign(start.targets, built)
                continue
        out.append(statement)
    return out


def _bound_names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names the code binds, and the attributes it assigns."""
    names: set[str] = set()
    attributes: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            attributes.add(node.attr)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names, attributes


def _reads(node: ast.AST) -> set[str]:
    return {
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }


def _writes(node: ast.AST) -> set[str]:
    found = {
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
    }
    found |= {
        "." + n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
    }
    return found


# --- what reaches something: the data flow -------------------------------------------


@dataclass
class _Step:
    """A statement in the data flow: the names it reads and writes (a write
    through an attribute or an item writes the name it starts from), whether
    it acts by itself (a *sink*: returns, raises, calls what may act, defines),
    and the compound statements around it in its function."""

    node: ast.stmt
    reads: set[str]
    writes: set[str]
    sink: bool
    parents: list[int]


def _targets(
    targets: Sequence[ast.expr], fresh: Collection[str] = ()
) -> tuple[set[str], set[str], bool]:
    """What assigning to ``targets`` reads, which names it writes, and
    whether it writes through what may be seen elsewhere (a sink): anything
    but a name in ``fresh`` (:func:`_fresh`)."""
    reads: set[str] = set()
    writes: set[str] = set()
    unknown = False
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                writes.add(node.id)
            elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(
                node.ctx, ast.Store
            ):
                root = _root(node)
                if root is None or root not in fresh:
                    unknown = True
                else:
                    writes.add(root)
                reads |= _reads(node)
    return reads, writes, unknown


FRESH = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)


def _fresh(tree: ast.AST) -> set[str]:
    """The names only ever given new containers of the cell's own (``[]``,
    ``{}``, a comprehension, ``list(...)``): changing what they hold changes
    nothing else. Any other name may be another name for an argument's
    object, and changing it may act."""
    given: dict[str, bool] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            value = node.value
            new = isinstance(value, FRESH) or (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id in ("list", "dict", "set")
            )
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    given[target.id] = given.get(target.id, True) and new
                    continue
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                        given[name.id] = False
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            given.setdefault(node.id, False)
        elif isinstance(node, ast.arg):
            given[node.arg] = False
    for node in ast.walk(tree):  # targets of loops, with, augmented assignments
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            for name in ast.walk(node.target):
                if isinstance(name, ast.Name):
                    given[name.id] = False
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            for name in ast.walk(node.optional_vars):
                if isinstance(name, ast.Name):
                    given[name.id] = False
    return {name for name, new in given.items() if new}


class _Flow:
    """The statements of a cell as a data flow (:class:`_Step`), and which of
    them reach something: a sink, or a statement that writes a name a reaching
    statement reads, or a compound statement around a reaching one. The
    arguments of every function, the names it shares (``global``) and what the
    cell does not bind reach something (mutating an argument or a module is
    an effect)."""

    def __init__(self, tree: ast.Module, bound: set[str]) -> None:
        self.bound = bound
        self.fresh = _fresh(tree)
        self.steps: list[_Step] = []
        self.live_names: set[str] = set()
        self._collect(tree.body, [], top=True)

    def _add(self, step: _Step) -> int:
        self.steps.append(step)
        return len(self.steps) - 1

    def _collect(self, block: list[ast.stmt], parents: list[int], top: bool) -> None:
        for statement in block:
            self._statement(statement, parents, top)

    def _statement(self, node: ast.stmt, parents: list[int], top: bool) -> None:
        bound = self.bound
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._add(_Step(node, set(), {node.name}, True, parents))
            self.live_names |= {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}
            self._collect(node.body, [], top=False)
            return
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            self.live_names |= set(node.names)
        if isinstance(node, COMPOUND) or isinstance(
            node, (ast.AsyncFor, ast.AsyncWith)
        ):
            self._compound(node, parents, top)
            return
        if isinstance(node, ast.Pass) or (
            isinstance(node, ast.AnnAssign) and node.value is None
        ):
            self._add(_Step(node, set(), set(), False, parents))
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            reads, writes, unknown = _targets(targets, self.fresh)
            if isinstance(node, ast.AugAssign):
                reads |= writes
            value = node.value
            sink = unknown or not _pure(value, bound)
            if top and isinstance(value, ast.Lambda):
                sink = True  # a function of the module, by another name
            reads |= _reads(value) if value is not None else set()
            self._add(_Step(node, reads, writes, sink, parents))
            return
        if isinstance(node, ast.Expr):
            value = node.value
            if _pure(value, bound):
                self._add(_Step(node, _reads(value), set(), False, parents))
                return
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
                root = _root(value.func)
                rest = [value.func.value, *value.args, *value.keywords]
                if root in self.fresh and all(_pure(part, bound) for part in rest):
                    # a method that may change what ``root`` holds, and no more
                    self._add(_Step(node, _reads(value), {root}, False, parents))
                    return
            self._add(_Step(node, _reads(value), set(), True, parents))
            return
        # return, raise, assert, del, break, continue, imports left: they act
        self._add(_Step(node, _reads(node), set(), True, parents))

    def _compound(self, node: ast.stmt, parents: list[int], top: bool) -> None:
        header: list[ast.AST] = []
        writes: set[str] = set()
        if isinstance(node, (ast.If, ast.While)):
            header = [node.test]
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            header = [node.iter]
            writes = _targets([node.target])[1]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            header = [item.context_expr for item in node.items]
            bound = [item.optional_vars for item in node.items if item.optional_vars]
            writes = _targets(bound)[1]
        sink = not all(_pure(h, self.bound) for h in header)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            sink = True  # entering a context acts
        reads = {name for h in header for name in _reads(h)}
        here = self._add(_Step(node, reads, writes, sink, parents))
        inner = [*parents, here]
        for field in ("body", "orelse", "finalbody"):
            self._collect(getattr(node, field, []) or [], inner, top)
        for handler in getattr(node, "handlers", []) or []:
            caught = _Step(
                node,
                _reads(handler.type) if handler.type else set(),
                {handler.name} if handler.name else set(),
                False,
                inner,
            )
            self._add(caught)
            self._collect(handler.body, inner, top)

    def reaching(self) -> set[int]:
        """The ids of the statements that reach something."""
        writers: dict[str, list[int]] = {}
        for index, step in enumerate(self.steps):
            for name in step.writes:
                writers.setdefault(name, []).append(index)
        names = set(self.live_names)
        names |= {n for n in writers if n not in self.bound}
        todo = [i for i, step in enumerate(self.steps) if step.sink]
        todo += [i for name in names for i in writers.get(name, [])]
        live: set[int] = set()
        while todo:
            index = todo.pop()
            seen = index in live
            live.add(index)
            if seen:
                continue
            step = self.steps[index]
            todo += step.parents
            for name in step.reads - names:
                names.add(name)
                todo += writers.get(name, [])
        return {id(self.steps[i].node) for i in live}


class _Keep(ast.NodeTransformer):
    """Takes out the statements that reach nothing (:class:`_Flow`), and
    sorts runs of independent simple statements."""

    def __init__(
        self, kept: set[int], key: Callable[[ast.AST], str], bound: set[str]
    ) -> None:
        self.kept = kept
        self.bound = bound
        self.key = key
        self.removed = 0

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                kept = [s for s in block if id(s) in self.kept]
                self.removed += len(block) - len(kept)
                setattr(node, field, self._sorted_runs(kept))
        return node

    def _sorted_runs(self, block: list[ast.stmt]) -> list[ast.stmt]:
        """The block with each run of consecutive assignments without effects
        in one order (:meth:`_ordered`); a call that touches nothing of the
        run goes before it (the run's assignments change nothing else)."""
        out: list[ast.stmt] = []
        run: list[ast.stmt] = []
        touched: set[str] = set()
        for statement in block:
            if isinstance(statement, ast.Expr) and not _reads(statement) & touched:
                out.append(statement)
            elif isinstance(statement, ASSIGNMENTS) and _pure(
                getattr(statement, "value", None), self.bound
            ):
                run.append(statement)
                touched |= _reads(statement) | _writes(statement)
            else:  # a call's effects are unknown: it stays where it is
                out += self._ordered(run) + [statement]
                run, touched = [], set()
        return out + self._ordered(run)

    def _ordered(self, run: list[ast.stmt]) -> list[ast.stmt]:
        """The run's statements, each as early as the ones it depends on
        allow, the smallest normal form first: one order for every order
        that computes the same (so putting a block in order twice changes
        nothing)."""
        writes = [_writes(s) for s in run]
        uses = [_reads(s) | w for s, w in zip(run, writes)]
        after = [
            {i for i in range(j) if writes[i] & uses[j] or writes[j] & uses[i]}
            for j in range(len(run))
        ]
        keys = [self.key(s) for s in run]
        done: list[int] = []
        while len(done) < len(run):
            ready = [
                j for j in range(len(run)) if j not in done and after[j] <= set(done)
            ]
            done.append(min(ready, key=lambda j: keys[j]))
        return [run[j] for j in done]


ASSIGNMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign)


class _Tokens(ast.NodeVisitor):
    """The tokens of a tree: node kinds, names read, bound names as ``v``."""

    def __init__(self, names: set[str], attributes: set[str]) -> None:
        self.names = names
        self.attributes = attributes
        self.out: list[str] = []

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, (ast.expr_context, ast.Load, ast.Store)):
            return
        kind = type(node).__name__
        if isinstance(node, ast.Name):
            self.out.append(BOUND if node.id in self.names else node.id)
            return
        if isinstance(node, ast.Constant):
            self.out.append(type(node.value).__name__)
            return
        if isinstance(node, ast.Attribute):
            self.visit(node.value)
            self.out.append(
                "." + (BOUND if node.attr in self.attributes else node.attr)
            )
            return
        if isinstance(node, ast.arg):
            self.out.append(BOUND)
            return
        self.out.append(kind)
        for field, value in ast.iter_fields(node):
            if field in ("annotation", "returns", "type_comment", "decorator_list"):
                continue
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)


def _parse(source: str) -> ast.Module | None:
    try:
        return parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _no_imports(tree: ast.Module) -> ast.Module:
    """The tree without its imports and docstrings (and other bare constants)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(node, field, [s for s in block if not _inert(s)])
    return tree


def _inert(statement: ast.stmt) -> bool:
    """An import (the sandbox decides what one can use), a bare constant, or
    a block that never runs (``if False:``, ``while 0:``)."""
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(statement, (ast.If, ast.While)) and not statement.orelse:
        test = statement.test
        return isinstance(test, ast.Constant) and not test.value
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def normal_tree(source: str) -> tuple[ast.Module, set[str], set[str]] | None:
    """The cell's tree in normal form (see the module's docstring), with the
    names and attributes it binds; None if it does not parse."""
    tree = _parse(source)
    if tree is None:
        return None
    names, attributes = _bound_names(tree)

    def key(node: ast.AST) -> str:
        visitor = _Tokens(names, attributes)
        visitor.visit(node)
        return " ".join(visitor.out)

    tree = _no_imports(tree)
    rounds = MAX_PASSES if len(source) <= LONG else 1
    for _ in range(rounds):  # a statement gone may let a loop be rewritten
        tree = _Canon(key).visit(tree)
        keep = _Keep(_Flow(tree, names).reaching(), key, names)
        tree = keep.visit(tree)
        if not keep.removed:
            break
    return tree, names, attributes


def _shingles(found: Sequence[str]) -> set[str]:
    """Each run of :data:`SHINGLE` tokens, hashed (so that the judge keeps
    the model answers' shingles, never their code)."""
    runs = (
        [found]
        if len(found) < SHINGLE
        else [found[i : i + SHINGLE] for i in range(len(found) - SHINGLE + 1)]
    )
    return {_hash(" ".join(run)) for run in runs if run}


def _hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


# --- answers ---------------------------------------------------------------------


def _lines(statement: ast.stmt, names: set[str], attributes: set[str]) -> list[str]:
    """A statement as lines of tokens: a simple statement is one line; a
    compound one is its header, then its blocks' lines, one level deeper."""
    visitor = _Tokens(names, attributes)
    visitor.out.append(type(statement).__name__)
    blocks: list[list[ast.stmt]] = []
    for field, value in ast.iter_fields(statement):
        if field in ("annotation", "returns", "type_comment", "decorator_list"):
            continue
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            blocks.append(value)
        elif field == "handlers":
            for handler in value:
                blocks.append([*handler.body])
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    visitor.visit(item)
        elif isinstance(value, ast.AST):
            visitor.visit(value)
    found = [" ".join(visitor.out)]
    for block in blocks:
        for inner in block:
            found += ["  " + line for line in _lines(inner, names, attributes)]
        found.append("end")
    return found


@dataclass(frozen=True)
class Form:
    """A top-level statement in normal form: its tokens, and its lines
    (:func:`_lines`)."""

    tokens: list[str]
    lines: list[str]


def forms(source: str) -> list[Form]:
    """The cell's top-level statements in normal form."""
    return list(_forms(source))


@functools.lru_cache(maxsize=1024)
def _forms(source: str) -> tuple[Form, ...]:
    """:func:`forms`, once per text (a class hands in many cells alike: the
    blank ones first)."""
    try:
        found = normal_tree(source)
        if found is None:
            return ()
        tree, names, attributes = found
        out = []
        for statement in tree.body:
            visitor = _Tokens(names, attributes)
            visitor.visit(statement)
            out.append(Form(visitor.out, _lines(statement, names, attributes)))
        return tuple(out)
    except RecursionError:
        return ()


def units(source: str) -> list[list[str]]:
    """The cell's top-level statements in normal form, one token list each
    (imports and statements that reach nothing gone; see the module's
    docstring)."""
    return [form.tokens for form in forms(source)]


def tokens(source: str) -> list[str]:
    """The cell in normal form, as one list of tokens."""
    return [token for unit in units(source) for token in unit]


@dataclass
class Answer:
    """An answer in the form compared: its own shingles (the blank cell's
    left out; its size is their number), its own statements in order
    (each line of :func:`_lines` hashed, with its number of tokens), and a
    digest of the whole (the same for answers that are the same code)."""

    shingles: set[str]
    sequence: tuple[tuple[str, int], ...] = ()
    digest: str = ""

    @property
    def size(self) -> int:
        return len(self.shingles)

    @classmethod
    def of(cls, source: str, given: Sequence[Sequence[str]] = ()) -> Answer:
        """``given``: the blank cell's normal-form units (:func:`given_units`)."""
        blank = {" ".join(unit) for unit in given}
        own = [form for form in forms(source) if " ".join(form.tokens) not in blank]
        found = [token for form in own for token in form.tokens]
        blank_shingles = _shingles([token for unit in given for token in unit])
        shingles = _shingles(found) - blank_shingles
        lines = [line for form in own for line in form.lines if line != "end"]
        sequence = tuple((_hash(line), len(line.split())) for line in lines)
        return cls(shingles, sequence, _hash(" ".join(found)) if found else "")


def _common(one: Sequence[tuple[str, int]], other: Sequence[tuple[str, int]]) -> int:
    """The tokens of the heaviest common subsequence of two answers'
    statements (statements in order: statements inserted into a copy leave it
    as it was), each statement weighing its number of tokens."""
    previous = [0] * (len(other) + 1)
    for line, weight in one:
        current = [0]
        for j, (thing, _) in enumerate(other):
            current.append(
                previous[j] + weight
                if line == thing
                else max(previous[j + 1], current[j])
            )
        previous = current
    return previous[-1]


def in_order(one: Answer, other: Answer) -> float:
    """The share of the smaller answer's tokens that the other holds in the
    same statements in the same order (:func:`_common`); answers cut at
    :data:`MAX_LINES` statements, so that a hostile cell cannot hold the judge."""
    first, second = one.sequence[:MAX_LINES], other.sequence[:MAX_LINES]
    smaller = min(sum(w for _, w in first), sum(w for _, w in second))
    if not smaller:
        return 0.0
    return _common(first, second) / smaller


def shared(one: Answer, other: Answer) -> float:
    """The share of the smaller answer's shingles that the other holds."""
    smaller = min(len(one.shingles), len(other.shingles))
    if not smaller:
        return 0.0
    return len(one.shingles & other.shingles) / smaller


def resemblance(one: Answer, other: Answer) -> float:
    """How much of the smaller answer the other holds: its shingles
    (:func:`shared`), or its statements in order (:func:`in_order`),
    whichever is more."""
    if one.digest and one.digest == other.digest:
        return 1.0
    return max(shared(one, other), in_order(one, other))


def flagged(one: Answer, other: Answer) -> float | None:
    """The resemblance of two answers if it says they are one (both large
    enough, and alike enough), else None."""
    if min(one.size, other.size) < MIN_SIZE:
        return None
    found = resemblance(one, other)
    return found if found >= THRESHOLD else None


# --- the model answers and the blank cells ---------------------------------------


def _cells(folder: Path) -> dict[str, list[str]]:
    """Each exercise's answer cells' sources in the notebooks of ``folder``."""
    found: dict[str, list[str]] = {}
    for path in sorted(folder.glob("*.ipynb")):
        try:
            notebook = notebook_reader.read(path)
        except notebook_reader.NotANotebook:
            continue
        for cell in notebook.cells:
            for role, exercise in notebook_reader.roles(cell):
                if role == "exercise":
                    found.setdefault(exercise, []).append(cell.source)
    return found


def model_prints(root: Path = ROOT) -> dict[str, list[str]]:
    """What the judge keeps to compare answers with, per exercise, as JSON
    strings: the blank cell in normal form (``given:[...]``, public: the
    students' notebook holds it) and, for each model answer, hashes only (no
    code of it): its own shingles (``model:[...]``), its statements in order
    (``order:[...]``) and the digest of the whole (``digest:...``)."""
    found: dict[str, list[str]] = {}
    for exercise, sources in _cells(root / "exercises").items():
        for source in sources:
            found.setdefault(exercise, []).append(GIVEN + json.dumps(units(source)))
    for exercise, sources in _cells(root / "solutions").items():
        given = given_units(found, exercise)
        for source in sources:
            answer = Answer.of(source, given)
            found.setdefault(exercise, []).extend(
                [
                    MODEL + json.dumps(sorted(answer.shingles)),
                    ORDER + json.dumps(list(answer.sequence)),
                    DIGEST + answer.digest,
                ]
            )
    return found


def model_answers(prints: dict[str, list[str]], exercise: str) -> list[Answer]:
    """The model answers of ``exercise``, from :func:`model_prints`."""
    found: list[Answer] = []
    for text in prints.get(exercise, []):
        if text.startswith(MODEL):
            found.append(Answer(set(json.loads(text[len(MODEL) :]))))
        elif text.startswith(ORDER) and found:
            found[-1].sequence = tuple(
                (str(line), int(weight))
                for line, weight in json.loads(text[len(ORDER) :])
            )
        elif text.startswith(DIGEST) and found:
            found[-1].digest = text[len(DIGEST) :]
    return found


def given_units(prints: dict[str, list[str]], exercise: str) -> list[list[str]]:
    """The normal-form units of the blank cell of ``exercise``."""
    return [
        unit
        for text in prints.get(exercise, [])
        if text.startswith(GIVEN)
        for unit in json.loads(text[len(GIVEN) :])
    ]


def copied_from_model(
    exercise: str, source: str, prints: dict[str, list[str]]
) -> float | None:
    """The resemblance of an answer to a model answer if it is flagged."""
    answer = Answer.of(source, given_units(prints, exercise))
    for model in model_answers(prints, exercise):
        found = flagged(answer, model)
        if found is not None:
            return found
    return None


# --- between students ---------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    """Two students' answers to one exercise that are the same code."""

    exercise: str
    one: str
    other: str
    resemblance: float


@dataclass(frozen=True)
class Cluster:
    """Students whose answers to one exercise are the same code: a *short*
    cluster holds answers under the size floor that are identical in normal
    form (common for a small piece: a note, never an accusation); a large
    one, answers flagged in pairs (:func:`flagged`) joined. ``model``: the
    model answer is the same code too."""

    exercise: str
    students: tuple[str, ...]
    short: bool
    model: bool = False


@dataclass
class Copies:
    """What the copy check found in a class: the pairs, and the clusters."""

    pairs: list[Pair]
    clusters: list[Cluster]


def _answers(
    answers: Iterable[tuple[str, str, str]], prints: dict[str, list[str]]
) -> dict[str, dict[str, Answer]]:
    """Each exercise's answers, one per student (the largest of a student's
    notebooks: their own notebooks are never compared)."""
    by_exercise: dict[str, dict[str, Answer]] = {}
    for student, exercise, source in answers:
        answer = Answer.of(source, given_units(prints, exercise))
        if not answer.digest:
            continue
        mine = by_exercise.setdefault(exercise, {})
        previous = mine.get(student)
        if previous is None or answer.size > previous.size:
            mine[student] = answer
    return by_exercise


def _pairs(exercise: str, students: dict[str, Answer]) -> list[Pair]:
    """The flagged pairs among answers large enough to be compared. Answers
    with one digest are compared once; candidates come from an index of
    shingles, so a class is not compared pair by pair."""
    groups: dict[str, list[str]] = {}
    for student, answer in sorted(students.items()):
        if answer.size >= MIN_SIZE:
            groups.setdefault(answer.digest, []).append(student)
    found = [
        Pair(exercise, one, other, 1.0)
        for group in groups.values()
        for i, one in enumerate(group)
        for other in group[i + 1 :]
    ]
    heads = {group[0]: group for group in groups.values()}
    index: dict[str, list[str]] = {}
    for head in heads:
        for shingle in students[head].shingles:
            index.setdefault(shingle, []).append(head)
    seen: set[tuple[str, str]] = set()
    for head in heads:
        answer = students[head]
        counts: dict[str, int] = {}
        for shingle in answer.shingles:
            for other in index[shingle]:
                if other != head:
                    counts[other] = counts.get(other, 0) + 1
        for other, count in counts.items():
            key = (min(head, other), max(head, other))
            smaller = min(answer.size, students[other].size)
            if key in seen or count < CANDIDATE * smaller:
                continue
            seen.add(key)
            value = flagged(answer, students[other])
            if value is None:
                continue
            for one in heads[head]:
                for two in heads[other]:
                    found.append(Pair(exercise, min(one, two), max(one, two), value))
    return sorted(found, key=lambda p: (p.one, p.other))


def _joined(pairs: Sequence[Pair]) -> list[set[str]]:
    """The students the pairs join, in groups (connected components)."""
    group: dict[str, set[str]] = {}
    for pair in pairs:
        one = group.get(pair.one, {pair.one})
        other = group.get(pair.other, {pair.other})
        if one is not other:
            one |= other
        for student in one:
            group[student] = one
    unique = {id(g): g for g in group.values()}
    return sorted(unique.values(), key=lambda g: sorted(g))


def class_check(
    answers: Iterable[tuple[str, str, str]], prints: dict[str, list[str]]
) -> Copies:
    """Every pair of students whose answers to an exercise are flagged, and
    the clusters: groups of three or more joined by flagged pairs, and
    groups of at least :data:`CLUSTER` identical short answers.

    ``answers``: ``(student, exercise, source)``.
    """
    pairs: list[Pair] = []
    clusters: list[Cluster] = []
    for exercise, students in sorted(_answers(answers, prints).items()):
        found = _pairs(exercise, students)
        pairs += found
        models = model_answers(prints, exercise)
        for group in _joined(found):
            if len(group) >= 3:
                distinct = {students[s].digest: students[s] for s in group}
                model = any(
                    flagged(one, m) is not None
                    for one in distinct.values()
                    for m in models
                )
                clusters.append(Cluster(exercise, tuple(sorted(group)), False, model))
        short: dict[str, list[str]] = {}
        for student, answer in sorted(students.items()):
            if SHORT_FLOOR <= answer.size < MIN_SIZE:
                short.setdefault(answer.digest, []).append(student)
        for digest, members in short.items():
            if len(members) >= CLUSTER:
                model = any(m.digest == digest for m in models)
                clusters.append(Cluster(exercise, tuple(members), True, model))
    return Copies(pairs, clusters)


def class_pairs(
    answers: Iterable[tuple[str, str, str]], prints: dict[str, list[str]]
) -> list[Pair]:
    """Every pair of students whose answers to an exercise are flagged
    (:func:`class_check`'s pairs)."""
    return class_check(answers, prints).pairs


def _names(students: Sequence[str], limit: int = NAMED) -> str:
    """Students by name, the first ``limit`` of them, then how many more."""
    if len(students) <= limit:
        return ", ".join(students)
    return f"{', '.join(students[:limit])} and {len(students) - limit} others"


def pairs_report(pairs: Sequence[Pair], clusters: Sequence[Cluster] = ()) -> str:
    """The pairs and clusters as a Markdown report for the teacher: a pair
    inside a large cluster is given by its cluster."""
    lines = [
        "# Answers that are the same code",
        "",
        f"Compared blind to names, literals, layout, the order of commutative "
        f"operands, the form of loops and statements whose results reach "
        f"nothing; the blank notebook's code left out. Only answers of at "
        f"least {MIN_SIZE} shingles of their own are compared, flagged at "
        f"{THRESHOLD:.0%} of their shingles or of their statements in order "
        "shared. A flag is a reason to look, not a verdict.",
        "",
    ]
    large = [c for c in clusters if not c.short]
    inside = {(c.exercise, s) for c in large for s in c.students}
    alone = [p for p in pairs if (p.exercise, p.one) not in inside]
    if not alone and not clusters:
        return "\n".join([*lines, "No pair found.", ""])
    if alone:
        lines += ["| exercise | student | student | shared |", "|---|---|---|---|"]
        for pair in alone:
            lines.append(
                f"| {pair.exercise} | {pair.one} | {pair.other} "
                f"| {pair.resemblance:.0%} |"
            )
        lines.append("")
    if large:
        lines += ["## Groups of answers that are the same code", ""]
        for cluster in large:
            lines.append(
                f"- {cluster.exercise}: {len(cluster.students)} answers"
                + (" (and the model answer)" if cluster.model else "")
                + f": {', '.join(cluster.students)}"
            )
        lines.append("")
    short = [c for c in clusters if c.short]
    if short:
        lines += [
            "## Short answers handed in identically",
            "",
            f"Answers under {MIN_SIZE} shingles can only be written a few ways: "
            "students who write them alone often meet. Groups of at least "
            f"{CLUSTER}; a note, not a flag.",
            "",
        ]
        for cluster in short:
            lines.append(
                f"- {cluster.exercise}: {len(cluster.students)} identical answers"
                + (" (the model answer's code)" if cluster.model else "")
                + f": {', '.join(cluster.students)}"
            )
        lines.append("")
    return "\n".join(lines)


def notes_by_exercise(
    pairs: Sequence[Pair], clusters: Sequence[Cluster] = ()
) -> dict[str, dict[str, str]]:
    """For the teacher's gradebook (never a student's feedback): for each
    student, one note per exercise (to go with the notebook that holds it),
    naming at most :data:`NAMED` classmates."""
    notes: dict[str, dict[str, str]] = {}
    grouped = {(c.exercise, s) for c in clusters if not c.short for s in c.students}
    for cluster in clusters:
        for student in cluster.students:
            others = [s for s in cluster.students if s != student]
            if cluster.short:
                text = (
                    f"exercise {cluster.exercise}: the same short code as "
                    f"{len(others)} others (common for a piece this small; "
                    "see the copies report)"
                )
            else:
                text = (
                    f"exercise {cluster.exercise}: the same code as "
                    f"{_names(others)} ({len(cluster.students)} answers; see the "
                    "copies report)"
                )
            notes.setdefault(student, {})[cluster.exercise] = text
    for pair in pairs:
        if (pair.exercise, pair.one) in grouped:
            continue
        for student, other in ((pair.one, pair.other), (pair.other, pair.one)):
            notes.setdefault(student, {})[pair.exercise] = (
                f"exercise {pair.exercise}: the same code as {other}'s answer "
                f"({pair.resemblance:.0%} shared; see the copies report)"
            )
    return notes


def student_notes(
    pairs: Sequence[Pair], clusters: Sequence[Cluster] = ()
) -> dict[str, list[str]]:
    """Each student's notes (:func:`notes_by_exercise`), at most
    :data:`NOTES` of them, then one that counts the rest."""
    found: dict[str, list[str]] = {}
    for student, mine in notes_by_exercise(pairs, clusters).items():
        ordered = [mine[e] for e in sorted(mine, key=_exercise_key)]
        if len(ordered) > NOTES:
            rest = len(ordered) - NOTES + 1
            ordered = ordered[: NOTES - 1] + [
                f"the same code as classmates in {rest} more exercises (see the "
                "copies report)"
            ]
        found[student] = ordered
    return found


def _exercise_key(exercise: str) -> tuple[int, ...]:
    return tuple(int(n) for n in exercise.split(".") if n.isdigit())


def notebook_notes(
    copies: Copies, notebooks: Sequence[tuple[str, Collection[str]]]
) -> list[list[str]]:
    """The copy notes of each notebook, for the gradebook: ``notebooks``
    gives each one's student and the exercises it answers; a note goes with
    the first of the student's notebooks that answers its exercise (so that
    it names the right notebook). At most :data:`NOTES` per student, the
    last one counting the rest."""
    notes = notes_by_exercise(copies.pairs, copies.clusters)
    found: list[list[str]] = [[] for _ in notebooks]
    for student, mine in notes.items():
        placed: list[tuple[int, str]] = []
        for exercise in sorted(mine, key=_exercise_key):
            holder = next(
                (
                    i
                    for i, (owner, answered) in enumerate(notebooks)
                    if owner == student and exercise in answered
                ),
                None,
            )
            if holder is not None:
                placed.append((holder, mine[exercise]))
        if len(placed) > NOTES:
            rest = len(placed) - NOTES + 1
            holder = placed[NOTES - 1][0]
            placed = placed[: NOTES - 1] + [
                (
                    holder,
                    f"the same code as classmates in {rest} more exercises (see "
                    "the copies report)",
                )
            ]
        for holder, text in placed:
            found[holder].append(text)
    return found
