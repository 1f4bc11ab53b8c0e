"""No helper that holds an answer is kept in the class edition's engine.

A piece's ``forbidden`` names are the engine's helpers that hold (part of)
its answer. A release built here must have stubbed every one of them; a
release that would keep one (because other code of the engine shares it)
must refuse before writing anything. The helpers once kept (grad mode's
shared context, the cosine schedule's closed form, clipping's norm and
gradient list) reach no answer of their own in a release.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course import __main__ as cli
from course import checking, edition

ROOT = Path(__file__).resolve().parent.parent
#: Forbidden names that are no definition of the piece's module (nothing to
#: stub: a hook's name, a function of the course the runner never gets).
UNDEFINED: dict[str, set[str]] = {}


@pytest.fixture(scope="module")
def released(class_edition: Path) -> Path:
    """The run's shared fresh edition (``tests/conftest.py``), only read here."""
    return class_edition


def definition(path: Path, qualname: str) -> ast.FunctionDef | ast.ClassDef | None:
    body = ast.parse(path.read_text("utf-8")).body
    node = None
    for part in qualname.split("."):
        node = next(
            (
                n
                for n in body
                if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == part
            ),
            None,
        )
        if node is None:
            return None
        body = node.body
    return node


def only_raises(node: ast.FunctionDef | ast.ClassDef) -> bool:
    """Whether every function in ``node`` does nothing but raise (a stub)."""
    functions = [n for n in ast.walk(node) if isinstance(n, ast.FunctionDef)]
    for function in functions:
        body = [
            s
            for s in function.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        ]
        if len(body) != 1 or not isinstance(body[0], ast.Raise):
            return False
    return bool(functions)


@pytest.mark.pipeline
def test_every_helper_that_holds_an_answer_is_stubbed(released: Path) -> None:
    assert edition.shared_answer_holders() == []
    checked = 0
    for exercise in edition.pieces():
        stubs, holders = edition.stubs_for(exercise)
        assert holders == [], exercise.id
        names = {s.qualname.rpartition(".")[2] for s in stubs}
        missed = set(exercise.forbidden) - names
        assert missed <= UNDEFINED.get(exercise.id, set()), (exercise.id, missed)
        for stub in stubs:
            if not stub.file.is_relative_to(ROOT / "slowtorch_lib"):
                continue
            copy = released / stub.file.relative_to(ROOT)
            node = definition(copy, stub.qualname)
            assert node is not None, stub.qualname
            assert only_raises(node), f"{exercise.id}: {stub.qualname} is kept"
            checked += 1
    assert checked >= len(edition.pieces())


@pytest.mark.pipeline
def test_the_helpers_once_kept_reach_no_answer_in_a_release(
    released: Path, tmp_path: Path
) -> None:
    grad_mode = (released / "slowtorch_lib/autograd/grad_mode.py").read_text("utf-8")
    assert "_GradModeContext" not in grad_mode and "_BareDecorator" not in grad_mode
    clip = released / "slowtorch_lib/nn/utils/clip_grad.py"
    for name in ("_values_norm", "_gradients", "clip_grad_norm_"):
        node = definition(clip, name)
        assert node is not None and only_raises(node), name
    # Engines with the other pieces given, so that tensors work: the kept
    # helpers run, and reach the stub when they would need the answer.
    everything = {e.id for e in edition.pieces()}
    grad_mode_out = run_in(
        tmp_path / "a",
        everything - {"2.5", "4.6", "4.7"},
        """
x = torch.ones(2, requires_grad=True)
with torch.set_grad_enabled(False):
    with torch.enable_grad():
        print((x * 2).requires_grad)
    print((x * 2).requires_grad)
from slowtorch_lib.optim.lr_scheduler import CosineAnnealingLR
fake = CosineAnnealingLR.__new__(CosineAnnealingLR)
fake.last_epoch, fake.T_max, fake.eta_min = 3, 10, 0.0
fake.base_lrs, fake._step_count = [0.1], 5
try:
    fake._closed_form_lr()
except NotImplementedError as error:
    print("exercise 4.6" in str(error))
""",
    )
    assert grad_mode_out == ["True", "False", "True"]
    clip_out = run_in(
        tmp_path / "b",
        everything - {"4.7"},
        """
x = torch.ones(2, requires_grad=True)
x.grad = torch.tensor([3.0, -4.0])
torch.nn.utils.clip_grad_value_(x, 1.0)
print(x.grad.tolist())
""",
    )
    assert clip_out == ["[1.0, -1.0]"]


def run_in(folder: Path, given: set[str], program: str) -> list[str]:
    """Runs ``program`` (``torch`` is the engine) on a class engine with
    ``given`` pieces; its output's lines."""
    edition.write_engine(folder, given, load_saved=False)
    environment = dict(os.environ, PYTHONPATH=str(folder))
    environment.pop("SLOWTORCH_WORKSPACE", None)
    done = subprocess.run(
        [sys.executable, "-c", "import slowtorch_lib as torch\n" + program],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


def test_a_release_that_would_keep_an_answer_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The attack: a piece's helper that other code shares (the schedulers'
    ``_group_lrs``, declared as holding 4.6's answer) would ship."""
    everything = checking.exercises()
    patched = [
        dataclasses.replace(e, forbidden=("_group_lrs",)) if e.id == "4.6" else e
        for e in everything
    ]
    monkeypatch.setattr(edition, "exercises", lambda: patched)
    assert any("_group_lrs" in h for h in edition.shared_answer_holders())
    out = tmp_path / "edition"
    assert cli.main(["release", str(out)]) == 1
    assert "_group_lrs" in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())
    with pytest.raises(edition.AnswerKept):
        edition.write_engine(tmp_path / "grader", load_saved=False)
    # Given, the piece is shipped solved: nothing of it is stubbed or kept.
    assert edition.shared_answer_holders({"4.6"}) == []


def test_a_word_in_prose_is_no_use_of_a_helper() -> None:
    """Only code names a helper: a docstring or a comment that says "send"
    does not make the class edition keep ``send``."""
    code = (
        '"""Workers send their batches back."""\n'
        "# send nothing here\n"
        "from engine import send\n"
        "send(pending, edge, grad)\n"
        "engine.send(pending, edge, grad)\n"
    )
    assert edition._uses(ast.parse(code), "send") == [3, 4, 5]
