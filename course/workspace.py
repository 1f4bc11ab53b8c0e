"""A check's side of the saved pieces: what it saves and says (files: saved_pieces).

A student's saved pieces, seen from the course: ``pieces()``, ``reset()``,
and what a check does after judging a piece.

In a class edition (see :mod:`course.edition`) a check that passes all of an
exercise's public cases saves the student's piece into their workspace and
puts it into the engine (:mod:`course.saved_pieces`, whose live copy is the
engine's ``slowtorch_lib._class``). A check that could not run because the
engine met the stub of another exercise says which one. In the complete
engine (the public book and its in-browser course) nothing is saved or
loaded, and these functions say so.
"""

from __future__ import annotations

import re
import sys
from types import ModuleType
from typing import Any

from course.cases import CaseResult, Report
from course.feedback import FAILURES, message, untouched

__all__ = ["after_check", "pieces", "reset"]

UNWRITTEN = re.compile(
    r"exercise (\d+\.\d+), `(\w+)`(?: \(the engine's `[\w.]+`\))?, is not written "
    r"yet: (\S+)"
)
COMPLETE = (
    "This is the complete engine (the public edition): every piece is the "
    "engine's own, and nothing is saved. A class edition (python -m course "
    "release) is where your pieces are saved."
)


def class_edition() -> ModuleType | None:
    """The engine's table of pieces in a class edition, else None."""
    try:
        import slowtorch_lib._class as edition  # at call time: a class edition only
    except ImportError:
        return None
    return edition


def pieces() -> dict[str, str]:
    """Prints and returns what each exercise's piece is now: ``"yours"``
    (saved, with its file), ``"given"`` or ``"stub"``."""
    edition = class_edition()
    if edition is None:
        print(COMPLETE)
        return {}
    files = edition.saved_pieces.saved_files(edition.PIECES)
    status = {}
    lines = []
    for id, piece in edition.PIECES.items():
        if id in files:
            status[id] = "yours"
            where = f"yours: {files[id]}"
        else:
            status[id] = "given" if id in edition.GIVEN else "stub"
            where = status[id]
        lines.append(f"{id:>5}  {piece.name:<22} {where}")
    sys.stdout.write("\n".join(lines) + "\n")
    return status


def reset(exercise_id: str) -> None:
    """Deletes the saved piece of an exercise; the engine goes back to the
    stub (or to the given piece), in this kernel and in every later one."""
    edition = class_edition()
    if edition is None:
        print(COMPLETE)
        return
    piece = edition.PIECES.get(exercise_id)
    if piece is None:
        print(f"exercise {exercise_id} asks for no piece of the engine.")
        return
    if edition.saved_pieces.reset_piece(piece):
        back = "given piece" if exercise_id in edition.GIVEN else "stub"
        print(f"deleted your saved {exercise_id}; the engine uses its {back} again.")
    else:
        print(f"nothing saved for exercise {exercise_id}.")


def after_check(exercise: Any, answer: Any, report: Any, text: str) -> str:
    """The check's text, after saving a piece that passed its public cases
    (in a class edition).

    A case that meets the stub of another exercise's piece is not counted
    against the student: the text says which piece it needs, and the piece
    is saved if every other case passes (so that two pieces that need each
    other can both be written); checking it again once that piece is
    written runs every case.
    """
    edition = class_edition()
    if edition is None or exercise.kind != "piece":
        return text
    if untouched(answer):  # its own stub, whatever the other pieces raised
        return text

    needs: dict[str, tuple[tuple[str, str, str], list[CaseResult]]] = {}
    runnable: list[CaseResult] = []
    for result in report.results:
        other = _unwritten_other(exercise, result.error)
        if other is None:
            runnable.append(result)
        else:
            needs.setdefault(other[0], (other, []))[1].append(result)
    if needs:
        own_stub = any(
            r.got == {"raised": "NotImplementedError"} and not r.passed
            for r in runnable
        )
        part = Report(exercise, runnable, attempted=not own_stub)
        if not own_stub and any(not r.passed and not r.convention for r in runnable):
            FAILURES[exercise.id] = FAILURES.get(exercise.id, 0) + 1  # next hint
        shown = message(part, FAILURES.get(exercise.id, 0))
        main_cases = any(r.convention is None for r in runnable)
        lines = [shown.replace(". All right!", ".")] if main_cases else []
        for (id, name, notebook), results in needs.values():
            lines.append(
                f"{len(results)} {'more ' * bool(runnable)}case"
                f"{'s' * (len(results) > 1)} of exercise {exercise.id} need"
                f"{'s' * (len(results) == 1)} exercise {id}, `{name}`, which is not "
                f"written yet ({notebook}): check this one again once it is."
            )
        text = "\n".join(lines)
        main = [r for r in runnable if r.convention is None]
        if not main or own_stub or part.passed != part.total:
            return text + "\n" + _kept(edition, exercise)
    elif report.passed != report.total:
        return text + "\n" + _kept(edition, exercise)
    if exercise.id not in edition.PIECES:
        return text
    return text + "\n" + _save(edition, exercise, answer)


def _kept(edition: Any, exercise: Any) -> str:
    """What a check that did not save says the engine now holds."""
    piece = edition.PIECES.get(exercise.id)
    if piece is None:
        return ""
    path = edition.saved_pieces.saved_files({exercise.id: piece}).get(exercise.id)
    if path is not None:
        return (
            f"Nothing was saved: the engine keeps your earlier {exercise.name}, "
            f"saved in {path.name}."
        )
    return f"Nothing was saved: the engine keeps the stub of {exercise.name}."


def _save(edition: Any, exercise: Any, answer: Any) -> str:
    saved = edition.saved_pieces
    try:
        source = saved.piece_source(answer)
        path = saved.save_piece(edition.PIECES[exercise.id], source)
    except Exception as error:  # noqa: BLE001  (a check never raises)
        return (
            f"Your piece was not saved ({type(error).__name__}: {error}): "
            "define it in its exercise cell, run that cell, then this one."
        )
    text = (
        f"Saved to {path.parent.name}/{path.name}: from now on the engine uses "
        f"your {exercise.name}, in every notebook."
    )
    missing = saved.missing_names(source)
    if missing:
        text += (
            f"\nBut it uses {', '.join(missing)}, which its cell does not define "
            "or import: the saved piece will not find it. Move it into the cell."
        )
    if not kept_by_the_browser(path):
        text += "\n" + NOT_KEPT
    return text


#: Where JupyterLite's Python sees the notebooks' files (the browser's storage).
DRIVE = "/drive"
NOT_KEPT = (
    "But this browser does not let the notebook's Python keep files (a private "
    "window, or a hard reload): your piece is in this notebook's engine only, "
    "until its kernel restarts. Open the course in a normal window (a plain "
    "reload) and check it again."
)


def kept_by_the_browser(path: Any, platform: str = sys.platform) -> bool:
    """Whether a file saved at ``path`` lasts: always outside a browser; in
    one (Pyodide) only under ``/drive``, which JupyterLite keeps in the
    browser's storage when its service worker runs."""
    if platform != "emscripten":
        return True
    return str(path) == DRIVE or str(path).startswith(DRIVE + "/")


def _unwritten_other(exercise: Any, error: str | None) -> tuple[str, str, str] | None:
    """The other exercise whose stub a case met: (id, name, notebook)."""
    for found in UNWRITTEN.finditer(error or ""):
        if found.group(1) != exercise.id:
            return found.group(1), found.group(2), found.group(3)
    return None
