"""The folders the grader writes: the runner's tree and the judge's reference.

:func:`runner_tree` writes what the runner may see in the sandbox (the class
engine with its pieces stubbed, the case programs without their recorded
answers, what they import, and :mod:`course.runner` itself, with the modules
its child runs: ``RUNNER_FILES``);
:func:`reference_tree` copies what only the judge reads (the complete engine
and the case programs, pieces and all), from which
:class:`course.answer_key.Answers` computes the drawn cases' answers. The
judging itself is :mod:`course.judge`.
"""

from __future__ import annotations

import compileall
import contextlib
import hashlib
import shutil
import sys
import tempfile
from collections.abc import Callable, Collection
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent

RUNNER_INIT = '"""The course package as the runner sees it: cases, no answers."""\n'
RUNNER_FILES = (
    "cases.py",
    "checking.py",
    "feedback.py",
    "messages.py",
    "parsing.py",
    "replay.py",
    "substitute.py",
    "datasets.py",
    "workspace.py",
    "reference_use.py",
    "watch.py",
    "placing.py",
    "exercise_child.py",
)


def class_engine(dest: Path, given: Collection[str] = ()) -> None:
    """Writes the class edition's engine (every exercise's piece a stub but
    those ``given``, as ``release --give`` ships them; nothing loaded from a
    workspace) into ``dest/slowtorch_lib``, and the case programs, with the
    pieces that live in them stubbed too, into ``dest/course/checks``. From a
    class edition (an exported autograder), its engine and checks are copied
    as they are."""
    engine = ROOT / "slowtorch_lib"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    checks = dest / "course" / "checks"
    if (engine / "_class").is_dir():
        shutil.copytree(engine, dest / "slowtorch_lib", ignore=ignore)
        shutil.copytree(PACKAGE / "checks", checks, ignore=ignore)
        return
    # at call time: an exported autograder has no edition.py (export.NOT_JUDGE)
    from course import edition

    edition.write_engine(dest, given, load_saved=False)
    checks.mkdir(parents=True)
    for path in sorted((PACKAGE / "checks").glob("*.py")):
        shutil.copy(path, checks / path.name)
    edition.stub_course(dest / "course", given)


CACHE = Path.home() / ".cache" / "slowtorch"


def source_digest(*parts: str, folders: Collection[Path] = ()) -> str:
    """A digest of the course's code (the engine, the course package, its
    data, and ``folders``) and ``parts``: what a tree or a map built from them
    depends on."""
    digest = hashlib.sha256("\0".join([sys.version, *parts]).encode())
    for folder in (ROOT / "slowtorch_lib", PACKAGE, *folders):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode() + b"\0")
                digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def cached(name: str, build: Callable[[Path], object]) -> Path:
    """The folder ``CACHE/name``, built by ``build`` once (in a folder of its
    own, then renamed: graders beside this one may build it too)."""
    done = CACHE / name
    if not done.is_dir():
        CACHE.mkdir(mode=0o700, parents=True, exist_ok=True)
        temporary = Path(tempfile.mkdtemp(dir=CACHE, prefix=".building-"))
        try:
            build(temporary / "tree")
            with contextlib.suppress(OSError):  # another grader was first
                (temporary / "tree").rename(done)
        finally:
            shutil.rmtree(temporary, ignore_errors=True)
    return done


def runner_tree(dest: Path, given: Collection[str] = ()) -> Path:
    """Writes what the runner may see into ``dest``: the class engine (with
    the pieces ``given``), the case programs (public and grading-only, no
    recorded answers, their own pieces stubbed), what they import, and the
    runner itself. Returns ``dest``. Built once for each version of the
    course and each ``given`` (kept under ``CACHE``), then copied."""
    key = source_digest("runner tree", *sorted(given))
    built = cached(f"runner-{key}", lambda tree: _runner_tree(tree, given))
    shutil.copytree(built, dest, symlinks=True)
    for path in dest.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    dest.chmod(0o755)
    return dest


def _runner_tree(dest: Path, given: Collection[str] = ()) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    class_engine(dest, given)
    course = dest / "course"
    (course / "__init__.py").write_text(RUNNER_INIT, encoding="utf-8")
    for name in RUNNER_FILES:
        shutil.copy(PACKAGE / name, course / name)
    shutil.copytree(PACKAGE / "data", course / "data")
    for path in (course / "checks").glob("*.json"):
        path.unlink()
    shutil.copy(PACKAGE / "runner.py", dest / "runner.py")
    # Compiled once here: the runner's tree is read-only, and each runner
    # would otherwise compile the whole engine again.
    compileall.compile_dir(dest, ddir="/runner", quiet=1, workers=1)
    for path in dest.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    dest.chmod(0o755)
    return dest


def reference_tree(root: Path, dest: Path) -> None:
    """Copies from ``root`` into ``dest`` what computes the drawn cases'
    answers: the complete engine and the case programs, pieces and all (an
    exported autograder's judge keeps it where only the judge reads)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(root / "slowtorch_lib", dest / "slowtorch_lib", ignore=ignore)
    course = dest / "course"
    shutil.copytree(root / "course" / "checks", course / "checks", ignore=ignore)
    shutil.copytree(root / "course" / "data", course / "data", ignore=ignore)
    for name in (*RUNNER_FILES, "record.py", "saved_pieces.py"):
        shutil.copy(root / "course" / name, course / name)
    (course / "__init__.py").write_text('"""The judge\'s reference."""\n', "utf-8")
