"""The final project's automatic part: one operation that a student adds to
the engine, checked against PyTorch on inputs drawn for each run.

A project folder holds two files (the brief, ``docs/final_project.md``,
says what else the student hands in and how a teacher marks it):

- ``spec.json``, data only: the PyTorch function the operation mirrors and
  the inputs it takes, for example ``{"torch": "torch.nn.functional.mish",
  "inputs": [{"shape": [3, 4], "low": -3, "high": 3}], "kwargs": {}}``;
- ``op.py``: ``def op(*inputs, **kwargs)``, written on the engine (a
  ``Function`` with its ``forward`` and ``backward``).

The judge reads ``spec.json`` as JSON and never runs ``op.py`` itself. For
each case it draws the inputs and an upstream gradient from the run's seed,
computes PyTorch's value and gradients, and sends only the inputs into the
sandbox (:mod:`course.sandbox`), where ``op.py`` runs on the engine
(:mod:`course.project_child`). A case is right when the value and every
gradient that came back equal PyTorch's (float32 tolerances); nothing else
the sandbox says is believed, and the student sees, per case, only the
input shapes and which parts were right.
"""

from __future__ import annotations

import ast
import builtins
import compileall
import json
import math
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from course import sandbox, trees
from course.parsing import parse
from course.saved_pieces import FOLDER, find_workspace

__all__ = ["Report", "check", "read_spec"]

ROOT = Path(__file__).resolve().parent.parent
NAME = re.compile(r"torch(\.[A-Za-z][A-Za-z0-9_]*)+")
SPEC_BYTES = 10_000
OP_BYTES = 200_000
MAX_INPUTS = 4
MAX_NUMEL = 256
OUTPUT_BYTES = 4 * 2**20
CHILD = "/runner/project_child.py"
RTOL, ATOL = 1e-4, 1e-5
MAX_OUTPUT = 4096  # elements of PyTorch's answer
DRAW_MEMORY = 8 * 2**30  # address space of the process that asks PyTorch
DRAW_SECONDS = 120
BENCH_SECONDS = 60  # the benchmark's time in the sandbox
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")
RATIO = re.compile(rb"ratio[^:\n]{0,60}:\s*([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)")
MUTANTS = (
    "backward doubled",
    "backward sign flipped",
    "backward zero for the last input",
    "backward transposed",
    "forward off by 0.001",
    "keywords ignored",
)
MARKS = {
    "values": 40,
    "own": 10,
    "difficulty": 10,
    "tests": 5,
    "mutants": 10,
    "bench": 5,
}
READ = {"benchmark account": 5, "write-up": 15}


class SpecError(ValueError):
    """A ``spec.json`` the judge will not use, and why."""


@dataclass
class Case:
    """One drawn case: the inputs, the upstream gradient, PyTorch's answer."""

    inputs: list[tuple[list[float], list[int]]]
    grad: list[float]
    value: list[float]
    shape: list[int]
    grads: list[list[float] | None]


@dataclass
class Report:
    """What the check found: per case, whether the value and the gradients
    were right, or why the project was not run; whether the gradient came
    from the student's own Function; which mutants each test caught; the
    benchmark's ratios; and the marks of the rubric's machine-checked parts."""

    torch_name: str = ""
    right: list[bool] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    refused: str | None = None
    own: bool = False
    own_why: str = ""
    difficulty: int = 0
    tests: dict[str, list[str]] = field(default_factory=dict)  # test -> caught
    tests_pass: bool = False
    mutants: list[str] = field(default_factory=list)  # those applied
    bench_ran: bool = False
    ratios: list[float] = field(default_factory=list)

    @property
    def score(self) -> float:
        return sum(self.right) / len(self.right) if self.right else 0.0

    @property
    def caught(self) -> set[str]:
        """The mutants that at least one test caught."""
        return {m for found in self.tests.values() for m in found}

    def marks(self) -> dict[str, float]:
        """The rubric's machine-checked marks (docs/final_project.md)."""
        if self.refused is not None:
            return dict.fromkeys(MARKS, 0.0)
        share = len(self.caught) / len(self.mutants) if self.mutants else 0.0
        enough = self.tests_pass and len(self.tests) >= 5
        return {
            "values": round(MARKS["values"] * self.score, 2),
            "own": float(MARKS["own"] if self.own else 0),
            "difficulty": float(self.difficulty),
            "tests": float(MARKS["tests"] if enough else 0),
            "mutants": round(MARKS["mutants"] * share, 2),
            "bench": float(MARKS["bench"] if self.bench_ran and self.ratios else 0),
        }

    def text(self) -> str:
        if self.refused is not None:
            return f"Not run: {self.refused}"
        head = f"{self.torch_name}: {sum(self.right)} of {len(self.right)} cases right"
        own = "yes" if self.own else f"no ({self.own_why})"
        tests = [
            f"  {name}: catches {len(found)} ({', '.join(found) or 'none'})"
            for name, found in self.tests.items()
        ]
        marks = self.marks()
        return "\n".join(
            [
                head,
                *self.lines,
                f"gradient from your own Function: {own}",
                f"tests: {len(self.tests)}, all pass on your op: "
                f"{'yes' if self.tests_pass else 'no'}; mutants caught by the "
                f"suite: {len(self.caught)} of {len(self.mutants)}",
                *tests,
                *[f"  not caught: {m}" for m in self.mutants if m not in self.caught],
                "benchmark: "
                + (
                    f"ran, ratios {', '.join(f'{r:g}' for r in self.ratios) or 'none'}"
                    if self.bench_ran
                    else "did not run to its end"
                ),
                "machine marks: "
                + ", ".join(f"{k} {v:g}/{MARKS[k]}" for k, v in marks.items())
                + f"; {sum(marks.values()):g} of {sum(MARKS.values())} "
                f"(the other {sum(READ.values())} are read)",
            ]
        )


# --- the spec, read as data --------------------------------------------------------


def read_spec(folder: Path) -> dict[str, Any]:
    """``spec.json`` checked: a name under ``torch`` that PyTorch has and the
    engine lacks, 1 to 4 inputs of at most 256 elements with finite ranges,
    and keyword arguments that are plain JSON values."""
    import torch  # lazily: PyTorch is on the teacher's machine, not in the sandbox

    path = folder / "spec.json"
    if not path.is_file() or path.stat().st_size > SPEC_BYTES:
        raise SpecError(f"{path.name} is missing or larger than {SPEC_BYTES} bytes")
    try:
        spec = json.loads(path.read_text("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SpecError(f"{path.name} is not JSON: {error}") from None
    if not isinstance(spec, dict) or set(spec) - {"torch", "inputs", "kwargs"}:
        raise SpecError('spec.json holds "torch", "inputs" and "kwargs" only')
    name = spec.get("torch")
    if not isinstance(name, str) or not NAME.fullmatch(name) or "._" in name:
        raise SpecError('"torch" names a public function, as "torch.special.entr"')
    if not callable(_resolve(torch, name)):
        raise SpecError(f"PyTorch has no function {name}")
    if _resolve(torch, name) not in tensor_functions():
        raise SpecError(f"{name} is not one of PyTorch's operations on tensors")
    if _resolve(_engine(), name) is not None:
        raise SpecError(f"the engine already has {name}: pick one it lacks")
    inputs = spec.get("inputs")
    if not isinstance(inputs, list) or not 1 <= len(inputs) <= MAX_INPUTS:
        raise SpecError(f'"inputs" lists 1 to {MAX_INPUTS} inputs')
    for one in inputs:
        _check_input(one)
    kwargs = spec.get("kwargs", {})
    if not isinstance(kwargs, dict) or not all(
        isinstance(k, str) and _plain(v) for k, v in kwargs.items()
    ):
        raise SpecError('"kwargs" maps names to numbers, booleans, strings or None')
    return {"torch": name, "inputs": inputs, "kwargs": kwargs}


def _check_input(one: Any) -> None:
    if not isinstance(one, dict) or set(one) != {"shape", "low", "high"}:
        raise SpecError('each input is {"shape": [...], "low": x, "high": y}')
    shape, low, high = one["shape"], one["low"], one["high"]
    if not isinstance(shape, list) or len(shape) > 4:
        raise SpecError("a shape lists at most 4 sizes")
    if not all(type(s) is int and 1 <= s <= 16 for s in shape):
        raise SpecError("each size is a whole number from 1 to 16")
    if math.prod(shape) > MAX_NUMEL:
        raise SpecError(f"an input has at most {MAX_NUMEL} elements")
    numbers = [v for v in (low, high) if type(v) in (int, float)]
    if len(numbers) != 2 or not all(math.isfinite(v) for v in numbers) or low >= high:
        raise SpecError('"low" and "high" are finite numbers, low below high')


def tensor_functions() -> set[Any]:
    """PyTorch's operations on tensors (those ``torch.overrides`` lists). The
    judge calls the spec's function itself, so nothing else may be named:
    not ``torch.hub.load``, ``torch.compile`` or a setting of the process."""
    from torch.overrides import get_overridable_functions  # lazily: as above

    return {f for found in get_overridable_functions().values() for f in found}


def _plain(value: Any) -> bool:
    if value is None or type(value) in (bool, int, str):
        return True
    return type(value) is float and math.isfinite(value)


def _resolve(module: Any, name: str) -> Any:
    found = module
    for part in name.split(".")[1:]:
        found = getattr(found, part, None)
        if found is None:
            return None
    return found


def _engine() -> Any:
    import slowtorch_lib  # at call time: only a spec's check loads the engine

    return slowtorch_lib


# --- the cases, drawn and answered outside the sandbox ----------------------------


def draw_cases(spec: dict[str, Any], seed: str, count: int) -> list[Case]:
    """``count`` cases drawn from ``seed``, with PyTorch's value and
    gradients in float32 (a case where PyTorch raises is drawn again)."""
    import torch  # lazily: PyTorch is on the teacher's machine, not in the sandbox

    function = _resolve(torch, spec["torch"])
    cases: list[Case] = []
    rng = random.Random(seed)
    for _ in range(count * 5):
        if len(cases) == count:
            break
        inputs = [
            ([rng.uniform(i["low"], i["high"]) for _ in range(math.prod(i["shape"]))],
             list(i["shape"]))
            for i in spec["inputs"]
        ]  # fmt: skip
        tensors = [
            torch.tensor(v, dtype=torch.float32).reshape(s).requires_grad_()
            for v, s in inputs
        ]
        try:
            out = function(*tensors, **spec["kwargs"])
            grad = [rng.uniform(-1, 1) for _ in range(out.numel())]
            (out * torch.tensor(grad).reshape(out.shape)).sum().backward()
        except (RuntimeError, TypeError, ValueError, AttributeError):
            continue
        if out.numel() > MAX_OUTPUT:
            continue
        cases.append(
            Case(
                [(flat(t), s) for t, (_, s) in zip(tensors, inputs)],
                grad,
                flat(out),
                list(out.shape),
                [None if t.grad is None else flat(t.grad) for t in tensors],
            )
        )
    return cases


def torch_cases(spec: dict[str, Any], seed: str, count: int) -> list[Case]:
    """:func:`draw_cases` in a process of its own, with bounds on its memory
    and time: the spec's function and keywords are the student's choice
    (``torch.combinations`` with ``r=100`` would not end), and one project
    must not stop the others. No case if it fails or takes too long."""
    job = json.dumps({"spec": spec, "seed": seed, "count": count})
    try:
        done = subprocess.run(
            [sys.executable, "-m", "course.project"],
            input=job,
            capture_output=True,
            text=True,
            timeout=DRAW_SECONDS,
            preexec_fn=_bounded,  # noqa: PLW1509  (only sets resource limits)
            check=False,
        )
    except subprocess.TimeoutExpired:
        return []
    if done.returncode != 0:
        return []
    return [Case(**found) for found in json.loads(done.stdout)]


def _bounded() -> None:
    import resource  # at call time: in the drawing child, before it runs PyTorch

    resource.setrlimit(resource.RLIMIT_AS, (DRAW_MEMORY, DRAW_MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (DRAW_SECONDS, DRAW_SECONDS))


def flat(tensor: Any) -> list[float]:
    return list(tensor.detach().flatten().tolist())


def close(expected: list[float], got: Any) -> bool:
    """Whether ``got`` is a list of numbers equal to ``expected`` (NaN to NaN)."""
    if not isinstance(got, list) or len(got) != len(expected):
        return False
    for want, have in zip(expected, got):
        if type(have) not in (int, float):
            return False
        if math.isnan(want) or math.isnan(have):
            if not (math.isnan(want) and math.isnan(have)):
                return False
        elif not math.isclose(want, have, rel_tol=RTOL, abs_tol=ATOL):
            return False
    return True


# --- the run in the sandbox --------------------------------------------------------


def project_tree(dest: Path, folder: Path, workspace: Path | None) -> Path:
    """What the sandbox sees: the engine, the runner's helpers, the child,
    the student's files (``project/``: ``op.py``, tests, benchmark) and, on
    a class engine, their saved pieces (``my_engine/``).

    In a class edition, or with a ``workspace`` of saved pieces, the engine
    is the class engine (:func:`course.trees.class_engine`: every exercise's
    piece a stub) and the child puts the student's pieces in place of the
    stubs, as their notebooks do: no model answer is in the tree. Otherwise
    it is the complete engine of this checkout (the public book)."""
    dest.mkdir(parents=True)
    if workspace is not None or class_edition():
        trees.class_engine(dest)
    else:
        shutil.copytree(ROOT / "slowtorch_lib", dest / "slowtorch_lib", ignore=IGNORE)
    for name in ("runner.py", "project_child.py"):
        shutil.copy(ROOT / "course" / name, dest / name)
    (dest / "project").mkdir()
    for path in student_files(folder):
        shutil.copy(path, dest / "project" / path.name)
    if workspace is not None and workspace.is_dir():
        (dest / FOLDER).mkdir()
        for path in sorted(workspace.glob("ex*.py"))[:200]:
            if path.is_file() and path.stat().st_size <= OP_BYTES:
                shutil.copy(path, dest / FOLDER / path.name)
    # Compiled once here: the tree is read-only, and each run would otherwise
    # compile the whole engine again.
    compileall.compile_dir(dest, ddir="/runner", quiet=1, workers=1)
    for path in dest.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    dest.chmod(0o755)
    return dest


def class_edition() -> bool:
    """Whether this checkout is a class edition (its engine has stubs)."""
    return (ROOT / "slowtorch_lib" / "_class").is_dir()


def student_files(folder: Path) -> list[Path]:
    """``op.py``, the test files (``test*.py``) and the benchmark
    (``bench*.py``) of a project, each at most ``OP_BYTES``."""
    found = [folder / "op.py", *tests_of(folder)]
    bench = bench_of(folder)
    found += [bench] if bench else []
    return [p for p in found if p.is_file() and p.stat().st_size <= OP_BYTES]


def tests_of(folder: Path) -> list[Path]:
    return sorted(folder.glob("test*.py"))[:10]


def bench_of(folder: Path) -> Path | None:
    found = sorted(folder.glob("bench*.py"))
    return found[0] if found else None


def run_child(
    tree: Path, job: dict[str, Any], limits: sandbox.Limits
) -> tuple[list[dict[str, Any]], bytes]:
    """Runs the child on ``job`` in the sandbox; the records of this run's
    nonce it printed, and everything it printed (for the benchmark's ratios)."""
    nonce = secrets.token_hex(16)
    job = {
        **job,
        "limits": {
            "memory": limits.memory,
            "file_size": limits.file_size,
            "processes": limits.processes,
        },
    }
    python = sandbox.interpreter()
    with sandbox.runner_user() as user:
        job["user"] = user
        process = subprocess.Popen(
            sandbox.command(
                tree, [python, "-I", "-S", "/runner/project_child.py"], user
            ),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            start_new_session=True,
        )
        timer = threading.Timer(limits.seconds * 2, _kill, [process, user])
        timer.start()
        try:
            assert process.stdin is not None and process.stdout is not None
            try:
                process.stdin.write(nonce.encode() + b"\n" + json.dumps(job).encode())
                process.stdin.close()
            except OSError:
                pass
            data = process.stdout.read(OUTPUT_BYTES + 1)
        finally:
            timer.cancel()
            _kill(process, user)
    return _records(data[:OUTPUT_BYTES], nonce), data[:OUTPUT_BYTES]


def _kill(process: subprocess.Popen[bytes], user: int | None = None) -> None:
    """Stops the sandbox and, where it ran as a lent user, everything that
    user runs (a process that changed users outlives its parent)."""
    try:
        process.kill()
    except OSError:
        pass
    if user is not None:
        sandbox.kill_user(user)


def _records(data: bytes, nonce: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for line in data.split(b"\n"):
        head, _, body = line.partition(b" ")
        if head != nonce.encode():
            continue
        try:
            record = json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            continue
        if isinstance(record, dict):
            found.append(record)
    return found


def answers(records: list[dict[str, Any]], count: int) -> dict[int, dict[str, Any]]:
    """The first record of each case."""
    found: dict[int, dict[str, Any]] = {}
    for record in records:
        index = record.get("case")
        if type(index) is int and 0 <= index < count and index not in found:
            found[index] = record
    return found


def said(answer: dict[str, Any], value_ok: bool, grads_ok: bool) -> str:
    """A case's verdict in words the student's code cannot choose: an error
    is named only if it is one of Python's own."""
    if value_ok and grads_ok:
        return "right"
    if not answer:
        return "no answer"
    if "error" in answer:
        name = answer["error"]
        builtin = (
            isinstance(name, str)
            and isinstance(getattr(builtins, name, None), type)
            and issubclass(getattr(builtins, name), BaseException)
        )
        return f"raised {name}" if builtin else "raised an exception"
    return (
        f"value {'right' if value_ok else 'wrong'}, "
        f"gradients {'right' if grads_ok else 'wrong'}"
    )


# --- the check ------------------------------------------------------------------


def check(
    folder: Path,
    count: int = 8,
    seed: str | None = None,
    limits: sandbox.Limits | None = None,
    workspace: Path | None = None,
) -> Report:
    """Checks the project in ``folder`` on ``count`` cases drawn for this run,
    runs its tests against each mutant of its op, and runs its benchmark.

    The engine is the class engine with the student's saved pieces when this
    checkout is a class edition (their ``my_engine/``, found from ``folder``
    or the current folder) or when ``workspace`` names that folder; else the
    complete engine."""
    report = Report()
    try:
        spec = read_spec(folder)
    except SpecError as error:
        report.refused = str(error)
        return report
    report.torch_name = spec["torch"]
    op = folder / "op.py"
    if not op.is_file() or op.stat().st_size > OP_BYTES:
        report.refused = f"op.py is missing or larger than {OP_BYTES} bytes"
        return report
    if sandbox.problem() is not None:
        report.refused = f"no sandbox here: {sandbox.problem()}"
        return report
    cases = torch_cases(spec, seed or secrets.token_hex(8), count)
    if len(cases) < count:
        report.refused = (
            f"PyTorch's {spec['torch']} gave no answer for these inputs (it "
            "raised, or took too long or too much memory)"
        )
        return report
    if workspace is None and class_edition():
        workspace = find_workspace(folder.resolve()) or find_workspace()
    limits = limits or sandbox.Limits()
    with tempfile.TemporaryDirectory() as scratch:
        tree = project_tree(Path(scratch) / "tree", folder, workspace)
        job = {
            "mode": "cases",
            "cases": [{"inputs": c.inputs, "grad": c.grad} for c in cases],
            "kwargs": spec["kwargs"],
        }
        got = answers(run_child(tree, job, limits)[0], len(cases))
        judge_cases(report, cases, got)
        doubled = run_child(tree, {**job, "mutant": MUTANTS[0]}, limits)[0]
        judge_own(report, got, answers(doubled, len(cases)))
        report.difficulty = difficulty(spec, cases)
        judge_tests(report, tree, folder, spec, limits)
        judge_bench(report, tree, folder, limits)
    return report


def judge_cases(
    report: Report, cases: list[Case], got: dict[int, dict[str, Any]]
) -> None:
    """Per case: the value and every gradient equal PyTorch's."""
    for index, case in enumerate(cases):
        answer = got.get(index, {})
        value_ok = answer.get("shape") == case.shape and close(
            case.value, answer.get("value")
        )
        grads = answer.get("grads")
        grads_ok = isinstance(grads, list) and len(grads) == len(case.grads)
        grads_ok = grads_ok and all(
            (g is None and w is None) or (w is not None and close(w, g))
            for w, g in zip(case.grads, grads or [])
        )
        report.right.append(value_ok and grads_ok)
        shapes = ", ".join(str(tuple(s)) for _, s in case.inputs)
        report.lines.append(
            f"  case {index + 1}, inputs {shapes}: {said(answer, value_ok, grads_ok)}"
        )


def judge_own(
    report: Report,
    got: dict[int, dict[str, Any]],
    doubled: dict[int, dict[str, Any]],
) -> None:
    """Whether the gradient comes from the student's own ``Function``: in
    every case the output's node is theirs, with only the inputs' leaves
    under it, no other node made by the op, their ``backward`` called and
    running no backward pass of its own, and doubling what their backward
    returns doubles every gradient (checked here, not said by the sandbox)."""
    why = ""
    for index, answer in sorted(got.items()):
        audit = answer.get("audit")
        if not isinstance(audit, dict):
            why = "the op raised"
        elif not audit.get("own"):
            node = str(audit.get("node"))[:40]
            why = f"the output's grad_fn is {node}, not your Function's"
        elif not audit.get("leaves_only") or audit.get("made_in_op") != [audit["node"]]:
            why = "the op builds other nodes of the graph around your Function"
        elif not audit.get("backward_calls"):
            why = "your backward was not called"
        elif audit.get("passes_inside_backward") or audit.get("made_in_backward"):
            why = "your backward runs autograd on other operations"
        elif not _doubles(answer, doubled.get(index, {})):
            why = "doubling your backward's result does not double the gradient"
        if why:
            break
    report.own = bool(got) and not why
    report.own_why = why or ("no case answered" if not got else "")


def _doubles(answer: dict[str, Any], doubled: dict[str, Any]) -> bool:
    mine, twice = answer.get("grads"), doubled.get("grads")
    if not isinstance(mine, list) or not isinstance(twice, list):
        return False
    if len(mine) != len(twice):
        return False
    for one, two in zip(mine, twice):
        if one is None or two is None:
            if one is not two:
                return False
            continue
        if not isinstance(one, list) or not all(type(v) in (int, float) for v in one):
            return False
        if not close([2 * v for v in one], two):
            return False
    return True


def difficulty(spec: dict[str, Any], cases: list[Case]) -> int:
    """The rubric's difficulty, read from the spec and PyTorch's answers: 10
    for a reduction (fewer outputs than an input has elements) or a keyword,
    7 for several inputs, 4 for an element-wise function of one input."""
    largest = max(math.prod(i["shape"]) for i in spec["inputs"])
    if spec["kwargs"] or any(math.prod(c.shape) < largest for c in cases):
        return 10
    return 7 if len(spec["inputs"]) > 1 else 4


def test_names(folder: Path) -> list[str]:
    """``file:name`` of each ``test*`` function the test files define, read
    here (the sandbox's word is taken only for which of them passed)."""
    names = []
    for path in tests_of(folder):
        try:
            tree = parse(path.read_text("utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        names += [
            f"{path.name}:{node.name}"
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test")
        ]
    return names


def judge_tests(
    report: Report,
    tree: Path,
    folder: Path,
    spec: dict[str, Any],
    limits: sandbox.Limits,
) -> None:
    """Runs the student's tests on their op, then on each mutant: a test
    catches a mutant when it passes on the op and fails on the mutant."""
    names = test_names(folder)
    if not names:
        return
    job = {"mode": "tests", "tests": sorted({n.split(":")[0] for n in names})}

    def passed(mutant: str | None) -> set[str]:
        records = run_child(tree, {**job, "mutant": mutant}, limits)[0]
        return {
            r["test"]
            for r in records
            if r.get("passed") is True and r.get("test") in names
        }

    good = passed(None)
    report.tests_pass = good == set(names)
    report.tests = {name: [] for name in names}
    report.mutants = [m for m in MUTANTS if spec["kwargs"] or m != "keywords ignored"]
    for mutant in report.mutants:
        for name in good - passed(mutant):
            report.tests[name].append(mutant)


def judge_bench(
    report: Report, tree: Path, folder: Path, limits: sandbox.Limits
) -> None:
    """Runs the benchmark (``BENCH_SECONDS`` at most) and reads the ratios it
    prints (``... ratio ...: NUMBER``); nothing else of its output."""
    bench = bench_of(folder)
    if bench is None:
        return
    timed = sandbox.Limits(
        seconds=BENCH_SECONDS / 2,
        memory=limits.memory,
        file_size=limits.file_size,
        processes=limits.processes,
    )
    records, data = run_child(tree, {"mode": "bench", "bench": bench.name}, timed)
    report.bench_ran = any(r.get("bench") == "done" for r in records)
    report.ratios = [float(m) for m in RATIO.findall(data)][:10]


def main() -> None:
    """``python -m course.project``: the job of :func:`torch_cases`, JSON in
    on standard input, the cases as JSON out."""
    job = json.loads(sys.stdin.read())
    cases = draw_cases(job["spec"], job["seed"], job["count"])
    sys.stdout.write(json.dumps([asdict(case) for case in cases]))


if __name__ == "__main__":
    main()
