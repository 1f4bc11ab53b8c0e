"""The engine's layers: every import points down, and no import cycle.

A reader should be able to draw the engine bottom to top. Each module
belongs to one layer of ``LAYERS``; a module-level import may name a module
of its own layer or of a layer below, never one above, and the imports
between modules must form no cycle. Imports under ``if TYPE_CHECKING:``
are for type checkers only and do not count. (``Tensor``'s methods reach
the ops above them through ``_tensor.bind_ops``, which the package calls.)
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "slowtorch_lib"

# Bottom to top. A module is in the first layer with a matching prefix.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("dtypes, index maths and hook handles", ("_dtype", "_strides", "_hooks")),
    ("storage", ("_storage",)),
    ("kernels", ("_kernels",)),
    ("tensor", ("_tensor", "_tensor_kernels", "_creation", "_printing")),
    ("autograd", ("autograd",)),
    ("ops", ("ops", "_rng")),
    ("nn, optim, utils.data", ("nn", "optim", "utils")),
    ("top", ("viz", "serialization", "")),
]


def module_name(path: Path) -> str:
    """``slowtorch_lib.ops.views`` for ``slowtorch_lib/ops/views.py``."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    """The index in ``LAYERS`` of an engine module."""
    inner = module.removeprefix("slowtorch_lib").removeprefix(".")
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if inner == prefix or inner.startswith(prefix + ".") or prefix == "":
                return index
    raise AssertionError(f"{module} is in no layer")


def is_type_checking(node: ast.stmt) -> bool:
    """Whether ``node`` is an ``if TYPE_CHECKING:`` block."""
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    )


def imported_modules(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The engine modules that one import statement loads."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif node.module is None:
        return []
    else:
        names = []
        for alias in node.names:
            submodule = f"{node.module}.{alias.name}"
            names.append(submodule if submodule in MODULES else node.module)
    return [n for n in names if n in MODULES]


def top_level_imports(module: str) -> list[str]:
    """The engine modules that ``module`` imports when it is loaded."""
    tree = ast.parse(MODULES[module].read_text())
    found: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.extend(imported_modules(node))
    return [m for m in found if m != module]


GRAPH = {module: top_level_imports(module) for module in MODULES}


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module: str) -> None:
    mine = layer_of(module)
    upward = [m for m in GRAPH[module] if layer_of(m) > mine]
    assert not upward, (
        f"{module} (layer {LAYERS[mine][0]!r}) imports from a higher layer: "
        + ", ".join(f"{m} ({LAYERS[layer_of(m)][0]!r})" for m in upward)
    )


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a list of modules, or None."""
    state: dict[str, str] = {}  # "open" while on the path, then "done"
    for start in graph:
        if start in state:
            continue
        path = [start]
        stack = [iter(graph[start])]
        state[start] = "open"
        while stack:
            following = next(stack[-1], None)
            if following is None:
                state[path.pop()] = "done"
                stack.pop()
            elif state.get(following) == "open":
                return path[path.index(following) :] + [following]
            elif following not in state:
                state[following] = "open"
                path.append(following)
                stack.append(iter(graph[following]))
    return None


def test_no_import_cycle() -> None:
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": ["b"], "b": ["c"], "c": ["a"]}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": ["b", "c"], "b": ["c"], "c": []}) is None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_come_first(module: str) -> None:
    """No module-level import below other code (the docstring and
    ``__future__`` aside)."""
    tree = ast.parse(MODULES[module].read_text())
    code_seen = None
    for node in tree.body:
        is_import = isinstance(node, (ast.Import, ast.ImportFrom))
        if is_import and code_seen is not None:
            raise AssertionError(
                f"{module}:{node.lineno}: import below code (line {code_seen})"
            )
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if not (is_import or docstring or is_type_checking(node)):
            code_seen = node.lineno


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_in_functions_say_why(module: str) -> None:
    """An import inside a function has a comment on its line or above it."""
    source = MODULES[module].read_text()
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, (ast.Import, ast.ImportFrom)):
                here = lines[inner.lineno - 1]
                above = lines[inner.lineno - 2].strip()
                assert "#" in here or above.startswith("#"), (
                    f"{module}:{inner.lineno}: import inside a function "
                    "without a comment saying why"
                )
