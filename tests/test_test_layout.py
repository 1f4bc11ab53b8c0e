"""The tests of an ops module live in ``tests/ops/test_<module>.py`` (see
``tests/README.md``): each such file names a real ``slowtorch_lib/ops``
module, and no test file elsewhere is named after one."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Ops modules whose tests are a cross-cutting suite, with the reason.
CROSS_CUTTING = {
    # A mode over every op (with slowtorch_lib/amp), not a group of ops.
    "autocast": "tests/test_autocast.py",
}


def layout_problems(tests: Path, ops: Path) -> list[str]:
    """What breaks the layout of ``tests`` for the ops modules in ``ops``."""
    modules = {p.stem for p in ops.glob("*.py") if p.stem != "__init__"}
    problems = []
    for path in sorted((tests / "ops").iterdir()):
        if path.name in ("__init__.py", "conftest.py", "__pycache__"):
            continue
        name = path.stem.removeprefix("test_")
        if not path.name.startswith("test_") or path.suffix != ".py":
            problems.append(f"{path.name}: tests/ops/ holds only test_<module>.py")
        elif name not in modules:
            problems.append(f"{path.name}: there is no slowtorch_lib/ops/{name}.py")
    for path in sorted(tests.rglob("test_*.py")):
        name = path.stem.removeprefix("test_")
        relative = path.relative_to(tests.parent).as_posix()
        if path.parent == tests / "ops" or CROSS_CUTTING.get(name) == relative:
            continue
        if name in modules:
            problems.append(f"{relative}: tests of ops/{name}.py go in tests/ops/")
    return problems


def test_every_ops_test_file_names_an_ops_module() -> None:
    assert layout_problems(ROOT / "tests", ROOT / "slowtorch_lib" / "ops") == []


def test_a_misplaced_or_orphaned_ops_test_file_is_caught(tmp_path: Path) -> None:
    ops = tmp_path / "slowtorch_lib" / "ops"
    tests = tmp_path / "tests"
    (tests / "ops").mkdir(parents=True)
    ops.mkdir(parents=True)
    for path in (
        ops / "__init__.py",
        ops / "pointwise.py",
        tests / "ops" / "__init__.py",
        tests / "ops" / "test_pointwise.py",
        tests / "ops" / "test_clamp.py",
        tests / "ops" / "helpers.py",
        tests / "test_pointwise.py",
        tests / "test_edges.py",
    ):
        path.write_text("")
    assert layout_problems(tests, ops) == [
        "helpers.py: tests/ops/ holds only test_<module>.py",
        "test_clamp.py: there is no slowtorch_lib/ops/clamp.py",
        "tests/test_pointwise.py: tests of ops/pointwise.py go in tests/ops/",
    ]
