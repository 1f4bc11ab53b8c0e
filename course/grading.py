"""Grading a class's notebooks: ``python -m course grade``.

For each submitted notebook the grader

1. reads it defensively as plain JSON (:mod:`course.notebook_reader`): any
   field of the wrong shape, a duplicate tag, a moved or missing cell is a
   note on the student's row, never a stop;
2. finds its chapter (notebook metadata, else its cells' tags, else the file
   name) and each exercise's answer cell;
3. runs the answers of the engine's pieces in the runner
   (:mod:`course.runner`), inside the operating-system sandbox
   (:mod:`course.sandbox`), with the class engine (every piece a stub but
   those given with ``--give``) and the case programs only; the student's own
   answers to the other pieces, from their notebooks that count, take the
   place of those stubs, as in their notebook; the judge
   (:mod:`course.judge`), outside, alone holds the expected values and
   compares the outcomes, which arrive as plain data. Each exercise's marks
   come from drawn cases: inputs drawn from the class's seed (the same seed,
   the same grades), whose expected outcomes the judge computes on the
   complete engine; cases with fixed inputs are for the feedback. Every case counts but
   those that reach a piece of a later chapter (not given); a failed case
   that also runs another of the student's pieces that fails its own cases
   is reported as a knock-on. The chapters before a notebook's that the
   student did not hand in with it come from their earlier submissions
   (``grade --earlier``), else from the reference where given; an exercise
   whose cases reach a chapter that is none of these waits for it,
   ungraded, and the notebook's note asks for it. Predictions are read from the
   cell's text, never run, and graded only with ``--predictions``;
4. gives each exercise its marks (0 for a stub, an answer that uses the
   reference, a cell the runner refused, a child that ended before its last
   record or wrote records the runner never writes; a child that ran out of
   time keeps what it did), and flags answers that copy the model answer.
   Of several notebooks for one chapter, the latest (by the file's
   modification time, then its name) counts.

Results come as a table, a CSV file (:mod:`course.export`) and, with
``--feedback``, one Markdown report per student.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import re
import shutil
import tempfile
import time
from collections.abc import Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from course import integrity, judge, notebook_reader, runner_protocol, sandbox, trees
from course.answer_key import Answers, default_seed
from course.checking import Exercise, chapter_seed, load
from course.judge import Graded
from course.messages import text

PACKAGE = Path(__file__).resolve().parent
NO_SANDBOX = "graded WITHOUT the sandbox (--no-sandbox)"

__all__ = ["Graded", "Result", "grade"]


@dataclass
class Result:
    """The grade of one notebook."""

    path: Path
    student: str
    chapter: int | None = None
    exercises: dict[str, Graded] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    sources: dict[str, str] = field(default_factory=dict)  # answer cells
    modified: float = 0.0
    seed: str = ""  # the seed of its chapter's drawn cases (not the class's)
    # where each earlier chapter's pieces came from, said for the student
    earlier: dict[int, str] = field(default_factory=dict)
    waiting: list[int] = field(default_factory=list)  # earlier chapters missing

    @property
    def points(self) -> float:
        return sum(g.points for g in self.exercises.values())

    @property
    def ok(self) -> bool:
        return bool(self.exercises) and all(
            g.points == 1 for g in self.exercises.values()
        )


@dataclass
class Options:
    """How a class is graded."""

    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    sandboxed: bool = True
    predictions: bool = False
    given: frozenset[str] = frozenset()


# --- which chapter, which cells ----------------------------------------------------


def chapter_exercises(chapter: int) -> list[str]:
    try:
        module = importlib.import_module(f"course.checks.ch{chapter:02d}")
    except ImportError:
        return []
    return list(module.EXERCISES)


def find_chapter(notebook: notebook_reader.Notebook, path: Path) -> int | None:
    """From the notebook's metadata, else its tags, else its file name."""
    name = notebook.chapter_name
    if re.match(r"^\d\d_", name) and chapter_exercises(int(name[:2])):
        return int(name[:2])
    numbers = {
        int(e.split(".")[0])
        for c in notebook.cells
        for _, e in notebook_reader.roles(c)
    }
    if len(numbers) == 1 and chapter_exercises(min(numbers)):
        return min(numbers)
    prefix = re.match(r"^(\d\d)_", path.name)
    if prefix and chapter_exercises(int(prefix.group(1))):
        return int(prefix.group(1))
    return None


def graded_exercises(
    chapter: int, predictions: bool, given: Collection[str] = ()
) -> list[Exercise]:
    """The exercises graded in a chapter's notebook (not the pieces given)."""
    found = [load(e) for e in chapter_exercises(chapter) if e not in given]
    return [e for e in found if predictions or e.kind == "piece"]


# --- grading -----------------------------------------------------------------------


@dataclass
class Submitted:
    """One notebook, read, with its answer cells and what the runner reported."""

    result: Result
    exercises: list[Exercise] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    run: runner_protocol.Run | None = None


def read_one(path: Path, student: str, options: Options) -> Submitted:
    """Reads a notebook and finds its answer cells (notes, never a stop)."""
    submitted = Submitted(Result(path, student))
    result = submitted.result
    try:
        result.modified = path.stat().st_mtime
    except OSError:
        pass
    try:
        notebook = notebook_reader.read(path)
    except notebook_reader.NotANotebook as error:
        result.notes.append(f"cannot read {path.name}: {error}")
        return submitted
    result.notes += notebook.notes
    result.chapter = find_chapter(notebook, path)
    if result.chapter is None:
        result.notes.append("cannot tell which chapter this notebook is for")
        return submitted
    submitted.exercises = graded_exercises(
        result.chapter, options.predictions, options.given
    )
    submitted.sources, notes = notebook_reader.answer_cells(
        notebook, [(e.id, e.name) for e in submitted.exercises]
    )
    result.notes += notes
    result.sources = submitted.sources
    return submitted


def grade_student(
    items: list[tuple[Path, str]],
    tree: Path,
    answers: Answers,
    options: Options,
    earlier: list[tuple[Path, str]] | None = None,
) -> list[Result]:
    """Grades one student's notebooks: of several for one chapter, the latest
    counts (the others get a note). Each exercise runs with the student's
    answers to the others (from the notebooks that count) in place of those
    pieces' stubs, as their notebook does with the pieces it saved; the
    chapters none of them is for come from the student's ``earlier``
    submissions (not graded again), else from the reference where given.
    An exercise whose cases need a chapter that is none of these waits for
    it (:func:`course.judge.judge_piece`)."""
    submitted: list[Submitted] = []
    for path, student in items:
        started = time.monotonic()
        try:
            submitted.append(read_one(path, student, options))
        except Exception as error:  # noqa: BLE001  (one notebook never stops the class)
            submitted.append(Submitted(Result(path, student)))
            failed(submitted[-1].result, error)
        submitted[-1].result.seconds = time.monotonic() - started
    kept, notes = counted([one.result for one in submitted])
    for one in submitted:
        if one.result.chapter is not None and not any(one.result is r for r in kept):
            one.result.notes += [n for n in notes if one.result.path.name in n]
            one.exercises = []
    pieces: dict[str, str] = {}
    for one in submitted:
        pieces.update(pieces_of(one))
    handed = {r.chapter for r in kept if r.chapter is not None}
    before = earlier_pieces(earlier or [], handed, options)
    for _, one in sorted(before.items()):
        pieces.update(pieces_of(one))
    absent = sources_of_earlier(kept, before, options.given)
    for one in submitted:
        if one.result.chapter is not None:
            one.result.notes.append(seed_note(answers.seed))
            one.result.seed = chapter_seed(answers.seed, f"{one.result.chapter}.0")
    # The drawn cases' outcomes and the replays (course.replay), computed on
    # the complete engine in a process of their own, once per chapter.
    chapters = {c for one in submitted if (c := one.result.chapter) is not None}
    answers.add_draws(chapters)
    for group in runner_groups(submitted):
        started = time.monotonic()
        try:
            ids = (e.id for one in group for e in one.exercises)
            seeds = answers.chapter_seeds(ids)
            run_group(group, tree, options, pieces, seeds, answers.noted)
        except Exception as error:  # noqa: BLE001  (one notebook never stops the class)
            for one in group:
                failed(one.result, error)
        for one in group:
            one.result.seconds += (time.monotonic() - started) / len(group)
    # the earlier submissions' pieces are not judged here: a failed case
    # that runs one is reported as a knock-on of it
    doubtful = set(answers.needs) - set(pieces) - options.given
    doubtful |= {e.id for one in before.values() for e in one.exercises}
    for again in (False, True):  # again: knowing which pieces fail some cases
        for one in submitted:
            started = time.monotonic()
            try:
                if one.run is not None:
                    one.result.exercises.clear()
                    judge_notebook(one, answers, doubtful, again, options.given, absent)
            except Exception as error:  # noqa: BLE001  (one notebook never stops the class)
                if again:
                    failed(one.result, error)
            one.result.seconds += time.monotonic() - started
        doubtful |= {
            e
            for one in submitted
            for e, graded in one.result.exercises.items()
            if e in answers.needs and graded.passed < graded.total
        }
    return [one.result for one in submitted]


def pieces_of(one: Submitted) -> dict[str, str]:
    """The pieces a notebook's answers give the runner (stubs left out)."""
    pieces = {}
    for exercise in one.exercises:
        source = one.sources.get(exercise.id)
        text = judge.piece_of(exercise, source) if source is not None else None
        if text is not None:
            pieces[exercise.id] = text
    return pieces


def earlier_pieces(
    items: list[tuple[Path, str]], handed: set[int], options: Options
) -> dict[int, Submitted]:
    """The student's earlier submissions (``grade --earlier``) that give
    the pieces of a chapter before one handed in now and not handed in
    itself, the latest of each chapter: read, never graded. The student's
    own work comes before the reference, so a chapter given is read from
    them too."""
    reading = dataclasses.replace(options, given=frozenset(), predictions=False)
    found: list[Submitted] = []
    for path, student in items:
        try:
            found.append(read_one(path, student, reading))
        except Exception:  # noqa: BLE001  (an unreadable one is as if absent)
            continue
    kept, _ = counted([one.result for one in found])
    return {
        one.result.chapter: one
        for one in found
        if one.result.chapter is not None
        and one.result.chapter not in handed
        and one.result.chapter < max(handed, default=0)
        and any(one.result is r for r in kept)
    }


def sources_of_earlier(
    kept: list[Result], before: dict[int, Submitted], given: Collection[str]
) -> set[str]:
    """Says in each notebook that counts where each earlier chapter's pieces
    come from (:attr:`Result.earlier`, :attr:`Result.waiting`); returns the
    pieces of the chapters that come from nowhere (absent)."""
    handed = {r.chapter: r for r in kept if r.chapter is not None}
    absent: set[str] = set()
    for chapter, result in handed.items():
        for past in range(1, chapter):
            ids = [e for e in chapter_exercises(past) if load(e).kind == "piece"]
            if not ids:
                continue
            if past in handed and not set(ids) <= set(given):
                result.earlier[past] = f"{handed[past].path.name} (handed in with it)"
            elif past in before:
                name = before[past].result.path.name
                result.earlier[past] = f"{name} (an earlier submission)"
            elif set(ids) <= set(given):
                result.earlier[past] = "the reference (given)"
            else:
                result.waiting.append(past)
                absent |= set(ids) - set(given)
    return absent


def failed(result: Result, error: Exception) -> None:
    result.notes.append(
        f"the grader failed on this notebook ({type(error).__name__}); "
        "its grades are incomplete"
    )


def runner_groups(submitted: list[Submitted]) -> list[list[Submitted]]:
    """The student's notebooks, grouped so that one runner (one sandbox, one
    import of the engine) runs several: notebooks of one group answer
    different exercises (two notebooks for one chapter go apart)."""
    groups: list[tuple[set[str], list[Submitted]]] = []
    for one in submitted:
        if one.result.chapter is None:
            continue
        ids = {e.id for e in one.exercises if e.kind == "piece"}
        for taken, group in groups:
            if not taken & ids:
                taken |= ids
                group.append(one)
                break
        else:
            groups.append((ids, [one]))
    return [group for _, group in groups]


def run_group(
    group: list[Submitted],
    tree: Path,
    options: Options,
    pieces: dict[str, str],
    seeds: dict[str, str] | None = None,
    replays: dict[str, dict[str, str]] | None = None,
) -> None:
    """Runs the answers to the engine's pieces of a group of notebooks in one
    runner (with the ``replays`` of :mod:`course.replay`); the runner's own
    notes go with the group's first notebook."""
    sources: dict[str, str] = {}
    exercises: dict[str, Exercise] = {}
    for one in group:
        sources.update(one.sources)
        exercises.update({e.id: e for e in one.exercises if e.kind == "piece"})
    run = runner_protocol.run_pieces(
        tree,
        sources,
        exercises,
        options.limits,
        options.sandboxed,
        pieces,
        restarts=runner_protocol.MAX_RESTARTS * len(group),
        seeds=seeds,
        replays=replays,
    )
    for one in group:
        one.run = run
    for why, count in sorted(run.ignored.items()):
        group[0].result.notes.append(f"the runner's output: {count} {why} ignored")


def judge_notebook(
    one: Submitted,
    answers: Answers,
    doubtful: set[str],
    notes: bool,
    given: Collection[str] = (),
    absent: Collection[str] = (),
) -> None:
    """Judges every exercise of the notebook from what the runner reported
    (the notes go to the result only with ``notes``); ``absent``: the pieces
    of the earlier chapters that no notebook gives (they wait for them)."""
    result, run = one.result, one.run
    assert run is not None
    for exercise in one.exercises:
        source = one.sources.get(exercise.id)
        if source is None:
            graded = Graded(exercise.id, exercise.title)
            graded.message = "no answer cell (deleted?)"
        elif exercise.kind == "piece":
            graded = judge.judge_piece(
                exercise,
                source,
                run,
                answers,
                doubtful - {exercise.id},
                given,
                absent,
            )
        else:
            graded = judge.judge_prediction(exercise, source, answers)
        piece = source is not None and exercise.kind == "piece"
        reaches = integrity.suspicious(source) if piece and source else []
        if source is not None and reaches:
            graded.flags.append(
                f"exercise {exercise.id}: the cell reaches outside the exercise "
                f"({', '.join(reaches[:8])}); worth a look"
            )
        if source is not None and integrity.copied(exercise.id, source, answers):
            graded.flags.append(
                f"exercise {exercise.id}: the answer matches the model answer (copied?)"
            )
        result.exercises[exercise.id] = graded
        if notes:
            result.notes += graded.flags


def grade(
    submissions: list[tuple[Path, str]],
    timeout: float = 60.0,
    jobs: int = 1,
    sandboxed: bool = True,
    predictions: bool = False,
    answers: Answers | None = None,
    given: Collection[str] = (),
    seed: str = "",
    earlier: Collection[tuple[Path, str]] = (),
) -> list[Result]:
    """Grades ``(notebook, student)`` pairs; one :class:`Result` each, in order.

    ``timeout``: seconds each exercise's answer and cases may run. ``given``:
    the pieces shipped solved (what ``release --give`` took): the runner's
    engine holds them, and they are not graded. The drawn cases' inputs are
    drawn from the class's ``seed``: by default the one ``answers`` hold,
    else the teacher's own (:func:`course.answer_key.default_seed`), so that
    the same class graded again gets the same grades; each notebook's notes
    say which. ``earlier``: ``(notebook, student)`` pairs of the students'
    earlier submissions (``grade --earlier``), which give the pieces of the
    chapters a student did not hand in now; they are not graded.
    """
    options = Options(
        sandbox.Limits(seconds=timeout), sandboxed, predictions, frozenset(given)
    )
    answers = answers or Answers.load()
    if seed and seed != answers.seed:
        answers = dataclasses.replace(
            answers, seed=seed, drawn={}, drawn_chapters=set()
        )
    elif not answers.seed:
        answers = dataclasses.replace(answers, seed=default_seed())
    else:
        answers = dataclasses.replace(answers)  # its draws are added to the copy
    students: dict[str, list[tuple[Path, str]]] = {}
    for path, student in submissions:
        students.setdefault(student, []).append((path, student))
    before: dict[str, list[tuple[Path, str]]] = {}
    for path, student in earlier:
        before.setdefault(student, []).append((path, student))
    folder = Path(tempfile.mkdtemp(prefix="course-grade-"))
    folder.chmod(0o755)
    try:
        tree = trees.runner_tree(folder / "tree", options.given)
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            graded = list(
                pool.map(
                    lambda items: grade_student(
                        items, tree, answers, options, before.get(items[0][1])
                    ),
                    students.values(),
                )
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    each = {student: iter(mine) for student, mine in zip(students, graded, strict=True)}
    results = [next(each[student]) for _, student in submissions]
    if not sandboxed:
        for result in results:
            result.notes.insert(0, NO_SANDBOX)
    return results


# --- reports -----------------------------------------------------------------------


SEED_NOTE = "drawn cases: class seed "


def seed_note(seed: str) -> str:
    """The note (for the teacher's CSV) that says which draw graded a notebook."""
    return f"{SEED_NOTE}{seed} (grade --seed {seed} draws the same again)"


def status_text(graded: Graded) -> str:
    if graded.status == "graded":
        return f"{graded.passed}/{graded.total}"
    return graded.status


def points_text(graded: Graded) -> str:
    """An exercise's points as shown: none while it waits for an earlier
    chapter (a 0 would read as the student's)."""
    return "-" if graded.status == "waiting" else f"{graded.points:.2f}"


def weight_text(graded: Graded, weights: Mapping[str, float] | None) -> str:
    """`` x2`` after an exercise's points where the teacher weighs them."""
    if not weights:
        return ""
    return f" x{weights.get(graded.id, 1.0):g}"


def weighted(
    result: Result, weights: Mapping[str, float] | None
) -> tuple[float, float]:
    """A notebook's points and the points possible, each exercise's times its
    weight (1 where none is given)."""
    weights = weights or {}
    got = sum(g.points * weights.get(i, 1.0) for i, g in result.exercises.items())
    return got, sum(weights.get(i, 1.0) for i in result.exercises)


def table(result: Result, weights: Mapping[str, float] | None = None) -> str:
    """A notebook's per-exercise table, as text; with ``weights``, each
    exercise's weight and the weighted total."""
    chapter = f"chapter {result.chapter}" if result.chapter else "chapter unknown"
    lines = [f"{result.path}  ({result.student}, {chapter}, {result.seconds:.1f} s)"]
    for graded in result.exercises.values():
        line = (
            f"  {graded.id:<5} {graded.title:<24} {points_text(graded):>4}"
            f"{weight_text(graded, weights)}  {status_text(graded)}"
        )
        if graded.status != "graded" and graded.message:
            line += "  " + graded.message.splitlines()[0]
        lines.append(line)
    total = len(result.exercises)
    waiting = sum(g.status == "waiting" for g in result.exercises.values())
    later = text("table.waiting", count=waiting) if waiting else ""
    if weights:
        got, possible = weighted(result, weights)
        shown = text("table.weighted", points=f"{got:.2f}", possible=f"{possible:g}")
    else:
        shown = text("table.points", points=f"{result.points:.2f}", possible=total)
    lines.append(f"  {shown}{later}")
    lines += [f"  note: {note}" for note in result.notes]
    return "\n".join(lines)


def by_student(results: list[Result]) -> dict[str, list[Result]]:
    students: dict[str, list[Result]] = {}
    for result in results:
        students.setdefault(result.student, []).append(result)
    return dict(sorted(students.items()))


def latest(result: Result) -> tuple[float, str]:
    """What decides which of a chapter's notebooks counts: the file's
    modification time (an LMS download keeps the submission's), then its name."""
    return (result.modified, result.path.name)


def counted(mine: list[Result]) -> tuple[list[Result], list[str]]:
    """The notebooks that count, one per chapter (the latest: :func:`latest`),
    and a note for each one left out."""
    best: dict[int, Result] = {}
    for result in mine:
        if result.chapter is None:
            continue
        other = best.get(result.chapter)
        if other is None or latest(result) > latest(other):
            best[result.chapter] = result
    notes = [
        f"two notebooks for chapter {r.chapter} ({r.path.name}, "
        f"{best[r.chapter].path.name}): {best[r.chapter].path.name} counts "
        "(the latest)"
        for r in mine
        if r.chapter is not None and best[r.chapter] is not r
    ]
    kept = [r for r in mine if any(r is b for b in best.values())]
    return kept, notes


def feedback(
    student: str, results: list[Result], weights: Mapping[str, float] | None = None
) -> str:
    """A student's report, in Markdown: the public cases that failed (input,
    expected, got), how many grading-only cases failed (nothing more), hints;
    with ``weights``, each exercise's weight and the weighted total."""
    lines = ["# " + text("feedback.title", student=student), ""]
    for result in results:
        lines += [f"## {result.path.name}", ""]
        if not result.exercises:
            lines += [f"- {note}" for note in result.notes] + [""]
            continue
        if weights:
            lines += [text("feedback.columns_weighted"), "|---|---|---|---|"]
        else:
            lines += [text("feedback.columns"), "|---|---|---|"]
        for graded in result.exercises.values():
            right = (
                text("feedback.right", passed=graded.passed, total=graded.total)
                if graded.status == "graded"
                else graded.status
            )
            weight = f" {weights.get(graded.id, 1.0):g} |" if weights else ""
            lines.append(
                f"| {graded.id} {graded.title} |{weight} {points_text(graded)} | "
                f"{right} |"
            )
        if weights:
            got, possible = weighted(result, weights)
            total = text(
                "feedback.total", points=f"{got:.2f}", possible=f"{possible:g}"
            )
            lines += ["", total]
        lines.append("")
        for graded in result.exercises.values():
            if graded.points == 1:
                continue
            heading = text("feedback.exercise", id=graded.id, title=graded.title)
            lines += [f"### {heading}", ""]
            if graded.status not in ("graded", "stopped"):
                lines += [f"{graded.status}: {graded.message}".rstrip(": "), ""]
                continue
            if graded.status == "stopped":
                lines += [text("feedback.stopped", message=graded.message), ""]
            lines += feedback_failures(graded)
            lines += [""] + [f"> {hint}" for hint in graded.hints] + [""]
        lines += [
            text("feedback.note", note=note)
            for note in result.notes
            if not note.startswith(SEED_NOTE)
        ]
        if result.chapter is not None and result.seed:
            lines.append(text("feedback.seed", seed=result.seed))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def feedback_failures(graded: Graded) -> list[str]:
    lines = []
    for failure in graded.failures:
        kind = text(
            "feedback.convention" if failure.get("convention") else "feedback.case"
        )
        lines += [
            f"- {kind}: `{failure['label']}`",
            f"  - {text('feedback.expected')}: `{failure['expected']}`",
            f"  - {text('feedback.got')}: `{failure['got']}`",
        ]
        if failure.get("convention"):
            convention = text("feedback.the_convention")
            lines.append(f"  - {convention}: {failure['convention']}")
        if failure.get("also"):
            lines.append(f"  - {failure['also']}")
        if failure.get("error"):
            lines += [f"  - {text('feedback.raised')}", "", "    ```"]
            lines += [f"    {line}" for line in failure["error"].splitlines()]
            lines += ["    ```"]
    if graded.hidden_failed:
        lines.append("- " + text("feedback.hidden", count=graded.hidden_failed))
    return lines


def write_feedback(
    results: list[Result], folder: Path, weights: Mapping[str, float] | None = None
) -> list[Path]:
    """One report per student (with ``weights``, each exercise's weight);
    names that would be the same file (``Doe_Jane`` and ``Doe, Jane``) get a
    short digest of the student's name."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    used: set[str] = set()  # lower case: some file systems ignore the case
    for student, mine in by_student(results).items():
        safe = re.sub(r"[^\w.-]+", "_", student).lstrip(".")[:80] or "student"
        if safe != student or safe.lower() in used:
            digest = hashlib.sha256(student.encode("utf-8", "backslashreplace"))
            safe = f"{safe}-{digest.hexdigest()[:8]}"
        used.add(safe.lower())
        path = folder / f"{safe}.md"
        text = feedback(student, mine, weights)
        path.write_text(text, encoding="utf-8", errors="backslashreplace")
        written.append(path)
    return written
