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
import threading
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course import similarity
from course.cases import Exercise, all_cases
from course.checking import chapter_seed
from course.trees import PACKAGE, ROOT, cached, reference_tree, source_digest

LEAK_WINDOW = 24


@dataclass
class Answers:
    """What only the judge holds: recorded outcomes, the grading-only cases'
    text (to keep it out of feedback), the model answers' fingerprints, and,
    once the class's seed is drawn (:meth:`draw`), the drawn cases' expected
    outcomes, computed here on the complete engine (``engine``: the folder
    that holds it)."""

    expected: dict[str, dict[str, Any]]
    secret_text: str
    fingerprints: dict[str, list[str]]
    needs: dict[str, list[list[str]]] = field(default_factory=dict)
    engine: Path | None = None
    seed: str = ""
    drawn: dict[str, list[Any]] = field(default_factory=dict)
    drawn_chapters: set[int] = field(default_factory=set)
    noted: dict[str, dict[str, str]] = field(default_factory=dict)

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
                str(data.get("seed", "")),
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
        return cls(expected, secret, model_prints(), dependencies(), ROOT)

    def save(self, folder: Path) -> None:
        """Writes the answers and the complete engine (for the drawn cases)
        into ``folder``: what only the judge may read."""
        data = {
            "expected": self.expected,
            "secret_text": self.secret_text,
            "fingerprints": self.fingerprints,
            "needs": self.needs,
            "seed": self.seed or default_seed(),  # every submission: one draw
        }
        (folder / "answers.json").write_text(json.dumps(data), encoding="utf-8")
        if self.engine is not None and folder.resolve() != self.engine.resolve():
            reference_tree(self.engine, folder / "engine")

    def draw(self, seed: str = "", chapters: Collection[int] | None = None) -> Answers:
        """These answers with the drawn cases' expected outcomes for the
        class's ``seed`` (by default the one they hold, else
        :func:`default_seed`), computed by the complete engine in a process of
        its own (never in the sandbox); only ``chapters``' where given."""
        seed = seed or self.seed or default_seed()
        if self.engine is None:
            raise RuntimeError(
                "no complete engine to compute the drawn cases' answers with"
            )
        which = [",".join(map(str, sorted(chapters)))] if chapters else []
        done = subprocess.run(
            [sys.executable, "-m", "course.record", "--drawn", seed, *which],
            cwd=self.engine,
            env=dict(os.environ, PYTHONPATH=str(self.engine)),
            capture_output=True,
            text=True,
            check=True,
        )
        made = json.loads(done.stdout)
        drawn = made["outcomes"]
        found = set(chapters) if chapters else {int(e.split(".")[0]) for e in drawn}
        return dataclasses.replace(
            self, seed=seed, drawn=drawn, drawn_chapters=found, noted=made["replays"]
        )

    def add_draws(self, chapters: Collection[int]) -> None:
        """Computes the drawn cases' outcomes (and the replays' notes, see
        :mod:`course.replay`) of those of ``chapters`` not drawn yet (one
        process; several graders' threads may ask at once)."""
        with _DRAWING:
            have = {int(e.split(".")[0]) for e in self.drawn}
            missing = set(chapters) - have - self.drawn_chapters
            if missing:
                more = self.draw(chapters=missing)
                self.drawn = {**self.drawn, **more.drawn}
                self.noted = {
                    piece: {**self.noted.get(piece, {}), **more.noted.get(piece, {})}
                    for piece in {*self.noted, *more.noted}
                }
                self.drawn_chapters |= missing

    def chapter_seeds(self, exercise_ids: Iterable[str]) -> dict[str, str]:
        """The seed of each of these exercises' chapters (what the runner and
        the student may see), by chapter number."""
        return {e.split(".")[0]: chapter_seed(self.seed, e) for e in exercise_ids}

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
_DRAWING = threading.Lock()
SEED_FILE = Path.home() / ".config" / "slowtorch" / "grading-seed"


def new_seed() -> str:
    """A class seed drawn afresh (``grade --seed new``)."""
    return secrets.token_hex(8)


def default_seed() -> str:
    """The teacher's own class seed: drawn once on this machine and kept in
    ``SEED_FILE`` (readable by its owner alone), so that the same class
    graded again gets the same draw, exercise by exercise. It is not in the
    course's text: a student who knew it could work out every drawn case at
    home. ``grade --seed new`` draws another for one run."""
    try:
        return SEED_FILE.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        pass
    SEED_FILE.parent.mkdir(parents=True, exist_ok=True)
    # Written whole under a name of its own, then linked into place: a grader
    # starting meanwhile reads either no file or the whole seed.
    draft = SEED_FILE.with_name(f".grading-seed-{os.getpid()}-{new_seed()}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as file:
        file.write(new_seed() + "\n")
    try:
        os.link(draft, SEED_FILE)
    except FileExistsError:  # another grader made it meanwhile
        pass
    finally:
        draft.unlink()
    return SEED_FILE.read_text(encoding="ascii").strip()


def model_prints() -> dict[str, list[str]]:
    """The model answers' fingerprints for the copy check, computed once for
    each version of the course (kept under ``trees.CACHE``)."""

    def compute(folder: Path) -> None:
        folder.mkdir()
        text = json.dumps(similarity.model_prints())
        (folder / "prints.json").write_text(text, encoding="utf-8")

    notebooks = (ROOT / "exercises", ROOT / "solutions")
    found = cached(f"prints-{source_digest('prints', folders=notebooks)}", compute)
    return dict(json.loads((found / "prints.json").read_text("utf-8")))


def dependencies() -> dict[str, list[list[str]]]:
    """Which other pieces each case reaches (:mod:`course.dependencies`),
    measured on the complete engine in a process of its own, once for each
    version of the course (kept under ``trees.CACHE``)."""
    if ROOT not in _NEEDS:

        def measure(folder: Path) -> None:
            done = subprocess.run(
                [sys.executable, "-m", "course.dependencies"],
                cwd=ROOT,
                env=dict(os.environ, PYTHONPATH=str(ROOT)),
                capture_output=True,
                text=True,
                check=True,
            )
            folder.mkdir()
            (folder / "needs.json").write_text(done.stdout, encoding="utf-8")

        found = cached(f"needs-{source_digest('needs')}", measure)
        _NEEDS[ROOT] = json.loads((found / "needs.json").read_text("utf-8"))
    return _NEEDS[ROOT]


_NEEDS: dict[Path, dict[str, list[list[str]]]] = {}
