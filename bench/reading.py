"""``python -m bench.reading``: how much a reader of the engine meets.

Not a timing: the figures that say whether the engine a student reads
stays small while PyTorch's wider fidelity plugs in beside it.

* the lines of the core (the modules a reader of chapters 1 to 4 opens,
  as ``tests/test_layering.py`` lists them) and of the fidelity modules
  (the dtypes beyond the ten the chapters teach);
* the path of ``a + b`` for two float32 tensors, from ``Add.forward`` to
  the kernel and back: the functions it calls, their lines in all, the
  lines it runs, and how many of each lie in fidelity modules;
* the calls of a conjugation inside a ``backward`` rule;
* the largest file of the engine, of the course, of the scripts and of
  the site build.
"""

from __future__ import annotations

import ast
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from tests.test_layering import CORE, FIDELITY

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "slowtorch_lib"


def lines(path: Path) -> int:
    """The number of lines of a file."""
    return len(path.read_text().splitlines())


def module_path(name: str) -> Path:
    """``slowtorch_lib/ops/views.py`` for ``ops.views``."""
    path = ENGINE.joinpath(*name.split("."))
    package = path / "__init__.py"
    return package if package.exists() else path.with_suffix(".py")


def core_lines() -> int:
    """The lines of the modules a reader of chapters 1 to 4 opens."""
    return sum(lines(module_path(name)) for name in CORE)


def fidelity_lines() -> int:
    """The lines of the modules of the dtypes beyond the ten."""
    return sum(lines(p) for p in (ENGINE / FIDELITY).rglob("*.py"))


def traced_calls(start: Callable[..., Any], run: Callable[[], Any]) -> dict:
    """The code objects that ``run`` calls while ``start`` runs, with the
    lines each executes (``start``'s own included)."""
    calls: dict[CodeType, set[int]] = {}
    inside = [0]

    def trace(frame: FrameType, event: str, arg: object) -> Any:
        code = frame.f_code
        if code is start.__code__ and event == "call":
            inside[0] += 1
        if not inside[0] or not code.co_filename.startswith(str(ENGINE)):
            return trace
        if event == "line":
            calls.setdefault(code, set()).add(frame.f_lineno)
        elif event == "call":
            calls.setdefault(code, set())
        if code is start.__code__ and event == "return":
            inside[0] -= 1
        return trace

    sys.settrace(trace)
    try:
        run()
    finally:
        sys.settrace(None)
    return calls


def add_path() -> dict[str, int]:
    """What ``a + b`` of two float32 tensors meets inside ``Add.forward``."""
    import slowtorch_lib as torch  # at call time: measured, not at import
    from slowtorch_lib.ops.pointwise import Add  # the same

    a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    b = torch.tensor([0.5, 0.25, 0.125])
    calls = traced_calls(Add.forward, lambda: a + b)
    fidelity = str(ENGINE / FIDELITY)
    figures = {"functions": 0, "lines": 0, "run": 0}
    figures.update(fidelity_functions=0, fidelity_lines=0, storage_functions=0)
    figures["run"] = len({(c.co_filename, n) for c, run in calls.items() for n in run})
    for code in calls:
        if code.co_name.startswith("<"):  # a comprehension: in its function
            continue
        size = len(inspect.getsourcelines(code)[0])
        figures["functions"] += 1
        figures["lines"] += size
        if code.co_filename.startswith(fidelity):
            figures["fidelity_functions"] += 1
            figures["fidelity_lines"] += size
        if code.co_filename.endswith("_storage.py"):
            figures["storage_functions"] += 1
    return figures


def conjugations_in_backward() -> int:
    """Calls whose name has ``conj`` inside a function named ``backward``."""
    found = 0
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name == "backward":
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Call):
                        name = ast.unparse(inner.func)
                        found += "conj" in name
    return found


def largest(folder: str) -> tuple[int, str]:
    """The longest ``.py`` file under ``folder``, with its lines."""
    files = [p for p in (ROOT / folder).rglob("*.py") if "node_modules" not in p.parts]
    return max((lines(p), str(p.relative_to(ROOT))) for p in files)


def main() -> None:
    print(f"core (chapters 1-4): {core_lines()} lines in {len(CORE)} modules")
    print(f"fidelity modules: {fidelity_lines()} lines")
    path = add_path()
    print(
        f"a + b from Add.forward: {path['functions']} functions of "
        f"{path['lines']} lines, {path['run']} lines run; "
        f"{path['fidelity_functions']} fidelity functions of "
        f"{path['fidelity_lines']} lines; "
        f"{path['storage_functions']} functions of _storage.py"
    )
    print(f"conjugations in backward rules: {conjugations_in_backward()}")
    for folder in ("slowtorch_lib", "course", "scripts", "sitebuild"):
        size, name = largest(folder)
        print(f"largest in {folder}/: {name}, {size} lines")


if __name__ == "__main__":
    main()
