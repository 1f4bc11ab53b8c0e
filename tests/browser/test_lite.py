"""Run the course's notebooks in the in-browser site (``_build/html/lite``), offline.

Headless Chromium opens the JupyterLite build that ``scripts/build-book.sh`` writes,
with every request that leaves the local server blocked, and drives the notebooks
through JupyterLab's own commands (``window.jupyterapp``, exposed by
``lite/jupyter-lite.json``):

- the chapter 1 exercise notebook: run all cells in the Pyodide kernel; put the solution
  notebook's answer into the first exercise and a wrong answer into another; their check
  cells print, in the browser, exactly the lines CPython prints for the same answers
  (one passes, one fails);
- the chapter that draws computation graphs: run it until a graph and a widget have
  appeared; the graph is an SVG drawn by Graphviz in WebAssembly, and the widget's
  slider moves the page it shows;
- an edit saved in the browser survives a reload, as an .ipynb with the browser
  kernel's metadata (printed);
- the chapter that plots runs offline without a traceback (matplotlib's cells print a
  one-line note; the blocked attempts to load it from Pyodide's CDN are the only
  outside requests: online, plots work);
- everywhere else, nothing is requested from another host; the console shows no error.

Printed, not asserted: the time from opening a notebook to its first executed cell, and
the time of chapter 1's 64x64 matrix product in the browser and in CPython.

Skipped without a build or without ``/usr/bin/chromium``, unless
``SLOWTORCH_REQUIRE_BROWSER=1`` (set by ``scripts/run-tests.sh``).
"""

from __future__ import annotations

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

from tests.browser.serving import (
    HTML,
    ROOT,
    Offline,
    launched,
    missing_browser,
    served,
    skip_or_fail,
    with_profile,
)
from tests.browser.startup import (
    CLEAR_OUTPUTS,
    KERNEL_TIMEOUT,
    LITE,
    chapters,
    one_kernel,
    open_and_run_first_cell,
)

pytestmark = pytest.mark.browser

CELL_TIMEOUT = 180_000
EXERCISE_TAG = re.compile(r"^exercise-(.+)$")

MATMUL = """\
import random, timeit
import slowtorch_lib as _engine
random.seed(0)
_a = _engine.tensor([[random.gauss(0, 1) for _ in range(64)] for _ in range(64)])
_b = _engine.tensor([[random.gauss(0, 1) for _ in range(64)] for _ in range(64)])
_best = min(timeit.repeat(lambda: _a @ _b, number=3, repeat=5)) / 3
print(f"matmul64 {_best * 1e3:.3f} ms")
"""


def _unavailable() -> str | None:
    if not (LITE / "jupyter-lite.json").is_file():
        return f"no JupyterLite build in {LITE}: run 'bash scripts/build-book.sh' first"
    return missing_browser()


@pytest.fixture(scope="module")
def lite_site() -> Iterator[str]:
    reason = _unavailable()
    if reason:
        skip_or_fail(reason)
    with served(HTML) as url:
        yield url


@pytest.fixture(scope="module")
def chromium(lite_site: str) -> Iterator[Any]:
    with launched() as browser:
        yield browser


class LiteNotebook(Offline):
    """One notebook open in the lite site, in a fresh, offline browser context."""

    def __init__(self, browser: Any, site: str, path: str) -> None:
        super().__init__(browser, site)
        self.page = self.watch(self.context.new_page())
        self.opened = time.monotonic()
        self.page.goto(f"{site}lite/notebooks/index.html?path={path}")
        self.page.wait_for_function(
            "() => window.jupyterapp && jupyterapp.shell.currentWidget"
            " && jupyterapp.shell.currentWidget.content"
            " && jupyterapp.shell.currentWidget.content.model"
            " && jupyterapp.shell.currentWidget.sessionContext",
            timeout=KERNEL_TIMEOUT,
        )
        # Commands sent before the notebook has its kernel session would be dropped.
        self.page.evaluate("() => jupyterapp.shell.currentWidget.sessionContext.ready")
        # Chapters open with the book build's outputs: a cell has run when it has
        # an execution count again.
        self.built = self.cells()
        self.evaluate(CLEAR_OUTPUTS)

    def evaluate(self, script: str, argument: Any = None) -> Any:
        return self.page.evaluate(script, argument)

    def cells(self) -> list[dict[str, Any]]:
        """Every cell: type, source, execution count, outputs (nbformat JSON)."""
        return self.evaluate(
            """() => { const cells = jupyterapp.shell.currentWidget.content.model.cells;
              const out = [];
              for (let i = 0; i < cells.length; i++) {
                const c = cells.get(i);
                out.push({type: c.type, source: c.sharedModel.getSource(),
                          count: c.type === 'code' ? c.executionCount : null,
                          outputs: c.type === 'code' ? c.outputs.toJSON() : [],
                          tags: (c.getMetadata('tags') || [])});
              }
              return out; }"""
        )

    def run_all(self) -> float:
        """Runs every cell; returns seconds from opening to the first executed one.
        (The command's promise is not awaited: it ends when the last cell has run.)"""
        self.evaluate(
            "() => { jupyterapp.commands.execute('notebook:run-all-cells'); }"
        )
        self.page.wait_for_function(
            """() => { const cells = jupyterapp.shell.currentWidget.content.model.cells;
              for (let i = 0; i < cells.length; i++) {
                const c = cells.get(i);
                if (c.type === 'code') { return c.executionCount !== null; } }
              return true; }""",
            timeout=KERNEL_TIMEOUT,
            polling=200,
        )
        first = time.monotonic() - self.opened
        self.page.wait_for_function(
            """() => { const cells = jupyterapp.shell.currentWidget.content.model.cells;
              let pending = false, error = false;
              for (let i = 0; i < cells.length; i++) {
                const c = cells.get(i);
                if (c.type !== 'code') continue;
                if (c.executionCount === null) pending = true;
                for (let j = 0; j < c.outputs.length; j++)
                  if (c.outputs.get(j).type === 'error') error = true; }
              return !pending || error; }""",
            timeout=KERNEL_TIMEOUT,
            polling=500,
        )
        return first

    def run_cell(self, index: int, source: str | None = None) -> list[dict[str, Any]]:
        """Runs one cell (after replacing its source); returns its outputs."""
        before = self.cells()[index]["count"]
        self.evaluate(
            """([index, source]) => { const panel = jupyterapp.shell.currentWidget;
              const cell = panel.content.model.cells.get(index);
              if (source !== null) cell.sharedModel.setSource(source);
              panel.content.activeCellIndex = index;
              return jupyterapp.commands.execute('notebook:run-cell'); }""",
            [index, source],
        )
        self.page.wait_for_function(
            """([index, before]) => {
              const c = jupyterapp.shell.currentWidget.content.model.cells.get(index);
              return c.executionCount !== null && c.executionCount !== before; }""",
            arg=[index, before],
            timeout=CELL_TIMEOUT,
            polling=200,
        )
        return self.cells()[index]["outputs"]


def _text(outputs: list[dict[str, Any]]) -> str:
    parts = []
    for output in outputs:
        if output.get("output_type") == "stream":
            text = output.get("text", "")
            parts.append("".join(text) if isinstance(text, list) else text)
        elif output.get("output_type") == "error":
            parts.append(f"{output.get('ename')}: {output.get('evalue')}")
        else:
            data = output.get("data", {}).get("text/plain", "")
            parts.append("".join(data) if isinstance(data, list) else data)
    return "".join(parts)


UNTRUSTED_CELLS = """() => {
  const cells = jupyterapp.shell.currentWidget.content.model.cells;
  const out = [];
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type === 'code' && !c.trusted) out.push(i); }
  return out; }"""


def _errors(outputs: list[dict[str, Any]]) -> list[str]:
    return [
        f"{o.get('ename')}: {o.get('evalue')}"
        for o in outputs
        if o.get("output_type") == "error"
    ]


def _source(cell: dict[str, Any]) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


def _cpython(code: str) -> str:
    """What CPython prints for ``code``, run from the repository's root."""
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def _wrong_answer(stub: str) -> str:
    """The stub with a wrong answer: ``return None`` for its ``raise
    NotImplementedError``, or ``None`` for each ``...`` of a prediction."""
    wrong = re.sub(r"raise NotImplementedError\b.*", "return None", stub)
    wrong = re.sub(r": \.\.\.,", ": None,", wrong)
    assert wrong != stub, f"cannot make a wrong answer from this stub:\n{stub}"
    return wrong


def _check_quietly(notebook: LiteNotebook) -> None:
    assert not notebook.outside, f"requests left the site: {notebook.outside}"
    assert not notebook.failed, f"requests failed: {notebook.failed}"
    assert not notebook.errors, f"console errors: {notebook.errors}"


def _exercise_notebooks() -> list[str]:
    """The exercise notebooks in the lite site (known without a build)."""
    listing = LITE / "lite-notebooks.json"
    if not listing.is_file():
        return ["exercises/(no build)"]
    return [p for p in json.loads(listing.read_text()) if p.startswith("exercises/")]


@pytest.mark.parametrize("path", _exercise_notebooks())
def test_run_all_runs_every_cell_of_an_exercise_notebook(
    lite_site: str, chromium: Any, path: str
) -> None:
    """Run All in the browser on a blank exercise notebook: every cell runs
    and none shows an error (a check on a stub answers in words)."""
    notebook = LiteNotebook(chromium, lite_site, path)
    try:
        first = notebook.run_all()
        print(f"\n[lite] {path}: Run All, {first:.1f} s to the first executed cell")
        for index, cell in enumerate(notebook.cells()):
            if cell["type"] != "code":
                continue
            label = f"{path}, cell {index} ({_source(cell)[:60]!r})"
            assert cell["count"] is not None, f"{label} did not run"
            assert not _errors(cell["outputs"]), f"{label}: {_errors(cell['outputs'])}"
    finally:
        notebook.close()


def _exercise_notebook() -> tuple[str, Path, Path]:
    found = sorted((ROOT / "exercises").glob("01_*.ipynb"))
    assert found, "no chapter 1 exercise notebook in exercises/"
    exercise = found[0]
    solution = ROOT / "solutions" / exercise.name
    assert solution.is_file(), f"no solution notebook for {exercise.name}"
    return exercise.relative_to(ROOT).as_posix(), exercise, solution


def _tagged(cells: list[dict[str, Any]]) -> dict[str, int]:
    """Exercise id -> index of its exercise cell."""
    found = {}
    for index, cell in enumerate(cells):
        for tag in cell.get("metadata", {}).get("tags", cell.get("tags", [])):
            match = EXERCISE_TAG.match(tag)
            if match:
                found[match.group(1)] = index
    return found


def test_exercises_run_and_check_in_the_browser(lite_site: str, chromium: Any) -> None:
    path, exercise_file, solution_file = _exercise_notebook()
    exercise = json.loads(exercise_file.read_text(encoding="utf-8"))
    solution = json.loads(solution_file.read_text(encoding="utf-8"))
    stubs = _tagged(exercise["cells"])
    answers = _tagged(solution["cells"])
    ids = [i for i in stubs if i in answers]
    assert len(ids) >= 2, f"{path}: fewer than two exercises with solutions"
    right_id, wrong_id = ids[0], ids[1]

    notebook = LiteNotebook(chromium, lite_site, path)
    try:
        first = notebook.run_all()
        cells = notebook.cells()
        code = [c for c in cells if c["type"] == "code"]
        errors = [e for c in code for e in _errors(c["outputs"])]
        assert not errors, f"{path}: cells failed in the browser: {errors}"
        assert all(c["count"] is not None for c in code), f"{path}: cells did not run"
        print(
            f"\n[lite] {path}: Run All, {first:.1f} s from opening to the first "
            "executed cell (every request intercepted, so nothing cached)"
        )

        def check_index(exercise_id: str) -> int:
            for index, cell in enumerate(cells):
                if f"check-{exercise_id}" in cell["tags"]:
                    return index
            return stubs[exercise_id] + 1

        setup = "\n".join(
            _source(c)
            for c in exercise["cells"][: stubs[right_id]]
            if c["cell_type"] == "code"
            and "setup" in c.get("metadata", {}).get("tags", [])
        )
        printed = {}
        for exercise_id, answer in [
            (right_id, _source(solution["cells"][answers[right_id]])),
            (wrong_id, _wrong_answer(_source(exercise["cells"][stubs[wrong_id]]))),
        ]:
            check = check_index(exercise_id)
            assert not _errors(notebook.run_cell(stubs[exercise_id], answer))
            browser = _text(notebook.run_cell(check))
            expected = _cpython("\n".join([setup, answer, _source(cells[check])]))
            assert browser.strip() == expected.strip(), (
                f"exercise {exercise_id}: the browser printed {browser!r}, "
                f"CPython {expected!r}"
            )
            printed[exercise_id] = browser.strip()
        print(f"[lite] right answer: {printed[right_id]}")
        print(f"[lite] wrong answer: {printed[wrong_id]}")
        assert printed[right_id] != printed[wrong_id]
        assert "All right!" in printed[right_id], printed[right_id]
        assert "All right!" not in printed[wrong_id], printed[wrong_id]

        last = max(i for i, c in enumerate(cells) if c["type"] == "code")
        browser_ms = float(
            re.findall(r"matmul64 ([\d.]+) ms", _text(notebook.run_cell(last, MATMUL)))[
                0
            ]
        )
        cpython_ms = float(re.findall(r"matmul64 ([\d.]+) ms", _cpython(MATMUL))[0])
        print(
            f"[lite] 64x64 matmul (slowtorch_lib, float32): "
            f"browser {browser_ms:.1f} ms, "
            f"CPython {cpython_ms:.1f} ms ({browser_ms / cpython_ms:.1f}x)"
        )
        notebook.page.wait_for_timeout(1000)
    finally:
        notebook.close()
    _check_quietly(notebook)


def test_start_up_cold_and_warm(lite_site: str, chromium: Any) -> None:
    """Prints the time from opening a chapter to its first executed cell, in a
    browser profile of its own: with an empty cache (cold), on the second visit
    (warm) and on the third (the browser has then also kept the code it compiled
    from Pyodide's WebAssembly), and where the time went; then each other chapter's,
    opened once in the same profile (warm: the site's files are in the cache). The
    profile keeps its cache on disk, as a student's browser does
    (``serving.with_profile``). No request interception here: it turns the
    browser's HTTP cache off (so "warm" would be cold again) and slows every
    request down; the browser resolves no host name but the local server's
    (``serving.CHROMIUM_FLAGS``). The site's service worker answers only the
    requests for files kept in the browser. Once that worker controls the page
    (from the second visit), the kernel takes the worker that the page made as
    it opened, already loading Pyodide (``python -m bench.startup`` repeats
    this and prints medians)."""
    first, *others = chapters()
    outside: list[str] = []
    from_worker: list[str] = []
    with with_profile(chromium) as context:
        context.on(
            "request",
            lambda request: (
                None
                if request.url.startswith((lite_site, "data:", "blob:"))
                else outside.append(request.url)
            ),
        )
        context.on(
            "response",
            lambda response: (
                from_worker.append(response.url)
                if response.from_service_worker and "/api/" not in response.url
                else None
            ),
        )
        visits = [open_and_run_first_cell(context, lite_site, first) for _ in range(3)]
        warm = {
            path: open_and_run_first_cell(context, lite_site, path) for path in others
        }
    cold, again, third = visits
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"\n[lite] {first}: first executed cell {cold.seconds:.1f} s cold, "
        f"{again.seconds:.1f} s warm, {third.seconds:.1f} s on the third visit "
        f"(load average {load}; {os.cpu_count()} cores)"
        f"\n[lite] cold, s from opening: {cold.steps}"
        f"\n[lite] warm, s from opening: {again.steps}"
        f"\n[lite] third visit, s from opening: {third.steps}"
    )
    for path, opened in warm.items():
        print(f"[lite] {path}, warm: {opened.seconds:.1f} s; {opened.steps}")
    assert not outside, f"requests left the site: {outside}"
    assert not from_worker, f"the service worker answered: {from_worker[:5]}"
    # On the first visit the site's service worker does not control the page yet,
    # so the page makes no kernel worker of its own; on the next ones the kernel
    # takes the worker that the page made.
    states = [opened.early_worker for opened in [*visits, *warm.values()]]
    assert states == ["not made"] + ["taken"] * (len(states) - 1), states


#: The longest a chapter's training run may take in the browser, in seconds
#: (the chapter prints how long it took, and where).
TRAINING_LIMITS = {"book/05_windows.ipynb": 120, "book/06_attention.ipynb": 240}
TRAINED = re.compile(r"engine: (\d+) s for \d+ (?:epochs|steps) in the browser")


def _training_time(notebook: LiteNotebook, path: str) -> None:
    """A chapter with a training run shows a progress bar while it trains and
    says how long it took, within its limit."""
    texts = [_text(cell["outputs"]) for cell in notebook.cells()]
    said = [int(m.group(1)) for text in texts for m in TRAINED.finditer(text)]
    assert said, f"{path}: no training time printed in the browser"
    print(
        f"[lite] {path}: the training run took {said[0]} s in the browser; "
        f"on CPython, in the book's build: {_cpython_time(path)}"
    )
    assert said[0] <= TRAINING_LIMITS[path], f"{path}: trained in {said[0]} s"
    bars = [
        cell
        for cell in notebook.cells()
        if "training_bar(" in _source(cell)
        and any(
            "application/vnd.jupyter.widget-view+json" in o.get("data", {})
            for o in cell["outputs"]
        )
    ]
    assert bars, f"{path}: the training run shows no progress bar"


def _cpython_time(path: str) -> str:
    """What the book's build printed for the same training run (or why not)."""
    built = ROOT / "_build" / "jupyter_execute" / path
    if not built.is_file():
        return "not built"
    text = "".join(
        "".join(output.get("text", ""))
        for cell in json.loads(built.read_text("utf-8"))["cells"]
        for output in cell.get("outputs", [])
    )
    found = re.search(r"engine: (\d+) s for \d+ \w+ on CPython", text)
    return f"{found.group(1)} s" if found else "not printed"


@pytest.mark.parametrize("path", chapters())
def test_run_all_runs_every_cell_of_a_chapter(
    lite_site: str, chromium: Any, path: str
) -> None:
    """Run All in the browser runs a chapter to its end: its deliberate errors
    (tagged ``raises-exception``) show their traceback and do not stop it."""
    notebook = LiteNotebook(chromium, lite_site, path)
    try:
        first = notebook.run_all()
        print(
            f"\n[lite] {path}: Run All, {first:.1f} s from opening to the first "
            "executed cell (every request intercepted, so nothing cached)"
        )
        for index, cell in enumerate(notebook.cells()):
            if cell["type"] != "code":
                continue
            label = f"{path}, cell {index} ({_source(cell)[:60]!r})"
            assert cell["count"] is not None, f"{label} did not run"
            if "raises-exception" in cell["tags"]:
                shown = _text(cell["outputs"])
                assert "Error" in shown or "Exception" in shown, (
                    f"{label}: its deliberate error shows no message: {shown!r}"
                )
            else:
                assert not _errors(cell["outputs"]), (
                    f"{label}: {_errors(cell['outputs'])}"
                )
        broken = _broken_images(notebook)
        assert not broken, f"{path}: pictures that do not show: {broken}"
        if path in TRAINING_LIMITS:
            _training_time(notebook, path)
    finally:
        notebook.close()


BROKEN_IMAGES = """() => Array.from(document.querySelectorAll('.jp-OutputArea img'))
  .filter(img => img.complete && img.naturalWidth === 0)
  .map(img => (img.alt || img.src).slice(0, 80))"""


def _broken_images(notebook: LiteNotebook) -> list[str]:
    """Pictures in the outputs (widgets' included) that the browser cannot show,
    looked at with each cell that shows a widget in view (the notebook only draws
    the cells near the view)."""
    broken: set[str] = set()
    for index, cell in enumerate(notebook.cells()):
        views = [
            o
            for o in cell["outputs"]
            if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
        ]
        if not views:
            continue
        notebook.evaluate(
            "(i) => jupyterapp.shell.currentWidget.content.scrollToItem(i)", index
        )
        notebook.page.wait_for_timeout(1500)
        broken.update(notebook.evaluate(BROKEN_IMAGES))
    return sorted(broken | set(notebook.evaluate(BROKEN_IMAGES)))


def _graph_chapter() -> str:
    """The first chapter in the lite site that draws graphs and shows widgets."""
    listing = json.loads((LITE / "lite-notebooks.json").read_text())
    for path in listing:
        text = (LITE / "files" / path).read_text(encoding="utf-8")
        if path.startswith("book/") and "make_dot" in text and "stepper" in text:
            return path
    pytest.fail("no chapter with make_dot and a widget among the lite notebooks")


SVG_GRAPHS = """() => Array.from(
  document.querySelectorAll('.jp-OutputArea svg g.graph'))
  .filter(g => g.getBoundingClientRect().width > 0).length"""


def test_graphs_and_widgets_in_the_browser(lite_site: str, chromium: Any) -> None:
    path = _graph_chapter()
    notebook = LiteNotebook(chromium, lite_site, path)
    try:
        cells = notebook.cells()
        saw_graph = saw_widget = False
        opened = notebook.opened
        for index, cell in enumerate(cells):
            if cell["type"] != "code":
                continue
            outputs = notebook.run_cell(index)
            if opened is not None:
                print(
                    f"\n[lite] {path}: {time.monotonic() - opened:.1f} s from opening "
                    "to the first executed cell"
                )
                opened = None
            assert not _errors(outputs), f"{path}, cell {index}: {_errors(outputs)}"
            for output in outputs:
                data = output.get("data", {})
                saw_graph |= "<svg" in "".join(data.get("image/svg+xml", ""))
                saw_widget |= "application/vnd.jupyter.widget-view+json" in data
            if saw_graph and saw_widget:
                break
        widget_cell = index
        assert saw_graph, f"{path}: no cell drew a graph"
        assert saw_widget, f"{path}: no cell showed a widget"
        notebook.page.wait_for_function(f"() => ({SVG_GRAPHS})() > 0", timeout=30_000)

        slider = notebook.page.locator(".jp-OutputArea .widget-slider").last
        slider.wait_for(timeout=30_000)
        readout = slider.locator(".widget-readout")
        stack = notebook.page.locator(".jp-OutputArea .widget-vbox").last
        before = (readout.inner_text(), stack.inner_text())
        handle = slider.locator(".noUi-handle")
        handle.focus()
        handle.press("ArrowRight")
        notebook.page.wait_for_function(
            "([el, text]) => el.textContent !== text",
            arg=[readout.element_handle(), before[0]],
            timeout=10_000,
        )
        after = (readout.inner_text(), stack.inner_text())
        assert after[0] != before[0] and after[1] != before[1], (
            f"{path}: the widget did not respond: {before} -> {after}"
        )
        # The rest of the chapter runs too (its deep graphs included).
        for index, cell in enumerate(cells):
            if index > widget_cell and cell["type"] == "code":
                outputs = notebook.run_cell(index)
                assert not _errors(outputs), f"{path}, cell {index}: {_errors(outputs)}"
        notebook.page.wait_for_timeout(1000)
    finally:
        notebook.close()
    _check_quietly(notebook)


def test_edits_persist_and_save_as_ipynb(lite_site: str, chromium: Any) -> None:
    """An edit saved in the browser is there on the next visit, as an .ipynb with the
    browser kernel's metadata (what a downloaded notebook carries)."""
    path, _, _ = _exercise_notebook()
    notebook = LiteNotebook(chromium, lite_site, path)
    marker = "# edited in the browser by test_lite"
    try:
        notebook.evaluate(
            """(marker) => { const panel = jupyterapp.shell.currentWidget;
              const cells = panel.content.model.cells;
              const cell = cells.get(cells.length - 1);
              cell.sharedModel.setSource(marker);
              return jupyterapp.commands.execute('docmanager:save'); }""",
            marker,
        )
        notebook.page.reload()
        notebook.page.wait_for_function(
            "() => window.jupyterapp && jupyterapp.shell.currentWidget"
            " && jupyterapp.shell.currentWidget.content.model"
            " && jupyterapp.shell.currentWidget.context",
            timeout=KERNEL_TIMEOUT,
        )
        notebook.evaluate("() => jupyterapp.shell.currentWidget.context.ready")
        cells = notebook.cells()
        assert _source(cells[-1]) == marker, "the edit did not survive a reload"
        saved = notebook.evaluate(
            "(path) => jupyterapp.serviceManager.contents.get(path, {content: true})"
            ".then(model => model.content)",
            path,
        )
        assert saved["nbformat"] == 4
        print(f"\n[lite] a notebook saved in the browser carries: {saved['metadata']}")
        assert saved["metadata"]["kernelspec"]["name"] == "python"
        untrusted = notebook.evaluate(UNTRUSTED_CELLS)
        assert not untrusted, f"reopened, cells {untrusted} are not trusted"
        with notebook.page.expect_download(timeout=60_000) as download:
            notebook.evaluate(
                "() => { jupyterapp.commands.execute('docmanager:download'); }"
            )
        name = download.value.suggested_filename
        assert name == Path(path).name, f"downloaded as {name}"
    finally:
        notebook.close()
    _check_quietly(notebook)


#: How late the slow site answers for its service worker: long after the notebook
#: has opened and asked for a kernel (about 3 s on a quiet machine).
SLOW_WORKER = 8.0


#: Breaks the page's early start of the kernel's worker (lite/loading.js): its
#: message names a Pyodide module that does not exist.
BREAK_EARLY_START = """(() => { const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.id === "slowtorch-early-start")
      message.argumentList[0].value.pyodideUrl += ".missing";
    return post.call(this, message, ...rest); }; })();"""


def test_a_kernel_worker_made_early_that_failed_or_is_stale_is_not_used(
    lite_site: str, chromium: Any
) -> None:
    """The kernel does not take a worker that the page made early (lite/loading.js)
    if that worker's start failed, or if it is not the kernel's worker script (a
    page script cached from an older build of the site): the kernel makes its own,
    starts, loads Pyodide once and reaches the stored files, and the page ends the
    worker nobody took. Each on a second visit (on the first the page makes no
    worker: the site's service worker does not control it yet)."""
    path = "book/01_tensors.ipynb"
    with with_profile(chromium) as context:
        assert open_and_run_first_cell(context, lite_site, path).early_worker == (
            "not made"
        )
        context.add_init_script(BREAK_EARLY_START)
        failed = open_and_run_first_cell(context, lite_site, path)
    # An older build's page script names an older worker script, still served
    # (here, the same code under another name): it starts, but is not taken.
    script = (LITE / "slowtorch-loading.js").read_text(encoding="utf-8")
    named = re.search(
        r'const KERNEL_WORKER = "(.+/(comlink\.worker\.\w+\.js))";', script
    )
    assert named, "the page script names no kernel worker"
    older = {
        "slowtorch-loading.js": script.replace(
            named[2], "comlink.worker.0ld.js"
        ).encode(),
        "comlink.worker.0ld.js": (LITE / named[1]).read_bytes(),
    }
    with served(HTML, replaced=older) as site:
        with with_profile(chromium) as context:
            open_and_run_first_cell(context, site, path)
            old = open_and_run_first_cell(context, site, path)
    print(f"\n[lite] early start failed: {failed.seconds:.1f} s; {failed.steps}")
    print(f"[lite] stale page script: {old.seconds:.1f} s; {old.steps}")
    assert (failed.early_worker, old.early_worker) == ("ended", "ended")


def test_the_kernel_sees_the_stored_files_when_the_service_worker_is_slow(
    chromium: Any,
) -> None:
    """The kernel reaches the files kept in the browser (``/drive``: the notebooks,
    a student's saved pieces) through the site's service worker. JupyterLite's
    kernel asks whether that worker is registered once, when it starts, without
    waiting; the site makes it wait. Served with the worker's script
    ``SLOW_WORKER`` s late, a notebook's kernel still starts in the notebook's
    folder under ``/drive`` and lists the files beside it; a module written there
    imports (the folder is last on ``sys.path``)."""
    path, _, _ = _exercise_notebook()
    probe = (
        "import os, sys\n"
        "print(os.getcwd())\n"
        "print(sorted(n for n in os.listdir() if n.endswith('.ipynb'))[0])\n"
        "with open('lite_probe.py', 'w') as file:\n"
        "    file.write('VALUE = 42\\n')\n"
        "import lite_probe\n"
        "print(lite_probe.VALUE, sys.path[-1] == '', sys.path.count(''))"
    )
    with served(HTML, {"service-worker.js": SLOW_WORKER}) as site:
        notebook = LiteNotebook(chromium, site, path)
        try:
            first = [c["type"] for c in notebook.cells()].index("code")
            shown = _text(notebook.run_cell(first, probe))
            one_kernel(notebook.page, path)
        finally:
            notebook.close()
    folder, name = Path(path).parent.as_posix(), Path(path).name
    assert shown == f"/drive/{folder}\n{name}\n42 True 1\n", shown
    _check_quietly(notebook)


def test_a_students_plot_offline_says_why_without_a_traceback(
    lite_site: str, chromium: Any
) -> None:
    """The chapters draw with ``svg_plots``; a student's own matplotlib cell,
    offline where matplotlib cannot be loaded, prints a one-line note instead
    of a traceback, and the only requests that leave the site are the
    (blocked) attempts to load matplotlib from Pyodide's CDN, which is what
    makes such plots work online."""
    path = _exercise_notebook()[0]
    notebook = LiteNotebook(chromium, lite_site, path)
    try:
        notebook.run_all()
        last = max(i for i, c in enumerate(notebook.cells()) if c["type"] == "code")
        plot = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 4])\nplt.show()"
        outputs = notebook.run_cell(last, plot)
        assert not _errors(outputs), f"{path}: a traceback offline: {_errors(outputs)}"
        assert "matplotlib cannot be loaded" in _text(outputs), _text(outputs)
        notebook.page.wait_for_timeout(1000)
    finally:
        notebook.close()
    cdn = "https://cdn.jsdelivr.net/pyodide/"
    assert all(url.startswith(cdn) for url in notebook.outside), notebook.outside
    notebook.outside.clear()
    _check_quietly(notebook)


SET_SOURCES = """(sources) => {
  const cells = jupyterapp.shell.currentWidget.content.model.cells;
  for (const [index, source] of sources) cells.get(index).sharedModel.setSource(source);
}"""


@pytest.mark.parametrize(
    ("chapter", "model", "pieces"),
    [("05_windows", "CNN", 5), ("06_attention", "GPT", 8)],
)
def test_the_students_model_trains_in_the_browser_within_two_minutes(
    lite_site: str, chromium: Any, chapter: str, model: str, pieces: int
) -> None:
    """An exercise notebook with every piece answered (the model answers
    stand in for a student's): its last cell builds chapter 5's CNN on the
    student's ``Conv2d``, or chapter 6's GPT from their 6.2-6.9, and trains
    it in Pyodide within two minutes, each loss equal to PyTorch's record."""
    path = f"exercises/{chapter}.ipynb"
    exercise = json.loads((ROOT / path).read_text(encoding="utf-8"))["cells"]
    solution = json.loads(
        (ROOT / "solutions" / f"{chapter}.ipynb").read_text(encoding="utf-8")
    )["cells"]
    assert len(exercise) == len(solution)
    answers = [
        [index, _source(answer)]
        for index, (stub, answer) in enumerate(zip(exercise, solution))
        if _source(stub) != _source(answer)
    ]
    assert len(answers) >= pieces, f"{path}: fewer answered pieces than it asks for"
    last = max(i for i, c in enumerate(exercise) if c["cell_type"] == "code")
    timed = (
        "import time as _clock\n_started = _clock.perf_counter()\n"
        + _source(exercise[last])
        + "\nprint(f'[trained in] {_clock.perf_counter() - _started:.1f} s')\n"
    )
    notebook = LiteNotebook(chromium, lite_site, path)
    try:
        notebook.evaluate(SET_SOURCES, [*answers, [last, timed]])
        notebook.run_all()
        cells = notebook.cells()
        errors = [
            e for c in cells if c["type"] == "code" for e in _errors(c["outputs"])
        ]
        assert not errors, f"{path}: cells failed in the browser: {errors}"
        shown = _text(cells[last]["outputs"])
    finally:
        notebook.close()
    seconds = float(re.findall(r"\[trained in\] ([\d.]+) s", shown)[0])
    print(f"\n[lite] the student's {model} trained in the browser in {seconds:.1f} s")
    print(shown)
    assert "every step's loss equals PyTorch's" in shown, shown
    assert model != "GPT" or "the same names" in shown, shown
    assert seconds <= 120, f"the student's {model} took {seconds:.0f} s in the browser"
