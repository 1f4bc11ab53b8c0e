"""The course's command line.

``python -m course generate|collect|grade|export|release|project|lab-settings``,
and ``new-exercise``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from course import grading, similarity
from course.lab import write_settings

if TYPE_CHECKING:
    from course.course_file import Course


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser(
        "generate", help="write exercises/ and solutions/ from course/sources/"
    )
    generate.add_argument(
        "--check",
        action="store_true",
        help="write nothing; fail if a notebook is out of date",
    )
    collect = commands.add_parser(
        "collect",
        help="turn an LMS's download of submissions (Canvas, Gradescope, Moodle) "
        "into one folder per student, with a roster",
    )
    collect.add_argument("zip", type=Path, help="the zip file the LMS gave")
    collect.add_argument("out", type=Path, help="a new or empty folder")
    collect.add_argument(
        "--groups",
        type=Path,
        metavar="CSV",
        help="for a group assignment: the members of each group (Canvas's "
        "export of the group set, or a CSV with columns group, id, name); each "
        "member gets the group's notebooks",
    )
    grade = commands.add_parser(
        "grade",
        help="grade a class (CLASS/<student>/NN_name.ipynb) or, with --student, "
        "one student's notebooks",
    )
    grade.add_argument(
        "paths",
        nargs="+",
        type=Path,
        help="class folders (CLASS/<student>/NN_name.ipynb), or with --student "
        "one student's notebooks or folder",
    )
    grade.add_argument(
        "--student",
        metavar="NAME",
        help="every notebook given is this one student's (to grade your own "
        "exercises/ folder)",
    )
    grade.add_argument(
        "--csv",
        type=Path,
        help="where to write the grades (default: FOLDER/grades.csv)",
    )
    grade.add_argument(
        "--feedback", type=Path, help="write one Markdown report per student here"
    )
    grade.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds each exercise's answer and cases may run (default 60)",
    )
    grade.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="students graded at once, each in a runner of its own (default: "
        "the number of cores)",
    )
    grade.add_argument(
        "--seed",
        default="",
        help="the class seed of the drawn cases: by default your own, kept in "
        "~/.config/slowtorch/grading-seed (the same class graded again gets the "
        "same grades); a seed from the CSV's notes draws that run's cases again; "
        "'new' draws afresh (e.g. for a resubmission after feedback)",
    )
    grade.add_argument(
        "--predictions",
        action="store_true",
        help="grade the prediction exercises too (read from the cells, never run)",
    )
    grade.add_argument(
        "--weights",
        type=Path,
        help='a JSON or TOML file of exercise weights: {"1.5": 2, ...}',
    )
    grade.add_argument(
        "--format",
        choices=("plain", "canvas"),
        default="plain",
        help="the CSV: plain (per exercise, with notes) or a Canvas gradebook import",
    )
    grade.add_argument(
        "--canvas-columns",
        metavar="COLUMNS",
        help="with --format canvas: only these chapters' columns, each named as "
        'its assignment in Canvas ("2=Notebook 2,3=Notebook 3"); others are left '
        "out, so Canvas keeps its scores",
    )
    grade.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run answers without bubblewrap (said in the report and the CSV)",
    )
    grade.add_argument(
        "--give",
        default="",
        metavar="IDS",
        help="the pieces the class edition shipped solved, as release --give took "
        "them (1.5,2.9 or ch1,ch2): the grader's engine holds them, ungraded",
    )
    grade.add_argument(
        "--earlier",
        type=Path,
        action="append",
        default=[],
        metavar="FOLDER",
        help="the students' earlier submissions (a class folder, as collect "
        "writes; repeat for several): a chapter a student did not hand in now "
        "takes its pieces from there (before --give), ungraded",
    )
    grade.add_argument(
        "--course",
        type=Path,
        metavar="FILE",
        help="the class's course file (course.toml: exercises left out, weights, "
        "pieces given, seed, language; see docs/teachers.md); --give, --weights "
        "and --seed given here override it",
    )
    export = commands.add_parser(
        "export", help="write an autograder for another platform"
    )
    export.add_argument("platform", choices=("gradescope",))
    export.add_argument("out", type=Path, help="the zip file to write")
    export.add_argument(
        "--chapter",
        type=int,
        help="an assignment for this chapter only (one autograder per chapter)",
    )
    export.add_argument(
        "--weights",
        type=Path,
        help='a JSON or TOML file of exercise weights: {"1.5": 2, ...}',
    )
    export.add_argument(
        "--give",
        default="",
        metavar="IDS",
        help="pieces the autograder's engine holds solved (ch1,ch2 once those "
        "chapters are past): a chapter's notebook handed in alone then uses them",
    )
    export.add_argument(
        "--course",
        type=Path,
        metavar="FILE",
        help="the class's course file (see grade --course); --give and --weights "
        "given here override it",
    )
    release = commands.add_parser(
        "release",
        help="write a class edition: the engine's exercise pieces are stubs "
        "that the students write; no solutions, no grading-only cases",
    )
    release.add_argument("out", type=Path, help="an empty or new folder")
    release.add_argument(
        "--give",
        default="",
        metavar="IDS",
        help="pieces shipped solved: exercise ids or chapters (1.5,2.9 or ch1,ch2)",
    )
    release.add_argument(
        "--course",
        type=Path,
        metavar="FILE",
        help="the class's course file (see grade --course): its exercises left "
        "out are gone from the notebooks and plans (their pieces solved); --give "
        "given here overrides its give",
    )
    release.add_argument(
        "--site",
        action="store_true",
        help="also build its in-browser course (JupyterLite) into OUT/site",
    )
    project = commands.add_parser(
        "project",
        help="check final projects (FOLDER/spec.json, FOLDER/op.py) against "
        "PyTorch on inputs drawn for this run",
    )
    project.add_argument("folders", type=Path, nargs="+", help="project folders")
    project.add_argument("--cases", type=int, default=8, help="cases per project")
    commands.add_parser(
        "lab-settings",
        help="make JupyterLab open the chapters (book/*.md) as notebooks",
    )
    new = commands.add_parser(
        "new-exercise",
        help="scaffold exercise N.M in every place an exercise lives (source, "
        "public check, grading-only and drawn cases) and say what to fill in",
    )
    new.add_argument("id", help="N.M: chapter N's next exercise, such as 3.13")
    new.add_argument(
        "--kind",
        choices=["piece", "predict"],
        default="piece",
        help="a piece of the engine (default) or a prediction",
    )
    args = parser.parse_args(argv)
    if args.command == "lab-settings":
        print(f"wrote {write_settings()}")
        return 0
    if args.command == "generate":
        return run_generate(args.check)
    if args.command == "collect":
        return run_collect(args.zip, args.out, args.groups)
    if args.command in ("release", "export", "grade"):
        try:
            args.course = read_course(args.course)
        except ValueError as error:
            print(error, file=sys.stderr)
            return 2
    if args.command == "release":
        return run_release(args.out, args.give, args.site, args.course)
    if args.command == "export":
        return run_export(args.out, args.chapter, args.weights, args.give, args.course)
    if args.command == "project":
        return run_project(args.folders, args.cases)
    if args.command == "new-exercise":
        return run_new_exercise(
            Path(__file__).resolve().parent.parent, args.id, args.kind
        )
    return run_grade(args)


def read_course(path: Path | None) -> Course:
    """The course file at ``path`` (None: the whole course), said on the
    console when there is one.

    Raises:
        ValueError: If the file cannot be used (the message says why).
    """
    # at call time: each command loads only its own modules
    from course import course_file

    course = course_file.load(path)
    if path is not None:
        print(course.summary())
    return course


def run_project(folders: list[Path], cases: int) -> int:
    """Checks each final project; one that cannot be run says why, and the
    others go on."""
    # at call time: each command loads only its own modules
    from course import project

    scores = []
    for folder in folders:
        report = project.check(folder, count=max(1, min(cases, 50)))
        print(f"{folder}: {report.text()}")
        scores.append(report.score)
    return 0 if all(score == 1.0 for score in scores) else 1


def run_new_exercise(root: Path, exercise_id: str, kind: str) -> int:
    """Scaffolds an exercise in the course at ``root``; prints what it wrote
    and what the author fills in, or why it refused."""
    # at call time: each command loads only its own modules
    from course import new_exercise

    try:
        made = new_exercise.scaffold(root, exercise_id, kind)
    except ValueError as error:
        print(f"cannot add exercise {exercise_id}: {error}", file=sys.stderr)
        return 2
    for item in made:
        print(f"wrote {item.path.relative_to(root)}: {item.added}")
    print("\nfill in (search for TODO):")
    for item in made:
        print(f"- {item.path.relative_to(root)}: {item.fill_in}")
    print("\nthen run:")
    for step in new_exercise.next_steps(exercise_id):
        print(f"  {step}")
    print("course/sources/README.md lists the rules the tests enforce.")
    return 0


def run_generate(check: bool) -> int:
    # at call time: each command loads only its own modules
    from course import notebooks

    changed = notebooks.generate(check=check)
    for path in changed:
        verb = "out of date" if check else "wrote"
        print(f"{verb}: {path.relative_to(notebooks.ROOT)}")
    if check and changed:
        print("run `python -m course generate` and commit the notebooks")
        return 1
    if not changed:
        print("all notebooks up to date")
    return 0


def run_export(
    out: Path,
    chapter: int | None,
    weights_file: Path | None,
    give: str = "",
    course: Course | None = None,
) -> int:
    # at call time: each command loads only its own modules
    from course import course_file, edition, export

    course = course or course_file.Course()
    if chapter is not None and not grading.chapter_exercises(chapter):
        print(f"there is no chapter {chapter}", file=sys.stderr)
        return 2
    try:
        weights = export.load_weights(weights_file) or dict(course.weights)
    except (OSError, ValueError) as error:
        print(f"cannot read the weights: {error}", file=sys.stderr)
        return 2
    try:
        given = course.given(edition.parse_give(give))
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    names = export.gradescope(out, chapter, weights, given, course.language)
    which = f"chapter {chapter}" if chapter is not None else "every chapter"
    print(
        f"wrote {out} ({len(names)} files, {which}, {len(given)} pieces given): "
        "upload it as the assignment's autograder (Ubuntu 22.04 base image). It "
        "is the answer key: keep it private."
    )
    return 0


def run_collect(zip_path: Path, out: Path, groups: Path | None = None) -> int:
    # at call time: each command loads only its own modules
    from course import collect

    try:
        collected = collect.collect(zip_path, out, groups)
    except (FileExistsError, ValueError, OSError) as error:
        print(error, file=sys.stderr)
        return 2
    for note in collected.notes:
        print(printable(f"note: {note}"))
    for refusal in collected.refused:
        print(printable(f"REFUSED: {refusal}"), file=sys.stderr)
    notebooks = sum(len(s.notebooks) for s in collected.students)
    print(
        f"{collected.lms}: {len(collected.students)} students, {notebooks} "
        f"notebooks in {out}; who is who: {out / collect.ROSTER}"
    )
    print(f"next: python -m course grade {out}")
    return 0 if collected.students and not collected.refused else 1


def run_release(
    out: Path, give: str, site: bool = False, course: Course | None = None
) -> int:
    # at call time: each command loads only its own modules
    from course import course_file, edition

    course = course or course_file.Course()
    try:
        given = course.given(edition.parse_give(give))
        # the course file's changes are made before the site is built from them
        changes = bool(course.left_out) or course.language != "en"
        written = edition.release(out, given, site and not changes)
        if course.language != "en":
            course_file.release_language(out, course.language)
        if course.left_out:
            course_file.prune_release(out, course.left_out)
            written = sorted(p for p in out.rglob("*") if p.is_file())
        if site and changes:
            from course.class_site import build_site  # at call time: --site

            build_site(out, out / "site")
    except (FileExistsError, ValueError) as error:
        print(error, file=sys.stderr)
        return 2
    except edition.AnswerKept as error:
        print(f"not released: {error}", file=sys.stderr)
        return 1
    except RuntimeError as error:
        print(f"the class site did not build: {error}", file=sys.stderr)
        return 1
    print(
        f"wrote a class edition to {out}: {len(written)} files, "
        f"{len(edition.pieces()) - len(given)} pieces to write, {len(given)} given"
        + (f", {len(course.left_out)} exercises left out" if course.left_out else "")
    )
    if site:
        print(
            f"wrote its in-browser course to {out / 'site'}: serve that folder over "
            "HTTPS (or from localhost) and open exercises/ there"
        )
    return 0


def printable(text: str) -> str:
    """``text`` with what the terminal cannot show (bytes of a file name
    that is not UTF-8) escaped."""
    encoding = sys.stdout.encoding or "utf-8"
    return text.encode(encoding, "backslashreplace").decode(encoding)


def run_grade(args: argparse.Namespace) -> int:
    # at call time: each command loads only its own modules
    from course import collect, course_file, export, layout, sandbox

    course: Course = args.course
    # at call time: each command loads only its own modules
    from course import messages

    messages.use(course.language)
    paths: list[Path] = args.paths
    missing = [path for path in [*paths, *args.earlier] if not path.exists()]
    if missing:
        print(
            f"no such file or folder: {', '.join(map(str, missing))}", file=sys.stderr
        )
        return 2
    # one's own notebooks (--student): a CSV only where asked for
    folders = [path for path in paths if path.is_dir() and args.student is None]
    target = args.csv or (folders[0] / "grades.csv" if folders else None)
    for place, folder in ((target, False), (args.feedback, True)):
        problem = None if place is None else unwritable(place, folder)
        if problem is not None:
            print(f"cannot write {place}: {problem} (nothing graded)", file=sys.stderr)
            return 2
    problem = sandbox.problem()
    if problem is not None and not args.no_sandbox:
        print(
            f"cannot start the sandbox: {problem}.\nStudent code must not run "
            "unconfined: install bubblewrap, or pass --no-sandbox to grade "
            "without it (said in the report and in the CSV).",
            file=sys.stderr,
        )
        return 2
    unbounded = sandbox.user_problem() if args.no_sandbox else None
    if unbounded is not None:
        print(
            f"cannot bound each student's processes without bubblewrap: {unbounded}.",
            file=sys.stderr,
        )
        return 2
    try:
        weights = export.load_weights(args.weights) or dict(course.weights)
    except (OSError, ValueError) as error:
        print(f"cannot read the weights: {error}", file=sys.stderr)
        return 2
    try:
        submissions, student_notes = layout.submissions(paths, args.student)
        earlier = earlier_submissions(args.earlier, folders, args.student)
    except layout.LayoutError as error:
        print(error, file=sys.stderr)
        return 2
    if not submissions:
        print(f"no notebooks to grade: {layout.EXPECTED}", file=sys.stderr)
        return 2
    # at call time: each command loads only its own modules
    from course import edition, gradescope

    try:
        given = course.given(edition.parse_give(args.give))
        columns = export.parse_columns(args.canvas_columns)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    if args.no_sandbox:
        print(f"WARNING: {grading.NO_SANDBOX}")
    # at call time: each command loads only its own modules
    from course import answer_key

    seed = args.seed or course.seed
    seed = answer_key.new_seed() if seed == "new" else seed
    if seed and not re.fullmatch(r"[\w.-]{1,64}", seed):
        print("--seed: letters, digits, '.', '-' and '_' only", file=sys.stderr)
        return 2
    start = time.monotonic()
    results = grading.grade(
        submissions,
        seed=seed,
        timeout=args.timeout,
        jobs=args.jobs,
        sandboxed=not args.no_sandbox,
        predictions=args.predictions,
        given=given,
        earlier=earlier,
    )
    course_file.without_left_out(results, course.left_out)
    for result in results:
        result.notes += student_notes.get(result.student, [])
    for mine in grading.by_student(results).values():
        kept, _ = grading.counted(mine)
        for owner, line in gradescope.earlier_chapters(kept, own_too=False):
            owner.notes.append(f"chapters before it: {line}")
    for result in results:
        print(printable(grading.table(result, weights)))
    ended = True
    if target is not None:
        roster = {k: v for f in folders for k, v in collect.read_roster(f).items()}
        ended = write_grades(results, target, args.format, (weights, roster, columns))
    if args.feedback is not None:
        try:
            written = grading.write_feedback(results, args.feedback, weights)
            print(f"wrote {len(written)} feedback reports to {args.feedback}")
        except OSError as error:
            print(f"cannot write the feedback: {error}", file=sys.stderr)
            ended = False
    if args.no_sandbox:
        print(f"WARNING: {grading.NO_SANDBOX}")
    print(f"graded {len(results)} notebooks in {time.monotonic() - start:.1f} s")
    return 0 if ended and all(result.ok for result in results) else 1


def earlier_submissions(
    earlier: list[Path], folders: list[Path], student: str | None
) -> list[tuple[Path, str]]:
    """The notebooks of the class folders ``earlier`` (``grade --earlier``),
    each as the student's who has it now: the same folder, or, where the LMS
    gives ids per assignment, the student ``collect``'s rosters match
    (:func:`course.collect.same_students`). With ``student``, all that
    student's.

    Raises:
        layout.LayoutError: If a path is not a class folder (and no ``student``).
    """
    # at call time: each command loads only its own modules
    from course import collect, layout

    found, _ = layout.submissions(earlier, student)
    if student is not None:
        return found
    now = {k: v for f in folders for k, v in collect.read_roster(f).items()}
    before = {k: v for f in earlier for k, v in collect.read_roster(f).items()}
    same = collect.same_students(now, before)
    return [(path, same.get(name, name)) for path, name in found]


def unwritable(place: Path, folder: bool) -> str | None:
    """Why ``place`` (a file, or a folder to write files in) cannot be
    written, or None: tried by writing a file beside it (or in it), before
    anything is graded."""
    where = place if folder else place.parent
    try:
        where.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=where, prefix=".slowtorch-probe-"):
            pass
        if not folder and place.is_dir():
            return "it is a folder"
    except OSError as error:
        return error.strerror or str(error)
    return None


def write_grades(
    results: list[grading.Result],
    target: Path,
    form: str,
    choices: tuple[dict[str, float], dict[str, Any], dict[int, str] | None],
) -> bool:
    """Writes the copies report and the grades CSV; where that fails, the
    grades go to a file in the temporary folder instead (nothing graded is
    lost), and False."""
    # at call time: each command loads only its own modules
    from course import export

    weights, roster, columns = choices
    for place in (target, Path(tempfile.gettempdir()) / f"grades-{os.getpid()}.csv"):
        try:
            report = place.with_name(f"{place.stem}-copies.md")
            checked = copy_check(results, report)
            if form == "canvas":
                export.write_canvas(checked, place, weights, roster, columns)
            else:
                export.write_csv(checked, place, weights, roster)
        except OSError as error:
            print(f"cannot write {place}: {error}", file=sys.stderr)
            continue
        print(f"wrote {place}")
        return place == target
    return False


def copy_check(results: list[grading.Result], report: Path) -> list[grading.Result]:
    """Compares every student's answers with every other's
    (:mod:`course.similarity`), writes the pairs found to ``report`` and
    returns the results with them in their notes, for the gradebook only
    (the students' feedback does not name classmates)."""
    answers = [
        (result.student, exercise, source)
        for result in results
        for exercise, source in result.sources.items()
    ]
    # at call time: each command loads only its own modules
    from course import answer_key

    found = similarity.class_check(answers, answer_key.model_prints())
    report.write_text(
        similarity.pairs_report(found.pairs, found.clusters), encoding="utf-8"
    )
    print(
        f"wrote {report} ({len(found.pairs)} pairs of answers that are the same "
        f"code, {len(found.clusters)} groups)"
    )
    notebooks = [(result.student, set(result.sources)) for result in results]
    notes = similarity.notebook_notes(found, notebooks)
    return [
        dataclasses.replace(result, notes=result.notes + mine) if mine else result
        for result, mine in zip(results, notes, strict=True)
    ]


if __name__ == "__main__":
    sys.exit(main())
