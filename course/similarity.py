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
- **no-op statements** go: docstrings and other bare constants, ``pass``,
  ``if False:`` blocks, and *dead assignments* (``_ = None``, ``unused = x``:
  a name assigned a value without side effects and never read), until none
  is left;
- **independent statements** are put in one order: consecutive simple
  statements of which none reads or writes what another writes are sorted,
  so swapping them changes nothing.

The code the blank notebook gives in that cell (a helper it already holds, the
signature and docstring of the stub) is left out: top-level definitions
identical to the blank's go, and so do the *shingles* (runs of
:data:`SHINGLE` tokens) that the blank cell has. Two answers are compared by
their remaining shingles: the share of the smaller answer's shingles that the
other holds (:func:`resemblance`). A pair is flagged when that share is at
least :data:`THRESHOLD` and both answers hold at least :data:`MIN_SIZE`
shingles of their own (:func:`flagged`): a short answer can only be written a few
ways, so that honest students meet, and says nothing. Both numbers are
measured (``tests/grading/test_similarity.py`` and ``python -m
bench.similarity``) on honest variants written independently and on
disguised copies.

:func:`model_prints` gives what the judge keeps (in ``answers.json`` for an
exported autograder): the blank cells in normal form and the model answers'
shingles, hashed (no code of them); :func:`copied_from_model` compares one
answer with them, and
:func:`class_pairs` compares every student with every other, exercise by
exercise.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from course import notebook_reader

__all__ = [
    "Answer",
    "Pair",
    "class_pairs",
    "copied_from_model",
    "flagged",
    "model_answers",
    "model_prints",
    "pairs_report",
    "resemblance",
    "tokens",
]

ROOT = Path(__file__).resolve().parent.parent
#: Tokens per shingle.
SHINGLE = 6
#: The share of the smaller answer's shingles found in the other.
THRESHOLD = 0.9
#: Shingles of its own (the blank's left out) an answer needs to be compared.
MIN_SIZE = 64
#: Passes that take out dead assignments: a chain of assignments each read
#: only by the next dead one goes one link per pass. Bounded, and a single
#: pass for a cell longer than LONG characters (several times the longest
#: model answer), so that a hostile cell cannot hold the judge.
MAX_PASSES = 12
LONG = 20_000
MODEL = "model:"
GIVEN = "given:"
BOUND = "v"


# --- the normal form ---------------------------------------------------------------


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
        elif isinstance(node, ast.alias):
            continue
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


EFFECTS = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)


def _pure(node: ast.AST) -> bool:
    """Whether evaluating ``node`` calls nothing (so has no side effects a
    student wrote: reading an attribute or an item is taken as pure)."""
    return not any(isinstance(n, EFFECTS) for n in ast.walk(node))


def _noop(statement: ast.stmt, read: set[str]) -> bool:
    """A statement that changes nothing: a bare constant (a docstring),
    ``pass``, ``if False:``, or an assignment of a value without side effects
    to names nobody reads."""
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return True
    if isinstance(statement, (ast.If, ast.While)):
        test = statement.test
        return (
            isinstance(test, ast.Constant) and not test.value and not statement.orelse
        )
    targets: list[ast.expr]
    if isinstance(statement, ast.AnnAssign):
        targets = [statement.target]
        value = statement.value
        if value is None:
            return True
    elif isinstance(statement, ast.Assign):
        targets, value = statement.targets, statement.value
    else:
        return False
    names = [t for t in targets if isinstance(t, ast.Name)]
    if len(names) != len(targets):
        return False
    return _pure(value) and not any(t.id in read for t in names)


class _Strip(ast.NodeTransformer):
    """Takes out the no-op statements (see :func:`_noop`) and the imports,
    and sorts runs of independent simple statements."""

    def __init__(self, read: set[str], names: set[str], attributes: set[str]) -> None:
        self.read = read
        self.names = names
        self.attributes = attributes
        self.removed = 0

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                kept = [s for s in block if not self._drop(s)]
                self.removed += len(block) - len(kept)
                setattr(node, field, self._sorted_runs(kept))
        return node

    def _drop(self, statement: ast.stmt) -> bool:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            return True
        return _noop(statement, self.read)

    def _key(self, statement: ast.stmt) -> str:
        visitor = _Tokens(self.names, self.attributes)
        visitor.visit(statement)
        return " ".join(visitor.out)

    def _sorted_runs(self, block: list[ast.stmt]) -> list[ast.stmt]:
        """The block with each run of consecutive independent assignments in
        one order (by their normal form, names hidden)."""
        out: list[ast.stmt] = []
        run: list[ast.stmt] = []
        touched: set[str] = set()
        written: set[str] = set()

        def flush() -> None:
            out.extend(sorted(run, key=self._key))
            run.clear()
            touched.clear()
            written.clear()

        for statement in block:
            if not isinstance(statement, ASSIGNMENTS) or not _pure(
                getattr(statement, "value", None) or ast.Constant(None)
            ):
                # A call's effects are unknown: it stays where it is.
                flush()
                out.append(statement)
                continue
            writes = _writes(statement)
            uses = _reads(statement) | writes
            if writes & touched or uses & written:
                flush()
            run.append(statement)
            touched |= uses
            written |= writes
        flush()
        return out


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
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def units(source: str) -> list[list[str]]:
    """The cell's top-level statements in normal form, one token list each
    (imports and no-ops gone; see the module's docstring)."""
    tree = _parse(source)
    if tree is None:
        return []
    try:
        names, attributes = _bound_names(tree)
        passes = MAX_PASSES if len(source) <= LONG else 1
        for _ in range(passes):  # a dead assignment may make another one dead
            read = _reads(tree) | {n.id for n in _global_reads(tree)}
            strip = _Strip(read, names, attributes)
            tree = strip.visit(tree)
            if not strip.removed:
                break
        found = []
        for statement in tree.body:
            visitor = _Tokens(names, attributes)
            visitor.visit(statement)
            found.append(visitor.out)
        return found
    except RecursionError:
        return []


def _global_reads(tree: ast.AST) -> list[ast.Name]:
    """Names a ``global`` statement shares (their assignments are never dead)."""
    shared = {
        name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Global, ast.Nonlocal))
        for name in node.names
    }
    return [ast.Name(id=name) for name in shared]


def tokens(source: str) -> list[str]:
    """The cell in normal form, as one list of tokens."""
    return [token for unit in units(source) for token in unit]


def _shingles(found: Sequence[str]) -> set[str]:
    """Each run of :data:`SHINGLE` tokens, hashed (so that the judge keeps
    the model answers' shingles, never their code)."""
    runs = (
        [found]
        if len(found) < SHINGLE
        else [found[i : i + SHINGLE] for i in range(len(found) - SHINGLE + 1)]
    )
    return {
        hashlib.blake2b(" ".join(run).encode(), digest_size=8).hexdigest()
        for run in runs
        if run
    }


# --- answers ---------------------------------------------------------------------


@dataclass
class Answer:
    """An answer in the form compared: its own shingles (the blank cell's
    left out); its size is their number."""

    shingles: set[str]

    @property
    def size(self) -> int:
        return len(self.shingles)

    @classmethod
    def of(cls, source: str, given: Sequence[Sequence[str]] = ()) -> Answer:
        """``given``: the blank cell's normal-form units (:func:`given_units`)."""
        return cls.from_units(units(source), given)

    @classmethod
    def from_units(
        cls, found: Sequence[Sequence[str]], given: Sequence[Sequence[str]] = ()
    ) -> Answer:
        blank = {" ".join(unit) for unit in given}
        own = [token for u in found if " ".join(u) not in blank for token in u]
        blank_shingles = _shingles([token for unit in given for token in unit])
        return cls(_shingles(own) - blank_shingles)


def resemblance(one: Answer, other: Answer) -> float:
    """The share of the smaller answer's shingles that the other holds."""
    smaller = min(len(one.shingles), len(other.shingles))
    if not smaller:
        return 0.0
    return len(one.shingles & other.shingles) / smaller


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
    students' notebook holds it) and each model answer's own shingles, hashed
    (``model:[...]``: no code of it)."""
    found: dict[str, list[str]] = {}
    for exercise, sources in _cells(root / "exercises").items():
        for source in sources:
            found.setdefault(exercise, []).append(GIVEN + json.dumps(units(source)))
    for exercise, sources in _cells(root / "solutions").items():
        given = given_units(found, exercise)
        for source in sources:
            shingles = sorted(Answer.of(source, given).shingles)
            found.setdefault(exercise, []).append(MODEL + json.dumps(shingles))
    return found


def model_answers(prints: dict[str, list[str]], exercise: str) -> list[Answer]:
    """The model answers of ``exercise``, from :func:`model_prints`."""
    return [
        Answer(set(json.loads(text[len(MODEL) :])))
        for text in prints.get(exercise, [])
        if text.startswith(MODEL)
    ]


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


def class_pairs(
    answers: Iterable[tuple[str, str, str]], prints: dict[str, list[str]]
) -> list[Pair]:
    """Every pair of students whose answers to an exercise are flagged.

    ``answers``: ``(student, exercise, source)``. A student's own notebooks
    are never compared with each other. Candidates come from an index of
    shingles, so a class is not compared pair by pair.
    """
    by_exercise: dict[str, dict[str, Answer]] = {}
    for student, exercise, source in answers:
        answer = Answer.of(source, given_units(prints, exercise))
        if answer.size >= MIN_SIZE:
            mine = by_exercise.setdefault(exercise, {})
            previous = mine.get(student)
            if previous is None or answer.size > previous.size:
                mine[student] = answer
    found = []
    for exercise, students in sorted(by_exercise.items()):
        index: dict[str, list[str]] = {}
        for student, answer in students.items():
            for shingle in answer.shingles:
                index.setdefault(shingle, []).append(student)
        seen: set[tuple[str, str]] = set()
        for student, answer in students.items():
            shared: dict[str, int] = {}
            for shingle in answer.shingles:
                for other in index[shingle]:
                    if other != student:
                        shared[other] = shared.get(other, 0) + 1
            for other, count in shared.items():
                key = (min(student, other), max(student, other))
                if key in seen or count < THRESHOLD * min(
                    len(answer.shingles), len(students[other].shingles)
                ):
                    continue
                seen.add(key)
                value = flagged(answer, students[other])
                if value is not None:
                    found.append(Pair(exercise, key[0], key[1], value))
    return found


def pairs_report(pairs: Sequence[Pair]) -> str:
    """The pairs as a Markdown report for the teacher."""
    lines = [
        "# Answers that are the same code",
        "",
        f"Compared blind to names, literals, layout and no-op statements, the "
        f"blank notebook's code left out; only answers of at least {MIN_SIZE} "
        f"shingles of their own, flagged at {THRESHOLD:.0%} of their shingles "
        "shared. A flag is a reason to look, not a verdict.",
        "",
    ]
    if not pairs:
        return "\n".join([*lines, "No pair found.", ""])
    lines += ["| exercise | student | student | shared |", "|---|---|---|---|"]
    for pair in pairs:
        lines.append(
            f"| {pair.exercise} | {pair.one} | {pair.other} | {pair.resemblance:.0%} |"
        )
    return "\n".join([*lines, ""])


def student_notes(pairs: Sequence[Pair]) -> dict[str, list[str]]:
    """For the teacher's gradebook (never a student's feedback): each
    student's flagged pairs, as notes."""
    notes: dict[str, list[str]] = {}
    for pair in pairs:
        for student, other in ((pair.one, pair.other), (pair.other, pair.one)):
            notes.setdefault(student, []).append(
                f"exercise {pair.exercise}: the same code as {other}'s answer "
                f"({pair.resemblance:.0%} shared; see the copies report)"
            )
    return notes
