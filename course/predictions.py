"""Predictions read from the cell's text, never run: a literal evaluator.

:func:`read_predictions` finds the dict a prediction cell assigns and reads
each value with :func:`_literal`: literals, lists, tuples, dicts,
arithmetic on numbers, ``"a b".split()`` and dotted names
(``torch.float32``) as text, within bounds on depth and size; anything else
is :data:`NOT_LITERAL`. Unlike :func:`ast.literal_eval` it accepts the
arithmetic and dotted names students write, and unlike ``eval`` it calls
nothing of theirs. Grading what was read is :func:`course.judge.judge_prediction`.
"""

from __future__ import annotations

import ast
from typing import Any

from course.parsing import parse


def read_predictions(source: str, name: str) -> tuple[dict[str, Any] | None, str]:
    """The dict assigned to ``name`` in the cell, read as literals."""
    try:
        tree = parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None, "the cell is not valid Python"
    found = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            found = node.value
    if found is None:
        return None, f"the cell does not assign {name}"
    if not isinstance(found, ast.Dict):
        return None, f"{name} is not written as a dict"
    answers: dict[str, Any] = {}
    for key, value in zip(found.keys, found.values, strict=True):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            continue
        answers[key.value] = _literal(value)
    return answers, ""


NOT_LITERAL = "(not a literal: predictions are read, not run)"
OPERATORS: dict[type, Any] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
STRING_METHODS = ("split", "strip", "lower", "upper")


class NotLiteral(ValueError):
    """A prediction that is more than literals and arithmetic."""


def _literal(node: ast.expr) -> Any:
    """A prediction's value, read without running anything: literals, lists,
    tuples, dicts, arithmetic on numbers, ``"a b".split()``, and dotted names
    (``torch.float32``) as text."""
    try:
        return _value(node, 0)
    except (NotLiteral, ArithmeticError, TypeError, ValueError, RecursionError):
        return NOT_LITERAL


def _value(node: ast.expr, depth: int) -> Any:
    if depth > 30:
        raise NotLiteral("too deep")
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(item, depth + 1) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {
            _value(k, depth + 1): _value(v, depth + 1)
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None
        }
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        number = _number(_value(node.operand, depth + 1))
        return -number if isinstance(node.op, ast.USub) else number
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        left, right = _value(node.left, depth + 1), _value(node.right, depth + 1)
        if isinstance(left, str) and isinstance(right, str):
            if not isinstance(node.op, ast.Add) or len(left) + len(right) > 10_000:
                raise NotLiteral("not a literal")
            return left + right
        left = _number(_value(node.left, depth + 1))
        right = _number(_value(node.right, depth + 1))
        if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 1e6):
            raise NotLiteral("too large")
        return OPERATORS[type(node.op)](left, right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
        and node.func.attr in STRING_METHODS
        and not node.keywords
        and len(node.args) <= 1
    ):
        args = [_value(a, depth + 1) for a in node.args]
        if not all(isinstance(a, str) for a in args):
            raise NotLiteral("a method call")
        return getattr(node.func.value.value, node.func.attr)(*args)
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        dotted = ".".join([node.id, *reversed(parts)])
        return dotted if dotted.startswith("torch.") else dotted.split(".")[-1]
    raise NotLiteral(type(node).__name__)


def _number(value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise NotLiteral("not a number")
    return value
