"""What only the judge holds: :class:`Answers`, the answer key.

The recorded outcomes of the fixed cases, the grading-only cases' text (to
keep it out of feedback), the model answers' fingerprints (for the copy
check), which other pieces each case reaches (:func:`dependencies`), and,
once a run's seed is drawn, the drawn cases' expected outcomes, computed on
the complete engine in a process of their own. Never copied into the
runner's tree (:mod:`course.trees`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course import similarity
from course.cases import Exercise, all_cases
from course.trees import PACKAGE, ROOT, reference_tree

LEAK_WINDOW = 24


@dataclass
class Answers:
    """What only the judge holds: recorded outcomes, the grading-only cases'
    text (to keep it out of feedback), the model answers' fingerprints, and,
    once a run's seed is drawn (:meth:`draw`), the drawn cases' expected
    outcomes, computed here on the complete engine (``engine``: the folder
    that holds it)."""

    expected: dict[str, dict[str, Any]]
    secret_text: str
    fingerprints: dict[str, list[str]]
    needs: dict[str, list[list[str]]] = field(default_factory=dict)
    engine: Path | None = None
    seed: str = ""
    drawn: dict[str, list[Any]] = field(default_factory=dict)

    @classmethod
    def load(cls, folder: Path | None = None) -> Answers:
        """From ``folder`` (an exported autograder), else from the course."""
        if folder is not None:
            data = json.loads((folder / "answers.json").read_text("utf-8"))
            engine = folder / "engine"
            return cls(  # the complete engine, when the export carries it
                data["expected"],
                data["secret_text"],
                data["fingerprints"],
                data.get("needs", {}),
                engine if (engine / "slowtorch_lib").is_dir() else None,
            )
        expected: dict[str, dict[str, Any]] = {}
        for name in ("expected.json", "expected_grading.json"):
            path = PACKAGE / "checks" / name
            if path.exists():
                for exercise, cases in json.loads(path.read_text("utf-8")).items():
                    expected.setdefault(exercise, {}).update(cases)
        # What the runner could read and quote: the grading-only programs (the
        # recorded answers never reach it).
        secret = "\n".join(
            p.read_text("utf-8") for p in sorted(PACKAGE.glob("checks/grading_*.py"))
        )
        return cls(expected, secret, similarity.model_prints(), dependencies(), ROOT)

    def save(self, folder: Path) -> None:
        """Writes the answers and the complete engine (for the drawn cases)
        into ``folder``: what only the judge may read."""
        data = {
            "expected": self.expected,
            "secret_text": self.secret_text,
            "fingerprints": self.fingerprints,
            "needs": self.needs,
        }
        (folder / "answers.json").write_text(json.dumps(data), encoding="utf-8")
        if self.engine is not None and folder.resolve() != self.engine.resolve():
            reference_tree(self.engine, folder / "engine")

    def draw(self, seed: str | None = None) -> Answers:
        """These answers with a fresh seed drawn for this run, and the drawn
        cases' expected outcomes for it, computed by the complete engine in a
        process of its own (never in the sandbox)."""
        seed = seed or secrets.token_hex(16)
        if self.engine is None:
            raise RuntimeError(
                "no complete engine to compute the drawn cases' answers with"
            )
        done = subprocess.run(
            [sys.executable, "-m", "course.record", "--drawn", seed],
            cwd=self.engine,
            env=dict(os.environ, PYTHONPATH=str(self.engine)),
            capture_output=True,
            text=True,
            check=True,
        )
        drawn = json.loads(done.stdout)
        return dataclasses.replace(self, seed=seed, drawn=drawn)

    def want(self, exercise: Exercise, index: int) -> Any:
        """The expected outcome of a case (the runner's numbering)."""
        fixed = len(exercise.cases) + len(exercise.grading_cases)
        if index < fixed:
            label = all_cases(exercise)[index].label
            return self.expected.get(exercise.id, {}).get(label, MISSING)
        found = self.drawn.get(exercise.id, [])
        return found[index - fixed] if index - fixed < len(found) else MISSING

    def leaks(self, text: str) -> bool:
        """Whether ``text`` quotes the grading-only cases."""
        return any(
            text[i : i + LEAK_WINDOW] in self.secret_text
            for i in range(0, max(1, len(text) - LEAK_WINDOW + 1))
            if len(text) >= LEAK_WINDOW
        )


MISSING = {"missing": "not recorded"}


def dependencies() -> dict[str, list[list[str]]]:
    """Which other pieces each case reaches (:mod:`course.dependencies`),
    measured on the complete engine in a process of its own."""
    if ROOT not in _NEEDS:
        done = subprocess.run(
            [sys.executable, "-m", "course.dependencies"],
            cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            capture_output=True,
            text=True,
            check=True,
        )
        _NEEDS[ROOT] = json.loads(done.stdout)
    return _NEEDS[ROOT]


_NEEDS: dict[Path, dict[str, list[list[str]]]] = {}
