"""The class site (``python -m course release OUT --site``) in headless Chromium.

A class edition and its in-browser course are built once, into a temporary folder (the
time is printed), and the site is served from 127.0.0.1 with every request that leaves
it blocked. As a student would, in one browser (whose storage keeps their work):

- chapter 1's exercise notebook runs on the class engine: its kernel starts in
  ``/drive/exercises`` and ``torch.zeros`` stops at the stub of exercise 1.5 with its
  message;
- the model answer of 1.5 put into its cell, the check passes and saves the piece into
  ``exercises/my_engine/``, in the browser's storage with the notebooks;
- after a reload the saved piece is still there, and chapter 2's exercise notebook, in a
  fresh kernel, loads it when it imports the engine: ``torch.zeros(2, 3).stride()``
  works there and ``course.pieces()`` lists 1.5 as the student's;
- chapter 1's notebook, downloaded as the site offers it (File > Download), grades with
  ``python -m course grade`` exactly as the same answer in the course's own notebook;
- nothing is requested from another host, no request fails, the console shows no error;
- in a browser that keeps no file for the notebook's Python (a private window: here,
  service workers blocked), the kernel still starts, and a check that passes says the
  piece is not kept.
- a chapter reads whole with no piece written (Run All keeps the book's outputs, also
  after a save and a reload, and one call puts the chapter back as the book has it),
  and comes alive as pieces arrive: on a second site, released with chapter 1's pieces
  given, chapter 1 runs every cell live and chapter 2 runs live up to what needs its
  own pieces.

Skipped without ``/usr/bin/chromium`` or without the book's set-up (the npm assets the
site is built from), unless ``SLOWTORCH_REQUIRE_BROWSER=1`` (set by
``scripts/run-tests.sh``).
"""

from __future__ import annotations

import base64
import csv
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from course import judge
from course.workspace import NOT_KEPT
from tests.browser.serving import (
    ROOT,
    Offline,
    launched,
    missing_browser,
    served,
    skip_or_fail,
)
from tests.browser.startup import KERNEL_TIMEOUT
from tests.browser.test_accessibility import AXE, RUN_AXE, WCAG_TAGS
from tests.browser.test_lite import (
    LiteNotebook,
    _errors,
    _source,
    _tagged,
    _text,
)

pytestmark = pytest.mark.browser

PYODIDE = ROOT / "scripts" / "assets" / "node_modules" / "pyodide"
FIRST = "exercises/01_arrays_to_tensors.ipynb"
LATER = "exercises/02_walking_backwards.ipynb"
PIECE = "1.5"
SAVED = "exercises/my_engine/ex1_5_contiguous_strides.py"


def _python(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def class_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    reason = missing_browser()
    if reason is None and not (PYODIDE / "package.json").is_file():
        reason = (
            f"no {PYODIDE.relative_to(ROOT)}: the class site is built from the "
            "book's set-up (bash scripts/build-book.sh)"
        )
    if reason:
        skip_or_fail(reason)
    out = tmp_path_factory.mktemp("class") / "edition"
    start = time.monotonic()
    done = _python("-m", "course", "release", str(out), "--site")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    print(
        f"\n[class site] python -m course release OUT --site: "
        f"{time.monotonic() - start:.1f} s"
    )
    with served(out / "site") as url:
        yield out, url


@pytest.fixture(scope="module")
def chromium(class_site: tuple[Path, str]) -> Iterator[Any]:
    with launched() as browser:
        yield browser


class Student(Offline):
    """One browser context on the class site: its storage is the student's."""

    def open(self, path: str) -> SiteNotebook:
        return SiteNotebook(self, path)


class SiteNotebook(LiteNotebook):
    """A notebook of the class site, in its own page (and kernel) of the
    student's browser context."""

    def __init__(self, student: Student, path: str) -> None:  # noqa: D107
        # Not LiteNotebook's: that opens a fresh context for each notebook.
        self.site = student.site
        self.outside, self.failed, self.errors = (
            student.outside,
            student.failed,
            student.errors,
        )
        self.context = student.context
        self.page = student.watch(self.context.new_page())
        self.opened = time.monotonic()
        self.page.goto(f"{self.site}notebooks/index.html?path={path}")
        self.wait_until_open()

    def wait_until_open(self) -> None:
        self.page.wait_for_function(
            "() => window.jupyterapp && jupyterapp.shell.currentWidget"
            " && jupyterapp.shell.currentWidget.content"
            " && jupyterapp.shell.currentWidget.content.model"
            " && jupyterapp.shell.currentWidget.sessionContext",
            timeout=KERNEL_TIMEOUT,
        )
        # Not page.evaluate of their promises, which waits without a time limit.
        self.page.wait_for_function(
            "() => jupyterapp.shell.currentWidget.context.isReady"
            " && jupyterapp.shell.currentWidget.sessionContext.isReady",
            timeout=KERNEL_TIMEOUT,
        )

    def reload(self) -> None:
        self.page.reload()
        self.wait_until_open()

    def tagged(self, tag: str) -> int:
        for index, cell in enumerate(self.cells()):
            if tag in cell["tags"]:
                return index
        raise AssertionError(f"no cell tagged {tag}")

    def file(self, path: str) -> str | None:
        """The text of the file at ``path`` in the site's contents (the
        browser's storage), or None."""
        found = self.evaluate(
            """(path) => jupyterapp.serviceManager.contents
              .get(path, {content: true, format: 'text'})
              .then(m => [m.format, m.content], () => null)""",
            path,
        )
        if found is None:
            return None
        kind, content = found
        return base64.b64decode(content).decode() if kind == "base64" else content

    def close(self) -> None:
        self.page.close()


def _model_answer(exercise_id: str) -> str:
    solution = json.loads(
        (ROOT / "solutions" / Path(FIRST).name).read_text(encoding="utf-8")
    )
    return _source(solution["cells"][_tagged(solution["cells"])[exercise_id]])


def _grades(folder: Path) -> dict[str, dict[str, str]]:
    """``python -m course grade FOLDER``: the CSV's row of each student."""
    target = folder / "grades.csv"
    done = _python("-m", "course", "grade", str(folder), "--csv", str(target))
    # Exit status 1: not every exercise has full points (only one is answered).
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    assert target.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    rows = csv.DictReader(target.read_text(encoding="utf-8").splitlines())
    return {row["student"]: row for row in rows}


def test_a_piece_saved_in_the_browser_is_used_after_a_reload_and_grades(
    class_site: tuple[Path, str], chromium: Any, tmp_path: Path
) -> None:
    _, site = class_site
    answer = _model_answer(PIECE)
    started = time.monotonic()
    student = Student(chromium, site)
    try:
        first = student.open(FIRST)
        setup, stub = first.tagged("setup"), first.tagged(f"exercise-{PIECE}")
        check = first.tagged(f"check-{PIECE}")
        assert not _errors(first.run_cell(setup))
        before = _text(
            first.run_cell(stub, "import os\nprint(os.getcwd())\ntorch.zeros(2, 3)")
        )
        print(f"\n[class site] before: {before.strip()}")
        assert before.startswith("/drive/exercises\n"), before
        # (Pyodide's kernel names the error "<class 'NotImplementedError'>".)
        assert "NotImplementedError" in before
        assert (
            "exercise 1.5, `contiguous_strides`, is not written yet: "
            "exercises/01_arrays_to_tensors.ipynb"
        ) in before
        assert first.file(SAVED) is None

        assert not _errors(first.run_cell(stub, answer))
        checked = _text(first.run_cell(check))
        print(f"[class site] the check: {checked.strip()}")
        assert "Saved to my_engine/ex1_5_contiguous_strides.py" in checked
        first.evaluate("() => jupyterapp.commands.execute('docmanager:save')")
        first.page.wait_for_function(
            "() => !jupyterapp.shell.currentWidget.context.model.dirty"
        )

        first.reload()
        assert _source(first.cells()[stub]) == answer, "the answer was not kept"
        saved = first.file(SAVED)
        assert saved is not None, f"{SAVED} is not in the browser's storage"
        assert "def contiguous_strides(shape):" in saved
        with first.page.expect_download(timeout=60_000) as download:
            first.evaluate(
                "() => { jupyterapp.commands.execute('docmanager:download'); }"
            )
        assert download.value.suggested_filename == Path(FIRST).name
        downloaded = tmp_path / "submissions" / "browser" / Path(FIRST).name
        downloaded.parent.mkdir(parents=True)
        download.value.save_as(downloaded)
        first.close()

        later = student.open(LATER)
        assert not _errors(later.run_cell(later.tagged("setup")))
        probe = (
            "print(torch.zeros(2, 3).stride())\nimport course\nstatus = course.pieces()"
        )
        shown = _text(later.run_cell(later.tagged("exercise-2.9"), probe))
        print(f"[class site] {LATER}, a fresh kernel:\n{shown.rstrip()}")
        assert shown.startswith("(3, 1)\n"), shown
        assert re.search(
            r"1\.5\s+contiguous_strides\s+yours: "
            r"/drive/exercises/my_engine/ex1_5_contiguous_strides\.py",
            shown,
        ), shown
        assert re.search(r"2\.9\s+topological_order\s+stub", shown), shown
        later.page.wait_for_timeout(1000)
        later.close()
    finally:
        student.close()
    print(f"[class site] in the browser: {time.monotonic() - started:.1f} s")
    assert not student.outside, f"requests left the site: {student.outside}"
    assert not student.failed, f"requests failed: {student.failed}"
    assert not student.errors, f"console errors: {student.errors}"

    # The same answer in the course's own notebook, graded alongside.
    notebook = json.loads((ROOT / FIRST).read_text(encoding="utf-8"))
    notebook["cells"][_tagged(notebook["cells"])[PIECE]]["source"] = answer
    desktop = tmp_path / "submissions" / "desktop" / Path(FIRST).name
    desktop.parent.mkdir(parents=True)
    desktop.write_text(json.dumps(notebook), encoding="utf-8")
    grades = _grades(tmp_path / "submissions")
    browser, desktop_row = grades["browser"], grades["desktop"]
    print(f"[class site] graded: {browser}")
    # Every drawn case right; of the fixed cases, those that reach another
    # piece (unanswered here) cost at most the fixed share.
    assert float(browser[PIECE]) >= 1 - judge.FIXED_SHARE, browser
    assert {k: v for k, v in browser.items() if k != "student"} == {
        k: v for k, v in desktop_row.items() if k != "student"
    }


def test_a_browser_that_keeps_no_files_says_the_piece_is_not_kept(
    class_site: tuple[Path, str], chromium: Any
) -> None:
    _, site = class_site
    student = Student(chromium, site, service_workers="block")
    try:
        first = student.open(FIRST)
        assert not _errors(first.run_cell(first.tagged("setup")))
        stub = first.tagged(f"exercise-{PIECE}")
        answer = _model_answer(PIECE) + "\nimport os\nprint(os.getcwd())"
        where = _text(first.run_cell(stub, answer)).strip()
        assert not where.startswith("/drive"), where
        checked = _text(first.run_cell(first.tagged(f"check-{PIECE}")))
        print(f"\n[class site] no service worker, the check: {checked.strip()}")
        assert "Saved to my_engine/ex1_5_contiguous_strides.py" in checked
        assert NOT_KEPT in checked.replace("\n", " ")
        assert first.file(SAVED) is None
    finally:
        student.close()
    assert not student.outside, f"requests left the site: {student.outside}"
    assert not student.failed, f"requests failed: {student.failed}"
    # JupyterLite rejects its service worker manager's promise, with no reason,
    # when the worker cannot register and before anything waits on it: the one
    # error a page without a worker shows.
    others = [error for error in student.errors if error != "uncaught: undefined"]
    assert not others, f"console errors: {student.errors}"


CHAPTER = "book/02_autograd.ipynb"
BOOK_NOTE = "The book's output, run on the complete engine"


def _with_outputs(cells: list[dict[str, Any]]) -> int:
    return sum(1 for cell in cells if cell["type"] == "code" and cell["outputs"])


def test_a_class_chapter_reads_whole_before_any_piece_is_written(
    class_site: tuple[Path, str], chromium: Any
) -> None:
    """The site opens on its welcome page; Run All on a chapter with no piece
    written goes to its end, every cell keeping the book's outputs (marked as
    the book's), also after a save and a reload; the chapter's first cell's
    ``book_outputs.restore`` puts it back as the book has it."""
    _, site = class_site
    student = Student(chromium, site)
    try:
        page = student.watch(student.context.new_page())
        page.goto(site)
        page.wait_for_function(
            "() => [...document.querySelectorAll('.jp-RenderedMarkdown')]"
            ".some(e => e.textContent.includes('How the term works'))",
            timeout=KERNEL_TIMEOUT,
        )
        page.close()

        chapter = student.open(CHAPTER)
        book = chapter.cells()
        started = time.monotonic()
        chapter.run_all()
        ran = chapter.cells()
        print(
            f"\n[class site] Run All on {CHAPTER} with no piece written: "
            f"{time.monotonic() - started:.1f} s"
        )
        code = [cell for cell in ran if cell["type"] == "code"]
        assert all(cell["count"] is not None for cell in code), "Run All stopped"
        assert not [c for c in code if _errors(c["outputs"])], "a cell failed"
        notes = [c for c in code if BOOK_NOTE in _text(c["outputs"])]
        first = _text(notes[0]["outputs"])
        print(f"[class site] {len(notes)} cells show the book's output: {first[:160]}")
        assert "needs exercise 1.5, `contiguous_strides`" in first, first
        assert _with_outputs(ran) >= _with_outputs(book)
        chapter.evaluate("() => jupyterapp.commands.execute('docmanager:save')")
        chapter.page.wait_for_function(
            "() => !jupyterapp.shell.currentWidget.context.model.dirty"
        )
        chapter.reload()
        assert _with_outputs(chapter.cells()) == _with_outputs(ran)

        added = chapter.cells()
        chapter.evaluate(
            """() => jupyterapp.commands.execute('notebook:insert-cell-below')"""
        )
        restore = (
            "from course import book_outputs\n"
            'book_outputs.restore("02_autograd")\nprint("restored")'
        )
        index = next(i for i, cell in enumerate(chapter.cells()) if cell not in added)
        assert "restored" in _text(chapter.run_cell(index, restore))
        chapter.close()
        again = student.open(CHAPTER)
        assert [c["source"] for c in again.cells()] == [c["source"] for c in book]
        assert BOOK_NOTE not in "".join(_text(c["outputs"]) for c in again.cells())
        again.close()
    finally:
        student.close()
    assert not student.outside, f"requests left the site: {student.outside}"
    assert not student.failed, f"requests failed: {student.failed}"


@pytest.fixture(scope="module")
def given_site(class_site: tuple[Path, str]) -> Iterator[str]:
    """A second class site, released with chapter 1's pieces given (solved)."""
    out = class_site[0].parent.parent / "given" / "edition"
    start = time.monotonic()
    done = _python("-m", "course", "release", str(out), "--site", "--give", "ch1")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    print(f"\n[class site] release --site --give ch1: {time.monotonic() - start:.1f} s")
    with served(out / "site") as url:
        yield url


def _notes(cells: list[dict[str, Any]]) -> list[str]:
    return [
        _text(c["outputs"])
        for c in cells
        if c["type"] == "code" and BOOK_NOTE in _text(c["outputs"])
    ]


def test_a_chapter_comes_alive_as_its_pieces_arrive(
    given_site: str, chromium: Any
) -> None:
    """With chapter 1's pieces in the engine (given, as a student's would be):
    Run All on chapter 1 runs every cell live, no book output left; on
    chapter 2 the cells that need only chapter 1 run live and the rest keep
    the book's output, each naming a chapter-2 exercise. Neither stops."""
    student = Student(chromium, given_site)
    try:
        counts = {}
        for path in ("book/01_tensors.ipynb", CHAPTER):
            chapter = student.open(path)
            started = time.monotonic()
            chapter.run_all()
            ran = chapter.cells()
            code = [cell for cell in ran if cell["type"] == "code"]
            assert all(cell["count"] is not None for cell in code), "Run All stopped"
            assert not [c for c in code if _errors(c["outputs"])], "a cell failed"
            notes = _notes(ran)
            counts[path] = (len(code), len(notes))
            print(
                f"\n[class site, ch1 given] Run All on {path}: "
                f"{time.monotonic() - started:.1f} s, {len(code)} code cells, "
                f"{len(notes)} with the book's output"
            )
            if path != CHAPTER:
                assert not notes, notes[0]
            else:
                assert notes and all(
                    re.search(r"needs exercise 2\.\d+", n) for n in notes
                )
            chapter.close()
        code, kept = counts[CHAPTER]
        assert 0 < kept < code  # some cells live, some the book's
    finally:
        student.close()
    # A live plotting cell asks Pyodide's CDN for matplotlib (blocked here:
    # offline it prints a note and keeps the book's figure); nothing else leaves.
    cdn = "https://cdn.jsdelivr.net/pyodide/"
    assert all(url.startswith(cdn) for url in student.outside), student.outside
    assert not student.failed, f"requests failed: {student.failed}"


WELCOME_TABLE = """() => {
  const table = [...document.querySelectorAll('.jp-RenderedMarkdown table')]
    .find(t => t.dataset.filled === 'true');
  if (!table) return null;
  return [...table.querySelectorAll('tbody tr')].map(row => {
    const cells = row.querySelectorAll('td');
    return [cells[0].textContent.trim(), cells[3].textContent.trim()];
  });
}"""


def _welcome(student: Student) -> Any:
    page = student.watch(student.context.new_page())
    page.goto(student.site)
    page.wait_for_function(
        f"() => ({WELCOME_TABLE})() !== null", timeout=KERNEL_TIMEOUT
    )
    return page


def _states(page: Any) -> dict[str, str]:
    return dict(page.evaluate(WELCOME_TABLE))


def _violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's WCAG 2.1 A/AA violations on ``page`` (printed)."""
    if not AXE.is_file():
        skip_or_fail(f"{AXE} is missing: run 'bash scripts/build-book.sh' (npm ci)")
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(RUN_AXE, WCAG_TAGS)
    print(f"[class site] axe on {page.url.split('/', 3)[-1]}: {found}")
    return list(found)


#: The file browser's filter button, a toggle of JupyterLab's toolbar.
FILTER = 'jp-button[data-command="filebrowser:toggle-file-filter"]'
#: Its state as assistive technology reads it: on the native button inside.
PRESSED = f"""() => {{
  const host = document.querySelector('{FILTER}');
  return [host.getAttribute('aria-pressed'),
          host.shadowRoot.querySelector('button').getAttribute('aria-pressed')];
}}"""


@pytest.mark.pipeline
def test_no_wcag_violations_on_the_notebooks(
    class_site: tuple[Path, str], chromium: Any
) -> None:
    """A chapter and an exercise notebook, as JupyterLite draws them, have no
    WCAG 2.1 A/AA violation that axe-core finds."""
    _, site = class_site
    student = Student(chromium, site)
    try:
        for path in ("book/06_attention.ipynb", "exercises/01_arrays_to_tensors.ipynb"):
            notebook = student.open(path)
            notebook.page.wait_for_timeout(2000)  # the names are given as it draws
            assert not _violations(notebook.page), path
            notebook.close()
    finally:
        student.close()


@pytest.mark.pipeline
def test_the_welcome_page_says_where_the_student_stands(
    class_site: tuple[Path, str], chromium: Any
) -> None:
    """The welcome page names the pieces the teacher gave and lists every
    exercise with its state in this browser's storage: every one "not
    started" at first; once exercise 1.5's check passes and its notebook is
    saved, 1.5 is "all right", the other exercises of that notebook "saved",
    the next chapter's still "not started". The file browser lists no internal
    file; axe-core finds no WCAG 2.1 A/AA violation on the welcome page, with
    the file filter closed or open."""
    edition, site = class_site
    student = Student(chromium, site)
    try:
        page = _welcome(student)
        text = page.inner_text(".jp-RenderedMarkdown")
        assert "Your teacher gave no piece" in text, text[:2000]
        before = _states(page)
        pieces = len(before)
        print(
            f"\n[class site] welcome page: {pieces} exercises, "
            f"states {set(before.values())}"
        )
        assert pieces >= 50 and set(before.values()) == {"not started"}
        listed = page.evaluate(
            "() => jupyterapp.serviceManager.contents.get('', {content: true})"
            ".then(m => m.content.map(i => i.name))"
        )
        print(f"[class site] the file browser lists {sorted(listed)}")
        assert sorted(listed) == ["WELCOME.md", "book", "exercises"], listed
        assert not _violations(page), "axe: WCAG 2.1 violations on the welcome page"
        # The toolbar's toggle keeps its state where it is allowed (the native
        # button), and the filter it opens is named: still no violation.
        page.click(FILTER)
        page.wait_for_function(f"() => ({PRESSED})()[1] === 'true'")
        assert page.evaluate(PRESSED) == [None, "true"]
        assert not _violations(page), "axe: WCAG 2.1 violations with the filter open"
        page.click(FILTER)
        page.wait_for_function(f"() => ({PRESSED})()[1] === null")
        page.close()

        first = student.open(FIRST)
        assert not _errors(first.run_cell(first.tagged("setup")))
        stub = first.tagged(f"exercise-{PIECE}")
        assert not _errors(first.run_cell(stub, _model_answer(PIECE)))
        checked = _text(first.run_cell(first.tagged(f"check-{PIECE}")))
        assert "Saved to my_engine/ex1_5_contiguous_strides.py" in checked
        first.evaluate("() => jupyterapp.commands.execute('docmanager:save')")
        first.page.wait_for_function(
            "() => !jupyterapp.shell.currentWidget.context.model.dirty"
        )
        first.close()

        page = _welcome(student)
        after = _states(page)
        print(
            f"[class site] after 1.5's check and a save: 1.5 {after[PIECE]}, "
            f"1.6 {after['1.6']}, 2.9 {after['2.9']}"
        )
        assert after[PIECE] == "all right"
        ones = {k: v for k, v in after.items() if k.startswith("1.") and k != PIECE}
        assert set(ones.values()) == {"saved"}, ones
        assert after["2.9"] == "not started"
        page.close()
    finally:
        student.close()
    assert not student.outside, f"requests left the site: {student.outside}"
    assert not student.failed, f"requests failed: {student.failed}"


FIGURE_CELL = """\
from svg_plots import Figure

figure = Figure(width=400, height=200)
figure.panels[0].line([3.6, 3.0, 2.5], label="loss")
figure"""


#: The places in each served chapter that make a figure with svg_plots.
FIGURE_SITES = {
    "01_tensors": 2,
    "03_building_blocks": 4,
    "04_optimisation": 13,
    "05_windows": 2,
    "06_attention": 2,
    "epilogue": 1,
}


@pytest.mark.pipeline
def test_the_chapters_draw_their_figures_offline(
    class_site: tuple[Path, str], chromium: Any
) -> None:
    """Offline (no matplotlib in the browser), the chapters' figure helper draws:
    a cell of chapter 6 that draws with it shows an SVG picture with its alt
    text, and no cell of the chapters with figures uses matplotlib."""
    edition, site = class_site
    for name, sites in FIGURE_SITES.items():
        served = (edition / "site" / "files" / "book" / f"{name}.ipynb").read_text()
        assert "matplotlib" not in served, name
        plots = served.count("Figure(width=")
        print(f"\n[class site] book/{name}.ipynb: {plots} figures drawn by svg_plots")
        assert plots == sites, name
    student = Student(chromium, site)
    try:
        chapter = student.open("book/06_attention.ipynb")
        before = chapter.cells()
        chapter.evaluate(
            "() => jupyterapp.commands.execute('notebook:insert-cell-below')"
        )
        index = next(i for i, c in enumerate(chapter.cells()) if c not in before)
        outputs = chapter.run_cell(index, FIGURE_CELL)
        shown = "".join(str(o.get("data", {}).get("text/html", "")) for o in outputs)
        assert '<img alt="Lines; loss: 3 points from 3.6 to 2.5' in shown, outputs
        assert "data:image/svg+xml;base64," in shown
        assert "not available" not in _text(outputs)
        chapter.close()
    finally:
        student.close()
    assert not student.outside, f"requests left the site: {student.outside}"
