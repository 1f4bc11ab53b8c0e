"""Runs a student's project in the sandbox: their operation on the judge's
inputs, their tests, or their benchmark, on the engine of the tree (see
:mod:`course.project`).

Standard input: the run's nonce and a newline, then ``{"mode": "cases" |
"tests" | "bench", "mutant": name or null, "cases": [{"inputs": [[values,
shape], ...], "grad": values}], "kwargs": {...}, "tests": [file names],
"limits": {...}, "user": uid}``. Standard output: lines ``NONCE {...}``:

- ``cases``: per case ``{"case": i, "value": [...], "shape": [...],
  "grads": [[...] or null, ...], "audit": {...}}`` or ``{"case": i, "error":
  "TypeError"}``; the audit says whose node the output's ``grad_fn`` is and
  what ran under it (:func:`audited`);
- ``tests``: per test function ``{"test": "file:name", "passed": bool}``;
- ``bench``: ``{"bench": "done"}`` once the benchmark returned (its own
  lines go to standard output too; the judge reads only its ratios).

A ``mutant`` is a deliberately broken version of the student's ``Function``
(:func:`mutate`; ``course.project.MUTANTS`` names them), put in place before
their tests or the cases run. The judge believes none of this but what equals
its own expectations.
"""

from __future__ import annotations

import importlib
import json
import os
import runpy
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import runner  # type: ignore[import-not-found]  # noqa: E402  (start-up steps)

PROJECT = "/runner/project"
WORKSPACE = "/runner/my_engine"


# --- the engine ----------------------------------------------------------------


def engine() -> Any:
    """The tree's engine; in a class edition, with the student's saved pieces
    in place of its stubs (``my_engine/`` copied beside it)."""
    if os.path.isdir(WORKSPACE):
        os.environ["SLOWTORCH_WORKSPACE"] = WORKSPACE
    import slowtorch_lib as torch  # at call time: loaded under the limits set

    try:
        edition = importlib.import_module("slowtorch_lib._class")
    except ImportError:
        return torch  # the complete engine
    if not edition.saved_pieces.loaded():
        edition.load_saved()  # a grader's copy has no import hook
    return torch


# --- the student's Function, and what ran under it ----------------------------------


class Audit:
    """Counts, while the student's op and its backward run, the graph nodes
    made (``_connect``) and the backward passes started (``run_backward``)."""

    def __init__(self, torch: Any) -> None:
        self.function = importlib.import_module("slowtorch_lib.autograd.function")
        self.engine = importlib.import_module("slowtorch_lib.autograd.engine")
        self.connected: list[str] = []
        self.passes = 0
        self.backward_calls = 0
        self.inside = 0  # depth in the student's backward
        self.in_backward: list[str] = []
        self.nested = 0
        connect, run = self.function._connect, self.engine.run_backward

        def counted_connect(ctx: Any, *args: Any) -> Any:
            (self.in_backward if self.inside else self.connected).append(ctx.name())
            return connect(ctx, *args)

        def counted_run(*args: Any, **kwargs: Any) -> Any:
            self.passes += 1
            self.nested += bool(self.inside)
            return run(*args, **kwargs)

        setattr(self.function, "_connect", counted_connect)  # noqa: B010
        setattr(self.engine, "run_backward", counted_run)  # noqa: B010

    def watch(self, cls: Any) -> None:
        """Counts the calls of ``cls.backward``."""
        backward = cls.backward

        def counted(ctx: Any, *grads: Any) -> Any:
            self.backward_calls += 1
            self.inside += 1
            try:
                return backward(ctx, *grads)
            finally:
                self.inside -= 1

        cls.backward = staticmethod(counted)


def students_function(module: Any, base: type) -> type | None:
    """The one ``Function`` subclass defined in the student's ``op.py``."""
    found = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, base)
        and value.__module__ == module.__name__
    ]
    return found[0] if len(found) == 1 else None


def audited(audit: Audit, out: Any, cls: type | None) -> dict[str, Any]:
    """What the graph says of the output: its node's name, whether the node
    is the student's Function's, and whether only the inputs' AccumulateGrad
    (or nothing) lies under it."""
    node = out.grad_fn
    under = [] if node is None else [n for n, _ in node.next_functions]
    return {
        "node": None if node is None else node.name(),
        "own": node is not None
        and cls is not None
        and getattr(type(node), "_function", None) is cls,
        "leaves_only": all(
            n is None or isinstance(n, audit.function.AccumulateGrad) for n in under
        ),
        "made_in_op": list(audit.connected),
    }


# --- mutants ---------------------------------------------------------------------


def _each(grads: Any, change: Any) -> Any:
    many = isinstance(grads, tuple)
    changed = [None if g is None else change(i, g) for i, g in enumerate(
        grads if many else (grads,))]  # fmt: skip
    return tuple(changed) if many else changed[0]


def _transposed(g: Any) -> Any:
    if g.dim() >= 2 and g.shape[-1] == g.shape[-2]:
        return g.transpose(-1, -2).contiguous()
    return g.flip(-1) if g.dim() >= 1 else g


def mutate(name: str, cls: Any, module: Any) -> None:
    """Puts the mutant ``name`` of the student's Function (or op) in place."""
    forward, backward = cls.forward, cls.backward

    def grads_changed(change: Any) -> None:
        def broken(ctx: Any, *grads: Any) -> Any:
            return _each(backward(ctx, *grads), change)

        cls.backward = staticmethod(broken)

    if name == "backward doubled":
        grads_changed(lambda i, g: g * 2)
    elif name == "backward sign flipped":
        grads_changed(lambda i, g: -g)
    elif name == "backward zero for the last input":

        def zero_last(ctx: Any, *grads: Any) -> Any:
            got = backward(ctx, *grads)
            if not isinstance(got, tuple):
                return None if got is None else got * 0
            index = max(i for i, g in enumerate(got) if g is not None)
            return tuple(g * 0 if i == index else g for i, g in enumerate(got))

        cls.backward = staticmethod(zero_last)
    elif name == "backward transposed":
        grads_changed(lambda i, g: _transposed(g))
    elif name == "forward off by 0.001":

        def shifted(ctx: Any, *args: Any, **kwargs: Any) -> Any:
            return forward(ctx, *args, **kwargs) + 0.001

        cls.forward = staticmethod(shifted)
    elif name == "keywords ignored":
        op = module.op
        module.op = lambda *inputs, **kwargs: op(*inputs)
    else:
        raise LookupError(name)


# --- the three modes ---------------------------------------------------------------


def answer(
    torch: Any, module: Any, cls: Any, case: dict[str, Any], kwargs: dict[str, Any]
) -> Any:
    inputs = [
        torch.tensor(values).reshape(shape).requires_grad_()
        for values, shape in case["inputs"]
    ]
    audit = Audit(torch)
    if cls is not None:
        audit.watch(cls)
    out = module.op(*inputs, **kwargs)
    facts = audited(audit, out, cls)
    upstream = torch.tensor(case["grad"]).reshape(out.shape)
    audit.connected.clear()
    (out * upstream).sum().backward()
    facts["backward_calls"] = audit.backward_calls
    facts["passes_inside_backward"] = audit.nested
    facts["made_in_backward"] = audit.in_backward
    return {
        "value": out.detach().flatten().tolist(),
        "shape": list(out.shape),
        "grads": [
            None if x.grad is None else x.grad.flatten().tolist() for x in inputs
        ],
        "audit": facts,
    }


def run_cases(nonce: str, torch: Any, module: Any, cls: Any, job: Any) -> None:
    for index, case in enumerate(job["cases"]):
        try:
            record = {"case": index, **answer(torch, module, cls, case, job["kwargs"])}
        except BaseException as error:  # noqa: BLE001
            record = {"case": index, "error": type(error).__name__}
        print(nonce, json.dumps(record), flush=True)


def run_tests(nonce: str, job: Any) -> None:
    """Calls every ``test*`` function of each test file (no arguments)."""
    for file in job["tests"]:
        stem = file[: -len(".py")]
        try:
            tests = importlib.import_module(stem)
        except BaseException:  # noqa: BLE001  (its tests count as failed)
            continue
        for name, value in list(vars(tests).items()):
            if not name.startswith("test") or not callable(value):
                continue
            try:
                value()
                passed = True
            except BaseException:  # noqa: BLE001
                passed = False
            record = {"test": f"{file}:{name}", "passed": passed}
            print(nonce, json.dumps(record), flush=True)


def main() -> None:
    nonce = bytes(runner.read_nonce(0)).decode()
    job = json.loads(runner.read_all(0))
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    runner.become(job.get("user"))
    runner.not_dumpable()
    runner.set_limits(job.get("limits", {}))
    torch = engine()
    sys.path.insert(0, PROJECT)
    try:
        module = importlib.import_module("op")
        cls = students_function(module, torch.autograd.Function)
        if job.get("mutant"):
            if cls is None:
                raise LookupError("no Function of the student's to break")
            mutate(job["mutant"], cls, module)
    except BaseException as error:  # noqa: BLE001  (reported as no answers)
        print(nonce, json.dumps({"error": type(error).__name__}), flush=True)
        return
    if job["mode"] == "cases":
        run_cases(nonce, torch, module, cls, job)
    elif job["mode"] == "tests":
        run_tests(nonce, job)
    else:
        sys.argv = [job["bench"]]
        runpy.run_path(os.path.join(PROJECT, job["bench"]), run_name="__main__")
        print(nonce, json.dumps({"bench": "done"}), flush=True)


if __name__ == "__main__":
    main()
